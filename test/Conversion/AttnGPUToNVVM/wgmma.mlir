// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-attngpu-to-nvvm))' | FileCheck %s

// convert-attngpu-to-nvvm on the warpgroup MMA ops: products as inline PTX
// (one asm statement per product, or one per issue sequence), the fence and
// commit as NVVM ops, the wait as inline PTX that ties every value it passes
// through.

//===----------------------------------------------------------------------===//
// Products outside an issue sequence
//===----------------------------------------------------------------------===//

// A from a descriptor, no accumulator, two steps: each step adds its byte
// offsets / 16 to the descriptors in the prelude (desc0/desc1 for step 0,
// desc2/desc3 for step 1); the first step overwrites, the second
// accumulates; no transposes. Outputs are n / 2 = 4 f32, then the constant 1
// that sets the predicates, then the two descriptors.
gpu.module @mma_a_descriptor {
  // CHECK-LABEL: func.func @mma_a_descriptor(
  // CHECK-SAME: %[[DA:[a-zA-Z0-9_]+]]: i64, %[[DB:[a-zA-Z0-9_]+]]: i64)
  func.func @mma_a_descriptor(%da: i64, %db: i64) -> vector<4xf32> {
    // CHECK: %[[ONE:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: %[[ASM:.*]] = llvm.inline_asm has_side_effects "{\0A.reg .pred accumulate, overwrite;\0A.reg .b64 desc<4>;\0Asetp.ne.b32 accumulate, $4, 0;\0Asetp.eq.b32 overwrite, $4, 0;\0Aadd.s64 desc0, $5, 0;\0Aadd.s64 desc1, $6, 1;\0Aadd.s64 desc2, $5, 2;\0Aadd.s64 desc3, $6, 128;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, desc0, desc1, overwrite, 1, 1, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, desc2, desc3, accumulate, 1, 1, 0, 0;\0A}", "=f,=f,=f,=f,r,l,l" %[[ONE]], %[[DA]], %[[DB]] : (i32, i64, i64) -> !llvm.struct<(f32, f32, f32, f32)>
    // CHECK-NEXT: %[[R0:.*]] = llvm.extractvalue %[[ASM]][0]
    // CHECK-NEXT: %[[R1:.*]] = llvm.extractvalue %[[ASM]][1]
    // CHECK-NEXT: %[[R2:.*]] = llvm.extractvalue %[[ASM]][2]
    // CHECK-NEXT: %[[R3:.*]] = llvm.extractvalue %[[ASM]][3]
    // CHECK-NEXT: %[[R:.*]] = vector.from_elements %[[R0]], %[[R1]], %[[R2]], %[[R3]] : vector<4xf32>
    // CHECK-NEXT: return %[[R]]
    %r = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
        {n = 8, element_type = bf16, a_offsets = array<i64: 0, 32>, b_offsets = array<i64: 16, 2048>}
        -> vector<4xf32>
    return %r : vector<4xf32>
  }
}

// -----

// A from a descriptor onto an accumulator, f16, B transposed: the
// accumulator's elements are tied to the outputs ("0".."3"), so even the
// first step accumulates; the last immediate (tnspB) is 1.
gpu.module @mma_a_descriptor_accumulate {
  // CHECK-LABEL: func.func @mma_a_descriptor_accumulate(
  // CHECK-SAME: %[[DA:[a-zA-Z0-9_]+]]: i64, %[[DB:[a-zA-Z0-9_]+]]: i64, %[[ACC:[a-zA-Z0-9_]+]]: vector<4xf32>)
  func.func @mma_a_descriptor_accumulate(%da: i64, %db: i64, %acc: vector<4xf32>) -> vector<4xf32> {
    // CHECK: %[[C0:.*]] = vector.extract %[[ACC]][0] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[C1:.*]] = vector.extract %[[ACC]][1] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[C2:.*]] = vector.extract %[[ACC]][2] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[C3:.*]] = vector.extract %[[ACC]][3] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: %[[ASM:.*]] = llvm.inline_asm has_side_effects "{\0A.reg .pred accumulate, overwrite;\0A.reg .b64 desc<2>;\0Asetp.ne.b32 accumulate, $8, 0;\0Asetp.eq.b32 overwrite, $8, 0;\0Aadd.s64 desc0, $9, 4;\0Aadd.s64 desc1, $10, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, desc0, desc1, accumulate, 1, 1, 0, 1;\0A}", "=f,=f,=f,=f,0,1,2,3,r,l,l" %[[C0]], %[[C1]], %[[C2]], %[[C3]], %[[ONE]], %[[DA]], %[[DB]] : (f32, f32, f32, f32, i32, i64, i64) -> !llvm.struct<(f32, f32, f32, f32)>
    // CHECK-NEXT: %[[R0:.*]] = llvm.extractvalue %[[ASM]][0]
    // CHECK-NEXT: %[[R1:.*]] = llvm.extractvalue %[[ASM]][1]
    // CHECK-NEXT: %[[R2:.*]] = llvm.extractvalue %[[ASM]][2]
    // CHECK-NEXT: %[[R3:.*]] = llvm.extractvalue %[[ASM]][3]
    // CHECK-NEXT: %[[R:.*]] = vector.from_elements %[[R0]], %[[R1]], %[[R2]], %[[R3]] : vector<4xf32>
    // CHECK-NEXT: return %[[R]]
    %r = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db) acc(%acc : vector<4xf32>)
        {n = 8, element_type = f16, a_offsets = array<i64: 64>, b_offsets = array<i64: 0>, transpose_b}
        -> vector<4xf32>
    return %r : vector<4xf32>
  }
}

