//===- ProgramTest.cpp - Tests for the fp64 program reference -------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Programs of attention and cast ops against direct calls of the attention
// reference, with every intermediate rounded to its buffer's dtype; then
// every error the evaluator reports.
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Program.h"

#include "lib/dtype/DType.h"
#include "lib/reference/Attention.h"
#include "lib/reference/AttentionGrad.h"

#include <gtest/gtest.h>

#include <random>

using namespace attnc;
using namespace attnc::ref;

namespace {

constexpr int64_t kB = 2, kHq = 4, kHkv = 2, kN = 5, kM = 7, kD = 8;

pkg::TensorSig sig(std::string name, pkg::DType dtype,
                   std::vector<int64_t> extents) {
  std::vector<pkg::Dim> shape;
  for (int64_t extent : extents)
    shape.push_back(pkg::Dim::fixed(extent));
  return pkg::TensorSig{std::move(name), dtype, std::move(shape)};
}

pkg::OpSpec attention(std::vector<std::string> operands,
                      std::vector<std::string> results, double scale = 0.5) {
  pkg::AttentionSpec spec;
  spec.scale = scale;
  return pkg::OpSpec{
      "attention", std::move(operands), std::move(results), spec, {}};
}

pkg::OpSpec cast(std::string from, std::string to, double scale) {
  return pkg::OpSpec{
      "cast", {std::move(from)}, {std::move(to)}, {}, pkg::CastSpec{scale}};
}

/// A function with f32 inputs q [B, Hq, N, D], k and v [B, Hkv, M, D], all
/// static; the caller adds outputs, buffers, ops and any symbols.
struct Program {
  pkg::Function function;
  SymbolValues symbols;
  ValueData inputs;

  Program() {
    function.name = "program";
    add(function.inputs, "q", pkg::DType::F32, {kB, kHq, kN, kD});
    add(function.inputs, "k", pkg::DType::F32, {kB, kHkv, kM, kD});
    add(function.inputs, "v", pkg::DType::F32, {kB, kHkv, kM, kD});
    std::mt19937_64 rng(3);
    std::normal_distribution<double> normal;
    for (const pkg::TensorSig &input : function.inputs)
      for (double &x : inputs[input.name])
        x = static_cast<float>(normal(rng));
  }

  /// Adds a value of `dtype` and `extents` to `list` (sized in `inputs`
  /// when it is an input).
  void add(std::vector<pkg::TensorSig> &list, std::string name,
           pkg::DType dtype, std::vector<int64_t> extents) {
    list.push_back(sig(name, dtype, extents));
    if (&list == &function.inputs)
      inputs[name].resize(product(extents));
  }
  void addBuffer(std::string name, pkg::DType dtype,
                 std::vector<int64_t> extents) {
    std::vector<pkg::TensorSig> one;
    add(one, std::move(name), dtype, std::move(extents));
    function.buffers.push_back(pkg::Buffer{one[0], 0});
  }

  StatusOr<ValueData> run() const {
    return evaluateProgram(function, symbols, inputs);
  }
  std::string error() const {
    StatusOr<ValueData> values = run();
    EXPECT_FALSE(values.isOk());
    return values.isOk() ? "" : values.status().message();
  }

