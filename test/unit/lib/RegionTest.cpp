//===- RegionTest.cpp - Tests for the region evaluator --------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Region.h"

#include "lib/semantics/RegionOps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace attnc;
using namespace attnc::ref;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Builds a region op by op; `add` returns the new value's number.
class RegionBuilder {
public:
  /// `numArgs` counts the `numCaptures` captures, the last arguments.
  explicit RegionBuilder(int64_t numArgs = 4, int64_t numCaptures = 0) {
    region.numArgs = numArgs;
    region.numCaptures = numCaptures;
  }

  int64_t add(std::string name, std::vector<int64_t> operands, std::string type,
              std::string predicate = "") {
    region.ops.push_back(pkg::RegionOp{std::move(name), std::move(operands),
                                       std::move(type), std::move(predicate), 0,
                                       0});
    return region.numArgs + static_cast<int64_t>(region.ops.size()) - 1;
  }

  /// A constant of `type`: `value` for a float type, else its integer value.
  int64_t constant(double value, const std::string &type) {
    std::optional<sem::ScalarType> scalar = sem::parseScalarType(type);
    if (scalar && !sem::isFloat(*scalar))
      return intConstant(static_cast<int64_t>(value), type);
    region.ops.push_back(
        pkg::RegionOp{"arith.constant", {}, type, "", value, 0});
    return region.numArgs + static_cast<int64_t>(region.ops.size()) - 1;
  }

  int64_t intConstant(int64_t value, const std::string &type) {
    region.ops.push_back(
        pkg::RegionOp{"arith.constant", {}, type, "", 0, value});
    return region.numArgs + static_cast<int64_t>(region.ops.size()) - 1;
  }

  pkg::Region yield(int64_t value) {
    region.yield = value;
    return region;
  }

private:
  pkg::Region region;
};

RegionValue evaluate(const pkg::Region &region, const RegionArgs &args = {}) {
  StatusOr<RegionEvaluator> evaluator = RegionEvaluator::create(region);
  EXPECT_TRUE(evaluator.isOk()) << evaluator.status().message();
  if (!evaluator.isOk())
    return RegionValue();
  StatusOr<RegionValue> value = evaluator->evaluate(args);
  EXPECT_TRUE(value.isOk()) << value.status().message();
  return value.isOk() ? *value : RegionValue();
}

std::string createError(const pkg::Region &region) {
  StatusOr<RegionEvaluator> evaluator = RegionEvaluator::create(region);
  EXPECT_FALSE(evaluator.isOk());
  return evaluator.isOk() ? "" : evaluator.status().message();
}

std::string evaluateError(const pkg::Region &region) {
  StatusOr<RegionEvaluator> evaluator = RegionEvaluator::create(region);
  EXPECT_TRUE(evaluator.isOk()) << evaluator.status().message();
  if (!evaluator.isOk())
    return "";
  StatusOr<RegionValue> value = evaluator->evaluate({});
  EXPECT_FALSE(value.isOk());
  return value.isOk() ? "" : value.status().message();
}

/// `op(a, b)` on constants of `type` (operand type `operandType` if given).
RegionValue binary(const std::string &op, const std::string &type, double a,
                   double b, const std::string &predicate = "",
                   std::string operandType = "") {
  if (operandType.empty())
    operandType = type;
  RegionBuilder builder;
  int64_t x = builder.constant(a, operandType),
          y = builder.constant(b, operandType);
  return evaluate(builder.yield(builder.add(op, {x, y}, type, predicate)));
}

/// `op(a)` on a constant of `operandType`, giving `type`.
RegionValue unary(const std::string &op, const std::string &type, double a,
                  const std::string &operandType) {
  RegionBuilder builder;
  int64_t x = builder.constant(a, operandType);
  return evaluate(builder.yield(builder.add(op, {x}, type)));
}

struct IntCase {
  const char *op;
  const char *type;
  double a, b;
  int64_t expected;
};

