//===- AttentionGrad.h - fp64 reference attention backward -----*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The gradient of attentionForward's `out` with respect to q, k and v, in
// double, split the way the compiled backward kernels split it (package op
// kinds "attention_grad_delta", "attention_grad_kv", "attention_grad_q"), so
// that each kernel can be checked on its own, and whole.
//
// Shapes and layouts are attentionForward's (contiguous row-major; query
// head h reads key/value head h / (headsQ / headsKV)):
//   q [B, Hq, Nq, D]    k, dk [B, Hkv, Nk, D]    v, dv [B, Hkv, Nk, Dv]
//   dq, dqAccum [B, Hq, Nq, D]    out, dout [B, Hq, Nq, Dv]
//   lse, delta [B, Hq, Nq]
// With raw = scale * q_i·k_j, S_ij = score(raw) (raw without a score
// region) and allowed(i, j) as in the forward:
//   P_ij    = exp(S_ij - lse_i) when allowed, lse_i is not ±inf and
//             S_ij > -inf; else 0 (a NaN score or lse gives NaN)
//   dP_ij   = dout_i · v_j,   dS_ij = P_ij (dP_ij - delta_i), 0 where P_ij is
//   dRaw_ij = dS_ij score'(raw_ij) scale   (score' = 1 without a region)
//   dv_j = sum over the query heads h of its group and rows i of P_ij dout_i
//   dk_j = the same sum of dRaw_ij q_i,       dq_i = sum_j dRaw_ij k_j
// A pair with P_ij = 0 contributes nothing, so a row without allowed keys
// has gradients of exactly 0, whatever its dout.
//
// Each function fails without writing anything on an invalid shape, a null
// array that is not empty, or a region that does not check (a score region
// must also be differentiable: RegionEvaluator::checkDifferentiable); it
// fails part-way when a region hits undefined behaviour, naming the pair
// ("score region at b=0 h=1 q_idx=2 k_idx=3: ..."). Key/value heads are
// spread over threads.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_REFERENCE_ATTENTIONGRAD_H
#define ATTNC_LIB_REFERENCE_ATTENTIONGRAD_H

#include "lib/reference/Attention.h"

namespace attnc::ref {

/// delta[b, h, i] = sum_d out[b, h, i, d] * dout[b, h, i, d].
Status attentionGradDelta(const AttentionShape &shape, const double *out,
                          const double *dout, double *delta);

/// Writes dk and dv; when dqAccumOut is given, also dqAccumOut =
/// dqAccumIn + dq (dqAccumIn null means 0; it may be dqAccumOut itself).
/// dqAccumIn without dqAccumOut is an error.
Status attentionGradKV(const pkg::AttentionSpec &spec,
                       const AttentionShape &shape, const double *q,
                       const double *k, const double *v, const double *lse,
                       const double *delta, const double *dout,
                       const double *dqAccumIn, double *dk, double *dv,
                       double *dqAccumOut,
                       const std::vector<CaptureView> &captures = {});

/// Writes dq.
Status attentionGradQ(const pkg::AttentionSpec &spec,
                      const AttentionShape &shape, const double *q,
                      const double *k, const double *v, const double *lse,
                      const double *delta, const double *dout, double *dq,
                      const std::vector<CaptureView> &captures = {});

/// The whole gradient of sum(dout ∘ out) with respect to q, k and v, where
/// out = attentionForward(spec, q, k, v): runs attentionForward (for out and
/// lse), attentionGradDelta, attentionGradKV and attentionGradQ.
Status attentionBackward(const pkg::AttentionSpec &spec,
                         const AttentionShape &shape, const double *q,
                         const double *k, const double *v, const double *dout,
                         double *dq, double *dk, double *dv,
                         const std::vector<CaptureView> &captures = {});

} // namespace attnc::ref

#endif // ATTNC_LIB_REFERENCE_ATTENTIONGRAD_H
