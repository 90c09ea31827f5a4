//===- RegionOps.h - The op set of mask and score regions ------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Queries over RegionOps.def, the one table of the ops a mask or score
// region may hold, and the type check every reader shares. Plain C++: the
// dialect verifier, the compiler and the fp64 reference all include it.
//
// Types are the scalar types a region computes in: index and i64/i32/i16/
// i8/i1 (integers wrap to their width; index is 64 bits), and f64, f32, f16,
// bf16 (the reference computes every float in double).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_SEMANTICS_REGIONOPS_H
#define ATTNC_LIB_SEMANTICS_REGIONOPS_H

#include "attnc/Status.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace attnc::sem {

enum class ScalarType : uint8_t { Index, I64, I32, I16, I8, I1, F64, F32, F16, BF16 };

/// MLIR spelling ("index", "i32", "bf16", ...).
std::string_view scalarTypeName(ScalarType type);
std::optional<ScalarType> parseScalarType(std::string_view name);
/// Bits of the type (index: 64).
int bitWidth(ScalarType type);
bool isFloat(ScalarType type);

/// What an op computes; several ops may share one (index_cast and extsi
/// both sign-extend).
enum class Opcode : uint8_t {
#define REGION_OP(name, opcode, signature, operands, width, interval, grad)    \
  opcode,
#define REGION_OP_ALIAS(...)
#include "lib/semantics/RegionOps.def"
};

/// Which operand and result types an op accepts.
enum class Signature : uint8_t {
  Constant,         // any result type, no operands
  IntElementwise,   // integer operands of the result type
  FloatElementwise, // float operands and result (any float types)
  IntCompare,       // two integers of one type, i1 result, integer predicate
  FloatCompare,     // two floats, i1 result, float predicate
  Select,           // i1, then two values of the result type
  IntToInt,
  IntToFloat,
  FloatToInt,
  FloatToFloat,
  /// A captured tensor's element (its element type stands for the tensor),
  /// then index operands; the result has the element type.
  Extract,
};

/// RegionOpInfo::numOperands of an op that takes one or more operands after
/// its first (tensor.extract: one index per dim of the tensor).
constexpr int kVariadicOperands = -1;

/// How a cast's result width relates to its operand's.
enum class WidthRule : uint8_t { Any, Wider, Narrower };

/// How the tile classifier bounds an op over a tile of indices (see
/// compiler/Codegen/Common/TileClassifier.h); `None` makes its result
/// unknown, which only costs a partial classification.
enum class IntervalRule : uint8_t {
  None,
  Constant,
  Add,
  Sub,
  Mul,
  /// Monotone in its first operand when the second is a positive constant.
  DivByPositiveConstant,
  /// As above, for non-negative first operands.
  UnsignedDivByPositiveConstant,
  RemByPositiveConstant,
  Max,
  Min,
  /// Keeps every value between index and i64.
  Cast,
  Compare,
  And,
  Or,
  XOr,
  Select,
  /// An integer capture's smallest and largest element over the indices'
  /// intervals, read in the kernel (tensor.extract).
  CaptureRange,
};

/// How the derivative of a score region with respect to its score `s`
/// flows through an op.
enum class GradRule : uint8_t {
  /// No float result depends on a float operand through it (integer ops,
  /// comparisons, int-to-float casts): nothing flows.
  NoTangent,
  /// A float op with a derivative in each float operand.
  Smooth,
  /// The tangent of the chosen operand flows; the condition carries none.
  Select,
  /// Piecewise constant in a float operand (floor, ceil, float-to-int): the
  /// score's gradient through it would be zero almost everywhere, which is
  /// never what training wants, so differentiating through it is an error.
  Blocked,
};

struct RegionOpInfo {
  std::string_view name; // full MLIR name, "arith.addi"
  Opcode opcode;
  Signature signature;
  int numOperands;
  WidthRule widthRule;
  IntervalRule interval;
  GradRule grad;
};

/// The types a captured tensor's elements may have (the tensors mask and
/// score regions read with tensor.extract).
bool isCaptureElementType(ScalarType type);

/// The row of `name`, or null for an op regions may not hold.
const RegionOpInfo *findRegionOp(std::string_view name);
/// Every row, in table order.
const std::vector<RegionOpInfo> &regionOps();

/// Whether `opcode` is an integer division or remainder. MLIR leaves a
/// divisor 0 (and, signed, the smallest value over -1) undefined; attnc
/// defines both as dividing by 1 instead (x / 0 = x, x % 0 = 0, MIN / -1 =
/// MIN), which cannot trap. The verifier rejects a constant 0 divisor as a
/// likely mistake; kernels and the fp64 reference compute the rest alike.
bool isIntegerDivision(Opcode opcode);
/// arith.shli, shrsi, shrui. attnc defines a shift by the bit width or more
/// (MLIR leaves it undefined) as shifting the bits out: 0, or for shrsi
/// the sign (-1 or 0). Kernels and the reference both do so.
bool isShift(Opcode opcode);

/// arith.cmpi predicates, in arith's order.
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
/// arith.cmpf predicates, in arith's order.
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

/// arith's spelling of each predicate ("slt", "oge"), indexed by
/// IntPredicate and FloatPredicate respectively.
const std::vector<std::string_view> &intPredicates();
const std::vector<std::string_view> &floatPredicates();

/// A comparison's predicate as checkRegionOp parsed it; the member of the
/// op's kind is set, the other keeps its default.
struct ComparePredicate {
  IntPredicate intPredicate = IntPredicate::Eq;          // arith.cmpi
  FloatPredicate floatPredicate = FloatPredicate::False; // arith.cmpf
};

/// Checks one op against its row: operand count, operand and result types,
/// and that `predicate` is given exactly for comparisons and is one of
/// theirs, which it stores in `parsed` when given. The message names the
/// problem without the op ("operand 1 has type f32, expected an integer").
Status checkRegionOp(const RegionOpInfo &op,
                     const std::vector<ScalarType> &operands, ScalarType result,
                     std::string_view predicate,
                     ComparePredicate *parsed = nullptr);

} // namespace attnc::sem

#endif // ATTNC_LIB_SEMANTICS_REGIONOPS_H
