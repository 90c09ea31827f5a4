//===- Passes.td - attnc passes ----------------------------*- tablegen -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_PASSES_TD
#define ATTNC_COMPILER_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Autodiff: backward functions from forward functions
//===----------------------------------------------------------------------===//

def AttnDeriveBackward : Pass<"attn-derive-backward", "::mlir::ModuleOp"> {
  let summary = "Derive the backward function of each function marked for it";
  let description = [{
    For every public function `@f` with the unit attribute `attn.backward`
    (or every public function with `all-functions`), emits the public
    function `@f_bwd` by reverse-mode differentiation: it takes `@f`'s
    arguments, then `@f`'s results (the values the forward pass saved), then
    one cotangent per differentiable result (attention's `lse` is saved but
    takes none), and returns the gradient of each argument. The body
    composes the ops' gradient rules (VJPOpInterface) in reverse order; a
    value with several differentiated uses gets the sum of their gradients
    (an `attn.elementwise` add). `@f_bwd` carries `attn.gradient_of = @f`,
    and each cotangent argument `attn.cotangent_of_result` with the index
    of the result it stands for.

    Forward values that the rules need and `@f` does not return are saved
    or recomputed as `remat` says: `none` saves every one, `attention`
    (the default) saves the `out` and `lse` of each attention and the
    `lse` of each `attn.linear_cross_entropy` (a pass over every key or
    class for a row's bytes) and recomputes the rest, `selective` also saves matmul results (what costs
    flops to recompute) and recomputes norms, element-wise code, layout
    copies and losses (what costs only memory traffic), `full` recomputes
    them all. `selective` with `remat-budget` instead saves, of the values
    the gradient rules read, those whose recomputation costs most per byte
    (attention's and the fused loss's results, then matmul results by
    their contraction length,
    then the rest, smallest first) while their bytes at the extents of
    `symbols` fit the budget. A saved value becomes
    a result of `@f` after its own results, and the argument of `@f_bwd`
    that stands for it (it is one of `@f`'s results, with no cotangent).

    Errors, located at the forward op or argument: an op without a gradient
    rule on the path to a result, an argument that no differentiable result
    depends on; an unknown policy, a budget without `selective`, a symbol
    extent that is malformed or missing for a value the budget must size.

    For `@f(q, k, v) -> (out, lse)` whose body is `attn.attention`, `@f_bwd`
    is `(q, k, v, out, lse, dout) -> (dq, dk, dv)` holding one
    `attn.attention_grad`.
  }];
  let options = [
    Option<"allFunctions", "all-functions", "bool", /*default=*/"false",
           "Differentiate every public function, marked or not">,
    Option<"deterministic", "deterministic", "bool", /*default=*/"false",
           "Ask for bitwise-reproducible gradients (attention: dq without "
           "atomics)">,
    Option<"remat", "remat", "std::string", /*default=*/"\"attention\"",
           "Which forward values the backward reads saved rather than "
           "recomputed: none (recompute nothing), attention (attention's "
           "out and lse, a fused loss's lse), selective (those and matmul "
           "results) or full (recompute all)">,
    Option<"rematBudget", "remat-budget", "int64_t", /*default=*/"0",
           "With remat=selective: the bytes the saved values may take at "
           "the extents of `symbols` (0: no budget)">,
    ListOption<"symbols", "symbols", "std::string",
               "Extents of symbolic dims for remat-budget, NAME=EXTENT">,
  ];
  let dependentDialects = ["::mlir::attn::AttnDialect"];
}

def AttnDeriveTrainStep : Pass<"attn-derive-train-step", "::mlir::ModuleOp"> {
  let summary = "Derive the training step of each loss function marked for it";
  let description = [{
    For every function `@f` with the attribute `attn.train` and its
    backward function `@f_bwd` (so `@f` is marked `attn.backward` too),
    emits `@f_step`: one step of training with AdamW. `@f`'s first result
    must be its one differentiable result, a `tensor<f32>` loss; the
    parameters are the arguments of static shape that `@f_bwd` returns
    gradients of (an argument of dynamic shape is data, like a batch).

    The training state is flat: `params` (the f32 master weights), `m`
    and `v` (AdamW's moments) and `grad` (gradient sums) are rank-1 f32
    tensors (marked `attn.flat`) holding every parameter's elements in
    turn, matrices first, as the function's `attn.segments` says (each
    parameter's name, shape and offset). A state of more than
    `max-flat-elements` elements is split into chunks, each parameter
    whole in one: chunk 0 keeps the plain names, chunk c > 0 is `params_c`,
    `m_c`, ..., and each segment names its `chunk`.

    `@f_step` takes `@f`'s data arguments, the flat `params`, `m` and `v`,
    then three `tensor<f32>` scalars: `lr`, `step` (the step's number t
    from 1, for AdamW's bias corrections 1 - beta^t) and `loss_scale`. It
    returns `loss`, `grad_norm` and the updated `new_params`, `new_m`,
    `new_v` (each marked `attn.updates` with the input it may overwrite).
    Its body casts the masters to the parameters' type and views each
    parameter in them, runs `@f`'s and `@f_bwd`'s bodies with `loss_scale`
    as the loss's cotangent, writes the gradients into one flat gradient,
    computes its global norm divided by the loss scale (squares summed
    with `attn.sum_rows`, sums in a fixed order), and updates every
    parameter with torch.optim.AdamW's rule on the unscaled, clipped
    gradient in one element kernel for the matrices (weight decay) and one
    for the rest. A norm that is not finite (an overflow under fp16 loss
    scaling) leaves every parameter and moment as it was, and the caller
    sees it in `grad_norm`.

    It also emits the step in two parts, for gradient accumulation over
    micro-batches: `@f_accumulate` takes `@f`'s data arguments, `params`,
    the f32 gradient sums `grad` and `loss_scale` (the micro-batch loss's
    cotangent) and returns `loss` and the sums with this micro-batch's
    gradients added, `new_grad`; `@f_apply` takes `params`, `m`, `v`,
    `grad`, `lr`, `step` and `loss_scale` and returns `grad_norm` and the
    updated state, as `@f_step` would from those gradients. `@f_eval`
    takes `@f`'s data arguments and `params` and returns `loss`: the step's
    forward part alone (a validation batch's loss at the current weights).

    `attn.train` is a unit attribute or a dictionary of floats: `beta1`
    (0.9), `beta2` (0.999), `epsilon` (1e-8), `weight_decay` (0.01),
    `max_grad_norm` (0: no clipping), torch.optim.AdamW's and
    clip_grad_norm_'s meanings, and `compute = f16` (or `bf16`): the step
    and accumulate functions compute in that type where the model has the
    other 16-bit float type (values, tensors, constants, roundings in
    element bodies), so one model trains in bf16 or f16; `remat = true`:
    the step recomputes the forward values `@f_bwd` recomputes (its ops
    marked `attn.recompute`, what the backward's remat policy does not
    save) instead of keeping the forward part's, which CSE would merge
    them into; `deterministic` (true): the step and accumulate functions'
    attention gradients sum dq in a fixed order, so that runs and resumed
    runs give the same bits on a GPU too (false keeps `@f_bwd`'s choice).
    Errors, located at the function: an unknown or out-of-range entry, a
    compute type other than f16 or bf16, a remat or deterministic that is
    not true or false, no backward function, a loss that is not the one
    differentiable `tensor<f32>` result, no parameter, a
    parameter larger than a chunk, a data argument named as a state input,
    one of the four functions already defined.
  }];
  let options = [
    Option<"maxFlatElements", "max-flat-elements", "int64_t",
           /*default=*/"2147483647",
           "The most elements of one flat state tensor (at most 2^31 - 1, "
           "the largest extent); a larger state is split into chunks">,
  ];
  let dependentDialects = ["::mlir::attn::AttnDialect",
                           "::mlir::math::MathDialect"];
}

def AttnDifferentiateScore : Pass<"attn-differentiate-score", "::mlir::ModuleOp"> {
  let summary = "Derive the score_grad region of attention's gradient ops";
  let description = [{
    Gives every `attn.attention_grad` with a score region and no
    `score_grad` region the derivative of the score region with respect to its score argument,
    by forward-mode differentiation of its arith and math ops (the gradient
    rule column of lib/semantics/RegionOps.def says how each op passes the
    derivative on). A region whose score reaches an op that is piecewise
    constant in it (floor, ceil, float-to-int) is an error located at that
    op: its gradient would be zero almost everywhere.
  }];
}

def AttnNarrowRegionIndices
    : Pass<"attn-narrow-region-indices", "::mlir::func::FuncOp"> {
  let summary = "Compute score regions' index arithmetic in 32 bits";
  let description = [{
    The b, h, q_idx and k_idx arguments of a score or score_grad region
    lie in [0, extent) of the dimension they index, and the runtime
    refuses extents above 2^31 - 1. Integer range analysis seeded with
    those ranges (a static extent gives its own) finds the region's integer
    ops whose operands and results fit 32 bits, and MLIR's narrowing
    patterns compute them in i32; an `index_cast` chain from i32 through
    index to a wider type becomes `arith.extsi`, and `arith.sitofp` of an
    `arith.extsi` converts the narrow integer. Kernels inline these regions
    per score element, where a 64-bit subtraction and conversion cost as
    much as the element's exp2 (ALiBi's `sitofp(q_idx - k_idx)`). Mask
    regions keep index: kernels evaluate them per element only on partial
    tiles, and the tile classifier bounds index and i64 values only.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def AttnContractScoreRegions
    : Pass<"attn-contract-score-regions", "::mlir::func::FuncOp"> {
  let summary = "Let score regions fuse their multiply-adds";
  let description = [{
    Gives the float products and sums (`arith.mulf`, `arith.addf`,
    `arith.subf`) of score and score_grad regions `fastmath<contract>`,
    so that a product and the sum that reads it may
    become one fma, rounded once, as CUDA C++ under nvcc and Triton (so
    FlexAttention's score_mod) compile them by default. Kernels inline
    these regions per score element, where ALiBi's `s - slope * d` is then
    one instruction instead of two. Mask regions keep their arithmetic as
    written: a contracted product could land on the other side of a
    comparison.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

//===----------------------------------------------------------------------===//
// Graph: functions of attn ops -> programs of kernels
//===----------------------------------------------------------------------===//

def AttnFuseElementwise : Pass<"attn-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Turn element-wise tensor code into fused attn.elementwise kernels";
  let description = [{
    Float `arith` and `math` ops on tensors of one shape whose scalar forms
    are rows of the region op table (`lib/semantics/RegionOps.def`) become
    `attn.elementwise` ops, with splat constant operands moved into the
    body. Then every `attn.elementwise` whose result is read only by one
    other `attn.elementwise` is fused into it: one kernel reads the chain's
    inputs once and writes its last result. A fused intermediate of a
    16-bit type is rounded to that type inside the body, so results do not
    change.
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect",
                           "::mlir::arith::ArithDialect"];
}

def AttnFuseActivations
    : Pass<"attn-fuse-activations", "::mlir::func::FuncOp"> {
  let summary = "Fuse activations of a linear layer into its epilogue";
  let description = [{
    An `attn.elementwise` of one input and one result, whose body computes
    GELU's tanh form as `attn.matmul`'s `activation = "gelu_tanh"` defines
    it (the same ops over the same operands, either order for commutative
    ones), reading a linear layer's result that nothing else reads, of its
    own type, becomes that matmul with the activation: cuBLASLt's GELU
    epilogue on a GPU. The product is no longer rounded before the
    activation: one rounding less than before.
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def AttnFuseEpilogues : Pass<"attn-fuse-epilogues", "::mlir::func::FuncOp"> {
  let summary = "Fuse sums that read a matmul into its epilogue as an addend";
  let description = [{
    An `attn.elementwise` that only adds its inputs (each read once, a
    partial sum possibly rounded to the result's type), with an input that
    is an `attn.matmul` read by nothing else, of the result's type, becomes
    that matmul with the rest of the sum as its `addend`: a residual add
    (`h = x + o W^T`) and the sum of the gradients that reach one
    activation (`dx = dq Wq + dk Wk + dv Wv`) cost no kernel of their own.
    The rest of a sum of three or more is a new `attn.elementwise`, which
    the next round fuses into another matmul where it can. The product is
    no longer rounded before it is added: one rounding less than before.
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect"];
}

def AttnFuseCasts : Pass<"attn-fuse-casts", "::mlir::func::FuncOp"> {
  let summary = "Fold unscaled casts into the f32-computing kernels next to them";
  let description = [{
    Ops of `F32ComputeOpInterface` (the norms, their gradients,
    `attn.elementwise`) read operands widened to f32 and round results once
    from f32, whatever the element types. An `attn.cast` without a scale
    whose input is such an op's f32 result, read by nothing else, becomes
    that result rounded straight to the cast's type (norm + cast is one
    kernel); a widening cast (to f32) lets its readers that read that
    operand in f32 take its input instead. Both change no bit: a cast of a
    16-bit result or with a scale stays.
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect"];
}

def AttnExpandAttentionGrad
    : Pass<"attn-expand-attention-grad", "::mlir::func::FuncOp"> {
  let summary = "Turn attn.attention_grad into its kernels";
  let description = [{
    Rewrites each `attn.attention_grad` into the kernel ops of the
    FlashAttention-2 backward: `attn.attention_grad_delta` (D = rowsum(dout
    * out), and a zeroed f32 dq accumulator), then `attn.attention_grad_kv`
    (dk and dv per key block, recomputing P from lse). dq comes either from
    atomic f32 accumulation inside the key/value kernel followed by an
    `attn.cast` to q's type, or from `attn.attention_grad_q`, a kernel per
    query block that sums dq without atomics (bitwise reproducible). Ops
    marked `deterministic` take the second; so do f16/bf16 ops with head
    dims of 128 and more on a GPU target, where it is the faster program
    (the key/value kernel's dq reductions cost more than the query
    kernel's extra products; measured on the H200, bench/NOTES.md).
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "Code generation target (host or sm_90a), which decides the "
           "faster dq program">,
  ];
  let dependentDialects = ["::mlir::attn::AttnDialect"];
}

def AttnFuseLinearLoss : Pass<"attn-fuse-linear-loss", "::mlir::func::FuncOp"> {
  let summary = "Fuse an LM head's matmul into the cross-entropy of its logits";
  let description = [{
    Rewrites `attn.cross_entropy` of the logits of a plain LM head
    (`attn.matmul %h, %e {transpose_b}` with a static table, no bias,
    addend or activation, the logits in h's element type), when nothing
    else reads the logits, into `attn.linear_cross_entropy`. It runs before
    autodiff, so the gradient is the fused op's too, and
    `attn-expand-linear-loss` computes both a vocabulary chunk at a time.
  }];
  let dependentDialects = ["::mlir::attn::AttnDialect"];
}

def AttnExpandLinearLoss
    : Pass<"attn-expand-linear-loss", "::mlir::func::FuncOp"> {
  let summary = "Compute the fused LM-head loss a vocabulary chunk at a time";
  let description = [{
    Rewrites `attn.linear_cross_entropy` into, per chunk of `vocab-chunk`
    table rows, a GEMM of the chunk's logits and `attn.cross_entropy_partial`
    (the chunk's lse and label logit), then `attn.cross_entropy_combine`;
    and `attn.linear_cross_entropy_grad` into, per chunk, the logits again,
    `attn.cross_entropy_grad` of them, `dh += dlogits e_c` in f32 and
    `de_c = dlogits^T h`, the chunks' rows concatenated. Chunks are row
    slices of the table, which program formation makes views, so a
    function holds one chunk of logits at a time. A gradient in the same
    block as its forward (a training step) reads the forward's chunks
    instead of computing them again: one GEMM fewer a chunk, for every
    chunk alive until the gradient.
  }];
  let options = [
    Option<"vocabChunk", "vocab-chunk", "int64_t", /*default=*/"8192",
           "Table rows (classes) per chunk">,
  ];
  let dependentDialects = ["::mlir::attn::AttnDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AttnSplitKeys : Pass<"attn-split-keys", "::mlir::func::FuncOp"> {
  let summary = "Split the keys of attention on few query rows (decoding)";
  let description = [{
    Rewrites `attn.attention` into `attn.attention_split`, which attends S
    ranges of keys in separate blocks, and `attn.attention_combine`, which
    merges them by their lse (flash-decoding). A block per (query block,
    head, batch) leaves a GPU idle when there are few query rows; ranges
    give it S times the blocks. With `key-ranges=0` the pass chooses: on a
    GPU target with tensor cores, f16/bf16 attention with a static query
    length of at most 64 gets 32 ranges, 16 where the wgmma kernel holds a
    key/value group's heads (fewer when a static key length gives a range
    under 256 keys); everything else stays whole. `key-ranges=N` asks for
    N ranges for every attention op (1: none).
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "Code generation target (host or sm_90a), which decides when "
           "splitting pays">,
    Option<"tensorCores", "tensor-cores", "std::string",
           /*default=*/"\"auto\"",
           "sm_90a tensor-core kernel, as attn-kernel-config's option: auto "
           "or mma-sync (whose decoding kernel wants more ranges)">,
    Option<"keyRanges", "key-ranges", "int64_t", /*default=*/"0",
           "Key ranges per attention op: 0 chooses per op, 1 never splits">,
  ];
  let dependentDialects = ["::mlir::attn::AttnDialect"];
}

def AttnFormPrograms : Pass<"attn-form-programs", "::mlir::ModuleOp"> {
  let summary = "Turn each public function into a program of kernels";
  let description = [{
    Every public function of attn ops becomes a program (see the attnrt
    dialect): a function over buffers, its inputs then its outputs, that
    allocates a buffer for each intermediate value, launches one kernel per
    op in order and frees each buffer after its last use. Each op is
    outlined into a kernel function in the module `@attnc_kernels`, in
    destination-passing style: its operands are read from argument buffers
    (`bufferization.to_tensor`) and each result that is kept is written into
    one (`bufferization.materialize_in_destination`). A result returned
    directly is written into the caller's output; a function argument
    returned as it is, or a value returned twice, is copied by a kernel of
    its own.

    Dynamic dims become symbols: dims the ops force equal (KernelOpInterface)
    share one, named after its role ("B", "Nq", "Nk"; "N" where query and
    key lengths are one dim). Every dynamic dim of an intermediate value
    must be a dim of some argument or result.
  }];
  let dependentDialects = [
    "::mlir::attnrt::AttnRTDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def AttnOverlapSteps : Pass<"attn-overlap-steps", "::mlir::ModuleOp"> {
  let summary = "Let independent neighbouring launches run at the same time";
  let description = [{
    Marks an `attnrt.launch` of a program `concurrent` where neither it nor
    the launch before it writes rows of a value that the other reads or
    writes (a kernel writes the arguments its kernel function materializes
    results into; a view covers its rows of its buffer), and the launch
    before it is not itself concurrent: the runtime then runs the two on
    two streams. The last kernel waves of one fill with the other's blocks
    (the key/value and query kernels of attention's gradient, a weight's
    gradient beside its input's). Only where no buffer is freed between the
    two: every buffer live at the first is then live at the second anyway,
    so the pair costs no memory and `attn-plan-buffers` gives nothing
    either uses to a buffer the other writes. Runs before
    `attn-plan-buffers` and `attn-library-calls`, while every kernel
    function is still there.
  }];
}

def AttnPlanBuffers : Pass<"attn-plan-buffers", "::mlir::func::FuncOp"> {
  let summary = "Share memory between buffers whose lifetimes do not overlap";
  let description = [{
    Gives every `attnrt.alloc` of a program a `slot`: a buffer reuses the
    slot of one that was freed before it was allocated, so the runtime
    sizes a slot as its largest buffer. Among the free slots a buffer takes
    the tightest that holds it, else the one it grows least (sizes compared
    as products of the same symbols), else the lowest.
  }];
}

//===----------------------------------------------------------------------===//
// Codegen: kernel configuration and the target lowerings
//===----------------------------------------------------------------------===//

def AttnKernelConfig : Pass<"attn-kernel-config", "::mlir::func::FuncOp"> {
  let summary = "Choose the tiles and tensor cores of every kernel op";
  let description = [{
    Completes the configuration of each kernel op for the target: an
    `attn.attention` gets `tiles = #attn.tiles<block_m, block_n[, mma]>`
    (whatever the attribute pins is kept; on a GPU target `mma` says which
    tensor-core kernel, `none` for the scalar one), an `attn.cast` gets its
    `block_size`; the gradient kernels get tiles (`attention_grad_kv`,
    `attention_grad_q`, scalar kernels only for now) or `block_size`
    (`attention_grad_delta`, rows per block). The choices come from the target description
    (compiler/Codegen/Config/TargetDescription.h).
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "Code generation target: host or sm_90a">,
    Option<"tensorCores", "tensor-cores", "std::string",
           /*default=*/"\"auto\"",
           "sm_90a tensor-core kernel: auto (wgmma where it applies, else "
           "mma.sync) or mma-sync (mma.sync everywhere it applies)">,
    ListOption<"kernelSchedule", "kernel-schedule", "std::string",
               "Options of the wgmma kernels for every kernel they apply "
               "to (tiles pinned by the op are kept): ping-pong (the "
               "warpgroups of a forward or gradient kernel taking turns on "
               "the tensor cores; by default only causal forward kernels "
               "up to head dim 128 do)">,
  ];
}

def AttnMergeIdenticalKernels
    : Pass<"attn-merge-identical-kernels", "::mlir::ModuleOp"> {
  let summary = "Launch one kernel function where several are the same";
  let description = [{
    Kernel functions of the kernel module that are identical but for their
    names (the same op, types and configuration: the layers of a model,
    and a step that repeats its forward and backward functions) become the
    first of them: every launch of another points at it, keeping its own
    step name (`step`), and the others go. The target lowerings then
    compile each distinct kernel once. Runs after `attn-kernel-config`, whose
    choices make kernels differ.
  }];
}

def ConvertAttnToHost : Pass<"convert-attn-to-host", "::mlir::ModuleOp"> {
  let summary = "Lower the kernel ops of kernel functions into host loops";
  let description = [{
    Rewrites each kernel op (in destination-passing form, see
    attn-form-programs) into an `scf.forall` over its grid of blocks whose
    body computes one block on the host, writing the result buffers.
    attention: the grid `(ceil(Nq / block_m), Hq, B)`; each block stages its
    query rows in f32, loops over key tiles carrying the accumulator,
    running max and running sum in f32, classifies every tile from the mask
    (empty tiles are skipped, full tiles pay no mask math) and inlines the
    mask and score regions per element. cast, elementwise and the head
    layouts: blocks of `block_size` elements, in vector chunks of 8 while
    the buffers are 16-byte aligned. The gradient kernels (Codegen/Common/GradBlock.h): delta per
    block of rows; key/value blocks `(ceil(Nk / block_n), Hkv, B)` over the
    query tiles of their group's heads, recomputing P from lse, dq added
    atomically; query blocks `(ceil(Nq / block_m), Hq, B)` for the
    deterministic dq. Needs attn-kernel-config first.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def AttnHostBlockRanges : Pass<"attn-host-block-ranges", "::mlir::ModuleOp"> {
  let summary = "Give host kernels the block-range form the runtime calls";
  let description = [{
    Every kernel function of `@attnc_kernels` holds one `scf.forall` over
    its grid (anything else is an error). It takes two more arguments, the
    linear block range `[block_begin, block_end)`, and runs those blocks in
    a loop (x fastest). Static-size allocations of a block's body that the
    body also frees move out of the loop: one per call, not one per block.
    The grid moves to the program: every `attnrt.launch` of the kernel gets
    it, computed from its own buffers. Beside the kernel, the constant
    `<kernel>_entry_grid` records the grid as the code computes it from its
    arguments, for the runtime to check the manifest's grid against.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def ConvertAttnToGPU : Pass<"convert-attn-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower the kernel ops of kernel functions into GPU launches";
  let description = [{
    Rewrites each kernel op (in destination-passing form) into a
    `gpu.launch` over its grid whose body computes one block with the
    block's threads, as its tiles say: attention with `mma = wgmma` gets
    the warpgroup tensor-core kernel (wgmma from 128-byte swizzled shared
    tiles, an mbarrier pipeline), `mma_sync` the warp tensor-core kernel
    (mma.sync through ldmatrix), `none` the scalar kernel (one thread per
    query row over f32 tiles in shared memory); cast, elementwise and the
    head layouts a grid of 256-thread blocks, each thread a vector chunk of
    8 elements when its block is whole and the buffers 16-byte aligned. The kernels are built from attngpu ops and shared pieces.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "NVIDIA chip whose limits the kernels are built within">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::attngpu::AttnGPUDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def AttnLibraryCalls : Pass<"attn-library-calls", "::mlir::ModuleOp"> {
  let summary = "Turn kernels given to a library into library steps";
  let description = [{
    For each kernel function whose kernel op the kernel-config step gave to
    a library (`attn.matmul` with `library = "cublaslt"`), marks every
    `attnrt.launch` of it with the routine the runtime runs
    (`library = "cublaslt_matmul"`, see `pkg::Kernel`) and erases the
    function: the step has no code of the package.
  }];
}

def AttnOutlineGPUKernels : Pass<"attn-outline-gpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Move the GPU launches of kernel functions into a gpu.module";
  let description = [{
    Replaces the module `@attnc_kernels` by a `gpu.module` of the same name
    targeting `chip`, with one `gpu.func` kernel per kernel function: the
    body of its `gpu.launch`, the function's buffers as arguments, block
    size as `known_block_size` and the dynamic shared memory as
    `attngpu.dynamic_shared_memory_bytes`. The grid moves to the program:
    every `attnrt.launch` of the kernel gets it, computed from its own
    buffers. Beside each kernel, the constant `<kernel>_grid` in global
    memory records the grid as the code computes it from its arguments, for
    the runtime to check the manifest's grid against.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "NVIDIA chip the gpu.module targets">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def AttnGPULowerSharedTiles : Pass<"attngpu-lower-shared-tiles", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lay out shared-memory tiles: padding and the 128-byte swizzle";
  let description = [{
    Replaces each `attngpu.shared_tile` by a view of its bytes in its
    physical layout and rewrites every access to it: padded tiles become a
    strided view; a 128-byte swizzled tile becomes `cols / 64` panels of
    `rows x 64` elements, and each access's logical (row, col) becomes
    (panel * rows + row, ((col % 64) / 8 xor row % 8) * 8 + col % 8).
    Accesses are memref.load/store, nvgpu.device_async_copy (destination),
    nvgpu.ldmatrix, attngpu.wgmma.descriptor and attngpu.tma.load (which
    read the tile's address); anything else using a swizzled tile is an
    error.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ConvertAttnGPUToNVVM : Pass<"convert-attngpu-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower attngpu ops to NVVM ops and inline PTX";
  let description = [{
    One rewrite pattern per attngpu op, under a conversion target where the
    dialect is illegal; `!attngpu.mbarrier` becomes a shared-memory pointer.
    A fence followed by products, commits and a wait is issued as one inline
    asm statement, so LLVM never schedules code that defines a wgmma input
    between the fence and the commit (ptxas would serialize the group,
    C7513). This pass is the only place in attnc that writes PTX text.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def AttnTensorMapParams
    : Pass<"attn-tensor-map-params", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Pass lowered GPU kernels' tensor maps as grid constants";
  let description = [{
    A kernel that `attn-outline-gpu-kernels` gave tensor-map parameters
    (`attngpu.tensor_maps`) takes each as a pointer after its memrefs. Once
    the kernel is an `llvm.func`, this pass makes those parameters what the
    runtime passes: 128 bytes by value, 64-byte aligned, and grid constants
    (`nvvm.grid_constant`), so that the pointer is the parameter's own
    address, which TMA reads the map from.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def AttnAlignDynamicSharedMemory
    : Pass<"attn-align-dynamic-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Align the dynamic shared memory of lowered GPU kernels";
  let description = [{
    `convert-gpu-to-nvvm` gives `gpu.dynamic_shared_memory` an internal,
    zero-length, 16-byte aligned `__dynamic_shmem__*` global. The warpgroup
    MMA kernels address their tiles in 128-byte swizzled panels whose
    pattern repeats every 1024 bytes, so the panels, and hence the base, must
    be 1024-byte aligned. This pass makes every such global external (the
    dynamic shared memory itself, not a local variable) with `alignment`.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"1024",
           "Byte alignment of the dynamic shared memory base">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AttnHostEntryPoints : Pass<"attn-host-entry-points", "::mlir::ModuleOp"> {
  let summary = "Give every host kernel the packed entry point the runtime calls";
  let description = [{
    For each LLVM function `F` carrying the `attnrt.kernel` attribute (and
    its C interface `_mlir_ciface_F`), adds
    `void F_entry(void **args, int64_t blockBegin, int64_t blockEnd)` where
    `args[i]` points to the memref descriptor of argument `i`: the host ABI
    of `lib/include/attnc/package/Package.h`, one signature for every kernel.
    Beside it, the constant `F_entry_arg_ranks` = {n, rank of each
    argument}, which the runtime checks every step against before it calls
    the entry, so that a manifest edited to pass other arguments is refused
    instead of reading past a descriptor.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // ATTNC_COMPILER_PASSES_TD
