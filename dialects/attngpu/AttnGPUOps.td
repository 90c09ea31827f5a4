//===- AttnGPUOps.td - attngpu kernel dialect --------------*- tablegen -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_DIALECTS_ATTNGPU_ATTNGPUOPS_TD
#define ATTNC_DIALECTS_ATTNGPU_ATTNGPUOPS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/Dialect/LLVMIR/LLVMOpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def AttnGPU_Dialect : Dialect {
  let name = "attngpu";
  let cppNamespace = "::mlir::attngpu";
  let summary = "Hopper primitives that attnc's GPU kernels are built from";
  let description = [{
    The kernel-level dialect: each op is one hardware primitive (or a fixed
    group of them) with the semantics the PTX ISA gives it, so kernels are
    compositions of these ops and every decision about them lives in the IR.
    `convert-attngpu-to-nvvm` lowers each op to NVVM ops or inline PTX by a
    rewrite pattern; that conversion is the only place in attnc that writes
    PTX text. Shared-memory tiles are addressed by logical indices;
    `attngpu-lower-shared-tiles` turns them into their physical (padded or
    swizzled) layout.
  }];
  let useDefaultTypePrinterParser = 1;
  // attngpu.tensor_map makes !llvm.ptr values.
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

class AttnGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<AttnGPU_Dialect, mnemonic, traits>;

def AttnGPU_MBarrier : TypeDef<AttnGPU_Dialect, "MBarrier"> {
  let mnemonic = "mbarrier";
  let summary = "an mbarrier object in the block's shared memory";
  let description = [{
    A 64-bit mbarrier (PTX `.b64` in `.shared::cta`), 8-byte aligned. Lowers
    to an LLVM pointer in address space 3.
  }];
}

def WorkgroupBytes : MemRefRankOf<[I8], [1]>;

//===----------------------------------------------------------------------===//
// Shared-memory tiles
//===----------------------------------------------------------------------===//