  static size_t product(const std::vector<int64_t> &extents) {
    size_t n = 1;
    for (int64_t extent : extents)
      n *= static_cast<size_t>(extent);
    return n;
  }
};

/// Attention of `q` over the program's k and v with scale 0.5.
void directAttention(const Program &p, const std::vector<double> &q,
                     std::vector<double> &out, std::vector<double> &lse) {
  pkg::AttentionSpec spec;
  spec.scale = 0.5;
  out.assign(kB * kHq * kN * kD, 0);
  lse.assign(kB * kHq * kN, 0);
  ASSERT_TRUE(attentionForward(spec, {kB, kHq, kHkv, kN, kM, kD, kD}, q.data(),
                               p.inputs.at("k").data(), p.inputs.at("v").data(),
                               out.data(), lse.data()));
}

TEST(LibProgram, AttentionThenScaledCastIntoBF16) {
  Program p;
  p.add(p.function.outputs, "o", pkg::DType::BF16, {kB, kHq, kN, kD});
  p.addBuffer("t0", pkg::DType::F32, {kB, kHq, kN, kD});
  p.function.ops = {attention({"q", "k", "v"}, {"t0", ""}), cast("t0", "o", 3)};
  StatusOr<ValueData> values = p.run();
  ASSERT_TRUE(values.isOk()) << values.status().message();
  EXPECT_FALSE(values->count("")) << "an unkept result is not a value";

  std::vector<double> out, lse;
  directAttention(p, p.inputs.at("q"), out, lse);
  const std::vector<double> &t0 = values->at("t0"), &o = values->at("o");
  ASSERT_EQ(o.size(), out.size());
  int changedByRounding = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    // t0 is f32; o is 3 * t0 rounded to bf16.
    EXPECT_EQ(t0[i], static_cast<float>(out[i])) << i;
    float scaled = static_cast<float>(3 * t0[i]);
    EXPECT_EQ(o[i], bf16ToFloat(floatToBF16(scaled))) << i;
    changedByRounding += o[i] != 3 * t0[i];
  }
  EXPECT_GT(changedByRounding, 0);
}

TEST(LibProgram, AttentionFeedsAttentionThroughABuffer) {
  Program p;
  p.add(p.function.outputs, "o", pkg::DType::F32, {kB, kHq, kN, kD});
  p.add(p.function.outputs, "lse", pkg::DType::F64, {kB, kHq, kN});
  p.addBuffer("t0", pkg::DType::F32, {kB, kHq, kN, kD});
  p.addBuffer("l0", pkg::DType::F32, {kB, kHq, kN});
  p.function.ops = {attention({"q", "k", "v"}, {"t0", "l0"}),
                    attention({"t0", "k", "v"}, {"o", "lse"})};
  StatusOr<ValueData> values = p.run();
  ASSERT_TRUE(values.isOk()) << values.status().message();

  std::vector<double> t0, l0, out, lse;
  directAttention(p, p.inputs.at("q"), t0, l0);
  for (double &x : t0)
    x = static_cast<float>(x); // the buffer is f32
  directAttention(p, t0, out, lse);
  EXPECT_EQ(values->at("t0"), t0);
  for (double &x : out)
    x = static_cast<float>(x);
  EXPECT_EQ(values->at("o"), out);
  EXPECT_EQ(values->at("lse"), lse); // f64: not rounded
  EXPECT_EQ(values->at("q"), p.inputs.at("q"));
}

/// The gradient of attention over the program's q, k and v: a function
/// taking them, the forward's out and lse (f64, from attentionForward) and
/// dout, returning f32 dq, dk and dv; the caller adds buffers and ops.
struct GradientProgram : Program {
  pkg::AttentionSpec spec;
  std::vector<double> dq, dk, dv; // attentionBackward's

  GradientProgram() {
    spec.scale = 0.5;
    spec.causal = true;
    const AttentionShape shape{kB, kHq, kHkv, kN, kM, kD, kD};
    add(function.inputs, "o", pkg::DType::F64, {kB, kHq, kN, kD});
    add(function.inputs, "lse", pkg::DType::F64, {kB, kHq, kN});
    add(function.inputs, "dout", pkg::DType::F32, {kB, kHq, kN, kD});
    std::mt19937_64 rng(5);
    std::normal_distribution<double> normal;
    for (double &x : inputs["dout"])
      x = static_cast<float>(normal(rng));
    const double *q = inputs["q"].data(), *k = inputs["k"].data(),
                 *v = inputs["v"].data();
    EXPECT_TRUE(attentionForward(spec, shape, q, k, v, inputs["o"].data(),
                                 inputs["lse"].data()));
    add(function.outputs, "dq", pkg::DType::F32, {kB, kHq, kN, kD});
    add(function.outputs, "dk", pkg::DType::F32, {kB, kHkv, kM, kD});
    add(function.outputs, "dv", pkg::DType::F32, {kB, kHkv, kM, kD});
    dq.resize(inputs["q"].size());
    dk.resize(inputs["k"].size());
    dv.resize(inputs["v"].size());
    EXPECT_TRUE(attentionBackward(spec, shape, q, k, v, inputs["dout"].data(),
                                  dq.data(), dk.data(), dv.data()));
    addBuffer("delta", pkg::DType::F64, {kB, kHq, kN});
  }