TEST(LibRegion, IntegerOpsWrapToTheirWidth) {
  const int64_t i32Min = std::numeric_limits<int32_t>::min();
  const int64_t i32Max = std::numeric_limits<int32_t>::max();
  const IntCase cases[] = {
      {"arith.addi", "i32", 2147483647, 1, i32Min},
      {"arith.addi", "index", 5, 7, 12},
      {"arith.addi", "i16", 32767, 1, -32768},
      {"arith.addi", "i1", -1, -1, 0},
      {"arith.addi", "i64", 9007199254740992, 9007199254740992,
       18014398509481984},
      {"arith.subi", "i32", -2147483648.0, 1, i32Max},
      {"arith.subi", "i8", 3, 5, -2},
      {"arith.muli", "i32", 65536, 65536, 0},
      {"arith.muli", "i32", 65537, 65537, 131073},
      {"arith.muli", "i64", 3, -4, -12},
      {"arith.divsi", "i32", -7, 2, -3},
      {"arith.divui", "i32", -1, 2, i32Max}, // 0xffffffff / 2
      {"arith.remsi", "i32", -7, 2, -1},
      {"arith.remui", "i8", -1, 10, 5}, // 255 % 10
      {"arith.floordivsi", "i32", -7, 2, -4},
      {"arith.floordivsi", "i32", 7, -2, -4},
      {"arith.floordivsi", "i32", 6, 3, 2},
      {"arith.ceildivsi", "i32", 7, 2, 4},
      {"arith.ceildivsi", "i32", -7, 2, -3},
      {"arith.ceildivsi", "index", -7, -2, 4},
      // Dividing by 0, or the smallest value by -1, divides by 1 instead
      // (sem::isIntegerDivision).
      {"arith.divsi", "i32", -7, 0, -7},
      {"arith.divsi", "i32", -2147483648.0, -1, i32Min},
      {"arith.remsi", "i32", -7, 0, 0},
      {"arith.remsi", "i32", -2147483648.0, -1, 0},
      {"arith.divui", "i8", -1, 0, -1}, // 255 / 0 = 255
      {"arith.remui", "index", 5, 0, 0},
      {"arith.floordivsi", "i32", -2147483648.0, -1, i32Min},
      {"arith.ceildivsi", "i32", 7, 0, 7},
      {"arith.andi", "i32", 12, 10, 8},
      {"arith.ori", "i32", 12, 10, 14},
      {"arith.xori", "i32", 12, 10, 6},
      {"arith.xori", "i1", -1, -1, 0},
      {"arith.shli", "i8", 1, 7, -128},
      {"arith.shli", "i32", 3, 31, i32Min},
      {"arith.shrsi", "i8", -128, 7, -1},
      {"arith.shrui", "i8", -128, 7, 1},
      {"arith.shrui", "i64", -1, 60, 15},
      // Shifting by the width or more shifts every bit out (sem::isShift).
      {"arith.shli", "i32", 1, 32, 0},
      {"arith.shli", "index", 1, 64, 0},
      {"arith.shrsi", "i8", -100, 8, -1},
      {"arith.shrsi", "i8", 100, 9, 0},
      {"arith.shrui", "i8", -1, 100, 0},
      {"arith.shrui", "i16", -1, -1, 0}, // the amount is unsigned: 65535
      {"arith.maxsi", "i32", -1, 1, 1},
      {"arith.minsi", "i32", -1, 1, -1},
      {"arith.maxui", "i32", -1, 1, -1}, // 0xffffffff is the larger
      {"arith.minui", "i32", -1, 1, 1},
  };
  for (const IntCase &c : cases) {
    RegionValue value = binary(c.op, c.type, c.a, c.b);
    EXPECT_FALSE(value.isFloat);
    EXPECT_EQ(value.intValue, c.expected)
        << c.op << " : " << c.type << " (" << c.a << ", " << c.b << ")";
  }
  EXPECT_EQ(unary("math.absi", "i32", -5, "i32").intValue, 5);
  EXPECT_EQ(unary("math.absi", "i32", -2147483648.0, "i32").intValue, i32Min);
  // i1 true is written -1 (sign-extended) and computes as 1.
  RegionBuilder i1;
  EXPECT_EQ(evaluate(i1.yield(i1.constant(-1, "i1"))).intValue, 1);
  // i64 constants are exact beyond 2^53.
  RegionBuilder big;
  int64_t x = big.intConstant(9007199254740993, "i64");
  EXPECT_EQ(evaluate(big.yield(big.add("arith.addi",
                                       {x, big.intConstant(2, "i64")}, "i64")))
                .intValue,
            9007199254740995);
}

TEST(LibRegion, IntegerComparisons) {
  // -1 and 1 as i32: signed -1 < 1, unsigned 0xffffffff > 1.
  const std::pair<const char *, int64_t> cases[] = {
      {"eq", 0},  {"ne", 1},  {"slt", 1}, {"sle", 1}, {"sgt", 0},
      {"sge", 0}, {"ult", 0}, {"ule", 0}, {"ugt", 1}, {"uge", 1},
  };
  for (const auto &[predicate, expected] : cases)
    EXPECT_EQ(binary("arith.cmpi", "i1", -1, 1, predicate, "i32").intValue,
              expected)
        << predicate;
  EXPECT_EQ(binary("arith.cmpi", "i1", 7, 7, "sge", "index").intValue, 1);
  // i1 true is -1 when signed.
  EXPECT_EQ(binary("arith.cmpi", "i1", -1, 0, "slt", "i1").intValue, 1);
}

TEST(LibRegion, FloatComparisons) {
  struct Case {
    const char *predicate;
    int64_t less, equal, unordered; // for (1, 2), (2, 2), (NaN, 2)
  } cases[] = {
      {"false", 0, 0, 0}, {"oeq", 0, 1, 0}, {"ogt", 0, 0, 0}, {"oge", 0, 1, 0},
      {"olt", 1, 0, 0},   {"ole", 1, 1, 0}, {"one", 1, 0, 0}, {"ord", 1, 1, 0},
      {"ueq", 0, 1, 1},   {"ugt", 0, 0, 1}, {"uge", 0, 1, 1}, {"ult", 1, 0, 1},
      {"ule", 1, 1, 1},   {"une", 1, 0, 1}, {"uno", 0, 0, 1}, {"true", 1, 1, 1},
  };
  for (const Case &c : cases) {
    EXPECT_EQ(binary("arith.cmpf", "i1", 1, 2, c.predicate, "f32").intValue,
              c.less)
        << c.predicate;
    EXPECT_EQ(binary("arith.cmpf", "i1", 2, 2, c.predicate, "f64").intValue,
              c.equal)
        << c.predicate;
    EXPECT_EQ(binary("arith.cmpf", "i1", kNaN, 2, c.predicate, "f32").intValue,
              c.unordered)
        << c.predicate;
  }
}

