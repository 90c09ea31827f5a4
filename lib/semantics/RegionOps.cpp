//===- RegionOps.cpp - The op set of mask and score regions ---------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/semantics/RegionOps.h"

#include <algorithm>
#include <iterator>
#include <string>

namespace attnc::sem {

namespace {

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

std::string describe(ScalarType type) { return std::string(info(type).name); }

/// What operand `index` of an op with `signature` must be: an exact type,
/// or any float / any integer.
struct OperandRule {
  std::optional<ScalarType> exact;
  bool wantFloat = false;
};

OperandRule operandRule(Signature signature, size_t index,
                        const std::vector<ScalarType> &operands,
                        ScalarType result) {
  switch (signature) {
  case Signature::IntElementwise:
    return {result, false};
  case Signature::IntCompare:
    return {index > 0 ? std::optional<ScalarType>(operands[0]) : std::nullopt,
            false};
  case Signature::Select:
    return {index == 0 ? ScalarType::I1 : result, false};
  case Signature::Extract:
    return {index == 0 ? result : ScalarType::Index, false};
  case Signature::FloatElementwise:
  case Signature::FloatCompare:
  case Signature::FloatToInt:
  case Signature::FloatToFloat:
    return {std::nullopt, true};
  case Signature::Constant:
  case Signature::IntToInt:
  case Signature::IntToFloat:
    return {std::nullopt, false};
  }
  return {};
}

/// The result class a signature produces: nullopt when any type goes.
std::optional<bool> resultIsFloat(Signature signature) {
  switch (signature) {
  case Signature::FloatElementwise:
  case Signature::IntToFloat:
  case Signature::FloatToFloat:
    return true;
  case Signature::IntElementwise:
  case Signature::IntToInt:
  case Signature::FloatToInt:
    return false;
  case Signature::Constant:
  case Signature::Select:
  case Signature::Extract:
  case Signature::IntCompare:
  case Signature::FloatCompare:
    return std::nullopt;
  }
  return std::nullopt;
}

Status checkTypes(const RegionOpInfo &op,
                  const std::vector<ScalarType> &operands, ScalarType result) {
  bool compare = op.signature == Signature::IntCompare ||
                 op.signature == Signature::FloatCompare;
  if (compare && result != ScalarType::I1)
    return Status::error("result type must be i1, got " + describe(result));
  if (std::optional<bool> wantFloat = resultIsFloat(op.signature);
      wantFloat && info(result).isFloat != *wantFloat)
    return Status::error(std::string("result type must be ") +
                         (*wantFloat ? "a float" : "an integer") + ", got " +
                         describe(result));
  for (size_t i = 0; i < operands.size(); ++i) {
    OperandRule rule = operandRule(op.signature, i, operands, result);
    bool ok = rule.exact ? operands[i] == *rule.exact
                         : info(operands[i]).isFloat == rule.wantFloat;
    if (!ok)
      return Status::error(
          "operand " + std::to_string(i) + " has type " +
          describe(operands[i]) + ", expected " +
          (rule.exact ? describe(*rule.exact)
                      : std::string(rule.wantFloat ? "a float"
                                                   : "an integer")));
  }
  if (operands.empty() || op.widthRule == WidthRule::Any)
    return Status::ok();
  int from = info(operands[0]).width, to = info(result).width;
  bool wider = op.widthRule == WidthRule::Wider;
  if (wider ? to <= from : to >= from)
    return Status::error(std::string("result must be ") +
                         (wider ? "wider" : "narrower") + " than the operand");
  return Status::ok();
}

/// A predicate and its spelling. Each table lists its enum in order, which
/// the static_asserts check, so that a spelling's index is its enumerator.
template <typename Predicate> struct PredicateName {
  Predicate predicate;
  std::string_view name;
};

constexpr PredicateName<IntPredicate> kIntPredicates[] = {
    {IntPredicate::Eq, "eq"},   {IntPredicate::Ne, "ne"},
    {IntPredicate::Slt, "slt"}, {IntPredicate::Sle, "sle"},
    {IntPredicate::Sgt, "sgt"}, {IntPredicate::Sge, "sge"},
    {IntPredicate::Ult, "ult"}, {IntPredicate::Ule, "ule"},
    {IntPredicate::Ugt, "ugt"}, {IntPredicate::Uge, "uge"},
};

constexpr PredicateName<FloatPredicate> kFloatPredicates[] = {
    {FloatPredicate::False, "false"}, {FloatPredicate::Oeq, "oeq"},
    {FloatPredicate::Ogt, "ogt"},     {FloatPredicate::Oge, "oge"},
    {FloatPredicate::Olt, "olt"},     {FloatPredicate::Ole, "ole"},
    {FloatPredicate::One, "one"},     {FloatPredicate::Ord, "ord"},
    {FloatPredicate::Ueq, "ueq"},     {FloatPredicate::Ugt, "ugt"},
    {FloatPredicate::Uge, "uge"},     {FloatPredicate::Ult, "ult"},
    {FloatPredicate::Ule, "ule"},     {FloatPredicate::Une, "une"},
    {FloatPredicate::Uno, "uno"},     {FloatPredicate::True, "true"},
};

/// Whether `table` lists enumerators 0, 1, ... up to `last`.
template <typename Predicate, size_t N>
constexpr bool inEnumOrder(const PredicateName<Predicate> (&table)[N],
                           Predicate last) {
  for (size_t i = 0; i < N; ++i)
    if (static_cast<size_t>(table[i].predicate) != i)
      return false;
  return N == static_cast<size_t>(last) + 1;
}
static_assert(inEnumOrder(kIntPredicates, IntPredicate::Uge));
static_assert(inEnumOrder(kFloatPredicates, FloatPredicate::True));

template <typename Predicate, size_t N>
std::vector<std::string_view>
spellings(const PredicateName<Predicate> (&table)[N]) {
  std::vector<std::string_view> names;
  for (const PredicateName<Predicate> &entry : table)
    names.push_back(entry.name);
  return names;
}

} // namespace

std::string_view scalarTypeName(ScalarType type) { return info(type).name; }

std::optional<ScalarType> parseScalarType(std::string_view name) {
  for (size_t i = 0; i < std::size(kTypes); ++i)
    if (kTypes[i].name == name)
      return static_cast<ScalarType>(i);
  return std::nullopt;
}

int bitWidth(ScalarType type) { return info(type).width; }

bool isFloat(ScalarType type) { return info(type).isFloat; }

const std::vector<RegionOpInfo> &regionOps() {
  static const std::vector<RegionOpInfo> rows = {
#define REGION_OP(name, opcode, signature, operands, width, interval, grad)    \
  {name,                                                                       \
   Opcode::opcode,                                                             \
   Signature::signature,                                                       \
   operands,                                                                   \
   WidthRule::width,                                                           \
   IntervalRule::interval,                                                     \
   GradRule::grad},
#include "lib/semantics/RegionOps.def"
  };
  return rows;
}

bool isCaptureElementType(ScalarType type) {
  switch (type) {
  case ScalarType::I32:
  case ScalarType::I64:
  case ScalarType::F16:
  case ScalarType::BF16:
  case ScalarType::F32:
    return true;
  default:
    return false;
  }
}

bool isShift(Opcode opcode) {
  return opcode == Opcode::ShLI || opcode == Opcode::ShRSI ||
         opcode == Opcode::ShRUI;
}

bool isIntegerDivision(Opcode opcode) {
  switch (opcode) {
  case Opcode::DivSI:
  case Opcode::DivUI:
  case Opcode::RemSI:
  case Opcode::RemUI:
  case Opcode::FloorDivSI:
  case Opcode::CeilDivSI:
    return true;
  default:
    return false;
  }
}

const RegionOpInfo *findRegionOp(std::string_view name) {
  for (const RegionOpInfo &op : regionOps())
    if (op.name == name)
      return &op;
  return nullptr;
}

const std::vector<std::string_view> &intPredicates() {
  static const std::vector<std::string_view> names = spellings(kIntPredicates);
  return names;
}

const std::vector<std::string_view> &floatPredicates() {
  static const std::vector<std::string_view> names =
      spellings(kFloatPredicates);
  return names;
}

Status checkRegionOp(const RegionOpInfo &op,
                     const std::vector<ScalarType> &operands, ScalarType result,
                     std::string_view predicate, ComparePredicate *parsed) {
  if (op.numOperands == kVariadicOperands && operands.size() < 2)
    return Status::error("expects at least 2 operands, got " +
                         std::to_string(operands.size()));
  if (op.numOperands != kVariadicOperands &&
      operands.size() != static_cast<size_t>(op.numOperands))
    return Status::error("expects " + std::to_string(op.numOperands) +
                         " operands, got " + std::to_string(operands.size()));
  if (op.signature == Signature::Extract && !isCaptureElementType(result))
    return Status::error("reads a tensor of " + describe(result) +
                         ", expected i32, i64, f16, bf16 or f32");
  if (Status s = checkTypes(op, operands, result); !s)
    return s;
  bool isInt = op.signature == Signature::IntCompare;
  if (!isInt && op.signature != Signature::FloatCompare) {
    if (!predicate.empty())
      return Status::error("unexpected predicate \"" + std::string(predicate) +
                           "\"");
    return Status::ok();
  }
  const std::vector<std::string_view> &names =
      isInt ? intPredicates() : floatPredicates();
  auto found = std::find(names.begin(), names.end(), predicate);
  if (found == names.end())
    return Status::error("unknown predicate \"" + std::string(predicate) +
                         "\"");
  // The names are indexed by the enums (see the tables above).
  auto index = static_cast<uint8_t>(found - names.begin());
  if (parsed && isInt)
    parsed->intPredicate = static_cast<IntPredicate>(index);
  else if (parsed)
    parsed->floatPredicate = static_cast<FloatPredicate>(index);
  return Status::ok();
}

} // namespace attnc::sem
