//===- PackageTest.cpp - Tests for the package format ---------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Builds a package that uses every field, checks that it survives a round
// trip, then damages its serialized form in every way the reader must
// report: the container (magic, versions, sizes, checksums) byte by byte,
// and the manifest by editing its JSON and re-checksumming.
//
//===----------------------------------------------------------------------===//

#include "attnc/package/Package.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace attnc;
using namespace attnc::pkg;
using Json = nlohmann::ordered_json;

//===----------------------------------------------------------------------===//
// Equality, for round trips (in the package namespace, for gtest to find)
//===----------------------------------------------------------------------===//

namespace attnc::pkg {

/// Doubles compare by value, NaN equal to NaN.
static bool sameDouble(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

static bool operator==(const Dim &a, const Dim &b) {
  return a.isStatic() == b.isStatic() &&
         (a.isStatic() ? a.extent == b.extent : a.symbol == b.symbol);
}
static bool operator==(const TensorSig &a, const TensorSig &b) {
  return a.name == b.name && a.dtype == b.dtype && a.shape == b.shape &&
         a.indexBound == b.indexBound;
}
static bool operator==(const GridTerm &a, const GridTerm &b) {
  return a.constant == b.constant && a.symbols == b.symbols &&
         a.divisor == b.divisor;
}
static bool operator==(const Buffer &a, const Buffer &b) {
  return a.tensor == b.tensor && a.slot == b.slot;
}
static bool operator==(const View &a, const View &b) {
  return a.tensor == b.tensor && a.of == b.of && a.begin == b.begin &&
         a.heads == b.heads;
}
static bool operator==(const Step &a, const Step &b) {
  return a.kernel == b.kernel && a.args == b.args &&
         a.concurrent == b.concurrent;
}
static bool operator==(const TensorMap &a, const TensorMap &b) {
  return a.arg == b.arg && a.box == b.box && a.swizzleBytes == b.swizzleBytes;
}
static bool operator==(const Kernel &a, const Kernel &b) {
  return a.name == b.name && a.target == b.target && a.blob == b.blob &&
         a.entry == b.entry && a.grid == b.grid &&
         std::equal(a.block, a.block + 3, b.block) &&
         a.dynamicSharedMemoryBytes == b.dynamicSharedMemoryBytes &&
         a.config == b.config && a.resources == b.resources &&
         a.tensorMaps == b.tensorMaps && a.library == b.library;
}
static bool operator==(const RegionOp &a, const RegionOp &b) {
  return a.name == b.name && a.operands == b.operands && a.type == b.type &&
         a.predicate == b.predicate && sameDouble(a.value, b.value) &&
         a.intValue == b.intValue;
}
static bool operator==(const Region &a, const Region &b) {
  return a.numArgs == b.numArgs && a.ops == b.ops && a.yield == b.yield;
}
static bool operator==(const AttentionSpec &a, const AttentionSpec &b) {
  return a.scale == b.scale && a.causal == b.causal &&
         a.windowLeft == b.windowLeft && a.windowRight == b.windowRight &&
         a.mask == b.mask && a.score == b.score;
}
static bool operator==(const CastSpec &a, const CastSpec &b) {
  return a.scale == b.scale;
}
static bool operator==(const MatmulSpec &a, const MatmulSpec &b) {
  return a.transposeA == b.transposeA && a.transposeB == b.transposeB &&
         a.addend == b.addend && a.activation == b.activation;
}
static bool operator==(const NormSpec &a, const NormSpec &b) {
  return a.epsilon == b.epsilon;
}
static bool operator==(const LossSpec &a, const LossSpec &b) {
  return a.ignoreIndex == b.ignoreIndex && a.vocabOffset == b.vocabOffset &&
         a.vocabSize == b.vocabSize;
}
static bool operator==(const OpSpec &a, const OpSpec &b) {
  return a.kind == b.kind && a.operands == b.operands &&
         a.results == b.results && a.attention == b.attention &&
         a.cast == b.cast && a.matmul == b.matmul && a.norm == b.norm &&
         a.loss == b.loss;
}
static bool operator==(const Segment &a, const Segment &b) {
  return a.name == b.name && a.shape == b.shape && a.offset == b.offset &&
         a.chunk == b.chunk;
}
static bool operator==(const Function &a, const Function &b) {
  return a.name == b.name && a.gradientOf == b.gradientOf &&
         a.flatValues == b.flatValues && a.flatChunks == b.flatChunks &&
         a.segments == b.segments && a.updates == b.updates &&
         a.inputs == b.inputs && a.outputs == b.outputs &&
         a.buffers == b.buffers && a.views == b.views && a.steps == b.steps &&
         a.kernels == b.kernels && a.ops == b.ops;
}
static bool operator==(const Blob &a, const Blob &b) {
  return a.name == b.name && a.kind == b.kind && a.data == b.data;
}
static bool operator==(const Package &a, const Package &b) {
  return a.schemaVersion == b.schemaVersion && a.producer == b.producer &&
         a.functions == b.functions && a.blobs == b.blobs;
}
static void PrintTo(const Package &package, std::ostream *os) {
  *os << manifestJson(package);
}

} // namespace attnc::pkg

namespace {

//===----------------------------------------------------------------------===//
// A package using every field
//===----------------------------------------------------------------------===//

RegionOp op(std::string name, std::vector<int64_t> operands, std::string type,
            std::string predicate = "", double value = 0,
            int64_t intValue = 0) {
  return RegionOp{std::move(name), std::move(operands),
                  std::move(type), std::move(predicate),
                  value,           intValue};
}

/// 2^53 + 1: an i64 constant that a double cannot hold.
constexpr int64_t kBigConstant = 9007199254740993;

/// Prefix-LM: k_idx < 4 or k_idx <= q_idx. Arguments: b=0 h=1 q=2 k=3. The
/// last constant is unused; it checks that integers stay exact.
Region prefixLmMask() {
  return Region{4,
                {op("arith.constant", {}, "index", "", 0, 4),
                 op("arith.cmpi", {3, 4}, "i1", "slt"),
                 op("arith.cmpi", {3, 2}, "i1", "sle"),
                 op("arith.ori", {5, 6}, "i1"),
                 op("arith.constant", {}, "i64", "", 0, kBigConstant)},
                7};
}

/// Soft-capping, max(30 * tanh(s / 30), -inf): exercises a non-finite
/// constant. Arguments: s=0 b=1 h=2 q=3 k=4.
Region softcapScore() {
  return Region{5,
                {op("arith.constant", {}, "f32", "", 30),
                 op("arith.divf", {0, 5}, "f32"), op("math.tanh", {6}, "f32"),
                 op("arith.mulf", {7, 5}, "f32"),
                 op("arith.constant", {}, "f32", "", -INFINITY),
                 op("arith.maximumf", {8, 9}, "f32"),
                 op("arith.constant", {}, "f32", "", 0.1)},
                10};
}

/// The attention of attention_fwd, with every field set.
AttentionSpec attentionSpec() {
  AttentionSpec spec;
  spec.scale = 1 / std::sqrt(128.0);
  spec.causal = true;
  spec.windowLeft = 256;
  spec.windowRight = 0;
  spec.mask = prefixLmMask();
  spec.score = softcapScore();
  return spec;
}

Kernel kernel(std::string name, std::string target, std::string blob,
              std::string entry, std::vector<std::vector<GridTerm>> grid = {}) {
  Kernel result;
  result.name = std::move(name);
  result.target = std::move(target);
  result.blob = std::move(blob);
  result.entry = std::move(entry);
  result.grid = std::move(grid);
  return result;
}

/// Attention into a bf16 buffer, then a cast of it with a scale, each
/// compiled for the host and for sm_90a.
Function attentionProgram() {
  Function fn;
  fn.name = "attention_fwd";
  auto bf16 = [](std::string name, int64_t heads) {
    return TensorSig{
        std::move(name),
        DType::BF16,
        {Dim::named("B"), Dim::fixed(heads), Dim::named("N"), Dim::fixed(128)}};
  };
  fn.inputs = {bf16("q", 16), bf16("k", 4), bf16("v", 4)};
  fn.outputs = {bf16("o", 16),
                TensorSig{"lse",
                          DType::F32,
                          {Dim::named("B"), Dim::fixed(16), Dim::named("N")}}};
  fn.buffers = {Buffer{bf16("t0", 16), 0},
                Buffer{TensorSig{"scratch", DType::F32, {Dim::fixed(0)}}, 3}};
  fn.steps = {Step{"attention", {"q", "k", "v", "t0", "lse"}},
              Step{"cast", {"t0", "o"}}};
  Kernel host = kernel("attention", "host", "host", "attention_fwd_host",
                       {{GridTerm{1, {"N"}, 64}},
                        {GridTerm{16, {}, 1}},
                        {GridTerm{1, {"B"}, 1}}});
  host.config = {{"block_m", 64}, {"block_n", 64}};
  Kernel gpu = kernel("attention", "sm_90a", "cubin", "attention_fwd_kernel",
                      {{GridTerm{1, {"N"}, 128}},
                       {GridTerm{16, {}, 1}, GridTerm{1, {"B"}, 1}}});
  gpu.block[0] = 384;
  gpu.dynamicSharedMemoryBytes = 147456;
  gpu.config = {{"block_m", 128}, {"block_n", 128}, {"stages", 2}};
  gpu.resources = {{"registers", 168}, {"spill_stores", 0}};
  TensorMap qMap, kMap;
  qMap.arg = 0;
  qMap.box = {64, 128, 1, 1};
  qMap.swizzleBytes = 128;
  kMap.arg = 1;
  kMap.box = {8, 64, 1, 1};
  gpu.tensorMaps = {qMap, kMap};
  fn.kernels = {host, gpu,
                kernel("cast", "host", "host", "cast_host",
                       {{GridTerm{128, {"B", "N"}, 16384}}}),
                kernel("cast", "sm_90a", "cubin", "cast_kernel")};
  fn.ops = {
      OpSpec{"attention", {"q", "k", "v"}, {"t0", "lse"}, attentionSpec(), {}},
      OpSpec{"cast", {"t0"}, {"o"}, {}, CastSpec{0.5}}};
  return fn;
}

/// A bf16 [B, heads, N, 128] tensor, or f32 [B, heads, N] with `rowStat`.
TensorSig headTensor(std::string name, int64_t heads, bool rowStat = false) {
  std::vector<Dim> shape = {Dim::named("B"), Dim::fixed(heads),
                            Dim::named("N")};
  if (!rowStat)
    shape.push_back(Dim::fixed(128));
  return TensorSig{std::move(name), rowStat ? DType::F32 : DType::BF16,
                   std::move(shape)};
}

/// The gradient of attention_fwd on the host: the row sums of out * dout,
/// then dK and dV and either dQ accumulated in f32 and cast to bf16
/// (`accumulateDq`) or dQ by its own kernel.
Function attentionBackwardProgram(bool accumulateDq) {
  Function fn;
  fn.name = accumulateDq ? "attention_bwd" : "attention_bwd_split";
  fn.gradientOf = "attention_fwd";
  // The forward's inputs, its outputs (named differently) and dout.
  fn.inputs = {headTensor("q", 16),
               headTensor("k", 4),
               headTensor("v", 4),
               headTensor("out", 16),
               headTensor("lse_fwd", 16, true),
               headTensor("dout", 16)};
  fn.outputs = {headTensor("dq", 16), headTensor("dk", 4), headTensor("dv", 4)};
  fn.buffers = {Buffer{headTensor("delta", 16, true), 0}};
  const std::vector<std::string> gradInputs = {"q",       "k",     "v",
                                               "lse_fwd", "delta", "dout"};
  OpSpec delta{"attention_grad_delta", {"out", "dout"}, {"delta", ""}, {}, {}};
  OpSpec kv{"attention_grad_kv", gradInputs, {"dk", "dv"}, attentionSpec(), {}};
  if (accumulateDq) {
    for (const char *name : {"dq_acc0", "dq_acc1"}) {
      TensorSig accumulator = headTensor(name, 16);
      accumulator.dtype = DType::F32;
      fn.buffers.push_back(
          Buffer{accumulator, static_cast<int64_t>(fn.buffers.size())});
    }
    delta.results[1] = "dq_acc0";
    kv.operands.push_back("dq_acc0");
    kv.results.push_back("dq_acc1");
    fn.ops = {delta, kv, OpSpec{"cast", {"dq_acc1"}, {"dq"}, {}, CastSpec{1}}};
  } else {
    fn.ops = {
        delta, kv,
        OpSpec{"attention_grad_q", gradInputs, {"dq"}, attentionSpec(), {}}};
  }
  for (const OpSpec &op : fn.ops) {
    // dq's kernel and dK/dV's read the same values and write apart.
    fn.steps.push_back(Step{op.kind, op.stepArgs(),
                            /*concurrent=*/op.kind == "attention_grad_q"});
    fn.kernels.push_back(kernel(op.kind, "host", "host",
                                fn.name + "_" + op.kind,
                                {{GridTerm{1, {"N"}, 64}},
                                 {GridTerm{4, {}, 1}, GridTerm{1, {"B"}, 1}}}));
  }
  return fn;
}

/// y = gelu(x w^T): the host's code, a cuBLASLt call (GELU epilogue) on
/// sm_90a.
Function linearProgram() {
  Function fn;
  fn.name = "linear";
  fn.inputs = {TensorSig{"x", DType::BF16, {Dim::named("N"), Dim::fixed(64)}},
               TensorSig{"w", DType::BF16, {Dim::fixed(32), Dim::fixed(64)}}};
  fn.outputs = {TensorSig{"y", DType::F32, {Dim::named("N"), Dim::fixed(32)}}};
  fn.steps = {Step{"matmul", {"x", "w", "y"}}};
  Kernel host = kernel("matmul", "host", "host", "matmul_entry");
  host.grid = {{GridTerm{1, {}, 1}}, {GridTerm{1, {"N"}, 32}}};
  Kernel blas;
  blas.name = "matmul";
  blas.target = "sm_90a";
  blas.library = "cublaslt_matmul";
  blas.config = {{"transpose_a", 0}, {"transpose_b", 1}, {"gelu_tanh", 1}};
  fn.kernels = {host, blas};
  OpSpec op{"matmul", {"x", "w"}, {"y"}, {}, {}, {}, {}};
  op.matmul = MatmulSpec{false, true, /*addend=*/false, "gelu_tanh"};
  fn.ops = {op};
  return fn;
}

/// h = x w^T + b + r on sm_90a: a bias and an addend in cuBLASLt's epilogue.
Function residualProgram() {
  Function fn;
  fn.name = "residual";
  TensorSig rows{"r", DType::BF16, {Dim::named("N"), Dim::fixed(32)}};
  fn.inputs = {TensorSig{"x", DType::BF16, {Dim::named("N"), Dim::fixed(64)}},
               TensorSig{"w", DType::BF16, {Dim::fixed(32), Dim::fixed(64)}},
               TensorSig{"b", DType::BF16, {Dim::fixed(32)}}, rows};
  rows.name = "h";
  fn.outputs = {rows};
  fn.steps = {Step{"matmul", {"x", "w", "b", "r", "h"}}};
  Kernel blas;
  blas.name = "matmul";
  blas.target = "sm_90a";
  blas.library = "cublaslt_matmul";
  blas.config = {
      {"transpose_a", 0}, {"transpose_b", 1}, {"bias", 1}, {"addend", 1}};
  fn.kernels = {blas};
  OpSpec op{"matmul", {"x", "w", "b", "r"}, {"h"}, {}, {}, {}, {}};
  op.matmul = MatmulSpec{false, true, /*addend=*/true};
  fn.ops = {op};
  return fn;
}

/// RMSNorm of rows of 64 on the host.
Function normProgram() {
  Function fn;
  fn.name = "norm";
  fn.inputs = {TensorSig{"x", DType::BF16, {Dim::named("N"), Dim::fixed(64)}},
               TensorSig{"w", DType::BF16, {Dim::fixed(64)}}};
  fn.outputs = {TensorSig{"y", DType::BF16, {Dim::named("N"), Dim::fixed(64)}}};
  fn.steps = {Step{"rms_norm", {"x", "w", "y"}}};
  fn.kernels = {kernel("rms_norm", "host", "host", "rms_norm_entry",
                       {{GridTerm{1, {"N"}, 64}}})};
  OpSpec op;
  op.kind = "rms_norm";
  op.operands = {"x", "w"};
  op.results = {"y", ""};
  op.norm = NormSpec{1e-6};
  fn.ops = {op};
  return fn;
}

/// Per-token cross-entropy over 50 classes on the host; the labels carry
/// their bound.
Function lossProgram() {
  Function fn;
  fn.name = "loss";
  TensorSig labels{"y", DType::I32, {Dim::named("N")}};
  labels.indexBound = 50;
  fn.inputs = {TensorSig{"x", DType::F32, {Dim::named("N"), Dim::fixed(50)}},
               labels};
  fn.outputs = {TensorSig{"l", DType::F32, {Dim::named("N")}}};
  fn.steps = {Step{"cross_entropy", {"x", "y", "l"}}};
  fn.kernels = {kernel("cross_entropy", "host", "host", "loss_entry",
                       {{GridTerm{1, {"N"}, 16}}})};
  OpSpec op;
  op.kind = "cross_entropy";
  op.operands = {"x", "y"};
  op.results = {"l", ""};
  op.loss = LossSpec{-100};
  fn.ops = {op};
  return fn;
}

/// z = w * 2 in two steps, each on rows of both: views of an input and of
/// an output.
Function chunkedProgram() {
  Function fn;
  fn.name = "chunked";
  auto rows = [](std::string name, int64_t n) {
    return TensorSig{
        std::move(name), DType::BF16, {Dim::fixed(n), Dim::named("C")}};
  };
  fn.inputs = {rows("w", 48)};
  fn.outputs = {rows("z", 48)};
  fn.views = {View{rows("w0", 32), "w", 0}, View{rows("w1", 16), "w", 32},
              View{rows("z0", 32), "z", 0}, View{rows("z1", 16), "z", 32}};
  // The steps write rows of z apart, so they may run at the same time.
  fn.steps = {Step{"scale", {"w0", "z0"}},
              Step{"scale", {"w1", "z1"}, /*concurrent=*/true}};
  fn.kernels = {kernel("scale", "host", "host", "scale_host")};
  fn.ops = {OpSpec{"cast", {"w0"}, {"z0"}, {}, CastSpec{2}},
            OpSpec{"cast", {"w1"}, {"z1"}, {}, CastSpec{2}}};
  return fn;
}

/// An f32 tensor of static `shape`.
TensorSig f32Sig(std::string name, std::vector<int64_t> shape) {
  TensorSig tensor{std::move(name), DType::F32, {}};
  for (int64_t extent : shape)
    tensor.shape.push_back(Dim::fixed(extent));
  return tensor;
}

/// new_params = params * 2 on a flat parameter buffer of a vector and a
/// matrix: views of rank-1 values in each parameter's shape; new_params
/// may update params in place (each step reads and writes its rows
/// element by element).
Function flatProgram() {
  Function fn;
  fn.name = "flat";
  fn.inputs = {f32Sig("params", {20})};
  fn.outputs = {f32Sig("new_params", {20})};
  fn.views = {View{f32Sig("b", {8}), "params", 0},
              View{f32Sig("w", {3, 4}), "params", 8},
              View{f32Sig("new_b", {8}), "new_params", 0},
              View{f32Sig("new_w", {3, 4}), "new_params", 8}};
  fn.flatValues = {"params", "new_params"};
  fn.segments = {Segment{"b", {8}, 0}, Segment{"w", {3, 4}, 8}};
  fn.updates = {{"new_params", "params"}};
  fn.steps = {Step{"scale", {"b", "new_b"}}, Step{"scale", {"w", "new_w"}}};
  fn.kernels = {kernel("scale", "host", "host", "scale_host")};
  fn.ops = {OpSpec{"cast", {"b"}, {"new_b"}, {}, CastSpec{2}},
            OpSpec{"cast", {"w"}, {"new_w"}, {}, CastSpec{2}}};
  return fn;
}

/// flatProgram's state in two chunks, the vector in params and the matrix
/// in params_1, each updated in place.
Function flatChunksProgram() {
  Function fn = flatProgram();
  fn.name = "flat_chunks";
  fn.inputs = {f32Sig("params", {8}), f32Sig("params_1", {12})};
  fn.outputs = {f32Sig("new_params", {8}), f32Sig("new_params_1", {12})};
  fn.views = {View{f32Sig("w", {3, 4}), "params_1", 0},
              View{f32Sig("new_w", {3, 4}), "new_params_1", 0}};
  fn.flatValues = {"params", "params_1", "new_params", "new_params_1"};
  fn.flatChunks = {0, 1, 0, 1};
  fn.segments = {Segment{"b", {8}, 0}, Segment{"w", {3, 4}, 0, 1}};
  fn.updates = {{"new_params", "params"}, {"new_params_1", "params_1"}};
  fn.steps = {Step{"scale", {"params", "new_params"}},
              Step{"scale", {"w", "new_w"}}};
  fn.ops = {OpSpec{"cast", {"params"}, {"new_params"}, {}, CastSpec{2}},
            OpSpec{"cast", {"w"}, {"new_w"}, {}, CastSpec{2}}};
  return fn;
}

/// y = x's heads, copied: a heads view of x [B, N, 4 * 8] as [B, 4, N, 8].
Function headsProgram() {
  Function fn;
  fn.name = "heads";
  Dim b = Dim::named("B"), n = Dim::named("N");
  fn.inputs = {TensorSig{"x", DType::BF16, {b, n, Dim::fixed(32)}}};
  fn.outputs = {
      TensorSig{"y", DType::BF16, {b, Dim::fixed(4), n, Dim::fixed(8)}}};
  TensorSig heads = fn.outputs[0];
  heads.name = "xh";
  fn.views = {View{heads, "x", 0, 4}};
  fn.steps = {Step{"copy", {"xh", "y"}}};
  fn.kernels = {kernel("copy", "host", "host", "copy_host")};
  fn.ops = {OpSpec{"cast", {"xh"}, {"y"}, {}, CastSpec{1}}};
  return fn;
}

Package makePackage() {
  Package package;
  package.producer = "attnc 0.1.0 (test)";
  // Minimal: no buffers, no ops, no grid, a zero-size blob.
  Function copy;
  copy.name = "copy";
  copy.inputs = {TensorSig{"x", DType::F8E4M3FN, {Dim::fixed(7)}}};
  copy.outputs = {TensorSig{"y", DType::I64, {}}};
  copy.steps = {Step{"copy", {"x", "y"}}};
  copy.kernels = {kernel("copy", "host", "empty", "copy")};

  package.functions = {attentionProgram(),
                       copy,
                       attentionBackwardProgram(/*accumulateDq=*/true),
                       attentionBackwardProgram(/*accumulateDq=*/false),
                       linearProgram(),
                       normProgram(),
                       lossProgram(),
                       residualProgram(),
                       chunkedProgram(),
                       flatProgram(),
                       headsProgram(),
                       flatChunksProgram()};
  std::vector<uint8_t> code(300), cubin(100);
  for (size_t i = 0; i < code.size(); ++i)
    code[i] = static_cast<uint8_t>(i * 7);
  for (size_t i = 0; i < cubin.size(); ++i)
    cubin[i] = static_cast<uint8_t>(255 - i);
  package.blobs = {Blob{"host", "host-so", code}, Blob{"cubin", "cubin", cubin},
                   Blob{"empty", "ptx", {}}};
  return package;
}

//===----------------------------------------------------------------------===//
// Taking serialized packages apart and putting them back together
//===----------------------------------------------------------------------===//

const char *const kOrigin = "pkg.attnpkg";

std::vector<uint8_t> validBytes() {
  StatusOr<std::vector<uint8_t>> bytes = serialize(makePackage());
  EXPECT_TRUE(bytes.isOk()) << bytes.status().message();
  return bytes.isOk() ? *bytes : std::vector<uint8_t>();
}

uint64_t readLE(const std::vector<uint8_t> &bytes, size_t offset, int size) {
  uint64_t value = 0;
  for (int i = 0; i < size; ++i)
    value |= static_cast<uint64_t>(bytes[offset + i]) << (8 * i);
  return value;
}

void writeLE(std::vector<uint8_t> &bytes, size_t offset, uint64_t value,
             int size) {
  for (int i = 0; i < size; ++i)
    bytes[offset + i] = static_cast<uint8_t>(value >> (8 * i));
}

size_t manifestSize(const std::vector<uint8_t> &bytes) {
  return readLE(bytes, 16, 8);
}

/// Recomputes the header checksum after an edit.
void rechecksum(std::vector<uint8_t> &bytes) {
  writeLE(bytes, 32, fnv1a64(bytes.data() + 40, bytes.size() - 40), 8);
}

/// A file with this manifest and blob section, header built as documented.
std::vector<uint8_t> assemble(const std::string &manifest,
                              const std::vector<uint8_t> &section) {
  std::vector<uint8_t> bytes(40);
  bytes.reserve(40 + manifest.size() + section.size());
  std::copy(kMagic, kMagic + 8, bytes.begin());
  writeLE(bytes, 8, kContainerVersion, 4);
  writeLE(bytes, 12, kHeaderSize, 4);
  writeLE(bytes, 16, manifest.size(), 8);
  writeLE(bytes, 24, section.size(), 8);
  bytes.insert(bytes.end(), manifest.begin(), manifest.end());
  bytes.insert(bytes.end(), section.begin(), section.end());
  rechecksum(bytes);
  return bytes;
}

Json manifestOf(const std::vector<uint8_t> &bytes) {
  const char *begin = reinterpret_cast<const char *>(bytes.data() + 40);
  return Json::parse(begin, begin + manifestSize(bytes));
}

std::vector<uint8_t> blobSectionOf(const std::vector<uint8_t> &bytes) {
  return std::vector<uint8_t>(bytes.begin() + 40 + manifestSize(bytes),
                              bytes.end());
}

/// The valid package with its manifest edited (and checksums fixed).
std::vector<uint8_t> withManifest(const std::function<void(Json &)> &edit) {
  std::vector<uint8_t> bytes = validBytes();
  Json manifest = manifestOf(bytes);
  edit(manifest);
  return assemble(manifest.dump(), blobSectionOf(bytes));
}

/// Parses input that must be rejected and returns the message, which must
/// start with the origin.
std::string parseError(const std::vector<uint8_t> &bytes) {
  StatusOr<Package> package = parse(bytes.data(), bytes.size(), kOrigin);
  EXPECT_FALSE(package.isOk()) << "accepted a damaged package";
  if (package.isOk())
    return "";
  const std::string &message = package.status().message();
  EXPECT_EQ(message.rfind(std::string(kOrigin) + ": ", 0), 0u) << message;
  return message;
}

std::string editError(const std::function<void(Json &)> &edit) {
  return parseError(withManifest(edit));
}

#define EXPECT_CONTAINS(haystack, needle)                                      \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos)             \
      << "message: " << (haystack) << "\nexpected to contain: " << (needle)

//===----------------------------------------------------------------------===//
// Round trips and layout
//===----------------------------------------------------------------------===//

TEST(LibPackage, Fnv1a64KnownVectors) {
  auto hash = [](const std::string &s) {
    return fnv1a64(reinterpret_cast<const uint8_t *>(s.data()), s.size());
  };
  EXPECT_EQ(hash(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(hash("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(hash("foobar"), 0x85944171f73967e8ull);
}

TEST(LibPackage, RoundTripKeepsEveryField) {
  Package original = makePackage();
  std::vector<uint8_t> bytes = validBytes();
  StatusOr<Package> parsed = parse(bytes.data(), bytes.size(), kOrigin);
  ASSERT_TRUE(parsed.isOk()) << parsed.status().message();
  EXPECT_EQ(*parsed, original);
  // Spot checks that do not rely on the equality above.
  const Function *function = parsed->findFunction("attention_fwd");
  ASSERT_NE(function, nullptr);
  const Kernel *gpu = function->findKernel("attention", "sm_90a");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->grid[0][0].symbols, std::vector<std::string>{"N"});
  EXPECT_EQ(gpu->grid[0][0].divisor, 128);
  EXPECT_EQ(gpu->block[0], 384);
  EXPECT_EQ(gpu->resources.at("registers"), 168);
  ASSERT_EQ(gpu->tensorMaps.size(), 2u);
  EXPECT_EQ(gpu->tensorMaps[1].arg, 1);
  EXPECT_EQ(gpu->tensorMaps[0].box, (std::vector<int64_t>{64, 128, 1, 1}));
  EXPECT_EQ(gpu->tensorMaps[0].swizzleBytes, 128);
  EXPECT_TRUE(function->findKernel("attention", "host")->tensorMaps.empty());
  EXPECT_EQ(function->findKernel("cast", "sm_90a")->entry, "cast_kernel");
  EXPECT_EQ(function->findKernel("cast", "sm_80"), nullptr);
  EXPECT_EQ(function->buffers[1].slot, 3);
  EXPECT_EQ(function->steps[1].args, (std::vector<std::string>{"t0", "o"}));
  const AttentionSpec &spec = *function->ops[0].attention;
  EXPECT_EQ(spec.windowLeft, 256);
  EXPECT_TRUE(std::isinf(spec.score->ops[4].value));
  EXPECT_EQ(spec.mask->ops[0].intValue, 4);
  EXPECT_EQ(spec.mask->ops[4].intValue, kBigConstant);
  EXPECT_EQ(function->ops[1].cast->scale, 0.5);
  EXPECT_EQ(function->ops[0].results[1], "lse");
  EXPECT_EQ(parsed->findBlob("cubin")->data, original.blobs[1].data);
  EXPECT_EQ(parsed->findBlob("nope"), nullptr);
  EXPECT_TRUE(parsed->findFunction("copy")->ops.empty());
  // Serializing again gives the same bytes.
  StatusOr<std::vector<uint8_t>> again = serialize(*parsed);
  ASSERT_TRUE(again.isOk());
  EXPECT_EQ(*again, bytes);
}

TEST(LibPackage, LayoutMatchesTheDocumentation) {
  std::vector<uint8_t> bytes = validBytes();
  ASSERT_GE(bytes.size(), 40u);
  EXPECT_TRUE(std::equal(kMagic, kMagic + 8, bytes.begin()));
  EXPECT_EQ(readLE(bytes, 8, 4), kContainerVersion);
  EXPECT_EQ(readLE(bytes, 12, 4), kHeaderSize);
  EXPECT_EQ(40 + manifestSize(bytes) + readLE(bytes, 24, 8), bytes.size());
  EXPECT_EQ(readLE(bytes, 32, 8),
            fnv1a64(bytes.data() + 40, bytes.size() - 40));
  // Rebuilding the file from its parts with the documented header gives the
  // same bytes.
  std::string manifest(bytes.begin() + 40,
                       bytes.begin() + 40 + manifestSize(bytes));
  EXPECT_EQ(assemble(manifest, blobSectionOf(bytes)), bytes);
  EXPECT_EQ(manifest, manifestJson(makePackage()));

  Json json = manifestOf(bytes);
  EXPECT_EQ(json["schema_version"], kSchemaVersion);
  const Json &function = json["functions"][0];
  std::vector<std::string> keys;
  for (const auto &[key, value] : function.items())
    keys.push_back(key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"name", "inputs", "outputs", "buffers",
                                      "steps", "kernels", "ops"}));
  const Json &kernel = function["kernels"][1];
  EXPECT_EQ(kernel["name"], "attention");
  EXPECT_EQ(kernel["target"], "sm_90a");
  EXPECT_EQ(kernel["grid"][0][0], Json({{"sym", "N"}, {"ceildiv", 128}}));
  EXPECT_EQ(kernel["grid"][1][0], 16);
  EXPECT_EQ(kernel["block"], Json({384, 1, 1}));
  // Several symbols: an array, with the constant factor.
  EXPECT_EQ(function["kernels"][2]["grid"][0][0],
            Json::parse(R"({"sym": ["B", "N"], "const": 128,
                            "ceildiv": 16384})"));
  EXPECT_EQ(function["inputs"][0]["shape"], Json({"B", 16, "N", 128}));
  EXPECT_EQ(function["buffers"][0], Json::parse(R"({"name": "t0",
      "dtype": "bf16", "shape": ["B", 16, "N", 128], "slot": 0})"));
  EXPECT_EQ(function["steps"][1],
            Json::parse(R"({"kernel": "cast", "args": ["t0", "o"]})"));
  // A spec's fields sit in its op.
  EXPECT_EQ(function["ops"][1], Json::parse(R"({"kind": "cast",
      "operands": ["t0"], "results": ["o"], "scale": 0.5})"));
  const Json &attention = function["ops"][0];
  EXPECT_EQ(attention["kind"], "attention");
  EXPECT_EQ(attention["results"], Json({"t0", "lse"}));
  EXPECT_EQ(attention["causal"], true);
  EXPECT_EQ(attention["window_left"], 256);
  const Json &score = attention["score"];
  EXPECT_EQ(score["ops"][4]["value"], "-inf");
  EXPECT_FALSE(score["ops"][1].contains("value"))
      << "optional fields are written only when set";
  EXPECT_FALSE(score["ops"][1].contains("predicate"));
  // Integer constants are JSON integers, exact beyond 2^53.
  const Json &mask = attention["mask"];
  EXPECT_TRUE(mask["ops"][0]["value"].is_number_integer());
  EXPECT_EQ(mask["ops"][0]["value"], 4);
  EXPECT_EQ(mask["ops"][4]["value"].get<int64_t>(), kBigConstant);
  EXPECT_EQ(json["functions"][1]["ops"], Json::array());
  // Blobs lie back to back, each with its own checksum.
  std::vector<uint8_t> section = blobSectionOf(bytes);
  uint64_t offset = 0;
  for (const Json &blob : json["blobs"]) {
    EXPECT_EQ(blob["offset"], offset);
    uint64_t size = blob["size"];
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016llx",
                  static_cast<unsigned long long>(
                      fnv1a64(section.data() + offset, size)));
    EXPECT_EQ(blob["fnv1a64"], hex);
    offset += size;
  }
  EXPECT_EQ(offset, section.size());
}

/// The backward op kinds and gradient_of as the manifest spells them, and
/// what a reader makes of them.
TEST(LibPackage, GradientFunctionsInJson) {
  std::vector<uint8_t> bytes = validBytes();
  Json json = manifestOf(bytes);
  const Json &bwd = json["functions"][2];
  std::vector<std::string> keys;
  for (const auto &[key, value] : bwd.items())
    keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"name", "gradient_of", "inputs",
                                            "outputs", "buffers", "steps",
                                            "kernels", "ops"}));
  EXPECT_EQ(bwd["gradient_of"], "attention_fwd");
  EXPECT_FALSE(json["functions"][0].contains("gradient_of"));
  EXPECT_EQ(bwd["ops"][0], Json::parse(R"({"kind": "attention_grad_delta",
      "operands": ["out", "dout"], "results": ["delta", "dq_acc0"]})"));
  const Json &kv = bwd["ops"][1];
  EXPECT_EQ(kv["kind"], "attention_grad_kv");
  EXPECT_EQ(kv["operands"],
            Json({"q", "k", "v", "lse_fwd", "delta", "dout", "dq_acc0"}));
  EXPECT_EQ(kv["results"], Json({"dk", "dv", "dq_acc1"}));
  // The attention spec's fields sit in the op, as in the forward's.
  const Json &forward = json["functions"][0]["ops"][0];
  const Json &split = json["functions"][3];
  for (const char *field :
       {"scale", "causal", "window_left", "window_right", "mask", "score"}) {
    EXPECT_EQ(kv[field], forward[field]) << field;
    EXPECT_EQ(split["ops"][2][field], forward[field]) << field;
  }
  EXPECT_EQ(split["ops"][0]["results"], Json({"delta", ""}));
  EXPECT_EQ(split["ops"][1]["results"], Json({"dk", "dv"}));
  EXPECT_EQ(split["ops"][2]["kind"], "attention_grad_q");
  EXPECT_EQ(split["ops"][2]["operands"],
            Json({"q", "k", "v", "lse_fwd", "delta", "dout"}));
  EXPECT_EQ(split["ops"][2]["results"], Json({"dq"}));

  StatusOr<Package> parsed = parse(bytes.data(), bytes.size(), kOrigin);
  ASSERT_TRUE(parsed.isOk()) << parsed.status().message();
  EXPECT_EQ(parsed->functions[2].gradientOf, "attention_fwd");
  EXPECT_EQ(parsed->functions[0].gradientOf, std::nullopt);
  const std::vector<OpSpec> &ops = parsed->functions[3].ops;
  EXPECT_FALSE(ops[0].attention || ops[0].cast);
  EXPECT_EQ(ops[1].attention->windowLeft, 256);
  EXPECT_TRUE(ops[2].attention->causal);
}

