// RUN: attn-opt %s -split-input-file -verify-diagnostics

// One chunk per verifier diagnostic of the attngpu dialect
// (dialects/attngpu/AttnGPUOps.cpp), plus the ODS constraints that guard the
// same ops.

//===----------------------------------------------------------------------===//
// attngpu.shared_tile
//===----------------------------------------------------------------------===//

// A tile is a view of the block's shared memory: a tile in global memory is
// rejected.
func.func @shared_tile_not_workgroup(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op expected the tile in workgroup memory, got 'memref<64x64xf16>'}}
  %t = attngpu.shared_tile %smem[%off] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16>
  return
}

// -----

// A tile in the private address space is not shared memory either.
func.func @shared_tile_private(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op expected the tile in workgroup memory, got 'memref<64x64xf16, #gpu.address_space<private>>'}}
  %t = attngpu.shared_tile %smem[%off] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<private>>
  return
}

// -----

// The tile's shape decides its byte size: it must be static.
func.func @shared_tile_dynamic_shape(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op expected a static tile shape, got 'memref<?x64xf16, #gpu.address_space<workgroup>>'}}
  %t = attngpu.shared_tile %smem[%off] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?x64xf16, #gpu.address_space<workgroup>>
  return
}

// -----

// Padded rows must be at least as long as the row (stride >= cols).
func.func @shared_tile_stride_below_cols(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op expected a row-major tile layout, possibly with padded rows (strided<[stride, 1]> with stride >= 64), got strided<[32, 1]>}}
  %t = attngpu.shared_tile %smem[%off] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[32, 1], offset: 0>, #gpu.address_space<workgroup>>
  return
}

// -----

// The columns of a tile are contiguous (inner stride 1).
func.func @shared_tile_inner_stride(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op expected a row-major tile layout, possibly with padded rows (strided<[stride, 1]> with stride >= 64), got strided<[128, 2]>}}
  %t = attngpu.shared_tile %smem[%off] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[128, 2]>, #gpu.address_space<workgroup>>
  return
}

// -----

// The tile starts at byte_offset: a layout offset is rejected.
func.func @shared_tile_layout_offset(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op expected a row-major tile layout, possibly with padded rows (strided<[stride, 1]> with stride >= 64), got strided<[72, 1], offset: 8>}}
  %t = attngpu.shared_tile %smem[%off] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[72, 1], offset: 8>, #gpu.address_space<workgroup>>
  return
}

// -----

// The row stride is part of the physical layout: it must be static.
func.func @shared_tile_dynamic_stride(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op expected a row-major tile layout, possibly with padded rows (strided<[stride, 1]> with stride >= 64), got strided<[?, 1]>}}
  %t = attngpu.shared_tile %smem[%off] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[?, 1]>, #gpu.address_space<workgroup>>
  return
}

// -----

// A column-major layout (a transpose map: strides [1, 64]) is rejected.
func.func @shared_tile_column_major(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op expected a row-major tile layout, possibly with padded rows (strided<[stride, 1]> with stride >= 64), got affine_map<(d0, d1) -> (d1, d0)>}}
  %t = attngpu.shared_tile %smem[%off] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, affine_map<(d0, d1) -> (d1, d0)>, #gpu.address_space<workgroup>>
  return
}

// -----

// A layout that has no strides at all is rejected with the same message.
func.func @shared_tile_not_strided(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op expected a row-major tile layout, possibly with padded rows (strided<[stride, 1]> with stride >= 64), got affine_map<(d0, d1) -> (d0 * 64 + d1 mod 64)>}}
  %t = attngpu.shared_tile %smem[%off] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, affine_map<(d0, d1) -> (d0 * 64 + d1 mod 64)>, #gpu.address_space<workgroup>>
  return
}

// -----

// 128 bytes is the only swizzle wgmma and TMA are driven with.
func.func @shared_tile_swizzle_64(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op expected swizzle_bytes = 128, got 64}}
  %t = attngpu.shared_tile %smem[%off] {swizzle_bytes = 64} : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
  return
}

// -----

// swizzle_bytes = 0 is not "no swizzle": leave the attribute out instead.
func.func @shared_tile_swizzle_0(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op expected swizzle_bytes = 128, got 0}}
  %t = attngpu.shared_tile %smem[%off] {swizzle_bytes = 0} : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
  return
}

// -----

// A 128-byte swizzled row holds 64 16-bit elements: f32 is rejected.
func.func @shared_tile_swizzle_f32(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op a 128-byte swizzled tile holds 16-bit elements in whole 64-column panels of a multiple of 8 rows with the identity layout, got 'memref<64x64xf32, #gpu.address_space<workgroup>>'}}
  %t = attngpu.shared_tile %smem[%off] {swizzle_bytes = 128} : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf32, #gpu.address_space<workgroup>>
  return
}

// -----

