//===- Extents.h - Element counts, bytes and strides of shapes --*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The shape arithmetic that the reference, the runtime and its tools share.
// Extents come from callers and manifests, so every product is checked.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_SUPPORT_EXTENTS_H
#define ATTNC_LIB_SUPPORT_EXTENTS_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace attnc {

/// The largest extent of a tensor dimension: the runtime refuses larger
/// ones, and the compiler computes indices below it in 32 bits
/// (attn-narrow-region-indices).
inline constexpr int64_t kMaxExtent = 2147483647; // 2^31 - 1

/// Multiplies `factor` into `product`; false on int64 overflow.
inline bool checkedMul(int64_t &product, int64_t factor) {
  return !__builtin_mul_overflow(product, factor, &product);
}

/// Elements of a dense tensor of `shape`; nothing if an extent is negative
/// or the count overflows int64.
inline std::optional<int64_t> elementCount(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t extent : shape)
    if (extent < 0 || !checkedMul(count, extent))
      return std::nullopt;
  return count;
}

/// Bytes of a dense tensor of `shape` with `elementSize`-byte elements;
/// nothing if an extent is negative or the size overflows int64.
inline std::optional<int64_t> denseBytes(const std::vector<int64_t> &shape,
                                         size_t elementSize) {
  std::optional<int64_t> bytes = elementCount(shape);
  if (!bytes || !checkedMul(*bytes, static_cast<int64_t>(elementSize)))
    return std::nullopt;
  return bytes;
}

/// Row-major strides, in elements, of `shape`; nothing if one overflows
/// int64 (a zero extent lets strides outgrow the element count).
inline std::optional<std::vector<int64_t>>
denseStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) {
    strides[i - 1] = strides[i];
    if (!checkedMul(strides[i - 1], shape[i]))
      return std::nullopt;
  }
  return strides;
}

} // namespace attnc

#endif // ATTNC_LIB_SUPPORT_EXTENTS_H
