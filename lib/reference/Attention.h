//===- Attention.h - fp64 reference attention -----------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The straightforward fp64 computation of pkg::AttentionSpec, which tests and
// `attn-run --check` compare compiled kernels against.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_REFERENCE_ATTENTION_H
#define ATTNC_LIB_REFERENCE_ATTENTION_H

#include "attnc/package/Package.h"
#include "lib/reference/Region.h"

#include <vector>

namespace attnc::ref {

struct AttentionShape {
  int64_t batch = 0;
  int64_t headsQ = 0;
  int64_t headsKV = 0;
  int64_t seqQ = 0;
  int64_t seqK = 0;
  int64_t headDim = 0;
  int64_t headDimV = 0;
};

/// Computes attention as documented on pkg::AttentionSpec, in double:
///   q   [batch, headsQ,  seqQ, headDim]     k [batch, headsKV, seqK, headDim]
///   v   [batch, headsKV, seqK, headDimV]  out [batch, headsQ,  seqQ, headDimV]
///   lse [batch, headsQ,  seqQ] (natural log; may be null when not needed)
/// all contiguous row-major. Query head h reads key/value head
/// h / (headsQ / headsKV). Causal masking and the window compare raw indices
/// (top-left aligned). The mask region sees (b, h, q_idx, k_idx) and allows
/// a pair when it yields true; the score region sees the scaled score first
/// and its result replaces it. A row without allowed keys (or whose scores
/// are all -inf) gets out = 0 and lse = -inf; a NaN score makes its row NaN.
///
/// Fails without writing anything on an invalid shape (negative extents,
/// headsQ not a multiple of headsKV), a null array, or a region that does
/// not check (see RegionEvaluator::create; the mask must yield i1 and the
/// score a float); fails part-way if a region hits undefined behaviour
/// (e.g. fptosi out of range) while evaluating. Rows are spread over threads.
/// The regions read `captures`, one per spec.numCaptures.
Status attentionForward(const pkg::AttentionSpec &spec,
                        const AttentionShape &shape, const double *q,
                        const double *k, const double *v, double *out,
                        double *lse,
                        const std::vector<CaptureView> &captures = {});

} // namespace attnc::ref

#endif // ATTNC_LIB_REFERENCE_ATTENTION_H