// The swizzle is the layout: a padded layout on top of it is rejected.
func.func @shared_tile_swizzle_padded(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op a 128-byte swizzled tile holds 16-bit elements in whole 64-column panels of a multiple of 8 rows with the identity layout, got 'memref<64x64xbf16, strided<[72, 1]>, #gpu.address_space<workgroup>>'}}
  %t = attngpu.shared_tile %smem[%off] {swizzle_bytes = 128} : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, strided<[72, 1]>, #gpu.address_space<workgroup>>
  return
}

// -----

// A swizzled tile is whole 64-column panels: 96 columns are rejected.
func.func @shared_tile_swizzle_partial_panel(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op a 128-byte swizzled tile holds 16-bit elements in whole 64-column panels of a multiple of 8 rows with the identity layout, got 'memref<64x96xbf16, #gpu.address_space<workgroup>>'}}
  %t = attngpu.shared_tile %smem[%off] {swizzle_bytes = 128} : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x96xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// Tiles hold f16, bf16 or f32 (ODS constraint).
func.func @shared_tile_i8(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op result #0 must be 2D memref of 16-bit float or bfloat16 type or 32-bit float values, but got 'memref<64x64xi8, #gpu.address_space<workgroup>>'}}
  %t = attngpu.shared_tile %smem[%off] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xi8, #gpu.address_space<workgroup>>
  return
}

// -----

// The base is the shared memory as bytes (ODS constraint).
func.func @shared_tile_base_not_bytes(%smem: memref<?xf16, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op operand #0 must be 1D memref of 8-bit signless integer values, but got 'memref<?xf16, #gpu.address_space<workgroup>>'}}
  %t = attngpu.shared_tile %smem[%off] : memref<?xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
  return
}

// -----

// A tile is carved out of the block's shared memory: a base in global
// memory is rejected.
func.func @shared_tile_of_global_memory(%bytes: memref<?xi8>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op expected the base in workgroup memory, got 'memref<?xi8>'}}
  %t = attngpu.shared_tile %bytes[%off] : memref<?xi8> to memref<64x64xf16, #gpu.address_space<workgroup>>
  return
}

// -----

