//===- DType.cpp - Manifest spelling and size of element types ------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "attnc/package/Package.h"

namespace attnc::pkg {

namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  size_t size;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::F32, "f32", 4},       {DType::F16, "f16", 2},
    {DType::BF16, "bf16", 2},     {DType::F64, "f64", 8},
    {DType::I1, "i1", 1},         {DType::I32, "i32", 4},
    {DType::I64, "i64", 8},       {DType::F8E4M3FN, "f8e4m3fn", 1},
    {DType::F8E5M2, "f8e5m2", 1},
};

const DTypeInfo &info(DType type) {
  for (const DTypeInfo &entry : kDTypes)
    if (entry.type == type)
      return entry;
  // Only reachable with a value cast from outside the enum; answer as f32
  // rather than crash.
  return kDTypes[0];
}
} // namespace

std::string_view dtypeName(DType type) { return info(type).name; }

std::optional<DType> parseDType(std::string_view name) {
  for (const DTypeInfo &entry : kDTypes)
    if (entry.name == name)
      return entry.type;
  return std::nullopt;
}

size_t dtypeSize(DType type) { return info(type).size; }

} // namespace attnc::pkg