//===----------------------------------------------------------------------===//
// Container errors
//===----------------------------------------------------------------------===//

TEST(LibPackage, RejectsBadMagic) {
  std::vector<uint8_t> bytes = validBytes();
  bytes[0] = 'X';
  EXPECT_CONTAINS(parseError(bytes), "not an attnc package");
  std::string text = "{\"schema_version\": 1}";
  EXPECT_CONTAINS(parseError(std::vector<uint8_t>(text.begin(), text.end())),
                  "not an attnc package");
}

TEST(LibPackage, RejectsTruncation) {
  std::vector<uint8_t> bytes = validBytes();
  const size_t manifest = manifestSize(bytes),
               section = bytes.size() - 40 - manifest;
  struct Case {
    size_t length;
    std::string expected;
  } cases[] = {
      {0, "truncated: header needs 40 bytes, file has 0"},
      {5, "truncated: header needs 40 bytes, file has 5"},
      {39, "truncated: header needs 40 bytes, file has 39"},
      {40, "truncated: manifest needs " + std::to_string(manifest) +
               " bytes, file has 0"},
      {40 + manifest / 2, "truncated: manifest needs " +
                              std::to_string(manifest) + " bytes, file has " +
                              std::to_string(manifest / 2)},
      {40 + manifest, "truncated: blob section needs " +
                          std::to_string(section) + " bytes, file has 0"},
      {bytes.size() - 1, "truncated: blob section needs " +
                             std::to_string(section) + " bytes, file has " +
                             std::to_string(section - 1)},
  };
  for (const Case &c : cases) {
    std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + c.length);
    EXPECT_CONTAINS(parseError(truncated), c.expected);
  }
}