def AttnGPU_SharedTileOp : AttnGPU_Op<"shared_tile", [Pure]> {
  let summary = "a 2-D tile carved out of the block's shared memory";
  let description = [{
    Views the bytes of `base` (workgroup memory) from `byte_offset` on as
    the logical
    `rows x cols` tile of the result type. Kernels index the result by
    logical (row, column); its physical layout is decided here and applied
    by `attngpu-lower-shared-tiles`:

    - without `swizzle_bytes`, the layout of the result type: row-major, or
      rows padded to a stride (`strided<[cols + pad, 1]>`, which keeps
      ldmatrix reads free of bank conflicts);
    - `swizzle_bytes = 128`: the 128-byte swizzle wgmma and TMA read. The
      tile is `cols / 64` panels of `rows` rows of 128 bytes (64 16-bit
      elements); element (r, c) lives in panel `c / 64`, row `r`, 16-byte
      chunk `((c % 64) / 8) xor (r % 8)`. The hardware swizzles by the
      shared address, with a period of 1024 bytes, so every panel must
      start on a 1024-byte boundary: `rows` is a multiple of 8, and
      `byte_offset` a multiple of 1024 from a 1024-byte aligned base (a
      constant offset is checked here).

    ```mlir
    %k = attngpu.shared_tile %smem[%offset] {swizzle_bytes = 128}
        : memref<?xi8, #gpu.address_space<workgroup>>
          to memref<128x128xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins WorkgroupBytes:$base, Index:$byte_offset,
                       OptionalAttr<I64Attr>:$swizzle_bytes);
  let results = (outs MemRefRankOf<[F16, BF16, F32], [2]>:$tile);
  let assemblyFormat = [{
    $base `[` $byte_offset `]` attr-dict `:` type($base) `to` type($tile)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Warpgroup MMA
//===----------------------------------------------------------------------===//

def AttnGPU_WgmmaDescriptorOp : AttnGPU_Op<"wgmma.descriptor", [Pure]> {
  let summary = "the shared-memory matrix descriptor of a wgmma operand";
  let description = [{
    The 64-bit descriptor wgmma reads a shared-memory operand through: the
    address of the tile's bytes from `byte_offset` on, the leading and
    stride byte offsets (the distance between core matrices along the two
    dimensions, see the PTX ISA "matrix descriptor format") and the swizzle
    mode of the tile (`swizzle_bytes`: 0 or 128). Steps of a product address
    parts of the tile by adding byte offsets to it
    (`attngpu.wgmma.mma_async`).

    ```mlir
    %d = attngpu.wgmma.descriptor %tile[%c0] {leading_bytes = 16,
        stride_bytes = 1024, swizzle_bytes = 128}
        : memref<128x128xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins MemRefRankOf<[F16, BF16], [2]>:$tile,
                       Index:$byte_offset,
                       I64Attr:$leading_bytes, I64Attr:$stride_bytes,
                       I64Attr:$swizzle_bytes);
  let results = (outs I64:$descriptor);
  let assemblyFormat = "$tile `[` $byte_offset `]` attr-dict `:` type($tile)";
  let hasVerifier = 1;
}

def AttnGPU_WgmmaFenceOp : AttnGPU_Op<"wgmma.fence"> {
  let summary = "orders register and shared-memory accesses before wgmma";
  let description = [{
    `wgmma.fence.sync.aligned`: every warp of the warpgroup executes it
    before the first `mma_async` that reads registers or shared memory
    written since the last fence.
  }];
  let assemblyFormat = "attr-dict";
}

def AttnGPU_WgmmaMmaAsyncOp : AttnGPU_Op<"wgmma.mma_async",
                                         [AttrSizedOperandSegments]> {
  let summary = "one warpgroup matrix product of several k16 steps";
  let description = [{
    `D = A B (+ C)` for a warpgroup: A is m64 x k, B is k x n, D and the
    optional accumulator C are m64 x n in f32, held as `n / 2` f32 per
    thread in the wgmma accumulator layout. The product runs as one
    `wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{t}.{t}` per k16 step, each
    step accumulating onto the previous (the first onto C, or overwriting
    without it). Step `i` reads:

    - A from shared memory at `a_descriptor` advanced by `a_offsets[i]`
      bytes, K-major, or MN-major with `transpose_a`; or from registers:
      `a_fragments[i]`, the four 32-bit registers of the m64 x k16 A
      fragment (pairs of 16-bit elements);
    - B at `b_descriptor` advanced by `b_offsets[i]` bytes, K-major, or
      MN-major with `transpose_b`.

    The product is asynchronous: its result may be used only after an
    `attngpu.wgmma.wait_group` that covers its commit group.

    ```mlir
    %s = attngpu.wgmma.mma_async a_desc(%qd) b_desc(%kd)
        {n = 128, element_type = bf16, a_offsets = array<i64: 0, 32>,
         b_offsets = array<i64: 0, 32>} -> vector<64xf32>
    %o2 = attngpu.wgmma.mma_async a_regs(%p0, %p1 : vector<4xi32>, vector<4xi32>)
        b_desc(%vd) acc(%o : vector<64xf32>)
        {n = 128, element_type = bf16, b_offsets = array<i64: 0, 2048>,
         transpose_b} -> vector<64xf32>
    ```
  }];
  let arguments = (ins Optional<I64>:$a_descriptor,
                       Variadic<VectorOfLengthAndType<[4], [I32]>>:$a_fragments,
                       I64:$b_descriptor,
                       Optional<VectorOfRankAndType<[1], [F32]>>:$accumulator,
                       I64Attr:$n, TypeAttr:$element_type,
                       OptionalAttr<DenseI64ArrayAttr>:$a_offsets,
                       DenseI64ArrayAttr:$b_offsets, UnitAttr:$transpose_a,
                       UnitAttr:$transpose_b);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    (`a_desc` `(` $a_descriptor^ `)`)?
    (`a_regs` `(` $a_fragments^ `:` type($a_fragments) `)`)?
    `b_desc` `(` $b_descriptor `)`
    (`acc` `(` $accumulator^ `:` type($accumulator) `)`)?
    attr-dict `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// The number of k16 steps.
    int64_t getNumSteps() { return getBOffsets().size(); }
  }];
  let hasVerifier = 1;
}

def AttnGPU_WgmmaCommitGroupOp : AttnGPU_Op<"wgmma.commit_group"> {
  let summary = "closes the group of mma_async products issued since the last";
  let description = [{
    `wgmma.commit_group.sync.aligned`: the products issued since the last
    commit form one group, which `wait_group` waits for.
  }];
  let assemblyFormat = "attr-dict";
}

def AttnGPU_WgmmaWaitGroupOp : AttnGPU_Op<"wgmma.wait_group",
    [AllTypesMatch<["values", "results"]>]> {
  let summary = "waits until at most `pending` wgmma groups are in flight";
  let description = [{
    `wgmma.wait_group.sync.aligned pending`. Groups complete in commit
    order. `values` (f32 or vectors of f32) pass through unchanged: the
    accumulators it makes valid (their uses must go through the results; a
    product of the same block must have at least `pending` groups committed
    after its own),
    and any other values whose computation must not move above the wait,
    e.g. probabilities that the next in-flight product's registers hold.

    ```mlir
    %s2, %p2 = attngpu.wgmma.wait_group 1 (%s, %p) : vector<64xf32>, f32
    ```
  }];
  let arguments = (ins I64Attr:$pending,
                       Variadic<AnyTypeOf<[F32, VectorOfRankAndType<[1], [F32]>]>>:$values);
  let results = (outs Variadic<AnyTypeOf<[F32, VectorOfRankAndType<[1], [F32]>]>>:$results);
  let assemblyFormat = [{
    $pending (`(` $values^ `)` `:` type($values))? attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

def AttnGPU_MBarrierOp : AttnGPU_Op<"mbarrier", [Pure]> {
  let summary = "the mbarrier at a byte offset of the block's shared memory";
  let description = [{
    ```mlir
    %full = attngpu.mbarrier %smem[%offset] : memref<?xi8, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins WorkgroupBytes:$base, Index:$byte_offset);
  let results = (outs AttnGPU_MBarrier:$barrier);
  let assemblyFormat = "$base `[` $byte_offset `]` attr-dict `:` type($base)";
  let hasVerifier = 1;
}

