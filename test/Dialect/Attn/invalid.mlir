// RUN: attn-opt %s -split-input-file -verify-diagnostics

// One chunk per verifier diagnostic of the attn dialect
// (dialects/attn/AttnOps.cpp), plus the ODS-generated and trait checks that
// guard the same ops.

//===----------------------------------------------------------------------===//
// attn.attention / attn.linear_attention: ranks
//===----------------------------------------------------------------------===//

// q must have rank 4.
func.func @attention_q_rank_not_4(%q: tensor<4x64x32xf32>, %k: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected q to have rank 4 ([batch, heads, seq, head_dim]), got rank 3}}
  %out, %lse = attn.attention %q, %k, %k
      : tensor<4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// k must have rank 4.
func.func @attention_k_rank_not_4(%q: tensor<1x4x64x32xf32>, %k: tensor<1x1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected k to have rank 4 ([batch, heads, seq, head_dim]), got rank 5}}
  %out, %lse = attn.attention %q, %k, %q
      : tensor<1x4x64x32xf32>, tensor<1x1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// v must have rank 4.
func.func @attention_v_rank_not_4(%q: tensor<1x4x64x32xf32>, %v: tensor<f32>) {
  // expected-error @below {{'attn.attention' op expected v to have rank 4 ([batch, heads, seq, head_dim]), got rank 0}}
  %out, %lse = attn.attention %q, %q, %v
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<f32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// out must have rank 4.
func.func @attention_out_rank_not_4(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected out to have rank 4 ([batch, heads, seq, head_dim]), got rank 2}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// The rank rule is shared with attn.linear_attention.
func.func @linear_attention_q_rank_not_4(%q: tensor<4x64x32xf32>, %k: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op expected q to have rank 4 ([batch, heads, seq, head_dim]), got rank 3}}
  %out = attn.linear_attention relu %q, %k, %k
      : tensor<4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}

// -----

// Operands must be ranked tensors (ODS constraint; the custom parser would
// reject an unranked type first, hence the generic form).
func.func @attention_unranked_q(%q: tensor<*xf32>, %k: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op operand #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %out, %lse = "attn.attention"(%q, %k, %k) ({}, {})
      : (tensor<*xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
      -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>)
  return
}

// -----

// A memref is not a tensor (ODS constraint, generic form).
func.func @linear_attention_memref_v(%q: tensor<1x4x64x32xf32>, %v: memref<1x4x64x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op operand #2 must be ranked tensor of any type values, but got 'memref<1x4x64x32xf32>'}}
  %out = "attn.linear_attention"(%q, %q, %v) <{feature_map = 1 : i32}>
      : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, memref<1x4x64x32xf32>)
      -> tensor<1x4x64x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

// -----

// q must be f32, f16 or bf16.
func.func @attention_q_element_type_not_float(%q: tensor<1x4x64x32xi8>) {
  // expected-error @below {{'attn.attention' op expected q element type to be f32, f16 or bf16, got 'i8'}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xi8>, tensor<1x4x64x32xi8>, tensor<1x4x64x32xi8>
      -> tensor<1x4x64x32xi8>, tensor<1x4x64xf32>
  return
}

// -----

// f64 is a float type but not an attention element type.
func.func @linear_attention_q_element_type_f64(%q: tensor<1x4x64x32xf64>) {
  // expected-error @below {{'attn.linear_attention' op expected q element type to be f32, f16 or bf16, got 'f64'}}
  %out = attn.linear_attention elu1 %q, %q, %q
      : tensor<1x4x64x32xf64>, tensor<1x4x64x32xf64>, tensor<1x4x64x32xf64>
      -> tensor<1x4x64x32xf64>
  return
}

// -----

// fp8 inputs must be cast first.
func.func @attention_q_element_type_fp8(%q: tensor<1x4x64x32xf8E4M3FN>) {
  // expected-error @below {{'attn.attention' op expected q element type to be f32, f16 or bf16, got 'f8E4M3FN'}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf8E4M3FN>, tensor<1x4x64x32xf8E4M3FN>, tensor<1x4x64x32xf8E4M3FN>
      -> tensor<1x4x64x32xf8E4M3FN>, tensor<1x4x64xf32>
  return
}

// -----

// k must have the element type of q.
func.func @attention_k_element_type_mismatch(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x64x32xf16>) {
  // expected-error @below {{'attn.attention' op expected k element type 'f16' to match q element type 'f32'}}
  %out, %lse = attn.attention %q, %k, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// v must have the element type of q.
func.func @attention_v_element_type_mismatch(%q: tensor<1x4x64x32xbf16>, %v: tensor<1x4x64x32xf16>) {
  // expected-error @below {{'attn.attention' op expected v element type 'f16' to match q element type 'bf16'}}
  %out, %lse = attn.attention %q, %q, %v
      : tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64x32xf16>
      -> tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>
  return
}

// -----

// out must have the element type of q (it is not promoted to f32).
func.func @attention_out_element_type_mismatch(%q: tensor<1x4x64x32xf16>) {
  // expected-error @below {{'attn.attention' op expected out element type 'f32' to match q element type 'f16'}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// The element type rule is shared with attn.linear_attention.
func.func @linear_attention_out_element_type_mismatch(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op expected out element type 'bf16' to match q element type 'f32'}}
  %out = attn.linear_attention elu1 %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Static extents
//===----------------------------------------------------------------------===//

// -----

// A static dim of 0 is rejected.
func.func @attention_zero_dim(%q: tensor<0x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op q dim 0 is 0; static dims must be positive}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<0x4x64x32xf32>, tensor<0x4x64x32xf32>, tensor<0x4x64x32xf32>
      -> tensor<0x4x64x32xf32>, tensor<0x4x64xf32>
  return
}

// -----

// The zero-dim rule applies to out as well.
func.func @attention_zero_dim_out(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op out dim 2 is 0; static dims must be positive}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x0x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// A static dim above 2^31 - 1 is rejected.
func.func @attention_dim_too_large(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x2147483648x32xf32>) {
  // expected-error @below {{'attn.attention' op k dim 2 is 2147483648, larger than the supported maximum 2147483647}}
  %out, %lse = attn.attention %q, %k, %k
      : tensor<1x4x64x32xf32>, tensor<1x4x2147483648x32xf32>, tensor<1x4x2147483648x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// A dim near the int64 limit is rejected the same way.
func.func @linear_attention_dim_near_int64_max(%q: tensor<9223372036854775807x4x64x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op q dim 0 is 9223372036854775807, larger than the supported maximum 2147483647}}
  %out = attn.linear_attention relu %q, %q, %q
      : tensor<9223372036854775807x4x64x32xf32>, tensor<9223372036854775807x4x64x32xf32>,
        tensor<9223372036854775807x4x64x32xf32> -> tensor<9223372036854775807x4x64x32xf32>
  return
}

// -----

// The head count of q must be static.
func.func @attention_dynamic_q_head_count(%q: tensor<1x?x64x32xf32>, %k: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected the head count of q (dim 1) to be static}}
  %out, %lse = attn.attention %q, %k, %k
      : tensor<1x?x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x?x64x32xf32>, tensor<1x?x64xf32>
  return
}

// -----

// The head count of k must be static.
func.func @attention_dynamic_k_head_count(%q: tensor<1x4x64x32xf32>, %k: tensor<1x?x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected the head count of k (dim 1) to be static}}
  %out, %lse = attn.attention %q, %k, %k
      : tensor<1x4x64x32xf32>, tensor<1x?x64x32xf32>, tensor<1x?x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// The head count of v must be static.
func.func @attention_dynamic_v_head_count(%q: tensor<1x4x64x32xf32>, %v: tensor<1x?x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected the head count of v (dim 1) to be static}}
  %out, %lse = attn.attention %q, %q, %v
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x?x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// The head dim of q must be static.
func.func @attention_dynamic_q_head_dim(%q: tensor<1x4x64x?xf32>, %k: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected the head dim of q (dim 3) to be static}}
  %out, %lse = attn.attention %q, %k, %k
      : tensor<1x4x64x?xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// The head dim of k must be static.
func.func @linear_attention_dynamic_k_head_dim(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x64x?xf32>) {
  // expected-error @below {{'attn.linear_attention' op expected the head dim of k (dim 3) to be static}}
  %out = attn.linear_attention elu1 %q, %k, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x?xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}

// -----

// The head dim of v must be static.
func.func @attention_dynamic_v_head_dim(%q: tensor<1x4x64x32xf32>, %v: tensor<1x4x64x?xf32>) {
  // expected-error @below {{'attn.attention' op expected the head dim of v (dim 3) to be static}}
  %out, %lse = attn.attention %q, %q, %v
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x?xf32>
      -> tensor<1x4x64x?xf32>, tensor<1x4x64xf32>
  return
}

// -----

// The head dim of q is at most 1024.
func.func @attention_q_head_dim_over_1024(%q: tensor<1x4x64x1025xf32>) {
  // expected-error @below {{'attn.attention' op head dim 1025 of q exceeds the supported maximum 1024}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x1025xf32>, tensor<1x4x64x1025xf32>, tensor<1x4x64x1025xf32>
      -> tensor<1x4x64x1025xf32>, tensor<1x4x64xf32>
  return
}

// -----

// The head dim of k is at most 1024 (checked before the q/k head dim match).
func.func @attention_k_head_dim_over_1024(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x64x2048xf32>) {
  // expected-error @below {{'attn.attention' op head dim 2048 of k exceeds the supported maximum 1024}}
  %out, %lse = attn.attention %q, %k, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x2048xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// The head dim of v is at most 1024, even though v's head dim is otherwise
// free (Dv != D is allowed).
func.func @attention_v_head_dim_over_1024(%q: tensor<1x4x64x32xf32>, %v: tensor<1x4x64x4096xf32>) {
  // expected-error @below {{'attn.attention' op head dim 4096 of v exceeds the supported maximum 1024}}
  %out, %lse = attn.attention %q, %q, %v
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x4096xf32>
      -> tensor<1x4x64x4096xf32>, tensor<1x4x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// Shape agreement between q, k, v and out
//===----------------------------------------------------------------------===//

// -----

// q and k must have the same batch size.
func.func @attention_batch_mismatch_q_k(%q: tensor<2x4x64x32xf32>, %k: tensor<3x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected q and k to have the same batch size, got 2 and 3}}
  %out, %lse = attn.attention %q, %k, %k
      : tensor<2x4x64x32xf32>, tensor<3x4x64x32xf32>, tensor<3x4x64x32xf32>
      -> tensor<2x4x64x32xf32>, tensor<2x4x64xf32>
  return
}

// -----

// k and v must have the same batch size.
func.func @attention_batch_mismatch_k_v(%q: tensor<?x4x64x32xf32>, %k: tensor<2x4x64x32xf32>,
                                        %v: tensor<5x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected k and v to have the same batch size, got 2 and 5}}
  %out, %lse = attn.attention %q, %k, %v
      : tensor<?x4x64x32xf32>, tensor<2x4x64x32xf32>, tensor<5x4x64x32xf32>
      -> tensor<?x4x64x32xf32>, tensor<?x4x64xf32>
  return
}

// -----

// k and v must have the same head count.
func.func @attention_head_count_mismatch_k_v(%q: tensor<1x8x64x32xf32>, %k: tensor<1x4x64x32xf32>,
                                             %v: tensor<1x2x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected k and v to have the same head count, got 4 and 2}}
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x8x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x2x64x32xf32>
      -> tensor<1x8x64x32xf32>, tensor<1x8x64xf32>
  return
}

// -----

// k and v must have the same sequence length.
func.func @attention_seq_mismatch_k_v(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x128x32xf32>,
                                      %v: tensor<1x4x96x32xf32>) {
  // expected-error @below {{'attn.attention' op expected k and v to have the same sequence length, got 128 and 96}}
  %out, %lse = attn.attention %q, %k, %v
      : tensor<1x4x64x32xf32>, tensor<1x4x128x32xf32>, tensor<1x4x96x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// q and k must have the same head dim.
func.func @attention_head_dim_mismatch_q_k(%q: tensor<1x4x64x64xf32>, %k: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected q and k to have the same head dim, got 64 and 32}}
  %out, %lse = attn.attention %q, %k, %k
      : tensor<1x4x64x64xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// The shape agreement rules are shared with attn.linear_attention.
func.func @linear_attention_seq_mismatch_k_v(%q: tensor<1x4x64x32xf32>, %k: tensor<1x4x64x32xf32>,
                                             %v: tensor<1x4x65x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op expected k and v to have the same sequence length, got 64 and 65}}
  %out = attn.linear_attention relu %q, %k, %v
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x65x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}

// -----

// The q head count must be a multiple of the k/v head count.
func.func @attention_heads_not_multiple(%q: tensor<1x6x64x32xf32>, %k: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected the q head count (6) to be a multiple of the k/v head count (4)}}
  %out, %lse = attn.attention %q, %k, %k
      : tensor<1x6x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x6x64x32xf32>, tensor<1x6x64xf32>
  return
}

// -----