  pkg::OpSpec op(std::string kind, std::vector<std::string> operands,
                 std::vector<std::string> results) const {
    return pkg::OpSpec{
        std::move(kind), std::move(operands), std::move(results), spec, {}};
  }

  /// The program's dq, dk and dv are attentionBackward's, rounded to f32.
  void expectBackwardsGradients() const {
    StatusOr<ValueData> values = run();
    ASSERT_TRUE(values.isOk()) << values.status().message();
    for (auto [name, expected] :
         {std::pair{"dq", &dq}, std::pair{"dk", &dk}, std::pair{"dv", &dv}}) {
      std::vector<double> rounded = *expected;
      for (double &x : rounded)
        x = static_cast<float>(x);
      EXPECT_EQ(values->at(name), rounded) << name;
    }
  }
};

const std::vector<std::string> kGradOperands = {"q",   "k",     "v",
                                                "lse", "delta", "dout"};

TEST(LibProgram, GradientWithDqAccumulatedByTheKVOp) {
  GradientProgram p;
  p.addBuffer("dq_acc0", pkg::DType::F32, {kB, kHq, kN, kD});
  p.addBuffer("dq_acc1", pkg::DType::F32, {kB, kHq, kN, kD});
  std::vector<std::string> operands = kGradOperands;
  operands.push_back("dq_acc0");
  p.function.ops = {
      pkg::OpSpec{
          "attention_grad_delta", {"o", "dout"}, {"delta", "dq_acc0"}, {}, {}},
      p.op("attention_grad_kv", operands, {"dk", "dv", "dq_acc1"}),
      cast("dq_acc1", "dq", 1)};
  p.expectBackwardsGradients();
  // The accumulator starts at zero; delta is the row sum of o * dout.
  StatusOr<ValueData> values = p.run();
  ASSERT_TRUE(values.isOk());
  EXPECT_EQ(values->at("dq_acc0"), std::vector<double>(kB * kHq * kN * kD, 0));
  const std::vector<double> &o = p.inputs.at("o"), &dout = p.inputs.at("dout");
  double rowSum = 0;
  for (int64_t d = 0; d < kD; ++d)
    rowSum += o[kD + d] * dout[kD + d];
  EXPECT_NEAR(values->at("delta")[1], rowSum, 1e-15);
}

TEST(LibProgram, GradientWithDqByItsOwnOp) {
  GradientProgram p;
  p.function.ops = {
      pkg::OpSpec{"attention_grad_delta", {"o", "dout"}, {"delta", ""}, {}, {}},
      p.op("attention_grad_kv", kGradOperands, {"dk", "dv"}),
      p.op("attention_grad_q", kGradOperands, {"dq"})};
  p.expectBackwardsGradients();
}