def AttnGPU_MBarrierInitOp : AttnGPU_Op<"mbarrier.init"> {
  let summary = "initializes an mbarrier for `count` arrivals per phase";
  let description = [{
    One thread initializes; `attngpu.mbarrier.fence_init` and a block
    barrier must follow before any other thread uses it.
  }];
  let arguments = (ins AttnGPU_MBarrier:$barrier, I32:$count);
  let assemblyFormat = "$barrier `,` $count attr-dict";
}

def AttnGPU_MBarrierFenceInitOp : AttnGPU_Op<"mbarrier.fence_init"> {
  let summary = "makes mbarrier initializations visible (fence.mbarrier_init)";
  let assemblyFormat = "attr-dict";
}

def AttnGPU_MBarrierArriveOp : AttnGPU_Op<"mbarrier.arrive"> {
  let summary = "arrives on an mbarrier with release semantics";
  let description = [{
    The thread's earlier memory accesses happen before the phase completes.
  }];
  let arguments = (ins AttnGPU_MBarrier:$barrier);
  let assemblyFormat = "$barrier attr-dict";
}

def AttnGPU_MBarrierArriveCpAsyncOp : AttnGPU_Op<"mbarrier.arrive_cp_async"> {
  let summary = "arrives when the thread's cp.async copies have landed";
  let description = [{
    `cp.async.mbarrier.arrive.noinc`: counts as the thread's arrival for the
    phase, once all its earlier cp.async copies are complete.
  }];
  let arguments = (ins AttnGPU_MBarrier:$barrier);
  let assemblyFormat = "$barrier attr-dict";
}

def AttnGPU_MBarrierArriveExpectTxOp : AttnGPU_Op<"mbarrier.arrive_expect_tx"> {
  let summary = "arrives and expects `bytes` of asynchronous transactions";
  let description = [{
    The phase completes once every arrival happened and `bytes` bytes of
    transactions (TMA copies naming this barrier) have landed.
  }];
  let arguments = (ins AttnGPU_MBarrier:$barrier, I32:$bytes);
  let assemblyFormat = "$barrier `,` $bytes attr-dict";
}