// More k/v heads than q heads is not grouped-query attention either.
func.func @linear_attention_more_kv_heads_than_q_heads(%q: tensor<1x2x64x32xf32>, %k: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op expected the q head count (2) to be a multiple of the k/v head count (4)}}
  %out = attn.linear_attention relu %q, %k, %k
      : tensor<1x2x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x2x64x32xf32>
  return
}

// -----

// out must be [B, Hq, Nq, Dv]: here it has the head dim of q instead of v.
func.func @attention_out_shape_mismatch(%q: tensor<2x8x128x64xf32>, %k: tensor<2x8x256x64xf32>,
                                        %v: tensor<2x8x256x32xf32>) {
  // expected-error @below {{'attn.attention' op expected out shape [2, 8, 128, 32] ([batch, q heads, q seq, v head_dim]), got 'tensor<2x8x128x64xf32>'}}
  %out, %lse = attn.attention %q, %k, %v
      : tensor<2x8x128x64xf32>, tensor<2x8x256x64xf32>, tensor<2x8x256x32xf32>
      -> tensor<2x8x128x64xf32>, tensor<2x8x128xf32>
  return
}

// -----

// out must follow q's dynamic dims exactly: a static out for a dynamic q is
// rejected.
func.func @attention_out_static_for_dynamic_q(%q: tensor<?x4x?x32xf32>) {
  // expected-error @below {{'attn.attention' op expected out shape [?, 4, ?, 32] ([batch, q heads, q seq, v head_dim]), got 'tensor<1x4x64x32xf32>'}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<?x4x?xf32>
  return
}

// -----

// out has the k/v head count instead of the q head count.
func.func @linear_attention_out_has_kv_heads(%q: tensor<1x8x64x32xf32>, %k: tensor<1x2x64x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op expected out shape [1, 8, 64, 32] ([batch, q heads, q seq, v head_dim]), got 'tensor<1x2x64x32xf32>'}}
  %out = attn.linear_attention elu1 %q, %k, %k
      : tensor<1x8x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>
      -> tensor<1x2x64x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// attn.attention: lse, scale and windows
//===----------------------------------------------------------------------===//

// -----

// lse must be [B, Hq, Nq].
func.func @attention_lse_shape_mismatch(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected lse to be an f32 tensor of shape [1, 4, 64] ([batch, q heads, q seq]), got 'tensor<1x4x32xf32>'}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x32xf32>
  return
}

// -----

// lse must have rank 3.
func.func @attention_lse_rank_4(%q: tensor<?x4x?x32xf32>) {
  // expected-error @below {{'attn.attention' op expected lse to be an f32 tensor of shape [?, 4, ?] ([batch, q heads, q seq]), got 'tensor<?x4x?x1xf32>'}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32>
      -> tensor<?x4x?x32xf32>, tensor<?x4x?x1xf32>
  return
}

// -----

// lse is f32 whatever the element type of q.
func.func @attention_lse_not_f32(%q: tensor<1x4x64x32xbf16>) {
  // expected-error @below {{'attn.attention' op expected lse to be an f32 tensor of shape [1, 4, 64] ([batch, q heads, q seq]), got 'tensor<1x4x64xbf16>'}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>
      -> tensor<1x4x64x32xbf16>, tensor<1x4x64xbf16>
  return
}

// -----

// The scale must not be zero.
func.func @attention_zero_scale(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected scale to be finite and non-zero, got 0}}
  %out, %lse = attn.attention %q, %q, %q {scale = 0.0 : f32}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// Negative zero is zero too.
func.func @attention_negative_zero_scale(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected scale to be finite and non-zero, got -0}}
  %out, %lse = attn.attention %q, %q, %q {scale = -0.0 : f32}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// The scale must not be infinite (+inf written as its bit pattern).
func.func @attention_infinite_scale(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected scale to be finite and non-zero, got inf}}
  %out, %lse = attn.attention %q, %q, %q {scale = 0x7F800000 : f32}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// The scale must not be NaN.
func.func @attention_nan_scale(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected scale to be finite and non-zero, got nan}}
  %out, %lse = attn.attention %q, %q, %q {scale = 0x7FC00000 : f32}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// The scale is an f32 attribute (ODS constraint).
func.func @attention_scale_not_f32(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op attribute 'scale' failed to satisfy constraint: 32-bit float attribute}}
  %out, %lse = attn.attention %q, %q, %q {scale = 0.5 : f64}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// window_left must be non-negative.
func.func @attention_negative_window_left(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected window_left to be non-negative, got -1}}
  %out, %lse = attn.attention %q, %q, %q {window_left = -1}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// bottom_right moves the shorthands' diagonal; alone it means nothing.
func.func @attention_bottom_right_alone(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op bottom_right aligns causal and windows; it needs causal, window_left or window_right}}
  %out, %lse = attn.attention %q, %q, %q {bottom_right}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// Windows are at most 2^62, so that q_idx +- window cannot overflow.
func.func @attention_huge_window_right(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected window_right to be at most 2^62 (4611686018427387904), got 9223372036854775807; leave it out for no bound}}
  %out, %lse = attn.attention %q, %q, %q {window_left = 2, window_right = 9223372036854775807}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// window_right must be non-negative.
func.func @attention_negative_window_right(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected window_right to be non-negative, got -9223372036854775808}}
  %out, %lse = attn.attention %q, %q, %q {window_left = 4, window_right = -9223372036854775808}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// block_m of #attn.tiles is at least 1.
func.func @attention_tiles_block_m_zero(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{expected block_m in [1, 256], got 0}}
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 0, block_n = 32>}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// block_n of #attn.tiles is at most 256.
func.func @attention_tiles_block_n_over_256(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{expected block_n in [1, 256], got 257}}
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 257>}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// A flag of #attn.tiles is true or false.
func.func @attention_tiles_flag_not_bool(%q: tensor<1x4x64x32xf32>) {
  // expected-error @+2 {{expected true or false}}
  // expected-error @+1 {{failed to parse Attn_TilesAttr parameter 'producer'}}
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 32, producer = 1>}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// A negative tile size is rejected too.
func.func @attention_tiles_negative_block_m(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{expected block_m in [1, 256], got -64}}
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = -64, block_n = 32>}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// tiles must be an #attn.tiles attribute (ODS constraint).
func.func @attention_tiles_wrong_attribute(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op attribute 'tiles' failed to satisfy constraint: tile sizes and tensor-core kind of an attention kernel}}
  %out, %lse = attn.attention %q, %q, %q {tiles = [64, 32]}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// mma.sync tiles are whole warps of 16 rows by pairs of 8-key fragments.
func.func @attention_tiles_mma_sync_not_multiple_of_16(%q: tensor<1x4x64x32xbf16>) {
  // expected-error @below {{expected mma_sync tiles to be multiples of 16, got 64x24}}
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 24, mma = mma_sync>}
      : tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>
      -> tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>
  return
}

// -----

// wgmma tiles are one to three warpgroups of 64 rows by 64 or 128 keys.
func.func @attention_tiles_wgmma_keys(%q: tensor<1x4x64x64xbf16>) {
  // expected-error @below {{expected wgmma tiles of 64, 128 or 192 rows by 64 or 128 keys, got 128x32}}
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 128, block_n = 32, mma = wgmma>}
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
      -> tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>
  return
}

// -----

// Tensor-core tiles need 16-bit inputs.
func.func @attention_tiles_mma_f32(%q: tensor<1x4x64x64xf32>) {
  // expected-error @below {{'attn.attention' op tensor-core tiles (mma = mma_sync) need f16 or bf16 inputs, got 'f32'}}
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = mma_sync>}
      : tensor<1x4x64x64xf32>, tensor<1x4x64x64xf32>, tensor<1x4x64x64xf32>
      -> tensor<1x4x64x64xf32>, tensor<1x4x64xf32>
  return
}

// -----

// wgmma steps through the head dim 16 elements at a time: 72 is rejected.
func.func @attention_tiles_wgmma_head_dim(%q: tensor<1x4x64x72xbf16>) {
  // expected-error @below {{'attn.attention' op tensor-core tiles (mma = wgmma) need head dims that are multiples of 16 up to 256, got 72 for q}}
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma>}
      : tensor<1x4x64x72xbf16>, tensor<1x4x64x72xbf16>, tensor<1x4x64x72xbf16>
      -> tensor<1x4x64x72xbf16>, tensor<1x4x64xf32>
  return
}

// -----

// wgmma blocks are whole warpgroups of 64 rows: 96 rows are rejected.
func.func @attention_tiles_wgmma_rows_not_multiple_of_64(%q: tensor<1x4x64x64xbf16>) {
  // expected-error @below {{expected wgmma tiles of 64, 128 or 192 rows by 64 or 128 keys, got 96x64}}
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 96, block_n = 64, mma = wgmma>}
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
      -> tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>
  return
}

// -----

// At most three warpgroups: 256 rows are rejected (256 is a valid block_m
// otherwise).
func.func @attention_tiles_wgmma_four_warpgroups(%q: tensor<1x4x64x64xbf16>) {
  // expected-error @below {{expected wgmma tiles of 64, 128 or 192 rows by 64 or 128 keys, got 256x128}}
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 256, block_n = 128, mma = wgmma>}
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
      -> tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>
  return
}

// -----

// wgmma products are at most n = 256 wide: a head dim of 320 is rejected
// although it is a multiple of 16.
func.func @attention_tiles_wgmma_head_dim_too_large(%q: tensor<1x4x64x320xf16>) {
  // expected-error @below {{'attn.attention' op tensor-core tiles (mma = wgmma) need head dims that are multiples of 16 up to 256, got 320 for q}}
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = wgmma>}
      : tensor<1x4x64x320xf16>, tensor<1x4x64x320xf16>, tensor<1x4x64x320xf16>
      -> tensor<1x4x64x320xf16>, tensor<1x4x64xf32>
  return
}

// -----

// The v head dim is checked too: mma.sync fragments need multiples of 16.
func.func @attention_tiles_mma_sync_v_head_dim(%q: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x24xf16>) {
  // expected-error @below {{'attn.attention' op tensor-core tiles (mma = mma_sync) need head dims that are multiples of 16 up to 1024, got 24 for v}}
  %out, %lse = attn.attention %q, %q, %v {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = mma_sync>}
      : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x24xf16>
      -> tensor<1x4x64x24xf16>, tensor<1x4x64xf32>
  return
}

// -----

// wgmma needs 16-bit inputs like mma.sync.
func.func @attention_tiles_wgmma_f32(%q: tensor<1x4x64x64xf32>) {
  // expected-error @below {{'attn.attention' op tensor-core tiles (mma = wgmma) need f16 or bf16 inputs, got 'f32'}}
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = wgmma>}
      : tensor<1x4x64x64xf32>, tensor<1x4x64x64xf32>, tensor<1x4x64x64xf32>
      -> tensor<1x4x64x64xf32>, tensor<1x4x64xf32>
  return
}

// -----

// The tensor-core kind is one of none, mma_sync and wgmma.
func.func @attention_tiles_unknown_mma(%q: tensor<1x4x64x64xbf16>) {
  // expected-error @below {{expected one of [none, mma_sync, wgmma] for tensor-core instructions of a GPU attention kernel: none, mma_sync or wgmma, got: tensor_cores}}
  // expected-error @below {{failed to parse Attn_TilesAttr parameter 'mma' which is to be a `std::optional<MmaKind>`}}
  %out, %lse = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = tensor_cores>}
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
      -> tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// attn.attention: mask and score regions
//===----------------------------------------------------------------------===//

// -----

// The mask region takes four index arguments, not three.
func.func @attention_mask_region_too_few_args(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected the mask region to take (b, h, q_idx, k_idx) of types ('index', 'index', 'index', 'index'), got ('index', 'index', 'index')}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index):
      %true = arith.constant true
      attn.yield %true : i1
    }
  return
}

// -----

// The mask region takes index arguments, not i64.
func.func @attention_mask_region_wrong_arg_types(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected the mask region to take (b, h, q_idx, k_idx) of types ('index', 'index', 'index', 'index'), got ('index', 'index', 'i64', 'i64')}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: i64, %ki: i64):
      %allowed = arith.cmpi sle, %ki, %qi : i64
      attn.yield %allowed : i1
    }
  return
}

// -----

// A mask region written with the score signature.
func.func @attention_mask_region_with_score_args(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected the mask region to take (b, h, q_idx, k_idx) of types ('index', 'index', 'index', 'index'), got ('f32', 'index', 'index', 'index', 'index')}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %true = arith.constant true
      attn.yield %true : i1
    }
  return
}

// -----

// The score region takes the score first: (f32, index, index, index, index).
func.func @attention_score_region_wrong_args(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected the score region to take (s, b, h, q_idx, k_idx) of types ('f32', 'index', 'index', 'index', 'index'), got ('index', 'index', 'index', 'index', 'f32')}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %s: f32):
      attn.yield %s : f32
    }
  return
}

// -----

// The score region's score is f32 even when the inputs are f16.
func.func @attention_score_region_f16_score(%q: tensor<1x4x64x32xf16>) {
  // expected-error @below {{'attn.attention' op expected the score region to take (s, b, h, q_idx, k_idx) of types ('f32', 'index', 'index', 'index', 'index'), got ('f16', 'index', 'index', 'index', 'index')}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>
      -> tensor<1x4x64x32xf16>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f16, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f16
    }
  return
}

