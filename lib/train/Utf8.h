//===- Utf8.h - UTF-8 validation --------------------------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// JSON text is UTF-8, and nlohmann/json throws when asked to write other
// bytes: names and settings from the caller are checked first.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_TRAIN_UTF8_H
#define ATTNC_LIB_TRAIN_UTF8_H

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace attnc::train {

/// Whether `text` is well-formed UTF-8: no overlong forms, surrogates or
/// code points above U+10FFFF.
inline bool isValidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    uint8_t lead = static_cast<uint8_t>(text[i]);
    size_t length = lead < 0x80             ? 1
                    : (lead & 0xe0) == 0xc0 ? 2
                    : (lead & 0xf0) == 0xe0 ? 3
                    : (lead & 0xf8) == 0xf0 ? 4
                                            : 0;
    if (length == 0 || i + length > text.size())
      return false;
    uint32_t point = length == 1 ? lead : lead & (0x7f >> length);
    for (size_t k = 1; k < length; ++k) {
      uint8_t next = static_cast<uint8_t>(text[i + k]);
      if ((next & 0xc0) != 0x80)
        return false;
      point = point << 6 | (next & 0x3f);
    }
    static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (point < kSmallest[length] || point > 0x10ffff ||
        (point >= 0xd800 && point <= 0xdfff))
      return false;
    i += length;
  }
  return true;
}

} // namespace attnc::train

#endif // ATTNC_LIB_TRAIN_UTF8_H
