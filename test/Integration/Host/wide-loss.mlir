// Cross-entropy rows of 1352 classes: on a GPU a warp's row is 5 chunks of
// 8 columns a lane (a group of 4 loaded together and one more) and a tail
// of 72 columns that whole chunks of every lane leave; on the host 169
// chunks of 8. Both kernels (the loss's one pass and its gradient) and the
// LM head's fused chunks run against the fp64 reference.
//
// RUN: attnc %s -o %t.attnpkg
// RUN: attn-run %t.attnpkg --fn cross_entropy --shape d0_0=3 --shape d0_1=29 --check | FileCheck %s --check-prefix=LOSSES
// RUN: attn-run %t.attnpkg --fn cross_entropy_bwd --shape d0_0=3 --shape d0_1=29 --check | FileCheck %s --check-prefix=GRAD
// RUN: attn-run %t.attnpkg --fn lm_loss --shape d0_0=2 --shape d0_1=45 --check | FileCheck %s --check-prefix=MEAN
// RUN: attn-run %t.attnpkg --fn lm_loss_bwd --shape d0_0=2 --shape d0_1=45 --check | FileCheck %s --check-prefix=LM
// Chunks of 520, 520 and 312 classes: on a GPU 2 chunks a lane and a tail
// of 8 columns, 1 chunk a lane and a tail of 56.
// RUN: attnc %s --vocab-chunk=520 -o %t.chunks.attnpkg
// RUN: attn-run %t.chunks.attnpkg --fn lm_loss --shape d0_0=2 --shape d0_1=45 --check | FileCheck %s --check-prefix=MEAN
// RUN: attn-run %t.chunks.attnpkg --fn lm_loss_bwd --shape d0_0=2 --shape d0_1=45 --check | FileCheck %s --check-prefix=LM

// LOSSES: losses: rel_err {{.*}} ok

// GRAD: dlogits: rel_err {{.*}} ok

// MEAN: mean: rel_err {{.*}} ok

// LM: dh: rel_err {{.*}} ok
// LM-NEXT: de: rel_err {{.*}} ok

// Per-token losses of bf16 logits over 1352 classes.
func.func @cross_entropy(%logits: tensor<?x?x1352xbf16>,
                         %labels: tensor<?x?xi32>) -> tensor<?x?xf32>
    attributes {attn.backward} {
  %losses, %lse = attn.cross_entropy %logits, %labels {ignore_index = 5 : i64}
      : tensor<?x?x1352xbf16>, tensor<?x?xi32>
      -> tensor<?x?xf32>, tensor<?x?xf32>
  return %losses : tensor<?x?xf32>
}

// A tied LM head: logits = h e^T, then the mean loss over the tokens that
// count.
func.func @lm_loss(%h: tensor<?x?x32xbf16>, %e: tensor<1352x32xbf16>,
                   %labels: tensor<?x?xi32>) -> tensor<f32>
    attributes {attn.backward} {
  %logits = attn.matmul %h, %e {transpose_b}
      : tensor<?x?x32xbf16>, tensor<1352x32xbf16> -> tensor<?x?x1352xbf16>
  %losses, %lse = attn.cross_entropy %logits, %labels {ignore_index = 5 : i64}
      : tensor<?x?x1352xbf16>, tensor<?x?xi32>
      -> tensor<?x?xf32>, tensor<?x?xf32>
  %loss = attn.token_mean %losses, %labels {ignore_index = 5 : i64}
      : tensor<?x?xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