// -----

// A MN-major (transpose_a): the tnspA immediate is 1.
gpu.module @mma_a_descriptor_transposed {
  // CHECK-LABEL: func.func @mma_a_descriptor_transposed(
  // CHECK: llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, desc0, desc1, overwrite, 1, 1, 1, 1;\0A}"
  func.func @mma_a_descriptor_transposed(%da: i64, %db: i64) -> vector<4xf32> {
    %r = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
        {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>, transpose_a, transpose_b}
        -> vector<4xf32>
    return %r : vector<4xf32>
  }
}

// -----

// A from registers, two steps, onto an accumulator, B transposed: each step
// names its fragment's four registers `{$a, $b, $c, $d}`, only B has a
// descriptor (one per step), and the register form has no tnspA immediate.
gpu.module @mma_a_registers {
  // CHECK-LABEL: func.func @mma_a_registers(
  // CHECK-SAME: %[[P0:[a-zA-Z0-9_]+]]: vector<4xi32>, %[[P1:[a-zA-Z0-9_]+]]: vector<4xi32>, %[[DB:[a-zA-Z0-9_]+]]: i64, %[[ACC:[a-zA-Z0-9_]+]]: vector<4xf32>)
  func.func @mma_a_registers(%p0: vector<4xi32>, %p1: vector<4xi32>, %db: i64, %acc: vector<4xf32>) -> vector<4xf32> {
    // CHECK: %[[C0:.*]] = vector.extract %[[ACC]][0] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[C1:.*]] = vector.extract %[[ACC]][1] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[C2:.*]] = vector.extract %[[ACC]][2] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[C3:.*]] = vector.extract %[[ACC]][3] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: %[[A0:.*]] = vector.extract %[[P0]][0] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[A1:.*]] = vector.extract %[[P0]][1] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[A2:.*]] = vector.extract %[[P0]][2] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[A3:.*]] = vector.extract %[[P0]][3] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[A4:.*]] = vector.extract %[[P1]][0] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[A5:.*]] = vector.extract %[[P1]][1] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[A6:.*]] = vector.extract %[[P1]][2] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[A7:.*]] = vector.extract %[[P1]][3] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[ASM:.*]] = llvm.inline_asm has_side_effects "{\0A.reg .pred accumulate, overwrite;\0A.reg .b64 desc<2>;\0Asetp.ne.b32 accumulate, $8, 0;\0Asetp.eq.b32 overwrite, $8, 0;\0Aadd.s64 desc0, $9, 0;\0Aadd.s64 desc1, $9, 128;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, {$10, $11, $12, $13}, desc0, accumulate, 1, 1, 1;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, {$14, $15, $16, $17}, desc1, accumulate, 1, 1, 1;\0A}", "=f,=f,=f,=f,0,1,2,3,r,l,r,r,r,r,r,r,r,r" %[[C0]], %[[C1]], %[[C2]], %[[C3]], %[[ONE]], %[[DB]], %[[A0]], %[[A1]], %[[A2]], %[[A3]], %[[A4]], %[[A5]], %[[A6]], %[[A7]] : (f32, f32, f32, f32, i32, i64, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(f32, f32, f32, f32)>
    // CHECK-NEXT: %[[R0:.*]] = llvm.extractvalue %[[ASM]][0]
    // CHECK-NEXT: %[[R1:.*]] = llvm.extractvalue %[[ASM]][1]
    // CHECK-NEXT: %[[R2:.*]] = llvm.extractvalue %[[ASM]][2]
    // CHECK-NEXT: %[[R3:.*]] = llvm.extractvalue %[[ASM]][3]
    // CHECK-NEXT: %[[R:.*]] = vector.from_elements %[[R0]], %[[R1]], %[[R2]], %[[R3]] : vector<4xf32>
    // CHECK-NEXT: return %[[R]]
    %r = attngpu.wgmma.mma_async a_regs(%p0, %p1 : vector<4xi32>, vector<4xi32>) b_desc(%db)
        acc(%acc : vector<4xf32>)
        {n = 8, element_type = bf16, b_offsets = array<i64: 0, 2048>, transpose_b} -> vector<4xf32>
    return %r : vector<4xf32>
  }
}