TEST(LibRegion, FloatOps) {
  struct Case {
    const char *op;
    double a, b, expected;
  } binaryCases[] = {
      {"arith.addf", 1.5, 2.25, 3.75}, {"arith.subf", 1.5, 2.25, -0.75},
      {"arith.mulf", 1.5, -2, -3},     {"arith.divf", 1, 3, 1.0 / 3},
      {"arith.remf", 7.5, 2, 1.5},     {"arith.remf", -7.5, 2, -1.5},
      {"arith.maximumf", -1, 3, 3},    {"arith.minimumf", -1, 3, -1},
      {"arith.maxnumf", kNaN, 3, 3},   {"arith.minnumf", 3, kNaN, 3},
      {"math.copysign", 3, -0.0, -3},
  };
  for (const Case &c : binaryCases) {
    RegionValue value = binary(c.op, "f32", c.a, c.b);
    EXPECT_TRUE(value.isFloat);
    EXPECT_EQ(value.floatValue, c.expected) << c.op;
  }
  // Computed in double even when typed f32: 1/3 above is not rounded.
  EXPECT_TRUE(std::isnan(binary("arith.maximumf", "f32", kNaN, 3).floatValue));
  EXPECT_TRUE(std::isnan(binary("arith.minimumf", "f32", 3, kNaN).floatValue));
  EXPECT_FALSE(
      std::signbit(binary("arith.maximumf", "f32", -0.0, 0.0).floatValue));
  EXPECT_TRUE(
      std::signbit(binary("arith.minimumf", "f32", 0.0, -0.0).floatValue));

  struct UnaryCase {
    const char *op;
    double a, expected;
  } unaryCases[] = {
      {"arith.negf", 2, -2},
      {"math.tanh", 0.5, std::tanh(0.5)},
      {"math.exp", 1, std::exp(1.0)},
      {"math.exp2", 10, 1024},
      {"math.log", std::exp(2.0), 2},
      {"math.log2", 1024, 10},
      {"math.absf", -2.5, 2.5},
      {"math.sqrt", 2.25, 1.5},
      {"math.rsqrt", 4, 0.5},
      {"math.expm1", 1e-10, 1.00000000005e-10},
      {"math.log1p", 1e-10, 9.9999999995e-11},
      {"math.erf", 0.5, std::erf(0.5)},
      {"math.sin", 0.5, std::sin(0.5)},
      {"math.cos", 0.5, std::cos(0.5)},
      {"math.atan", 1, std::atan(1.0)},
      {"math.floor", -2.5, -3},
      {"math.ceil", -2.5, -2},
  };
  for (const UnaryCase &c : unaryCases)
    EXPECT_DOUBLE_EQ(unary(c.op, "f32", c.a, "f32").floatValue, c.expected)
        << c.op;

  EXPECT_EQ(binary("math.powf", "f32", 2, 10).floatValue, 1024);
  EXPECT_TRUE(std::isnan(binary("math.powf", "f32", -2, 0.5).floatValue));
  // Float types only differ in width, which a double covers: extf and truncf
  // keep the value, unrounded.
  EXPECT_EQ(unary("arith.extf", "f64", 0.1, "f32").floatValue, 0.1);
  EXPECT_EQ(unary("arith.truncf", "bf16", 0.1, "f32").floatValue, 0.1);

  RegionBuilder fma;
  int64_t a = fma.constant(2, "f64"), b = fma.constant(3, "f64"),
          c = fma.constant(4, "f64");
  EXPECT_EQ(
      evaluate(fma.yield(fma.add("math.fma", {a, b, c}, "f64"))).floatValue,
      10);
}

TEST(LibRegion, Casts) {
  struct Case {
    const char *op;
    const char *type;
    const char *operandType;
    double a;
    int64_t expected;
  } intCases[] = {
      {"arith.index_cast", "index", "i32", -1, -1},
      {"arith.index_cast", "i8", "index", 300, 44},
      {"arith.index_castui", "index", "i32", -1, 4294967295},
      {"arith.extsi", "i32", "i8", -1, -1},
      {"arith.extsi", "i64", "i1", -1, -1},
      {"arith.extui", "i32", "i8", -1, 255},
      {"arith.extui", "i64", "i1", -1, 1},
      {"arith.trunci", "i8", "i32", 300, 44},
      {"arith.trunci", "i1", "i32", 3, 1},
      {"arith.fptosi", "i32", "f32", -3.7, -3},
      {"arith.fptoui", "i8", "f32", 255.9, -1}, // 255 as i8
  };
  for (const Case &c : intCases)
    EXPECT_EQ(unary(c.op, c.type, c.a, c.operandType).intValue, c.expected)
        << c.op << " " << c.operandType << " -> " << c.type;
  EXPECT_EQ(unary("arith.sitofp", "f32", -3, "i32").floatValue, -3.0);
  EXPECT_EQ(unary("arith.uitofp", "f32", -1, "i8").floatValue, 255.0);
  EXPECT_EQ(unary("arith.uitofp", "f64", -1, "index").floatValue, 0x1p64);
}

TEST(LibRegion, SelectAndArguments) {
  // Mask: q_idx >= k_idx ? 10 : 20, as i64.
  RegionBuilder mask;
  int64_t cond = mask.add("arith.cmpi", {2, 3}, "i1", "sge");
  int64_t ten = mask.constant(10, "i64"), twenty = mask.constant(20, "i64");
  pkg::Region region =
      mask.yield(mask.add("arith.select", {cond, ten, twenty}, "i64"));
  EXPECT_EQ(evaluate(region, {0, 0, 0, 5, 3}).intValue, 10);
  EXPECT_EQ(evaluate(region, {0, 0, 0, 3, 5}).intValue, 20);

  // Score: s * h + b, selecting floats.
  RegionBuilder score(5);
  int64_t h = score.add("arith.index_cast", {2}, "i64");
  int64_t hf = score.add("arith.sitofp", {h}, "f32");
  int64_t b = score.add("arith.index_castui", {1}, "i32");
  int64_t bf = score.add("arith.uitofp", {b}, "f32");
  int64_t product = score.add("arith.mulf", {0, hf}, "f32");
  int64_t sum = score.add("arith.addf", {product, bf}, "f32");
  int64_t positive =
      score.add("arith.cmpf", {sum, score.constant(0, "f32")}, "i1", "ogt");
  region = score.yield(score.add(
      "arith.select", {positive, sum, score.constant(-kInf, "f32")}, "f32"));
  StatusOr<RegionEvaluator> evaluator = RegionEvaluator::create(region);
  ASSERT_TRUE(evaluator.isOk()) << evaluator.status().message();
  EXPECT_EQ(evaluator->numArgs(), 5);
  EXPECT_EQ(evaluator->yieldType(), "f32");
  EXPECT_TRUE(evaluator->yieldsFloat());
  EXPECT_EQ(evaluate(region, {1.5, 2, 3, 0, 0}).floatValue, 6.5);
  EXPECT_EQ(evaluate(region, {-1.5, 2, 3, 0, 0}).floatValue, -kInf);
  // Yielding an argument directly.
  RegionBuilder identity;
  EXPECT_EQ(evaluate(identity.yield(3), {0, 0, 0, 0, 42}).intValue, 42);
}

