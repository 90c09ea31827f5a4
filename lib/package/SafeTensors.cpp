//===- SafeTensors.cpp - The safetensors file format ----------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "attnc/package/SafeTensors.h"
#include "lib/support/Extents.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <set>

using namespace attnc;
using namespace attnc::safetensors;
using json = nlohmann::json;

namespace {

/// The format's dtype names; i1 has none.
constexpr std::pair<pkg::DType, std::string_view> kDTypes[] = {
    {pkg::DType::F32, "F32"},          {pkg::DType::F16, "F16"},
    {pkg::DType::BF16, "BF16"},        {pkg::DType::F64, "F64"},
    {pkg::DType::I32, "I32"},          {pkg::DType::I64, "I64"},
    {pkg::DType::F8E4M3FN, "F8_E4M3"}, {pkg::DType::F8E5M2, "F8_E5M2"},
};

/// A header larger than this is corrupt, not a model.
constexpr uint64_t kMaxHeaderBytes = 100 << 20;

StatusOr<pkg::DType> parseDType(const std::string &name,
                                const std::string &tensor) {
  for (auto [dtype, spelling] : kDTypes)
    if (spelling == name)
      return dtype;
  return Status::error("tensor '" + tensor + "' has dtype '" + name +
                       "', which attnc does not read (F32, F16, BF16, F64, "
                       "I32, I64, F8_E4M3, F8_E5M2)");
}

/// One header entry's tensor with its bytes taken from `data` (`size`
/// bytes after the header); `[begin, end)` collects its offsets.
StatusOr<Tensor> parseTensor(const std::string &name, const json &entry,
                             const uint8_t *data, uint64_t size,
                             std::pair<uint64_t, uint64_t> &range) {
  auto fail = [&](const std::string &what) {
    return Status::error("tensor '" + name + "': " + what);
  };
  if (!entry.is_object() || !entry.contains("dtype") ||
      !entry["dtype"].is_string() || !entry.contains("shape") ||
      !entry["shape"].is_array() || !entry.contains("data_offsets") ||
      !entry["data_offsets"].is_array() || entry["data_offsets"].size() != 2)
    return fail("needs a string dtype, an array shape and two data_offsets");
  auto dtype = parseDType(entry["dtype"].get<std::string>(), name);
  if (!dtype)
    return dtype.status();
  Tensor tensor{name, *dtype, {}, {}};
  for (const json &dim : entry["shape"]) {
    if (!dim.is_number_unsigned() ||
        dim.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
      return fail("a dim of its shape is not a non-negative integer");
    tensor.shape.push_back(dim.get<int64_t>());
  }
  for (const json &offset : entry["data_offsets"])
    if (!offset.is_number_unsigned())
      return fail("its data_offsets are not non-negative integers");
  range = {entry["data_offsets"][0].get<uint64_t>(),
           entry["data_offsets"][1].get<uint64_t>()};
  std::optional<int64_t> bytes =
      denseBytes(tensor.shape, pkg::dtypeSize(tensor.dtype));
  if (range.first > range.second || range.second > size)
    return fail("its data_offsets [" + std::to_string(range.first) + ", " +
                std::to_string(range.second) + ") leave the " +
                std::to_string(size) + " bytes of data");
  if (!bytes || static_cast<uint64_t>(*bytes) != range.second - range.first)
    return fail("its shape needs " + (bytes ? std::to_string(*bytes) : "more") +
                " bytes, its data_offsets give " +
                std::to_string(range.second - range.first));
  tensor.data.assign(data + range.first, data + range.second);
  return tensor;
}

/// The metadata entry: strings only, as the format says.
StatusOr<std::map<std::string, std::string>> parseMetadata(const json &entry) {
  std::map<std::string, std::string> metadata;
  if (!entry.is_object())
    return Status::error("__metadata__ is not an object");
  for (const auto &[key, value] : entry.items()) {
    if (!value.is_string())
      return Status::error("__metadata__ entry '" + key + "' is not a string");
    metadata[key] = value.get<std::string>();
  }
  return metadata;
}

StatusOr<File> parseHeader(const json &header, const uint8_t *data,
                           uint64_t size) {
  if (!header.is_object())
    return Status::error("the header is not a JSON object");
  File file;
  std::vector<std::pair<std::pair<uint64_t, uint64_t>, size_t>> ranges;
  for (const auto &[name, entry] : header.items()) {
    if (name == "__metadata__") {
      auto metadata = parseMetadata(entry);
      if (!metadata)
        return metadata.status();
      file.metadata = std::move(*metadata);
      continue;
    }
    std::pair<uint64_t, uint64_t> range;
    auto tensor = parseTensor(name, entry, data, size, range);
    if (!tensor)
      return tensor.status();
    ranges.push_back({range, file.tensors.size()});
    file.tensors.push_back(std::move(*tensor));
  }
  // Tensors in the order of their data; no two may share bytes.
  std::sort(ranges.begin(), ranges.end());
  std::vector<Tensor> ordered;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (i > 0 && ranges[i].first.first < ranges[i - 1].first.second &&
        ranges[i].first.first < ranges[i].first.second)
      return Status::error("tensors '" + ordered.back().name + "' and '" +
                           file.tensors[ranges[i].second].name +
                           "' overlap in the data");
    ordered.push_back(std::move(file.tensors[ranges[i].second]));
  }
  file.tensors = std::move(ordered);
  return file;
}

} // namespace