// The 128-byte swizzle is a function of the shared address with a period
// of 8 rows of 128 bytes: panels of 4 rows would not start on it.
func.func @swizzled_panels_of_4_rows(%smem: memref<?xi8, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.shared_tile' op a 128-byte swizzled tile holds 16-bit elements in whole 64-column panels of a multiple of 8 rows with the identity layout, got 'memref<4x128xbf16, #gpu.address_space<workgroup>>'}}
  %t = attngpu.shared_tile %smem[%off] {swizzle_bytes = 128} : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// For the same reason a swizzled tile starts on a 1024-byte boundary.
func.func @swizzled_at_512(%smem: memref<?xi8, #gpu.address_space<workgroup>>) {
  %c512 = arith.constant 512 : index
  // expected-error @below {{'attngpu.shared_tile' op a 128-byte swizzled tile must start on a 1024-byte boundary, got byte offset 512}}
  %t = attngpu.shared_tile %smem[%c512] {swizzle_bytes = 128} : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
  return
}


//===----------------------------------------------------------------------===//
// attngpu.wgmma.descriptor
//===----------------------------------------------------------------------===//

// -----

// wgmma reads its operands from shared memory only.
func.func @descriptor_not_workgroup(%t: memref<64x64xbf16>, %off: index) {
  // expected-error @below {{'attngpu.wgmma.descriptor' op expected the tile in workgroup memory, got 'memref<64x64xbf16>'}}
  %d = attngpu.wgmma.descriptor %t[%off] {leading_bytes = 16, stride_bytes = 1024, swizzle_bytes = 128} : memref<64x64xbf16>
  return
}

// -----

// The descriptor's swizzle mode is none (0) or 128 bytes.
func.func @descriptor_swizzle_64(%t: memref<64x64xbf16, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.wgmma.descriptor' op expected swizzle_bytes 0 or 128, got 64}}
  %d = attngpu.wgmma.descriptor %t[%off] {leading_bytes = 16, stride_bytes = 1024, swizzle_bytes = 64} : memref<64x64xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// The leading byte offset is counted in 16-byte units.
func.func @descriptor_leading_not_multiple_of_16(%t: memref<64x64xbf16, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.wgmma.descriptor' op expected leading_bytes to be a positive multiple of 16 below 2^18, got 8}}
  %d = attngpu.wgmma.descriptor %t[%off] {leading_bytes = 8, stride_bytes = 1024, swizzle_bytes = 128} : memref<64x64xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// The leading byte offset is positive.
func.func @descriptor_leading_zero(%t: memref<64x64xbf16, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.wgmma.descriptor' op expected leading_bytes to be a positive multiple of 16 below 2^18, got 0}}
  %d = attngpu.wgmma.descriptor %t[%off] {leading_bytes = 0, stride_bytes = 1024, swizzle_bytes = 0} : memref<64x64xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// The stride byte offset is counted in 16-byte units.
func.func @descriptor_stride_not_multiple_of_16(%t: memref<64x64xbf16, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.wgmma.descriptor' op expected stride_bytes to be a positive multiple of 16 below 2^18, got 1000}}
  %d = attngpu.wgmma.descriptor %t[%off] {leading_bytes = 16, stride_bytes = 1000, swizzle_bytes = 128} : memref<64x64xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// The stride byte offset is a 14-bit field of 16-byte units: 2^18 bytes do
// not fit.
func.func @descriptor_stride_too_large(%t: memref<64x64xbf16, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.wgmma.descriptor' op expected stride_bytes to be a positive multiple of 16 below 2^18, got 262144}}
  %d = attngpu.wgmma.descriptor %t[%off] {leading_bytes = 16, stride_bytes = 262144, swizzle_bytes = 128} : memref<64x64xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// Same for the leading byte offset; a negative value is rejected as well.
func.func @descriptor_leading_negative(%t: memref<64x64xbf16, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.wgmma.descriptor' op expected leading_bytes to be a positive multiple of 16 below 2^18, got -16}}
  %d = attngpu.wgmma.descriptor %t[%off] {leading_bytes = -16, stride_bytes = 1024, swizzle_bytes = 128} : memref<64x64xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// wgmma reads 16-bit operands: f32 tiles have no descriptor (ODS constraint).
func.func @descriptor_f32_tile(%t: memref<64x64xf32, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.wgmma.descriptor' op operand #0 must be 2D memref of 16-bit float or bfloat16 type values, but got 'memref<64x64xf32, #gpu.address_space<workgroup>>'}}
  %d = attngpu.wgmma.descriptor %t[%off] {leading_bytes = 16, stride_bytes = 1024, swizzle_bytes = 128} : memref<64x64xf32, #gpu.address_space<workgroup>>
  return
}

// -----

// swizzle_bytes is required, 0 included (ODS constraint).
func.func @descriptor_missing_swizzle(%t: memref<64x64xbf16, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.wgmma.descriptor' op requires attribute 'swizzle_bytes'}}
  %d = attngpu.wgmma.descriptor %t[%off] {leading_bytes = 16, stride_bytes = 1024} : memref<64x64xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// The descriptor takes the tile's aligned pointer: a layout offset (e.g. a
// subview) would be lost.
func.func @descriptor_of_offset_tile(%t: memref<64x64xbf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.wgmma.descriptor' op expected the tile to start at its buffer (layout offset 0), got 'memref<64x64xbf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>'}}
  %d = attngpu.wgmma.descriptor %t[%off] {leading_bytes = 16, stride_bytes = 1024, swizzle_bytes = 128} : memref<64x64xbf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
  return
}


//===----------------------------------------------------------------------===//
// attngpu.wgmma.mma_async
//===----------------------------------------------------------------------===//

// -----

// A product has at least one k16 step (one b_offsets entry per step).
func.func @mma_zero_steps(%d: i64) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected at least one k16 step}}
  %r = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 128, element_type = bf16, a_offsets = array<i64>, b_offsets = array<i64>} -> vector<64xf32>
  return
}

// -----

// n is a multiple of 8.
func.func @mma_n_not_multiple_of_8(%d: i64) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected n to be a multiple of 8 in [8, 256], got 12}}
  %r = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 12, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<6xf32>
  return
}

// -----

// n is at most 256.
func.func @mma_n_too_large(%d: i64) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected n to be a multiple of 8 in [8, 256], got 264}}
  %r = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 264, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<132xf32>
  return
}

// -----

// n is at least 8.
func.func @mma_n_zero(%d: i64, %acc: vector<4xf32>) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected n to be a multiple of 8 in [8, 256], got 0}}
  %r = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 0, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
  return
}

// -----

// The products are f16 or bf16 (tf32 and fp8 are not lowered).
func.func @mma_element_f32(%d: i64) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected element_type f16 or bf16, got 'f32'}}
  %r = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 128, element_type = f32, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<64xf32>
  return
}

// -----

// fp8 products are not supported either.
func.func @mma_element_fp8(%d: i64) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected element_type f16 or bf16, got 'f8E4M3FN'}}
  %r = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 128, element_type = f8E4M3FN, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<64xf32>
  return
}

// -----

// element_type is a type attribute (ODS constraint).
func.func @mma_element_not_a_type(%d: i64) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op attribute 'element_type' failed to satisfy constraint: any type attribute}}
  %r = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d) {n = 128, element_type = 16 : i64, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<64xf32>
  return
}

// -----

// Each thread holds n / 2 f32 of the m64 x n result.
func.func @mma_result_size(%d: i64) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected the result to hold n / 2 = 64 f32 per thread, got 'vector<128xf32>'}}
  %r = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 128, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<128xf32>
  return
}

// -----

// The accumulator is the result's registers: it has the result type.
func.func @mma_accumulator_type(%d: i64, %acc: vector<32xf32>) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected the accumulator to have the result type 'vector<64xf32>', got 'vector<32xf32>'}}
  %r = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d) acc(%acc : vector<32xf32>)
      {n = 128, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<64xf32>
  return
}

// -----