/// Operand and result types that `op`'s signature and width rule accept.
std::pair<std::vector<std::string>, std::string>
typesFor(const sem::RegionOpInfo &op) {
  using S = sem::Signature;
  bool wider = op.widthRule == sem::WidthRule::Wider,
       narrower = op.widthRule == sem::WidthRule::Narrower;
  switch (op.signature) {
  case S::Constant:
    return {{}, "i32"};
  case S::IntElementwise:
    return {std::vector<std::string>(op.numOperands, "i32"), "i32"};
  case S::FloatElementwise:
    return {std::vector<std::string>(op.numOperands, "f64"), "f64"};
  case S::IntCompare:
    return {{"i32", "i32"}, "i1"};
  case S::FloatCompare:
    return {{"f32", "f64"}, "i1"};
  case S::Select:
    return {{"i1", "i32", "i32"}, "i32"};
  case S::IntToInt:
    return {{wider ? "i8" : "i32"}, wider ? "i32" : narrower ? "i8" : "index"};
  case S::IntToFloat:
    return {{"i32"}, "f32"};
  case S::FloatToInt:
    return {{"f32"}, "i32"};
  case S::FloatToFloat:
    return {{narrower ? "f64" : "f32"}, wider ? "f64" : "f32"};
  case S::Extract:
    return {{"i32", "index"}, "i32"};
  }
  return {};
}

/// The sample region of the table walks below: a builder with one capture
/// (a rank-1 tensor.extract reads it as its first operand), and that
/// capture: four i32 elements 0, 1, 2, 3.
struct CaptureSample {
  std::vector<double> data = {0, 1, 2, 3};
  CaptureView view{pkg::DType::I32, {4}, data.data()};
  RegionArgs args() const { return {0, 0, 0, 0, 0, &view}; }
};
constexpr int64_t kCaptureArg = 4;

/// Every op of lib/semantics' table evaluates: none falls through to the
/// evaluator's "unhandled" cases, and no float op gives NaN on tame inputs.
TEST(LibRegion, EveryTableOpEvaluates) {
  for (const sem::RegionOpInfo &info : sem::regionOps()) {
    SCOPED_TRACE(std::string(info.name));
    auto [operandTypes, type] = typesFor(info);
    const double values[] = {0.5, 2, 1};
    const bool extract = info.signature == sem::Signature::Extract;
    RegionBuilder builder(extract ? 5 : 4, extract ? 1 : 0);
    std::vector<int64_t> operands;
    for (size_t i = 0; i < operandTypes.size(); ++i)
      operands.push_back(
          extract && i == 0 ? kCaptureArg
          : operandTypes[i] == "i1"
              ? builder.intConstant(-1, "i1")
              : builder.constant(values[i] * 4, operandTypes[i]));
    bool compare = info.signature == sem::Signature::IntCompare ||
                   info.signature == sem::Signature::FloatCompare;
    std::string predicate =
        !compare ? ""
                 : std::string(info.signature == sem::Signature::IntCompare
                                   ? sem::intPredicates()[0]
                                   : sem::floatPredicates()[1]);
    pkg::Region region =
        info.signature == sem::Signature::Constant
            ? builder.yield(builder.constant(7, type))
            : builder.yield(builder.add(std::string(info.name), operands, type,
                                        predicate));
    RegionValue value = evaluate(region, CaptureSample().args());
    if (value.isFloat)
      EXPECT_FALSE(std::isnan(value.floatValue));
  }
}

/// Every type regions compute in, in ScalarType order.
std::vector<sem::ScalarType> allTypes() {
  std::vector<sem::ScalarType> types;
  for (int i = 0; i <= static_cast<int>(sem::ScalarType::BF16); ++i)
    types.push_back(static_cast<sem::ScalarType>(i));
  return types;
}

/// The predicates `op` takes: every one of a comparison's, else none.
std::vector<std::string> predicatesOf(const sem::RegionOpInfo &op) {
  if (op.signature == sem::Signature::IntCompare)
    return {sem::intPredicates().begin(), sem::intPredicates().end()};
  if (op.signature == sem::Signature::FloatCompare)
    return {sem::floatPredicates().begin(), sem::floatPredicates().end()};
  return {""};
}

/// Every (operand types, result type) that sem::checkRegionOp accepts for
/// `op`, found by trying all of them.
std::vector<std::pair<std::vector<sem::ScalarType>, sem::ScalarType>>
signaturesOf(const sem::RegionOpInfo &op) {
  const std::vector<sem::ScalarType> types = allTypes();
  const std::string predicate = predicatesOf(op)[0];
  std::vector<std::pair<std::vector<sem::ScalarType>, sem::ScalarType>> found;
  // tensor.extract is tried with one index.
  const int arity =
      op.numOperands == sem::kVariadicOperands ? 2 : op.numOperands;
  size_t combinations = 1;
  for (int i = 0; i < arity; ++i)
    combinations *= types.size();
  for (size_t c = 0; c < combinations; ++c) {
    std::vector<sem::ScalarType> operands;
    for (size_t rest = c, i = 0; i < size_t(arity); ++i, rest /= types.size())
      operands.push_back(types[rest % types.size()]);
    for (sem::ScalarType result : types)
      if (sem::checkRegionOp(op, operands, result, predicate))
        found.emplace_back(operands, result);
  }
  return found;
}