TEST(LibProgram, RejectsGradientOpsThatDoNotFit) {
  GradientProgram p;
  p.function.ops = {
      pkg::OpSpec{"attention_grad_delta", {"o", "lse"}, {"delta", ""}, {}, {}}};
  EXPECT_EQ(p.error(), "op 0 (attention_grad_delta): shapes o [2, 4, 5, 8], "
                       "lse [2, 4, 5] -> delta [2, 4, 5], _ do not fit "
                       "[B, Hq, Nq, Dv], [B, Hq, Nq, Dv] -> [B, Hq, Nq], "
                       "[B, Hq, Nq, D]");
  std::vector<std::string> swapped = kGradOperands;
  std::swap(swapped[1], swapped[2]); // k and v have one shape: still fits
  swapped[3] = "o";
  p.function.ops = {p.op("attention_grad_q", swapped, {"dq"})};
  EXPECT_EQ(p.error(),
            "op 0 (attention_grad_q): shapes q [2, 4, 5, 8], v [2, 2, 7, 8], "
            "k [2, 2, 7, 8], o [2, 4, 5, 8], delta [2, 4, 5], dout [2, 4, 5, "
            "8] -> dq [2, 4, 5, 8] do not fit [B, Hq, Nq, D], [B, Hkv, Nk, D], "
            "[B, Hkv, Nk, Dv], [B, Hq, Nq], [B, Hq, Nq], [B, Hq, Nq, Dv] -> "
            "[B, Hq, Nq, D]");
  p.function.ops = {p.op("attention_grad_kv", kGradOperands, {"dq", "dv"})};
  EXPECT_EQ(p.error(),
            "op 0 (attention_grad_kv): shapes q [2, 4, 5, 8], k [2, 2, 7, 8], "
            "v [2, 2, 7, 8], lse [2, 4, 5], delta [2, 4, 5], dout [2, 4, 5, 8] "
            "-> dq [2, 4, 5, 8], dv [2, 2, 7, 8] do not fit [B, Hq, Nq, D], "
            "[B, Hkv, Nk, D], [B, Hkv, Nk, Dv], [B, Hq, Nq], [B, Hq, Nq], "
            "[B, Hq, Nq, Dv] -> [B, Hkv, Nk, D], [B, Hkv, Nk, Dv]");
  p.function.ops = {p.op("attention_grad_kv", kGradOperands, {"dk", "dv", ""})};
  EXPECT_EQ(p.error(), "op 0 (attention_grad_kv): an op of kind "
                       "\"attention_grad_kv\" takes an accumulator as operand "
                       "and result together, got 6 operands and 3 results");
  p.function.ops = {
      pkg::OpSpec{"attention_grad_q", kGradOperands, {"dq"}, {}, {}}};
  EXPECT_EQ(p.error(), "op 0 (attention_grad_q): an op of kind "
                       "\"attention_grad_q\" needs the spec of its kind and "
                       "no other");
  p.function.ops = {
      pkg::OpSpec{"attention_grad_delta", {"o"}, {"delta", ""}, {}, {}}};
  EXPECT_EQ(p.error(),
            "op 0 (attention_grad_delta): operands: expected 2 for an op of "
            "kind \"attention_grad_delta\", got 1");
  // The reference's own errors come through, located.
  p.spec.score =
      pkg::Region{5, {pkg::RegionOp{"math.floor", {0}, "f32", "", 0, 0}}, 5};
  p.function.ops = {
      pkg::OpSpec{"attention_grad_delta", {"o", "dout"}, {"delta", ""}, {}, {}},
      p.op("attention_grad_q", kGradOperands, {"dq"})};
  EXPECT_EQ(p.error(), "op 1 (attention_grad_q): score region: op 0 "
                       "(math.floor) is piecewise constant in the score; its "
                       "gradient is not defined");
}

TEST(LibProgram, RoundsIntegerResults) {
  Program p;
  p.add(p.function.inputs, "x", pkg::DType::F32, {4});
  p.add(p.function.outputs, "y", pkg::DType::I32, {4});
  p.inputs["x"] = {1.25, -1.25, 1e12, -0.5};
  p.function.ops = {cast("x", "y", 2)};
  StatusOr<ValueData> values = p.run();
  ASSERT_TRUE(values.isOk()) << values.status().message();
  // To nearest, ties away from zero, saturated (lib/dtype).
  EXPECT_EQ(values->at("y"), (std::vector<double>{3, -3, 2147483647, -1}));
}