// A comes from a descriptor or from registers, not both.
func.func @mma_a_both(%d: i64, %p: vector<4xi32>) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected A from exactly one of a descriptor and register fragments}}
  %r = attngpu.wgmma.mma_async a_desc(%d) a_regs(%p : vector<4xi32>) b_desc(%d)
      {n = 128, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<64xf32>
  return
}

// -----

// A product without A is rejected.
func.func @mma_a_neither(%d: i64) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected A from exactly one of a descriptor and register fragments}}
  %r = attngpu.wgmma.mma_async b_desc(%d)
      {n = 128, element_type = bf16, b_offsets = array<i64: 0>} -> vector<64xf32>
  return
}

// -----

// A from a descriptor needs one a_offsets entry per step.
func.func @mma_a_offsets_count(%d: i64) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected one a_offsets entry per step (2)}}
  %r = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 128, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0, 32>} -> vector<64xf32>
  return
}

// -----

// A from a descriptor without a_offsets is rejected the same way.
func.func @mma_a_offsets_missing(%d: i64) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected one a_offsets entry per step (1)}}
  %r = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 128, element_type = bf16, b_offsets = array<i64: 0>} -> vector<64xf32>
  return
}

// -----

// a_offsets address a descriptor: with A in registers they are rejected.
func.func @mma_a_offsets_with_registers(%d: i64, %p: vector<4xi32>) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op a_offsets apply only to A from a descriptor}}
  %r = attngpu.wgmma.mma_async a_regs(%p : vector<4xi32>) b_desc(%d)
      {n = 128, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<64xf32>
  return
}

// -----

// Only a shared-memory A has a layout to transpose.
func.func @mma_transpose_a_with_registers(%d: i64, %p: vector<4xi32>) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op transpose_a applies only to A from a descriptor}}
  %r = attngpu.wgmma.mma_async a_regs(%p : vector<4xi32>) b_desc(%d)
      {n = 128, element_type = bf16, b_offsets = array<i64: 0>, transpose_a} -> vector<64xf32>
  return
}

// -----

// A in registers needs one fragment per step.
func.func @mma_fragments_count(%d: i64, %p: vector<4xi32>) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected one A fragment per step (2), got 1}}
  %r = attngpu.wgmma.mma_async a_regs(%p : vector<4xi32>) b_desc(%d)
      {n = 128, element_type = bf16, b_offsets = array<i64: 0, 2048>} -> vector<64xf32>
  return
}

// -----

// Step offsets of A are in 16-byte units of the descriptor.
func.func @mma_a_offset_not_multiple_of_16(%d: i64) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected a_offsets to be non-negative multiples of 16, got 8}}
  %r = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 128, element_type = bf16, a_offsets = array<i64: 0, 8>, b_offsets = array<i64: 0, 32>} -> vector<64xf32>
  return
}

// -----

// Step offsets of B likewise, and they are not negative.
func.func @mma_b_offset_negative(%d: i64) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected b_offsets to be non-negative multiples of 16, got -32}}
  %r = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 128, element_type = bf16, a_offsets = array<i64: 0, 32>, b_offsets = array<i64: 0, -32>} -> vector<64xf32>
  return
}

// -----

// B offsets that are not multiples of 16 are rejected with A in registers
// too.
func.func @mma_b_offset_not_multiple_of_16(%d: i64, %p: vector<4xi32>) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op expected b_offsets to be non-negative multiples of 16, got 24}}
  %r = attngpu.wgmma.mma_async a_regs(%p : vector<4xi32>) b_desc(%d)
      {n = 128, element_type = bf16, b_offsets = array<i64: 24>} -> vector<64xf32>
  return
}

// -----

// An A fragment is four 32-bit registers (ODS constraint; without a
// descriptor the fragments are operand #0).
func.func @mma_fragment_type(%d: i64, %p: vector<8xf16>) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op operand #0 must be variadic of vector of 32-bit signless integer values of length 4, but got 'vector<8xf16>'}}
  %r = attngpu.wgmma.mma_async a_regs(%p : vector<8xf16>) b_desc(%d)
      {n = 128, element_type = f16, b_offsets = array<i64: 0>} -> vector<64xf32>
  return
}

// -----

// The result is a vector of f32 (ODS constraint).
func.func @mma_result_f16(%d: i64) {
  // expected-error @below {{'attngpu.wgmma.mma_async' op result #0 must be vector of 32-bit float values of ranks 1, but got 'vector<64xf16>'}}
  %r = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 128, element_type = f16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<64xf16>
  return
}

//===----------------------------------------------------------------------===//
// attngpu.wgmma.wait_group
//===----------------------------------------------------------------------===//

// -----

// At most 7 groups may stay pending (the PTX immediate is 0-7).
func.func @wait_group_pending_too_large() {
  // expected-error @below {{'attngpu.wgmma.wait_group' op expected pending in [0, 7], got 8}}
  attngpu.wgmma.wait_group 8
  return
}


// -----