// -----

// A score region without arguments.
func.func @attention_score_region_no_args(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected the score region to take (s, b, h, q_idx, k_idx) of types ('f32', 'index', 'index', 'index', 'index'), got ()}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
      %c = arith.constant 1.0 : f32
      attn.yield %c : f32
    }
  return
}

// -----

// The mask region yields an i1, not an i32.
func.func @attention_mask_yield_wrong_type(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %one = arith.constant 1 : i32
      // expected-error @below {{'attn.yield' op expected the mask region to yield one 'i1'}}
      attn.yield %one : i32
    }
  return
}

// -----

// The mask region yields exactly one value, not none.
func.func @attention_mask_yield_nothing(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      // expected-error @below {{'attn.yield' op expected the mask region to yield one 'i1'}}
      attn.yield
    }
  return
}

// -----

// The mask region yields exactly one value, not two.
func.func @attention_mask_yield_two_values(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %lt = arith.cmpi ult, %ki, %qi : index
      %eq = arith.cmpi eq, %ki, %qi : index
      // expected-error @below {{'attn.yield' op expected the mask region to yield one 'i1'}}
      attn.yield %lt, %eq : i1, i1
    }
  return
}

// -----

// The score region yields an f32, not an i1.
func.func @attention_score_yield_wrong_type(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %allowed = arith.cmpi ule, %ki, %qi : index
      // expected-error @below {{'attn.yield' op expected the score region to yield one 'f32'}}
      attn.yield %allowed : i1
    }
  return
}

// -----

// The score region yields an f32 even for bf16 inputs.
func.func @attention_score_yield_bf16(%q: tensor<1x4x64x32xbf16>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>
      -> tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %t = arith.truncf %s : f32 to bf16
      // expected-error @below {{'attn.yield' op expected the score region to yield one 'f32'}}
      attn.yield %t : bf16
    }
  return
}

// -----

// The score region yields one value, not two.
func.func @attention_score_yield_two_values(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      // expected-error @below {{'attn.yield' op expected the score region to yield one 'f32'}}
      attn.yield %s, %s : f32, f32
    }
  return
}

// -----

// Region ops come from the region op table: func.call is not in it.
func.func private @bias(f32) -> f32

func.func @attention_score_region_with_call(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      // expected-error @below {{'func.call' op is not allowed in the score region of attn.attention: regions hold only the scalar arith and math ops of the region op table (lib/semantics/RegionOps.def)}}
      %r = func.call @bias(%s) : (f32) -> f32
      attn.yield %r : f32
    }
  return
}

// -----

// The table applies to the mask region too.
func.func private @allowed(index, index) -> i1

func.func @attention_mask_region_with_call(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      // expected-error @below {{'func.call' op is not allowed in the mask region of attn.attention: regions hold only the scalar arith and math ops of the region op table (lib/semantics/RegionOps.def)}}
      %ok = func.call @allowed(%qi, %ki) : (index, index) -> i1
      attn.yield %ok : i1
    }
  return
}

// -----

// Ops with regions are not in the table: a tensor.generate is rejected
// before anything it holds.
func.func private @value_at(index) -> f32

func.func @attention_score_region_with_nested_call(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      // expected-error @below {{'tensor.generate' op is not allowed in the score region of attn.attention: regions hold only the scalar arith and math ops of the region op table (lib/semantics/RegionOps.def)}}
      %table = tensor.generate {
      ^bb0(%i: index):
        %x = func.call @value_at(%i) : (index) -> f32
        tensor.yield %x : f32
      } : tensor<4xf32>
      %c0 = arith.constant 0 : index
      %bias = tensor.extract %table[%c0] : tensor<4xf32>
      %r = arith.addf %s, %bias : f32
      attn.yield %r : f32
    }
  return
}

// -----

// Memory ops are not in the table.
memref.global "private" constant @allowed_keys : memref<64xi1> = dense<true>

func.func @attention_mask_region_with_memref_load(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      // expected-error @below {{'memref.get_global' op is not allowed in the mask region of attn.attention: regions hold only the scalar arith and math ops of the region op table (lib/semantics/RegionOps.def)}}
      %table = memref.get_global @allowed_keys : memref<64xi1>
      %ok = memref.load %table[%ki] : memref<64xi1>
      attn.yield %ok : i1
    }
  return
}

// -----

// A pure scalar math op outside the table is rejected: the reference and
// the tile classifier would not know it.
func.func @attention_score_region_op_outside_table(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      // expected-error @below {{'math.round' op is not allowed in the score region of attn.attention: regions hold only the scalar arith and math ops of the region op table (lib/semantics/RegionOps.def)}}
      %r = math.round %s : f32
      attn.yield %r : f32
    }
  return
}

// -----

// Regions compute in index, i1 to i64 and 16- to 64-bit floats only.
func.func @attention_mask_region_wide_integer(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      // expected-error @below {{'arith.index_cast' op has a result of type 'i128', which mask regions do not compute in}}
      %wide = arith.index_cast %qi : index to i128
      %ok = arith.constant true
      attn.yield %ok : i1
    }
  return
}

// -----

// Nor in fp8: the reference and the kernels have no fp8 arithmetic.
func.func @attention_score_region_fp8(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      // expected-error @below {{'arith.truncf' op has a result of type 'f8E4M3FN', which score regions do not compute in}}
      %small = arith.truncf %s : f32 to f8E4M3FN
      %back = arith.extf %small : f8E4M3FN to f32
      attn.yield %back : f32
    }
  return
}

// -----

// A mask region must end with attn.yield, not another terminator.
func.func @attention_mask_region_not_ending_in_yield(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected the mask region to end with attn.yield}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      llvm.unreachable
    }
  return
}

// -----

// A score region must end with attn.yield, not a return.
func.func @attention_score_region_not_ending_in_yield(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected the score region to end with attn.yield}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      llvm.return %s : f32
    }
  return
}

// -----

// The regions have at most one block (ODS constraint).
func.func @attention_mask_region_two_blocks(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op region #0 ('mask') failed to verify constraint: region with at most 1 blocks}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %true = arith.constant true
      attn.yield %true : i1
    ^bb1:
      %false = arith.constant false
      attn.yield %false : i1
    }
  return
}

// -----

// The regions are isolated from above: q is not visible inside.
func.func @attention_score_region_uses_outer_value(%q: tensor<1x4x64x32xf32>, %bias: f32) {
  // expected-note @below {{required by region isolation constraints}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      // expected-error @below {{using value defined outside the region}}
      %r = arith.addf %s, %bias : f32
      attn.yield %r : f32
    }
  return
}

// -----

// A region block needs a terminator.
func.func @attention_score_region_empty_block(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{empty block: expect at least a terminator}}
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
    }
  return
}

// -----

// attn.attention has exactly two regions, mask then score (generic form).
func.func @attention_generic_one_region(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected 2 regions}}
  %out, %lse = "attn.attention"(%q, %q, %q) ({})
      : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
      -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>)
  return
}

// -----

// attn.attention has three operands (generic form).
func.func @attention_generic_missing_operand(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected 3 or more operands, but found 2}}
  %out, %lse = "attn.attention"(%q, %q) ({}, {})
      : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
      -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>)
  return
}

// -----

// attn.attention has two results (generic form).
func.func @attention_generic_missing_lse(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected 2 results}}
  %out = "attn.attention"(%q, %q, %q) ({}, {})
      : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
      -> tensor<1x4x64x32xf32>
  return
}

// -----

// In the generic form the regions are positional: a score-shaped region in
// the first (mask) slot is checked against the mask signature.
func.func @attention_generic_score_in_mask_slot(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.attention' op expected the mask region to take (b, h, q_idx, k_idx) of types ('index', 'index', 'index', 'index'), got ('f32', 'index', 'index', 'index', 'index')}}
  %out, %lse = "attn.attention"(%q, %q, %q) ({
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      "attn.yield"(%s) : (f32) -> ()
    }, {})
      : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
      -> (tensor<1x4x64x32xf32>, tensor<1x4x64xf32>)
  return
}

//===----------------------------------------------------------------------===//
// attn.yield
//===----------------------------------------------------------------------===//

// -----

// attn.yield only terminates the regions of attn.attention and its
// gradient ops.
func.func @yield_outside_attention(%x: f32) {
  // expected-error @below {{'attn.yield' op expects parent op to be one of 'attn.attention, attn.attention_split, attn.attention_grad, attn.attention_grad_kv, attn.attention_grad_q, attn.elementwise'}}
  attn.yield %x : f32
}

// -----

// attn.yield is a terminator: it cannot appear in the middle of a region.
func.func @yield_not_last_in_region(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      // expected-error @below {{'attn.yield' op must be the last operation in the parent block}}
      attn.yield %s : f32
      attn.yield %s : f32
    }
  return
}

//===----------------------------------------------------------------------===//
// attn.linear_attention: feature maps and causality
//===----------------------------------------------------------------------===//

// -----

// favor needs num_features.
func.func @linear_attention_favor_missing_num_features(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op the favor feature map needs num_features and seed}}
  %out = attn.linear_attention favor %q, %q, %q {seed = 7}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}

// -----

// favor needs a seed.
func.func @linear_attention_favor_missing_seed(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op the favor feature map needs num_features and seed}}
  %out = attn.linear_attention favor %q, %q, %q {num_features = 128}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}

// -----

// num_features must be at least 1.
func.func @linear_attention_favor_zero_num_features(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op expected num_features in [1, 4096], got 0}}
  %out = attn.linear_attention favor %q, %q, %q {num_features = 0, seed = 7}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}

// -----

// num_features must be at most 4096.
func.func @linear_attention_favor_too_many_features(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op expected num_features in [1, 4096], got 4097}}
  %out = attn.linear_attention favor %q, %q, %q {num_features = 4097, seed = 7}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}

// -----

// A negative num_features is out of range.
func.func @linear_attention_favor_negative_num_features(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op expected num_features in [1, 4096], got -1}}
  %out = attn.linear_attention favor %q, %q, %q {num_features = -1, seed = 7}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}

// -----

// num_features applies only to favor.
func.func @linear_attention_elu1_with_num_features(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op num_features and seed apply only to the favor feature map, not elu1}}
  %out = attn.linear_attention elu1 %q, %q, %q {num_features = 64}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}

// -----

// seed applies only to favor.
func.func @linear_attention_relu_with_seed(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op num_features and seed apply only to the favor feature map, not relu}}
  %out = attn.linear_attention relu %q, %q, %q {seed = 3}
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}

// -----

// Causal linear attention needs Nq = Nk when both are static.
func.func @linear_attention_causal_seq_mismatch(%q: tensor<1x4x16x32xf32>, %k: tensor<1x4x32x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op causal linear attention needs equal q and k sequence lengths, got 16 and 32}}
  %out = attn.linear_attention elu1 %q, %k, %k {causal}
      : tensor<1x4x16x32xf32>, tensor<1x4x32x32xf32>, tensor<1x4x32x32xf32>
      -> tensor<1x4x16x32xf32>
  return
}

// -----

// An unknown feature map is rejected by the enum parser.
func.func @linear_attention_unknown_feature_map(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{expected string or keyword containing one of the following enum values for attribute 'feature_map' [elu1, relu, favor]}}
  %out = attn.linear_attention softmax %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>
  return
}

// -----