/// A constant of `type` that no op finds odd: -1 (true) for i1, 3 for the
/// other integers, 0.75 for floats.
int64_t sampleConstant(RegionBuilder &builder, sem::ScalarType type) {
  std::string name(sem::scalarTypeName(type));
  if (sem::isFloat(type))
    return builder.constant(0.75, name);
  return builder.intConstant(type == sem::ScalarType::I1 ? -1 : 3, name);
}

/// Walks the whole op table (lib/semantics/RegionOps.def) with every type
/// combination and predicate an op accepts: the evaluator must have a case
/// for each, so that a row added without one fails here. Errors for MLIR's
/// undefined behaviour on the sample values (i1 division) are fine.
TEST(LibRegion, EveryRowHasAnEvaluatorCaseForEveryType) {
  for (const sem::RegionOpInfo &info : sem::regionOps()) {
    SCOPED_TRACE(std::string(info.name));
    auto signatures = signaturesOf(info);
    EXPECT_FALSE(signatures.empty()) << "no types are valid for this row";
    for (const auto &[operandTypes, result] : signatures)
      for (const std::string &predicate : predicatesOf(info)) {
        const bool extract = info.signature == sem::Signature::Extract;
        RegionBuilder builder(extract ? 5 : 4, extract ? 1 : 0);
        std::vector<int64_t> operands;
        for (sem::ScalarType type : operandTypes)
          operands.push_back(extract && operands.empty()
                                 ? kCaptureArg
                                 : sampleConstant(builder, type));
        pkg::Region region =
            info.signature == sem::Signature::Constant
                ? builder.yield(sampleConstant(builder, result))
                : builder.yield(builder.add(
                      std::string(info.name), operands,
                      std::string(sem::scalarTypeName(result)), predicate));
        StatusOr<RegionEvaluator> evaluator = RegionEvaluator::create(region);
        ASSERT_TRUE(evaluator.isOk()) << evaluator.status().message();
        CaptureSample capture;
        capture.view.dtype = *pkg::parseDType(sem::scalarTypeName(result));
        StatusOr<RegionValue> value = evaluator->evaluate(capture.args());
        if (!value.isOk())
          EXPECT_EQ(value.status().message().find("unhandled"),
                    std::string::npos)
              << value.status().message();
      }
  }
}

/// The gradient column agrees with the signature column: only float results
/// of float operands carry a tangent, select passes its operands' along,
/// and what is piecewise constant in a float (float-to-int, floor, ceil) is
/// blocked rather than silently zero.
TEST(LibRegion, GradRuleFollowsTheSignature) {
  using S = sem::Signature;
  using G = sem::GradRule;
  for (const sem::RegionOpInfo &info : sem::regionOps()) {
    SCOPED_TRACE(std::string(info.name));
    switch (info.signature) {
    case S::Select:
      EXPECT_EQ(info.grad, G::Select);
      break;
    case S::FloatToInt:
      EXPECT_EQ(info.grad, G::Blocked);
      break;
    case S::FloatElementwise:
    case S::FloatToFloat:
      EXPECT_TRUE(info.grad == G::Smooth || info.grad == G::Blocked);
      break;
    default:
      EXPECT_EQ(info.grad, G::NoTangent);
    }
  }
  for (const char *name : {"math.floor", "math.ceil"})
    EXPECT_EQ(sem::findRegionOp(name)->grad, G::Blocked) << name;
  for (const char *name : {"math.tanh", "arith.truncf", "math.copysign"})
    EXPECT_EQ(sem::findRegionOp(name)->grad, G::Smooth) << name;
}

TEST(LibRegion, RejectsMalformedRegions) {
  RegionBuilder unknown;
  EXPECT_EQ(createError(unknown.yield(unknown.add("arith.foo", {2, 3}, "i1"))),
            "op 0 (arith.foo): unknown op");
  RegionBuilder count;
  EXPECT_EQ(createError(count.yield(count.add("arith.addi", {2}, "index"))),
            "op 0 (arith.addi): expects 2 operands, got 1");
  RegionBuilder type;
  type.constant(1, "index");
  EXPECT_EQ(createError(type.yield(type.add("arith.addi", {2, 4}, "f128"))),
            "op 1 (arith.addi): unknown type \"f128\"");
  RegionBuilder mixed;
  EXPECT_EQ(createError(mixed.yield(mixed.add(
                "arith.addi", {2, mixed.constant(1, "i32")}, "index"))),
            "op 1 (arith.addi): operand 1 has type i32, expected index");
  RegionBuilder floatOnInt;
  EXPECT_EQ(createError(
                floatOnInt.yield(floatOnInt.add("arith.addf", {2, 3}, "f32"))),
            "op 0 (arith.addf): operand 0 has type index, expected a float");
  RegionBuilder resultType;
  EXPECT_EQ(createError(resultType.yield(
                resultType.add("arith.cmpi", {2, 3}, "i32", "slt"))),
            "op 0 (arith.cmpi): result type must be i1, got i32");
  RegionBuilder intResult;
  EXPECT_EQ(
      createError(intResult.yield(intResult.add("arith.sitofp", {2}, "i32"))),
      "op 0 (arith.sitofp): result type must be a float, got i32");
  RegionBuilder predicate;
  EXPECT_EQ(createError(predicate.yield(
                predicate.add("arith.cmpi", {2, 3}, "i1", "olt"))),
            "op 0 (arith.cmpi): unknown predicate \"olt\"");
  RegionBuilder stray;
  EXPECT_EQ(
      createError(stray.yield(stray.add("arith.addi", {2, 3}, "index", "eq"))),
      "op 0 (arith.addi): unexpected predicate \"eq\"");
  RegionBuilder narrowing;
  EXPECT_EQ(
      createError(narrowing.yield(narrowing.add("arith.extsi", {2}, "i32"))),
      "op 0 (arith.extsi): result must be wider than the operand");
  // Select takes values of exactly its result type, floats included.
  RegionBuilder selectFloats;
  int64_t yes = selectFloats.intConstant(-1, "i1"),
          half = selectFloats.constant(0.5, "f32"),
          one = selectFloats.constant(1, "f64");
  EXPECT_EQ(createError(selectFloats.yield(
                selectFloats.add("arith.select", {yes, half, one}, "f32"))),
            "op 3 (arith.select): operand 2 has type f64, expected f32");
  RegionBuilder selectCond;
  EXPECT_EQ(createError(selectCond.yield(
                selectCond.add("arith.select", {2, 3, 3}, "index"))),
            "op 0 (arith.select): operand 0 has type index, expected i1");
  // Integer constants are their bits sign-extended (pkg::verifyRegion).
  RegionBuilder unsignedConstant;
  EXPECT_EQ(createError(unsignedConstant.yield(
                unsignedConstant.intConstant(4294967295, "i32"))),
            "ops[0].value: 4294967295 is not an i32 constant (its bits "
            "sign-extended, in [-2147483648, 2147483647])");
  // Structural errors come from pkg::verifyRegion.
  RegionBuilder range;
  EXPECT_EQ(createError(range.yield(range.add("arith.addi", {2, 9}, "index"))),
            "ops[0].operands[1]: value 9 out of range [0, 5)");
  RegionBuilder arity(3);
  EXPECT_EQ(createError(arity.yield(0)),
            "num_args: must be 4 (mask) or 5 (score), got 3");
}