const Tensor *File::find(std::string_view name) const {
  for (const Tensor &tensor : tensors)
    if (tensor.name == name)
      return &tensor;
  return nullptr;
}

std::optional<std::string_view> safetensors::dtypeName(pkg::DType dtype) {
  for (auto [known, spelling] : kDTypes)
    if (known == dtype)
      return spelling;
  return std::nullopt;
}

StatusOr<File> safetensors::parse(const uint8_t *data, size_t size) {
  if (size < 8)
    return Status::error("safetensors: " + std::to_string(size) +
                         " bytes, fewer than the 8 of the header length");
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i)
    length = length << 8 | data[i];
  if (length > size - 8 || length > kMaxHeaderBytes)
    return Status::error("safetensors: a header of " + std::to_string(length) +
                         " bytes does not fit the " + std::to_string(size) +
                         "-byte file");
  json header = json::parse(data + 8, data + 8 + length, nullptr,
                            /*allow_exceptions=*/false);
  if (header.is_discarded())
    return Status::error("safetensors: the header is not valid JSON");
  auto file = parseHeader(header, data + 8 + length, size - 8 - length);
  if (!file)
    return file.status().withContext("safetensors");
  return file;
}

StatusOr<File> safetensors::readFile(const std::string &path) {
  auto bytes = pkg::readRegularFile(path);
  if (!bytes)
    return bytes.status().withContext(path);
  auto file = parse(bytes->data(), bytes->size());
  if (!file)
    return file.status().withContext(path);
  return file;
}

StatusOr<std::vector<uint8_t>> safetensors::serialize(const File &file) {
  json header = json::object();
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const Tensor &tensor : file.tensors) {
    std::optional<std::string_view> dtype =
        safetensors::dtypeName(tensor.dtype);
    std::optional<int64_t> bytes =
        denseBytes(tensor.shape, pkg::dtypeSize(tensor.dtype));
    if (!dtype || tensor.name == "__metadata__" ||
        !names.insert(tensor.name).second || !bytes ||
        static_cast<uint64_t>(*bytes) != tensor.data.size())
      return Status::error("safetensors: cannot write tensor '" + tensor.name +
                           "': its name is taken, its dtype has no "
                           "safetensors name or its data does not match "
                           "its shape");
    header[tensor.name] = {{"dtype", std::string(*dtype)},
                           {"shape", tensor.shape},
                           {"data_offsets", {offset, offset + *bytes}}};
    offset += *bytes;
  }
  if (!file.metadata.empty())
    header["__metadata__"] = file.metadata;
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::vector<uint8_t> out(8);
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<uint8_t>(uint64_t(text.size()) >> (8 * i));
  out.insert(out.end(), text.begin(), text.end());
  for (const Tensor &tensor : file.tensors)
    out.insert(out.end(), tensor.data.begin(), tensor.data.end());
  return out;
}

Status safetensors::writeFile(const File &file, const std::string &path) {
  auto bytes = serialize(file);
  if (!bytes)
    return bytes.status().withContext(path);
  return pkg::writeFileAtomically(*bytes, path).withContext(path);
}
