//===- TokenFiles.h - Token files written for tests -------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_TEST_UNIT_RUNTIME_TOKENFILES_H
#define ATTNC_TEST_UNIT_RUNTIME_TOKENFILES_H

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace attnc::test {

/// The fields of an ATTNTOK1 header, each settable to a wrong value.
struct TokenHeader {
  uint32_t version = 1;
  uint32_t width = 2;
  uint64_t count = 0;
  uint32_t vocabSize = 256;
  uint32_t reserved = 0;
};

inline void appendLittleEndian(std::vector<uint8_t> &bytes, uint64_t value,
                               int width) {
  for (int i = 0; i < width; ++i)
    bytes.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

/// `tokens` as `width`-byte little-endian integers.
inline std::vector<uint8_t> rawTokens(const std::vector<uint32_t> &tokens,
                                      int width) {
  std::vector<uint8_t> bytes;
  for (uint32_t token : tokens)
    appendLittleEndian(bytes, token, width);
  return bytes;
}

inline std::vector<uint8_t>
tokenFileBytes(const TokenHeader &header, const std::vector<uint32_t> &tokens) {
  std::vector<uint8_t> bytes = {'A', 'T', 'T', 'N', 'T', 'O', 'K', '1'};
  appendLittleEndian(bytes, header.version, 4);
  appendLittleEndian(bytes, header.width, 4);
  appendLittleEndian(bytes, header.count, 8);
  appendLittleEndian(bytes, header.vocabSize, 4);
  appendLittleEndian(bytes, header.reserved, 4);
  std::vector<uint8_t> data =
      rawTokens(tokens, static_cast<int>(header.width == 4 ? 4 : 2));
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

/// A path under the test temp directory that no other test process uses.
inline std::string tokenTempPath(const std::string &stem) {
  return ::testing::TempDir() + stem + "-" + std::to_string(getpid()) + ".tok";
}

inline void writeBytes(const std::string &path,
                       const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

/// Writes a valid file of `tokens` and returns its path.
inline std::string writeTokenFile(const std::string &stem,
                                  const std::vector<uint32_t> &tokens,
                                  uint32_t width = 2,
                                  uint32_t vocabSize = 256) {
  TokenHeader header;
  header.width = width;
  header.count = tokens.size();
  header.vocabSize = vocabSize;
  std::string path = tokenTempPath(stem);
  writeBytes(path, tokenFileBytes(header, tokens));
  return path;
}

/// 0, 1, 2, ... modulo `vocabSize`: every token tells where it is.
inline std::vector<uint32_t> countingTokens(size_t count,
                                            uint32_t vocabSize = 256) {
  std::vector<uint32_t> tokens(count);
  for (size_t i = 0; i < count; ++i)
    tokens[i] = static_cast<uint32_t>(i % vocabSize);
  return tokens;
}

} // namespace attnc::test

#endif // ATTNC_TEST_UNIT_RUNTIME_TOKENFILES_H
