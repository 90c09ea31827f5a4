//===- Text.h - Small helpers for messages ----------------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_SUPPORT_TEXT_H
#define ATTNC_LIB_SUPPORT_TEXT_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnc {

/// `name` in double quotes, as messages quote names from a manifest ("q"),
/// so that an empty or odd name still reads as one. (Not `quoted`: for a
/// std::string argument, lookup would find std::quoted.)
inline std::string inQuotes(std::string_view name) {
  return "\"" + std::string(name) + "\"";
}

/// A shape as messages write it: "[2, 3, 4]".
inline std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

} // namespace attnc

#endif // ATTNC_LIB_SUPPORT_TEXT_H