TEST(LibRegion, ReportsUndefinedBehaviour) {
  EXPECT_EQ(evaluateError([] {
              RegionBuilder b;
              return b.yield(
                  b.add("arith.fptosi", {b.constant(300, "f32")}, "i8"));
            }()),
            "op 1 (arith.fptosi): value out of range of the result type");
  EXPECT_EQ(evaluateError([] {
              RegionBuilder b;
              return b.yield(
                  b.add("arith.fptoui", {b.constant(kNaN, "f32")}, "i32"));
            }()),
            "op 1 (arith.fptoui): value out of range of the result type");
}

//===----------------------------------------------------------------------===//
// Derivatives in the score
//===----------------------------------------------------------------------===//

StatusOr<RegionDerivative> differentiate(const pkg::Region &region,
                                         const RegionArgs &args) {
  StatusOr<RegionEvaluator> evaluator = RegionEvaluator::create(region);
  if (!evaluator)
    return evaluator.status();
  return evaluator->evaluateWithDerivative(args);
}

/// The derivative of `region` at `args`, which must succeed.
RegionDerivative derivativeAt(const pkg::Region &region,
                              const RegionArgs &args) {
  StatusOr<RegionDerivative> result = differentiate(region, args);
  EXPECT_TRUE(result.isOk()) << result.status().message();
  return result.isOk() ? *result : RegionDerivative{kNaN, kNaN};
}

std::string derivativeError(const pkg::Region &region) {
  StatusOr<RegionDerivative> result = differentiate(region, {0.5});
  EXPECT_FALSE(result.isOk());
  return result.isOk() ? "" : result.status().message();
}

/// `info` applied to s as operand `wrt` (as every operand when -1) and to
/// the constant point[k] as each other operand k.
pkg::Region opOfScore(const sem::RegionOpInfo &info, const double *point,
                      int wrt) {
  RegionBuilder builder(5);
  std::vector<int64_t> operands;
  for (int k = 0; k < info.numOperands; ++k)
    operands.push_back(wrt < 0 || k == wrt ? 0
                                           : builder.constant(point[k], "f64"));
  // s is f32: extf widens it, truncf narrows it.
  std::string type =
      info.widthRule == sem::WidthRule::Narrower ? "bf16" : "f64";
  return builder.yield(builder.add(std::string(info.name), operands, type));
}

/// Compares the derivative of `region` at s with a central finite
/// difference of evaluate(); false (nothing checked) where either side is
/// not finite, i.e. s lies outside the op's domain.
bool matchesFiniteDifference(const pkg::Region &region, double s) {
  StatusOr<RegionEvaluator> evaluator = RegionEvaluator::create(region);
  EXPECT_TRUE(evaluator.isOk()) << evaluator.status().message();
  if (!evaluator)
    return false;
  auto valueAt = [&](double x) {
    StatusOr<RegionValue> value = evaluator->evaluate({x});
    return value ? value->floatValue : kNaN;
  };
  StatusOr<RegionDerivative> result = evaluator->evaluateWithDerivative({s});
  EXPECT_TRUE(result.isOk()) << result.status().message();
  if (!result)
    return false;
  double value = valueAt(s);
  EXPECT_TRUE(result->value == value ||
              (std::isnan(result->value) && std::isnan(value)))
      << "value " << result->value << " but evaluate() gives " << value;
  const double h = 1e-6 * std::max(1.0, std::fabs(s));
  const double fd = (valueAt(s + h) - valueAt(s - h)) / (2 * h);
  if (!std::isfinite(fd) || !std::isfinite(result->derivative))
    return false;
  EXPECT_NEAR(result->derivative, fd, 1e-6 * std::max(1.0, std::fabs(fd)))
      << "at s = " << s;
  return true;
}

