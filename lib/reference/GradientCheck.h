//===- GradientCheck.h - Gradients against finite differences --*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Checks what a gradient function computes against its forward function,
// both as the fp64 reference evaluates them, by a directional derivative:
// with L(x) = sum_j <c_j, y_j(x)> over the cotangents c_j of the forward
// outputs y_j, and a random direction u over the inputs with a gradient,
//
//   (L(x + h u) - L(x - h u)) / 2h   must equal   sum_i <g_i(x), u_i>
//
// where g are the gradient function's outputs. Nothing is rounded to a
// dtype, so the two sides agree to about 1e-8 relative whatever the dtypes;
// a wrong gradient rule misses by far more. This checks the compiler's
// autodiff (the ops of the gradient function) independently of it.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_REFERENCE_GRADIENTCHECK_H
#define ATTNC_LIB_REFERENCE_GRADIENTCHECK_H

#include "lib/reference/Program.h"

namespace attnc::ref {

struct DirectionalDerivatives {
  /// The five-point difference of L along u, and sum_i <g_i, u_i>.
  double differences = 0;
  double gradients = 0;
  /// |differences - gradients| / max(|differences|, |gradients|, r), r the
  /// root sum of squares of the terms `gradients` adds up (the size of
  /// their sum along a random direction): a direction along which they
  /// cancel keeps fewer correct digits. 0 when all are 0.
  double relativeError = 0;
};

/// Evaluates `forward` and its gradient function `backward` (whose inputs
/// are forward's inputs, its outputs, then cotangents; see
/// pkg::Function::gradientOf) at the primal inputs and cotangents of
/// `backwardInputs` (by `backward`'s input names; the saved forward outputs
/// are recomputed, so they need not be given), along a direction that
/// `seed` fixes, by the five-point stencil with step `step` times each
/// input's largest magnitude.
StatusOr<DirectionalDerivatives> checkDirectionalDerivative(
    const pkg::Function &forward, const pkg::Function &backward,
    const SymbolValues &symbols, const ValueData &backwardInputs, uint64_t seed,
    double step = 1e-5);

} // namespace attnc::ref

#endif // ATTNC_LIB_REFERENCE_GRADIENTCHECK_H
