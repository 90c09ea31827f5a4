//===- Workspace.cpp - Where a call's buffers live ------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "attnc/package/Workspace.h"

#include <algorithm>

using namespace attnc;
using namespace attnc::pkg;

namespace {
constexpr size_t kSlotAlignment = 256;
} // namespace

StatusOr<WorkspaceLayout>
pkg::layoutWorkspace(const Function &function,
                     const std::vector<size_t> &bufferBytes) {
  if (bufferBytes.size() != function.buffers.size())
    return Status::error(
        "internal error: " + std::to_string(bufferBytes.size()) +
        " buffer sizes for the " + std::to_string(function.buffers.size()) +
        " buffers of '" + function.name + "'");
  std::map<int64_t, size_t> slotBytes, slotOffsets;
  for (size_t b = 0; b < bufferBytes.size(); ++b) {
    size_t &bytes = slotBytes[function.buffers[b].slot];
    bytes = std::max(bytes, bufferBytes[b]);
  }
  WorkspaceLayout layout;
  for (const auto &[slot, bytes] : slotBytes) {
    if (bytes == 0)
      continue;
    size_t offset =
        (layout.bytes + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment;
    if (offset < layout.bytes ||
        __builtin_add_overflow(offset, bytes, &layout.bytes))
      return Status::error("the buffers of function '" + function.name +
                           "' are too large to address");
    slotOffsets[slot] = offset;
  }
  for (size_t b = 0; b < bufferBytes.size(); ++b)
    layout.offsets.push_back(
        bufferBytes[b] ? slotOffsets[function.buffers[b].slot] : SIZE_MAX);
  return layout;
}