// -----

// A from registers without an accumulator, f16, B not transposed: the only
// step overwrites, tnspB is 0.
gpu.module @mma_a_registers_overwrite {
  // CHECK-LABEL: func.func @mma_a_registers_overwrite(
  // CHECK-SAME: %[[P:[a-zA-Z0-9_]+]]: vector<4xi32>, %[[DB:[a-zA-Z0-9_]+]]: i64)
  func.func @mma_a_registers_overwrite(%p: vector<4xi32>, %db: i64) -> vector<4xf32> {
    // CHECK: %[[ONE:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: %[[A0:.*]] = vector.extract %[[P]][0] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[A1:.*]] = vector.extract %[[P]][1] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[A2:.*]] = vector.extract %[[P]][2] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[A3:.*]] = vector.extract %[[P]][3] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[ASM:.*]] = llvm.inline_asm has_side_effects "{\0A.reg .pred accumulate, overwrite;\0A.reg .b64 desc<1>;\0Asetp.ne.b32 accumulate, $4, 0;\0Asetp.eq.b32 overwrite, $4, 0;\0Aadd.s64 desc0, $5, 2;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, {$6, $7, $8, $9}, desc0, overwrite, 1, 1, 0;\0A}", "=f,=f,=f,=f,r,l,r,r,r,r" %[[ONE]], %[[DB]], %[[A0]], %[[A1]], %[[A2]], %[[A3]] : (i32, i64, i32, i32, i32, i32) -> !llvm.struct<(f32, f32, f32, f32)>
    // CHECK-NOT: attngpu.
    %r = attngpu.wgmma.mma_async a_regs(%p : vector<4xi32>) b_desc(%db)
        {n = 8, element_type = f16, b_offsets = array<i64: 32>} -> vector<4xf32>
    return %r : vector<4xf32>
  }
}

// -----