/// Walks the op table: every Smooth row's derivative in each operand alone,
/// and in all operands at once, against finite differences at points on
/// both sides of zero and of each other (max picks either operand). Points
/// outside an op's domain are skipped; each case must be checked at two.
TEST(LibRegion, EverySmoothRowsDerivativeMatchesFiniteDifferences) {
  const double points[][3] = {
      {0.7, 1.3, 0.4}, {2.1, -0.9, 1.7}, {-1.6, 2.4, -0.5}};
  int rows = 0;
  for (const sem::RegionOpInfo &info : sem::regionOps()) {
    if (info.grad != sem::GradRule::Smooth)
      continue;
    SCOPED_TRACE(std::string(info.name));
    ++rows;
    for (int wrt = -1; wrt < info.numOperands; ++wrt) {
      int checked = 0;
      for (const auto &point : points)
        checked += matchesFiniteDifference(opOfScore(info, point, wrt),
                                           point[std::max(wrt, 0)]);
      EXPECT_GE(checked, 2) << "operand " << wrt;
    }
  }
  EXPECT_GE(rows, 29); // extf, truncf, 10 arith and 17 math ops today
}

TEST(LibRegion, DerivativesOfComposedScores) {
  // cap * tanh(s / cap): 1 - tanh^2(s / cap).
  RegionBuilder softcap(5);
  int64_t cap = softcap.constant(30, "f32");
  int64_t scaled = softcap.add("arith.divf", {0, cap}, "f32");
  int64_t tanh = softcap.add("math.tanh", {scaled}, "f32");
  pkg::Region region =
      softcap.yield(softcap.add("arith.mulf", {tanh, cap}, "f32"));
  RegionDerivative d = derivativeAt(region, {45});
  EXPECT_DOUBLE_EQ(d.value, 30 * std::tanh(1.5));
  EXPECT_DOUBLE_EQ(d.derivative, 1 - std::tanh(1.5) * std::tanh(1.5));

  // s - (q_idx - k_idx) * h: integer arguments carry no derivative.
  RegionBuilder bias(5);
  int64_t distance = bias.add("arith.subi", {3, 4}, "index");
  int64_t product = bias.add("arith.muli", {distance, 2}, "index");
  int64_t asInt = bias.add("arith.index_cast", {product}, "i64");
  int64_t asFloat = bias.add("arith.sitofp", {asInt}, "f32");
  region = bias.yield(bias.add("arith.subf", {0, asFloat}, "f32"));
  d = derivativeAt(region, {0.25, 0, 3, 7, 2});
  EXPECT_EQ(d.value, 0.25 - 15);
  EXPECT_EQ(d.derivative, 1);

  // The score itself, and a constant.
  RegionBuilder identity(5);
  EXPECT_EQ(derivativeAt(identity.yield(0), {2}).derivative, 1);
  RegionBuilder constant(5);
  d = derivativeAt(constant.yield(constant.constant(-kInf, "f32")), {2});
  EXPECT_EQ(d.value, -kInf);
  EXPECT_EQ(d.derivative, 0);
}

TEST(LibRegion, DerivativeIgnoresOperandsIndependentOfTheScore) {
  // pow(s, 2) at s < 0: d/dy = pow(s, 2) * log(s) is NaN, but y is a
  // constant, so only d/dx = 2 s counts.
  RegionBuilder pow(5);
  pkg::Region region =
      pow.yield(pow.add("math.powf", {0, pow.constant(2, "f64")}, "f64"));
  RegionDerivative d = derivativeAt(region, {-1.5});
  EXPECT_EQ(d.value, 2.25);
  EXPECT_EQ(d.derivative, -3);
  // NaN rules of min/max: maximumf propagates NaN into the derivative,
  // maxnumf passes the number's derivative on.
  RegionBuilder maximum(5);
  region = maximum.yield(
      maximum.add("arith.maximumf", {0, maximum.constant(kNaN, "f32")}, "f32"));
  d = derivativeAt(region, {1});
  EXPECT_TRUE(std::isnan(d.value));
  EXPECT_TRUE(std::isnan(d.derivative));
  RegionBuilder maxnum(5);
  int64_t twice = maxnum.add("arith.addf", {0, 0}, "f32");
  region = maxnum.yield(maxnum.add(
      "arith.maxnumf", {maxnum.constant(kNaN, "f32"), twice}, "f32"));
  d = derivativeAt(region, {1});
  EXPECT_EQ(d.value, 2);
  EXPECT_EQ(d.derivative, 2);
}

TEST(LibRegion, SelectDifferentiatesTheChosenOperand) {
  // s > 0 ? s * s : 3 : a condition on s carries no derivative itself.
  RegionBuilder builder(5);
  int64_t positive =
      builder.add("arith.cmpf", {0, builder.constant(0, "f32")}, "i1", "ogt");
  int64_t square = builder.add("arith.mulf", {0, 0}, "f32");
  pkg::Region region = builder.yield(builder.add(
      "arith.select", {positive, square, builder.constant(3, "f32")}, "f32"));
  RegionDerivative d = derivativeAt(region, {1.5});
  EXPECT_EQ(d.value, 2.25);
  EXPECT_EQ(d.derivative, 3);
  d = derivativeAt(region, {-1.5});
  EXPECT_EQ(d.value, 3);
  EXPECT_EQ(d.derivative, 0);
  // Selecting between two functions of s.
  RegionBuilder both(5);
  int64_t negative =
      both.add("arith.cmpf", {0, both.constant(0, "f32")}, "i1", "olt");
  int64_t scaled =
      both.add("arith.mulf", {0, both.constant(0.5, "f32")}, "f32");
  region = both.yield(both.add("arith.select", {negative, scaled, 0}, "f32"));
  EXPECT_EQ(derivativeAt(region, {-2}).derivative, 0.5);
  EXPECT_EQ(derivativeAt(region, {2}).derivative, 1);
}