def AttnGPU_MBarrierWaitOp : AttnGPU_Op<"mbarrier.wait"> {
  let summary = "waits until the mbarrier completes the phase of `parity`";
  let description = [{
    Spins on `mbarrier.try_wait.parity` until the phase with parity `parity`
    (0 or 1; a barrier's uses alternate) has completed; its arrivals'
    memory accesses are then visible (acquire).
  }];
  let arguments = (ins AttnGPU_MBarrier:$barrier, I32:$parity);
  let assemblyFormat = "$barrier `,` $parity attr-dict";
}

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

class AttnGPU_NamedBarrierOp<string mnemonic> : AttnGPU_Op<mnemonic> {
  let arguments = (ins I32:$id, I64Attr:$threads);
  let assemblyFormat = "$id `,` $threads attr-dict";
  let hasVerifier = 1;
}

def AttnGPU_NamedBarrierSyncOp : AttnGPU_NamedBarrierOp<"named_barrier.sync"> {
  let summary = "waits until `threads` threads arrived at barrier `id`";
  let description = [{
    `bar.sync id, threads`: the warp counts as arrived and waits until
    `threads` threads (a multiple of 32, this warp's included) have arrived
    at the block's barrier `id` (1 to 15; 0 is the block-wide
    `gpu.barrier`). With `named_barrier.arrive` it passes a turn between
    groups of warps: one group arrives, the other waits.

    ```mlir
    attngpu.named_barrier.sync %id, 256
    ```
  }];
}

def AttnGPU_NamedBarrierArriveOp
    : AttnGPU_NamedBarrierOp<"named_barrier.arrive"> {
  let summary = "arrives at barrier `id` of `threads` threads without waiting";
  let description = [{
    `bar.arrive id, threads`: the warp counts as arrived at barrier `id` and
    goes on; the `named_barrier.sync` of the same barrier and count waits
    for it.
  }];
}

//===----------------------------------------------------------------------===//
// Async proxy, TMA, math
//===----------------------------------------------------------------------===//

def AttnGPU_FenceProxyAsyncOp : AttnGPU_Op<"fence_proxy_async"> {
  let summary = "orders generic-proxy shared writes before async-proxy reads";
  let description = [{
    `fence.proxy.async.shared::cta`: shared memory the thread wrote with
    ordinary stores or cp.async becomes visible to wgmma and TMA.
  }];
  let assemblyFormat = "attr-dict";
}

def AttnGPU_TensorMapOp : AttnGPU_Op<"tensor_map", [Pure]> {
  let summary = "a TMA tensor map of a kernel input, made by the runtime";
  let description = [{
    The CUtensorMap of the kernel's memref argument `input` that the
    runtime encodes at each launch from the tensor's address, sizes and
    strides: boxes of `box` elements (innermost first, so the memref's dims
    reversed) land in shared memory with the `swizzle_bytes` swizzle (0 or
    128). `map` is its generic address, a grid-constant kernel parameter;
    `valid` says whether the runtime could describe the tensor (a 16-byte
    aligned base, unit inner stride and 16-byte multiples for the other
    strides). Where it is false the map is zeros and the kernel copies
    another way. attn-outline-gpu-kernels turns each map into parameters of
    the kernel (lib/include/attnc/package/Package.h, `tensor_maps`).

    ```mlir
    %map, %valid = attngpu.tensor_map %k {box = array<i64: 64, 128, 1, 1>,
        swizzle_bytes = 128} : memref<?x16x?x128xbf16>
    ```
  }];
  let arguments = (ins AnyMemRef:$input, DenseI64ArrayAttr:$box,
                       I64Attr:$swizzle_bytes);
  let results = (outs LLVM_DefaultPointer:$map, I1:$valid);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::llvm::ArrayRef<int64_t>":$box,
                   "int64_t":$swizzleBytes)>
  ];
}