// The output list follows n: n = 16 gives 8 outputs `{$0, ..., $7}`.
gpu.module @mma_n16 {
  // CHECK-LABEL: func.func @mma_n16(
  func.func @mma_n16(%da: i64, %db: i64) -> vector<8xf32> {
    // CHECK: llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7}, desc0, desc1, overwrite, 1, 1, 0, 0;\0A}", "=f,=f,=f,=f,=f,=f,=f,=f,r,l,l"
    // CHECK-SAME: -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %r = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
        {n = 16, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<8xf32>
    return %r : vector<8xf32>
  }
}

//===----------------------------------------------------------------------===//
// Issue sequences: fence, products, commits, wait -> one asm statement
//===----------------------------------------------------------------------===//

// -----

// The simplest sequence: fence, one product, commit, wait 0. The statement
// holds the descriptor prelude, then the fence, the steps, the commit and
// the wait; the wait's result is the product's outputs.
gpu.module @issue_one_group {
  // CHECK-LABEL: func.func @issue_one_group(
  // CHECK-SAME: %[[DA:[a-zA-Z0-9_]+]]: i64, %[[DB:[a-zA-Z0-9_]+]]: i64)
  func.func @issue_one_group(%da: i64, %db: i64) -> vector<4xf32> {
    // CHECK-NOT: nvvm.wgmma
    // CHECK: %[[ONE:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: %[[ASM:.*]] = llvm.inline_asm has_side_effects "{\0A.reg .pred accumulate, overwrite;\0A.reg .b64 desc<2>;\0Asetp.ne.b32 accumulate, $4, 0;\0Asetp.eq.b32 overwrite, $4, 0;\0Aadd.s64 desc0, $5, 0;\0Aadd.s64 desc1, $6, 0;\0Awgmma.fence.sync.aligned;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, desc0, desc1, overwrite, 1, 1, 0, 0;\0Awgmma.commit_group.sync.aligned;\0Awgmma.wait_group.sync.aligned 0;\0A}", "=f,=f,=f,=f,r,l,l" %[[ONE]], %[[DA]], %[[DB]] : (i32, i64, i64) -> !llvm.struct<(f32, f32, f32, f32)>
    // CHECK-NEXT: %[[R0:.*]] = llvm.extractvalue %[[ASM]][0]
    // CHECK-NEXT: %[[R1:.*]] = llvm.extractvalue %[[ASM]][1]
    // CHECK-NEXT: %[[R2:.*]] = llvm.extractvalue %[[ASM]][2]
    // CHECK-NEXT: %[[R3:.*]] = llvm.extractvalue %[[ASM]][3]
    // CHECK-NEXT: %[[R:.*]] = vector.from_elements %[[R0]], %[[R1]], %[[R2]], %[[R3]] : vector<4xf32>
    // CHECK-NEXT: return %[[R]]
    attngpu.wgmma.fence
    %s = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
        {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
    attngpu.wgmma.commit_group
    %w = attngpu.wgmma.wait_group 0 (%s) : vector<4xf32>
    return %w : vector<4xf32>
  }
}

// -----

// Two groups (S = Q K^T from descriptors; O += P V from registers onto an
// accumulator, V transposed) with a pure op between them, waiting for both
// groups: ONE statement with the fence inside, a commit after each group and
// `wait_group.sync.aligned 0` at the end. Outputs of both
// products come first ($0-$3 for S, $4-$7 for O), then the tied
// accumulator of O ("4".."7"), then the constant, the descriptors (A and B
// of S, B of O) and the A registers of O. The pure op moves above the
// statement. The wait lists O before S: its results are mapped back to the
// right products (outputs 4-7, then 0-3).
gpu.module @issue_two_groups {
  // CHECK-LABEL: func.func @issue_two_groups(
  // CHECK-SAME: %[[DA:[a-zA-Z0-9_]+]]: i64, %[[DB:[a-zA-Z0-9_]+]]: i64, %[[P:[a-zA-Z0-9_]+]]: vector<4xi32>, %[[ACC:[a-zA-Z0-9_]+]]: vector<4xf32>, %[[X:[a-zA-Z0-9_]+]]: f32)
  func.func @issue_two_groups(%da: i64, %db: i64, %p: vector<4xi32>, %acc: vector<4xf32>, %x: f32)
      -> (vector<4xf32>, vector<4xf32>, f32) {
    // CHECK-NOT: nvvm.wgmma
    // CHECK: %[[Y:.*]] = arith.mulf %[[X]], %[[X]] : f32
    // CHECK-NEXT: %[[C0:.*]] = vector.extract %[[ACC]][0] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[C1:.*]] = vector.extract %[[ACC]][1] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[C2:.*]] = vector.extract %[[ACC]][2] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[C3:.*]] = vector.extract %[[ACC]][3] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: %[[A0:.*]] = vector.extract %[[P]][0] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[A1:.*]] = vector.extract %[[P]][1] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[A2:.*]] = vector.extract %[[P]][2] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[A3:.*]] = vector.extract %[[P]][3] : i32 from vector<4xi32>
    // CHECK-NEXT: %[[ASM:.*]] = llvm.inline_asm has_side_effects "{\0A.reg .pred accumulate, overwrite;\0A.reg .b64 desc<5>;\0Asetp.ne.b32 accumulate, $12, 0;\0Asetp.eq.b32 overwrite, $12, 0;\0Aadd.s64 desc0, $13, 0;\0Aadd.s64 desc1, $14, 0;\0Aadd.s64 desc2, $13, 2;\0Aadd.s64 desc3, $14, 2;\0Aadd.s64 desc4, $15, 64;\0Awgmma.fence.sync.aligned;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, desc0, desc1, overwrite, 1, 1, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, desc2, desc3, accumulate, 1, 1, 0, 0;\0Awgmma.commit_group.sync.aligned;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$4, $5, $6, $7}, {$16, $17, $18, $19}, desc4, accumulate, 1, 1, 1;\0Awgmma.commit_group.sync.aligned;\0Awgmma.wait_group.sync.aligned 0;\0A}", "=f,=f,=f,=f,=f,=f,=f,=f,4,5,6,7,r,l,l,l,r,r,r,r" %[[C0]], %[[C1]], %[[C2]], %[[C3]], %[[ONE]], %[[DA]], %[[DB]], %[[DB]], %[[A0]], %[[A1]], %[[A2]], %[[A3]] : (f32, f32, f32, f32, i32, i64, i64, i64, i32, i32, i32, i32) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    // CHECK-NEXT: %[[R0:.*]] = llvm.extractvalue %[[ASM]][0]
    // CHECK-NEXT: %[[R1:.*]] = llvm.extractvalue %[[ASM]][1]
    // CHECK-NEXT: %[[R2:.*]] = llvm.extractvalue %[[ASM]][2]
    // CHECK-NEXT: %[[R3:.*]] = llvm.extractvalue %[[ASM]][3]
    // CHECK-NEXT: %[[R4:.*]] = llvm.extractvalue %[[ASM]][4]
    // CHECK-NEXT: %[[R5:.*]] = llvm.extractvalue %[[ASM]][5]
    // CHECK-NEXT: %[[R6:.*]] = llvm.extractvalue %[[ASM]][6]
    // CHECK-NEXT: %[[R7:.*]] = llvm.extractvalue %[[ASM]][7]
    // CHECK-NEXT: %[[S:.*]] = vector.from_elements %[[R0]], %[[R1]], %[[R2]], %[[R3]] : vector<4xf32>
    // CHECK-NEXT: %[[O:.*]] = vector.from_elements %[[R4]], %[[R5]], %[[R6]], %[[R7]] : vector<4xf32>
    // CHECK-NEXT: return %[[O]], %[[S]], %[[Y]]
    attngpu.wgmma.fence
    %s = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
        {n = 8, element_type = bf16, a_offsets = array<i64: 0, 32>, b_offsets = array<i64: 0, 32>} -> vector<4xf32>
    attngpu.wgmma.commit_group
    %y = arith.mulf %x, %x : f32
    %o = attngpu.wgmma.mma_async a_regs(%p : vector<4xi32>) b_desc(%db) acc(%acc : vector<4xf32>)
        {n = 8, element_type = bf16, b_offsets = array<i64: 1024>, transpose_b} -> vector<4xf32>
    attngpu.wgmma.commit_group
    %wo, %ws = attngpu.wgmma.wait_group 0 (%o, %s) : vector<4xf32>, vector<4xf32>
    return %wo, %ws, %y : vector<4xf32>, vector<4xf32>, f32
  }
}

// -----

// Two products in one group, and a descriptor computed between the fence and
// the products (pure, so it stays in the sequence): its arithmetic lands
// above the statement, which has a single commit. The wait passes no values;
// the products' results are still the statement's outputs.
gpu.module @issue_one_group_two_products {
  // CHECK-LABEL: func.func @issue_one_group_two_products(
  // CHECK-SAME: %[[T:[a-zA-Z0-9_]+]]: memref<64x64xbf16, #gpu.address_space<workgroup>>, %[[OFF:[a-zA-Z0-9_]+]]: index)
  func.func @issue_one_group_two_products(%t: memref<64x64xbf16, #gpu.address_space<workgroup>>, %off: index)
      -> (vector<4xf32>, vector<4xf32>) {
    // CHECK-NOT: nvvm.wgmma
    // CHECK: %[[D:.*]] = arith.ori
    // CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: %[[ASM:.*]] = llvm.inline_asm has_side_effects "{\0A.reg .pred accumulate, overwrite;\0A.reg .b64 desc<4>;\0Asetp.ne.b32 accumulate, $8, 0;\0Asetp.eq.b32 overwrite, $8, 0;\0Aadd.s64 desc0, $9, 0;\0Aadd.s64 desc1, $10, 0;\0Aadd.s64 desc2, $11, 64;\0Aadd.s64 desc3, $12, 64;\0Awgmma.fence.sync.aligned;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, desc0, desc1, overwrite, 1, 1, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$4, $5, $6, $7}, desc2, desc3, overwrite, 1, 1, 0, 0;\0Awgmma.commit_group.sync.aligned;\0Awgmma.wait_group.sync.aligned 0;\0A}", "=f,=f,=f,=f,=f,=f,=f,=f,r,l,l,l,l" %[[ONE]], %[[D]], %[[D]], %[[D]], %[[D]] : (i32, i64, i64, i64, i64) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    // CHECK-COUNT-8: llvm.extractvalue %[[ASM]]
    // CHECK-NEXT: %[[A:.*]] = vector.from_elements
    // CHECK-NEXT: %[[B:.*]] = vector.from_elements
    // CHECK-NEXT: return %[[A]], %[[B]]
    attngpu.wgmma.fence
    %d = attngpu.wgmma.descriptor %t[%off] {leading_bytes = 16, stride_bytes = 1024, swizzle_bytes = 128}
        : memref<64x64xbf16, #gpu.address_space<workgroup>>
    %a = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
        {n = 8, element_type = f16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
    %b = attngpu.wgmma.mma_async a_desc(%d) b_desc(%d)
        {n = 8, element_type = f16, a_offsets = array<i64: 1024>, b_offsets = array<i64: 1024>} -> vector<4xf32>
    attngpu.wgmma.commit_group
    attngpu.wgmma.wait_group 0
    return %a, %b : vector<4xf32>, vector<4xf32>
  }
}

//===----------------------------------------------------------------------===//
// Broken issue sequences: each op lowers on its own
//===----------------------------------------------------------------------===//

// -----

// An op with side effects between the fence and the wait breaks the
// sequence: a separate nvvm.wgmma.fence.aligned, the product's own asm
// statement (no fence, commit or wait inside), the store where it was,
// nvvm.wgmma.commit.group.sync.aligned and the wait's own statement, which
// ties the product's outputs.
gpu.module @broken_by_side_effect {
  // CHECK-LABEL: func.func @broken_by_side_effect(
  // CHECK-SAME: %[[DA:[a-zA-Z0-9_]+]]: i64, %[[DB:[a-zA-Z0-9_]+]]: i64, %[[BUF:[a-zA-Z0-9_]+]]: memref<4xf32>)
  func.func @broken_by_side_effect(%da: i64, %db: i64, %buf: memref<4xf32>) -> vector<4xf32> {
    // CHECK: nvvm.wgmma.fence.aligned
    // CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: %[[ASM:.*]] = llvm.inline_asm has_side_effects "{\0A.reg .pred accumulate, overwrite;\0A.reg .b64 desc<2>;\0Asetp.ne.b32 accumulate, $4, 0;\0Asetp.eq.b32 overwrite, $4, 0;\0Aadd.s64 desc0, $5, 0;\0Aadd.s64 desc1, $6, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, desc0, desc1, overwrite, 1, 1, 0, 0;\0A}", "=f,=f,=f,=f,r,l,l" %[[ONE]], %[[DA]], %[[DB]]
    // CHECK-COUNT-4: llvm.extractvalue %[[ASM]]
    // CHECK-NEXT: %[[S:.*]] = vector.from_elements
    // CHECK: memref.store %{{.*}}, %[[BUF]]
    // CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
    // CHECK-NEXT: %[[S0:.*]] = vector.extract %[[S]][0] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[S1:.*]] = vector.extract %[[S]][1] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[S2:.*]] = vector.extract %[[S]][2] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[S3:.*]] = vector.extract %[[S]][3] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[WAIT:.*]] = llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,=f,=f,=f,0,1,2,3" %[[S0]], %[[S1]], %[[S2]], %[[S3]] : (f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    // CHECK-COUNT-4: llvm.extractvalue %[[WAIT]]
    // CHECK-NEXT: %[[W:.*]] = vector.from_elements
    // CHECK-NEXT: return %[[W]]
    attngpu.wgmma.fence
    %s = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
        {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    memref.store %z, %buf[%c0] : memref<4xf32>
    attngpu.wgmma.commit_group
    %w = attngpu.wgmma.wait_group 0 (%s) : vector<4xf32>
    return %w : vector<4xf32>
  }
}

// -----

// A product's result used before the wait (here by another product's
// accumulator) breaks the sequence.
gpu.module @broken_by_early_use {
  // CHECK-LABEL: func.func @broken_by_early_use(
  func.func @broken_by_early_use(%da: i64, %db: i64) -> vector<4xf32> {
    // CHECK: nvvm.wgmma.fence.aligned
    // CHECK-NEXT: arith.constant 1 : i32
    // CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}desc0, desc1, overwrite, 1, 1, 0, 0;\0A}", "=f,=f,=f,=f,r,l,l"
    // CHECK: llvm.inline_asm has_side_effects "{{.*}}desc0, desc1, accumulate, 1, 1, 0, 0;\0A}", "=f,=f,=f,=f,0,1,2,3,r,l,l"
    // CHECK: nvvm.wgmma.commit.group.sync.aligned
    // CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,=f,=f,=f,0,1,2,3"
    // CHECK-NOT: wgmma.fence.sync.aligned
    attngpu.wgmma.fence
    %s = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
        {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
    %t = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db) acc(%s : vector<4xf32>)
        {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
    attngpu.wgmma.commit_group
    %w = attngpu.wgmma.wait_group 0 (%t) : vector<4xf32>
    return %w : vector<4xf32>
  }
}

// -----

// A wait that passes through a value that no product of the sequence
// defines (an f32 argument) breaks the sequence; the wait's statement ties
// the product's outputs and the scalar ("0".."4").
gpu.module @broken_by_pass_through {
  // CHECK-LABEL: func.func @broken_by_pass_through(
  // CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: f32)
  func.func @broken_by_pass_through(%da: i64, %db: i64, %x: f32) -> (vector<4xf32>, f32) {
    // CHECK: nvvm.wgmma.fence.aligned
    // CHECK: llvm.inline_asm has_side_effects "{{.*}}desc0, desc1, overwrite, 1, 1, 0, 0;\0A}", "=f,=f,=f,=f,r,l,l"
    // CHECK: nvvm.wgmma.commit.group.sync.aligned
    // CHECK-NEXT: %[[S0:.*]] = vector.extract %{{.*}}[0] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[S1:.*]] = vector.extract %{{.*}}[1] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[S2:.*]] = vector.extract %{{.*}}[2] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[S3:.*]] = vector.extract %{{.*}}[3] : f32 from vector<4xf32>
    // CHECK-NEXT: %[[WAIT:.*]] = llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,=f,=f,=f,=f,0,1,2,3,4" %[[S0]], %[[S1]], %[[S2]], %[[S3]], %[[X]] : (f32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32, f32)>
    // CHECK-NEXT: %[[W0:.*]] = llvm.extractvalue %[[WAIT]][0]
    // CHECK-NEXT: %[[W1:.*]] = llvm.extractvalue %[[WAIT]][1]
    // CHECK-NEXT: %[[W2:.*]] = llvm.extractvalue %[[WAIT]][2]
    // CHECK-NEXT: %[[W3:.*]] = llvm.extractvalue %[[WAIT]][3]
    // CHECK-NEXT: %[[Y:.*]] = llvm.extractvalue %[[WAIT]][4]
    // CHECK-NEXT: %[[W:.*]] = vector.from_elements %[[W0]], %[[W1]], %[[W2]], %[[W3]] : vector<4xf32>
    // CHECK-NEXT: return %[[W]], %[[Y]]
    attngpu.wgmma.fence
    %s = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
        {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
    attngpu.wgmma.commit_group
    %w, %y = attngpu.wgmma.wait_group 0 (%s, %x) : vector<4xf32>, f32
    return %w, %y : vector<4xf32>, f32
  }
}

// -----

// A commit that closes no product (an empty group) breaks the sequence.
gpu.module @broken_by_empty_group {
  // CHECK-LABEL: func.func @broken_by_empty_group(
  func.func @broken_by_empty_group(%da: i64, %db: i64) -> vector<4xf32> {
    // CHECK: nvvm.wgmma.fence.aligned
    // CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
    // CHECK: llvm.inline_asm has_side_effects "{{.*}}desc0, desc1, overwrite, 1, 1, 0, 0;\0A}"
    // CHECK: nvvm.wgmma.commit.group.sync.aligned
    // CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
    attngpu.wgmma.fence
    attngpu.wgmma.commit_group
    %s = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
        {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
    attngpu.wgmma.commit_group
    %w = attngpu.wgmma.wait_group 0 (%s) : vector<4xf32>
    return %w : vector<4xf32>
  }
}

// -----

// A product not closed by a commit before the wait breaks the sequence.
gpu.module @broken_by_uncommitted_product {
  // CHECK-LABEL: func.func @broken_by_uncommitted_product(
  func.func @broken_by_uncommitted_product(%da: i64, %db: i64) -> vector<4xf32> {
    // CHECK: nvvm.wgmma.fence.aligned
    // CHECK: llvm.inline_asm has_side_effects "{{.*}}desc0, desc1, overwrite, 1, 1, 0, 0;\0A}"
    // CHECK: nvvm.wgmma.commit.group.sync.aligned
    // CHECK: llvm.inline_asm has_side_effects "{{.*}}desc0, desc1, overwrite, 1, 1, 0, 0;\0A}"
    // CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
    // CHECK-NOT: nvvm.wgmma.commit.group.sync.aligned
    attngpu.wgmma.fence
    %s = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
        {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
    attngpu.wgmma.commit_group
    %t = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
        {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
    %w = attngpu.wgmma.wait_group 0 (%s) : vector<4xf32>
    return %w : vector<4xf32>
  }
}

// -----

// An op with a region between the fence and the wait breaks the sequence,
// even when it is pure.
gpu.module @broken_by_region {
  // CHECK-LABEL: func.func @broken_by_region(
  func.func @broken_by_region(%da: i64, %db: i64, %c: i1) -> vector<4xf32> {
    // CHECK: nvvm.wgmma.fence.aligned
    // CHECK: llvm.inline_asm has_side_effects "{{.*}}desc0, desc1, overwrite, 1, 1, 0, 0;\0A}"
    // CHECK: scf.if
    // CHECK: nvvm.wgmma.commit.group.sync.aligned
    // CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
    attngpu.wgmma.fence
    %s = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
        {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
    %i = scf.if %c -> index {
      %c1 = arith.constant 1 : index
      scf.yield %c1 : index
    } else {
      %c2 = arith.constant 2 : index
      scf.yield %c2 : index
    }
    attngpu.wgmma.commit_group
    %w = attngpu.wgmma.wait_group 0 (%s) : vector<4xf32>
    return %w : vector<4xf32>
  }
}

// -----

// A named barrier arrival after the commits (a warpgroup passing its turn
// on the tensor cores once its products are issued) joins the statement:
// `bar.arrive` with the id as an "r" input and the count, after the commit
// and before the wait; a second arrival, or one before a commit, ends the
// sequence (the products then lower one by one).
gpu.module @issue_then_arrive {
  // CHECK-LABEL: func.func @issue_then_arrive(
  // CHECK-SAME: %[[DA:[a-zA-Z0-9_]+]]: i64, %[[DB:[a-zA-Z0-9_]+]]: i64, %[[ID:[a-zA-Z0-9_]+]]: i32)
  func.func @issue_then_arrive(%da: i64, %db: i64, %id: i32) -> vector<4xf32> {
    // CHECK-NOT: nvvm.barrier
    // CHECK: %[[ONE:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: %[[ASM:.*]] = llvm.inline_asm has_side_effects "{\0A.reg .pred accumulate, overwrite;\0A.reg .b64 desc<2>;\0Asetp.ne.b32 accumulate, $4, 0;\0Asetp.eq.b32 overwrite, $4, 0;\0Aadd.s64 desc0, $5, 0;\0Aadd.s64 desc1, $6, 0;\0Awgmma.fence.sync.aligned;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, desc0, desc1, overwrite, 1, 1, 0, 0;\0Awgmma.commit_group.sync.aligned;\0Abar.arrive $7, 256;\0Awgmma.wait_group.sync.aligned 0;\0A}", "=f,=f,=f,=f,r,l,l,r" %[[ONE]], %[[DA]], %[[DB]], %[[ID]] : (i32, i64, i64, i32) -> !llvm.struct<(f32, f32, f32, f32)>
    attngpu.wgmma.fence
    %s = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
        {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
    attngpu.wgmma.commit_group
    attngpu.named_barrier.arrive %id, 256
    %w = attngpu.wgmma.wait_group 0 (%s) : vector<4xf32>
    return %w : vector<4xf32>
  }
}

// -----

gpu.module @arrive_twice {
  // CHECK-LABEL: func.func @arrive_twice(
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  // CHECK: nvvm.barrier.arrive
  // CHECK: nvvm.barrier.arrive
  // CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
  func.func @arrive_twice(%da: i64, %db: i64, %id: i32) -> vector<4xf32> {
    attngpu.wgmma.fence
    %s = attngpu.wgmma.mma_async a_desc(%da) b_desc(%db)
        {n = 8, element_type = bf16, a_offsets = array<i64: 0>, b_offsets = array<i64: 0>} -> vector<4xf32>
    attngpu.wgmma.commit_group
    attngpu.named_barrier.arrive %id, 256
    attngpu.named_barrier.arrive %id, 256
    %w = attngpu.wgmma.wait_group 0 (%s) : vector<4xf32>
    return %w : vector<4xf32>
  }
}

//===----------------------------------------------------------------------===//
// Fence, commit and wait on their own
//===----------------------------------------------------------------------===//

// -----

// A fence and a commit outside a sequence are the NVVM ops.
gpu.module @fence_and_commit {
  // CHECK-LABEL: func.func @fence_and_commit(
  func.func @fence_and_commit() {
    // CHECK-NEXT: nvvm.wgmma.fence.aligned
    // CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
    // CHECK-NEXT: return
    attngpu.wgmma.fence
    attngpu.wgmma.commit_group
    return
  }
}

// -----

// A wait without values is an asm statement without operands or results.
gpu.module @wait_no_values {
  // CHECK-LABEL: func.func @wait_no_values(
  func.func @wait_no_values() {
    // CHECK-NEXT: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 3;", ""  : () -> (){{$}}
    // CHECK-NEXT: return
    attngpu.wgmma.wait_group 3
    return
  }
}

// -----

// A wait passing one value: LLVM returns a single asm output as itself, not
// as a struct.
gpu.module @wait_one_value {
  // CHECK-LABEL: func.func @wait_one_value(
  // CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: f32)
  func.func @wait_one_value(%x: f32) -> f32 {
    // CHECK-NEXT: %[[Y:.*]] = llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,0" %[[X]] : (f32) -> f32
    // CHECK-NEXT: return %[[Y]]
    %y = attngpu.wgmma.wait_group 0 (%x) : f32
    return %y : f32
  }
}

// -----

// A wait passing a vector and scalars through: every scalar is an "=f"
// output tied to its input ("0".."4"), vectors are split into their elements
// and rebuilt from the outputs, scalars are the outputs themselves.
gpu.module @wait_values {
  // CHECK-LABEL: func.func @wait_values(
  // CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: f32, %[[V:[a-zA-Z0-9_]+]]: vector<2xf32>, %[[Y:[a-zA-Z0-9_]+]]: f32)
  func.func @wait_values(%x: f32, %v: vector<2xf32>, %y: f32) -> (f32, vector<2xf32>, f32) {
    // CHECK-NEXT: %[[V0:.*]] = vector.extract %[[V]][0] : f32 from vector<2xf32>
    // CHECK-NEXT: %[[V1:.*]] = vector.extract %[[V]][1] : f32 from vector<2xf32>
    // CHECK-NEXT: %[[ASM:.*]] = llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 7;", "=f,=f,=f,=f,0,1,2,3" %[[X]], %[[V0]], %[[V1]], %[[Y]] : (f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    // CHECK-NEXT: %[[O0:.*]] = llvm.extractvalue %[[ASM]][0]
    // CHECK-NEXT: %[[O1:.*]] = llvm.extractvalue %[[ASM]][1]
    // CHECK-NEXT: %[[O2:.*]] = llvm.extractvalue %[[ASM]][2]
    // CHECK-NEXT: %[[O3:.*]] = llvm.extractvalue %[[ASM]][3]
    // CHECK-NEXT: %[[W:.*]] = vector.from_elements %[[O1]], %[[O2]] : vector<2xf32>
    // CHECK-NEXT: return %[[O0]], %[[W]], %[[O3]]
    %wx, %wv, %wy = attngpu.wgmma.wait_group 7 (%x, %v, %y) : f32, vector<2xf32>, f32
    return %wx, %wv, %wy : f32, vector<2xf32>, f32
  }
}