TEST(LibProgram, ViewsReadAndWriteRowsInPlace) {
  Program p;
  p.add(p.function.inputs, "x", pkg::DType::F32, {3, 2});
  p.add(p.function.outputs, "y", pkg::DType::F32, {3, 2});
  auto view = [](std::string name, std::string of, int64_t begin,
                 int64_t rows) {
    return pkg::View{sig(std::move(name), pkg::DType::F32, {rows, 2}),
                     std::move(of), begin};
  };
  p.function.views = {view("x_top", "x", 0, 1), view("x_rest", "x", 1, 2),
                      view("y_top", "y", 0, 1), view("y_rest", "y", 1, 2)};
  p.inputs["x"] = {1, 2, 3, 4, 5, 6};
  // The rows in the other order, each scaled differently.
  p.function.ops = {cast("x_rest", "y_rest", 10), cast("x_top", "y_top", -1)};
  StatusOr<ValueData> values = p.run();
  ASSERT_TRUE(values.isOk()) << values.status().message();
  EXPECT_EQ(values->at("y"), (std::vector<double>{-1, -2, 30, 40, 50, 60}));
}

TEST(LibProgram, VocabularyChunksGiveTheWholeCrossEntropy) {
  // Rows of 5 classes in chunks of 3 and 2 (the chunks' logits given as
  // inputs): each chunk's part into rows of the parts, the combine, and
  // the gradient per chunk, against the whole rows.
  constexpr int64_t kRows = 4;
  Program p;
  auto in = [&](std::string name, pkg::DType dtype,
                std::vector<int64_t> extents, std::vector<double> data) {
    p.add(p.function.inputs, name, dtype, std::move(extents));
    p.inputs[name] = std::move(data);
  };
  std::vector<double> x = {0.5, -1, 2, 0.25, 1,  3,   0, -2, 1, 1,
                           -1,  4,  0, 0.5,  -3, 0.1, 2, 2,  0, -1};
  std::vector<double> x0, x1;
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < 5; ++c)
      (c < 3 ? x0 : x1).push_back(x[r * 5 + c]);
  in("x", pkg::DType::F32, {kRows, 5}, x);
  in("x0", pkg::DType::F32, {kRows, 3}, x0);
  in("x1", pkg::DType::F32, {kRows, 2}, x1);
  in("y", pkg::DType::I32, {kRows}, {0, 4, 2, -100});
  in("dl", pkg::DType::F32, {kRows}, {1, 0.5, -2, 3});
  for (const char *name : {"losses", "lse", "whole_losses", "whole_lse"})
    p.add(p.function.outputs, name, pkg::DType::F32, {kRows});
  p.add(p.function.outputs, "dx0", pkg::DType::F32, {kRows, 3});
  p.add(p.function.outputs, "dx1", pkg::DType::F32, {kRows, 2});
  p.add(p.function.outputs, "whole_dx", pkg::DType::F32, {kRows, 5});
  p.addBuffer("parts", pkg::DType::F32, {2, kRows});
  p.addBuffer("targets", pkg::DType::F32, {2, kRows});
  auto part = [](std::string name, std::string of, int64_t row) {
    return pkg::View{sig(std::move(name), pkg::DType::F32, {1, kRows}),
                     std::move(of), row};
  };
  p.function.views = {part("p0", "parts", 0), part("p1", "parts", 1),
                      part("t0", "targets", 0), part("t1", "targets", 1)};
  auto loss = [](std::string kind, std::vector<std::string> operands,
                 std::vector<std::string> results, int64_t offset,
                 std::optional<int64_t> size) {
    pkg::OpSpec op;
    op.kind = std::move(kind);
    op.operands = std::move(operands);
    op.results = std::move(results);
    op.loss = pkg::LossSpec{-100, offset, size};
    return op;
  };
  p.function.ops = {
      loss("cross_entropy_partial", {"x0", "y"}, {"p0", "t0"}, 0, {}),
      loss("cross_entropy_partial", {"x1", "y"}, {"p1", "t1"}, 3, {}),
      loss("cross_entropy_combine", {"parts", "targets", "y"},
           {"losses", "lse"}, 0, 5),
      loss("cross_entropy_grad", {"x0", "y", "lse", "dl"}, {"dx0"}, 0, {}),
      loss("cross_entropy_grad", {"x1", "y", "lse", "dl"}, {"dx1"}, 3, {}),
      loss("cross_entropy", {"x", "y"}, {"whole_losses", "whole_lse"}, 0, {}),
      loss("cross_entropy_grad", {"x", "y", "whole_lse", "dl"}, {"whole_dx"}, 0,
           {})};
  StatusOr<ValueData> values = p.run();
  ASSERT_TRUE(values.isOk()) << values.status().message();
  // Equal up to the f32 roundings of the parts (each value stored is
  // rounded to its dtype).
  for (int64_t r = 0; r < kRows; ++r) {
    EXPECT_NEAR(values->at("losses")[r], values->at("whole_losses")[r], 1e-5);
    EXPECT_NEAR(values->at("lse")[r], values->at("whole_lse")[r], 1e-5);
    for (int64_t c = 0; c < 5; ++c)
      EXPECT_NEAR(c < 3 ? values->at("dx0")[r * 3 + c]
                        : values->at("dx1")[r * 2 + c - 3],
                  values->at("whole_dx")[r * 5 + c], 1e-5);
  }
  EXPECT_EQ(values->at("losses")[3], 0); // the ignored label
  EXPECT_GT(values->at("losses")[1], 0); // a label in the second chunk
}