TEST(LibRegion, BlockedOpsOnTheScoreHaveNoDerivative) {
  RegionBuilder floor(5);
  int64_t floored = floor.add("math.floor", {0}, "f32");
  pkg::Region region =
      floor.yield(floor.add("arith.addf", {0, floored}, "f32"));
  EXPECT_EQ(derivativeError(region), "op 0 (math.floor) is piecewise constant "
                                     "in the score; its gradient is not "
                                     "defined");
  // The same for every argument, so that it can be checked up front.
  StatusOr<RegionEvaluator> blocked = RegionEvaluator::create(region);
  ASSERT_TRUE(blocked.isOk());
  EXPECT_EQ(blocked->checkDifferentiable().message(),
            "op 0 (math.floor) is piecewise constant in the score; its "
            "gradient is not defined");
  // The forward value is still defined.
  EXPECT_EQ(evaluate(region, {2.5}).floatValue, 4.5);

  RegionBuilder toInt(5);
  int64_t half =
      toInt.add("arith.mulf", {0, toInt.constant(0.5, "f32")}, "f32");
  int64_t truncated = toInt.add("arith.fptosi", {half}, "i32");
  region = toInt.yield(toInt.add("arith.sitofp", {truncated}, "f32"));
  EXPECT_EQ(derivativeError(region), "op 2 (arith.fptosi) is piecewise "
                                     "constant in the score; its gradient is "
                                     "not defined");
  // On values that do not depend on s, a Blocked op is fine.
  RegionBuilder constant(5);
  int64_t ceil =
      constant.add("math.ceil", {constant.constant(2.5, "f32")}, "f32");
  region = constant.yield(constant.add("arith.mulf", {0, ceil}, "f32"));
  RegionDerivative d = derivativeAt(region, {2});
  EXPECT_EQ(d.value, 6);
  EXPECT_EQ(d.derivative, 3);
  EXPECT_TRUE(RegionEvaluator::create(region)->checkDifferentiable().isOk());

  // Only score regions yielding a float have a derivative.
  RegionBuilder mask;
  EXPECT_EQ(
      derivativeError(mask.yield(mask.add("arith.cmpi", {2, 3}, "i1", "sle"))),
      "only a score region that yields a float has a derivative in the "
      "score");
  RegionBuilder intScore(5);
  EXPECT_EQ(derivativeError(intScore.yield(1)),
            "only a score region that yields a float has a derivative in the "
            "score");
  // Undefined behaviour is reported as by evaluate().
  RegionBuilder convert(5);
  int64_t big = convert.constant(300, "f32");
  int64_t narrow = convert.add("arith.fptosi", {big}, "i8");
  region = convert.yield(convert.add("arith.sitofp", {narrow}, "f32"));
  EXPECT_EQ(derivativeError(region),
            "op 1 (arith.fptosi): value out of range of the result type");
}

} // namespace

namespace {

/// A mask-shaped region with one capture (argument 4) yielding
/// capture[row, column] for two i64 constants.
pkg::Region extractAt(int64_t row, int64_t column, const std::string &type) {
  RegionBuilder builder(5, 1);
  int64_t r = builder.intConstant(row, "index");
  int64_t c = builder.intConstant(column, "index");
  return builder.yield(builder.add("tensor.extract", {4, r, c}, type));
}

/// Reading captures: row-major order, 0 outside the shape (negative indices
/// too), floats as they are; a capture read with another element type or
/// rank than it has is an error before anything runs, and captures are
/// only tensor.extract's first operand.
TEST(LibRegion, ExtractReadsCaptures) {
  std::vector<double> ids = {10, 11, 12, 13, 14, 15};
  CaptureView doc{pkg::DType::I32, {2, 3}, ids.data()};
  RegionArgs args{0, 0, 0, 0, 0, &doc};
  EXPECT_EQ(evaluate(extractAt(1, 2, "i32"), args).intValue, 15);
  EXPECT_EQ(evaluate(extractAt(0, 1, "i32"), args).intValue, 11);
  EXPECT_EQ(evaluate(extractAt(2, 0, "i32"), args).intValue, 0);
  EXPECT_EQ(evaluate(extractAt(0, 3, "i32"), args).intValue, 0);
  EXPECT_EQ(evaluate(extractAt(-1, 0, "i32"), args).intValue, 0);

  std::vector<double> bias = {0.25, -1.5};
  CaptureView table{pkg::DType::F32, {1, 2}, bias.data()};
  RegionValue value = evaluate(extractAt(0, 1, "f32"), {0, 0, 0, 0, 0, &table});
  EXPECT_TRUE(value.isFloat);
  EXPECT_EQ(value.floatValue, -1.5);

  StatusOr<RegionEvaluator> evaluator =
      RegionEvaluator::create(extractAt(0, 0, "i32"));
  ASSERT_TRUE(evaluator.isOk()) << evaluator.status().message();
  EXPECT_EQ(evaluator->numArgs(), 4);
  EXPECT_EQ(evaluator->numCaptures(), 1);
  EXPECT_TRUE(evaluator->checkCaptures({doc}));
  EXPECT_EQ(evaluator->checkCaptures({table}).message(),
            "capture 0 is f32, read as i32");
  CaptureView flat{pkg::DType::I32, {6}, ids.data()};
  EXPECT_EQ(evaluator->checkCaptures({flat}).message(),
            "capture 0 has rank 1, read with 2 indices");
  EXPECT_EQ(evaluator->checkCaptures({}).message(),
            "expected 1 captures, got 0");

  RegionBuilder misuse(5, 1);
  int64_t one = misuse.intConstant(1, "index");
  EXPECT_EQ(
      createError(misuse.yield(misuse.add("arith.addi", {4, one}, "index"))),
      "op 1 (arith.addi): operand 0 is a capture, which only "
      "tensor.extract reads");
  RegionBuilder notCapture(5, 1);
  int64_t zero = notCapture.intConstant(0, "index");
  EXPECT_EQ(createError(notCapture.yield(
                notCapture.add("tensor.extract", {0, zero}, "i32"))),
            "op 1 (tensor.extract): operand 0 must be a capture");
}

} // namespace