def AttnGPU_TmaLoadOp : AttnGPU_Op<"tma.load"> {
  let summary = "a TMA copy of a tensor box from global to shared memory";
  let description = [{
    Copies the box at `coordinates` (innermost first, in elements) of the
    tensor that the 128-byte CUtensorMap at `tensor_map` (a grid-constant
    kernel parameter, see `attngpu.tensor_map`) describes into the shared tile `tile`.
    The box's bytes complete as transactions on `barrier`, which an
    `mbarrier.arrive_expect_tx` of the same count must announce: a box's
    whole bytes, also where it reaches past the tensor's end (those elements
    land as zeros).

    ```mlir
    attngpu.tma.load %map[%c0, %row], %full to %tile
        : !llvm.ptr, memref<128x64xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$tensor_map, Variadic<I32>:$coordinates,
                       AttnGPU_MBarrier:$barrier,
                       MemRefRankOf<[F16, BF16, F32], [2]>:$tile);
  let assemblyFormat = [{
    $tensor_map `[` $coordinates `]` `,` $barrier `to` $tile attr-dict `:`
    type($tensor_map) `,` type($tile)
  }];
  let hasVerifier = 1;
}

def AttnGPU_TmaStoreOp : AttnGPU_Op<"tma.store"> {
  let summary = "a TMA copy of a shared tile to a tensor box in global memory";
  let description = [{
    Copies the shared tile `tile` to the box at `coordinates` (innermost
    first, in elements) of the tensor that the CUtensorMap at `tensor_map`
    describes (see `attngpu.tensor_map`), in the bulk group the next
    `nvvm.cp.async.bulk.commit.group` closes. Elements of the box past the
    tensor's end are not written. The engine reads shared memory
    asynchronously: the threads' writes to `tile` must be fenced
    (`attngpu.fence_proxy_async`) and joined by a barrier first, and the
    tile neither written again nor released (the block's end) before
    `nvvm.cp.async.bulk.wait_group` with `read` has seen the group read it.

    ```mlir
    attngpu.tma.store %tile to %map[%c0, %row, %head, %batch]
        : memref<64x64xbf16, #gpu.address_space<workgroup>>, !llvm.ptr
    ```
  }];
  let arguments = (ins MemRefRankOf<[F16, BF16, F32], [2]>:$tile,
                       LLVM_AnyPointer:$tensor_map, Variadic<I32>:$coordinates);
  let assemblyFormat = [{
    $tile `to` $tensor_map `[` $coordinates `]` attr-dict `:` type($tile) `,`
    type($tensor_map)
  }];
  let hasVerifier = 1;
}

def AttnGPU_Exp2Op : AttnGPU_Op<"ex2", [Pure]> {
  let summary = "2^x by the special function unit, subnormal results flushed";
  let description = [{
    `ex2.approx.ftz.f32`: one MUFU instruction, about 2 ulp; results below
    2^-126 are zero. For exponents of a softmax, where such terms do not
    change an f32 sum.
  }];
  let arguments = (ins F32:$x);
  let results = (outs F32:$result);
  let assemblyFormat = "$x attr-dict";
}

def AttnGPU_RedAddOp : AttnGPU_Op<"red_add"> {
  let summary = "adds a vector of f32 to global memory in one reduction";
  let description = [{
    `red.global.add.v2.f32` / `.v4.f32` (sm_90): adds the elements of
    `value` to the element of `memref` at `indices` and the next ones along
    the innermost dim, atomically per element, without returning the old
    values. Those elements must be contiguous and the first one aligned to
    the vector's size: the backward kernels use it for their own f32 dq
    accumulator, a dense buffer, at even (v2) column offsets. One vector
    reduction instead of one per element halves the reductions and the L2
    traffic of their addresses.

    ```mlir
    attngpu.red_add %pair, %acc[%b, %h, %row, %col]
        : vector<2xf32>, memref<?x8x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>
    ```
  }];
  let arguments = (ins VectorOfLengthAndType<[2, 4], [F32]>:$value,
                       MemRefOf<[F32]>:$memref, Variadic<Index>:$indices);
  let assemblyFormat = [{
    $value `,` $memref `[` $indices `]` attr-dict `:` type($value) `,`
    type($memref)
  }];
  let hasVerifier = 1;
}

def AttnGPU_BulkReduceAddOp : AttnGPU_Op<"bulk_reduce_add"> {
  let summary = "adds a span of f32 from shared to global memory in bulk";
  let description = [{
    `cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32` (sm_90):
    the copy engine adds `bytes` bytes of f32 from `source` (from its first
    element) to the elements of `memref` from `indices` on, which must be
    contiguous. Both addresses 16-byte aligned, `bytes` a multiple of 16;
    each element is added atomically, in no fixed order. The engine reads
    shared memory asynchronously: the threads' writes to `source` must be
    fenced (`attngpu.fence_proxy_async`) and joined by a barrier first, and
    `source` not written again before `nvvm.cp.async.bulk.wait_group` with
    `read` has seen the operation's group (`nvvm.cp.async.bulk.commit.group`)
    read it. One operation replaces thousands of `red_add`s per tile.

    ```mlir
    attngpu.bulk_reduce_add %staged, %acc[%b, %h, %row, %c0], %bytes
        : memref<8192xf32, #gpu.address_space<workgroup>>,
          memref<?x8x?x128xf32, strided<[?, ?, ?, ?], offset: ?>>
    ```
  }];
  let arguments = (ins MemRefRankOf<[F32], [1]>:$source,
                       MemRefOf<[F32]>:$memref, Variadic<Index>:$indices,
                       I32:$bytes);
  let assemblyFormat = [{
    $source `,` $memref `[` $indices `]` `,` $bytes attr-dict `:`
    type($source) `,` type($memref)
  }];
  let hasVerifier = 1;
}

#endif // ATTNC_DIALECTS_ATTNGPU_ATTNGPUOPS_TD
