//===- Activations.h - Epilogue activations' constants ---------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The constants of attn.matmul's epilogue activations, as the kernels hold
// them (f32). The dialect builds its activation bodies from them and the
// fp64 reference evaluates them, so a forward function's reference and the
// derivative of the body its gradient function differentiates are of one
// function (finite differences against the gradients agree to rounding).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_SEMANTICS_ACTIVATIONS_H
#define ATTNC_LIB_SEMANTICS_ACTIVATIONS_H

namespace attnc::sem {

/// gelu_tanh: 0.5 x (1 + tanh(kGeluTanhScale (x + kGeluTanhCubic x^3))).
inline constexpr float kGeluTanhScale = 0.7978845608f; // sqrt(2 / pi)
inline constexpr float kGeluTanhCubic = 0.044715f;

} // namespace attnc::sem

#endif // ATTNC_LIB_SEMANTICS_ACTIVATIONS_H
