//===- PackageFuzzer.cpp - libFuzzer target of the package reader ---------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to pkg::parse, the first thing the runtime does with
// a file. The container checksum is recomputed first, so that mutations of
// the manifest reach the JSON reader and the verifier instead of stopping at
// the checksum. A package that parses must serialize and parse again to the
// same manifest, and its regions must be accepted or refused by the fp64
// reference's evaluator without a crash. scripts/fuzz.sh builds it and
// lib/ with clang, ASan, UBSan and coverage instrumentation.
//
//===----------------------------------------------------------------------===//

#include "attnc/package/Package.h"
#include "lib/reference/Region.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace attnc;

namespace {

constexpr size_t kManifestSizeOffset = 16;
constexpr size_t kChecksumOffset = 32;

uint64_t readU64(const std::vector<uint8_t> &bytes, size_t offset) {
  uint64_t value = 0;
  for (size_t i = 0; i < 8; ++i)
    value |= static_cast<uint64_t>(bytes[offset + i]) << (8 * i);
  return value;
}

void writeU64(std::vector<uint8_t> &bytes, size_t offset, uint64_t value) {
  for (size_t i = 0; i < 8; ++i)
    bytes[offset + i] = static_cast<uint8_t>(value >> (8 * i));
}

/// Makes the container checksum match whatever manifest and blob section
/// the header's sizes describe, when they fit in the input.
void repairChecksum(std::vector<uint8_t> &bytes) {
  if (bytes.size() < pkg::kHeaderSize)
    return;
  uint64_t manifest = readU64(bytes, kManifestSizeOffset);
  uint64_t blobs = readU64(bytes, kManifestSizeOffset + 8);
  uint64_t available = bytes.size() - pkg::kHeaderSize;
  if (manifest > available || blobs > available - manifest)
    return;
  writeU64(bytes, kChecksumOffset,
           pkg::fnv1a64(bytes.data() + pkg::kHeaderSize, manifest + blobs));
}

[[noreturn]] void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "package fuzzer: %s: %s\n", what, detail.c_str());
  std::abort();
}

void evaluateRegion(const pkg::Region &region) {
  auto evaluator = ref::RegionEvaluator::create(region);
  if (!evaluator)
    return;
  for (int64_t index : {0, 1, 7}) {
    ref::RegionArgs args{0.5, 0, 1, index, 3};
    (void)evaluator->evaluate(args);
    if (evaluator->yieldsFloat())
      (void)evaluator->evaluateWithDerivative(args);
  }
}

void checkParsed(const pkg::Package &package) {
  auto bytes = pkg::serialize(package);
  if (!bytes)
    fail("a parsed package does not serialize", bytes.status().message());
  auto again = pkg::parse(bytes->data(), bytes->size(), "<round trip>");
  if (!again)
    fail("a serialized package does not parse", again.status().message());
  if (pkg::manifestJson(*again) != pkg::manifestJson(package))
    fail("the round trip changed the manifest", pkg::manifestJson(package));
  for (const pkg::Function &function : package.functions)
    for (const pkg::OpSpec &op : function.ops)
      if (op.attention) {
        if (op.attention->mask)
          evaluateRegion(*op.attention->mask);
        if (op.attention->score)
          evaluateRegion(*op.attention->score);
      }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  repairChecksum(bytes);
  auto parsed = pkg::parse(bytes.data(), bytes.size(), "<fuzz>");
  if (parsed)
    checkParsed(*parsed);
  return 0;
}