TEST(LibProgram, RejectsShapesOpsDoNotAccept) {
  Program p;
  p.add(p.function.outputs, "o", pkg::DType::F32, {kB, kHq, kN, kD});
  p.add(p.function.outputs, "lse", pkg::DType::F32, {kB, kHq, kN + 1});
  p.function.ops = {attention({"q", "k", "v"}, {"o", "lse"})};
  EXPECT_EQ(
      p.error(),
      "op 0 (attention): shapes q [2, 4, 5, 8], k [2, 2, 7, 8], v [2, 2, "
      "7, 8] -> o [2, 4, 5, 8], lse [2, 4, 6] do not fit [B, Hq, Nq, D], "
      "[B, Hkv, Nk, D], [B, Hkv, Nk, Dv] -> [B, Hq, Nq, Dv], [B, Hq, Nq]");
  p.function.ops = {attention({"q", "q", "v"}, {"o", ""})};
  EXPECT_EQ(p.error(),
            "op 0 (attention): shapes q [2, 4, 5, 8], q [2, 4, 5, 8], v [2, 2, "
            "7, 8] -> o [2, 4, 5, 8], _ do not fit [B, Hq, Nq, D], [B, Hkv, "
            "Nk, D], [B, Hkv, Nk, Dv] -> [B, Hq, Nq, Dv], [B, Hq, Nq]");
  p.function.ops = {cast("k", "o", 1)};
  EXPECT_EQ(p.error(), "op 0 (cast): operand k has shape [2, 2, 7, 8], result "
                       "o has [2, 4, 5, 8]");
  // The attention reference's own checks come through, located.
  Program odd;
  odd.function.inputs[0].shape[1] = pkg::Dim::fixed(3);
  odd.inputs["q"].resize(kB * 3 * kN * kD);
  odd.add(odd.function.outputs, "o", pkg::DType::F32, {kB, 3, kN, kD});
  odd.function.ops = {attention({"q", "k", "v"}, {"o", ""})};
  EXPECT_EQ(odd.error(), "op 0 (attention): attention shape: headsQ (3) must "
                         "be a multiple of headsKV (2)");
}

