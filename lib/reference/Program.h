//===- Program.h - fp64 semantics of a whole package function ---*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Evaluates what a pkg::Function computes, its `ops`, in double: the
// reference that `attn-run --check` and the tests compare a program's
// outputs with. Each op runs on the values named by its operands
// (attention through attentionForward, the backward kinds through
// lib/reference/AttentionGrad.h, cast as x * scale, elementwise through the
// region evaluator) and its results are rounded to the dtype of the values they
// name (lib/dtype: f32 rounds to float, the narrow float types through float,
// integers to nearest and saturated), as storing them in the compiled program's
// tensors would.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_REFERENCE_PROGRAM_H
#define ATTNC_LIB_REFERENCE_PROGRAM_H

#include "attnc/package/Package.h"

#include <map>
#include <string>
#include <vector>

namespace attnc::ref {

/// Extents of the symbolic dims of a function by symbol (what
/// rt::SymbolBindings::values() gives for a call).
using SymbolValues = std::map<std::string, int64_t>;
/// Elements of values by name, dense row-major.
using ValueData = std::map<std::string, std::vector<double>>;

/// Whether op results are rounded to their values' dtypes (what the
/// compiled program computes) or kept in double (the exact function, which
/// finite differences need).
enum class Rounding { ToDTypes, None };

/// Runs `function.ops` in order. Each value the ops name (inputs, outputs,
/// buffers) has the shape of its signature with its symbols replaced by
/// their extents in `symbols`; `inputs` holds the elements of each input of
/// the function, exactly as many as its shape holds. Returns the inputs and
/// every value an op computed, which includes every output.
///
/// Fails on a missing, extra or mis-sized input, an op of an unknown kind or
/// without its spec, a name that is no value of the function or a value
/// with an unbound symbol ("no shape for value ..."), an operand no input or
/// earlier op provides, shapes an op does not accept, an error of the
/// attention reference, or an output that no op computes. The shapes, from
/// the values' signatures (a result "" has none to check):
///   attention             q, k, v -> out, lse
///   attention_grad_delta  out, dout -> delta, dq_accum (zeros)
///   attention_grad_kv     q, k, v, lse, delta, dout (, dq_accum)
///                         -> dk, dv (, dq_accum_out)
///   attention_grad_q      q, k, v, lse, delta, dout -> dq
/// with q, dq, dq_accum [B, Hq, Nq, D], k, dk [B, Hkv, Nk, D], v, dv
/// [B, Hkv, Nk, Dv], out, dout [B, Hq, Nq, Dv], lse, delta [B, Hq, Nq];
/// cast and elementwise: each operand's shape is the result's; matmul: as
/// ref::matmulShape says, with an optional bias [N] added to every row; with
/// rows R (any leading dims, the same for all):
///   rms_norm, layer_norm  x [R, D], weight [D] (, bias [D]: layer_norm)
///                         -> out [R, D], rstd [R]
///   rms_norm_grad, layer_norm_grad
///                         x [R, D], weight [D], rstd [R], dout [R, D]
///                         -> dx [R, D], dweight_partial [P, D]
///   sum_rows              in [R, D] -> out [D]
///   embedding             table [V, D], ids [T...] -> out [T..., D]
///   token_order           ids [T...] -> order [T...], bounds [V + 1]
///   embedding_grad        order [T...], bounds [V + 1], dout [T..., D]
///                         -> dtable [V, D]
///   cross_entropy         logits [R, V], labels [R] -> losses [R], lse [R]
///   cross_entropy_grad    logits [R, V], labels, lse, dlosses [R]
///                         -> dlogits [R, V]
///   token_mean            values [T...], labels [T...] -> mean []
///   token_mean_grad       labels [T...], dmean [] -> dvalues [T...]
///   split_heads           x [B, N, H * D] (, cos, sin [N, R/2])
///                         -> out [B, H, N, D]
///   merge_heads           y [B, H, N, D] (, cos, sin) -> out [B, N, H * D].
/// Messages name
/// the op, e.g. "op 1 (cast): operand t0 has shape [2, 3], result o has [3,
/// 2]".
StatusOr<ValueData> evaluateProgram(const pkg::Function &function,
                                    const SymbolValues &symbols,
                                    ValueData inputs,
                                    Rounding rounding = Rounding::ToDTypes);

} // namespace attnc::ref

#endif // ATTNC_LIB_REFERENCE_PROGRAM_H