// The values pass through unchanged: results have the values' types
// (generic form; the custom form infers them).
func.func @wait_group_result_type(%x: vector<64xf32>) {
  // expected-error @below {{'attngpu.wgmma.wait_group' op failed to verify that all of {values, results} have same type}}
  %y = "attngpu.wgmma.wait_group"(%x) <{pending = 0 : i64}> : (vector<64xf32>) -> vector<32xf32>
  return
}

// -----

// One result per value (generic form).
func.func @wait_group_result_count(%x: f32) {
  // expected-error @below {{'attngpu.wgmma.wait_group' op failed to verify that all of {values, results} have same type}}
  %y:2 = "attngpu.wgmma.wait_group"(%x) <{pending = 0 : i64}> : (f32) -> (f32, f32)
  return
}

// -----

// With one group allowed to stay pending, the last group's accumulator is
// not valid yet: passing it through is rejected.
func.func @wait_group_in_flight(%d: i64) -> vector<4xf32> {
  attngpu.wgmma.fence
  %s = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
  attngpu.wgmma.commit_group
  %o = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
  attngpu.wgmma.commit_group
  // expected-error @below {{'attngpu.wgmma.wait_group' op passes the result of a wgmma product whose group may still be in flight (pending = 1)}}
  %ws, %wo = attngpu.wgmma.wait_group 1 (%s, %o) : vector<4xf32>, vector<4xf32>
  return %wo : vector<4xf32>
}

// -----

