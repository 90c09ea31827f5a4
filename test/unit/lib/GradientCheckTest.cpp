//===- GradientCheckTest.cpp - Tests for the finite-difference check ------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The elementwise op of the program reference, and the directional
// derivative check: a right gradient function agrees with finite
// differences of its forward function, a wrong one does not.
//
//===----------------------------------------------------------------------===//

#include "lib/reference/GradientCheck.h"

#include "lib/support/Random.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace attnc;
using namespace attnc::ref;

namespace {

pkg::TensorSig sig(std::string name, pkg::DType dtype = pkg::DType::F32) {
  return pkg::TensorSig{
      std::move(name), dtype, {pkg::Dim::named("N"), pkg::Dim::fixed(3)}};
}

pkg::RegionOp op(std::string name, std::vector<int64_t> operands) {
  pkg::RegionOp result;
  result.name = std::move(name);
  result.operands = std::move(operands);
  result.type = "f32";
  return result;
}

/// An elementwise op whose body is `ops` over one argument per operand,
/// yielding the last op's value.
pkg::OpSpec elementwise(std::vector<std::string> operands, std::string result,
                        std::vector<pkg::RegionOp> ops) {
  pkg::Region body;
  body.numArgs = static_cast<int64_t>(operands.size());
  body.ops = std::move(ops);
  body.yield = body.numArgs + static_cast<int64_t>(body.ops.size()) - 1;
  pkg::OpSpec spec{"elementwise", std::move(operands), {std::move(result)}};
  spec.elementwise = pkg::ElementwiseSpec{{std::move(body)}};
  return spec;
}

/// y = x * x * z.
pkg::Function forward() {
  pkg::Function fn;
  fn.name = "f";
  fn.inputs = {sig("x"), sig("z")};
  fn.outputs = {sig("y")};
  fn.ops = {elementwise({"x", "z"}, "y",
                        {op("arith.mulf", {0, 0}), op("arith.mulf", {2, 1})})};
  return fn;
}

/// dx = factor * x * z * dy, dz = x * x * dy: the gradient of `forward`
/// when `factor` is 2.
pkg::Function backward(double factor) {
  pkg::Function fn;
  fn.name = "f_bwd";
  fn.gradientOf = "f";
  fn.inputs = {sig("x"), sig("z"), sig("y"), sig("dy")};
  fn.outputs = {sig("dx"), sig("dz")};
  pkg::RegionOp constant = op("arith.constant", {});
  constant.value = factor;
  fn.ops = {elementwise({"x", "z", "dy"}, "dx",
                        {op("arith.mulf", {0, 1}), op("arith.mulf", {3, 2}),
                         constant, op("arith.mulf", {4, 5})}),
            elementwise({"x", "dy"}, "dz",
                        {op("arith.mulf", {0, 0}), op("arith.mulf", {2, 1})})};
  return fn;
}

ValueData randomInputs(int64_t rows) {
  PortableNormal normal(7);
  ValueData data;
  for (const char *name : {"x", "z", "dy"})
    for (int64_t e = 0; e < rows * 3; ++e)
      data[name].push_back(normal.next());
  return data;
}

TEST(LibGradientCheck, ElementwiseReferenceRoundsOnlyTheResult) {
  pkg::Function fn = forward();
  fn.outputs = {sig("y", pkg::DType::BF16)};
  ValueData inputs = {{"x", {1.0, 3.0, -1.5}}, {"z", {1.0 / 3, 0.1, 2.0}}};
  auto values = evaluateProgram(fn, {{"N", 1}}, inputs);
  ASSERT_TRUE(values) << values.status().message();
  // 1/3 and 0.9 round to bf16 once; 4.5 is exact.
  EXPECT_EQ(values->at("y"),
            (std::vector<double>{0.333984375, 0.8984375, 4.5}));
}

TEST(LibGradientCheck, ElementwiseShapesMustAgree) {
  pkg::Function fn = forward();
  fn.inputs[1].shape[1] = pkg::Dim::fixed(4);
  ValueData inputs = {{"x", std::vector<double>(3)},
                      {"z", std::vector<double>(4)}};
  auto values = evaluateProgram(fn, {{"N", 1}}, inputs);
  ASSERT_FALSE(values);
  EXPECT_EQ(values.status().message(),
            "op 0 (elementwise): operand z has shape [1, 4], result y has "
            "[1, 3]");
}

TEST(LibGradientCheck, RightGradientsMatchDifferences) {
  auto result = checkDirectionalDerivative(forward(), backward(2.0),
                                           {{"N", 50}}, randomInputs(50), 1);
  ASSERT_TRUE(result) << result.status().message();
  EXPECT_LT(result->relativeError, 1e-8);
  EXPECT_NE(result->gradients, 0.0);
}

TEST(LibGradientCheck, WrongGradientsDoNot) {
  auto result = checkDirectionalDerivative(forward(), backward(1.0),
                                           {{"N", 50}}, randomInputs(50), 1);
  ASSERT_TRUE(result) << result.status().message();
  EXPECT_GT(result->relativeError, 0.05);
}

// Along a direction where the terms of sum_i <g_i, u_i> nearly cancel, a
// gradient off by 1e-8 of itself differs from the differences by far more
// than 1e-8 of their sum; the error is relative to the terms' size (their
// root sum of squares).
TEST(LibGradientCheck, ErrorIsRelativeToTheTermsNotTheirSum) {
  pkg::Function slightlyOff = backward(2.0 * (1 + 1e-8));
  for (uint64_t seed = 1; seed <= 5000; ++seed) {
    auto result = checkDirectionalDerivative(forward(), slightlyOff, {{"N", 1}},
                                             randomInputs(1), seed);
    ASSERT_TRUE(result) << result.status().message();
    double ofTheSum = std::fabs(result->differences - result->gradients) /
                      std::fabs(result->gradients);
    if (ofTheSum <= 1e-6)
      continue;
    EXPECT_LT(result->relativeError, 1e-7) << "seed " << seed;
    return;
  }
  FAIL() << "no direction of 5000 made the terms cancel";
}

TEST(LibGradientCheck, CotangentMapPicksTheOutput) {
  // A second output that nothing weights: the cotangent stands for y.
  pkg::Function f = forward();
  f.outputs.insert(f.outputs.begin(), sig("x2"));
  f.ops.push_back(elementwise({"x"}, "x2", {op("arith.mulf", {0, 0})}));
  pkg::Function b = backward(2.0);
  b.inputs.insert(b.inputs.begin() + 2, sig("x2"));
  b.cotangentOf = {1};
  auto result =
      checkDirectionalDerivative(f, b, {{"N", 20}}, randomInputs(20), 3);
  ASSERT_TRUE(result) << result.status().message();
  EXPECT_LT(result->relativeError, 1e-8);
}

TEST(LibGradientCheck, RequiresTheForwardFunction) {
  pkg::Function b = backward(2.0);
  b.gradientOf = "g";
  auto result =
      checkDirectionalDerivative(forward(), b, {{"N", 2}}, randomInputs(2), 1);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.status().message(),
            "\"f_bwd\" is not the gradient of \"f\"");
}

} // namespace