TEST(LibPackage, RejectsTrailingBytes) {
  std::vector<uint8_t> bytes = validBytes();
  bytes.push_back(0);
  EXPECT_CONTAINS(parseError(bytes),
                  "1 unexpected bytes after the blob section");
}

TEST(LibPackage, RejectsOtherContainerVersionOrHeaderSize) {
  std::vector<uint8_t> bytes = validBytes();
  writeLE(bytes, 8, 2, 4);
  EXPECT_CONTAINS(
      parseError(bytes),
      "unsupported container version 2 (this build reads version 1)");
  bytes = validBytes();
  writeLE(bytes, 12, 48, 4);
  EXPECT_CONTAINS(parseError(bytes),
                  "unsupported header size 48 (expected 40)");
}

TEST(LibPackage, DetectsCorruption) {
  std::vector<uint8_t> bytes = validBytes();
  std::vector<uint8_t> manifestFlipped = bytes, blobFlipped = bytes;
  manifestFlipped[40 + 10] ^= 0x20;
  EXPECT_CONTAINS(parseError(manifestFlipped),
                  std::string(kOrigin) +
                      ": corrupted: manifest checksum mismatch");
  blobFlipped[bytes.size() - 5] ^= 1;
  EXPECT_CONTAINS(parseError(blobFlipped),
                  "corrupted: manifest checksum mismatch");
  // With the header checksum fixed up, the blob's own checksum catches it.
  rechecksum(blobFlipped);
  EXPECT_CONTAINS(parseError(blobFlipped),
                  "corrupted: blob \"cubin\" checksum mismatch");
}

