// Row slices and row concatenations in programs on the host: a slice is a
// view of its source's rows, a concatenation's inputs are written into
// views of its buffer in place (or copied there, an argument or a value
// read elsewhere too), and a returned slice is copied out.
//
// RUN: attnc %s -o %t.attnpkg --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attn-run %t.attnpkg --fn pieces --shape d0_0=5 --check | FileCheck %s --check-prefix=PIECES
// RUN: attn-run %t.attnpkg --fn head_rows --shape d0_0=9 --check | FileCheck %s --check-prefix=ROWS
//
// Rows of a dynamic dim are checked at each call: a call whose tensor is
// too short fails, naming the view, the rows and the tensor's extent.
// RUN: not attn-run %t.attnpkg --fn head_rows --shape d0_0=5 2>&1 | FileCheck %s --check-prefix=SHORT

// EXPLAIN-LABEL: target host:
// EXPLAIN: pieces: buffer t0 f32 [48, 64] slot 0
// EXPLAIN: pieces: view v0 rows [0, 32) of w
// EXPLAIN: pieces: view v1 rows [16, 48) of result0
// EXPLAIN: pieces: view v2 rows [0, 16) of result0
// EXPLAIN: pieces: view v3 rows [8, 24) of result0
// EXPLAIN: pieces: view v4 rows [0, 16) of t0
// EXPLAIN: pieces: view v5 rows [16, 48) of t0
// EXPLAIN: pieces: kernel pieces_cast0, {{.*}} computes cast
// EXPLAIN: pieces: kernel pieces_cast1, {{.*}} computes cast
// EXPLAIN: pieces: kernel pieces_cast2, {{.*}} computes cast
// EXPLAIN: pieces: kernel pieces_cast3, {{.*}} computes cast
// EXPLAIN: pieces: kernel pieces_cast4, {{.*}} computes cast
// EXPLAIN: pieces: kernel pieces_matmul5, {{.*}} computes matmul
// EXPLAIN-NOT: pieces: kernel

// PIECES: result0: rel_err 0 (tol {{.*}}) ok
// PIECES: result1: rel_err 0 (tol {{.*}}) ok
// PIECES: out: rel_err {{.*}} ok
func.func @pieces(%x: tensor<?x64xf32>, %w: tensor<48x64xf32>, %u: tensor<16x64xf32>)
    -> (tensor<48x64xf32>, tensor<16x64xf32>, tensor<?x48xf32>) {
  %w0 = tensor.extract_slice %w[0, 0] [32, 64] [1, 1] : tensor<48x64xf32> to tensor<32x64xf32>
  %a = attn.cast %w0 {scale = 2.0 : f32} : tensor<32x64xf32> to tensor<32x64xf32>
  // %u is an argument: copied into the rows of %c.
  %c = tensor.concat dim(0) %u, %a : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<48x64xf32>
  %s = tensor.extract_slice %c[8, 0] [16, 64] [1, 1] : tensor<48x64xf32> to tensor<16x64xf32>
  // An intermediate concatenation, read by a matmul.
  %b0 = attn.cast %u {scale = -1.0 : f32} : tensor<16x64xf32> to tensor<16x64xf32>
  %d = tensor.concat dim(0) %b0, %w0 : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<48x64xf32>
  %m = attn.matmul %x, %d {transpose_b} : tensor<?x64xf32>, tensor<48x64xf32> -> tensor<?x48xf32>
  return %c, %s, %m : tensor<48x64xf32>, tensor<16x64xf32>, tensor<?x48xf32>
}

// ROWS: out: rel_err 0 (tol {{.*}}) ok
// SHORT: error: view 'v0' takes rows [2, 6) of 'x', which has 5 rows
func.func @head_rows(%x: tensor<?x8xf32>) -> tensor<4x8xf32> {
  %s = tensor.extract_slice %x[2, 0] [4, 8] [1, 1] : tensor<?x8xf32> to tensor<4x8xf32>
  %c = attn.cast %s {scale = 2.0 : f32} : tensor<4x8xf32> to tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
