//===- SafeTensorsTest.cpp - The safetensors file format ------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "attnc/package/SafeTensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <unistd.h>

using namespace attnc;
namespace st = attnc::safetensors;

namespace {

/// A file as PyTorch's safetensors writes it: the 8-byte length, the JSON
/// header, then the data.
std::vector<uint8_t> fileBytes(const std::string &header,
                               const std::vector<uint8_t> &data) {
  std::vector<uint8_t> bytes;
  bytes.reserve(8 + header.size() + data.size());
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<uint8_t>(uint64_t(header.size()) >> (8 * i)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

std::string parseError(const std::string &header,
                       const std::vector<uint8_t> &data) {
  std::vector<uint8_t> bytes = fileBytes(header, data);
  auto file = st::parse(bytes.data(), bytes.size());
  return file ? "" : file.status().message();
}

TEST(LibSafeTensors, ReadsWhatPythonWrites) {
  // Two f32 [2] and a bf16 [1, 2], data in another order than the header's.
  std::vector<uint8_t> data(8 + 8 + 4);
  float a[2] = {1.5f, -2.0f}, b[2] = {3.0f, 4.0f};
  std::memcpy(data.data() + 4, a, 8);
  std::memcpy(data.data() + 12, b, 8);
  data[0] = 0x80, data[1] = 0x3f, data[2] = 0x00, data[3] = 0x40; // 1, 2
  std::vector<uint8_t> bytes =
      fileBytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]},)"
                R"("__metadata__":{"format":"pt"},)"
                R"("h":{"dtype":"BF16","shape":[1,2],"data_offsets":[0,4]},)"
                R"("b":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}})",
                data);
  auto file = st::parse(bytes.data(), bytes.size());
  ASSERT_TRUE(file) << file.status().message();
  ASSERT_EQ(file->tensors.size(), 3u);
  EXPECT_EQ(file->tensors[0].name, "h") << "tensors come in data order";
  EXPECT_EQ(file->tensors[0].dtype, pkg::DType::BF16);
  EXPECT_EQ(file->tensors[0].shape, (std::vector<int64_t>{1, 2}));
  const st::Tensor *found = file->find("a");
  ASSERT_NE(found, nullptr);
  float read[2];
  std::memcpy(read, found->data.data(), 8);
  EXPECT_EQ(read[0], 1.5f);
  EXPECT_EQ(read[1], -2.0f);
  EXPECT_EQ(file->metadata.at("format"), "pt");
}

TEST(LibSafeTensors, RoundTripsThroughAFile) {
  st::File file;
  file.tensors.push_back(
      {"w", pkg::DType::F16, {2, 3}, std::vector<uint8_t>(12, 7)});
  file.tensors.push_back({"empty", pkg::DType::I64, {0, 4}, {}});
  file.tensors.push_back({"n", pkg::DType::I32, {}, {1, 0, 0, 0}});
  file.metadata["step"] = "12";
  std::string path =
      (std::filesystem::temp_directory_path() /
       ("attnc-st-" + std::to_string(::getpid()) + ".safetensors"))
          .string();
  ASSERT_TRUE(st::writeFile(file, path));
  auto read = st::readFile(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(read) << read.status().message();
  ASSERT_EQ(read->tensors.size(), 3u);
  EXPECT_EQ(read->find("w")->data, file.tensors[0].data);
  EXPECT_EQ(read->find("w")->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(read->find("empty")->data.empty());
  EXPECT_EQ(read->find("n")->shape, std::vector<int64_t>{});
  EXPECT_EQ(read->metadata.at("step"), "12");
  // The header is padded to 8 bytes, as the format recommends.
  auto bytes = st::serialize(file);
  ASSERT_TRUE(bytes);
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i)
    length = length << 8 | (*bytes)[i];
  EXPECT_EQ(length % 8, 0u);
}

TEST(LibSafeTensors, RefusesCorruptFiles) {
  std::vector<uint8_t> tiny = {1, 2, 3};
  auto truncated = st::parse(tiny.data(), tiny.size());
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.status().message(),
            "safetensors: 3 bytes, fewer than the 8 of the header length");
  std::vector<uint8_t> huge = fileBytes("{}", {});
  huge[0] = 0xff;
  auto tooLong = st::parse(huge.data(), huge.size());
  ASSERT_FALSE(tooLong);
  EXPECT_EQ(tooLong.status().message(),
            "safetensors: a header of 255 bytes does not fit the 10-byte file");
  struct Corrupt {
    const char *header;
    size_t dataBytes;
    const char *message;
  };
  const Corrupt cases[] = {
      {R"({"a":)", 0, "the header is not valid JSON"},
      {R"({"a":{"dtype":"C64","shape":[1],"data_offsets":[0,8]}})", 8,
       "tensor 'a' has dtype 'C64', which attnc does not read (F32, F16, "
       "BF16, F64, I32, I64, F8_E4M3, F8_E5M2)"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4,
       "tensor 'a': its data_offsets [0, 8) leave the 4 bytes of data"},
      {R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8,
       "tensor 'a': its shape needs 12 bytes, its data_offsets give 8"},
      {R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4,
       "tensor 'a': a dim of its shape is not a non-negative integer"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
       R"("b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}})",
       8, "tensors 'a' and 'b' overlap in the data"},
      {R"({"a":{"dtype":"F32","shape":[1]}})", 4,
       "tensor 'a': needs a string dtype, an array shape and two "
       "data_offsets"},
      {R"({"__metadata__":{"step":3}})", 0,
       "__metadata__ entry 'step' is not a string"},
  };
  for (const Corrupt &c : cases)
    EXPECT_EQ(parseError(c.header, std::vector<uint8_t>(c.dataBytes)),
              std::string("safetensors: ") + c.message)
        << c.header;
}

TEST(LibSafeTensors, RefusesToWriteWhatItCannotName) {
  st::File file;
  file.tensors.push_back({"a", pkg::DType::F32, {2}, std::vector<uint8_t>(8)});
  file.tensors.push_back({"a", pkg::DType::F32, {2}, std::vector<uint8_t>(8)});
  EXPECT_FALSE(st::serialize(file));
  file.tensors.pop_back();
  file.tensors.push_back(
      {"mask", pkg::DType::I1, {2}, std::vector<uint8_t>(2)});
  EXPECT_FALSE(st::serialize(file));
  file.tensors.back() = {
      "short", pkg::DType::F32, {2}, std::vector<uint8_t>(4)};
  EXPECT_FALSE(st::serialize(file));
}

} // namespace
