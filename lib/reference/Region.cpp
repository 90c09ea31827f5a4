//===- Region.cpp - fp64 evaluator for mask and score regions -------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// `create` checks every op against lib/semantics (the op table and its type
// rules) and resolves names, types and predicates once into a flat program;
// `evaluate` then runs it with a switch per op, since the reference calls it
// for every (query, key) pair. `create` also traces which values depend on a
// score region's `s`, so that differentiating needs no analysis per call and
// rejects a Blocked op the same way for every argument.
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Region.h"

#include "lib/semantics/RegionOps.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

namespace attnc::ref {

namespace {

using sem::FloatPredicate;
using sem::GradRule;
using sem::IntPredicate;
using sem::Opcode;
using sem::ScalarType;
using sem::Signature;

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

/// Nothing for a predicate without a case.
std::optional<bool> compareInts(IntPredicate predicate, int64_t a, int64_t b,
                                int width) {
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
  return std::nullopt;
}

/// Nothing for a predicate without a case.
std::optional<bool> compareFloats(FloatPredicate predicate, double a,
                                  double b) {
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
  return std::nullopt;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool isMinOrMax(Opcode opcode) {
  return opcode == Opcode::MaximumF || opcode == Opcode::MinimumF ||
         opcode == Opcode::MaxNumF || opcode == Opcode::MinNumF;
}

/// The operand (0 or 1) that maximumf, minimumf, maxnumf or minnumf returns,
/// or nothing when it returns NaN: maximumf/minimumf propagate NaN,
/// maxnumf/minnumf return the other operand (IEEE 754-2019); all order -0
/// below +0. Both the value and the derivative follow this one choice.
std::optional<int> chosenOperand(Opcode opcode, double x, double y) {
  const bool ignoresNaN =
      opcode == Opcode::MaxNumF || opcode == Opcode::MinNumF;
  const bool isMax = opcode == Opcode::MaximumF || opcode == Opcode::MaxNumF;
  if (std::isnan(x) || std::isnan(y)) {
    if (!ignoresNaN || (std::isnan(x) && std::isnan(y)))
      return std::nullopt;
    return std::isnan(x) ? 1 : 0;
  }
  const bool xBelow = x < y || (x == y && std::signbit(x) && !std::signbit(y));
  return xBelow == isMax ? 1 : 0;
}

//===----------------------------------------------------------------------===//
// The program
//===----------------------------------------------------------------------===//

/// One SSA value; which member is live follows from its type. A float
/// value's derivative in the score, `t`, is only kept while differentiating.
struct Slot {
  int64_t i = 0;
  double f = 0;
  double t = 0;
};

/// The most dims of a capture (the dialect's limit too): tensor.extract
/// then has at most 5 operands, more than any other op.
constexpr int kMaxCaptureRank = 4;

struct Instr {
  const sem::RegionOpInfo *op = nullptr;
  int width = 0;       // of the result (integers)
  int sourceWidth = 0; // of operand 0 (integer casts and conversions)
  sem::ComparePredicate predicate;
  int numOperands = 0;
  int64_t operands[1 + kMaxCaptureRank] = {};
  Slot constant;
};

/// Signed division and remainder, with attnc's meaning of what MLIR
/// leaves undefined (sem::isIntegerDivision): the divisor 1 instead.
void divideSigned(Opcode opcode, int64_t a, int64_t b, int width,
                  int64_t &out) {
  if (b == 0 || (a == minSigned(width) && b == -1))
    b = 1;
  int64_t quotient = a / b, remainder = a % b;
  bool inexact = remainder != 0, sameSigns = (remainder < 0) == (b < 0);
  int64_t result = opcode == Opcode::DivSI   ? quotient
                   : opcode == Opcode::RemSI ? remainder
                   : opcode == Opcode::FloorDivSI
                       ? quotient - (inexact && !sameSigns)
                       : quotient + (inexact && sameSigns);
  out = wrapTo(static_cast<uint64_t>(result), width);
}

/// Integer elementwise ops (Signature::IntElementwise).
const char *integerOp(const Instr &in, const Slot &x, const Slot &y,
                      Slot &out) {
  const int w = in.width;
  const int64_t sa = asSigned(x.i, w), sb = asSigned(y.i, w);
  const uint64_t ua = asUnsigned(x.i, w), ub = asUnsigned(y.i, w);
  switch (in.op->opcode) {
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
  case Opcode::CeilDivSI:
    divideSigned(in.op->opcode, sa, sb, w, out.i);
    return nullptr;
  case Opcode::DivUI:
  case Opcode::RemUI: {
    uint64_t divisor = ub == 0 ? 1 : ub; // as divideSigned
    out.i =
        wrapTo(in.op->opcode == Opcode::DivUI ? ua / divisor : ua % divisor, w);
    return nullptr;
  }
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
    // Shifted by the width or more, every bit is out (sem::isShift).
    if (ub >= static_cast<uint64_t>(w)) {
      bool sign = in.op->opcode == Opcode::ShRSI && sa < 0;
      out.i = wrapTo(sign ? ~uint64_t(0) : 0, w);
      return nullptr;
    }
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
  default:
    return "unhandled integer op";
  }
}

/// Float elementwise ops (Signature::FloatElementwise), all in double;
/// nothing for an opcode without a case.
std::optional<double> floatValue(Opcode opcode, double x, double y, double z) {
  switch (opcode) {
  case Opcode::AddF:
    return x + y;
  case Opcode::SubF:
    return x - y;
  case Opcode::MulF:
    return x * y;
  case Opcode::DivF:
    return x / y;
  case Opcode::RemF:
    return std::fmod(x, y);
  case Opcode::NegF:
    return -x;
  case Opcode::MaximumF:
  case Opcode::MinimumF:
  case Opcode::MaxNumF:
  case Opcode::MinNumF: {
    std::optional<int> chosen = chosenOperand(opcode, x, y);
    return chosen ? (*chosen ? y : x) : kNaN;
  }
  case Opcode::Tanh:
    return std::tanh(x);
  case Opcode::Exp:
    return std::exp(x);
  case Opcode::Exp2:
    return std::exp2(x);
  case Opcode::Expm1:
    return std::expm1(x);
  case Opcode::Log:
    return std::log(x);
  case Opcode::Log2:
    return std::log2(x);
  case Opcode::Log1p:
    return std::log1p(x);
  case Opcode::Erf:
    return std::erf(x);
  case Opcode::Sin:
    return std::sin(x);
  case Opcode::Cos:
    return std::cos(x);
  case Opcode::Atan:
    return std::atan(x);
  case Opcode::AbsF:
    return std::fabs(x);
  case Opcode::Sqrt:
    return std::sqrt(x);
  case Opcode::Rsqrt:
    return 1.0 / std::sqrt(x);
  case Opcode::Floor:
    return std::floor(x);
  case Opcode::Ceil:
    return std::ceil(x);
  case Opcode::PowF:
    return std::pow(x, y);
  case Opcode::CopySign:
    return std::copysign(x, y);
  case Opcode::Fma:
    return std::fma(x, y, z);
  default:
    return std::nullopt;
  }
}

const char *floatOp(const Instr &in, const Slot &x, const Slot &y,
                    const Slot &z, Slot &out) {
  std::optional<double> value = floatValue(in.op->opcode, x.f, y.f, z.f);
  if (!value)
    return "unhandled float op";
  out.f = *value;
  return nullptr;
}

/// Stores a comparison's result; an error for a predicate without a case.
const char *storeBool(std::optional<bool> value, Slot &out) {
  if (!value)
    return "unhandled predicate";
  out.i = *value;
  return nullptr;
}

/// Float to integer, truncating toward zero; out of the result's range (NaN
/// included) is undefined behaviour.
const char *floatToInt(bool isSigned, double x, int width, int64_t &out) {
  double truncated = std::trunc(x);
  double low = isSigned ? -std::ldexp(1.0, width - 1) : 0.0;
  double high = std::ldexp(1.0, isSigned ? width - 1 : width);
  if (!(truncated >= low && truncated < high))
    return "value out of range of the result type";
  out = wrapTo(isSigned ? static_cast<uint64_t>(static_cast<int64_t>(truncated))
                        : static_cast<uint64_t>(truncated),
               width);
  return nullptr;
}

/// Casts between integer widths and between integers and floats.
const char *castOp(const Instr &in, const Slot &x, Slot &out) {
  switch (in.op->opcode) {
  case Opcode::SignExtend:
    out.i =
        wrapTo(static_cast<uint64_t>(asSigned(x.i, in.sourceWidth)), in.width);
    return nullptr;
  case Opcode::ZeroExtend:
    out.i = wrapTo(asUnsigned(x.i, in.sourceWidth), in.width);
    return nullptr;
  case Opcode::Truncate: // keeps the low bits
    out.i = wrapTo(static_cast<uint64_t>(x.i), in.width);
    return nullptr;
  case Opcode::SIToFP:
    out.f = static_cast<double>(asSigned(x.i, in.sourceWidth));
    return nullptr;
  case Opcode::UIToFP:
    out.f = static_cast<double>(asUnsigned(x.i, in.sourceWidth));
    return nullptr;
  case Opcode::FPToSI:
  case Opcode::FPToUI:
    return floatToInt(in.op->opcode == Opcode::FPToSI, x.f, in.width, out.i);
  case Opcode::FloatToFloat: // every float type computes in double
    out.f = x.f;
    return nullptr;
  default:
    return "unhandled cast";
  }
}

/// Runs one op; returns an error message for MLIR's undefined behaviour.
const char *execute(const Instr &in, const Slot *values, Slot &out) {
  const Slot &x = values[in.operands[0]], &y = values[in.operands[1]],
             &z = values[in.operands[2]];
  switch (in.op->signature) {
  case Signature::Constant:
    out = in.constant;
    return nullptr;
  case Signature::IntElementwise:
    return integerOp(in, x, y, out);
  case Signature::FloatElementwise:
    return floatOp(in, x, y, z, out);
  case Signature::IntCompare:
    return storeBool(
        compareInts(in.predicate.intPredicate, x.i, y.i, in.sourceWidth), out);
  case Signature::FloatCompare:
    return storeBool(compareFloats(in.predicate.floatPredicate, x.f, y.f), out);
  case Signature::Select:
    out = x.i ? y : z;
    return nullptr;
  case Signature::IntToInt:
  case Signature::IntToFloat:
  case Signature::FloatToInt:
  case Signature::FloatToFloat:
    return castOp(in, x, out);
  case Signature::Extract: // reads a capture: the caller's extractCapture
    break;
  }
  return "unhandled op";
}

//===----------------------------------------------------------------------===//
// Derivatives in the score
//===----------------------------------------------------------------------===//

/// The partial derivatives in each operand of a smooth op (a float
/// elementwise op other than min/max, or extf/truncf) at operands x, y with
/// result r; nothing for an opcode without a rule.
std::optional<std::array<double, 3>> partials(Opcode opcode, double x, double y,
                                              double r) {
  constexpr double kLn2 = 0.693147180559945309417;
  constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
  switch (opcode) {
  case Opcode::AddF:
    return {{1, 1}};
  case Opcode::SubF:
    return {{1, -1}};
  case Opcode::MulF:
    return {{y, x}};
  case Opcode::DivF:
    return {{1 / y, -r / y}};
  case Opcode::RemF: // x - y * trunc(x / y)
    return {{1, -std::trunc(x / y)}};
  case Opcode::NegF:
    return {{-1}};
  case Opcode::Tanh:
    return {{1 - r * r}};
  case Opcode::Exp:
    return {{r}};
  case Opcode::Exp2:
    return {{r * kLn2}};
  case Opcode::Expm1:
    return {{r + 1}};
  case Opcode::Log:
    return {{1 / x}};
  case Opcode::Log2:
    return {{1 / (x * kLn2)}};
  case Opcode::Log1p:
    return {{1 / (1 + x)}};
  case Opcode::Erf:
    return {{kTwoOverSqrtPi * std::exp(-x * x)}};
  case Opcode::Sin:
    return {{std::cos(x)}};
  case Opcode::Cos:
    return {{-std::sin(x)}};
  case Opcode::Atan:
    return {{1 / (1 + x * x)}};
  case Opcode::AbsF:
    return {{std::copysign(1.0, x)}};
  case Opcode::Sqrt:
    return {{0.5 / r}};
  case Opcode::Rsqrt: // -x^(-3/2) / 2
    return {{-0.5 * r / x}};
  case Opcode::PowF:
    return {{y * std::pow(x, y - 1), r * std::log(x)}};
  case Opcode::CopySign:
    return {{std::copysign(1.0, x) * std::copysign(1.0, y), 0}};
  case Opcode::Fma:
    return {{y, x, 1}};
  case Opcode::FloatToFloat: // every float type computes in double
    return {{1}};
  default:
    return std::nullopt;
  }
}

/// Sets the derivative in s of `in`'s result `out` by the op's gradient
/// rule, from its operands' slots. `depends` says which values depend on s:
/// an operand that does not contributes nothing, even where its partial
/// derivative is not finite.
const char *differentiate(const Instr &in, const Slot *values,
                          const uint8_t *depends, bool resultDepends,
                          Slot &out) {
  const int64_t *operands = in.operands;
  out.t = 0;
  if (!resultDepends)
    return nullptr;
  if (in.op->grad == GradRule::Select) {
    out.t = values[operands[values[operands[0]].i ? 1 : 2]].t;
    return nullptr;
  }
  if (in.op->grad != GradRule::Smooth)
    return "no derivative for this gradient rule";
  const Opcode opcode = in.op->opcode;
  const double x = values[operands[0]].f, y = values[operands[1]].f;
  if (isMinOrMax(opcode)) {
    std::optional<int> chosen = chosenOperand(opcode, x, y);
    out.t = chosen ? values[operands[*chosen]].t : kNaN;
    return nullptr;
  }
  std::optional<std::array<double, 3>> d = partials(opcode, x, y, out.f);
  if (!d)
    return "unhandled derivative";
  for (int k = 0; k < in.numOperands; ++k)
    if (depends[operands[k]])
      out.t += (*d)[k] * values[operands[k]].t;
  return nullptr;
}

/// How a region reads one capture: the element type and rank its
/// tensor.extract ops agree on (none when nothing reads it).
struct CaptureUse {
  std::optional<ScalarType> type;
  int rank = 0;
};

/// Checks that captures (values [firstCapture, firstCapture + uses.size()))
/// are only tensor.extract's first operand, which must be one, read with
/// one element type and rank; records each capture's use.
Status checkCaptureOperands(const pkg::RegionOp &op, ScalarType result,
                            const sem::RegionOpInfo &info, int64_t firstCapture,
                            std::vector<CaptureUse> &uses) {
  auto isCapture = [&](int64_t v) {
    return v >= firstCapture &&
           v < firstCapture + static_cast<int64_t>(uses.size());
  };
  bool extract = info.signature == Signature::Extract;
  for (size_t k = extract ? 1 : 0; k < op.operands.size(); ++k)
    if (isCapture(op.operands[k]))
      return Status::error("operand " + std::to_string(k) +
                           " is a capture, which only tensor.extract reads");
  if (!extract)
    return Status::ok();
  if (op.operands.empty() || !isCapture(op.operands[0]))
    return Status::error("operand 0 must be a capture");
  int rank = static_cast<int>(op.operands.size()) - 1;
  if (rank > kMaxCaptureRank)
    return Status::error("reads a capture of rank " + std::to_string(rank) +
                         ", more than " + std::to_string(kMaxCaptureRank));
  CaptureUse &use = uses[op.operands[0] - firstCapture];
  if (use.type && (*use.type != result || use.rank != rank))
    return Status::error("reads capture " +
                         std::to_string(op.operands[0] - firstCapture) +
                         " as another element type or rank than before");
  use = {result, rank};
  return Status::ok();
}

/// Checks `op` against the op table and the types of the values so far
/// (`types`), and resolves it into an instruction with result `type`.
/// tensor.extract's capture stands as the element type it reads.
StatusOr<Instr> compile(const pkg::RegionOp &op,
                        const std::vector<ScalarType> &types,
                        int64_t firstCapture, std::vector<CaptureUse> &captures,
                        ScalarType &type) {
  const sem::RegionOpInfo *info = sem::findRegionOp(op.name);
  if (!info)
    return Status::error("unknown op");
  std::optional<ScalarType> result = sem::parseScalarType(op.type);
  if (!result)
    return Status::error("unknown type \"" + op.type + "\"");
  if (op.operands.size() > 1 + kMaxCaptureRank)
    return Status::error("has " + std::to_string(op.operands.size()) +
                         " operands");
  if (Status s =
          checkCaptureOperands(op, *result, *info, firstCapture, captures);
      !s)
    return s;
  std::vector<ScalarType> operandTypes;
  for (int64_t operand : op.operands)
    operandTypes.push_back(types[operand]);
  if (info->signature == Signature::Extract)
    operandTypes[0] = *result;
  sem::ComparePredicate predicate;
  if (Status s = sem::checkRegionOp(*info, operandTypes, *result, op.predicate,
                                    &predicate);
      !s)
    return s;

  type = *result;
  Instr instr;
  instr.op = info;
  instr.width = sem::bitWidth(type);
  instr.sourceWidth = operandTypes.empty() ? 0 : sem::bitWidth(operandTypes[0]);
  instr.numOperands = static_cast<int>(op.operands.size());
  std::copy(op.operands.begin(), op.operands.end(), instr.operands);
  instr.predicate = predicate;
  // pkg::verifyRegion checked that an integer constant fits its width.
  if (info->signature == Signature::Constant && sem::isFloat(type))
    instr.constant.f = op.value;
  else if (info->signature == Signature::Constant)
    instr.constant.i = wrapTo(static_cast<uint64_t>(op.intValue), instr.width);
  return instr;
}

/// A region resolved for running, shared by the copies of an evaluator.
struct CompiledRegion {
  int64_t numArgs = 0; // with the captures
  bool isScore = false;
  bool isElementwise = false;
  std::vector<CaptureUse> captures;
  std::vector<Instr> instrs;
  int64_t yield = 0;
  std::string yieldType;
  bool yieldsFloat = false;
  /// Per value: whether it is a float depending on the score `s` (all 0 in
  /// a mask region).
  std::vector<uint8_t> dependsOnScore;
  /// The first Blocked op that an operand depending on `s` reaches, or -1.
  int64_t blockedOp = -1;
};

/// Fills `dependsOnScore` and `blockedOp` by following `s` forward through
/// the ops: only Smooth and Select ops pass the dependence on.
void traceScore(CompiledRegion &code) {
  code.dependsOnScore.assign(code.numArgs + code.instrs.size(), 0);
  code.dependsOnScore[0] = code.isScore;
  for (size_t i = 0; i < code.instrs.size(); ++i) {
    const Instr &in = code.instrs[i];
    bool reached = false;
    for (int k = 0; k < in.numOperands; ++k)
      reached = reached || code.dependsOnScore[in.operands[k]];
    if (reached && in.op->grad == GradRule::Blocked && code.blockedOp < 0)
      code.blockedOp = static_cast<int64_t>(i);
    code.dependsOnScore[code.numArgs + i] =
        reached &&
        (in.op->grad == GradRule::Smooth || in.op->grad == GradRule::Select);
  }
}

std::string opName(const CompiledRegion &code, size_t index) {
  return "op " + std::to_string(index) + " (" +
         std::string(code.instrs[index].op->name) + ")";
}

/// tensor.extract of a capture in `args`: the element, or 0 where an index
/// is outside the capture's shape.
void extractCapture(const CompiledRegion &code, const Instr &in,
                    const RegionArgs &args, const Slot *values, Slot &out) {
  const int64_t firstCapture =
      code.numArgs - static_cast<int64_t>(code.captures.size());
  const int64_t index = in.operands[0] - firstCapture;
  const CaptureView &capture = args.captures[index];
  out = Slot();
  int64_t offset = 0;
  for (int d = 0; d + 1 < in.numOperands; ++d) {
    int64_t at = values[in.operands[d + 1]].i;
    if (at < 0 || at >= capture.shape[d])
      return;
    offset = offset * capture.shape[d] + at;
  }
  double element = capture.data[offset];
  if (sem::isFloat(*code.captures[index].type))
    out.f = element;
  else
    out.i =
        wrapTo(static_cast<uint64_t>(static_cast<int64_t>(element)), in.width);
}

/// Runs `code` on `args` into `values`, one slot per value; when
/// `differentiating`, float slots also get their derivative in `s`.
Status run(const CompiledRegion &code, const RegionArgs &args,
           bool differentiating, std::vector<Slot> &values) {
  values.assign(code.numArgs + code.instrs.size(), Slot());
  if (!code.captures.empty() && !args.captures)
    return Status::error("the region's captures are not bound");
  int64_t first = 0;
  if (code.isElementwise) {
    if (!args.inputs)
      return Status::error("the body's inputs are not bound");
    for (int64_t i = 0; i < code.numArgs; ++i)
      values[i].f = args.inputs[i];
  } else {
    if (code.isScore) {
      values[0].f = args.s;
      values[0].t = 1; // ds/ds
      first = 1;
    }
    for (int64_t index : {args.b, args.h, args.qIdx, args.kIdx})
      values[first++].i = index;
  }
  for (size_t i = 0; i < code.instrs.size(); ++i) {
    const size_t result = code.numArgs + i;
    const Instr &in = code.instrs[i];
    const char *error = nullptr;
    if (in.op->signature == Signature::Extract)
      extractCapture(code, in, args, values.data(), values[result]);
    else
      error = execute(in, values.data(), values[result]);
    if (!error && differentiating)
      error = differentiate(code.instrs[i], values.data(),
                            code.dependsOnScore.data(),
                            code.dependsOnScore[result], values[result]);
    if (error)
      return Status::error(opName(code, i) + ": " + error);
  }
  return Status::ok();
}

} // namespace

/// The opaque type of the header.
struct RegionEvaluator::Program : CompiledRegion {};

RegionEvaluator::RegionEvaluator(std::shared_ptr<const Program> program)
    : program(std::move(program)) {}

int64_t RegionEvaluator::numArgs() const {
  return program->numArgs - numCaptures();
}

int64_t RegionEvaluator::numCaptures() const {
  return static_cast<int64_t>(program->captures.size());
}

Status
RegionEvaluator::checkCaptures(const std::vector<CaptureView> &captures) const {
  if (captures.size() != program->captures.size())
    return Status::error("expected " +
                         std::to_string(program->captures.size()) +
                         " captures, got " + std::to_string(captures.size()));
  for (size_t i = 0; i < captures.size(); ++i) {
    const CaptureUse &use = program->captures[i];
    if (!use.type)
      continue;
    std::string dtype(pkg::dtypeName(captures[i].dtype));
    std::string name = "capture " + std::to_string(i);
    if (dtype != sem::scalarTypeName(*use.type))
      return Status::error(name + " is " + dtype + ", read as " +
                           std::string(sem::scalarTypeName(*use.type)));
    if (static_cast<int>(captures[i].shape.size()) != use.rank)
      return Status::error(
          name + " has rank " + std::to_string(captures[i].shape.size()) +
          ", read with " + std::to_string(use.rank) + " indices");
  }
  return Status::ok();
}

const std::string &RegionEvaluator::yieldType() const {
  return program->yieldType;
}

bool RegionEvaluator::yieldsFloat() const { return program->yieldsFloat; }

StatusOr<RegionEvaluator> RegionEvaluator::create(const pkg::Region &region) {
  if (Status s = pkg::verifyRegion(region); !s)
    return s;
  return build(region, /*elementwise=*/false);
}

StatusOr<RegionEvaluator>
RegionEvaluator::createElementwise(const pkg::Region &region) {
  if (Status s = pkg::verifyElementwiseBody(region); !s)
    return s;
  return build(region, /*elementwise=*/true);
}

StatusOr<RegionEvaluator> RegionEvaluator::build(const pkg::Region &region,
                                                 bool elementwise) {
  auto program = std::make_shared<Program>();
  program->numArgs = region.numArgs;
  program->isElementwise = elementwise;
  program->isScore = !elementwise && region.numArgs - region.numCaptures == 5;
  program->captures.resize(region.numCaptures);
  program->yield = region.yield;
  // Mask arguments are all index; a score region's `s` comes first; an
  // elementwise body takes floats. A capture's type is the element type its
  // reads give (compile).
  std::vector<ScalarType> types(
      region.numArgs, elementwise ? ScalarType::F32 : ScalarType::Index);
  if (program->isScore)
    types[0] = ScalarType::F32;
  const int64_t firstCapture = region.numArgs - region.numCaptures;
  for (size_t index = 0; index < region.ops.size(); ++index) {
    const pkg::RegionOp &op = region.ops[index];
    ScalarType type;
    StatusOr<Instr> instr =
        compile(op, types, firstCapture, program->captures, type);
    if (!instr)
      return instr.status().withContext("op " + std::to_string(index) + " (" +
                                        op.name + ")");
    types.push_back(type);
    program->instrs.push_back(*instr);
  }
  program->yieldType = std::string(sem::scalarTypeName(types[region.yield]));
  program->yieldsFloat = sem::isFloat(types[region.yield]);
  traceScore(*program);
  return RegionEvaluator(std::move(program));
}

StatusOr<RegionValue> RegionEvaluator::evaluate(const RegionArgs &args) const {
  // One scratch buffer per thread keeps concurrent calls apart without
  // allocating per call.
  thread_local std::vector<Slot> values;
  const Program &p = *program;
  if (Status s = run(p, args, /*differentiating=*/false, values); !s)
    return s;
  const Slot &result = values[p.yield];
  RegionValue value;
  value.isFloat = p.yieldsFloat;
  if (value.isFloat)
    value.floatValue = result.f;
  else
    value.intValue = result.i;
  return value;
}

Status RegionEvaluator::checkDifferentiable() const {
  const Program &p = *program;
  if (!p.isScore || !p.yieldsFloat)
    return Status::error("only a score region that yields a float has a "
                         "derivative in the score");
  if (p.blockedOp >= 0)
    return Status::error(opName(p, p.blockedOp) +
                         " is piecewise constant in the score; its gradient "
                         "is not defined");
  return Status::ok();
}

StatusOr<RegionDerivative>
RegionEvaluator::evaluateWithDerivative(const RegionArgs &args) const {
  thread_local std::vector<Slot> values;
  const Program &p = *program;
  if (Status s = checkDifferentiable(); !s)
    return s;
  if (Status s = run(p, args, /*differentiating=*/true, values); !s)
    return s;
  return RegionDerivative{values[p.yield].f, values[p.yield].t};
}

} // namespace attnc::ref
