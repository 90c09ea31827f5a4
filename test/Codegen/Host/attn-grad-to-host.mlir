// RUN: attn-opt %s --convert-attn-to-host --canonicalize --cse | FileCheck %s

// The key/value gradient kernel on the host: the grid (ceil(Nk / block_n),
// Hkv, B) with one block of keys per iteration; its f32 tiles; the query
// heads of the key/value head's group (2 here) each walking the query
// tiles the causal bound leaves (from the block's first key), each tile
// classified (skipped when empty); the tiles (the unused dq tile folds
// away); the tile's P and dS recomputed from lse
// with exp, the element mask only on partial tiles; dq rows summed over the
// tile's keys and added atomically into the accumulator; dk and dv rounded
// to bf16 once per block.

// CHECK-LABEL: func.func @grad_kv(
// CHECK:         %[[NK:.*]] = memref.dim %{{.*}}, %c2
// CHECK:         %[[BLOCKS:.*]] = arith.ceildivui %[[NK]], %c32 : index
// CHECK:         scf.forall (%[[KB:.*]], %[[HKV:.*]]) in (%[[BLOCKS]], 2) {
// CHECK-COUNT-10:  memref.alloc() : memref<{{[0-9x]+}}xf32>
// CHECK:           scf.for %[[MEMBER:.*]] = %c0 to %c2 step %c1 {
// CHECK:             scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16 {
// CHECK:               scf.if
// CHECK:                 %[[MAYBLOCK:.*]] = scf.if %{{.*}} -> (i1) {
// CHECK:                   arith.cmpi sle
// CHECK:                 math.exp2
// CHECK:               memref.atomic_rmw addf
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK-COUNT-10:  memref.dealloc
func.func @grad_kv(%q: memref<1x4x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>>, %k: memref<1x2x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                   %v: memref<1x2x?x8xbf16, strided<[?, ?, ?, ?], offset: ?>>, %l: memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>,
                   %d: memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>>, %do: memref<1x4x?x8xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                   %acc: memref<1x4x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>, %dk: memref<1x2x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>>,
                   %dv: memref<1x2x?x8xbf16, strided<[?, ?, ?, ?], offset: ?>>, %sum: memref<1x4x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) attributes {attnrt.kernel} {
  %0 = bufferization.to_tensor %q : memref<1x4x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x16xbf16>
  %1 = bufferization.to_tensor %k : memref<1x2x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x16xbf16>
  %2 = bufferization.to_tensor %v : memref<1x2x?x8xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x2x?x8xbf16>
  %3 = bufferization.to_tensor %l : memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x4x?xf32>
  %4 = bufferization.to_tensor %d : memref<1x4x?xf32, strided<[?, ?, ?], offset: ?>> to tensor<1x4x?xf32>
  %5 = bufferization.to_tensor %do : memref<1x4x?x8xbf16, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x8xbf16>
  %6 = bufferization.to_tensor %acc : memref<1x4x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> to tensor<1x4x?x16xf32>
  %dk_t, %dv_t, %sum_t = attn.attention_grad_kv %0, %1, %2, %3, %4, %5, %6 {causal, tiles = #attn.tiles<block_m = 16, block_n = 32>}
      : tensor<1x4x?x16xbf16>, tensor<1x2x?x16xbf16>, tensor<1x2x?x8xbf16>, tensor<1x4x?xf32>, tensor<1x4x?xf32>, tensor<1x4x?x8xbf16>, tensor<1x4x?x16xf32>
      -> tensor<1x2x?x16xbf16>, tensor<1x2x?x8xbf16>, tensor<1x4x?x16xf32>
  bufferization.materialize_in_destination %dk_t in writable %dk : (tensor<1x2x?x16xbf16>, memref<1x2x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  bufferization.materialize_in_destination %dv_t in writable %dv : (tensor<1x2x?x8xbf16>, memref<1x2x?x8xbf16, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  bufferization.materialize_in_destination %sum_t in writable %sum : (tensor<1x4x?x16xf32>, memref<1x4x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>) -> ()
  return
}
