//===- AttnOps.td - attn dialect operations ----------------*- tablegen -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_DIALECTS_ATTN_ATTNOPS_TD
#define ATTNC_DIALECTS_ATTN_ATTNOPS_TD

include "dialects/attn/AttnAttrs.td"
include "dialects/attn/AttnDialect.td"
include "dialects/attn/AttnInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// attn.attention
//===----------------------------------------------------------------------===//

/// The attributes every op with attention's scoring carries.
defvar AttentionScoringAttrs = (ins OptionalAttr<F32Attr>:$scale,
                                    UnitAttr:$causal,
                                    UnitAttr:$bottom_right,
                                    OptionalAttr<I64Attr>:$window_left,
                                    OptionalAttr<I64Attr>:$window_right,
                                    OptionalAttr<Attn_TilesAttr>:$tiles);

def Attn_AttentionOp : Attn_Op<"attention", [Pure, IsolatedFromAbove,
    Attn_AttentionScoringOpInterface,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>,
    DeclareOpInterfaceMethods<Attn_VJPOpInterface,
                              ["isDifferentiableResult",
                               "isDifferentiableOperand"]>]> {
  let summary = "softmax attention with optional mask and score regions";
  let description = [{
    Computes, for every batch `b`, query head `h`, query row `i`:

    ```
    s[j]   = score(scale * dot(q[b, h, i], k[b, h / g, j]), b, h, i, j)
    out[b, h, i] = sum_j softmax(s)[j] * v[b, h / g, j]   over allowed j
    lse[b, h, i] = log(sum_j exp(s[j]))                    over allowed j
    ```

    with `g = Hq / Hkv` (multi-head when `g = 1`, grouped-query when `g > 1`,
    multi-query when `Hkv = 1`). Shapes: `q` is `[B, Hq, Nq, D]`, `k` is
    `[B, Hkv, Nk, D]`, `v` is `[B, Hkv, Nk, Dv]`, `out` is `[B, Hq, Nq, Dv]`
    with the element type of `q`, and `lse` is `[B, Hq, Nq]` in f32. A row with
    no allowed key gets `out = 0` and `lse = -inf`.

    `scale` defaults to `1 / sqrt(D)`. With `r = i` (top-left alignment, the
    default) or `r = i + Nk - Nq` (`bottom_right`), key `j` is allowed for row
    `i` when all of these hold:
    - `causal` is absent, or `j <= r`;
    - `window_left` is absent, or `r - j <= window_left`;
    - `window_right` is absent, or `j - r <= window_right`;
    - the `mask` region is absent, or yields true for `(b, h, i, j)`.

    Windows are in `[0, 2^62]`: `i +- window` never overflows.

    `bottom_right` aligns the shorthands' diagonal with the last key, as
    FlashAttention 2.1 and later do: the last query row sees every key, which
    is what decoding with a key/value cache and chunked prefill need (with
    `Nq > Nk`, the first `Nq - Nk` rows see no key). It needs `causal` or a
    window. The `mask` and `score` regions always take raw positions. The
    shorthand attributes mean exactly the mask regions they abbreviate; they
    exist so the compiler can bound the key loop without analysing a region.

    The `mask` region (FlexAttention's `mask_mod`) takes `(b, h, q_idx, k_idx)`
    as `index` values and yields an `i1`. The `score` region (`score_mod`) takes
    the scaled score as `f32` followed by the same four indices and yields the
    `f32` score that enters the softmax. Both are single-block and isolated
    from above, and hold only the scalar `arith` and `math` ops of the region
    op table (`lib/semantics/RegionOps.def`), which every stage of attnc
    implements: code generation, tile classification, the package and the
    fp64 reference.

    `captures` are tensors the regions read, as FlexAttention's `mask_mod`
    and `score_mod` read the tensors they close over: a document id per
    position, a bias table per head. Each region takes them as arguments
    after its indices, in order, and reads them with `tensor.extract`; an
    index outside a capture's shape reads 0. Captures have rank 1 to 4
    and elements of i32, i64, f16, bf16 or f32; their dims are not tied
    to the attention's. They carry no gradient.

    `tiles` pins the kernel's tile sizes and tensor-core kind (see
    `#attn.tiles`).

    Example (ALiBi on top of a causal mask, grouped-query with 4 query heads
    per key head):

    ```mlir
    %out, %lse = attn.attention %q, %k, %v {causal}
        : tensor<?x16x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>
        -> tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
      score {
      ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
        %d = arith.subi %qi, %ki : index
        %di = arith.index_cast %d : index to i64
        %df = arith.sitofp %di : i64 to f32
        %slope = arith.constant 0.0625 : f32
        %bias = arith.mulf %df, %slope : f32
        %r = arith.subf %s, %bias : f32
        attn.yield %r : f32
      }
    ```

    Packed documents: a query sees only the keys of its own document, from
    an i32 document id per (batch, position):

    ```mlir
    %out, %lse = attn.attention %q, %k, %v captures(%doc : tensor<?x?xi32>)
        {causal} : tensor<?x16x?x64xbf16>, tensor<?x16x?x64xbf16>,
        tensor<?x16x?x64xbf16> -> tensor<?x16x?x64xbf16>, tensor<?x16x?xf32>
      mask {
      ^bb0(%b: index, %h: index, %qi: index, %ki: index, %d: tensor<?x?xi32>):
        %dq = tensor.extract %d[%b, %qi] : tensor<?x?xi32>
        %dk = tensor.extract %d[%b, %ki] : tensor<?x?xi32>
        %same = arith.cmpi eq, %dq, %dk : i32
        attn.yield %same : i1
      }
    ```
  }];

  let arguments = !con((ins AnyRankedTensor:$q, AnyRankedTensor:$k,
                            AnyRankedTensor:$v,
                            Variadic<AnyRankedTensor>:$captures),
                       AttentionScoringAttrs);
  let results = (outs AnyRankedTensor:$out, AnyRankedTensor:$lse);
  let regions = (region MaxSizedRegion<1>:$mask, MaxSizedRegion<1>:$score);

  let assemblyFormat = [{
    $q `,` $k `,` $v (`captures` `(` $captures^ `:` type($captures) `)`)?
    attr-dict `:` type($q) `,` type($k) `,` type($v)
    `->` type($out) `,` type($lse) (`mask` $mask^)? (`score` $score^)?
  }];

  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Split-key attention: the kernels attn-split-keys makes of attn.attention
//===----------------------------------------------------------------------===//

def Attn_AttentionSplitOp : Attn_Op<"attention_split", [Pure,
    IsolatedFromAbove,
    DeclareOpInterfaceMethods<Attn_AttentionScoringOpInterface,
                              ["getKeySplits"]>,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>]> {
  let summary = "attention over separate ranges of keys (flash-decoding)";
  let description = [{
    The first kernel of split-key attention: `S` blocks of keys, `S` the
    leading dim of the results, are attended separately, so that few query
    rows against many keys still fill the GPU. `out_part[s]` and
    `lse_part[s]` are the `out` and `lse` of `attn.attention` (same
    operands, attributes and regions) restricted to the keys of range `s`,
    in f32: `[S, B, Hq, Nq, Dv]` and `[S, B, Hq, Nq]`. A range holds
    `ceil(Nk / S)` keys rounded up to the kernel's key tile; a range with
    no allowed key gives `out_part = 0` and `lse_part = -inf`.
    `attn.attention_combine` merges the ranges.

    ```mlir
    %po, %pl = attn.attention_split %q, %k, %v {causal, bottom_right}
        : tensor<?x32x1x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
        -> tensor<16x?x32x1x128xf32>, tensor<16x?x32x1xf32>
    ```
  }];

  let arguments = !con((ins AnyRankedTensor:$q, AnyRankedTensor:$k,
                            AnyRankedTensor:$v,
                            Variadic<AnyRankedTensor>:$captures),
                       AttentionScoringAttrs);
  let results = (outs AnyRankedTensor:$out_part, AnyRankedTensor:$lse_part);
  let regions = (region MaxSizedRegion<1>:$mask, MaxSizedRegion<1>:$score);

  let assemblyFormat = [{
    $q `,` $k `,` $v (`captures` `(` $captures^ `:` type($captures) `)`)?
    attr-dict `:` type($q) `,` type($k) `,` type($v)
    `->` type($out_part) `,` type($lse_part) (`mask` $mask^)?
    (`score` $score^)?
  }];

  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Attn_AttentionCombineOp : Attn_Op<"attention_combine", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>]> {
  let summary = "merges the key ranges of attn.attention_split";
  let description = [{
    The second kernel of split-key attention: per row,
    `lse = log(sum_s exp(lse_part[s]))` and
    `out = sum_s exp(lse_part[s] - lse) * out_part[s]`, rounded once to
    `out`'s element type. A row no range allows gets `out = 0` and
    `lse = -inf`, as `attn.attention` gives it. `block_size` is the number
    of output elements per block.

    ```mlir
    %out, %lse = attn.attention_combine %po, %pl
        : tensor<16x?x32x1x128xf32>, tensor<16x?x32x1xf32>
        -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$out_part, AnyRankedTensor:$lse_part,
                       OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$out, AnyRankedTensor:$lse);
  let assemblyFormat = [{
    $out_part `,` $lse_part attr-dict `:` type($out_part) `,` type($lse_part)
    `->` type($out) `,` type($lse)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// attn.attention_grad and the kernels it expands into
//===----------------------------------------------------------------------===//

def Attn_AttentionGradOp : Attn_Op<"attention_grad", [Pure, IsolatedFromAbove,
    Attn_AttentionScoringOpInterface]> {
  let summary = "gradients of attn.attention with respect to q, k and v";
  let description = [{
    Given the operands of an `attn.attention` with the same attributes and
    regions, its results `out` and `lse`, and the cotangent `dout` of `out`,
    computes the vector-Jacobian products

    ```
    P[i, j]  = exp(s[i, j] - lse[i])                  over allowed j
    dP[i, j] = dot(dout[i], v[j]);   D[i] = dot(dout[i], out[i])
    dS[i, j] = P[i, j] * (dP[i, j] - D[i]) * score'(scale * dot(q[i], k[j]))
    dq[i] = scale * sum_j dS[i, j] k[j]
    dk[j] = scale * sum_(h in group, i) dS[i, j] q[i]
    dv[j] = sum_(h in group, i) P[i, j] dout[i]
    ```

    per batch and head, where `score'` is the derivative of the score region
    with respect to its score argument (1 without a score region) and the
    group sums run over the query heads that share a key/value head. Rows
    whose `lse` is `-inf` (no allowed key) contribute nothing.

    Shapes and attributes are those of `attn.attention`: `dout` and `out` are
    `[B, Hq, Nq, Dv]`, `lse` is `[B, Hq, Nq]` f32, and `dq`, `dk`, `dv` have
    the types of `q`, `k`, `v`. `deterministic` computes dq without atomic
    accumulation, so results are bitwise identical from run to run.

    The `score_grad` region takes the arguments of the score region and
    yields `score'`. `attn-differentiate-score` derives it from the score
    region; when written by hand it must be that derivative.

    `attn-derive-backward` creates this op as the gradient rule of
    `attn.attention`; `attn-expand-attention-grad` turns it into kernels.

    ```mlir
    %dq, %dk, %dv = attn.attention_grad %q, %k, %v, %out, %lse, %dout {causal}
        : tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
          tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>, tensor<?x8x?x64xbf16>
        -> tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>
    ```
  }];

  let arguments = !con((ins AnyRankedTensor:$q, AnyRankedTensor:$k,
                            AnyRankedTensor:$v, AnyRankedTensor:$out,
                            AnyRankedTensor:$lse, AnyRankedTensor:$dout,
                            Variadic<AnyRankedTensor>:$captures,
                            UnitAttr:$deterministic), AttentionScoringAttrs);
  let results = (outs AnyRankedTensor:$dq, AnyRankedTensor:$dk,
                      AnyRankedTensor:$dv);
  let regions = (region MaxSizedRegion<1>:$mask, MaxSizedRegion<1>:$score,
                        MaxSizedRegion<1>:$score_grad);

  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $out `,` $lse `,` $dout
    (`captures` `(` $captures^ `:` type($captures) `)`)? attr-dict `:` type($q) `,`
    type($k) `,` type($v) `,` type($out) `,` type($lse) `,` type($dout)
    `->` type($dq) `,` type($dk) `,` type($dv)
    (`mask` $mask^)? (`score` $score^)? (`score_grad` $score_grad^)?
  }];

  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Attn_AttentionGradDeltaOp : Attn_Op<"attention_grad_delta", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>]> {
  let summary = "the row sums D = rowsum(dout * out) of attention's backward";
  let description = [{
    The first kernel of an expanded `attn.attention_grad`:
    `delta[b, h, i] = sum_d out[b, h, i, d] * dout[b, h, i, d]` in f32, and
    `dq_accum`, an f32 `[B, Hq, Nq, D]` tensor of zeros that the key/value
    kernel accumulates dq into.

    ```mlir
    %delta, %acc = attn.attention_grad_delta %out, %dout
        : tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>
        -> tensor<?x8x?xf32>, tensor<?x8x?x64xf32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$out, AnyRankedTensor:$dout,
                       OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$delta, AnyRankedTensor:$dq_accum);
  let assemblyFormat = [{
    $out `,` $dout attr-dict `:` type($out) `,` type($dout) `->`
    type($delta) `,` type($dq_accum)
  }];
  let hasVerifier = 1;
}

def Attn_AttentionGradKVOp : Attn_Op<"attention_grad_kv", [Pure,
    IsolatedFromAbove, AttrSizedOperandSegments,
    Attn_AttentionScoringOpInterface,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface, ["getTiedOperand"]>]> {
  let summary = "dk and dv of attention, one block of keys at a time";
  let description = [{
    The main kernel of an expanded `attn.attention_grad`: for each block of
    keys of a key/value head, recomputes `P` from `lse` tile by tile over
    the query rows of every query head of its group, and accumulates `dk`
    and `dv` (the formulas of `attn.attention_grad`, with `delta` for `D`).
    With `dq_accum`, it also adds each tile's contribution to dq into it,
    atomically, and returns the sum as `dq_accum_out` (in place).

    `row_swizzle = W` stores each row of the accumulator in the swizzled
    order of width W instead of in column order: within every W columns,
    the group of 16 columns k, its 2-column pair i (0-3) and the row r
    select the 4-float slot (4k + i + 4 (r mod 8)) mod (W / 4), which holds
    the pair and the one 8 columns after it (docs/design.md, "The dq
    accumulator"). A wgmma warpgroup's accumulator rows then go to shared
    memory as 16-byte stores without bank conflicts, and on to the
    accumulator as one bulk reduction per tile. Rows stay in place, so a
    tile's rows are one contiguous span. The `attn.cast` that reads the sum
    names the same order.

    ```mlir
    %dk, %dv, %acc1 = attn.attention_grad_kv %q, %k, %v, %lse, %delta, %dout,
        %acc0 : tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
        tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>, tensor<?x8x?xf32>,
        tensor<?x8x?x64xbf16>, tensor<?x8x?x64xf32>
        -> tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xf32>
    ```
  }];

  let arguments = !con((ins AnyRankedTensor:$q, AnyRankedTensor:$k,
                            AnyRankedTensor:$v, AnyRankedTensor:$lse,
                            AnyRankedTensor:$delta, AnyRankedTensor:$dout,
                            Optional<AnyRankedTensor>:$dq_accum,
                            Variadic<AnyRankedTensor>:$captures,
                            OptionalAttr<I64Attr>:$row_swizzle),
                       AttentionScoringAttrs);
  let results = (outs AnyRankedTensor:$dk, AnyRankedTensor:$dv,
                      Optional<AnyRankedTensor>:$dq_accum_out);
  let regions = (region MaxSizedRegion<1>:$mask, MaxSizedRegion<1>:$score,
                        MaxSizedRegion<1>:$score_grad);

  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $lse `,` $delta `,` $dout (`,` $dq_accum^)?
    (`captures` `(` $captures^ `:` type($captures) `)`)? attr-dict
    `:` type($q) `,` type($k) `,` type($v) `,` type($lse) `,` type($delta)
    `,` type($dout) (`,` type($dq_accum)^)? `->` type($dk) `,` type($dv)
    (`,` type($dq_accum_out)^)?
    (`mask` $mask^)? (`score` $score^)? (`score_grad` $score_grad^)?
  }];

  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Attn_AttentionGradQOp : Attn_Op<"attention_grad_q", [Pure,
    IsolatedFromAbove, Attn_AttentionScoringOpInterface,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>]> {
  let summary = "dq of attention, one block of query rows at a time";
  let description = [{
    The dq kernel of a deterministic `attn.attention_grad`: for each block of
    query rows, recomputes `P` and `dS` tile by tile over the keys and sums
    `dq` in registers, so no two blocks write the same element and results
    are bitwise reproducible.

    ```mlir
    %dq = attn.attention_grad_q %q, %k, %v, %lse, %delta, %dout
        : tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16>,
          tensor<?x8x?xf32>, tensor<?x8x?xf32>, tensor<?x8x?x64xbf16>
        -> tensor<?x8x?x64xbf16>
    ```
  }];

  let arguments = !con((ins AnyRankedTensor:$q, AnyRankedTensor:$k,
                            AnyRankedTensor:$v, AnyRankedTensor:$lse,
                            AnyRankedTensor:$delta, AnyRankedTensor:$dout,
                            Variadic<AnyRankedTensor>:$captures),
                       AttentionScoringAttrs);
  let results = (outs AnyRankedTensor:$dq);
  let regions = (region MaxSizedRegion<1>:$mask, MaxSizedRegion<1>:$score,
                        MaxSizedRegion<1>:$score_grad);

  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $lse `,` $delta `,` $dout
    (`captures` `(` $captures^ `:` type($captures) `)`)? attr-dict `:` type($q)
    `,` type($k) `,` type($v) `,` type($lse) `,` type($delta) `,` type($dout)
    `->` type($dq)
    (`mask` $mask^)? (`score` $score^)? (`score_grad` $score_grad^)?
  }];

  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// attn.linear_attention
//===----------------------------------------------------------------------===//

def Attn_LinearAttentionOp : Attn_Op<"linear_attention", [Pure]> {
  let summary = "linear attention with a fused kernel feature map";
  let description = [{
    Computes `out[b, h, i] = phi(q_i) · S / (phi(q_i) · z)` with
    `S = sum_j phi(k_j)ᵀ v_j` and `z = sum_j phi(k_j)`, the sums running over
    every key, or over `j <= i` when `causal` is set. Shapes are those of
    `attn.attention` (`q` is `[B, Hq, Nq, D]`, `k` is `[B, Hkv, Nk, D]`, `v` is
    `[B, Hkv, Nk, Dv]`, `out` is `[B, Hq, Nq, Dv]`); causal needs `Nq = Nk`.

    Feature maps `phi`:
    - `elu1`: `elu(x) + 1`;
    - `relu`: `max(x, 0)`;
    - `favor`: FAVOR+ positive random features with `num_features` features
      drawn from `seed`; both attributes are required for `favor` and absent
      otherwise.

    Example:

    ```mlir
    %out = attn.linear_attention elu1 %q, %k, %v {causal}
        : tensor<2x8x1024x64xf32>, tensor<2x8x1024x64xf32>,
          tensor<2x8x1024x64xf32> -> tensor<2x8x1024x64xf32>
    ```
  }];

  let arguments = (ins Attn_FeatureMapKindAttr:$feature_map,
                       AnyRankedTensor:$q, AnyRankedTensor:$k,
                       AnyRankedTensor:$v,
                       UnitAttr:$causal,
                       OptionalAttr<I64Attr>:$num_features,
                       OptionalAttr<I64Attr>:$seed);
  let results = (outs AnyRankedTensor:$out);

  let assemblyFormat = [{
    $feature_map $q `,` $k `,` $v attr-dict `:` type($q) `,` type($k) `,`
    type($v) `->` type($out)
  }];

  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// attn.cast
//===----------------------------------------------------------------------===//

def Attn_CastOp : Attn_Op<"cast", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>,
    DeclareOpInterfaceMethods<Attn_VJPOpInterface>]> {
  let summary = "element type conversion with an optional scale";
  let description = [{
    Converts every element to the result element type after multiplying it by
    `scale` (default 1): `out = convert(in * scale)`, rounding to nearest
    even. The result type may be f32, f16, bf16, or the fp8 types `f8E4M3FN`
    and `f8E5M2` (fp8 is accepted here; code generation does not lower it
    yet and says so).

    `block_size` pins the elements each block of the kernel converts (the
    kernel-config step chooses it otherwise).

    `in_row_swizzle = W` reads `in`'s rows in the swizzled order of width W
    that `attn.attention_grad_kv`'s `row_swizzle` writes (the innermost dim
    a multiple of W); `out` is in column order.

    Example (loss scaling before a bf16 cast):

    ```mlir
    %y = attn.cast %x {scale = 1024.0 : f32} : tensor<8x128xf32> to tensor<8x128xbf16>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$in, OptionalAttr<F32Attr>:$scale,
                       OptionalAttr<I64Attr>:$block_size,
                       OptionalAttr<I64Attr>:$in_row_swizzle);
  let results = (outs AnyRankedTensor:$out);

  let assemblyFormat = [{
    $in attr-dict `:` type($in) `to` type($out)
  }];

  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// attn.elementwise
//===----------------------------------------------------------------------===//

def Attn_ElementwiseOp : Attn_Op<"elementwise", [Pure, IsolatedFromAbove,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface,
                              ["getReusableOperands"]>,
    DeclareOpInterfaceMethods<Attn_F32ComputeOpInterface>,
    DeclareOpInterfaceMethods<Attn_VJPOpInterface,
                              ["isDifferentiableOperand"]>]> {
  let summary = "a scalar function applied to every element of its inputs";
  let description = [{
    Computes `(out0[i], out1[i], ...) = round(body(f32(in0[i]), f32(in1[i]),
    ...))` for every index `i`: the inputs and the results have one shape,
    each input element enters the body as an exact `f32`, the body computes
    in `f32` and each value it yields is rounded once (nearest even) to its
    result's element type. Inputs and results are f32, f16 or bf16. Several
    results share one pass over the inputs (the gradients of all inputs of
    an elementwise op are one such op).

    A rank-0 input beside results of higher rank is broadcast: every
    element reads its one value (a learning rate, a loss scale). Such an
    input takes no gradient, as attention's captures take none; at least
    one input has the results' shape.

    The body is a single block that takes one `f32` per input and yields one
    `f32` per result, and holds only the scalar ops of the region op table
    (`lib/semantics/RegionOps.def`), the table that mask and score regions
    use and that the package, the fp64 reference and every code generator
    read. Front ends usually write upstream `arith` and `math` ops on
    tensors instead; `attn-fuse-elementwise` turns chains of them into this
    op, one kernel per chain.

    `block_size` pins the elements each block of the kernel computes (the
    kernel-config step chooses it otherwise).

    Canonicalization drops inputs the body does not read and repeated
    inputs (a kernel loads each input it takes), makes a result that yields
    an input unchanged in that input's type, or what an earlier result of
    its type yields, that value, and drops results nothing reads.

    Example (a residual add of a bf16 branch into an f32 stream):

    ```mlir
    %y = attn.elementwise %x, %branch
        : tensor<?x?x2048xf32>, tensor<?x?x2048xbf16> -> tensor<?x?x2048xf32> {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      attn.yield %s : f32
    }
    ```
  }];

  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       OptionalAttr<I64Attr>:$block_size);
  let results = (outs Variadic<AnyRankedTensor>:$outs);
  let regions = (region SizedRegion<1>:$body);

  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($outs) $body
  }];

  let extraClassDeclaration = [{
    /// Whether input `index` is a rank-0 tensor that every element reads.
    bool isBroadcastInput(unsigned index);
  }];

  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// attn.matmul
