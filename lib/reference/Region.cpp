//===- Region.cpp - fp64 evaluator for mask and score regions -------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// `create` resolves names, types and predicates once into a flat program;
// `evaluate` then runs it with a switch per op, since the reference calls it
// for every (query, key) pair.
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Region.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

namespace attnc::ref {

namespace {

//===----------------------------------------------------------------------===//
// Types, ops and predicates
//===----------------------------------------------------------------------===//

enum class ScalarType : uint8_t {
  Index,
  I64,
  I32,
  I16,
  I8,
  I1,
  F64,
  F32,
  F16,
  BF16
};

struct TypeInfo {
  std::string_view name;
  int width;
  bool isFloat;
};

// Indexed by ScalarType.
constexpr TypeInfo kTypes[] = {
    {"index", 64, false}, {"i64", 64, false}, {"i32", 32, false},
    {"i16", 16, false},   {"i8", 8, false},   {"i1", 1, false},
    {"f64", 64, true},    {"f32", 32, true},  {"f16", 16, true},
    {"bf16", 16, true},
};

const TypeInfo &info(ScalarType type) { return kTypes[static_cast<int>(type)]; }

std::optional<ScalarType> parseType(std::string_view name) {
  for (size_t i = 0; i < std::size(kTypes); ++i)
    if (kTypes[i].name == name)
      return static_cast<ScalarType>(i);
  return std::nullopt;
}

/// Floats are interchangeable (all computed in double); integers must match
/// exactly, since the width decides the wrap-around.
bool compatible(ScalarType a, ScalarType b) {
  return a == b || (info(a).isFloat && info(b).isFloat);
}

enum class Opcode : uint8_t {
  Constant,
  // Integer, elementwise.
  AddI,
  SubI,
  MulI,
  DivSI,
  DivUI,
  RemSI,
  RemUI,
  FloorDivSI,
  CeilDivSI,
  AndI,
  OrI,
  XOrI,
  ShLI,
  ShRSI,
  ShRUI,
  MaxSI,
  MinSI,
  MaxUI,
  MinUI,
  AbsI,
  // Comparisons and select.
  CmpI,
  CmpF,
  Select,
  // Casts. Truncation is the same under either extension.
  SignExtend,
  ZeroExtend,
  SIToFP,
  UIToFP,
  FPToSI,
  FPToUI,
  FloatToFloat,
  // Float, elementwise.
  AddF,
  SubF,
  MulF,
  DivF,
  RemF,
  NegF,
  MaximumF,
  MinimumF,
  MaxNumF,
  MinNumF,
  Tanh,
  Exp,
  Exp2,
  Log,
  Log2,
  AbsF,
  Sqrt,
  Rsqrt,
  CopySign,
  Fma,
};

/// Which operand and result types an op accepts.
enum class Signature : uint8_t {
  Constant,         // any result type
  IntElementwise,   // integer operands of the result type
  FloatElementwise, // float operands, float result
  IntCompare,       // two integers of one type, i1 result
  FloatCompare,     // two floats, i1 result
  Select,           // i1, then two values of the result type
  IntToInt,
  IntToFloat,
  FloatToInt,
  FloatToFloat,
};

/// How an integer cast's result width relates to its operand's.
enum class WidthRule : uint8_t { Any, Wider, Narrower };

struct OpInfo {
  std::string_view name;
  Opcode opcode;
  Signature signature;
  int numOperands;
  WidthRule widthRule = WidthRule::Any;
};

using S = Signature;
constexpr OpInfo kOps[] = {
    {"arith.constant", Opcode::Constant, S::Constant, 0},
    {"arith.addi", Opcode::AddI, S::IntElementwise, 2},
    {"arith.subi", Opcode::SubI, S::IntElementwise, 2},
    {"arith.muli", Opcode::MulI, S::IntElementwise, 2},
    {"arith.divsi", Opcode::DivSI, S::IntElementwise, 2},
    {"arith.divui", Opcode::DivUI, S::IntElementwise, 2},
    {"arith.remsi", Opcode::RemSI, S::IntElementwise, 2},
    {"arith.remui", Opcode::RemUI, S::IntElementwise, 2},
    {"arith.floordivsi", Opcode::FloorDivSI, S::IntElementwise, 2},
    {"arith.ceildivsi", Opcode::CeilDivSI, S::IntElementwise, 2},
    {"arith.andi", Opcode::AndI, S::IntElementwise, 2},
    {"arith.ori", Opcode::OrI, S::IntElementwise, 2},
    {"arith.xori", Opcode::XOrI, S::IntElementwise, 2},
    {"arith.shli", Opcode::ShLI, S::IntElementwise, 2},
    {"arith.shrsi", Opcode::ShRSI, S::IntElementwise, 2},
    {"arith.shrui", Opcode::ShRUI, S::IntElementwise, 2},
    {"arith.maxsi", Opcode::MaxSI, S::IntElementwise, 2},
    {"arith.minsi", Opcode::MinSI, S::IntElementwise, 2},
    {"arith.maxui", Opcode::MaxUI, S::IntElementwise, 2},
    {"arith.minui", Opcode::MinUI, S::IntElementwise, 2},
    {"math.absi", Opcode::AbsI, S::IntElementwise, 1},
    {"arith.cmpi", Opcode::CmpI, S::IntCompare, 2},
    {"arith.cmpf", Opcode::CmpF, S::FloatCompare, 2},
    {"arith.select", Opcode::Select, S::Select, 3},
    {"arith.index_cast", Opcode::SignExtend, S::IntToInt, 1},
    {"arith.index_castui", Opcode::ZeroExtend, S::IntToInt, 1},
    {"arith.extsi", Opcode::SignExtend, S::IntToInt, 1, WidthRule::Wider},
    {"arith.extui", Opcode::ZeroExtend, S::IntToInt, 1, WidthRule::Wider},
    {"arith.trunci", Opcode::ZeroExtend, S::IntToInt, 1, WidthRule::Narrower},
    {"arith.sitofp", Opcode::SIToFP, S::IntToFloat, 1},
    {"arith.uitofp", Opcode::UIToFP, S::IntToFloat, 1},
    {"arith.fptosi", Opcode::FPToSI, S::FloatToInt, 1},
    {"arith.fptoui", Opcode::FPToUI, S::FloatToInt, 1},
    {"arith.extf", Opcode::FloatToFloat, S::FloatToFloat, 1},
    {"arith.truncf", Opcode::FloatToFloat, S::FloatToFloat, 1},
    {"arith.addf", Opcode::AddF, S::FloatElementwise, 2},
    {"arith.subf", Opcode::SubF, S::FloatElementwise, 2},
    {"arith.mulf", Opcode::MulF, S::FloatElementwise, 2},
    {"arith.divf", Opcode::DivF, S::FloatElementwise, 2},
    {"arith.remf", Opcode::RemF, S::FloatElementwise, 2},
    {"arith.negf", Opcode::NegF, S::FloatElementwise, 1},
    {"arith.maximumf", Opcode::MaximumF, S::FloatElementwise, 2},
    {"arith.minimumf", Opcode::MinimumF, S::FloatElementwise, 2},
    {"arith.maxnumf", Opcode::MaxNumF, S::FloatElementwise, 2},
    {"arith.minnumf", Opcode::MinNumF, S::FloatElementwise, 2},
    {"math.tanh", Opcode::Tanh, S::FloatElementwise, 1},
    {"math.exp", Opcode::Exp, S::FloatElementwise, 1},
    {"math.exp2", Opcode::Exp2, S::FloatElementwise, 1},
    {"math.log", Opcode::Log, S::FloatElementwise, 1},
    {"math.log2", Opcode::Log2, S::FloatElementwise, 1},
    {"math.absf", Opcode::AbsF, S::FloatElementwise, 1},
    {"math.sqrt", Opcode::Sqrt, S::FloatElementwise, 1},
    {"math.rsqrt", Opcode::Rsqrt, S::FloatElementwise, 1},
    {"math.copysign", Opcode::CopySign, S::FloatElementwise, 2},
    {"math.fma", Opcode::Fma, S::FloatElementwise, 3},
};

const OpInfo *findOp(std::string_view name) {
  for (const OpInfo &op : kOps)
    if (op.name == name)
      return &op;
  return nullptr;
}

enum class IntPredicate : uint8_t {
  Eq,
  Ne,
  Slt,
  Sle,
  Sgt,
  Sge,
  Ult,
  Ule,
  Ugt,
  Uge
};
constexpr std::string_view kIntPredicates[] = {
    "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};

enum class FloatPredicate : uint8_t {
  False,
  Oeq,
  Ogt,
  Oge,
  Olt,
  Ole,
  One,
  Ord,
  Ueq,
  Ugt,
  Uge,
  Ult,
  Ule,
  Une,
  Uno,
  True
};
constexpr std::string_view kFloatPredicates[] = {
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};

/// Index of `name` in `names`, if present.
template <size_t N>
std::optional<uint8_t> findName(const std::string_view (&names)[N],
                                std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == name)
      return static_cast<uint8_t>(i);
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Integer arithmetic at a given width
//===----------------------------------------------------------------------===//

/// The canonical value of the low `width` bits of `raw`: 0 or 1 for i1,
/// sign-extended otherwise.
int64_t wrapTo(uint64_t raw, int width) {
  if (width == 1)
    return static_cast<int64_t>(raw & 1);
  if (width == 64)
    return static_cast<int64_t>(raw);
  uint64_t sign = uint64_t(1) << (width - 1);
  raw &= (sign << 1) - 1;
  return static_cast<int64_t>(raw ^ sign) - static_cast<int64_t>(sign);
}

/// The signed reading of a canonical value (i1 true is -1, as in MLIR).
int64_t asSigned(int64_t value, int width) {
  return width == 1 ? -(value & 1) : value;
}

uint64_t asUnsigned(int64_t value, int width) {
  uint64_t bits = static_cast<uint64_t>(value);
  return width == 64 ? bits : bits & ((uint64_t(1) << width) - 1);
}

int64_t minSigned(int width) {
  return width == 64 ? std::numeric_limits<int64_t>::min()
                     : -(int64_t(1) << (width - 1));
}

bool compareInts(IntPredicate predicate, int64_t a, int64_t b, int width) {
  int64_t sa = asSigned(a, width), sb = asSigned(b, width);
  uint64_t ua = asUnsigned(a, width), ub = asUnsigned(b, width);
  switch (predicate) {
  case IntPredicate::Eq:
    return ua == ub;
  case IntPredicate::Ne:
    return ua != ub;
  case IntPredicate::Slt:
    return sa < sb;
  case IntPredicate::Sle:
    return sa <= sb;
  case IntPredicate::Sgt:
    return sa > sb;
  case IntPredicate::Sge:
    return sa >= sb;
  case IntPredicate::Ult:
    return ua < ub;
  case IntPredicate::Ule:
    return ua <= ub;
  case IntPredicate::Ugt:
    return ua > ub;
  case IntPredicate::Uge:
    return ua >= ub;
  }
  return false;
}

bool compareFloats(FloatPredicate predicate, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (predicate) {
  case FloatPredicate::False:
    return false;
  case FloatPredicate::Oeq:
    return !unordered && a == b;
  case FloatPredicate::Ogt:
    return !unordered && a > b;
  case FloatPredicate::Oge:
    return !unordered && a >= b;
  case FloatPredicate::Olt:
    return !unordered && a < b;
  case FloatPredicate::Ole:
    return !unordered && a <= b;
  case FloatPredicate::One:
    return !unordered && a != b;
  case FloatPredicate::Ord:
    return !unordered;
  case FloatPredicate::Ueq:
    return unordered || a == b;
  case FloatPredicate::Ugt:
    return unordered || a > b;
  case FloatPredicate::Uge:
    return unordered || a >= b;
  case FloatPredicate::Ult:
    return unordered || a < b;
  case FloatPredicate::Ule:
    return unordered || a <= b;
  case FloatPredicate::Une:
    return unordered || a != b;
  case FloatPredicate::Uno:
    return unordered;
  case FloatPredicate::True:
    return true;
  }
  return false;
}

/// IEEE 754-2019 maximum/minimum: NaN propagates, -0 < +0.
double maximumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

double minimumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

//===----------------------------------------------------------------------===//
// The program
//===----------------------------------------------------------------------===//

/// One SSA value; which member is live follows from its type.
struct Slot {
  int64_t i = 0;
  double f = 0;
};

struct Instr {
  const OpInfo *op = nullptr;
  int width = 0;       // of the result (integers)
  int sourceWidth = 0; // of operand 0 (integer casts and conversions)
  IntPredicate intPredicate = IntPredicate::Eq;
  FloatPredicate floatPredicate = FloatPredicate::False;
  int64_t operands[3] = {0, 0, 0};
  Slot constant;
};

/// Runs one op; returns an error message for MLIR's undefined behaviour.
const char *execute(const Instr &in, const Slot *values, Slot &out) {
  const Slot &x = values[in.operands[0]], &y = values[in.operands[1]],
             &z = values[in.operands[2]];
  const int w = in.width;
  const int64_t sa = asSigned(x.i, w), sb = asSigned(y.i, w);
  const uint64_t ua = asUnsigned(x.i, w), ub = asUnsigned(y.i, w);
  switch (in.op->opcode) {
  case Opcode::Constant:
    out = in.constant;
    return nullptr;
  case Opcode::AddI:
    out.i = wrapTo(ua + ub, w);
    return nullptr;
  case Opcode::SubI:
    out.i = wrapTo(ua - ub, w);
    return nullptr;
  case Opcode::MulI:
    out.i = wrapTo(ua * ub, w);
    return nullptr;
  case Opcode::DivSI:
  case Opcode::RemSI:
  case Opcode::FloorDivSI:
  case Opcode::CeilDivSI: {
    if (sb == 0)
      return "division by zero";
    if (sa == minSigned(w) && sb == -1)
      return "signed division overflow";
    int64_t quotient = sa / sb, remainder = sa % sb;
    bool inexact = remainder != 0, sameSigns = (remainder < 0) == (sb < 0);
    int64_t result = in.op->opcode == Opcode::DivSI   ? quotient
                     : in.op->opcode == Opcode::RemSI ? remainder
                     : in.op->opcode == Opcode::FloorDivSI
                         ? quotient - (inexact && !sameSigns)
                         : quotient + (inexact && sameSigns);
    out.i = wrapTo(static_cast<uint64_t>(result), w);
    return nullptr;
  }
  case Opcode::DivUI:
  case Opcode::RemUI:
    if (ub == 0)
      return "division by zero";
    out.i = wrapTo(in.op->opcode == Opcode::DivUI ? ua / ub : ua % ub, w);
    return nullptr;
  case Opcode::AndI:
    out.i = wrapTo(ua & ub, w);
    return nullptr;
  case Opcode::OrI:
    out.i = wrapTo(ua | ub, w);
    return nullptr;
  case Opcode::XOrI:
    out.i = wrapTo(ua ^ ub, w);
    return nullptr;
  case Opcode::ShLI:
  case Opcode::ShRSI:
  case Opcode::ShRUI:
    if (ub >= static_cast<uint64_t>(w))
      return "shift amount not less than the bit width";
    out.i = wrapTo(in.op->opcode == Opcode::ShLI ? ua << ub
                   : in.op->opcode == Opcode::ShRUI
                       ? ua >> ub
                       : static_cast<uint64_t>(sa >> ub),
                   w);
    return nullptr;
  case Opcode::MaxSI:
    out.i = sa >= sb ? x.i : y.i;
    return nullptr;
  case Opcode::MinSI:
    out.i = sa <= sb ? x.i : y.i;
    return nullptr;
  case Opcode::MaxUI:
    out.i = ua >= ub ? x.i : y.i;
    return nullptr;
  case Opcode::MinUI:
    out.i = ua <= ub ? x.i : y.i;
    return nullptr;
  case Opcode::AbsI:
    out.i = sa < 0 ? wrapTo(0 - ua, w) : x.i;
    return nullptr;
  case Opcode::CmpI:
    out.i = compareInts(in.intPredicate, x.i, y.i, in.sourceWidth);
    return nullptr;
  case Opcode::CmpF:
    out.i = compareFloats(in.floatPredicate, x.f, y.f);
    return nullptr;
  case Opcode::Select:
    out = x.i ? y : z;
    return nullptr;
  case Opcode::SignExtend:
    out.i = wrapTo(static_cast<uint64_t>(asSigned(x.i, in.sourceWidth)), w);
    return nullptr;
  case Opcode::ZeroExtend:
    out.i = wrapTo(asUnsigned(x.i, in.sourceWidth), w);
    return nullptr;
  case Opcode::SIToFP:
    out.f = static_cast<double>(asSigned(x.i, in.sourceWidth));
    return nullptr;
  case Opcode::UIToFP:
    out.f = static_cast<double>(asUnsigned(x.i, in.sourceWidth));
    return nullptr;
  case Opcode::FPToSI:
  case Opcode::FPToUI: {
    double truncated = std::trunc(x.f);
    bool isSigned = in.op->opcode == Opcode::FPToSI;
    double low = isSigned ? -std::ldexp(1.0, w - 1) : 0.0;
    double high = std::ldexp(1.0, isSigned ? w - 1 : w);
    if (!(truncated >= low && truncated < high))
      return "value out of range of the result type";
    out.i =
        wrapTo(isSigned ? static_cast<uint64_t>(static_cast<int64_t>(truncated))
                        : static_cast<uint64_t>(truncated),
               w);
    return nullptr;
  }
  case Opcode::FloatToFloat:
    out.f = x.f;
    return nullptr;
  case Opcode::AddF:
    out.f = x.f + y.f;
    return nullptr;
  case Opcode::SubF:
    out.f = x.f - y.f;
    return nullptr;
  case Opcode::MulF:
    out.f = x.f * y.f;
    return nullptr;
  case Opcode::DivF:
    out.f = x.f / y.f;
    return nullptr;
  case Opcode::RemF:
    out.f = std::fmod(x.f, y.f);
    return nullptr;
  case Opcode::NegF:
    out.f = -x.f;
    return nullptr;
  case Opcode::MaximumF:
    out.f = maximumF(x.f, y.f);
    return nullptr;
  case Opcode::MinimumF:
    out.f = minimumF(x.f, y.f);
    return nullptr;
  case Opcode::MaxNumF:
    out.f = std::fmax(x.f, y.f);
    return nullptr;
  case Opcode::MinNumF:
    out.f = std::fmin(x.f, y.f);
    return nullptr;
  case Opcode::Tanh:
    out.f = std::tanh(x.f);
    return nullptr;
  case Opcode::Exp:
    out.f = std::exp(x.f);
    return nullptr;
  case Opcode::Exp2:
    out.f = std::exp2(x.f);
    return nullptr;
  case Opcode::Log:
    out.f = std::log(x.f);
    return nullptr;
  case Opcode::Log2:
    out.f = std::log2(x.f);
    return nullptr;
  case Opcode::AbsF:
    out.f = std::fabs(x.f);
    return nullptr;
  case Opcode::Sqrt:
    out.f = std::sqrt(x.f);
    return nullptr;
  case Opcode::Rsqrt:
    out.f = 1.0 / std::sqrt(x.f);
    return nullptr;
  case Opcode::CopySign:
    out.f = std::copysign(x.f, y.f);
    return nullptr;
  case Opcode::Fma:
    out.f = std::fma(x.f, y.f, z.f);
    return nullptr;
  }
  return "unhandled op";
}

Status opError(size_t index, const pkg::RegionOp &op,
               const std::string &message) {
  return Status::error("op " + std::to_string(index) + " (" + op.name +
                       "): " + message);
}

/// Checks `operand`'s type against what the op's signature wants.
Status checkOperandType(size_t index, const pkg::RegionOp &op, size_t operand,
                        ScalarType actual, bool wantFloat,
                        std::optional<ScalarType> exact) {
  bool ok =
      exact ? compatible(actual, *exact) : info(actual).isFloat == wantFloat;
  if (ok)
    return Status::ok();
  std::string expected =
      exact ? std::string(info(*exact).name)
            : std::string(wantFloat ? "a float" : "an integer");
  return opError(index, op,
                 "operand " + std::to_string(operand) + " has type " +
                     std::string(info(actual).name) + ", expected " + expected);
}

} // namespace

struct RegionEvaluator::Program {
  int64_t numArgs = 0;
  std::vector<Instr> instrs;
  int64_t yield = 0;
  std::string yieldType;
  bool yieldsFloat = false;
};

RegionEvaluator::RegionEvaluator(std::shared_ptr<const Program> program)
    : program(std::move(program)) {}

int64_t RegionEvaluator::numArgs() const { return program->numArgs; }

const std::string &RegionEvaluator::yieldType() const {
  return program->yieldType;
}

bool RegionEvaluator::yieldsFloat() const { return program->yieldsFloat; }

StatusOr<RegionEvaluator> RegionEvaluator::create(const pkg::Region &region) {
  if (Status s = pkg::verifyRegion(region); !s)
    return s;
  auto program = std::make_shared<Program>();
  program->numArgs = region.numArgs;
  program->yield = region.yield;
  // Mask arguments are all index; a score region's `s` comes first.
  std::vector<ScalarType> types(region.numArgs, ScalarType::Index);
  if (region.numArgs == 5)
    types[0] = ScalarType::F32;

  for (size_t index = 0; index < region.ops.size(); ++index) {
    const pkg::RegionOp &op = region.ops[index];
    const OpInfo *opInfo = findOp(op.name);
    if (!opInfo)
      return opError(index, op, "unknown op");
    if (op.operands.size() != static_cast<size_t>(opInfo->numOperands))
      return opError(index, op,
                     "expects " + std::to_string(opInfo->numOperands) +
                         " operands, got " +
                         std::to_string(op.operands.size()));
    std::optional<ScalarType> type = parseType(op.type);
    if (!type)
      return opError(index, op, "unknown type \"" + op.type + "\"");
    const TypeInfo &result = info(*type);
    std::vector<ScalarType> operandTypes;
    for (int64_t operand : op.operands)
      operandTypes.push_back(types[operand]);

    Instr instr;
    instr.op = opInfo;
    instr.width = result.width;
    instr.sourceWidth = operandTypes.empty() ? 0 : info(operandTypes[0]).width;
    std::copy(op.operands.begin(), op.operands.end(), instr.operands);

    // Result class, then operands, per signature.
    Signature sig = opInfo->signature;
    bool resultFloat = sig == S::FloatElementwise || sig == S::IntToFloat ||
                       sig == S::FloatToFloat;
    bool resultI1 = sig == S::IntCompare || sig == S::FloatCompare;
    if (resultI1 && *type != ScalarType::I1)
      return opError(index, op, "result type must be i1, got " + op.type);
    if (sig != S::Constant && sig != S::Select && !resultI1 &&
        result.isFloat != resultFloat)
      return opError(index, op,
                     std::string("result type must be ") +
                         (resultFloat ? "a float" : "an integer") + ", got " +
                         op.type);
    for (size_t i = 0; i < operandTypes.size(); ++i) {
      std::optional<ScalarType> exact;
      bool wantFloat = false;
      switch (sig) {
      case S::IntElementwise:
        exact = *type;
        break;
      case S::FloatElementwise:
        wantFloat = true;
        break;
      case S::IntCompare:
        if (i > 0)
          exact = operandTypes[0];
        break;
      case S::FloatCompare:
        wantFloat = true;
        break;
      case S::Select:
        exact = i == 0 ? ScalarType::I1 : *type;
        break;
      case S::IntToInt:
      case S::IntToFloat:
        break;
      case S::FloatToInt:
      case S::FloatToFloat:
        wantFloat = true;
        break;
      case S::Constant:
        break;
      }
      if (Status s =
              checkOperandType(index, op, i, operandTypes[i], wantFloat, exact);
          !s)
        return s;
    }
    if ((opInfo->widthRule == WidthRule::Wider &&
         result.width <= instr.sourceWidth) ||
        (opInfo->widthRule == WidthRule::Narrower &&
         result.width >= instr.sourceWidth))
      return opError(
          index, op,
          std::string("result must be ") +
              (opInfo->widthRule == WidthRule::Wider ? "wider" : "narrower") +
              " than the operand");

    // Predicates belong to comparisons only.
    bool isCompare = sig == S::IntCompare || sig == S::FloatCompare;
    if (!isCompare && !op.predicate.empty())
      return opError(index, op,
                     "unexpected predicate \"" + op.predicate + "\"");
    if (isCompare) {
      std::optional<uint8_t> predicate =
          sig == S::IntCompare ? findName(kIntPredicates, op.predicate)
                               : findName(kFloatPredicates, op.predicate);
      if (!predicate)
        return opError(index, op, "unknown predicate \"" + op.predicate + "\"");
      instr.intPredicate = static_cast<IntPredicate>(*predicate);
      instr.floatPredicate = static_cast<FloatPredicate>(*predicate);
    }

    if (sig == S::Constant) {
      if (result.isFloat) {
        instr.constant.f = op.value;
      } else {
        // Integer constants travel as doubles; accept any integral value
        // that fits in 64 bits, signed or unsigned, and wrap it.
        if (!(op.value == std::trunc(op.value) && op.value >= -0x1p63 &&
              op.value < 0x1p64))
          return opError(index, op,
                         "integer constant out of range or not integral");
        uint64_t bits =
            op.value < 0x1p63
                ? static_cast<uint64_t>(static_cast<int64_t>(op.value))
                : static_cast<uint64_t>(op.value);
        instr.constant.i = wrapTo(bits, result.width);
      }
    }
    types.push_back(*type);
    program->instrs.push_back(instr);
  }
  program->yieldType = std::string(info(types[region.yield]).name);
  program->yieldsFloat = info(types[region.yield]).isFloat;
  return RegionEvaluator(std::move(program));
}

StatusOr<RegionValue> RegionEvaluator::evaluate(const RegionArgs &args) const {
  // One scratch buffer per thread keeps concurrent calls apart without
  // allocating per call.
  thread_local std::vector<Slot> values;
  const Program &p = *program;
  values.assign(p.numArgs + p.instrs.size(), Slot());
  int64_t first = 0;
  if (p.numArgs == 5)
    values[first++].f = args.s;
  for (int64_t index : {args.b, args.h, args.qIdx, args.kIdx})
    values[first++].i = index;
  for (size_t i = 0; i < p.instrs.size(); ++i)
    if (const char *error =
            execute(p.instrs[i], values.data(), values[p.numArgs + i]))
      return Status::error("op " + std::to_string(i) + " (" +
                           std::string(p.instrs[i].op->name) + "): " + error);
  const Slot &result = values[p.yield];
  RegionValue value;
  value.isFloat = p.yieldsFloat;
  if (value.isFloat)
    value.floatValue = result.f;
  else
    value.intValue = result.i;
  return value;
}

} // namespace attnc::ref
