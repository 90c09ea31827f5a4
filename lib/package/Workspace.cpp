//===- Workspace.cpp - Where a call's buffers live ------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Two layouts, the smaller wins. By slot: each slot as large as its largest
// buffer, slots one after the other; the compiler chose the slots without
// the sizes. By lifetime: with the call's sizes known, each buffer (largest
// first) goes to the lowest offset where it overlaps no placed buffer that
// is live at the same time, which packs a small buffer beside a large one
// that a slot would have made wait for the whole slot.
//
//===----------------------------------------------------------------------===//

#include "attnc/package/Workspace.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string_view>

using namespace attnc;
using namespace attnc::pkg;

namespace {

constexpr size_t kAlignment = 256;

size_t alignUp(size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

/// The byte a layout needs past `offset + bytes`, or nothing on overflow.
std::optional<size_t> endOf(size_t offset, size_t bytes) {
  size_t end;
  if (__builtin_add_overflow(offset, bytes, &end) || alignUp(end) < end)
    return std::nullopt;
  return end;
}

std::optional<WorkspaceLayout> bySlot(const Function &function,
                                      const std::vector<size_t> &bufferBytes) {
  std::map<int64_t, size_t> slotBytes, slotOffsets;
  for (size_t b = 0; b < bufferBytes.size(); ++b) {
    size_t &bytes = slotBytes[function.buffers[b].slot];
    bytes = std::max(bytes, bufferBytes[b]);
  }
  WorkspaceLayout layout;
  for (const auto &[slot, bytes] : slotBytes) {
    if (bytes == 0)
      continue;
    slotOffsets[slot] = alignUp(layout.bytes);
    std::optional<size_t> end = endOf(slotOffsets[slot], bytes);
    if (!end)
      return std::nullopt;
    layout.bytes = *end;
  }
  for (size_t b = 0; b < bufferBytes.size(); ++b)
    layout.offsets.push_back(
        bufferBytes[b] ? slotOffsets[function.buffers[b].slot] : SIZE_MAX);
  return layout;
}

std::optional<WorkspaceLayout>
byLifetime(const std::vector<size_t> &bufferBytes,
           const std::vector<Lifetime> &live) {
  std::vector<size_t> order(bufferBytes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return bufferBytes[a] > bufferBytes[b];
  });
  WorkspaceLayout layout;
  layout.offsets.assign(bufferBytes.size(), SIZE_MAX);
  std::vector<size_t> placed;
  for (size_t b : order) {
    if (bufferBytes[b] == 0 || live[b].first > live[b].second)
      continue;
    // Candidates: 0 and the end of every placed buffer live with b.
    std::vector<size_t> clashing, candidates = {0};
    for (size_t p : placed)
      if (live[p].first <= live[b].second && live[b].first <= live[p].second) {
        clashing.push_back(p);
        candidates.push_back(alignUp(layout.offsets[p] + bufferBytes[p]));
      }
    std::sort(candidates.begin(), candidates.end());
    for (size_t offset : candidates) {
      std::optional<size_t> end = endOf(offset, bufferBytes[b]);
      if (!end)
        return std::nullopt;
      bool fits = std::none_of(clashing.begin(), clashing.end(), [&](size_t p) {
        return offset < layout.offsets[p] + bufferBytes[p] &&
               layout.offsets[p] < *end;
      });
      if (!fits)
        continue;
      layout.offsets[b] = offset;
      layout.bytes = std::max(layout.bytes, *end);
      break;
    }
    placed.push_back(b);
  }
  return layout;
}

} // namespace

std::vector<Lifetime> pkg::bufferLifetimes(const Function &function) {
  std::map<std::string_view, size_t> bufferIndex;
  for (size_t b = 0; b < function.buffers.size(); ++b)
    bufferIndex[function.buffers[b].tensor.name] = b;
  std::vector<Lifetime> live(function.buffers.size(), {1, 0});
  for (size_t s = 0; s < function.steps.size(); ++s) {
    // A concurrent step runs at the time of the step before it.
    size_t time = function.steps[s].concurrent && s > 0 ? s - 1 : s;
    for (const std::string &arg : function.steps[s].args) {
      // A view's use is a use of the buffer it lives in.
      auto found = bufferIndex.find(function.storageOf(arg));
      if (found == bufferIndex.end())
        continue;
      Lifetime &lifetime = live[found->second];
      lifetime = {lifetime.first > lifetime.second ? time : lifetime.first,
                  time};
    }
  }
  return live;
}

StatusOr<WorkspaceLayout>
pkg::layoutWorkspace(const Function &function,
                     const std::vector<size_t> &bufferBytes,
                     const std::vector<Lifetime> &lifetimes) {
  if (bufferBytes.size() != function.buffers.size() ||
      lifetimes.size() != function.buffers.size())
    return Status::error(
        "internal error: " + std::to_string(bufferBytes.size()) +
        " buffer sizes and " + std::to_string(lifetimes.size()) +
        " lifetimes for the " + std::to_string(function.buffers.size()) +
        " buffers of '" + function.name + "'");
  std::optional<WorkspaceLayout> slots = bySlot(function, bufferBytes),
                                 packed = byLifetime(bufferBytes, lifetimes);
  if (!slots || !packed)
    return Status::error("the buffers of function '" + function.name +
                         "' are too large to address");
  return packed->bytes < slots->bytes ? std::move(*packed) : std::move(*slots);
}

std::optional<size_t>
pkg::bytesAtExtents(const TensorSig &tensor,
                    const std::map<std::string, int64_t> &extents,
                    std::string &missing) {
  size_t bytes = dtypeSize(tensor.dtype);
  for (const Dim &dim : tensor.shape) {
    auto found = extents.find(dim.symbol);
    if (!dim.isStatic() && found == extents.end()) {
      missing = dim.symbol;
      return std::nullopt;
    }
    bytes *= static_cast<size_t>(dim.isStatic() ? dim.extent : found->second);
  }
  return bytes;
}

StatusOr<size_t>
pkg::workspaceBytesAt(const Function &function,
                      const std::map<std::string, int64_t> &extents) {
  std::vector<size_t> bufferBytes;
  std::string missing;
  for (const Buffer &buffer : function.buffers) {
    std::optional<size_t> bytes =
        bytesAtExtents(buffer.tensor, extents, missing);
    if (!bytes)
      return Status::error("function '" + function.name +
                           "': no extent for symbol '" + missing + "'");
    bufferBytes.push_back(*bytes);
  }
  auto layout =
      layoutWorkspace(function, bufferBytes, bufferLifetimes(function));
  if (!layout)
    return layout.status();
  return layout->bytes;
}