TEST(LibPackage, RejectsManifestThatIsNotJson) {
  std::vector<uint8_t> bytes = validBytes();
  std::string notJson = "{\"schema_version\": 1, oops";
  EXPECT_CONTAINS(parseError(assemble(notJson, blobSectionOf(bytes))),
                  std::string(kOrigin) + ": manifest is not valid JSON");
  EXPECT_CONTAINS(parseError(assemble("[1, 2]", blobSectionOf(bytes))),
                  "invalid manifest: expected a JSON object, got array");
}

//===----------------------------------------------------------------------===//
// Manifest errors
//===----------------------------------------------------------------------===//

TEST(LibPackage, ChecksSchemaVersion) {
  EXPECT_CONTAINS(editError([](Json &m) { m.erase("schema_version"); }),
                  "schema_version: missing required field");
  EXPECT_CONTAINS(editError([](Json &m) { m["schema_version"] = "1"; }),
                  "schema_version: expected an integer, got string");
  EXPECT_CONTAINS(editError([](Json &m) { m["schema_version"] = 1.0; }),
                  "schema_version: expected an integer, got number");
  // Another version is refused before anything else is looked at, with a
  // hint for packages of the previous one.
  EXPECT_CONTAINS(editError([](Json &m) {
                    m["schema_version"] = 1;
                    m["functions"][0].erase("steps");
                  }),
                  "invalid manifest: schema_version: manifest schema version "
                  "1 is not supported (this build reads version 2); "
                  "recompile the package with this attnc");
  EXPECT_CONTAINS(editError([](Json &m) {
                    m["schema_version"] = 3;
                    m["functions"] = "something new";
                  }),
                  "schema_version: manifest schema version 3 is not supported "
                  "(this build reads version 2)");
}

/// Every JSON node of `json` below the root, with its path as messages
/// spell it ("functions[0].inputs[1].dtype").
void forEachNode(
    const Json &json, const std::string &path,
    const Json::json_pointer &pointer,
    const std::function<void(const std::string &, const Json::json_pointer &,
                             const Json &)> &visit) {
  if (json.is_object()) {
    for (const auto &[key, value] : json.items()) {
      std::string childPath = path.empty() ? key : path + "." + key;
      visit(childPath, pointer / key, value);
      forEachNode(value, childPath, pointer / key, visit);
    }
  } else if (json.is_array()) {
    for (size_t i = 0; i < json.size(); ++i) {
      std::string childPath = path + "[" + std::to_string(i) + "]";
      visit(childPath, pointer / i, json[i]);
      forEachNode(json[i], childPath, pointer / i, visit);
    }
  }
}

/// Removes each object field in turn: a required one must be reported by
/// its path; an optional one must still parse.
TEST(LibPackage, EveryRequiredFieldIsChecked) {
  const std::set<std::string> optional = {
      "window_left", "window_right", "mask",   "score",       "predicate",
      "value",       "ceildiv",      "const",  "gradient_of", "tensor_maps",
      "index_bound", "concurrent",   "updates"};
  const Json manifest = manifestOf(validBytes());
  const std::vector<uint8_t> section = blobSectionOf(validBytes());
  int checked = 0;
  forEachNode(manifest, "", Json::json_pointer(),
              [&](const std::string &path, const Json::json_pointer &pointer,
                  const Json &) {
                const Json &parent = manifest[pointer.parent_pointer()];
                if (!parent.is_object())
                  return;
                std::string key = pointer.back();
                // Map entries (config, resources, updates) are data, not
                // schema.
                if (path.find(".config.") != std::string::npos ||
                    path.find(".resources.") != std::string::npos ||
                    path.find(".updates.") != std::string::npos)
                  return;
                Json edited = manifest;
                edited[pointer.parent_pointer()].erase(key);
                std::vector<uint8_t> bytes = assemble(edited.dump(), section);
                // Without its routine, a library kernel claims code it has
                // not got.
                if (key == "library") {
                  EXPECT_CONTAINS(parseError(bytes), "no blob named \"\"");
                  return;
                }
                // Without its flag, a matmul's addend is one operand too
                // many.
                if (key == "addend") {
                  EXPECT_CONTAINS(parseError(bytes), "expected 2 or 3");
                  return;
                }
                // Without its activation, a matmul disagrees with the
                // library kernel that applies one.
                // Without its views, a function's steps name values it has
                // not got.
                if (key == "views") {
                  EXPECT_CONTAINS(parseError(bytes), "no value named \"");
                  return;
                }
                // Each of a function's flat values and segments needs the
                // other.
                if (key == "flat_values" || key == "segments") {
                  EXPECT_CONTAINS(parseError(bytes),
                                  "flat_values and segments come together");
                  return;
                }
                // Without their chunks, flat values and segments are all
                // chunk 0's.
                if (key == "flat_chunks") {
                  EXPECT_CONTAINS(parseError(bytes), "got \"params_1\"");
                  return;
                }
                if (key == "chunk") {
                  EXPECT_CONTAINS(parseError(bytes),
                                  "starting at element 8, where the segment "
                                  "before ends");
                  return;
                }
                // Without its heads, a heads view is rows of another
                // shape.
                if (key == "heads") {
                  EXPECT_CONTAINS(parseError(bytes),
                                  "a view has the dtype and dims of");
                  return;
                }
                if (key == "activation") {
                  EXPECT_CONTAINS(parseError(bytes),
                                  "config.gelu_tanh: is 1 but the matmul op");
                  return;
                }
                if (optional.count(key)) {
                  StatusOr<Package> package =
                      parse(bytes.data(), bytes.size(), kOrigin);
                  EXPECT_TRUE(package.isOk())
                      << path << ": " << package.status().message();
                } else {
                  EXPECT_CONTAINS(parseError(bytes),
                                  path + ": missing required field");
                  ++checked;
                }
              });
  EXPECT_GT(checked, 50);
}

/// Replaces each node in turn with a value of a type it cannot have; the
/// error must name its path.
TEST(LibPackage, EveryFieldTypeIsChecked) {
  const Json manifest = manifestOf(validBytes());
  const std::vector<uint8_t> section = blobSectionOf(validBytes());
  int checked = 0;
  forEachNode(manifest, "", Json::json_pointer(),
              [&](const std::string &path, const Json::json_pointer &pointer,
                  const Json &node) {
                Json edited = manifest;
                edited[pointer] = node.is_boolean() ? Json(1) : Json(true);
                EXPECT_CONTAINS(parseError(assemble(edited.dump(), section)),
                                path + ": expected");
                ++checked;
              });
  EXPECT_GT(checked, 100);
}

TEST(LibPackage, RejectsUnknownFields) {
  EXPECT_CONTAINS(editError([](Json &m) { m["extra"] = 1; }),
                  "invalid manifest: extra: unknown field");
  EXPECT_CONTAINS(
      editError([](Json &m) { m["functions"][0]["ops"][0]["windowLeft"] = 3; }),
      "functions[0].ops[0].windowLeft: unknown field");
  // A cast op has no attention fields.
  EXPECT_CONTAINS(
      editError([](Json &m) { m["functions"][0]["ops"][1]["causal"] = true; }),
      "functions[0].ops[1].causal: unknown field");
  // Nor does a gradient delta op, which has no spec.
  EXPECT_CONTAINS(
      editError([](Json &m) { m["functions"][2]["ops"][0]["scale"] = 1; }),
      "functions[2].ops[0].scale: unknown field");
  EXPECT_CONTAINS(
      editError([](Json &m) { m["functions"][0]["buffers"][0]["slots"] = 1; }),
      "functions[0].buffers[0].slots: unknown field");
  EXPECT_CONTAINS(
      editError([](Json &m) { m["functions"][0]["steps"][0]["grid"] = 1; }),
      "functions[0].steps[0].grid: unknown field");
  EXPECT_CONTAINS(editError([](Json &m) {
                    m["functions"][0]["kernels"][0]["grid"][0][0]["div"] = 2;
                  }),
                  "functions[0].kernels[0].grid[0][0].div: unknown field");
}