TEST(LibProgram, RejectsMalformedPrograms) {
  Program p;
  p.add(p.function.outputs, "o", pkg::DType::F32, {kB, kHq, kN, kD});
  p.addBuffer("t0", pkg::DType::F32, {kB, kHq, kN, kD});

  p.function.ops = {pkg::OpSpec{"relu", {"q"}, {"o"}, {}, {}}};
  EXPECT_EQ(p.error().rfind("op 0 (relu): kind: unknown op kind \"relu\" "
                            "(expected \"attention\", ",
                            0),
            0u)
      << p.error();
  p.function.ops = {pkg::OpSpec{"cast", {"q"}, {"o"}, {}, {}}};
  EXPECT_EQ(p.error(), "op 0 (cast): an op of kind \"cast\" needs the spec "
                       "of its kind and no other");
  p.function.ops = {attention({"q", "k"}, {"o", ""})};
  EXPECT_EQ(p.error(), "op 0 (attention): operands: expected 3 for an op of "
                       "kind \"attention\", got 2");
  p.function.ops = {cast("t0", "o", 1)};
  EXPECT_EQ(p.error(), "op 0 (cast): operand \"t0\" is neither an input nor "
                       "computed by an earlier op");
  p.function.ops = {cast("q", "t1", 1)};
  EXPECT_EQ(p.error(), "op 0 (cast): no shape for value \"t1\"");
  p.function.ops = {cast("q", "t0", 1)};
  EXPECT_EQ(p.error(), "output \"o\" is not computed by any op");
}

TEST(LibProgram, RejectsBadInputs) {
  Program p;
  p.add(p.function.outputs, "o", pkg::DType::F32, {kB, kHq, kN, kD});
  p.function.ops = {cast("q", "o", 1)};
  ASSERT_TRUE(p.run().isOk());

  Program missing = p;
  missing.inputs.erase("v");
  EXPECT_EQ(missing.error(), "no data for input \"v\"");
  Program extra = p;
  extra.inputs["o"] = {};
  EXPECT_EQ(extra.error(), "\"o\" is not an input of 'program'");
  Program short_ = p;
  short_.inputs["k"].pop_back();
  EXPECT_EQ(short_.error(), "input \"k\" has 223 elements, but its shape is "
                            "[2, 2, 7, 8]");
  Program noShape = p;
  noShape.function.inputs[1].shape[2] = pkg::Dim::named("M");
  EXPECT_EQ(noShape.error(), "no shape for value \"k\": symbol M is unbound");
}

TEST(LibProgram, ResolvesShapesFromSymbols) {
  Program p;
  p.function.inputs = {sig("x", pkg::DType::F32, {2})};
  p.function.inputs[0].shape.insert(p.function.inputs[0].shape.begin(),
                                    pkg::Dim::named("N"));
  p.function.outputs = p.function.inputs;
  p.function.outputs[0].name = "y";
  p.function.buffers = {pkg::Buffer{p.function.inputs[0], 0}};
  p.function.buffers[0].tensor.name = "t";
  p.function.ops = {cast("x", "t", 2), cast("t", "y", 3)};
  p.inputs = {{"x", {1, 2, 3, 4, 5, 6}}};
  p.symbols = {{"N", 3}};
  StatusOr<ValueData> values = p.run();
  ASSERT_TRUE(values.isOk()) << values.status().message();
  EXPECT_EQ(values->at("y"), (std::vector<double>{6, 12, 18, 24, 30, 36}));

  // The shape [N, 2] holds 4 elements for N = 2, not the 6 given.
  p.symbols = {{"N", 2}};
  EXPECT_EQ(p.error(), "input \"x\" has 6 elements, but its shape is [2, 2]");
  // A buffer's symbols must be bound too, when an op uses it.
  p.symbols = {{"N", 3}};
  p.function.buffers[0].tensor.shape[1] = pkg::Dim::named("G");
  EXPECT_EQ(p.error(), "op 0 (cast): no shape for value \"t\": symbol G is "
                       "unbound");
}

} // namespace