// feature_map is a required attribute (generic form).
func.func @linear_attention_missing_feature_map(%q: tensor<1x4x64x32xf32>) {
  // expected-error @below {{'attn.linear_attention' op requires attribute 'feature_map'}}
  %out = "attn.linear_attention"(%q, %q, %q)
      : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
      -> tensor<1x4x64x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// attn.cast
//===----------------------------------------------------------------------===//

// in_row_swizzle reads rows: rank 2 or more.
func.func @cast_swizzle_rank(%x: tensor<64xf32>) -> tensor<64xbf16> {
  // expected-error @below {{'attn.cast' op expected in_row_swizzle on rows: an input of rank 2 or more, got 'tensor<64xf32>'}}
  %y = attn.cast %x {in_row_swizzle = 32 : i64} : tensor<64xf32> to tensor<64xbf16>
  return %y : tensor<64xbf16>
}

// -----

// Its width divides a static row.
func.func @cast_swizzle_row(%x: tensor<8x?xf32>) -> tensor<8x?xbf16> {
  // expected-error @below {{'attn.cast' op expected in_row_swizzle to be a multiple of 16 that divides the static row length ?, got 32}}
  %y = attn.cast %x {in_row_swizzle = 32 : i64} : tensor<8x?xf32> to tensor<8x?xbf16>
  return %y : tensor<8x?xbf16>
}

// -----

func.func @cast_swizzle_width(%x: tensor<8x64xf32>) -> tensor<8x64xbf16> {
  // expected-error @below {{'attn.cast' op expected in_row_swizzle to be a multiple of 16 that divides the static row length 64, got 8}}
  %y = attn.cast %x {in_row_swizzle = 8 : i64} : tensor<8x64xf32> to tensor<8x64xbf16>
  return %y : tensor<8x64xbf16>
}

// -----

// The result shape must match the input shape.
func.func @cast_shape_mismatch(%x: tensor<8x128xf32>) {
  // expected-error @below {{'attn.cast' op expected the result shape to match the input, got 'tensor<8x128xf32>' and 'tensor<8x64xf16>'}}
  %y = attn.cast %x : tensor<8x128xf32> to tensor<8x64xf16>
  return
}

// -----

// The result must keep dynamic dims dynamic.
func.func @cast_dynamic_to_static(%x: tensor<?x128xf32>) {
  // expected-error @below {{'attn.cast' op expected the result shape to match the input, got 'tensor<?x128xf32>' and 'tensor<8x128xbf16>'}}
  %y = attn.cast %x : tensor<?x128xf32> to tensor<8x128xbf16>
  return
}

// -----

// The result rank must match too.
func.func @cast_rank_mismatch(%x: tensor<8x128xf32>) {
  // expected-error @below {{'attn.cast' op expected the result shape to match the input, got 'tensor<8x128xf32>' and 'tensor<1024xf16>'}}
  %y = attn.cast %x : tensor<8x128xf32> to tensor<1024xf16>
  return
}

// -----

// The input must be a floating-point tensor.
func.func @cast_integer_input(%x: tensor<8x128xi32>) {
  // expected-error @below {{'attn.cast' op expected a floating-point input, got 'i32'}}
  %y = attn.cast %x : tensor<8x128xi32> to tensor<8x128xf16>
  return
}

// -----

// index is not a float either.
func.func @cast_index_input(%x: tensor<4xindex>) {
  // expected-error @below {{'attn.cast' op expected a floating-point input, got 'index'}}
  %y = attn.cast %x : tensor<4xindex> to tensor<4xf32>
  return
}

// -----

// The result element type must be one of the supported floats, not f64.
func.func @cast_to_f64(%x: tensor<8x128xf32>) {
  // expected-error @below {{'attn.cast' op expected the result element type to be f32, f16, bf16, f8E4M3FN or f8E5M2, got 'f64'}}
  %y = attn.cast %x : tensor<8x128xf32> to tensor<8x128xf64>
  return
}

// -----

// Other fp8 variants are not supported.
func.func @cast_to_f8E4M3FNUZ(%x: tensor<8x128xf32>) {
  // expected-error @below {{'attn.cast' op expected the result element type to be f32, f16, bf16, f8E4M3FN or f8E5M2, got 'f8E4M3FNUZ'}}
  %y = attn.cast %x : tensor<8x128xf32> to tensor<8x128xf8E4M3FNUZ>
  return
}

// -----

// Integer results are not supported.
func.func @cast_to_integer(%x: tensor<8x128xf32>) {
  // expected-error @below {{'attn.cast' op expected the result element type to be f32, f16, bf16, f8E4M3FN or f8E5M2, got 'i8'}}
  %y = attn.cast %x : tensor<8x128xf32> to tensor<8x128xi8>
  return
}

// -----

// A static dim of 0 is out of range.
func.func @cast_zero_dim(%x: tensor<0x128xf32>) {
  // expected-error @below {{'attn.cast' op dim 0 is out of range; static dims must be in [1, 2147483647]}}
  %y = attn.cast %x : tensor<0x128xf32> to tensor<0x128xf16>
  return
}

// -----

// A static dim above 2^31 - 1 is out of range.
func.func @cast_dim_too_large(%x: tensor<8x2147483648xf32>) {
  // expected-error @below {{'attn.cast' op dim 2147483648 is out of range; static dims must be in [1, 2147483647]}}
  %y = attn.cast %x : tensor<8x2147483648xf32> to tensor<8x2147483648xf16>
  return
}

// -----

// The scale must not be zero.
func.func @cast_zero_scale(%x: tensor<8x128xf32>) {
  // expected-error @below {{'attn.cast' op expected scale to be finite and non-zero, got 0}}
  %y = attn.cast %x {scale = 0.0 : f32} : tensor<8x128xf32> to tensor<8x128xf16>
  return
}

// -----

// The scale must be finite (-inf written as its bit pattern).
func.func @cast_infinite_scale(%x: tensor<8x128xf32>) {
  // expected-error @below {{'attn.cast' op expected scale to be finite and non-zero, got -inf}}
  %y = attn.cast %x {scale = 0xFF800000 : f32} : tensor<8x128xf32> to tensor<8x128xf8E5M2>
  return
}

// -----

// The scale must not be NaN.
func.func @cast_nan_scale(%x: tensor<8x128xf32>) {
  // expected-error @below {{'attn.cast' op expected scale to be finite and non-zero, got nan}}
  %y = attn.cast %x {scale = 0x7FC00000 : f32} : tensor<8x128xf32> to tensor<8x128xf8E4M3FN>
  return
}

// -----

// The input must be a ranked tensor (ODS constraint, generic form).
func.func @cast_unranked_input(%x: tensor<*xf32>) {
  // expected-error @below {{'attn.cast' op operand #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %y = "attn.cast"(%x) : (tensor<*xf32>) -> tensor<*xf16>
  return
}

// -----

// The result must be a ranked tensor (ODS constraint, generic form).
func.func @cast_vector_result(%x: tensor<4xf32>) {
  // expected-error @below {{'attn.cast' op result #0 must be ranked tensor of any type values, but got 'vector<4xf16>'}}
  %y = "attn.cast"(%x) : (tensor<4xf32>) -> vector<4xf16>
  return
}

// -----

// A cast kernel converts at least one element per block.
func.func @cast_block_size_zero(%x: tensor<8x128xf32>) {
  // expected-error @below {{'attn.cast' op expected block_size to be positive, got 0}}
  %y = attn.cast %x {block_size = 0 : i64} : tensor<8x128xf32> to tensor<8x128xbf16>
  return
}

// -----

// A negative block_size is rejected too.
func.func @cast_block_size_negative(%x: tensor<8x128xf32>) {
  // expected-error @below {{'attn.cast' op expected block_size to be positive, got -256}}
  %y = attn.cast %x {block_size = -256 : i64} : tensor<8x128xf32> to tensor<8x128xbf16>
  return
}

// -----

// block_size is an i64 (ODS constraint).
func.func @cast_block_size_float(%x: tensor<8x128xf32>) {
  // expected-error @below {{'attn.cast' op attribute 'block_size' failed to satisfy constraint: 64-bit signless integer attribute}}
  %y = attn.cast %x {block_size = 256.0 : f32} : tensor<8x128xf32> to tensor<8x128xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attn.attention_grad
//===----------------------------------------------------------------------===//

// dout is a cotangent of out: it has out's type.
func.func @attention_grad_dout_type(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>, %do: tensor<1x2x8x16xf16>) {
  // expected-error @below {{'attn.attention_grad' op expected dout to have the type of out, 'tensor<1x2x8x16xf32>', got 'tensor<1x2x8x16xf16>'}}
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %o, %l, %do
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf16>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return
}

// -----

// lse is the forward's [B, Hq, Nq] f32 result.
func.func @attention_grad_lse_shape(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x9xf32>) {
  // expected-error @below {{'attn.attention_grad' op expected lse to be an f32 tensor of shape [1, 2, 8] ([batch, q heads, q seq]), got 'tensor<1x2x9xf32>'}}
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x9xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return
}

// -----

// Each gradient has its primal's type.
func.func @attention_grad_dq_type(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad' op expected dq to have the type of q, 'tensor<1x2x8x16xf32>', got 'tensor<1x2x8x16xf16>'}}
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf16>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return
}

// -----

func.func @attention_grad_dk_type(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad' op expected dk to have the type of k, 'tensor<1x2x8x16xf32>', got 'tensor<1x2x?x16xf32>'}}
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x8x16xf32>
  return
}

// -----

func.func @attention_grad_dv_type(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad' op expected dv to have the type of v, 'tensor<1x2x8x16xf32>', got 'tensor<1x2x8x16xbf16>'}}
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xbf16>
  return
}

// -----

// The shape rules of attention apply (here: k's head dim).
func.func @attention_grad_head_dim(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x32xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad' op expected q and k to have the same head dim, got 16 and 32}}
  %dq, %dk, %dv = attn.attention_grad %q, %k, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8x16xf32>
  return
}

// -----

// The attribute rules of attention apply (here: windows).
func.func @attention_grad_window(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad' op expected window_left to be non-negative, got -1}}
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q {window_left = -1}
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return
}

// -----

// A score_grad region is the derivative of a score region.
func.func @attention_grad_score_grad_alone(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad' op has a score_grad region without a score region}}
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    score_grad {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f32
    }
  return
}

// -----

// score_grad takes the score region's arguments.
func.func @attention_grad_score_grad_args(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad' op expected the score_grad region to take (s, b, h, q_idx, k_idx) of types ('f32', 'index', 'index', 'index', 'index'), got ('f32')}}
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f32
    } score_grad {
    ^bb0(%s: f32):
      attn.yield %s : f32
    }
  return
}

// -----

// score_grad holds only region ops, like the score region.
func.func @attention_grad_score_grad_op(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  %dq, %dk, %dv = attn.attention_grad %q, %q, %q, %q, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f32
    } score_grad {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      // expected-error @below {{'math.cbrt' op is not allowed in the score_grad region of attn.attention}}
      %c = math.cbrt %s : f32
      attn.yield %c : f32
    }
  return
}

//===----------------------------------------------------------------------===//
// attn.attention_grad_delta / _kv / _q
//===----------------------------------------------------------------------===//

// -----

func.func @grad_delta_dout_type(%o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xf32>) {
  // expected-error @below {{'attn.attention_grad_delta' op expected dout to have the type of out, 'tensor<1x2x8x16xbf16>', got 'tensor<1x2x8x16xf32>'}}
  %d, %a = attn.attention_grad_delta %o, %do
      : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xf32> -> tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
  return
}

// -----

func.func @grad_delta_element(%o: tensor<1x2x8x16xi32>) {
  // expected-error @below {{'attn.attention_grad_delta' op expected out element type to be f32, f16 or bf16, got 'i32'}}
  %d, %a = attn.attention_grad_delta %o, %o
      : tensor<1x2x8x16xi32>, tensor<1x2x8x16xi32> -> tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
  return
}

// -----

func.func @grad_delta_rank(%o: tensor<2x8x16xf32>) {
  // expected-error @below {{'attn.attention_grad_delta' op expected out to have rank 4 ([batch, heads, seq, head_dim]), got rank 3}}
  %d, %a = attn.attention_grad_delta %o, %o
      : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
  return
}

// -----

func.func @grad_delta_shape(%o: tensor<1x2x8x16xf32>) {
  // expected-error @below {{'attn.attention_grad_delta' op expected delta to be an f32 tensor of shape [1, 2, 8] ([batch, q heads, q seq]), got 'tensor<1x2x8xf16>'}}
  %d, %a = attn.attention_grad_delta %o, %o
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8xf16>, tensor<1x2x8x16xf32>
  return
}

// -----

func.func @grad_delta_accumulator(%o: tensor<1x2x8x16xf32>) {
  // expected-error @below {{'attn.attention_grad_delta' op expected dq_accum to be an f32 tensor [batch, q heads, q seq, static head_dim] matching out, got 'tensor<1x2x4x16xf32>'}}
  %d, %a = attn.attention_grad_delta %o, %o
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8xf32>, tensor<1x2x4x16xf32>
  return
}

// -----

func.func @grad_delta_block_size(%o: tensor<1x2x8x16xf32>) {
  // expected-error @below {{'attn.attention_grad_delta' op expected block_size to be positive, got 0}}
  %d, %a = attn.attention_grad_delta %o, %o {block_size = 0 : i64}
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
  return
}

// -----

func.func @grad_kv_delta_shape(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>, %d: tensor<1x2x7xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op expected delta to be an f32 tensor of shape [1, 2, 8] ([batch, q heads, q seq]), got 'tensor<1x2x7xf32>'}}
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %d, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x7xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return
}

// -----

func.func @grad_kv_dout_shape(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>, %do: tensor<1x2x8x8xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op expected dout shape [1, 2, 8, 16] ([batch, q heads, q seq, v head_dim]), got 'tensor<1x2x8x8xf32>'}}
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %l, %do
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x8xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return
}

// -----

func.func @grad_kv_dk_type(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op expected dk to have the type of k, 'tensor<1x2x8x16xf32>', got 'tensor<1x2x8x16xf16>'}}
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf16>, tensor<1x2x8x16xf32>
  return
}

// -----

func.func @grad_kv_dv_type(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op expected dv to have the type of v, 'tensor<1x2x8x16xf32>', got 'tensor<1x2x8x16xf16>'}}
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf16>
  return
}

// -----

// The accumulator operand and its in-place result come together.
func.func @grad_kv_accumulator_alone(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op expected dq_accum and dq_accum_out together}}
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %l, %q, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return
}

// -----

func.func @grad_kv_accumulator_type(%q: tensor<1x2x8x16xbf16>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op expected dq_accum to be an f32 tensor of the shape of q, 'tensor<1x2x8x16xbf16>', got 'tensor<1x2x8x16xbf16>'}}
  %dk, %dv, %acc = attn.attention_grad_kv %q, %q, %q, %l, %l, %q, %q
      : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>
      -> tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>
  return
}