//===----------------------------------------------------------------------===//

def Attn_MatmulOp : Attn_Op<"matmul", [Pure, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>,
    DeclareOpInterfaceMethods<Attn_EpilogueAddendOpInterface>,
    DeclareOpInterfaceMethods<Attn_VJPOpInterface>]> {
  let summary = "a matrix product over the rows of activations";
  let description = [{
    A matrix product with the leading dims of an activation read as rows:
    a tensor `[r0, ..., rk, c]` is the matrix `[r0 * ... * rk, c]`. The
    products accumulate in `f32` (the reference in f64) and each result
    element is rounded once, nearest even, to the result's element type.

    Without `transpose_a` it is a linear layer: `a` is `[r..., K]`, `b` a
    weight `[K, N]` (`[N, K]` with `transpose_b`, PyTorch's `nn.Linear`
    layout), and `out[r..., n] = sum_k a[r..., k] * b[k, n]` is `[r..., N]`.

    With `transpose_a` it contracts the rows, which is what a weight's
    gradient is: `a` is `[r..., M]`, `b` is `[r..., N]` over the same rows
    and `out[m, n] = sum_r a[r, m] * b[r, n]` is `[M, N]`.

    A linear layer may add a `bias` `[N]` of the result's element type to
    every row before the rounding (`out[r..., n] = sum_k ... + bias[n]`); a
    row contraction takes none. The bias's gradient is the row sum of the
    result's cotangent.

    Either form may add an `addend` of the result's type, element by
    element, before the rounding: `out = sum_k ... (+ bias) + addend`, one
    rounding where a matmul followed by an addition rounds twice. This is
    the residual add of a block (and the sum of the gradients that reach one
    activation) fused into the product's epilogue by `attn-fuse-epilogues`;
    cuBLASLt reads it as its C matrix. The addend's gradient is the result's
    cotangent.

    A linear layer may apply an `activation` to the sum (bias included)
    before the rounding, computed in f32: `gelu_tanh` is GELU's tanh form,
    `0.5 x (1 + tanh(0.7978845608 (x + 0.044715 x^3)))`, cuBLASLt's GELU
    epilogue on the GPU. `attn-fuse-activations` puts it there from an
    `attn.elementwise` that computes that form of the product alone; an
    activation and an addend do not go together (cuBLASLt would apply the
    activation after adding C). Its gradient is that of the unfused form:
    the product, the activation's derivative, then the product's rules.

    `a` and `b` have one element type, f32, f16 or bf16; the result has
    theirs or f32. `tile` pins the host kernel's `[rows, columns]` tile;
    `library = "cublaslt"` runs the product as a library call on the GPU
    (the kernel-config step chooses one or the other).

    Example (a projection, then the weight's gradient):

    ```mlir
    %y = attn.matmul %x, %w {transpose_b}
        : tensor<?x?x2048xbf16>, tensor<6144x2048xbf16> -> tensor<?x?x6144xbf16>
    %dw = attn.matmul %dy, %x {transpose_a}
        : tensor<?x?x6144xbf16>, tensor<?x?x2048xbf16> -> tensor<6144x2048xbf16>
    // a residual sublayer: h = x + o W^T, rounded once
    %h = attn.matmul %o, %wo + %x {transpose_b}
        : tensor<?x?x2048xbf16>, tensor<2048x2048xbf16> + tensor<?x?x2048xbf16>
        -> tensor<?x?x2048xbf16>
    // an MLP's first layer: gelu(n W^T + b), rounded once
    %f = attn.matmul %n, %wf, %bf {activation = "gelu_tanh", transpose_b}
        : tensor<?x?x768xbf16>, tensor<3072x768xbf16>, tensor<3072xbf16>
        -> tensor<?x?x3072xbf16>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$a, AnyRankedTensor:$b,
                       Optional<AnyRankedTensor>:$bias,
                       Optional<AnyRankedTensor>:$addend,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       OptionalAttr<DenseI64ArrayAttr>:$tile,
                       OptionalAttr<StrAttr>:$library,
                       OptionalAttr<StrAttr>:$activation);
  let results = (outs AnyRankedTensor:$out);

  let extraClassDeclaration = [{
    ::mlir::LogicalResult verifyBias();
    ::mlir::LogicalResult verifyAddend();
    ::mlir::LogicalResult verifyActivation();
    ::mlir::FailureOr<::llvm::SmallVector<::mlir::Value>>
    buildUnfusedVJP(::mlir::OpBuilder &builder, ::llvm::StringRef activation,
                    ::mlir::Value dout);
  }];

  let assemblyFormat = [{
    $a `,` $b (`,` $bias^)? (`+` $addend^)? attr-dict `:` type($a) `,`
    type($b) (`,` type($bias)^)? (`+` type($addend)^)? `->` type($out)
  }];

  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// attn.rms_norm, attn.layer_norm, their gradients, attn.sum_rows
//===----------------------------------------------------------------------===//

def Attn_RmsNormOp : Attn_Op<"rms_norm", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>,
    DeclareOpInterfaceMethods<Attn_F32ComputeOpInterface>,
    DeclareOpInterfaceMethods<Attn_VJPOpInterface, ["isDifferentiableResult"]>]> {
  let summary = "RMSNorm over the last dim, scaled by a weight";
  let description = [{
    For each row `x[r..., :]` of width `D` (the last dim, static):
    `rstd[r...] = 1 / sqrt(mean_d(x^2) + epsilon)` and
    `out[r..., d] = x[r..., d] * rstd[r...] * weight[d]`, computed in f32
    and rounded once to the result's element type. `rstd` (f32, the leading
    dims) is what the gradient reads again; it takes no cotangent.

    One kernel reads a row once for its statistic and once more (from
    cache) to scale it. `block_size` pins the rows of a kernel block (the
    kernel-config step chooses it otherwise).

    ```mlir
    %y, %rstd = attn.rms_norm %x, %w {epsilon = 1.0e-06 : f32}
        : tensor<?x?x2048xbf16>, tensor<2048xbf16>
        -> tensor<?x?x2048xbf16>, tensor<?x?xf32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$x, AnyRankedTensor:$weight,
                       F32Attr:$epsilon, OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$out, AnyRankedTensor:$rstd);

  let assemblyFormat = [{
    $x `,` $weight attr-dict `:` type($x) `,` type($weight) `->` type($out)
    `,` type($rstd)
  }];

  let hasVerifier = 1;
}

def Attn_RmsNormGradOp : Attn_Op<"rms_norm_grad", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>,
    DeclareOpInterfaceMethods<Attn_F32ComputeOpInterface>,
    DeclareOpInterfaceMethods<Attn_EpilogueAddendOpInterface>]> {
  let summary = "the gradients of attn.rms_norm's input and weight";
  let description = [{
    With `xhat = x * rstd` and `g = dout * weight` per row:
    `dx = rstd * (g - xhat * mean_d(g * xhat))`, rounded to `dx`'s element
    type, and the weight's gradient `sum_r dout * xhat` as `P` f32 partial
    sums: row `i` of the rows is added into `dweight_partial[i mod P, :]`,
    so that each partial row has one writer and the result does not depend
    on the order of threads. `attn.sum_rows` adds the partial rows up.

    An `addend` of dx's type is added to dx before its rounding: the
    residual stream's cotangent, which joins the norm's input gradient in a
    pre-norm block (`attn-fuse-epilogues` puts it there).

    `block_size` pins the partial rows of a kernel block.

    ```mlir
    %dx, %dwp = attn.rms_norm_grad %x, %w, %rstd, %dy
        : tensor<?x2048xbf16>, tensor<2048xbf16>, tensor<?xf32>, tensor<?x2048xbf16>
        -> tensor<?x2048xbf16>, tensor<512x2048xf32>
    %dh, %dwp2 = attn.rms_norm_grad %x, %w, %rstd, %dy + %dres
        : tensor<?x2048xbf16>, tensor<2048xbf16>, tensor<?xf32>, tensor<?x2048xbf16>
        + tensor<?x2048xbf16> -> tensor<?x2048xbf16>, tensor<512x2048xf32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$x, AnyRankedTensor:$weight,
                       AnyRankedTensor:$rstd, AnyRankedTensor:$dout,
                       Optional<AnyRankedTensor>:$addend,
                       OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$dx, AnyRankedTensor:$dweight_partial);

  let assemblyFormat = [{
    $x `,` $weight `,` $rstd `,` $dout (`+` $addend^)? attr-dict `:`
    type($x) `,` type($weight) `,` type($rstd) `,` type($dout)
    (`+` type($addend)^)? `->` type($dx) `,` type($dweight_partial)
  }];

  let hasVerifier = 1;
}

def Attn_LayerNormOp : Attn_Op<"layer_norm", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>,
    DeclareOpInterfaceMethods<Attn_F32ComputeOpInterface>,
    DeclareOpInterfaceMethods<Attn_VJPOpInterface, ["isDifferentiableResult"]>]> {
  let summary = "LayerNorm over the last dim, with a weight and a bias";
  let description = [{
    For each row `x[r..., :]` of width `D` (the last dim, static), with
    `mean[r...] = mean_d(x)`: `rstd[r...] = 1 / sqrt(mean_d((x - mean)^2) +
    epsilon)` and `out[r..., d] = (x[r..., d] - mean) * rstd * weight[d] +
    bias[d]` (no bias: 0), computed in f32 and rounded once to the result's
    element type. `rstd` (f32, the leading dims) is what the gradient reads
    again with the row; the gradient recomputes the mean from the row it
    loads anyway, so it is not kept. `rstd` takes no cotangent.

    The kernel is attn.rms_norm's with the row centred first; `block_size`
    pins the rows of a kernel block.

    ```mlir
    %y, %rstd = attn.layer_norm %x, %w, %b {epsilon = 1.0e-05 : f32}
        : tensor<?x?x768xbf16>, tensor<768xbf16>, tensor<768xbf16>
        -> tensor<?x?x768xbf16>, tensor<?x?xf32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$x, AnyRankedTensor:$weight,
                       Optional<AnyRankedTensor>:$bias, F32Attr:$epsilon,
                       OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$out, AnyRankedTensor:$rstd);

  let assemblyFormat = [{
    $x `,` $weight (`,` $bias^)? attr-dict `:` type($x) `,` type($weight)
    (`,` type($bias)^)? `->` type($out) `,` type($rstd)
  }];

  let hasVerifier = 1;
}

def Attn_LayerNormGradOp : Attn_Op<"layer_norm_grad", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>,
    DeclareOpInterfaceMethods<Attn_F32ComputeOpInterface>,
    DeclareOpInterfaceMethods<Attn_EpilogueAddendOpInterface>]> {
  let summary = "the gradients of attn.layer_norm's input and weight";
  let description = [{
    With the row's mean recomputed, `xhat = (x - mean) * rstd` and
    `g = dout * weight` per row:
    `dx = rstd * (g - mean_d(g) - xhat * mean_d(g * xhat))`, rounded to
    `dx`'s element type, and the weight's gradient `sum_r dout * xhat` as
    `P` f32 partial sums, row `i` into `dweight_partial[i mod P, :]`, as
    attn.rms_norm_grad does, with its `addend` likewise. The bias's
    gradient is `attn.sum_rows` of `dout`.

    ```mlir
    %dx, %dwp = attn.layer_norm_grad %x, %w, %rstd, %dy
        : tensor<?x768xbf16>, tensor<768xbf16>, tensor<?xf32>, tensor<?x768xbf16>
        -> tensor<?x768xbf16>, tensor<512x768xf32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$x, AnyRankedTensor:$weight,
                       AnyRankedTensor:$rstd, AnyRankedTensor:$dout,
                       Optional<AnyRankedTensor>:$addend,
                       OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$dx, AnyRankedTensor:$dweight_partial);

  let assemblyFormat = [{
    $x `,` $weight `,` $rstd `,` $dout (`+` $addend^)? attr-dict `:`
    type($x) `,` type($weight) `,` type($rstd) `,` type($dout)
    (`+` type($addend)^)? `->` type($dx) `,` type($dweight_partial)
  }];

  let hasVerifier = 1;
}

def Attn_SumRowsOp : Attn_Op<"sum_rows", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>]> {
  let summary = "the sum of a tensor's rows";
  let description = [{
    `out[d] = sum over r of in[r..., d]`: every leading dim is summed, in
    f32 in a fixed order, and the sum rounded once to the result's element
    type. It finishes a weight's gradient from partial sums, and is a
    bias's gradient. A rank-0 result of a rank-1 input is the sum of all
    its elements (a squared gradient norm, from the column sums of each
    gradient). With `squares`, each element is squared (in f32) before it
    is summed: a sum of squares that never holds the squares.

    `block_size` pins the columns of a kernel block.

    ```mlir
    %dw = attn.sum_rows %partial : tensor<512x2048xf32> -> tensor<2048xbf16>
    %sq = attn.sum_rows %grad {squares} : tensor<15000x8192xf32> -> tensor<8192xf32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$in, UnitAttr:$squares,
                       OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$out);

  let assemblyFormat = "$in attr-dict `:` type($in) `->` type($out)";

  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// attn.cross_entropy, attn.token_mean and their gradients
//===----------------------------------------------------------------------===//

def Attn_CrossEntropyOp : Attn_Op<"cross_entropy", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>,
    DeclareOpInterfaceMethods<Attn_VJPOpInterface,
        ["isDifferentiableResult", "isDifferentiableOperand"]>]> {
  let summary = "softmax cross-entropy of each row of logits";
  let description = [{
    For each row `logits[r..., :]` over `V` classes (the last dim, static)
    and its label `labels[r...]` (i32 or i64):
    `lse[r...] = log(sum_v exp(logits[r..., v]))` and
    `losses[r...] = lse - logits[r..., label]`, in f32. A row whose label is
    `ignore_index` has loss 0; a label outside `[0, V)` that is not
    `ignore_index` gives a NaN loss, so that bad data shows in the loss
    instead of being read out of bounds. `lse` is what the gradient reads
    again; it takes no cotangent. `attn.token_mean` turns the losses into
    the mean over the tokens that count.

    One kernel reads a row for its max, then again (from cache) for the sum
    of exponentials. `block_size` pins the rows of a kernel block.

    ```mlir
    %losses, %lse = attn.cross_entropy %logits, %labels {ignore_index = -100 : i64}
        : tensor<?x?x50304xbf16>, tensor<?x?xi32> -> tensor<?x?xf32>, tensor<?x?xf32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$logits, AnyRankedTensor:$labels,
                       I64Attr:$ignore_index, OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$losses, AnyRankedTensor:$lse);

  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` type($logits) `,` type($labels) `->`
    type($losses) `,` type($lse)
  }];

  let hasVerifier = 1;
}

def Attn_LinearCrossEntropyOp : Attn_Op<"linear_cross_entropy", [Pure,
    DeclareOpInterfaceMethods<Attn_VJPOpInterface,
        ["isDifferentiableResult", "isDifferentiableOperand"]>]> {
  let summary = "softmax cross-entropy of a linear layer's logits, unmade";
  let description = [{
    `attn.cross_entropy` of the logits `h table^T` (an LM head: `h` rows
    [r..., C], `table` [V, C] static, the tied embedding's layout), each
    logit rounded to `h`'s element type as `attn.matmul` would, without the
    logits ever being whole: `attn-expand-linear-loss` computes them a
    vocabulary chunk at a time (a GEMM into a chunk, the chunk's lse and
    label logit, then one combine), and the gradient the same way, so a
    step holds one chunk of logits instead of [r..., V]. `attn-fuse-linear-
    loss` forms it from `attn.matmul` + `attn.cross_entropy`.

    ```mlir
    %losses, %lse = attn.linear_cross_entropy %h, %e, %labels {ignore_index = -100 : i64}
        : tensor<?x768xbf16>, tensor<50304x768xbf16>, tensor<?xi32>
        -> tensor<?xf32>, tensor<?xf32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$h, AnyRankedTensor:$table,
                       AnyRankedTensor:$labels, I64Attr:$ignore_index);
  let results = (outs AnyRankedTensor:$losses, AnyRankedTensor:$lse);

  let assemblyFormat = [{
    $h `,` $table `,` $labels attr-dict `:` type($h) `,` type($table) `,`
    type($labels) `->` type($losses) `,` type($lse)
  }];

  let hasVerifier = 1;
}

def Attn_LinearCrossEntropyGradOp : Attn_Op<"linear_cross_entropy_grad",
    [Pure]> {
  let summary = "the gradients of attn.linear_cross_entropy's h and table";
  let description = [{
    With `dlogits` the gradient `attn.cross_entropy_grad` gives the logits
    `h table^T` (rounded to `h`'s element type): `dh = dlogits table` and
    `dtable = dlogits^T h`, each accumulated in f32 and rounded once to its
    operand's type. `attn-expand-linear-loss` computes both a vocabulary
    chunk at a time.

    ```mlir
    %dh, %de = attn.linear_cross_entropy_grad %h, %e, %labels, %lse, %dlosses {ignore_index = -100 : i64}
        : tensor<?x768xbf16>, tensor<50304x768xbf16>, tensor<?xi32>, tensor<?xf32>, tensor<?xf32>
        -> tensor<?x768xbf16>, tensor<50304x768xbf16>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$h, AnyRankedTensor:$table,
                       AnyRankedTensor:$labels, AnyRankedTensor:$lse,
                       AnyRankedTensor:$dlosses, I64Attr:$ignore_index);
  let results = (outs AnyRankedTensor:$dh, AnyRankedTensor:$dtable);

  let assemblyFormat = [{
    $h `,` $table `,` $labels `,` $lse `,` $dlosses attr-dict `:` type($h)
    `,` type($table) `,` type($labels) `,` type($lse) `,` type($dlosses)
    `->` type($dh) `,` type($dtable)
  }];

  let hasVerifier = 1;
}

def Attn_CrossEntropyPartialOp : Attn_Op<"cross_entropy_partial", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>]> {
  let summary = "one vocabulary chunk's part of a softmax cross-entropy";
  let description = [{
    `logits` [r..., Vc] are the classes [`vocab_offset`, `vocab_offset` +
    Vc) of rows of logits. For each row: `lse[0, r...] = log(sum_v
    exp(logits[r..., v]))` over the chunk, and `target[0, r...]` the logit
    of the row's label when the label falls in the chunk, else 0 (an
    ignored label included), both f32. The leading 1 makes each chunk a
    row of the [chunks, r...] parts that `attn.cross_entropy_combine`
    reads, which a row concatenation assembles in place.

    ```mlir
    %lse, %target = attn.cross_entropy_partial %logits, %labels {ignore_index = -100 : i64, vocab_offset = 8192 : i64}
        : tensor<?x8192xbf16>, tensor<?xi32> -> tensor<1x?xf32>, tensor<1x?xf32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$logits, AnyRankedTensor:$labels,
                       I64Attr:$ignore_index, I64Attr:$vocab_offset,
                       OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$lse, AnyRankedTensor:$target);

  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` type($logits) `,` type($labels) `->`
    type($lse) `,` type($target)
  }];

  let hasVerifier = 1;
}

def Attn_CrossEntropyCombineOp : Attn_Op<"cross_entropy_combine", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>]> {
  let summary = "a softmax cross-entropy from its vocabulary chunks' parts";
  let description = [{
    From the chunks' `lse_parts` and `targets` [P, r...] (f32, what
    `attn.cross_entropy_partial` gives, chunks covering [0, `vocab_size`)):
    `lse[r...] = log(sum_p exp(lse_parts[p, r...]))` and `losses[r...] =
    lse - sum_p targets[p, r...]`, as `attn.cross_entropy` over the whole
    rows: 0 for a label that is `ignore_index`, NaN for one outside [0,
    `vocab_size`) otherwise.

    ```mlir
    %losses, %lse = attn.cross_entropy_combine %lse_parts, %targets, %labels {ignore_index = -100 : i64, vocab_size = 50304 : i64}
        : tensor<7x?xf32>, tensor<7x?xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$lse_parts, AnyRankedTensor:$targets,
                       AnyRankedTensor:$labels, I64Attr:$ignore_index,
                       I64Attr:$vocab_size, OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$losses, AnyRankedTensor:$lse);

  let assemblyFormat = [{
    $lse_parts `,` $targets `,` $labels attr-dict `:` type($lse_parts) `,`
    type($targets) `,` type($labels) `->` type($losses) `,` type($lse)
  }];

  let hasVerifier = 1;
}

def Attn_CrossEntropyGradOp : Attn_Op<"cross_entropy_grad", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>]> {
  let summary = "the gradient of attn.cross_entropy's logits";
  let description = [{
    `dlogits[r..., v] = (exp(logits[r..., v] - lse[r...]) - [v +
    vocab_offset == label]) * dlosses[r...]`, rounded to `dlogits`' element
    type, and 0 on a row whose label is `ignore_index`. With a
    `vocab_offset` the logits are a vocabulary chunk's, classes
    [`vocab_offset`, `vocab_offset` + V), and `lse` the whole rows'.
    `block_size` pins the rows of a kernel block.

    ```mlir
    %dlogits = attn.cross_entropy_grad %logits, %labels, %lse, %dlosses {ignore_index = -100 : i64}
        : tensor<?x50304xbf16>, tensor<?xi32>, tensor<?xf32>, tensor<?xf32>
        -> tensor<?x50304xbf16>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$logits, AnyRankedTensor:$labels,
                       AnyRankedTensor:$lse, AnyRankedTensor:$dlosses,
                       I64Attr:$ignore_index,
                       DefaultValuedAttr<I64Attr, "0">:$vocab_offset,
                       OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$dlogits);

  let assemblyFormat = [{
    $logits `,` $labels `,` $lse `,` $dlosses attr-dict `:` type($logits) `,`
    type($labels) `,` type($lse) `,` type($dlosses) `->` type($dlogits)
  }];

  let hasVerifier = 1;
}

def Attn_TokenMeanOp : Attn_Op<"token_mean", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>,
    DeclareOpInterfaceMethods<Attn_VJPOpInterface,
                              ["isDifferentiableOperand"]>]> {
  let summary = "the mean of per-token values over the tokens that count";
  let description = [{
    `mean = sum_r values[r] / count`, where the sum and the count run over
    the tokens whose label is not `ignore_index` (`values` f32, `labels` of
    the same shape, i32 or i64; the result a 0-d f32 tensor). With no token
    counting the mean is NaN, as PyTorch's is. The sum is in f32 in a fixed
    order, so the result is the same bits on every run.

    ```mlir
    %loss = attn.token_mean %losses, %labels {ignore_index = -100 : i64}
        : tensor<?x?xf32>, tensor<?x?xi32> -> tensor<f32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$values, AnyRankedTensor:$labels,
                       I64Attr:$ignore_index);
  let results = (outs AnyRankedTensor:$mean);

  let assemblyFormat = [{
    $values `,` $labels attr-dict `:` type($values) `,` type($labels) `->`
    type($mean)
  }];

  let hasVerifier = 1;
}

def Attn_TokenMeanGradOp : Attn_Op<"token_mean_grad", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>]> {
  let summary = "the gradient of attn.token_mean's values";
  let description = [{
    `dvalues[r] = dmean / count` for a token that counts, 0 for one whose
    label is `ignore_index` (count as in attn.token_mean). `block_size` pins
    the tokens of a kernel block.

    ```mlir
    %dlosses = attn.token_mean_grad %labels, %dloss {ignore_index = -100 : i64}
        : tensor<?x?xi32>, tensor<f32> -> tensor<?x?xf32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$labels, AnyRankedTensor:$dmean,
                       I64Attr:$ignore_index, OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$dvalues);

  let assemblyFormat = [{
    $labels `,` $dmean attr-dict `:` type($labels) `,` type($dmean) `->`
    type($dvalues)
  }];

  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// attn.embedding, attn.embedding_grad
//===----------------------------------------------------------------------===//

def Attn_EmbeddingOp : Attn_Op<"embedding", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>,
    DeclareOpInterfaceMethods<Attn_VJPOpInterface,
                              ["isDifferentiableOperand"]>]> {
  let summary = "rows of a table picked by integer ids (token embedding)";
  let description = [{
    `out[r..., :] = table[ids[r...], :]` for a table `[V, D]` (both static)
    and ids of any shape, i32 or i64. An id outside `[0, V)` gives a row of
    NaN, so that bad data shows downstream instead of being read out of
    bounds. The table's gradient is `attn.embedding_grad`: a table tied to
    an LM head (`attn.matmul` with `transpose_b`) gets the sum of both
    gradients.

    `block_size` pins the rows of a kernel block.

    ```mlir
    %x = attn.embedding %table, %ids
        : tensor<50304x768xbf16>, tensor<?x?xi32> -> tensor<?x?x768xbf16>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$table, AnyRankedTensor:$ids,
                       OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$out);

  let assemblyFormat = [{
    $table `,` $ids attr-dict `:` type($table) `,` type($ids) `->` type($out)
  }];

  let hasVerifier = 1;
}

def Attn_TokenOrderOp : Attn_Op<"token_order", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>]> {
  let summary = "token indices sorted by id, for per-id sums";
  let description = [{
    Sorts the tokens by id for a table of `V` rows (the result `bounds`
    `[V + 1]`, static). `order`, of the ids' shape, holds flat token indices:
    those of id 0 in token order, then those of id 1, and so on, so that the
    tokens of id `v` are `order[bounds[v]]` to `order[bounds[v + 1] - 1]`
    (`bounds[0]` is 0). A token whose id is outside `[0, V)` has no place:
    `order` ends in one -1 for each. Both results are i32 (at most 2^31 - 1
    tokens). The order is unique, so the result is the same on every run.

    One kernel block does it: the ids counted per id, the counts summed to
    `bounds`, then each token written to its place in token order (a chunk
    of tokens at a time, sorted by id and token in shared memory). With the
    order, `attn.embedding_grad` sums each id's rows with the work spread
    evenly, however frequent an id is.

    ```mlir
    %order, %bounds = attn.token_order %ids
        : tensor<?x?xi32> -> tensor<?x?xi32>, tensor<50305xi32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$ids);
  let results = (outs AnyRankedTensor:$order, AnyRankedTensor:$bounds);

  let assemblyFormat = [{
    $ids attr-dict `:` type($ids) `->` type($order) `,` type($bounds)
  }];

  let hasVerifier = 1;
}

def Attn_EmbeddingGradOp : Attn_Op<"embedding_grad", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>]> {
  let summary = "the gradient of attn.embedding's table";
  let description = [{
    `dtable[v, :] = sum over r with ids[r] == v of dout[r, :]`, in f32, with
    the ids given as `attn.token_order`'s `order` and `bounds`: row `v` adds
    the dout rows `order[bounds[v]]` to `order[bounds[v + 1] - 1]`, in that
    order (token order), so that the result is the same bits on every run (a
    scatter with atomics would not be). Tokens whose ids are outside `[0, V)`
    add nothing (they are in no id's range).

    A warp sums 32 slices of 64 columns one after another, with the loads
    of several tokens in flight; its slices are far apart (slice `k` of
    item `i` is slice `i + k * items` of the table), so that a frequent
    id's row and frequent ids close together are spread over many warps,
    and the many rows without tokens cost a warp two stores each.
    `block_size` pins the items of a kernel block.

    ```mlir
    %order, %bounds = attn.token_order %ids
        : tensor<?x?xi32> -> tensor<?x?xi32>, tensor<50305xi32>
    %dtable = attn.embedding_grad %order, %bounds, %dx
        : tensor<?x?xi32>, tensor<50305xi32>, tensor<?x?x768xbf16>
        -> tensor<50304x768xf32>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$order, AnyRankedTensor:$bounds,
                       AnyRankedTensor:$dout,
                       OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$dtable);

  let assemblyFormat = [{
    $order `,` $bounds `,` $dout attr-dict `:` type($order) `,` type($bounds)
    `,` type($dout) `->` type($dtable)
  }];

  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// attn.split_heads, attn.merge_heads
//===----------------------------------------------------------------------===//

def Attn_SplitHeadsOp : Attn_Op<"split_heads", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>,
    DeclareOpInterfaceMethods<Attn_VJPOpInterface,
                              ["isDifferentiableOperand"]>]> {
  let summary = "a projection's heads as attention's layout, with RoPE";
  let description = [{
    Reads `x [B, N, H * D]` (a projection's output) as `H` heads of width
    `D` and writes them in attention's layout `out [B, H, N, D]`:
    `out[b, h, n, d] = x[b, n, h * D + d]`. With the rotary tables `cos`
    and `sin` (`[N, R/2]`, f32, R even and at most D) it applies rotary
    position embeddings to the first R dims of each head on the way, in
    the rotate-half form: for i < R/2, with x1 = the element at i and x2
    = the one at i + R/2,
    `out[.., i] = x1 * cos[n, i] - x2 * sin[n, i]` and
    `out[.., i + R/2] = x2 * cos[n, i] + x1 * sin[n, i]`.
    The tables are inputs, so any RoPE variant (base, scaling, a position
    offset for decoding) is a choice of tables; they take no gradient.
    Computed in f32, rounded once to the result's element type.

    `block_size` pins the elements a kernel block writes. Without tables
    `split_heads` of a `merge_heads` of the same type (and the other way
    round) folds to the original tensor: the two only move elements.

    ```mlir
    %q = attn.split_heads %x, %cos, %sin
        : tensor<?x?x2048xbf16>, tensor<?x64xf32>, tensor<?x64xf32>
        -> tensor<?x16x?x128xbf16>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$x, Variadic<AnyRankedTensor>:$tables,
                       OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$out);

  let assemblyFormat = [{
    $x (`,` $tables^)? attr-dict `:` type($x) (`,` type($tables)^)? `->`
    type($out)
  }];

  let hasVerifier = 1;
  let hasFolder = 1;
}

def Attn_MergeHeadsOp : Attn_Op<"merge_heads", [Pure,
    DeclareOpInterfaceMethods<Attn_KernelOpInterface>,
    DeclareOpInterfaceMethods<Attn_VJPOpInterface,
                              ["isDifferentiableOperand"]>]> {
  let summary = "attention's layout back to a projection's, with RoPE's transpose";
  let description = [{
    The transpose of `attn.split_heads`: `y [B, H, N, D]` becomes
    `out [B, N, H * D]` with `out[b, n, h * D + d] = y[b, h, n, d]`; with
    the rotary tables, the first R dims of each head are rotated back by
    the transposed rotation: `out[.., i] = y1 * cos + y2 * sin` and
    `out[.., i + R/2] = y2 * cos - y1 * sin`. It merges attention's heads
    before the output projection, and is split_heads' gradient (and
    split_heads is its).

    ```mlir
    %o = attn.merge_heads %y : tensor<?x16x?x128xbf16> -> tensor<?x?x2048xbf16>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$y, Variadic<AnyRankedTensor>:$tables,
                       OptionalAttr<I64Attr>:$block_size);
  let results = (outs AnyRankedTensor:$out);

  let assemblyFormat = [{
    $y (`,` $tables^)? attr-dict `:` type($y) (`,` type($tables)^)? `->`
    type($out)
  }];

  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// attn.yield
//===----------------------------------------------------------------------===//

def Attn_YieldOp : Attn_Op<"yield", [Pure, Terminator,
    ParentOneOf<["AttentionOp", "AttentionSplitOp", "AttentionGradOp", "AttentionGradKVOp",
                 "AttentionGradQOp", "ElementwiseOp"]>]> {
  let summary = "yields the value of a mask or score region";
  let description = [{
    Terminates a region of `attn.attention` or its gradient ops (an `i1` in
    a mask region, an `f32` in a score or score_grad region), or the body of
    `attn.elementwise` (an `f32` per result).

    ```mlir
    attn.yield %allowed : i1
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // ATTNC_DIALECTS_ATTN_ATTNOPS_TD
