//===- SafeTensors.h - The safetensors file format --------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Named tensors in the file format PyTorch, JAX and Hugging Face read and
// write: an 8-byte little-endian header length, a JSON header
//
//   {"wq": {"dtype": "BF16", "shape": [2048, 2048],
//           "data_offsets": [0, 8388608]}, ...,
//    "__metadata__": {"step": "100"}}
//
// then the tensors' bytes (row-major, little-endian), each at its offsets
// from the end of the header. attn-run reads a function's inputs from such
// a file and writes its outputs to one, so a block and its PyTorch twin run
// on the same weights.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PACKAGE_SAFETENSORS_H
#define ATTNC_PACKAGE_SAFETENSORS_H

#include "attnc/package/Package.h"

namespace attnc::safetensors {

struct Tensor {
  std::string name;
  pkg::DType dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data; // row-major, little-endian
};

struct File {
  std::vector<Tensor> tensors; // in the order of their data
  std::map<std::string, std::string> metadata;

  const Tensor *find(std::string_view name) const;
};

/// "BF16" for bf16; the format has no i1, which has no name.
std::optional<std::string_view> dtypeName(pkg::DType dtype);

/// Decodes `size` bytes. Errors say what is wrong and where: a header
/// longer than the file, JSON that does not parse, a tensor whose dtype is
/// unknown, whose offsets leave the data or overlap another's, or whose
/// bytes do not match its shape.
StatusOr<File> parse(const uint8_t *data, size_t size);
StatusOr<File> readFile(const std::string &path);

/// Encodes `file`: the header lists the tensors in order, each tensor's
/// bytes follow the previous one's, and the header is padded with spaces
/// to a multiple of 8 bytes. Fails for a duplicate name, an i1 tensor or
/// data that does not match a shape.
StatusOr<std::vector<uint8_t>> serialize(const File &file);
/// Writes atomically (pkg::writeFileAtomically).
Status writeFile(const File &file, const std::string &path);

} // namespace attnc::safetensors

#endif // ATTNC_PACKAGE_SAFETENSORS_H