// -----

func.func @grad_kv_accumulator_result(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op expected dq_accum_out to have the type of dq_accum, 'tensor<1x2x8x16xf32>', got 'tensor<1x2x8x16xf16>'}}
  %dk, %dv, %acc = attn.attention_grad_kv %q, %q, %q, %l, %l, %q, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf16>
  return
}

// -----

// The dq accumulator's row order needs an accumulator.
func.func @grad_kv_swizzle_without_accumulator(%q: tensor<1x2x8x32xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op expected row_swizzle only with dq_accum}}
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %l, %q {row_swizzle = 16 : i64}
      : tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x32xf32>
      -> tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>
  return
}

// -----

// Its width: a multiple of 16 that divides the head dim.
func.func @grad_kv_swizzle_width(%q: tensor<1x2x8x32xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op expected row_swizzle to be a multiple of 16 that divides the static row length 32, got 24}}
  %dk, %dv, %acc = attn.attention_grad_kv %q, %q, %q, %l, %l, %q, %q {row_swizzle = 24 : i64}
      : tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>
      -> tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>
  return
}

// -----

func.func @grad_kv_swizzle_divides(%q: tensor<1x2x8x48xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op expected row_swizzle to be a multiple of 16 that divides the static row length 48, got 32}}
  %dk, %dv, %acc = attn.attention_grad_kv %q, %q, %q, %l, %l, %q, %q {row_swizzle = 32 : i64}
      : tensor<1x2x8x48xf32>, tensor<1x2x8x48xf32>, tensor<1x2x8x48xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x48xf32>, tensor<1x2x8x48xf32>
      -> tensor<1x2x8x48xf32>, tensor<1x2x8x48xf32>, tensor<1x2x8x48xf32>
  return
}

// -----

// Kernels need the score region's derivative.
func.func @grad_kv_missing_score_grad(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op has a score region but no score_grad region; run attn-differentiate-score}}
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      attn.yield %s : f32
    }
  return
}

// -----

func.func @grad_q_dq_type(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_q' op expected dq to have the type of q, 'tensor<1x2x8x16xf32>', got 'tensor<1x2x8x16xbf16>'}}
  %dq = attn.attention_grad_q %q, %q, %q, %l, %l, %q
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xbf16>
  return
}

// -----

func.func @grad_q_scale(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) {
  // expected-error @below {{'attn.attention_grad_q' op expected scale to be finite and non-zero, got 0}}
  %dq = attn.attention_grad_q %q, %q, %q, %l, %l, %q {scale = 0.0 : f32}
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>
  return
}

// -----

// The number of key ranges must be static.
func.func @split_dynamic_ranges(%q: tensor<1x4x1x32xbf16>, %k: tensor<1x4x?x32xbf16>) {
  // expected-error @below {{'attn.attention_split' op expected per-range results tensor<?x1x4x1x32xf32> and tensor<?x1x4x1xf32> ([ranges, batch, q heads, q seq(, v head_dim)]) with a static number of ranges, got 'tensor<?x1x4x1x32xf32>' and 'tensor<?x1x4x1xf32>'}}
  %po, %pl = attn.attention_split %q, %k, %k
      : tensor<1x4x1x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>
      -> tensor<?x1x4x1x32xf32>, tensor<?x1x4x1xf32>
  return
}

// -----

// Per-range results are f32 of attention's shapes.
func.func @split_wrong_parts(%q: tensor<1x4x1x32xbf16>, %k: tensor<1x4x?x32xbf16>) {
  // expected-error @below {{'attn.attention_split' op expected per-range results tensor<8x1x4x1x32xf32> and tensor<8x1x4x1xf32> ([ranges, batch, q heads, q seq(, v head_dim)]) with a static number of ranges, got 'tensor<8x1x4x1x32xbf16>' and 'tensor<8x1x4x1xf32>'}}
  %po, %pl = attn.attention_split %q, %k, %k
      : tensor<1x4x1x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>
      -> tensor<8x1x4x1x32xbf16>, tensor<8x1x4x1xf32>
  return
}

// -----

// The split op checks q, k and v as attention does.
func.func @split_heads(%q: tensor<1x3x1x32xbf16>, %k: tensor<1x2x?x32xbf16>) {
  // expected-error @below {{'attn.attention_split' op expected the q head count (3) to be a multiple of the k/v head count (2)}}
  %po, %pl = attn.attention_split %q, %k, %k
      : tensor<1x3x1x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16>
      -> tensor<8x1x3x1x32xf32>, tensor<8x1x3x1xf32>
  return
}

// -----

// The split op checks its attributes as attention does.
func.func @split_bottom_right_alone(%q: tensor<1x4x1x32xbf16>, %k: tensor<1x4x?x32xbf16>) {
  // expected-error @below {{'attn.attention_split' op bottom_right aligns causal and windows; it needs causal, window_left or window_right}}
  %po, %pl = attn.attention_split %q, %k, %k {bottom_right}
      : tensor<1x4x1x32xbf16>, tensor<1x4x?x32xbf16>, tensor<1x4x?x32xbf16>
      -> tensor<8x1x4x1x32xf32>, tensor<8x1x4x1xf32>
  return
}

// -----

func.func @combine_out_type(%po: tensor<8x1x4x1x32xf32>, %pl: tensor<8x1x4x1xf32>) {
  // expected-error @below {{'attn.attention_combine' op expected out to be a rank-4 tensor of f32, f16 or bf16 ([batch, q heads, q seq, v head_dim]), got 'tensor<1x4x1x32xi8>'}}
  %o, %l = attn.attention_combine %po, %pl
      : tensor<8x1x4x1x32xf32>, tensor<8x1x4x1xf32> -> tensor<1x4x1x32xi8>, tensor<1x4x1xf32>
  return
}

// -----

func.func @combine_lse(%po: tensor<8x1x4x1x32xf32>, %pl: tensor<8x1x4x1xf32>) {
  // expected-error @below {{'attn.attention_combine' op expected lse to be an f32 tensor of shape [1, 4, 1] ([batch, q heads, q seq]), got 'tensor<1x4x2xf32>'}}
  %o, %l = attn.attention_combine %po, %pl
      : tensor<8x1x4x1x32xf32>, tensor<8x1x4x1xf32> -> tensor<1x4x1x32xbf16>, tensor<1x4x2xf32>
  return
}

// -----

func.func @combine_parts(%po: tensor<8x1x4x1x32xf32>, %pl: tensor<4x1x4x1xf32>) {
  // expected-error @below {{'attn.attention_combine' op expected out_part and lse_part to be f32 with a static leading number of ranges and out's and lse's shapes after it, got 'tensor<8x1x4x1x32xf32>' and 'tensor<4x1x4x1xf32>'}}
  %o, %l = attn.attention_combine %po, %pl
      : tensor<8x1x4x1x32xf32>, tensor<4x1x4x1xf32> -> tensor<1x4x1x32xbf16>, tensor<1x4x1xf32>
  return
}

// -----

func.func @combine_block_size(%po: tensor<8x1x4x1x32xf32>, %pl: tensor<8x1x4x1xf32>) {
  // expected-error @below {{'attn.attention_combine' op expected a positive block_size, got 0}}
  %o, %l = attn.attention_combine %po, %pl {block_size = 0}
      : tensor<8x1x4x1x32xf32>, tensor<8x1x4x1xf32> -> tensor<1x4x1x32xbf16>, tensor<1x4x1xf32>
  return
}

// -----

// Packed groups are rows of tensor-core tiles.
func.func @pack_group_scalar(%q: tensor<1x32x1x64xbf16>, %k: tensor<1x8x?x64xbf16>) {
  // expected-error @below {{pack_group needs tensor-core tiles (mma = mma_sync or wgmma)}}
  %o, %l = attn.attention %q, %k, %k {tiles = #attn.tiles<block_m = 64, block_n = 64, pack_group = true>}
      : tensor<1x32x1x64xbf16>, tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>
      -> tensor<1x32x1x64xbf16>, tensor<1x32x1xf32>
  return
}

// -----

// mma = none is the scalar kernel, which packs no group either.
func.func @pack_group_mma_none(%q: tensor<1x32x1x64xbf16>, %k: tensor<1x8x?x64xbf16>) {
  // expected-error @below {{pack_group needs tensor-core tiles (mma = mma_sync or wgmma)}}
  %o, %l = attn.attention %q, %k, %k {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = none, pack_group = true>}
      : tensor<1x32x1x64xbf16>, tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>
      -> tensor<1x32x1x64xbf16>, tensor<1x32x1xf32>
  return
}

// -----

// A packed block's rows are a group's heads at the one query row.
func.func @pack_group_rows(%q: tensor<1x32x2x64xbf16>, %k: tensor<1x8x?x64xbf16>) {
  // expected-error @below {{'attn.attention' op pack_group tiles need a forward attention op with a query length of 1 and block_m of at least the 4 query heads of a key/value group}}
  %o, %l = attn.attention %q, %k, %k {tiles = #attn.tiles<block_m = 16, block_n = 32, mma = mma_sync, pack_group = true>}
      : tensor<1x32x2x64xbf16>, tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>
      -> tensor<1x32x2x64xbf16>, tensor<1x32x2xf32>
  return
}

// -----

// A producer warpgroup feeds wgmma consumers only.
func.func @producer_mma_sync(%q: tensor<1x4x64x64xbf16>) {
  // expected-error @below {{producer needs mma = wgmma}}
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = mma_sync, producer = true>}
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
      -> tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>
  return
}

// -----

// A gradient kernel's producer loads by TMA.
func.func @producer_grad_kv_without_tma(%q: tensor<1x2x128x64xbf16>, %l: tensor<1x2x128xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op producer tiles of a gradient op need tma = true (its producer loads by TMA where it can)}}
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %l, %q {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = wgmma, producer = true>}
      : tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128xf32>, tensor<1x2x128xf32>, tensor<1x2x128x64xbf16>
      -> tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>
  return
}

// -----

// The split kernels copy their own tiles.
func.func @producer_split(%q: tensor<1x4x1x64xbf16>, %k: tensor<1x4x128x64xbf16>) {
  // expected-error @below {{'attn.attention_split' op producer tiles need attention, attention_grad_kv or attention_grad_q (the split kernels copy their own tiles)}}
  %po, %pl = attn.attention_split %q, %k, %k {tiles = #attn.tiles<block_m = 64, block_n = 64, mma = wgmma, producer = true>}
      : tensor<1x4x1x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>
      -> tensor<2x1x4x1x64xf32>, tensor<2x1x4x1xf32>
  return
}

// -----

// TMA copies are the producer's.
func.func @tma_without_producer(%q: tensor<1x4x128x64xbf16>) {
  // expected-error @below {{tma needs producer = true (the producer copies by TMA)}}
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, tma = true>}
      : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>
      -> tensor<1x4x128x64xbf16>, tensor<1x4x128xf32>
  return
}

// -----

// Turns pass between warpgroups: one is not enough.
func.func @ping_pong_one_warpgroup(%q: tensor<1x4x128x64xbf16>) {
  // expected-error @below {{'attn.attention' op ping_pong tiles need two or more warpgroups to take turns (64 rows of block_m each, of block_n for attention_grad_kv)}}
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 64, block_n = 128, mma = wgmma, ping_pong = true>}
      : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>
      -> tensor<1x4x128x64xbf16>, tensor<1x4x128xf32>
  return
}

// -----