/// Manifest edits that keep the JSON well-typed but break an invariant.
TEST(LibPackage, RejectsSemanticErrors) {
  struct Case {
    const char *what;
    std::function<void(Json &)> edit;
    std::string expected;
  };
  const Case cases[] = {
      {"unknown dtype",
       [](Json &m) { m["functions"][0]["inputs"][1]["dtype"] = "f12"; },
       "functions[0].inputs[1].dtype: unknown dtype \"f12\""},
      {"negative dim",
       [](Json &m) { m["functions"][0]["inputs"][0]["shape"][1] = -1; },
       "functions[0].inputs[0].shape[1]: static extent must be >= 0, got -1"},
      {"empty symbol",
       [](Json &m) { m["functions"][0]["inputs"][0]["shape"][0] = ""; },
       "functions[0].inputs[0].shape[0]: symbol name must not be empty"},
      {"empty function name", [](Json &m) { m["functions"][1]["name"] = ""; },
       "functions[1].name: function name must not be empty"},
      {"duplicate function",
       [](Json &m) { m["functions"][1]["name"] = "attention_fwd"; },
       "functions[1].name: duplicate function name \"attention_fwd\""},
      {"empty blob name", [](Json &m) { m["blobs"][2]["name"] = ""; },
       "blobs[2].name: blob name must not be empty"},
      {"duplicate blob", [](Json &m) { m["blobs"][1]["name"] = "host"; },
       "blobs[1].name: duplicate blob name \"host\""},
      {"empty blob kind", [](Json &m) { m["blobs"][0]["kind"] = ""; },
       "blobs[0].kind: must not be empty"},
      {"empty tensor name",
       [](Json &m) { m["functions"][0]["inputs"][2]["name"] = ""; },
       "functions[0].inputs[2].name: tensor name must not be empty"},
      {"duplicate tensor",
       [](Json &m) { m["functions"][0]["outputs"][0]["name"] = "q"; },
       "functions[0].outputs[0].name: duplicate tensor name \"q\""},
      {"buffer named like an input",
       [](Json &m) { m["functions"][0]["buffers"][1]["name"] = "k"; },
       "functions[0].buffers[1].name: duplicate tensor name \"k\""},
      {"buffer symbol no input or output defines",
       [](Json &m) { m["functions"][0]["buffers"][0]["shape"][2] = "M"; },
       "functions[0].buffers[0].shape[2]: symbol \"M\" is not defined by any "
       "input or output of the function"},
      {"negative buffer dim",
       [](Json &m) { m["functions"][0]["buffers"][1]["shape"][0] = -2; },
       "functions[0].buffers[1].shape[0]: static extent must be >= 0, got -2"},
      {"vocabulary offset on a whole loss",
       [](Json &m) { m["functions"][6]["ops"][0]["vocab_offset"] = 3; },
       "functions[6].ops[0].vocab_offset: expected an offset >= 0 on a "
       "vocabulary chunk's op, got 3"},
      {"vocabulary size off the combine",
       [](Json &m) { m["functions"][6]["ops"][0]["vocab_size"] = 50; },
       "functions[6].ops[0].vocab_size: only cross_entropy_combine takes one"},
      {"heads that do not divide the columns",
       [](Json &m) { m["functions"][10]["views"][0]["heads"] = 5; },
       "functions[10].views[0].shape: a heads view of \"x\" [B, N, 5 * D] "
       "has its dtype and the shape [B, 5, N, D]"},
      {"heads view from a later row",
       [](Json &m) { m["functions"][10]["views"][0]["begin"] = 1; },
       "functions[10].views[0].begin: a heads view takes all of \"x\" from "
       "row 0 as a count of heads >= 1"},
      {"negative heads",
       [](Json &m) { m["functions"][10]["views"][0]["heads"] = -4; },
       "functions[10].views[0].heads: a heads view takes all of \"x\" from "
       "row 0 as a count of heads >= 1"},
      {"heads view of other dims",
       [](Json &m) { m["functions"][10]["views"][0]["shape"][2] = "B"; },
       "functions[10].views[0].shape: a heads view of \"x\" [B, N, 4 * D] "
       "has its dtype and the shape [B, 4, N, D]"},
      {"view of no value",
       [](Json &m) { m["functions"][8]["views"][1]["of"] = "x"; },
       "functions[8].views[1].of: no input, output or buffer named \"x\""},
      {"view of a view",
       [](Json &m) { m["functions"][8]["views"][1]["of"] = "w0"; },
       "functions[8].views[1].of: no input, output or buffer named \"w0\""},
      {"view named like an output",
       [](Json &m) { m["functions"][8]["views"][2]["name"] = "z"; },
       "functions[8].views[2].name: duplicate tensor name \"z\""},
      {"view with other dims",
       [](Json &m) { m["functions"][8]["views"][0]["shape"][1] = 8; },
       "functions[8].views[0].shape: a view has the dtype and dims of \"w\" "
       "but for its first"},
      {"view with another dtype",
       [](Json &m) { m["functions"][8]["views"][0]["dtype"] = "f32"; },
       "functions[8].views[0].shape: a view has the dtype and dims of \"w\" "
       "but for its first"},
      {"view of symbolic rows",
       [](Json &m) { m["functions"][8]["views"][0]["shape"][0] = "C"; },
       "functions[8].views[0].shape[0]: a view's row count is a static "
       "extent >= 1"},
      {"view past the rows",
       [](Json &m) { m["functions"][8]["views"][3]["begin"] = 33; },
       "functions[8].views[3].begin: rows [33, 49) are not rows of \"z\""},
      {"view rows past int64",
       [](Json &m) {
         m["functions"][8]["views"][0]["begin"] =
             std::numeric_limits<int64_t>::max();
       },
       "functions[8].views[0].begin: rows [9223372036854775807, "
       "9223372036854775807) are not rows of \"w\""},
      {"reshaped view of another dtype",
       [](Json &m) { m["functions"][9]["views"][1]["dtype"] = "bf16"; },
       "functions[9].views[1].shape: a view has the dtype and dims of "
       "\"params\" but for its first (or, of a rank-1 value, static dims)"},
      {"reshaped view past the elements",
       [](Json &m) { m["functions"][9]["views"][1]["begin"] = 9; },
       "functions[9].views[1].begin: rows [9, 21) are not rows of "
       "\"params\""},
      {"segments without flat values",
       [](Json &m) { m["functions"][9].erase("flat_values"); },
       "functions[9].flat_values: flat_values and segments come together"},
      {"segment after a gap",
       [](Json &m) { m["functions"][9]["segments"][1]["offset"] = 9; },
       "functions[9].segments[1]: expected a shape of positive extents "
       "starting at element 8, where the segment before ends"},
      {"segments named twice",
       [](Json &m) { m["functions"][9]["segments"][1]["name"] = "b"; },
       "functions[9].segments[1].name: expected a distinct, non-empty name"},
      {"flat value of another extent",
       [](Json &m) { m["functions"][9]["segments"][1]["shape"][0] = 2; },
       "functions[9].flat_values[0]: expected a distinct input or output of "
       "shape [16], got \"params\""},
      {"flat value that is a view",
       [](Json &m) { m["functions"][9]["flat_values"][1] = "w"; },
       "functions[9].flat_values[1]: expected a distinct input or output of "
       "shape [20], got \"w\""},
      {"flat chunks not one per flat value",
       [](Json &m) { m["functions"][11]["flat_chunks"] = {0, 1}; },
       "functions[11].flat_chunks: expected one chunk per flat value (4), "
       "got 2"},
      {"flat value of no chunk",
       [](Json &m) { m["functions"][11]["flat_chunks"][3] = 2; },
       "functions[11].flat_chunks[3]: expected a chunk below 2, got 2"},
      {"segment skipping a chunk",
       [](Json &m) { m["functions"][11]["segments"][1]["chunk"] = 2; },
       "functions[11].segments[1].chunk: expected the chunk of the segment "
       "before or the next one (0 or 1), got 2"},
      {"chunk not starting at 0",
       [](Json &m) { m["functions"][11]["segments"][1]["offset"] = 8; },
       "functions[11].segments[1]: expected a shape of positive extents "
       "starting at element 0, where the segment before ends"},
      {"flat value of another chunk's extent",
       [](Json &m) { m["functions"][11]["flat_chunks"][1] = 0; },
       "functions[11].flat_values[1]: expected a distinct input or output of "
       "shape [8], got \"params_1\""},
      {"update of no input",
       [](Json &m) { m["functions"][9]["updates"]["new_params"] = "x"; },
       "functions[9].updates.new_params: expected an output updating an "
       "input of its dtype and shape, got \"new_params\" and \"x\""},
      {"update read after it was written",
       [](Json &m) {
         m["functions"][9]["steps"][1]["args"][0] = "b";
         m["functions"][9]["ops"][1]["operands"][0] = "b";
         m["functions"][9]["ops"][1]["results"][0] = "new_w";
       },
       "functions[9].updates.new_params: step 1 reads rows of \"params\" "
       "that an earlier step wrote through \"new_params\""},
      {"update written other than element by element",
       [](Json &m) {
         m["functions"][9]["steps"][0]["args"][0] = "params";
         m["functions"][9]["ops"][0]["operands"][0] = "params";
       },
       "functions[9].updates.new_params: step 0 writes rows of "
       "\"new_params\" that it reads of \"params\" other than element by "
       "element"},
      {"negative view begin",
       [](Json &m) { m["functions"][8]["views"][0]["begin"] = -1; },
       "functions[8].views[0].begin: rows [-1, 31) are not rows of \"w\""},
      {"output written only through no view",
       [](Json &m) {
         m["functions"][8]["steps"][0]["args"][1] = "w1";
         m["functions"][8]["steps"][1]["args"][1] = "w0";
       },
       "functions[8].outputs[0]: output \"z\" is not an argument of any "
       "step, so nothing writes it"},
      {"negative slot",
       [](Json &m) { m["functions"][0]["buffers"][0]["slot"] = -1; },
       "functions[0].buffers[0].slot: must be >= 0, got -1"},
      {"step of an unknown kernel",
       [](Json &m) { m["functions"][0]["steps"][1]["kernel"] = "relu"; },
       "functions[0].steps[1].kernel: no kernel named \"relu\" for target "
       "\"host\" (each target the function has kernels for needs one for "
       "every step)"},
      {"step of a kernel missing for one target",
       [](Json &m) { m["functions"][0]["kernels"].erase(3); },
       "functions[0].steps[1].kernel: no kernel named \"cast\" for target "
       "\"sm_90a\""},
      {"step of a function without kernels",
       [](Json &m) { m["functions"][1]["kernels"] = Json::array(); },
       "functions[1].steps[0].kernel: no kernel named \"copy\""},
      {"step argument that is no value",
       [](Json &m) { m["functions"][0]["steps"][1]["args"][0] = "t9"; },
       "functions[0].steps[1].args[0]: no value named \"t9\""},
      {"missing blob",
       [](Json &m) { m["functions"][0]["kernels"][1]["blob"] = "nope"; },
       "functions[0].kernels[1].blob: no blob named \"nope\""},
      {"empty target",
       [](Json &m) { m["functions"][0]["kernels"][0]["target"] = ""; },
       "functions[0].kernels[0].target: must not be empty"},
      {"empty kernel name",
       [](Json &m) { m["functions"][0]["kernels"][2]["name"] = ""; },
       "functions[0].kernels[2].name: kernel name must not be empty"},
      {"duplicate kernel for a target",
       [](Json &m) { m["functions"][0]["kernels"][2]["name"] = "attention"; },
       "functions[0].kernels[2].name: duplicate kernel name \"attention\" for "
       "target \"host\""},
      {"empty entry",
       [](Json &m) { m["functions"][0]["kernels"][0]["entry"] = ""; },
       "functions[0].kernels[0].entry: must not be empty"},
      {"tensor map of a host kernel",
       [](Json &m) {
         m["functions"][0]["kernels"][0]["tensor_maps"] =
             m["functions"][0]["kernels"][1]["tensor_maps"];
       },
       "functions[0].kernels[0].tensor_maps: host kernels take no tensor "
       "maps"},
      {"tensor map of a negative argument",
       [](Json &m) {
         m["functions"][0]["kernels"][1]["tensor_maps"][1]["arg"] = -1;
       },
       "functions[0].kernels[1].tensor_maps[1].arg: must be >= 0, got -1"},
      {"tensor map without a box",
       [](Json &m) {
         m["functions"][0]["kernels"][1]["tensor_maps"][0]["box"] =
             Json::array();
       },
       "functions[0].kernels[1].tensor_maps[0].box: expected 1 to 5 extents, "
       "got 0"},
      {"tensor map box extent",
       [](Json &m) {
         m["functions"][0]["kernels"][1]["tensor_maps"][0]["box"][1] = 512;
       },
       "functions[0].kernels[1].tensor_maps[0].box[1]: expected an extent in "
       "[1, 256], got 512"},
      {"tensor map swizzle",
       [](Json &m) {
         m["functions"][0]["kernels"][1]["tensor_maps"][0]["swizzle_bytes"] =
             64;
       },
       "functions[0].kernels[1].tensor_maps[0].swizzle_bytes: expected 0 or "
       "128, got 64"},
      {"tensor map past the step's arguments",
       [](Json &m) {
         m["functions"][0]["kernels"][1]["tensor_maps"][1]["arg"] = 5;
       },
       "functions[0].steps[0].kernel: tensor map of kernel \"attention\": "
       "argument 5 of a step with 5"},
      {"tensor map box of another rank",
       [](Json &m) {
         m["functions"][0]["kernels"][1]["tensor_maps"][0]["box"] = {64, 128,
                                                                     1};
       },
       "functions[0].steps[0].kernel: tensor map of kernel \"attention\": a "
       "box of 3 extents for \"q\" of rank 4"},
      {"tensor map box wider than the swizzle",
       [](Json &m) {
         m["functions"][0]["kernels"][1]["tensor_maps"][0]["box"][0] = 128;
       },
       "functions[0].steps[0].kernel: tensor map of kernel \"attention\": an "
       "inner box of 256 bytes is not whole 16-byte units within the "
       "swizzle"},
      {"tensor map box of partial 16-byte units",
       [](Json &m) {
         m["functions"][0]["kernels"][1]["tensor_maps"][1]["box"][0] = 4;
       },
       "functions[0].steps[0].kernel: tensor map of kernel \"attention\": an "
       "inner box of 8 bytes is not whole 16-byte units within the swizzle"},
      {"blob offset past the end",
       [](Json &m) { m["blobs"][0]["offset"] = 1000000; },
       "blobs[0]: offset 1000000 + size 300 lies outside the blob section (400 "
       "bytes)"},
      {"blob size past the end", [](Json &m) { m["blobs"][1]["size"] = 101; },
       "blobs[1]: offset 300 + size 101 lies outside the blob section (400 "
       "bytes)"},
      {"blob range overflowing",
       [](Json &m) {
         m["blobs"][1]["size"] = std::numeric_limits<int64_t>::max();
       },
       "lies outside the blob section"},
      {"negative blob offset", [](Json &m) { m["blobs"][0]["offset"] = -1; },
       "blobs[0]: offset and size must be >= 0"},
      {"integer too large",
       [](Json &m) { m["blobs"][0]["offset"] = UINT64_MAX; },
       "blobs[0].offset: integer out of range"},
      {"bad checksum text", [](Json &m) { m["blobs"][0]["fnv1a64"] = "xyz"; },
       "blobs[0].fnv1a64: expected 16 hex digits, got \"xyz\""},
      {"wrong blob checksum",
       [](Json &m) { m["blobs"][0]["fnv1a64"] = "0123456789abcdef"; },
       std::string(kOrigin) +
           ": corrupted: blob \"host\" checksum mismatch (manifest says "
           "0123456789abcdef"},
      {"four grid dims",
       [](Json &m) {
         m["functions"][0]["kernels"][0]["grid"].push_back(Json::array({1}));
       },
       "functions[0].kernels[0].grid: at most 3 dimensions, got 4"},
      {"zero grid constant",
       [](Json &m) { m["functions"][0]["kernels"][0]["grid"][1][0] = 0; },
       "functions[0].kernels[0].grid[1][0]: constant grid factor must be "
       "positive, got 0"},
      {"negative grid constant",
       [](Json &m) { m["functions"][0]["kernels"][1]["grid"][1][0] = -16; },
       "functions[0].kernels[1].grid[1][0]: constant grid factor must be "
       "positive, got -16"},
      {"zero divisor",
       [](Json &m) {
         m["functions"][0]["kernels"][0]["grid"][0][0]["ceildiv"] = 0;
       },
       "functions[0].kernels[0].grid[0][0].ceildiv: divisor must be positive, "
       "got 0"},
      {"undefined grid symbol",
       [](Json &m) {
         m["functions"][0]["kernels"][1]["grid"][1][1]["sym"] = "M";
       },
       "functions[0].kernels[1].grid[1][1].sym: symbol \"M\" is not defined by "
       "any tensor of the "
       "function"},
      {"grid symbol of another function",
       [](Json &m) {
         m["functions"][1]["kernels"][0]["grid"] =
             Json::parse("[[{\"sym\": \"N\"}]]");
       },
       "functions[1].kernels[0].grid[0][0].sym: symbol \"N\" is not defined"},
      {"short block",
       [](Json &m) {
         m["functions"][0]["kernels"][0]["block"] = {1, 1};
       },
       "functions[0].kernels[0].block: expected 3 extents, got 2"},
      {"zero block",
       [](Json &m) { m["functions"][0]["kernels"][1]["block"][2] = 0; },
       "functions[0].kernels[1].block[2]: must be positive, got 0"},
      {"negative shared memory",
       [](Json &m) {
         m["functions"][0]["kernels"][1]["dynamic_shared_memory_bytes"] = -1;
       },
       "functions[0].kernels[1].dynamic_shared_memory_bytes: must be >= 0, got "
       "-1"},
      {"unknown op kind",
       [](Json &m) { m["functions"][0]["ops"][1]["kind"] = "linear"; },
       "functions[0].ops[1].kind: unknown op kind \"linear\" (expected "
       "\"attention\", \"attention_grad_delta\", \"attention_grad_kv\", "
       "\"attention_grad_q\", \"cast\", \"elementwise\", \"matmul\", "
       "\"rms_norm\", \"rms_norm_grad\", \"layer_norm\", "
       "\"layer_norm_grad\", \"sum_rows\", \"sum_squares\", \"embedding\", "
       "\"token_order\", \"embedding_grad\", \"cross_entropy\", "
       "\"cross_entropy_grad\", \"cross_entropy_partial\", "
       "\"cross_entropy_combine\", \"token_mean\", \"token_mean_grad\", "
       "\"split_heads\" or \"merge_heads\")"},
      {"index bound on a float tensor",
       [](Json &m) { m["functions"][6]["inputs"][0]["index_bound"] = 4; },
       "functions[6].inputs[0].index_bound: expected a bound >= 1 on an i32 "
       "or i64 tensor"},
      {"loss op without its ignore index",
       [](Json &m) { m["functions"][6]["ops"][0].erase("ignore_index"); },
       "functions[6].ops[0].ignore_index: missing required field"},
      {"split_heads with one table",
       [](Json &m) {
         m["functions"][5]["ops"][0] = {{"kind", "split_heads"},
                                        {"operands", {"x", "w"}},
                                        {"results", {"y"}}};
       },
       "functions[5].ops[0].operands: expected 1 or 3 for an op of kind "
       "\"split_heads\", got 2"},
      {"matmul operand count",
       [](Json &m) {
         m["functions"][4]["ops"][0]["operands"].push_back("x");
         m["functions"][4]["ops"][0]["operands"].push_back("x");
       },
       "functions[4].ops[0].operands: expected 2 or 3 for an op of kind "
       "\"matmul\", got 4"},
      {"rms_norm with a negative epsilon",
       [](Json &m) { m["functions"][5]["ops"][0]["epsilon"] = -1.0; },
       "functions[5].ops[0].epsilon: must be >= 0, got -1.000000"},
      {"rms_norm result count",
       [](Json &m) { m["functions"][5]["ops"][0]["results"].erase(1); },
       "functions[5].ops[0].results: expected 2 for an op of kind "
       "\"rms_norm\", got 1"},
      {"library routine on the host",
       [](Json &m) {
         m["functions"][4]["kernels"][0]["library"] = "cublaslt_matmul";
       },
       "functions[4].kernels[0].library: host kernels have no library "
       "routines"},
      {"unknown library routine",
       [](Json &m) { m["functions"][4]["kernels"][1]["library"] = "gemm"; },
       "functions[4].kernels[1].library: unknown library routine \"gemm\" "
       "(expected \"cublaslt_matmul\")"},
      {"library kernel with code",
       [](Json &m) { m["functions"][4]["kernels"][1]["blob"] = "cubin"; },
       "functions[4].kernels[1]: a library kernel has an empty blob and "
       "entry, no grid, block [1, 1, 1], no shared memory and no tensor maps"},
      {"library kernel without its config",
       [](Json &m) {
         m["functions"][4]["kernels"][1]["config"].erase("transpose_b");
       },
       "functions[4].kernels[1].config.transpose_b: expected 0 or 1 for "
       "routine \"cublaslt_matmul\""},
      {"library kernel with more config",
       [](Json &m) { m["functions"][4]["kernels"][1]["config"]["tile"] = 8; },
       "functions[4].kernels[1].config: expected only transpose_a, "
       "transpose_b, bias, addend and gelu_tanh"},
      {"library kernel with a gelu_tanh flag of 2",
       [](Json &m) {
         m["functions"][4]["kernels"][1]["config"]["gelu_tanh"] = 2;
       },
       "functions[4].kernels[1].config.gelu_tanh: expected 0 or 1 for "
       "routine \"cublaslt_matmul\""},
      {"library kernel without the op's activation",
       [](Json &m) {
         m["functions"][4]["kernels"][1]["config"]["gelu_tanh"] = 0;
       },
       "functions[4].kernels[1].config.gelu_tanh: is 0 but the matmul op of "
       "step 0 says 1"},
      {"library kernel transposing what its op does not",
       [](Json &m) {
         m["functions"][4]["kernels"][1]["config"]["transpose_a"] = 1;
       },
       "functions[4].kernels[1].config.transpose_a: is 1 but the matmul op "
       "of step 0 says 0"},
      {"library kernel with a bias its op does not add",
       [](Json &m) { m["functions"][4]["kernels"][1]["config"]["bias"] = 1; },
       "functions[4].kernels[1].config.bias: is 1 but the matmul op of step "
       "0 says 0"},
      {"library kernel at a step of no matmul op",
       [](Json &m) {
         m["functions"][4]["steps"][0]["args"] = {"w", "x", "y"};
       },
       "functions[4].kernels[1]: routine \"cublaslt_matmul\" at step 0 "
       "computes no matmul op of the function with the step's arguments"},
      {"unknown matmul activation",
       [](Json &m) { m["functions"][4]["ops"][0]["activation"] = "gelu"; },
       "functions[4].ops[0].activation: expected \"gelu_tanh\" on a linear "
       "layer without an addend, got \"gelu\""},
      {"library kernel with an addend flag of 2",
       [](Json &m) { m["functions"][4]["kernels"][1]["config"]["addend"] = 2; },
       "functions[4].kernels[1].config.addend: expected 0 or 1 for routine "
       "\"cublaslt_matmul\""},
      {"matmul addend without its operand",
       [](Json &m) { m["functions"][4]["ops"][0]["addend"] = true; },
       "functions[4].ops[0].operands: expected 3 or 4 for an op of kind "
       "\"matmul\", got 2"},
      {"library kernel with a bias flag of 2",
       [](Json &m) { m["functions"][4]["kernels"][1]["config"]["bias"] = 2; },
       "functions[4].kernels[1].config.bias: expected 0 or 1 for routine "
       "\"cublaslt_matmul\""},
      {"attention operand count",
       [](Json &m) { m["functions"][0]["ops"][0]["operands"].erase(2); },
       "functions[0].ops[0].operands: expected 3 for an op of kind "
       "\"attention\", got 2"},
      {"cast result count",
       [](Json &m) { m["functions"][0]["ops"][1]["results"].push_back("o"); },
       "functions[0].ops[1].results: expected 1 for an op of kind \"cast\", "
       "got 2"},
      {"gradient kv operand count",
       [](Json &m) { m["functions"][3]["ops"][1]["operands"].erase(5); },
       "functions[3].ops[1].operands: expected 6 or 7 for an op of kind "
       "\"attention_grad_kv\", got 5"},
      {"gradient kv result count",
       [](Json &m) { m["functions"][2]["ops"][1]["results"].push_back(""); },
       "functions[2].ops[1].results: expected 2 or 3 for an op of kind "
       "\"attention_grad_kv\", got 4"},
      {"gradient kv accumulator operand without its result",
       [](Json &m) { m["functions"][2]["ops"][1]["results"].erase(2); },
       "functions[2].ops[1]: an op of kind \"attention_grad_kv\" takes an "
       "accumulator as operand and result together, got 7 operands and 2 "
       "results"},
      {"gradient kv accumulator result without its operand",
       [](Json &m) { m["functions"][2]["ops"][1]["operands"].erase(6); },
       "functions[2].ops[1]: an op of kind \"attention_grad_kv\" takes an "
       "accumulator as operand and result together, got 6 operands and 3 "
       "results"},
      {"gradient delta result count",
       [](Json &m) { m["functions"][3]["ops"][0]["results"].erase(1); },
       "functions[3].ops[0].results: expected 2 for an op of kind "
       "\"attention_grad_delta\", got 1"},
      {"gradient q operand count",
       [](Json &m) { m["functions"][3]["ops"][2]["operands"].push_back("q"); },
       "functions[3].ops[2].operands: expected 6 for an op of kind "
       "\"attention_grad_q\", got 7"},
      {"gradient q result that is no value",
       [](Json &m) { m["functions"][3]["ops"][2]["results"][0] = "dx"; },
       "functions[3].ops[2].results[0]: no value named \"dx\""},
      {"gradient of an unknown function",
       [](Json &m) { m["functions"][2]["gradient_of"] = "attention"; },
       "functions[2].gradient_of: no function named \"attention\" in the "
       "package"},
      {"cotangent map of the wrong length",
       [](Json &m) {
         m["functions"][2]["cotangent_of"] = {0, 1};
       },
       "functions[2].cotangent_of: expected 1 entries, got 2"},
      {"cotangent of an output of another dtype",
       [](Json &m) { m["functions"][2]["cotangent_of"] = {1}; },
       "functions[2].cotangent_of[0]: \"dout\" (bf16 [B, 16, N, 128]) does "
       "not stand for \"lse\" (f32 [B, 16, N])"},
      {"gradient of one input twice",
       [](Json &m) {
         m["functions"][2]["gradient_of_inputs"] = {0, 1, 1};
       },
       "functions[2].gradient_of_inputs[2]: expected a distinct index below "
       "3, got 1"},
      {"elementwise body of the wrong arity",
       [](Json &m) {
         m["functions"][2]["ops"][0] = {
             {"kind", "elementwise"},
             {"operands", {"out", "dout"}},
             {"results", {"dq"}},
             {"bodies",
              {{{"num_args", 1}, {"ops", Json::array()}, {"yield", 0}}}}};
       },
       "functions[2].ops[0].bodies[0].num_args: expected one argument per "
       "operand (2), got 1"},
      {"elementwise without a body per result",
       [](Json &m) {
         m["functions"][2]["ops"][0] = {{"kind", "elementwise"},
                                        {"operands", {"out"}},
                                        {"results", {"dq", "dk"}},
                                        {"bodies", Json::array()}};
       },
       "functions[2].ops[0].bodies: expected one body per result (2), got 0"},
      {"gradient of itself",
       [](Json &m) { m["functions"][2]["gradient_of"] = "attention_bwd"; },
       "functions[2].gradient_of: a function cannot be the gradient of "
       "itself"},
      {"gradient input of another dtype",
       [](Json &m) { m["functions"][2]["inputs"][3]["dtype"] = "f32"; },
       "functions[2].inputs[3]: must match output 0 of \"attention_fwd\" "
       "(bf16 [B, 16, N, 128]), got f32 [B, 16, N, 128]"},
      {"gradient input with another symbol",
       [](Json &m) { m["functions"][2]["inputs"][1]["shape"][2] = "M"; },
       "functions[2].inputs[1]: must match input 1 of \"attention_fwd\" "
       "(bf16 [B, 4, N, 128]), got bf16 [B, 4, M, 128]"},
      {"gradient input with another extent",
       [](Json &m) { m["functions"][3]["inputs"][4]["shape"][1] = 8; },
       "functions[3].inputs[4]: must match output 1 of \"attention_fwd\" "
       "(f32 [B, 16, N]), got f32 [B, 8, N]"},
      {"gradient without the forward's outputs",
       [](Json &m) {
         m["functions"][2]["inputs"].erase(5);
         m["functions"][2]["inputs"].erase(4);
       },
       "functions[2].inputs: the gradient of \"attention_fwd\" takes its 3 "
       "inputs, its 2 outputs, then at most 2 cotangents; got 4 inputs"},
      {"gradient with more cotangents than outputs",
       [](Json &m) {
         for (const char *name : {"dlse", "dx"}) {
           Json extra = m["functions"][2]["inputs"][5];
           extra["name"] = name;
           m["functions"][2]["inputs"].push_back(extra);
         }
       },
       "functions[2].inputs: the gradient of \"attention_fwd\" takes its 3 "
       "inputs, its 2 outputs, then at most 2 cotangents; got 8 inputs"},
      {"gradient with more outputs than inputs",
       [](Json &m) {
         Json extra = m["functions"][3]["outputs"][0];
         extra["name"] = "dx";
         m["functions"][3]["outputs"].push_back(extra);
       },
       "functions[3].outputs: the gradient of \"attention_fwd\" has at most "
       "one output per input of it (3), got 4"},
      {"unknown operand",
       [](Json &m) { m["functions"][0]["ops"][1]["operands"][0] = "t9"; },
       "functions[0].ops[1].operands[0]: no value named \"t9\""},
      {"empty operand",
       [](Json &m) { m["functions"][0]["ops"][0]["operands"][1] = ""; },
       "functions[0].ops[0].operands[1]: no value named \"\""},
      {"unknown result",
       [](Json &m) { m["functions"][0]["ops"][0]["results"][1] = "l"; },
       "functions[0].ops[0].results[1]: no value named \"l\""},
      {"non-finite attention scale",
       [](Json &m) { m["functions"][0]["ops"][0]["scale"] = "nan"; },
       "functions[0].ops[0].scale: must be finite"},
      {"non-finite cast scale",
       [](Json &m) { m["functions"][0]["ops"][1]["scale"] = "-inf"; },
       "functions[0].ops[1].scale: must be finite"},
      {"mask arity",
       [](Json &m) { m["functions"][0]["ops"][0]["mask"]["num_args"] = 5; },
       "functions[0].ops[0].mask.num_args: expected 4 (b, h, q_idx, k_idx), "
       "got 5"},
      {"score arity",
       [](Json &m) { m["functions"][0]["ops"][0]["score"]["num_args"] = 4; },
       "functions[0].ops[0].score.num_args: expected 5 (s, b, h, q_idx, "
       "k_idx), got 4"},
      {"operand out of range",
       [](Json &m) {
         m["functions"][0]["ops"][0]["mask"]["ops"][1]["operands"][0] = 99;
       },
       "functions[0].ops[0].mask: ops[1].operands[0]: value 99 out of range "
       "[0, 9)"},
      {"negative operand",
       [](Json &m) {
         m["functions"][0]["ops"][0]["mask"]["ops"][1]["operands"][1] = -1;
       },
       "functions[0].ops[0].mask: ops[1].operands[1]: value -1 out of range "
       "[0, 9)"},
      {"use before definition",
       [](Json &m) {
         m["functions"][0]["ops"][0]["mask"]["ops"][1]["operands"][1] = 5;
       },
       "functions[0].ops[0].mask: ops[1].operands[1]: value 5 is not "
       "defined before use (op 1 defines value 5)"},
      {"yield out of range",
       [](Json &m) { m["functions"][0]["ops"][0]["score"]["yield"] = 12; },
       "functions[0].ops[0].score: yield: value 12 out of range [0, 12)"},
      {"empty op name",
       [](Json &m) {
         m["functions"][0]["ops"][0]["score"]["ops"][2]["name"] = "";
       },
       "functions[0].ops[0].score: ops[2].name: must not be empty"},
      {"fractional integer constant",
       [](Json &m) {
         m["functions"][0]["ops"][0]["mask"]["ops"][0]["value"] = 4.5;
       },
       "functions[0].ops[0].mask.ops[0].value: expected an integer, got "
       "number"},
      {"integer constant beyond its type",
       [](Json &m) {
         m["functions"][0]["ops"][0]["mask"]["ops"][2]["type"] = "i8";
         m["functions"][0]["ops"][0]["mask"]["ops"][2]["value"] = 128;
       },
       "functions[0].ops[0].mask: ops[2].value: 128 is not an i8 constant (its "
       "bits sign-extended, in [-128, 127])"},
      {"i1 true written unsigned",
       [](Json &m) {
         m["functions"][0]["ops"][0]["mask"]["ops"][2]["value"] = 1;
       },
       "functions[0].ops[0].mask: ops[2].value: 1 is not an i1 constant (its "
       "bits sign-extended, in [-1, 0])"},
      {"integer constant beyond int64",
       [](Json &m) {
         m["functions"][0]["ops"][0]["mask"]["ops"][4]["value"] = UINT64_MAX;
       },
       "functions[0].ops[0].mask.ops[4].value: integer out of range"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_CONTAINS(editError(c.edit), c.expected);
  }
}

TEST(LibPackage, AcceptsUnkeptResult) {
  // An attention whose lse nothing keeps.
  std::vector<uint8_t> bytes = withManifest(
      [](Json &m) { m["functions"][0]["ops"][0]["results"][1] = ""; });
  StatusOr<Package> package = parse(bytes.data(), bytes.size(), kOrigin);
  ASSERT_TRUE(package.isOk()) << package.status().message();
  EXPECT_EQ(package->functions[0].ops[0].results[1], "");
}

// An op on its own: its kind's counts and spec, not the values it names
// (no function says which exist).
TEST(LibPackage, VerifyOpFormChecksTheKindsTable) {
  EXPECT_TRUE(
      verifyOpForm(OpSpec{"cast", {"x"}, {"y"}, {}, CastSpec{2}}).isOk());
  Status counts =
      verifyOpForm(OpSpec{"cast", {"x", "z"}, {"y"}, {}, CastSpec{2}});
  EXPECT_EQ(counts.message(),
            "operands: expected 1 for an op of kind \"cast\", got 2");
  Status spec = verifyOpForm(OpSpec{"cast", {"x"}, {"y"}, {}, {}});
  EXPECT_EQ(spec.message(),
            "an op of kind \"cast\" needs the spec of its kind and no other");
  Status scale =
      verifyOpForm(OpSpec{"cast", {"x"}, {"y"}, {}, CastSpec{std::nan("")}});
  EXPECT_EQ(scale.message().rfind("scale: ", 0), 0u) << scale.message();
}

/// Invariants that only a package built in C++ can break: the JSON form has
/// no way to say these.
TEST(LibPackage, VerifyChecksWhatJsonCannotSay) {
  Package package = makePackage();
  package.functions[0].ops[0].cast = CastSpec{2};
  EXPECT_CONTAINS(verify(package).message(),
                  "functions[0].ops[0]: an op of kind \"attention\" needs the "
                  "spec of its kind and no other");
  package = makePackage();
  package.functions[0].ops[1].cast.reset();
  EXPECT_CONTAINS(verify(package).message(),
                  "functions[0].ops[1]: an op of kind \"cast\" needs the spec "
                  "of its kind and no other");
  package = makePackage();
  package.functions[2].ops[0].attention = attentionSpec();
  EXPECT_CONTAINS(verify(package).message(),
                  "functions[2].ops[0]: an op of kind \"attention_grad_delta\" "
                  "takes no spec");
  package = makePackage();
  package.functions[3].ops[2].attention.reset();
  EXPECT_CONTAINS(verify(package).message(),
                  "functions[3].ops[2]: an op of kind \"attention_grad_q\" "
                  "needs the spec of its kind and no other");
  // Which of value and intValue a constant uses follows from its type.
  package = makePackage();
  package.functions[0].ops[0].attention->mask->ops[0].value = 4;
  EXPECT_CONTAINS(verify(package).message(),
                  "functions[0].ops[0].mask: ops[0].value: must be 0 for an op "
                  "of type index (integer constants are in intValue)");
  package = makePackage();
  package.functions[0].ops[0].attention->score->ops[0].intValue = 30;
  // Paths name the JSON key, "value", which both members are written as.
  EXPECT_CONTAINS(
      verify(package).message(),
      "functions[0].ops[0].score: ops[0].value: intValue must be 0 for an "
      "op of type f32 (float constants are in value)");
}

/// A call would return an output no step writes as it was: verify rejects
/// it, also for a function without steps (which runsOn every target).
TEST(LibPackage, RejectsOutputsNoStepWrites) {
  Package package = makePackage();
  package.functions[0].steps[1].args[1] = "t0";
  EXPECT_EQ(verify(package).message(),
            "functions[0].outputs[0]: output \"o\" is not an argument of any "
            "step, so nothing writes it");
  package = makePackage();
  package.functions[1].steps.clear();
  package.functions[1].kernels.clear();
  EXPECT_EQ(verify(package).message(),
            "functions[1].outputs[0]: output \"y\" is not an argument of any "
            "step, so nothing writes it");
  // Nor does a manifest get past the reader with one.
  EXPECT_CONTAINS(editError([](Json &m) {
                    m["functions"][0]["steps"][0]["args"][4] = "q";
                  }),
                  "invalid manifest: functions[0].outputs[1]: output \"lse\" "
                  "is not an argument of any step, so nothing writes it");
  // Without outputs, a function needs no steps.
  package = makePackage();
  package.functions[1].outputs.clear();
  package.functions[1].steps.clear();
  package.functions[1].kernels.clear();
  EXPECT_TRUE(verify(package).isOk()) << verify(package).message();
}

/// A concurrent step runs beside the step before it: verify accepts the
/// pair only where neither writes what the other touches, as the ops say.
TEST(LibPackage, RejectsConcurrentStepsThatMayRace) {
  auto withConcurrent = [](size_t function, size_t step) {
    Package package = makePackage();
    package.functions[function].steps[step].concurrent = true;
    return package;
  };
  EXPECT_EQ(verify(withConcurrent(0, 0)).message(),
            "functions[0].steps[0].concurrent: the first step has no step "
            "before it to run beside");
  // The cast reads t0, which attention writes.
  EXPECT_EQ(verify(withConcurrent(0, 1)).message(),
            "functions[0].steps[1].concurrent: this step and step 0 both "
            "touch \"t0\", which one of them writes: they cannot run at the "
            "same time");
  // dK/dV's kernel reads delta, which the step before it writes.
  EXPECT_EQ(verify(withConcurrent(3, 1)).message(),
            "functions[3].steps[1].concurrent: this step and step 0 both "
            "touch \"delta\", which one of them writes: they cannot run at "
            "the same time");
  // Rows of one output: apart they may race no more, overlapping they do.
  Package package = makePackage();
  package.functions[8].views[3].begin = 16;
  EXPECT_EQ(verify(package).message(),
            "functions[8].steps[1].concurrent: this step and step 0 both "
            "touch \"z1\", which one of them writes: they cannot run at the "
            "same time");
  // Pairs only: a third step may not join them.
  package = makePackage();
  package.functions[8].steps.push_back(package.functions[8].steps[1]);
  EXPECT_EQ(verify(package).message(),
            "functions[8].steps[2].concurrent: step 1 already runs beside the "
            "step before it: a step runs beside one other at most");
  // What a step writes is its op's results: without an op it is unknown.
  package = makePackage();
  package.functions[8].steps[1].args = {"w1", "z1", "w0"};
  EXPECT_EQ(verify(package).message(),
            "functions[8].steps[1].concurrent: this step computes no op of "
            "the function, so what it writes is unknown");
  // The flag survives the manifest, and a manifest cannot smuggle in a
  // pair that races.
  EXPECT_CONTAINS(editError([](Json &m) {
                    m["functions"][0]["steps"][1]["concurrent"] = true;
                  }),
                  "invalid manifest: functions[0].steps[1].concurrent: this "
                  "step and step 0 both touch \"t0\"");
}

/// Buffers of one slot share their bytes: verify rejects a slot whose
/// buffers are live at the same time, which would race on them.
TEST(LibPackage, RejectsSlotsSharedByLiveBuffers) {
  Package package = makePackage();
  // delta lives over steps 0-1, dq_acc1 over 1-2.
  package.functions[2].buffers[2].slot = 0;
  EXPECT_EQ(verify(package).message(),
            "functions[2].buffers[2].slot: buffer \"dq_acc1\" shares slot 0 "
            "with buffer \"delta\", and both are live at step 1");
}

TEST(LibPackage, FunctionHelpers) {
  Package package = makePackage();
  const Function &fn = package.functions[0];
  EXPECT_EQ(fn.targets(), (std::vector<std::string>{"host", "sm_90a"}));
  EXPECT_TRUE(fn.runsOn("host"));
  EXPECT_TRUE(fn.runsOn("sm_90a"));
  EXPECT_FALSE(fn.runsOn("sm_80"));
  EXPECT_EQ(fn.findKernel("cast", "host")->entry, "cast_host");
  EXPECT_EQ(fn.findKernel("cast", "sm_80"), nullptr);
  EXPECT_EQ(fn.findKernel("relu", "host"), nullptr);
  EXPECT_EQ(fn.findValue("q"), &fn.inputs[0]);
  EXPECT_EQ(fn.findValue("lse"), &fn.outputs[1]);
  EXPECT_EQ(fn.findValue("t0"), &fn.buffers[0].tensor);
  EXPECT_EQ(fn.findValue("cast"), nullptr);
  // Nothing to launch runs anywhere.
  Function empty;
  EXPECT_TRUE(empty.runsOn("host"));
  EXPECT_TRUE(empty.targets().empty());
}

TEST(LibPackage, VerifyAcceptsValidAndSerializeRejectsInvalid) {
  Package package = makePackage();
  EXPECT_TRUE(verify(package).isOk()) << verify(package).message();
  package.functions[0].kernels[0].blob = "gone";
  Status status = verify(package);
  EXPECT_CONTAINS(status.message(),
                  "functions[0].kernels[0].blob: no blob named \"gone\"");
  StatusOr<std::vector<uint8_t>> bytes = serialize(package);
  ASSERT_FALSE(bytes.isOk());
  EXPECT_CONTAINS(bytes.status().message(),
                  "cannot serialize: invalid package: functions[0]");

  package = makePackage();
  package.schemaVersion = 3;
  EXPECT_CONTAINS(verify(package).message(),
                  "schema_version: version 3 is not supported");
  package = makePackage();
  package.functions[0].kernels[0].grid[1][0].divisor = 2; // on a constant
  EXPECT_CONTAINS(verify(package).message(),
                  "a constant grid factor takes no divisor");
  package = makePackage();
  package.producer = "\xff\xfe"; // not UTF-8: JSON cannot carry it
  EXPECT_CONTAINS(serialize(package).status().message(), "cannot serialize");
  EXPECT_FALSE(manifestJson(package).empty());
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

class LibPackageFile : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "attnc-package-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }

  /// Names in the directory `path`.
  std::set<std::string> list(const std::string &path) {
    std::set<std::string> names;
    for (const auto &entry : std::filesystem::directory_iterator(path))
      names.insert(entry.path().filename().string());
    return names;
  }

  std::string readText(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  std::string dir;
};

TEST_F(LibPackageFile, WritesAndReadsBack) {
  std::string path = dir + "/block.attnpkg";
  Status status = writeFile(makePackage(), path);
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(list(dir), std::set<std::string>{"block.attnpkg"});
  StatusOr<Package> package = readFile(path);
  ASSERT_TRUE(package.isOk()) << package.status().message();
  EXPECT_EQ(*package, makePackage());
  // Overwriting an existing package works too.
  Package other = makePackage();
  other.producer = "second";
  ASSERT_TRUE(writeFile(other, path).isOk());
  EXPECT_EQ(readFile(path)->producer, "second");
}

TEST_F(LibPackageFile, ReadFileNamesThePath) {
  StatusOr<Package> package = readFile(dir + "/missing.attnpkg");
  ASSERT_FALSE(package.isOk());
  EXPECT_EQ(package.status().message(),
            dir + "/missing.attnpkg: cannot open: No such file or directory");
  std::ofstream(dir + "/junk.attnpkg") << "junk";
  EXPECT_CONTAINS(readFile(dir + "/junk.attnpkg").status().message(),
                  dir + "/junk.attnpkg: not an attnc package");
}

TEST_F(LibPackageFile, ReadsOnlyRegularFiles) {
  // A FIFO would block the reader and /dev/zero never ends: both are
  // refused before a byte is read, as is a directory.
  std::string fifo = dir + "/pipe.attnpkg";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string &path : {fifo, std::string("/dev/zero"), dir}) {
    StatusOr<Package> package = readFile(path);
    ASSERT_FALSE(package.isOk()) << path;
    EXPECT_CONTAINS(package.status().message(), path);
  }
  EXPECT_CONTAINS(readFile(fifo).status().message(), "not a regular file");
  EXPECT_CONTAINS(readFile("/dev/zero").status().message(),
                  "not a regular file");
}

TEST_F(LibPackageFile, FailedWritesLeaveNothingBehind) {
  Package package = makePackage();
  // The directory does not exist.
  Status status = writeFile(package, dir + "/missing/block.attnpkg");
  EXPECT_FALSE(status.isOk());
  EXPECT_CONTAINS(status.message(),
                  dir + "/missing/block.attnpkg: cannot create");
  // The parent is a regular file.
  std::ofstream(dir + "/file") << "x";
  EXPECT_FALSE(writeFile(package, dir + "/file/block.attnpkg").isOk());
  // The destination is a directory: it is neither replaced nor written.
  ASSERT_EQ(mkdir((dir + "/taken").c_str(), 0755), 0);
  std::ofstream(dir + "/taken/inside") << "keep";
  status = writeFile(package, dir + "/taken");
  EXPECT_FALSE(status.isOk());
  EXPECT_CONTAINS(status.message(), "Is a directory");
  EXPECT_EQ(list(dir), (std::set<std::string>{"file", "taken"}));
  EXPECT_EQ(readText(dir + "/taken/inside"), "keep");
  // An invalid package leaves an existing destination untouched.
  std::ofstream(dir + "/old.attnpkg") << "previous";
  package.functions[0].name = "";
  EXPECT_FALSE(writeFile(package, dir + "/old.attnpkg").isOk());
  EXPECT_EQ(readText(dir + "/old.attnpkg"), "previous");
  EXPECT_EQ(list(dir), (std::set<std::string>{"file", "taken", "old.attnpkg"}));
}

TEST_F(LibPackageFile, WritesThroughSymlinks) {
  // The link stays a link; the file it leads to is replaced by rename (a
  // new inode), never truncated and rewritten in place.
  std::ofstream(dir + "/target.attnpkg") << "old";
  ASSERT_EQ(symlink("target.attnpkg", (dir + "/link.attnpkg").c_str()), 0);
  struct stat before, info;
  ASSERT_EQ(stat((dir + "/target.attnpkg").c_str(), &before), 0);
  ASSERT_TRUE(writeFile(makePackage(), dir + "/link.attnpkg"));
  ASSERT_EQ(lstat((dir + "/link.attnpkg").c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  ASSERT_EQ(stat((dir + "/target.attnpkg").c_str(), &info), 0);
  EXPECT_NE(info.st_ino, before.st_ino);
  EXPECT_TRUE(readFile(dir + "/target.attnpkg").isOk());
  EXPECT_EQ(list(dir),
            (std::set<std::string>{"target.attnpkg", "link.attnpkg"}));
}

TEST_F(LibPackageFile, WritesDevicesInPlace) {
  // /dev/null cannot be replaced by rename: it is written through.
  EXPECT_TRUE(writeFileAtomically({1, 2, 3}, "/dev/null"));
}

TEST_F(LibPackageFile, ReplacesPlainFilesByRename) {
  std::ofstream(dir + "/out.txt") << "previous";
  struct stat before, after;
  ASSERT_EQ(stat((dir + "/out.txt").c_str(), &before), 0);
  ASSERT_TRUE(writeFileAtomically({'n', 'e', 'w'}, dir + "/out.txt"));
  ASSERT_EQ(stat((dir + "/out.txt").c_str(), &after), 0);
  EXPECT_NE(after.st_ino, before.st_ino);
  EXPECT_EQ(readText(dir + "/out.txt"), "new");
  EXPECT_EQ(list(dir), (std::set<std::string>{"out.txt"}));
}

TEST_F(LibPackageFile, UnwritableDirectory) {
  if (geteuid() == 0)
    GTEST_SKIP() << "root writes into read-only directories";
  std::string locked = dir + "/locked";
  ASSERT_EQ(mkdir(locked.c_str(), 0555), 0);
  Status status = writeFile(makePackage(), locked + "/block.attnpkg");
  EXPECT_FALSE(status.isOk());
  EXPECT_CONTAINS(status.message(), "Permission denied");
  EXPECT_TRUE(list(locked).empty());
  chmod(locked.c_str(), 0755);
}

} // namespace
