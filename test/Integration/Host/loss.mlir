// Token embedding, cross-entropy and the token mean on the host: forward
// and gradient kernels against the fp64 reference, the derived gradients
// against finite differences of the forward function (--gradcheck), up to
// a tiny language model whose embedding table is tied to its LM head.
// attn-run draws the labels and ids in [0, V) (the package gives them V as
// index bound), so some labels hit ignore_index 5 and do not count. An LM
// head's matmul fuses into its loss (attn.linear_cross_entropy), computed a
// vocabulary chunk at a time: whole (chunks of 8192 classes), and in
// chunks of 10, 10 and 4 classes (--vocab-chunk=10).
//
// RUN: attnc %s -o %t.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attn-run %t.attnpkg --fn cross_entropy --shape d0_0=3 --shape d0_1=29 --check | FileCheck %s --check-prefix=LOSSES
// RUN: attn-run %t.attnpkg --fn cross_entropy_bwd --shape d0_0=3 --shape d0_1=29 --check --gradcheck | FileCheck %s --check-prefix=GRAD
// RUN: attn-run %t.attnpkg --fn lm_loss --shape d0_0=2 --shape d0_1=45 --check | FileCheck %s --check-prefix=MEAN
// RUN: attn-run %t.attnpkg --fn lm_loss_bwd --shape d0_0=2 --shape d0_1=45 --check --gradcheck | FileCheck %s --check-prefix=LM
// RUN: attn-run %t.attnpkg --fn embed_bwd --shape d1_0=3 --shape d1_1=700 --check | FileCheck %s --check-prefix=EMBED
// RUN: attn-run %t.attnpkg --fn token_order --shape ids=3x700 --check --repeat 3 | FileCheck %s --check-prefix=ORDER
// RUN: attn-run %t.attnpkg --fn tiny_lm --shape d1_0=2 --shape d1_1=45 --check | FileCheck %s --check-prefix=MEAN
// RUN: attn-run %t.attnpkg --fn tiny_lm_bwd --shape d1_0=2 --shape d1_1=45 --check --gradcheck | FileCheck %s --check-prefix=TINY
// Every remat policy gives the same gradients.
// RUN: attnc %s --remat=none -o %t.none.attnpkg
// RUN: attn-run %t.none.attnpkg --fn lm_loss_bwd --shape d0_0=2 --shape d0_1=45 --check --gradcheck | FileCheck %s --check-prefix=LM
// RUN: attn-run %t.none.attnpkg --fn tiny_lm_bwd --shape d1_0=2 --shape d1_1=45 --check --gradcheck | FileCheck %s --check-prefix=TINY
// RUN: attnc %s --vocab-chunk=10 -o %t.chunks.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=CHUNKS
// RUN: attn-run %t.chunks.attnpkg --fn lm_loss --shape d0_0=2 --shape d0_1=45 --check | FileCheck %s --check-prefix=MEAN
// RUN: attn-run %t.chunks.attnpkg --fn lm_loss_bwd --shape d0_0=2 --shape d0_1=45 --check --gradcheck | FileCheck %s --check-prefix=LM
// RUN: attn-run %t.chunks.attnpkg --fn tiny_lm --shape d1_0=2 --shape d1_1=45 --check | FileCheck %s --check-prefix=MEAN
// RUN: attn-run %t.chunks.attnpkg --fn tiny_lm_bwd --shape d1_0=2 --shape d1_1=45 --check --gradcheck | FileCheck %s --check-prefix=TINY
// RUN: attnc %s --vocab-chunk=10 --remat=full -o %t.full.attnpkg
// RUN: attn-run %t.full.attnpkg --fn tiny_lm_bwd --shape d1_0=2 --shape d1_1=45 --check --gradcheck | FileCheck %s --check-prefix=TINY
// A package's labels carry their bound.
// RUN: attn-run %t.attnpkg --info | FileCheck %s --check-prefix=INFO

// EXPLAIN-DAG: lm_loss: kernel lm_loss_matmul0,
// EXPLAIN-DAG: lm_loss: kernel lm_loss_cross_entropy_partial1,
// EXPLAIN-DAG: lm_loss: kernel lm_loss_cross_entropy_combine2,
// EXPLAIN-DAG: lm_loss: kernel lm_loss_token_mean3,
// EXPLAIN-DAG: lm_loss_bwd: kernel lm_loss_bwd_token_mean_grad{{[0-9]+}},
// EXPLAIN-DAG: lm_loss_bwd: kernel lm_loss_bwd_cross_entropy_grad{{[0-9]+}},

// The forward saves the lse only; each chunk's logits are a GEMM on rows
// of the table, and its part goes into rows of the parts in place.
// CHUNKS-LABEL: target host:
// CHUNKS: lm_loss: view v0 rows [0, 10) of e
// CHUNKS: lm_loss: view v1 rows [10, 20) of e
// CHUNKS: lm_loss: view v2 rows [20, 24) of e
// CHUNKS: lm_loss: view v3 rows [0, 1) of t1
// CHUNKS: lm_loss: kernel lm_loss_matmul0,
// CHUNKS: lm_loss: kernel lm_loss_cross_entropy_partial1,
// CHUNKS: lm_loss: kernel lm_loss_matmul4,
// CHUNKS: lm_loss: kernel lm_loss_cross_entropy_partial5,
// CHUNKS: lm_loss: kernel lm_loss_cross_entropy_combine6,
// CHUNKS: lm_loss_bwd: reads saved_lse f32 [d0_0, d0_1] saved by lm_loss
// CHUNKS: lm_loss_bwd: view v{{[0-9]+}} rows [20, 24) of de
// CHUNKS-NOT: lm_loss_bwd: kernel lm_loss_bwd_cross_entropy_partial