// ... and they are turns on wgmma.
func.func @ping_pong_mma_sync(%q: tensor<1x4x128x64xbf16>) {
  // expected-error @below {{ping_pong needs mma = wgmma}}
  %o, %l = attn.attention %q, %q, %q {tiles = #attn.tiles<block_m = 128, block_n = 64, mma = mma_sync, ping_pong = true>}
      : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>
      -> tensor<1x4x128x64xbf16>, tensor<1x4x128xf32>
  return
}

// -----

// The key/value gradient kernel's warpgroups own keys: 64 keys are one.
func.func @ping_pong_grad_kv(%q: tensor<1x2x128x64xbf16>, %l: tensor<1x2x128xf32>) {
  // expected-error @below {{'attn.attention_grad_kv' op ping_pong tiles need two or more warpgroups to take turns (64 rows of block_m each, of block_n for attention_grad_kv)}}
  %dk, %dv = attn.attention_grad_kv %q, %q, %q, %l, %l, %q {tiles = #attn.tiles<block_m = 128, block_n = 64, mma = wgmma, ping_pong = true>}
      : tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128xf32>, tensor<1x2x128xf32>, tensor<1x2x128x64xbf16>
      -> tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>
  return
}

// -----

// A constant zero divisor is undefined behaviour on every input.
func.func @mask_divides_by_zero(%q: tensor<1x4x64x32xf32>) {
  %out, %lse = attn.attention %q, %q, %q
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c0 = arith.constant 0 : index
      // expected-error @below {{'arith.divui' op in the mask region divides by zero}}
      %r = arith.divui %ki, %c0 : index
      %ok = arith.cmpi eq, %r, %qi : index
      attn.yield %ok : i1
    }
  return
}

//===----------------------------------------------------------------------===//
// Captured tensors of the regions
//===----------------------------------------------------------------------===//

// -----

// Captures hold i32, i64, f16, bf16 or f32 elements.
func.func @attention_capture_element_type(%q: tensor<1x4x64x32xf32>, %c: tensor<64xi8>) {
  // expected-error @below {{'attn.attention' op expected capture 0 to be a tensor of rank 1 to 4 of i32, i64, f16, bf16 or f32, got 'tensor<64xi8>'}}
  %out, %lse = attn.attention %q, %q, %q captures(%c : tensor<64xi8>)
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// A capture has at least one dim.
func.func @attention_capture_rank_0(%q: tensor<1x4x64x32xf32>, %c: tensor<i32>) {
  // expected-error @below {{'attn.attention' op expected capture 0 to be a tensor of rank 1 to 4 of i32, i64, f16, bf16 or f32, got 'tensor<i32>'}}
  %out, %lse = attn.attention %q, %q, %q captures(%c : tensor<i32>)
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
  return
}

// -----

// Every region takes the captures after its indices.
func.func @attention_capture_missing_from_region(%q: tensor<1x4x64x32xf32>, %c: tensor<64xi32>) {
  // expected-error @below {{'attn.attention' op expected the mask region to take (b, h, q_idx, k_idx, capture0) of types ('index', 'index', 'index', 'index', 'tensor<64xi32>'), got ('index', 'index', 'index', 'index')}}
  %out, %lse = attn.attention %q, %q, %q captures(%c : tensor<64xi32>)
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %true = arith.constant true
      attn.yield %true : i1
    }
  return
}

// -----

// Regions read captures with tensor.extract only.
func.func @attention_capture_other_op(%q: tensor<1x4x64x32xf32>, %c: tensor<64xi32>) {
  %out, %lse = attn.attention %q, %q, %q captures(%c : tensor<64xi32>)
      : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>
      -> tensor<1x4x64x32xf32>, tensor<1x4x64xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %d: tensor<64xi32>):
      %zero = arith.constant 0 : index
      // expected-error @below {{'tensor.dim' op is not allowed in the mask region of attn.attention}}
      %n = tensor.dim %d, %zero : tensor<64xi32>
      %lt = arith.cmpi ult, %ki, %n : index
      attn.yield %lt : i1
    }
  return
}

// -----

func.func @elementwise_no_input() -> tensor<4xf32> {
  // expected-error @below {{'attn.elementwise' op expected at least one input}}
  %y = "attn.elementwise"() ({
  ^bb0:
    %c = arith.constant 1.0 : f32
    attn.yield %c : f32
  }) : () -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @elementwise_result_type(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @below {{'attn.elementwise' op expected result 0 to have f32, f16 or bf16 elements, got 'tensor<4xf64>'}}
  %y = attn.elementwise %x : tensor<4xf32> -> tensor<4xf64> {
  ^bb0(%a: f32):
    attn.yield %a : f32
  }
  return %y : tensor<4xf64>
}

// -----

func.func @elementwise_extent(%x: tensor<0xf32>) -> tensor<0xf32> {
  // expected-error @below {{'attn.elementwise' op dim 0 is out of range; static dims must be in [1, 2147483647]}}
  %y = attn.elementwise %x : tensor<0xf32> -> tensor<0xf32> {
  ^bb0(%a: f32):
    attn.yield %a : f32
  }
  return %y : tensor<0xf32>
}

// -----

func.func @elementwise_input_type(%x: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @below {{'attn.elementwise' op expected input 0 to have f32, f16 or bf16 elements, got 'tensor<4xi32>'}}
  %y = attn.elementwise %x : tensor<4xi32> -> tensor<4xf32> {
  ^bb0(%a: f32):
    attn.yield %a : f32
  }
  return %y : tensor<4xf32>
}

// -----

func.func @elementwise_input_shape(%x: tensor<4xf32>, %z: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @below {{'attn.elementwise' op expected input 1 to have the first result's shape, got 'tensor<4xf32>' and 'tensor<?x4xf32>'}}
  %y = attn.elementwise %z, %x : tensor<?x4xf32>, tensor<4xf32> -> tensor<?x4xf32> {
  ^bb0(%a: f32, %b: f32):
    attn.yield %a : f32
  }
  return %y : tensor<?x4xf32>
}

// -----

func.func @elementwise_block_size(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'attn.elementwise' op expected block_size to be positive, got 0}}
  %y = attn.elementwise %x {block_size = 0 : i64} : tensor<4xf32> -> tensor<4xf32> {
  ^bb0(%a: f32):
    attn.yield %a : f32
  }
  return %y : tensor<4xf32>
}

// -----

func.func @elementwise_body_args(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'attn.elementwise' op expected the body region to take (one f32 per input) of types ('f32'), got ('f16')}}
  %y = attn.elementwise %x : tensor<4xf32> -> tensor<4xf32> {
  ^bb0(%a: f16):
    %e = arith.extf %a : f16 to f32
    attn.yield %e : f32
  }
  return %y : tensor<4xf32>
}

// -----

func.func @elementwise_body_yield(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = attn.elementwise %x : tensor<4xf32> -> tensor<4xf32> {
  ^bb0(%a: f32):
    %t = arith.truncf %a : f32 to f16
    // expected-error @below {{'attn.yield' op expected the body region to yield one 'f32'}}
    attn.yield %t : f16
  }
  return %y : tensor<4xf32>
}

// -----

func.func @elementwise_body_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = attn.elementwise %x : tensor<4xf32> -> tensor<4xf32> {
  ^bb0(%a: f32):
    // expected-error @below {{'func.call' op is not allowed in the body region of attn.elementwise: regions hold only the scalar arith and math ops of the region op table (lib/semantics/RegionOps.def)}}
    %c = func.call @f(%a) : (f32) -> f32
    attn.yield %c : f32
  }
  return %y : tensor<4xf32>
}
func.func private @f(f32) -> f32

// -----

func.func @elementwise_only_broadcast(%s: tensor<f32>) -> tensor<4xf32> {
  // expected-error @below {{'attn.elementwise' op expected an input of the results' shape besides rank-0 inputs, which are broadcast}}
  %y = attn.elementwise %s : tensor<f32> -> tensor<4xf32> {
  ^bb0(%a: f32):
    attn.yield %a : f32
  }
  return %y : tensor<4xf32>
}

// -----