// A product not yet committed is in no group the wait covers.
func.func @wait_group_uncommitted(%d: i64) -> vector<4xf32> {
  %s = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
      {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
  // expected-error @below {{'attngpu.wgmma.wait_group' op passes the result of a wgmma product whose group may still be in flight (pending = 0)}}
  %w = attngpu.wgmma.wait_group 0 (%s) : vector<4xf32>
  return %w : vector<4xf32>
}

// -----

// A negative count is reported as given.
func.func @wait_group_pending_negative(%x: f32) {
  // expected-error @below {{'attngpu.wgmma.wait_group' op expected pending in [0, 7], got -1}}
  %y = attngpu.wgmma.wait_group -1 (%x) : f32
  return
}

// -----

// The wait ties every value to an f32 ("=f") register: other values do not
// pass through (ODS constraint).
func.func @wait_group_i32(%x: i32) {
  // expected-error @below {{'attngpu.wgmma.wait_group' op operand #0 must be variadic of 32-bit float or vector of 32-bit float values of ranks 1, but got 'i32'}}
  %y = attngpu.wgmma.wait_group 0 (%x) : i32
  return
}

// -----

// Register fragments of A are i32 vectors: they do not pass through either.
func.func @wait_group_i32_vector(%p: vector<4xi32>) {
  // expected-error @below {{'attngpu.wgmma.wait_group' op operand #0 must be variadic of 32-bit float or vector of 32-bit float values of ranks 1, but got 'vector<4xi32>'}}
  %q = attngpu.wgmma.wait_group 0 (%p) : vector<4xi32>
  return
}

// -----

// Nor does an mbarrier.
func.func @wait_group_mbarrier(%b: !attngpu.mbarrier) {
  // expected-error @below {{'attngpu.wgmma.wait_group' op operand #0 must be variadic of 32-bit float or vector of 32-bit float values of ranks 1, but got '!attngpu.mbarrier'}}
  %c = attngpu.wgmma.wait_group 1 (%b) : !attngpu.mbarrier
  return
}


//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

// -----

// An mbarrier lives in the shared memory bytes (ODS constraint).
func.func @mbarrier_base_not_bytes(%smem: memref<?xi64, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.mbarrier' op operand #0 must be 1D memref of 8-bit signless integer values, but got 'memref<?xi64, #gpu.address_space<workgroup>>'}}
  %b = attngpu.mbarrier %smem[%off] : memref<?xi64, #gpu.address_space<workgroup>>
  return
}

// -----

// The arrival count is an i32 (ODS constraint, generic form).
func.func @mbarrier_init_count_type(%b: !attngpu.mbarrier, %n: i64) {
  // expected-error @below {{'attngpu.mbarrier.init' op operand #1 must be 32-bit signless integer, but got 'i64'}}
  "attngpu.mbarrier.init"(%b, %n) : (!attngpu.mbarrier, i64) -> ()
  return
}

// -----

// The mbarrier ops take an !attngpu.mbarrier, not a pointer (ODS
// constraint, generic form).
func.func @mbarrier_wait_on_pointer(%p: !llvm.ptr<3>, %parity: i32) {
  // expected-error @below {{'attngpu.mbarrier.wait' op operand #0 must be an mbarrier object in the block's shared memory, but got '!llvm.ptr<3>'}}
  "attngpu.mbarrier.wait"(%p, %parity) : (!llvm.ptr<3>, i32) -> ()
  return
}

// -----

// An mbarrier lives in the block's shared memory, not in global memory.
func.func @mbarrier_in_global_memory(%bytes: memref<?xi8>, %off: index) {
  // expected-error @below {{'attngpu.mbarrier' op expected the base in workgroup memory, got 'memref<?xi8>'}}
  %b = attngpu.mbarrier %bytes[%off] : memref<?xi8>
  return
}

// -----

// An mbarrier is a 64-bit word: its offset is 8-byte aligned.
func.func @mbarrier_misaligned(%smem: memref<?xi8, #gpu.address_space<workgroup>>) {
  %c4 = arith.constant 4 : index
  // expected-error @below {{'attngpu.mbarrier' op expected an 8-byte aligned byte offset, got 4}}
  %b = attngpu.mbarrier %smem[%c4] : memref<?xi8, #gpu.address_space<workgroup>>
  return
}

// -----

// Its address is the base's aligned pointer plus the byte offset: a layout
// offset would be lost.
func.func @mbarrier_in_offset_bytes(%bytes: memref<?xi8, strided<[1], offset: 64>, #gpu.address_space<workgroup>>, %off: index) {
  // expected-error @below {{'attngpu.mbarrier' op expected the base to start at its buffer (layout offset 0), got 'memref<?xi8, strided<[1], offset: 64>, #gpu.address_space<workgroup>>'}}
  %b = attngpu.mbarrier %bytes[%off] : memref<?xi8, strided<[1], offset: 64>, #gpu.address_space<workgroup>>
  return
}


//===----------------------------------------------------------------------===//
// attngpu.tma.load
//===----------------------------------------------------------------------===//

// -----

// A TMA box has at least one coordinate.
func.func @tma_load_no_coordinates(%map: !llvm.ptr, %b: !attngpu.mbarrier,
                                   %t: memref<64x64xbf16, #gpu.address_space<workgroup>>) {
  // expected-error @below {{'attngpu.tma.load' op expected 1 to 5 coordinates, got 0}}
  attngpu.tma.load %map[], %b to %t : !llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// TMA tensors have at most five dimensions.
func.func @tma_load_six_coordinates(%map: !llvm.ptr, %b: !attngpu.mbarrier, %i: i32,
                                    %t: memref<64x64xbf16, #gpu.address_space<workgroup>>) {
  // expected-error @below {{'attngpu.tma.load' op expected 1 to 5 coordinates, got 6}}
  attngpu.tma.load %map[%i, %i, %i, %i, %i, %i], %b to %t : !llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// TMA loads land in shared memory.
func.func @tma_load_not_workgroup(%map: !llvm.ptr, %b: !attngpu.mbarrier, %i: i32,
                                  %t: memref<64x64xbf16>) {
  // expected-error @below {{'attngpu.tma.load' op expected the destination tile in workgroup memory, got 'memref<64x64xbf16>'}}
  attngpu.tma.load %map[%i, %i], %b to %t : !llvm.ptr, memref<64x64xbf16>
  return
}

// -----

// Coordinates are i32 (ODS constraint, generic form).
func.func @tma_load_index_coordinates(%map: !llvm.ptr, %b: !attngpu.mbarrier, %i: index,
                                      %t: memref<64x64xbf16, #gpu.address_space<workgroup>>) {
  // expected-error @below {{'attngpu.tma.load' op operand #1 must be variadic of 32-bit signless integer, but got 'index'}}
  "attngpu.tma.load"(%map, %i, %b, %t)
      : (!llvm.ptr, index, !attngpu.mbarrier, memref<64x64xbf16, #gpu.address_space<workgroup>>) -> ()
  return
}

// -----

// The destination is the tile's aligned pointer: a layout offset would be
// lost.
func.func @tma_load_to_offset_tile(%map: !llvm.ptr, %b: !attngpu.mbarrier, %i: i32,
                                   %t: memref<64x64xbf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>) {
  // expected-error @below {{'attngpu.tma.load' op expected the destination tile to start at its buffer (layout offset 0), got 'memref<64x64xbf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>'}}
  attngpu.tma.load %map[%i, %i], %b to %t : !llvm.ptr, memref<64x64xbf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
  return
}


//===----------------------------------------------------------------------===//
// attngpu.tma.store
//===----------------------------------------------------------------------===//

// -----

// A TMA store's box has at least one coordinate.
func.func @tma_store_no_coordinates(%map: !llvm.ptr,
                                    %t: memref<64x64xbf16, #gpu.address_space<workgroup>>) {
  // expected-error @below {{'attngpu.tma.store' op expected 1 to 5 coordinates, got 0}}
  attngpu.tma.store %t to %map[] : memref<64x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
  return
}

// -----

// ... and at most five.
func.func @tma_store_six_coordinates(%map: !llvm.ptr, %i: i32,
                                     %t: memref<64x64xbf16, #gpu.address_space<workgroup>>) {
  // expected-error @below {{'attngpu.tma.store' op expected 1 to 5 coordinates, got 6}}
  attngpu.tma.store %t to %map[%i, %i, %i, %i, %i, %i] : memref<64x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
  return
}

// -----

// TMA stores read shared memory.
func.func @tma_store_not_workgroup(%map: !llvm.ptr, %i: i32, %t: memref<64x64xbf16>) {
  // expected-error @below {{'attngpu.tma.store' op expected the source tile in workgroup memory, got 'memref<64x64xbf16>'}}
  attngpu.tma.store %t to %map[%i, %i] : memref<64x64xbf16>, !llvm.ptr
  return
}

// -----

// The source is the tile's aligned pointer: a layout offset would be lost.
func.func @tma_store_from_offset_tile(%map: !llvm.ptr, %i: i32,
                                      %t: memref<64x64xbf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>) {
  // expected-error @below {{'attngpu.tma.store' op expected the source tile to start at its buffer (layout offset 0), got 'memref<64x64xbf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>'}}
  attngpu.tma.store %t to %map[%i, %i] : memref<64x64xbf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>, !llvm.ptr
  return
}


//===----------------------------------------------------------------------===//
// attngpu.ex2
//===----------------------------------------------------------------------===//

// -----

// ex2.approx.ftz is an f32 instruction (ODS constraint, generic form).
func.func @ex2_f16(%x: f16) {
  // expected-error @below {{'attngpu.ex2' op operand #0 must be 32-bit float, but got 'f16'}}
  %y = "attngpu.ex2"(%x) : (f16) -> f16
  return
}

// -----

// attngpu.red_add: one index per dim of the memref.
func.func @red_add_indices(%acc: memref<4x64xf32>, %v: vector<2xf32>, %i: index) {
  // expected-error @below {{'attngpu.red_add' op expected 2 indices for the memref, got 1}}
  attngpu.red_add %v, %acc[%i] : vector<2xf32>, memref<4x64xf32>
  return
}

// -----

// Vector reductions exist for global memory only.
func.func @red_add_shared(%acc: memref<4x64xf32, #gpu.address_space<workgroup>>, %v: vector<2xf32>, %i: index) {
  // expected-error @below {{'attngpu.red_add' op expected a memref in global memory, got 'memref<4x64xf32, #gpu.address_space<workgroup>>'}}
  attngpu.red_add %v, %acc[%i, %i] : vector<2xf32>, memref<4x64xf32, #gpu.address_space<workgroup>>
  return
}

// -----

// Two or four f32 (ODS constraint).
func.func @red_add_width(%acc: memref<4x64xf32>, %v: vector<3xf32>, %i: index) {
  // expected-error @below {{'attngpu.red_add' op operand #0 must be vector of 32-bit float values of length 2/4, but got 'vector<3xf32>'}}
  attngpu.red_add %v, %acc[%i, %i] : vector<3xf32>, memref<4x64xf32>
  return
}

// -----

// attngpu.bulk_reduce_add: the source in shared memory.
func.func @bulk_reduce_add_source(%acc: memref<4x64xf32>, %staged: memref<256xf32>, %i: index, %n: i32) {
  // expected-error @below {{'attngpu.bulk_reduce_add' op expected the source in workgroup memory, got 'memref<256xf32>'}}
  attngpu.bulk_reduce_add %staged, %acc[%i, %i], %n : memref<256xf32>, memref<4x64xf32>
  return
}

// -----

// attngpu.bulk_reduce_add: whole 16-byte units.
func.func @bulk_reduce_add_bytes(%acc: memref<4x64xf32>, %staged: memref<256xf32, #gpu.address_space<workgroup>>, %i: index) {
  %n = arith.constant 24 : i32
  // expected-error @below {{'attngpu.bulk_reduce_add' op expected a multiple of 16 bytes, got 24}}
  attngpu.bulk_reduce_add %staged, %acc[%i, %i], %n : memref<256xf32, #gpu.address_space<workgroup>>, memref<4x64xf32>
  return
}

// -----

// attngpu.bulk_reduce_add: one index per dim of the destination.
func.func @bulk_reduce_add_indices(%acc: memref<4x64xf32>, %staged: memref<256xf32, #gpu.address_space<workgroup>>, %i: index, %n: i32) {
  // expected-error @below {{'attngpu.bulk_reduce_add' op expected 2 indices for the memref, got 1}}
  attngpu.bulk_reduce_add %staged, %acc[%i], %n : memref<256xf32, #gpu.address_space<workgroup>>, memref<4x64xf32>
  return
}

// -----

// attngpu.bulk_reduce_add: the destination in global memory.
func.func @bulk_reduce_add_destination(%acc: memref<4x64xf32, #gpu.address_space<workgroup>>, %staged: memref<256xf32, #gpu.address_space<workgroup>>, %i: index, %n: i32) {
  // expected-error @below {{'attngpu.bulk_reduce_add' op expected a memref in global memory, got 'memref<4x64xf32, #gpu.address_space<workgroup>>'}}
  attngpu.bulk_reduce_add %staged, %acc[%i, %i], %n : memref<256xf32, #gpu.address_space<workgroup>>, memref<4x64xf32, #gpu.address_space<workgroup>>
  return
}

//===----------------------------------------------------------------------===//
// attngpu.named_barrier.sync / arrive
//===----------------------------------------------------------------------===//

// -----

// Barriers count whole warps.
func.func @named_barrier_partial_warp(%id: i32) {
  // expected-error @below {{'attngpu.named_barrier.sync' op expected a thread count that is a multiple of 32 up to 1024, got 100}}
  attngpu.named_barrier.sync %id, 100
  return
}

// -----

// A block has at most 1024 threads.
func.func @named_barrier_too_many(%id: i32) {
  // expected-error @below {{'attngpu.named_barrier.arrive' op expected a thread count that is a multiple of 32 up to 1024, got 2048}}
  attngpu.named_barrier.arrive %id, 2048
  return
}

// -----

// Barrier 0 is the block-wide gpu.barrier.
func.func @named_barrier_zero() {
  %id = arith.constant 0 : i32
  // expected-error @below {{'attngpu.named_barrier.sync' op expected a barrier id from 1 to 15, got 0}}
  attngpu.named_barrier.sync %id, 256
  return
}

// -----

// There are 16 barriers.
func.func @named_barrier_sixteen() {
  %id = arith.constant 16 : i32
  // expected-error @below {{'attngpu.named_barrier.arrive' op expected a barrier id from 1 to 15, got 16}}
  attngpu.named_barrier.arrive %id, 256
  return
}

//===----------------------------------------------------------------------===//
// attngpu.tensor_map
//===----------------------------------------------------------------------===//

// -----

// TMA describes tensors of rank 1 to 5.
func.func @tensor_map_rank_six(%t: memref<2x2x2x2x2x64xbf16>) {
  // expected-error @below {{'attngpu.tensor_map' op expected an input of rank 1 to 5, got 'memref<2x2x2x2x2x64xbf16>'}}
  %m, %ok = attngpu.tensor_map %t {box = array<i64: 64, 1, 1, 1, 1, 1>, swizzle_bytes = 128 : i64} : memref<2x2x2x2x2x64xbf16>
  return
}

// -----

// TMA copies from global memory.
func.func @tensor_map_shared(%t: memref<64x64xbf16, #gpu.address_space<workgroup>>) {
  // expected-error @below {{'attngpu.tensor_map' op expected an input in global memory, got 'memref<64x64xbf16, #gpu.address_space<workgroup>>'}}
  %m, %ok = attngpu.tensor_map %t {box = array<i64: 64, 64>, swizzle_bytes = 128 : i64} : memref<64x64xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

// The maps attnc makes are of 16- and 32-bit floats.
func.func @tensor_map_i8(%t: memref<?x128xi8>) {
  // expected-error @below {{'attngpu.tensor_map' op expected f16, bf16 or f32 elements, got 'i8'}}
  %m, %ok = attngpu.tensor_map %t {box = array<i64: 128, 64>, swizzle_bytes = 128 : i64} : memref<?x128xi8>
  return
}

// -----

// One box extent per dim.
func.func @tensor_map_box_rank(%t: memref<?x16x?x128xbf16>) {
  // expected-error @below {{'attngpu.tensor_map' op expected 4 box extents (one per dim), got 2}}
  %m, %ok = attngpu.tensor_map %t {box = array<i64: 64, 128>, swizzle_bytes = 128 : i64} : memref<?x16x?x128xbf16>
  return
}

// -----

// Box extents are at most 256.
func.func @tensor_map_box_extent(%t: memref<?x16x?x128xbf16>) {
  // expected-error @below {{'attngpu.tensor_map' op expected box extents in [1, 256], got 512}}
  %m, %ok = attngpu.tensor_map %t {box = array<i64: 64, 512, 1, 1>, swizzle_bytes = 128 : i64} : memref<?x16x?x128xbf16>
  return
}

// -----

// attnc's tiles use no swizzle or the 128-byte one.
func.func @tensor_map_swizzle(%t: memref<?x16x?x128xbf16>) {
  // expected-error @below {{'attngpu.tensor_map' op expected swizzle_bytes 0 or 128, got 64}}
  %m, %ok = attngpu.tensor_map %t {box = array<i64: 32, 128, 1, 1>, swizzle_bytes = 64 : i64} : memref<?x16x?x128xbf16>
  return
}

// -----

// A 128-byte swizzled box row is at most 128 bytes.
func.func @tensor_map_wide_box(%t: memref<?x16x?x128xbf16>) {
  // expected-error @below {{'attngpu.tensor_map' op expected an inner box of whole 16-byte units up to the swizzle's 128, got 256 bytes}}
  %m, %ok = attngpu.tensor_map %t {box = array<i64: 128, 128, 1, 1>, swizzle_bytes = 128 : i64} : memref<?x16x?x128xbf16>
  return
}

// -----

// A box row is whole 16-byte units.
func.func @tensor_map_partial_unit(%t: memref<?x16x?x128xbf16>) {
  // expected-error @below {{'attngpu.tensor_map' op expected an inner box of whole 16-byte units, got 12 bytes}}
  %m, %ok = attngpu.tensor_map %t {box = array<i64: 6, 128, 1, 1>, swizzle_bytes = 0 : i64} : memref<?x16x?x128xbf16>
  return
}
