//===- Region.h - fp64 evaluator for mask and score regions ---------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Evaluates a pkg::Region (straight-line arith/math code) one element at a
// time, for the fp64 reference. The ops a region may hold, their operand
// and result types and their predicates are those of lib/semantics
// (RegionOps.def, checked by sem::checkRegionOp); this evaluator handles
// every opcode of that table, and evaluating one it lacks a case for is an
// "unhandled" error, never a made-up value. Integer types (index, i64, i32,
// i16, i8, i1) compute in int64 and wrap to the type's width (index is 64
// bits); float types (f64, f32, f16, bf16) all compute in double, so
// truncf/extf are no-ops. What MLIR leaves undefined and attnc defines
// (integer division by zero or of the smallest value by -1, shifts by the
// bit width or more; see sem::isIntegerDivision and sem::isShift) computes
// attnc's result; what stays undefined (fptosi/fptoui out of range) is
// reported as an error instead of producing a value.
//
// For the backward pass, a score region is also differentiated with respect
// to its score `s` in forward mode (dual numbers): each float value carries
// its derivative, following the gradient rule of its op's row (Smooth ops
// by their exact derivative, select by the chosen operand's). Integer
// values carry none.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_REFERENCE_REGION_H
#define ATTNC_LIB_REFERENCE_REGION_H

#include "attnc/package/Package.h"

#include <memory>
#include <vector>

namespace attnc::ref {

/// A captured tensor as the reference holds it: its dtype, dims, and its
/// elements in row-major order as doubles (exact for i32 and the floats).
struct CaptureView {
  pkg::DType dtype = pkg::DType::I32;
  std::vector<int64_t> shape;
  const double *data = nullptr;
};

/// The arguments of a region. A mask region takes (b, h, qIdx, kIdx), all
/// index; a score region takes the score `s` (a float) first. `h` is the
/// query head. Both then take the captures, which tensor.extract reads (an
/// index outside a capture's shape reads 0).
struct RegionArgs {
  double s = 0;
  int64_t b = 0;
  int64_t h = 0;
  int64_t qIdx = 0;
  int64_t kIdx = 0;
  /// As many as the region's captures; checked by checkCaptures.
  const CaptureView *captures = nullptr;
  /// An elementwise body's arguments, one per argument (the other fields
  /// are then unused).
  const double *inputs = nullptr;
};

/// A value computed by a region: an integer wrapped to its type (i1 is 0 or
/// 1, narrower types are sign-extended), or a double.
struct RegionValue {
  bool isFloat = false;
  int64_t intValue = 0;
  double floatValue = 0;
};

/// A score region's result and its derivative with respect to `s` (0 when
/// the result does not depend on `s`).
struct RegionDerivative {
  double value = 0;
  double derivative = 0;
};

/// A checked, ready-to-run region. Cheap to copy; `evaluate` may run
/// concurrently on one evaluator.
class RegionEvaluator {
public:
  /// Checks the region's structure (pkg::verifyRegion), then every op: known
  /// name and type, then sem::checkRegionOp (operand count, result and
  /// operand types, predicate). Messages name the op, e.g. "op 3
  /// (arith.foo): unknown op".
  static StatusOr<RegionEvaluator> create(const pkg::Region &region);
  /// The same for the body of an elementwise op (pkg::verifyElementwiseBody):
  /// every argument is a float, read from RegionArgs::inputs.
  static StatusOr<RegionEvaluator> createElementwise(const pkg::Region &region);

  /// 4 for a mask region, 5 for a score region (not counting captures), the
  /// input count for an elementwise body.
  int64_t numArgs() const;
  int64_t numCaptures() const;
  /// Checks that `captures` are the region's (as many, and each read with
  /// its element type and rank): "capture 0 is i64, read as i32".
  Status checkCaptures(const std::vector<CaptureView> &captures) const;
  /// MLIR spelling of the yielded value's type ("i1", "f32", ...).
  const std::string &yieldType() const;
  /// Whether the yielded type is a float type (RegionValue::floatValue).
  bool yieldsFloat() const;

  StatusOr<RegionValue> evaluate(const RegionArgs &args) const;

  /// The yielded float of a score region and its derivative in `s`. Fails
  /// for a mask region or one that yields an integer, and for a region that
  /// sends a value depending on `s` through an op whose gradient rule is
  /// Blocked (floor, ceil, fptosi, fptoui): "op 3 (math.floor) is piecewise
  /// constant in the score; its gradient is not defined", whatever `args`
  /// are. Undefined behaviour fails as in `evaluate`. A float operand that
  /// does not depend on `s` contributes nothing, so a smooth op's partial
  /// derivative in it is never evaluated (no NaN from pow's d/dy at x < 0
  /// when only x depends on `s`).
  StatusOr<RegionDerivative>
  evaluateWithDerivative(const RegionArgs &args) const;
  /// Whether evaluateWithDerivative can succeed for some arguments: the
  /// error it gives for every argument, if any.
  Status checkDifferentiable() const;

private:
  static StatusOr<RegionEvaluator> build(const pkg::Region &region,
                                         bool elementwise);
  struct Program;
  explicit RegionEvaluator(std::shared_ptr<const Program> program);
  std::shared_ptr<const Program> program;
};

} // namespace attnc::ref

#endif // ATTNC_LIB_REFERENCE_REGION_H