func.func @elementwise_no_result(%x: tensor<4xf32>) {
  // expected-error @below {{'attn.elementwise' op expected at least one result}}
  "attn.elementwise"(%x) ({
  ^bb0(%a: f32):
    attn.yield
  }) : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @elementwise_result_shapes(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<5xf32>) {
  // expected-error @below {{'attn.elementwise' op expected result 1 to have the first result's shape, got 'tensor<5xf32>' and 'tensor<4xf32>'}}
  %y, %z = attn.elementwise %x : tensor<4xf32> -> tensor<4xf32>, tensor<5xf32> {
  ^bb0(%a: f32):
    attn.yield %a, %a : f32, f32
  }
  return %y, %z : tensor<4xf32>, tensor<5xf32>
}

// -----

func.func @elementwise_yields(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y, %z = attn.elementwise %x : tensor<4xf32> -> tensor<4xf32>, tensor<4xf32> {
  ^bb0(%a: f32):
    // expected-error @below {{'attn.yield' op expected the body region to yield ('f32', 'f32')}}
    attn.yield %a : f32
  }
  return %y, %z : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @matmul_element(%a: tensor<4x8xi32>, %b: tensor<8x2xi32>) -> tensor<4x2xi32> {
  // expected-error @below {{'attn.matmul' op expected a to have f32, f16 or bf16 elements, got 'tensor<4x8xi32>'}}
  %c = attn.matmul %a, %b : tensor<4x8xi32>, tensor<8x2xi32> -> tensor<4x2xi32>
  return %c : tensor<4x2xi32>
}

// -----

func.func @matmul_mixed(%a: tensor<4x8xbf16>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @below {{'attn.matmul' op expected b to have a's element type 'bf16', got 'tensor<8x2xf32>'}}
  %c = attn.matmul %a, %b : tensor<4x8xbf16>, tensor<8x2xf32> -> tensor<4x2xf32>
  return %c : tensor<4x2xf32>
}

// -----

func.func @matmul_result_element(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xbf16> {
  // expected-error @below {{'attn.matmul' op expected the result element type to be 'f32' or f32, got 'tensor<4x2xbf16>'}}
  %c = attn.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xbf16>
  return %c : tensor<4x2xbf16>
}

// -----

func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x2xf32>) -> tensor<2xf32> {
  // expected-error @below {{'attn.matmul' op expected a to have rows and a column dim (rank 2 or more), got 'tensor<8xf32>'}}
  %c = attn.matmul %a, %b : tensor<8xf32>, tensor<8x2xf32> -> tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

func.func @matmul_both_transposed(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>) -> tensor<8x2xf32> {
  // expected-error @below {{'attn.matmul' op expected at most one of transpose_a and transpose_b}}
  %c = attn.matmul %a, %b {transpose_a, transpose_b} : tensor<4x8xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
  return %c : tensor<8x2xf32>
}

// -----

func.func @matmul_extent(%a: tensor<0x8xf32>, %b: tensor<8x2xf32>) -> tensor<0x2xf32> {
  // expected-error @below {{'attn.matmul' op a dim 0 is 0; static dims must be in [1, 2147483647]}}
  %c = attn.matmul %a, %b : tensor<0x8xf32>, tensor<8x2xf32> -> tensor<0x2xf32>
  return %c : tensor<0x2xf32>
}

// -----

func.func @matmul_weight(%a: tensor<?x4x8xf32>, %b: tensor<2x8xf32>) -> tensor<?x4x2xf32> {
  // expected-error @below {{'attn.matmul' op expected b of shape [8, ?] ([K, N] with K = a's last dim), got 'tensor<2x8xf32>'}}
  %c = attn.matmul %a, %b : tensor<?x4x8xf32>, tensor<2x8xf32> -> tensor<?x4x2xf32>
  return %c : tensor<?x4x2xf32>
}

// -----

func.func @matmul_weight_transposed(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'attn.matmul' op expected b of shape [?, 8] ([N, K] with K = a's last dim), got 'tensor<8x2xf32>'}}
  %c = attn.matmul %a, %b {transpose_b} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

func.func @matmul_rows(%a: tensor<4x8xf32>, %b: tensor<5x2xf32>) -> tensor<8x2xf32> {
  // expected-error @below {{'attn.matmul' op expected b of shape [4, ?] (the rows of a, then N), got 'tensor<5x2xf32>'}}
  %c = attn.matmul %a, %b {transpose_a} : tensor<4x8xf32>, tensor<5x2xf32> -> tensor<8x2xf32>
  return %c : tensor<8x2xf32>
}

// -----

func.func @matmul_result(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{'attn.matmul' op expected a result of shape [4, 2], got 'tensor<4x3xf32>'}}
  %c = attn.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x3xf32>
  return %c : tensor<4x3xf32>
}

// -----

func.func @matmul_tile(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @below {{'attn.matmul' op expected tile to be [rows, columns] in [1, 1024], got array<i64: 32>}}
  %c = attn.matmul %a, %b {tile = array<i64: 32>} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  return %c : tensor<4x2xf32>
}

// -----

func.func @matmul_library(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @below {{'attn.matmul' op unknown library 'cublas' (expected cublaslt)}}
  %c = attn.matmul %a, %b {library = "cublas"} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  return %c : tensor<4x2xf32>
}

// -----

func.func @matmul_bias_contraction(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>, %c: tensor<2xf32>) -> tensor<8x2xf32> {
  // expected-error @below {{'attn.matmul' op expected no bias on a row contraction (transpose_a)}}
  %d = attn.matmul %a, %b, %c {transpose_a} : tensor<4x8xf32>, tensor<4x2xf32>, tensor<2xf32> -> tensor<8x2xf32>
  return %d : tensor<8x2xf32>
}

// -----

func.func @matmul_bias_shape(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>, %c: tensor<2xf32>) -> tensor<4x2xbf16> {
  // expected-error @below {{'attn.matmul' op expected a bias of shape [2] and 'bf16' elements, got 'tensor<2xf32>'}}
  %d = attn.matmul %a, %b, %c : tensor<4x8xbf16>, tensor<8x2xbf16>, tensor<2xf32> -> tensor<4x2xbf16>
  return %d : tensor<4x2xbf16>
}

// -----

func.func @matmul_addend_type(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>, %c: tensor<4x2xf32>) -> tensor<4x2xbf16> {
  // expected-error @below {{'attn.matmul' op expected an addend of the result's type 'tensor<4x2xbf16>', got 'tensor<4x2xf32>'}}
  %d = attn.matmul %a, %b + %c : tensor<4x8xbf16>, tensor<8x2xbf16> + tensor<4x2xf32> -> tensor<4x2xbf16>
  return %d : tensor<4x2xbf16>
}

// -----

func.func @matmul_addend_shape(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>, %c: tensor<4x3xbf16>) -> tensor<4x2xbf16> {
  // expected-error @below {{'attn.matmul' op expected an addend of the result's type 'tensor<4x2xbf16>', got 'tensor<4x3xbf16>'}}
  %d = attn.matmul %a, %b + %c : tensor<4x8xbf16>, tensor<8x2xbf16> + tensor<4x3xbf16> -> tensor<4x2xbf16>
  return %d : tensor<4x2xbf16>
}

// -----

func.func @matmul_activation_unknown(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>) -> tensor<4x2xbf16> {
  // expected-error @below {{'attn.matmul' op unknown activation 'gelu' (expected gelu_tanh)}}
  %d = attn.matmul %a, %b {activation = "gelu"} : tensor<4x8xbf16>, tensor<8x2xbf16> -> tensor<4x2xbf16>
  return %d : tensor<4x2xbf16>
}

// -----

func.func @matmul_activation_rows(%a: tensor<4x8xbf16>, %b: tensor<4x2xbf16>) -> tensor<8x2xf32> {
  // expected-error @below {{'attn.matmul' op expected no activation on a row contraction (transpose_a)}}
  %d = attn.matmul %a, %b {activation = "gelu_tanh", transpose_a} : tensor<4x8xbf16>, tensor<4x2xbf16> -> tensor<8x2xf32>
  return %d : tensor<8x2xf32>
}

// -----

func.func @matmul_activation_addend(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>, %c: tensor<4x2xbf16>) -> tensor<4x2xbf16> {
  // expected-error @below {{'attn.matmul' op expected an activation or an addend, not both}}
  %d = attn.matmul %a, %b + %c {activation = "gelu_tanh"} : tensor<4x8xbf16>, tensor<8x2xbf16> + tensor<4x2xbf16> -> tensor<4x2xbf16>
  return %d : tensor<4x2xbf16>
}

// -----

func.func @layer_norm_bias(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'attn.layer_norm' op expected bias to have shape [8], got 'tensor<4xf32>'}}
  %y, %r = attn.layer_norm %x, %w, %b {epsilon = 1.0e-05 : f32} : tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<4xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @layer_norm_grad_partial(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %r: tensor<4xf32>, %dy: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'attn.layer_norm_grad' op expected dweight_partial to be [P, D] with a static P, got 'tensor<?x8xf32>'}}
  %dx, %p = attn.layer_norm_grad %x, %w, %r, %dy : tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>, tensor<?x8xf32>
  return %dx : tensor<4x8xf32>
}

// -----

func.func @embedding_table(%t: tensor<?x8xf32>, %i: tensor<4xi32>) -> tensor<4x8xf32> {
  // expected-error @below {{'attn.embedding' op expected a table [V, D] of static extents, got 'tensor<?x8xf32>'}}
  %x = attn.embedding %t, %i : tensor<?x8xf32>, tensor<4xi32> -> tensor<4x8xf32>
  return %x : tensor<4x8xf32>
}

// -----

func.func @embedding_table_element(%t: tensor<16x8xi32>, %i: tensor<4xi32>) -> tensor<4x8xi32> {
  // expected-error @below {{'attn.embedding' op expected the table to have f32, f16 or bf16 elements, got 'tensor<16x8xi32>'}}
  %x = attn.embedding %t, %i : tensor<16x8xi32>, tensor<4xi32> -> tensor<4x8xi32>
  return %x : tensor<4x8xi32>
}

// -----

func.func @embedding_ids(%t: tensor<16x8xf32>, %i: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'attn.embedding' op expected ids to have i32 or i64 elements, got 'tensor<4xf32>'}}
  %x = attn.embedding %t, %i : tensor<16x8xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return %x : tensor<4x8xf32>
}

// -----

func.func @embedding_result(%t: tensor<16x8xf32>, %i: tensor<4xi64>) -> tensor<4x16xf32> {
  // expected-error @below {{'attn.embedding' op expected a result of shape [4, 8] and the table's element type, got 'tensor<4x16xf32>'}}
  %x = attn.embedding %t, %i : tensor<16x8xf32>, tensor<4xi64> -> tensor<4x16xf32>
  return %x : tensor<4x16xf32>
}

// -----

func.func @token_order_ids(%i: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @below {{'attn.token_order' op expected ids to have i32 or i64 elements, got 'tensor<4xf32>'}}
  %o, %b = attn.token_order %i : tensor<4xf32> -> tensor<4xi32>, tensor<17xi32>
  return %o : tensor<4xi32>
}

// -----

func.func @token_order_element(%i: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @below {{'attn.token_order' op expected order to have i32 elements, got 'tensor<4xi64>'}}
  %o, %b = attn.token_order %i : tensor<4xi64> -> tensor<4xi64>, tensor<17xi32>
  return %o : tensor<4xi64>
}

// -----

func.func @token_order_shape(%i: tensor<4xi32>) -> tensor<5xi32> {
  // expected-error @below {{'attn.token_order' op expected order to have shape [4], got 'tensor<5xi32>'}}
  %o, %b = attn.token_order %i : tensor<4xi32> -> tensor<5xi32>, tensor<17xi32>
  return %o : tensor<5xi32>
}

// -----

func.func @token_order_bounds(%i: tensor<4xi32>) -> tensor<?xi32> {
  // expected-error @below {{'attn.token_order' op expected bounds [V + 1] of a static V >= 1, got 'tensor<?xi32>'}}
  %o, %b = attn.token_order %i : tensor<4xi32> -> tensor<4xi32>, tensor<?xi32>
  return %b : tensor<?xi32>
}

// -----

func.func @token_order_bounds_element(%i: tensor<4xi32>) -> tensor<17xi64> {
  // expected-error @below {{'attn.token_order' op expected bounds to have i32 elements, got 'tensor<17xi64>'}}
  %o, %b = attn.token_order %i : tensor<4xi32> -> tensor<4xi32>, tensor<17xi64>
  return %b : tensor<17xi64>
}

// -----

func.func @embedding_grad_table(%o: tensor<4xi32>, %b: tensor<17xi32>, %d: tensor<4x8xbf16>) -> tensor<16x8xbf16> {
  // expected-error @below {{'attn.embedding_grad' op expected an f32 table gradient, got 'tensor<16x8xbf16>'}}
  %t = attn.embedding_grad %o, %b, %d : tensor<4xi32>, tensor<17xi32>, tensor<4x8xbf16> -> tensor<16x8xbf16>
  return %t : tensor<16x8xbf16>
}

// -----

func.func @embedding_grad_order(%o: tensor<4xi64>, %b: tensor<17xi32>, %d: tensor<4x8xbf16>) -> tensor<16x8xf32> {
  // expected-error @below {{'attn.embedding_grad' op expected order to have i32 elements, got 'tensor<4xi64>'}}
  %t = attn.embedding_grad %o, %b, %d : tensor<4xi64>, tensor<17xi32>, tensor<4x8xbf16> -> tensor<16x8xf32>
  return %t : tensor<16x8xf32>
}

// -----

func.func @embedding_grad_bounds(%o: tensor<4xi32>, %b: tensor<9xi32>, %d: tensor<4x8xbf16>) -> tensor<16x8xf32> {
  // expected-error @below {{'attn.embedding_grad' op expected bounds of 17 elements, one more than the table's rows, got 'tensor<9xi32>'}}
  %t = attn.embedding_grad %o, %b, %d : tensor<4xi32>, tensor<9xi32>, tensor<4x8xbf16> -> tensor<16x8xf32>
  return %t : tensor<16x8xf32>
}

// -----

func.func @embedding_grad_dout(%o: tensor<4xi32>, %b: tensor<17xi32>, %d: tensor<5x8xbf16>) -> tensor<16x8xf32> {
  // expected-error @below {{'attn.embedding_grad' op expected dout of shape [4, 8] with f32, f16 or bf16 elements, got 'tensor<5x8xbf16>'}}
  %t = attn.embedding_grad %o, %b, %d : tensor<4xi32>, tensor<17xi32>, tensor<5x8xbf16> -> tensor<16x8xf32>
  return %t : tensor<16x8xf32>
}

// -----

func.func @cross_entropy_classes(%l: tensor<4x?xf32>, %y: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @below {{'attn.cross_entropy' op expected logits to have rows of a static class count (their last dim), got 'tensor<4x?xf32>'}}
  %a, %b = attn.cross_entropy %l, %y {ignore_index = -100 : i64} : tensor<4x?xf32>, tensor<4xi32> -> tensor<4xf32>, tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @cross_entropy_logits_element(%l: tensor<4x8xi32>, %y: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @below {{'attn.cross_entropy' op expected logits to have f32, f16 or bf16 elements, got 'tensor<4x8xi32>'}}
  %a, %b = attn.cross_entropy %l, %y {ignore_index = -100 : i64} : tensor<4x8xi32>, tensor<4xi32> -> tensor<4xf32>, tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @cross_entropy_label_element(%l: tensor<4x8xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'attn.cross_entropy' op expected labels to have i32 or i64 elements, got 'tensor<4xf32>'}}
  %a, %b = attn.cross_entropy %l, %y {ignore_index = -100 : i64} : tensor<4x8xf32>, tensor<4xf32> -> tensor<4xf32>, tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @cross_entropy_label_shape(%l: tensor<4x8xf32>, %y: tensor<5xi64>) -> tensor<4xf32> {
  // expected-error @below {{'attn.cross_entropy' op expected labels to have shape [4], got 'tensor<5xi64>'}}
  %a, %b = attn.cross_entropy %l, %y {ignore_index = -100 : i64} : tensor<4x8xf32>, tensor<5xi64> -> tensor<4xf32>, tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @cross_entropy_losses(%l: tensor<4x8xbf16>, %y: tensor<4xi32>) -> tensor<4xbf16> {
  // expected-error @below {{'attn.cross_entropy' op expected losses to have f32 elements, got 'tensor<4xbf16>'}}
  %a, %b = attn.cross_entropy %l, %y {ignore_index = -100 : i64} : tensor<4x8xbf16>, tensor<4xi32> -> tensor<4xbf16>, tensor<4xf32>
  return %a : tensor<4xbf16>
}

// -----

func.func @cross_entropy_grad_type(%l: tensor<4x8xbf16>, %y: tensor<4xi32>, %s: tensor<4xf32>, %d: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'attn.cross_entropy_grad' op expected dlogits to have the logits' type 'tensor<4x8xbf16>', got 'tensor<4x8xf32>'}}
  %g = attn.cross_entropy_grad %l, %y, %s, %d {ignore_index = -100 : i64} : tensor<4x8xbf16>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// -----

func.func @token_mean_shape(%v: tensor<4xf32>, %y: tensor<4xi32>) -> tensor<1xf32> {
  // expected-error @below {{'attn.token_mean' op expected mean to have shape [], got 'tensor<1xf32>'}}
  %m = attn.token_mean %v, %y {ignore_index = -100 : i64} : tensor<4xf32>, tensor<4xi32> -> tensor<1xf32>
  return %m : tensor<1xf32>
}

// -----

func.func @token_mean_grad_dmean(%y: tensor<4xi32>, %d: tensor<bf16>) -> tensor<4xf32> {
  // expected-error @below {{'attn.token_mean_grad' op expected dmean to have f32 elements, got 'tensor<bf16>'}}
  %g = attn.token_mean_grad %y, %d {ignore_index = -100 : i64} : tensor<4xi32>, tensor<bf16> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @token_mean_ignore_index(%v: tensor<4xf32>, %y: tensor<4xi32>) -> tensor<f32> {
  // expected-error @below {{'attn.token_mean' op expected ignore_index to fit the labels' i32, got 4294967296}}
  %m = attn.token_mean %v, %y {ignore_index = 4294967296 : i64} : tensor<4xf32>, tensor<4xi32> -> tensor<f32>
  return %m : tensor<f32>
}

// -----

func.func @cross_entropy_block_size(%l: tensor<4x8xf32>, %y: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @below {{'attn.cross_entropy' op expected block_size in [1, 1024], got 0}}
  %a, %b = attn.cross_entropy %l, %y {ignore_index = -100 : i64, block_size = 0 : i64} : tensor<4x8xf32>, tensor<4xi32> -> tensor<4xf32>, tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @rms_norm_width(%x: tensor<4x?xf32>, %w: tensor<8xf32>) -> tensor<4x?xf32> {
  // expected-error @below {{'attn.rms_norm' op expected x to have rows of a static width (its last dim), got 'tensor<4x?xf32>'}}
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-06 : f32} : tensor<4x?xf32>, tensor<8xf32> -> tensor<4x?xf32>, tensor<4xf32>
  return %y : tensor<4x?xf32>
}

// -----

func.func @rms_norm_epsilon(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'attn.rms_norm' op expected a finite epsilon >= 0, got -1.000000e+00}}
  %y, %r = attn.rms_norm %x, %w {epsilon = -1.0 : f32} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>, tensor<4xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @rms_norm_weight(%x: tensor<4x8xf32>, %w: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'attn.rms_norm' op expected weight to have shape [8], got 'tensor<4xf32>'}}
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-06 : f32} : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<4xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @rms_norm_element(%x: tensor<4x8xi32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'attn.rms_norm' op expected x to have f32, f16 or bf16 elements, got 'tensor<4x8xi32>'}}
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-06 : f32} : tensor<4x8xi32>, tensor<8xf32> -> tensor<4x8xf32>, tensor<4xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @rms_norm_rstd(%x: tensor<4x8xbf16>, %w: tensor<8xbf16>) -> tensor<4x8xbf16> {
  // expected-error @below {{'attn.rms_norm' op expected rstd to have f32 elements, got 'tensor<4xbf16>'}}
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-06 : f32} : tensor<4x8xbf16>, tensor<8xbf16> -> tensor<4x8xbf16>, tensor<4xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

