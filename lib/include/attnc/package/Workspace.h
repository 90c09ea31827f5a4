//===- Workspace.h - Where a call's buffers live ----------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The layout of a function's buffers in the one workspace a call allocates:
// the runtime places them by it, and `attnc --explain` reports its size for
// given symbols.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PACKAGE_WORKSPACE_H
#define ATTNC_PACKAGE_WORKSPACE_H

#include "attnc/package/Package.h"

namespace attnc::pkg {

/// Where the buffers of one call of a function live in its workspace.
struct WorkspaceLayout {
  size_t bytes = 0;
  std::vector<size_t> offsets; // per buffer; SIZE_MAX for one of no bytes
};

/// Lays out `function`'s buffers, `bufferBytes[b]` bytes each: each slot is
/// as large as its largest buffer (buffers of a slot are never live at the
/// same time), slots follow each other in slot order at 256-byte aligned
/// offsets (what the widest vector accesses and TMA want), and a buffer
/// lives at its slot's offset.
StatusOr<WorkspaceLayout>
layoutWorkspace(const Function &function,
                const std::vector<size_t> &bufferBytes);

} // namespace attnc::pkg

#endif // ATTNC_PACKAGE_WORKSPACE_H
