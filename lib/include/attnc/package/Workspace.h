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

#include <map>
#include <optional>
#include <string>

namespace attnc::pkg {

/// Where the buffers of one call of a function live in its workspace.
struct WorkspaceLayout {
  size_t bytes = 0;
  std::vector<size_t> offsets; // per buffer; SIZE_MAX for one of no bytes
};

/// The first and last step that names a buffer: it lives from the kernel
/// that writes it to the last that reads it. A concurrent step counts as
/// the step before it, which runs at the same time, so the buffers of a pair
/// of steps are all live at once. {1, 0} (empty) for a buffer no step
/// names.
using Lifetime = std::pair<size_t, size_t>;

/// Per buffer of `function`, its lifetime. It depends on the steps only, so
/// the runtime computes it once per function, not per call.
std::vector<Lifetime> bufferLifetimes(const Function &function);

/// Lays out `function`'s buffers, `bufferBytes[b]` bytes each, at 256-byte
/// aligned offsets (what the widest vector accesses and TMA want) so that
/// buffers live at the same time never share bytes: by slot (each slot as
/// large as its largest buffer, slots in slot order, a buffer at its slot's
/// offset) or, where that is smaller, by lifetime (largest first, each at
/// the lowest offset clear of the buffers live with it). `lifetimes` is
/// bufferLifetimes(function).
StatusOr<WorkspaceLayout>
layoutWorkspace(const Function &function,
                const std::vector<size_t> &bufferBytes,
                const std::vector<Lifetime> &lifetimes);

/// The bytes of `tensor` with its symbols at `extents`; nothing when one of
/// its symbols has none, which `missing` then names.
std::optional<size_t>
bytesAtExtents(const TensorSig &tensor,
               const std::map<std::string, int64_t> &extents,
               std::string &missing);

/// The bytes of the workspace a call of `function` takes with its symbols
/// at `extents` (layoutWorkspace of its buffers); an error naming a symbol
/// `extents` lacks.
StatusOr<size_t>
workspaceBytesAt(const Function &function,
                 const std::map<std::string, int64_t> &extents);

} // namespace attnc::pkg

#endif // ATTNC_PACKAGE_WORKSPACE_H