func.func @rms_norm_extent(%x: tensor<0x8xf32>, %w: tensor<8xf32>) -> tensor<0x8xf32> {
  // expected-error @below {{'attn.rms_norm' op x dim 0 is 0; static dims must be in [1, 2147483647]}}
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-06 : f32} : tensor<0x8xf32>, tensor<8xf32> -> tensor<0x8xf32>, tensor<0xf32>
  return %y : tensor<0x8xf32>
}

// -----

func.func @rms_norm_block(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'attn.rms_norm' op expected block_size in [1, 1024], got 0}}
  %y, %r = attn.rms_norm %x, %w {epsilon = 1.0e-06 : f32, block_size = 0 : i64} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>, tensor<4xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @rms_norm_grad_partials(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %r: tensor<4xf32>) -> tensor<?x8xf32> {
  // expected-error @below {{'attn.rms_norm_grad' op expected dweight_partial to be [P, D] with a static P, got 'tensor<?x8xf32>'}}
  %dx, %dw = attn.rms_norm_grad %x, %w, %r, %x : tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>, tensor<?x8xf32>
  return %dw : tensor<?x8xf32>
}

// -----

func.func @rms_norm_grad_dout(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %r: tensor<4xf32>, %dy: tensor<5x8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'attn.rms_norm_grad' op expected dout to have shape [4, 8], got 'tensor<5x8xf32>'}}
  %dx, %dw = attn.rms_norm_grad %x, %w, %r, %dy : tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<5x8xf32> -> tensor<4x8xf32>, tensor<2x8xf32>
  return %dx : tensor<4x8xf32>
}

// -----

func.func @rms_norm_grad_addend(%x: tensor<4x8xbf16>, %w: tensor<8xbf16>, %r: tensor<4xf32>, %a: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  // expected-error @below {{'attn.rms_norm_grad' op expected an addend of dx's type 'tensor<4x8xbf16>', got 'tensor<4x8xf32>'}}
  %dx, %dw = attn.rms_norm_grad %x, %w, %r, %x + %a : tensor<4x8xbf16>, tensor<8xbf16>, tensor<4xf32>, tensor<4x8xbf16> + tensor<4x8xf32> -> tensor<4x8xbf16>, tensor<2x8xf32>
  return %dx : tensor<4x8xbf16>
}

// -----

func.func @sum_rows_rank(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'attn.sum_rows' op expected rows: an input of rank 2 or more, got 'tensor<8xf32>'}}
  %s = attn.sum_rows %x : tensor<8xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

func.func @sum_rows_total_rank(%x: tensor<4x8xf32>) -> tensor<f32> {
  // expected-error @below {{'attn.sum_rows' op expected a rank-1 input for a rank-0 result, got 'tensor<4x8xf32>'}}
  %s = attn.sum_rows %x : tensor<4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @sum_rows_out(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @below {{'attn.sum_rows' op expected out to have shape [8], got 'tensor<4xf32>'}}
  %s = attn.sum_rows %x : tensor<4x8xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @split_heads_width(%x: tensor<2x4x60xf32>) -> tensor<2x4x4x16xf32> {
  // expected-error @below {{'attn.split_heads' op expected [B, N, H * D] = [2, 4, 64], got 'tensor<2x4x60xf32>'}}
  %h = attn.split_heads %x : tensor<2x4x60xf32> -> tensor<2x4x4x16xf32>
  return %h : tensor<2x4x4x16xf32>
}

// -----

func.func @split_heads_rank(%x: tensor<2x4x64xf32>) -> tensor<2x4x64xf32> {
  // expected-error @below {{'attn.split_heads' op expected [B, N, H * D] and [B, H, N, D], got 'tensor<2x4x64xf32>' and 'tensor<2x4x64xf32>'}}
  %h = attn.split_heads %x : tensor<2x4x64xf32> -> tensor<2x4x64xf32>
  return %h : tensor<2x4x64xf32>
}

// -----

func.func @split_heads_dynamic_heads(%x: tensor<2x4x64xf32>) -> tensor<2x?x4x16xf32> {
  // expected-error @below {{'attn.split_heads' op expected a static head count and head dim, got 'tensor<2x?x4x16xf32>'}}
  %h = attn.split_heads %x : tensor<2x4x64xf32> -> tensor<2x?x4x16xf32>
  return %h : tensor<2x?x4x16xf32>
}

// -----

func.func @split_heads_element(%x: tensor<2x4x64xi32>) -> tensor<2x4x4x16xi32> {
  // expected-error @below {{'attn.split_heads' op expected f32, f16 or bf16 elements, got 'tensor<2x4x64xi32>'}}
  %h = attn.split_heads %x : tensor<2x4x64xi32> -> tensor<2x4x4x16xi32>
  return %h : tensor<2x4x4x16xi32>
}

// -----

func.func @split_heads_extent(%x: tensor<0x4x64xf32>) -> tensor<0x4x4x16xf32> {
  // expected-error @below {{'attn.split_heads' op the input dim 0 is 0; static dims must be in [1, 2147483647]}}
  %h = attn.split_heads %x : tensor<0x4x64xf32> -> tensor<0x4x4x16xf32>
  return %h : tensor<0x4x4x16xf32>
}

// -----

func.func @split_heads_one_table(%x: tensor<2x4x64xf32>, %c: tensor<4x8xf32>) -> tensor<2x4x4x16xf32> {
  // expected-error @below {{'attn.split_heads' op expected no rotary tables or two (cos, sin), got 1}}
  %h = attn.split_heads %x, %c : tensor<2x4x64xf32>, tensor<4x8xf32> -> tensor<2x4x4x16xf32>
  return %h : tensor<2x4x4x16xf32>
}

// -----

func.func @split_heads_table_type(%x: tensor<2x4x64xf32>, %c: tensor<4x8xbf16>) -> tensor<2x4x4x16xf32> {
  // expected-error @below {{'attn.split_heads' op expected cos and sin of one type, [N, R/2] of f32 with a static R/2, got 'tensor<4x8xbf16>' and 'tensor<4x8xbf16>'}}
  %h = attn.split_heads %x, %c, %c : tensor<2x4x64xf32>, tensor<4x8xbf16>, tensor<4x8xbf16> -> tensor<2x4x4x16xf32>
  return %h : tensor<2x4x4x16xf32>
}

// -----

func.func @split_heads_table_rows(%x: tensor<2x4x64xf32>, %c: tensor<5x8xf32>) -> tensor<2x4x4x16xf32> {
  // expected-error @below {{'attn.split_heads' op expected the tables' rows to be the sequence's N = 4, got 'tensor<5x8xf32>'}}
  %h = attn.split_heads %x, %c, %c : tensor<2x4x64xf32>, tensor<5x8xf32>, tensor<5x8xf32> -> tensor<2x4x4x16xf32>
  return %h : tensor<2x4x4x16xf32>
}

// -----

func.func @split_heads_rotary_dims(%x: tensor<2x4x64xf32>, %c: tensor<4x9xf32>) -> tensor<2x4x4x16xf32> {
  // expected-error @below {{'attn.split_heads' op expected rotary dims 2 * 9 within the head dim 16}}
  %h = attn.split_heads %x, %c, %c : tensor<2x4x64xf32>, tensor<4x9xf32>, tensor<4x9xf32> -> tensor<2x4x4x16xf32>
  return %h : tensor<2x4x4x16xf32>
}

// -----

func.func @merge_heads_width(%y: tensor<2x4x4x16xf32>) -> tensor<2x4x60xf32> {
  // expected-error @below {{'attn.merge_heads' op expected [B, N, H * D] = [2, 4, 64], got 'tensor<2x4x60xf32>'}}
  %x = attn.merge_heads %y : tensor<2x4x4x16xf32> -> tensor<2x4x60xf32>
  return %x : tensor<2x4x60xf32>
}

// -----

// The fused LM head's table has h's element type and width.
func.func @linear_cross_entropy_table(%h: tensor<?x32xbf16>, %e: tensor<24x16xbf16>, %y: tensor<?xi32>) -> tensor<?xf32> {
  // expected-error @below {{'attn.linear_cross_entropy' op expected a table [V, 32] of h's element type 'bf16', got 'tensor<24x16xbf16>'}}
  %l, %s = attn.linear_cross_entropy %h, %e, %y {ignore_index = -100 : i64} : tensor<?x32xbf16>, tensor<24x16xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  return %l : tensor<?xf32>
}

// -----

// Its gradients have h's and the table's types.
func.func @linear_cross_entropy_grad_types(%h: tensor<?x32xbf16>, %e: tensor<24x32xbf16>, %y: tensor<?xi32>, %s: tensor<?xf32>, %d: tensor<?xf32>) -> tensor<?x32xf32> {
  // expected-error @below {{'attn.linear_cross_entropy_grad' op expected dh and dtable of h's and the table's types, got 'tensor<?x32xf32>' and 'tensor<24x32xbf16>'}}
  %dh, %de = attn.linear_cross_entropy_grad %h, %e, %y, %s, %d {ignore_index = -100 : i64} : tensor<?x32xbf16>, tensor<24x32xbf16>, tensor<?xi32>, tensor<?xf32>, tensor<?xf32> -> tensor<?x32xf32>, tensor<24x32xbf16>
  return %dh : tensor<?x32xf32>
}

// -----

// A chunk's parts are rows [1, r...] of the parts the combine reads.
func.func @cross_entropy_partial_shape(%l: tensor<?x8xbf16>, %y: tensor<?xi32>) -> tensor<?xf32> {
  // expected-error @below {{'attn.cross_entropy_partial' op expected lse to have shape [1, ?], got 'tensor<?xf32>'}}
  %a, %b = attn.cross_entropy_partial %l, %y {ignore_index = -100 : i64, vocab_offset = 8 : i64} : tensor<?x8xbf16>, tensor<?xi32> -> tensor<?xf32>, tensor<1x?xf32>
  return %a : tensor<?xf32>
}

// -----

// A chunk starts at a class, not before the first.
func.func @cross_entropy_partial_offset(%l: tensor<?x8xbf16>, %y: tensor<?xi32>) -> tensor<1x?xf32> {
  // expected-error @below {{'attn.cross_entropy_partial' op expected a vocab_offset >= 0, got -8}}
  %a, %b = attn.cross_entropy_partial %l, %y {ignore_index = -100 : i64, vocab_offset = -8 : i64} : tensor<?x8xbf16>, tensor<?xi32> -> tensor<1x?xf32>, tensor<1x?xf32>
  return %a : tensor<1x?xf32>
}

// -----

// The gradient's chunk too.
func.func @cross_entropy_grad_offset(%l: tensor<?x8xbf16>, %y: tensor<?xi32>, %s: tensor<?xf32>, %d: tensor<?xf32>) -> tensor<?x8xbf16> {
  // expected-error @below {{'attn.cross_entropy_grad' op expected a vocab_offset >= 0, got -1}}
  %g = attn.cross_entropy_grad %l, %y, %s, %d {ignore_index = -100 : i64, vocab_offset = -1 : i64} : tensor<?x8xbf16>, tensor<?xi32>, tensor<?xf32>, tensor<?xf32> -> tensor<?x8xbf16>
  return %g : tensor<?x8xbf16>
}

// -----

// The combine knows how many chunks it sums.
func.func @cross_entropy_combine_chunks(%p: tensor<?x?xf32>, %y: tensor<?xi32>) -> tensor<?xf32> {
  // expected-error @below {{'attn.cross_entropy_combine' op expected lse_parts [P, r...] with a static chunk count P, got 'tensor<?x?xf32>'}}
  %l, %s = attn.cross_entropy_combine %p, %p, %y {ignore_index = -100 : i64, vocab_size = 24 : i64} : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  return %l : tensor<?xf32>
}

// -----

// ... and how many classes they cover.
func.func @cross_entropy_combine_vocab(%p: tensor<3x?xf32>, %y: tensor<?xi32>) -> tensor<?xf32> {
  // expected-error @below {{'attn.cross_entropy_combine' op expected a vocab_size >= 1, got 0}}
  %l, %s = attn.cross_entropy_combine %p, %p, %y {ignore_index = -100 : i64, vocab_size = 0 : i64} : tensor<3x?xf32>, tensor<3x?xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  return %l : tensor<?xf32>
}

// -----

// A negative count is no count either.
func.func @cross_entropy_combine_negative_vocab(%p: tensor<3x?xf32>, %y: tensor<?xi32>) -> tensor<?xf32> {
  // expected-error @below {{'attn.cross_entropy_combine' op expected a vocab_size >= 1, got -5}}
  %l, %s = attn.cross_entropy_combine %p, %p, %y {ignore_index = -100 : i64, vocab_size = -5 : i64} : tensor<3x?xf32>, tensor<3x?xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  return %l : tensor<?xf32>
}