// LOSSES: losses: rel_err {{.*}} ok

// GRAD: gradcheck: {{.*}} ok
// GRAD: dlogits: rel_err {{.*}} ok

// MEAN: mean: rel_err {{.*}} ok

// EMBED: dtable: rel_err {{.*}} ok
// ORDER: order: {{.*}} ok
// ORDER: bounds: {{.*}} ok

// LM: gradcheck: {{.*}} ok
// LM: dh: rel_err {{.*}} ok
// LM-NEXT: de: rel_err {{.*}} ok

// TINY: gradcheck: {{.*}} ok
// TINY: dtable: rel_err {{.*}} ok
// TINY-NEXT: dg: rel_err {{.*}} ok

// INFO-LABEL: function lm_loss
// INFO: input labels: i32 [d0_0, d0_1], values in [0, 24)
// INFO: op cross_entropy_combine ignore_index=5 vocab_size=24

// Per-token losses of f32 logits over 24 classes.
func.func @cross_entropy(%logits: tensor<?x?x24xf32>, %labels: tensor<?x?xi32>)
    -> tensor<?x?xf32> attributes {attn.backward} {
  %losses, %lse = attn.cross_entropy %logits, %labels {ignore_index = 5 : i64}
      : tensor<?x?x24xf32>, tensor<?x?xi32> -> tensor<?x?xf32>, tensor<?x?xf32>
  return %losses : tensor<?x?xf32>
}

// A tied LM head in bf16: logits = h e^T, then the mean loss over the
// tokens that count.
func.func @lm_loss(%h: tensor<?x?x32xbf16>, %e: tensor<24x32xbf16>,
                   %labels: tensor<?x?xi32>) -> tensor<f32>
    attributes {attn.backward} {
  %logits = attn.matmul %h, %e {transpose_b}
      : tensor<?x?x32xbf16>, tensor<24x32xbf16> -> tensor<?x?x24xbf16>
  %losses, %lse = attn.cross_entropy %logits, %labels {ignore_index = 5 : i64}
      : tensor<?x?x24xbf16>, tensor<?x?xi32> -> tensor<?x?xf32>, tensor<?x?xf32>
  %loss = attn.token_mean %losses, %labels {ignore_index = 5 : i64}
      : tensor<?x?xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// An embedding alone, whose table's gradient is attn.token_order and
// attn.embedding_grad: 3 rows for 2100 tokens (several 1024-token chunks
// of the order's scatter, ~700 tokens a row, many of a warp's 32-token
// loads), rows of 80 columns (a second, partial slice of 64).
func.func @embed(%table: tensor<3x80xf32>, %ids: tensor<?x?xi32>)
    -> tensor<?x?x80xf32> attributes {attn.backward} {
  %x = attn.embedding %table, %ids
      : tensor<3x80xf32>, tensor<?x?xi32> -> tensor<?x?x80xf32>
  return %x : tensor<?x?x80xf32>
}

// The token order alone, checked place by place: 2100 tokens of 5 ids
// (on a GPU, three chunks of the scatter, each a bitonic sort of 1024
// tokens with hundreds of each id, the last partly past the tokens).
func.func @token_order(%ids: tensor<?x?xi32>)
    -> (tensor<?x?xi32>, tensor<6xi32>) {
  %order, %bounds = attn.token_order %ids
      : tensor<?x?xi32> -> tensor<?x?xi32>, tensor<6xi32>
  return %order, %bounds : tensor<?x?xi32>, tensor<6xi32>
}

// A tiny language model in f32: embedding, RMSNorm, and the embedding
// table again as the LM head; the table's gradient is the sum of both
// uses'.
func.func @tiny_lm(%table: tensor<24x32xf32>, %ids: tensor<?x?xi32>,
                   %g: tensor<32xf32>, %labels: tensor<?x?xi32>) -> tensor<f32>
    attributes {attn.backward} {
  %x = attn.embedding %table, %ids
      : tensor<24x32xf32>, tensor<?x?xi32> -> tensor<?x?x32xf32>
  %h, %rstd = attn.rms_norm %x, %g {epsilon = 1.0e-05 : f32}
      : tensor<?x?x32xf32>, tensor<32xf32> -> tensor<?x?x32xf32>, tensor<?x?xf32>
  %logits = attn.matmul %h, %table {transpose_b}
      : tensor<?x?x32xf32>, tensor<24x32xf32> -> tensor<?x?x24xf32>
  %losses, %lse = attn.cross_entropy %logits, %labels {ignore_index = 5 : i64}
      : tensor<?x?x24xf32>, tensor<?x?xi32> -> tensor<?x?xf32>, tensor<?x?xf32>
  %loss = attn.token_mean %losses, %labels {ignore_index = 5 : i64}
      : tensor<?x?xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
