//===- AttnRTOps.td - attnrt program dialect ---------------*- tablegen -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_DIALECTS_ATTNRT_ATTNRTOPS_TD
#define ATTNC_DIALECTS_ATTNRT_ATTNRTOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def AttnRT_Dialect : Dialect {
  let name = "attnrt";
  let cppNamespace = "::mlir::attnrt";
  let summary = "Programs the attnc runtime executes";
  let description = [{
    A compiled function is a program: a `func.func` over buffers (its inputs,
    then its outputs, as memrefs) whose body allocates intermediate buffers,
    launches kernels on them in order and frees them. The package writer
    serializes it into the manifest and the runtime interprets it; nothing
    in it is compiled to machine code.

    A program function carries `attnrt.num_inputs` (how many of its
    arguments are inputs); each argument carries `attnrt.name` and
    `attnrt.shape`, its symbolic shape: an array of static extents and
    symbol names, which the caller's tensors bind at run time. The dialect
    verifies these attributes wherever they appear.
  }];
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
}

class AttnRT_Op<string mnemonic, list<Trait> traits = []>
    : Op<AttnRT_Dialect, mnemonic, traits>;

def AttnRT_AllocOp : AttnRT_Op<"alloc"> {
  let summary = "an intermediate buffer of a program";
  let description = [{
    A dense row-major buffer with symbolic shape `shape` (static extents and
    symbol names, one per dim; `dynamic_sizes` give the dynamic dims as
    values). `slot` is set by buffer planning: buffers of one slot are
    never live at the same time and share memory.

    ```mlir
    %t0 = attnrt.alloc(%b, %n) {name = "t0", shape = ["B", 16, "Nq", 64],
                                slot = 0 : i64} : memref<?x16x?x64xbf16>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamic_sizes, StrAttr:$name,
                       ArrayAttr:$shape, OptionalAttr<I64Attr>:$slot);
  let results = (outs Res<AnyMemRef, "", [MemAlloc]>:$buffer);
  let assemblyFormat = [{
    `(` $dynamic_sizes `)` attr-dict `:` type($buffer)
  }];
  let hasVerifier = 1;
}

def AttnRT_DeallocOp : AttnRT_Op<"dealloc"> {
  let summary = "the end of an intermediate buffer's life";
  let arguments = (ins Arg<AnyMemRef, "", [MemFree]>:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
}

def AttnRT_ViewOp : AttnRT_Op<"view", [Pure]> {
  let summary = "rows of a program value, in place";
  let description = [{
    The rows [`begin`, `begin` + rows) of the first dim of `source` (an
    argument or buffer of the program), where rows is the result's static
    first extent; its other dims are `source`'s. A launch that reads the
    view reads those rows; one that writes it writes them. `shape` is the
    view's symbolic shape and `name` its name in the package, where it is a
    `pkg::View`. A view of a rank-1 source may have any static shape: the
    elements [`begin`, `begin` + its element count) of `source`, row-major
    (a flat parameter buffer seen as each parameter's tensor).

    With `heads` = H the view is all of a rank-3 `source` `[B, N, H * D]`
    seen as `[B, H, N, D]` (`begin` is 0): element `[b, h, n, d]` is the
    source's `[b, n, h * D + d]`, so a projection's output is attention's
    operand, and attention's output the next projection's, without a copy
    (`attn.split_heads` and `attn.merge_heads` without rotary tables).

    ```mlir
    %v0 = attnrt.view %e[8192] {name = "v0", shape = [8192, 768]}
        : memref<50304x768xbf16> to memref<8192x768xbf16, strided<[768, 1], offset: ?>>
    %v1 = attnrt.view %q[0] {heads = 12 : i64, name = "v1",
                             shape = ["B", 12, "N", 64]}
        : memref<?x?x768xbf16> to memref<?x12x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>
    ```
  }];
  let arguments = (ins AnyMemRef:$source, I64Attr:$begin, StrAttr:$name,
                       ArrayAttr:$shape, OptionalAttr<I64Attr>:$heads);
  let results = (outs AnyMemRef:$view);
  let assemblyFormat = [{
    $source `[` $begin `]` attr-dict `:` type($source) `to` type($view)
  }];
  let hasVerifier = 1;
}

def AttnRT_LaunchOp : AttnRT_Op<"launch",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>,
     AttrSizedOperandSegments]> {
  let summary = "runs a kernel over a grid of blocks on buffers";
  let description = [{
    Launches `kernel` (a symbol in the module's kernel module) with `args`
    as its arguments, in order, after every earlier step of the program
    has finished. `grid` gives the blocks along x, y and z (one to three
    extents); the target lowering that maps the kernel onto blocks sets it,
    computed from the program's values.

    ```mlir
    attnrt.launch @attnc_kernels::@f_attention0 grid(%x, %c16, %b)
        (%q, %k, %v, %t0) : memref<...>, memref<...>, memref<...>, memref<...>
    ```

    With `library`, the step is a library routine the runtime runs
    (`"cublaslt_matmul"`, see `pkg::Kernel`) instead of code: `kernel` is
    only the step's name then, and there is no grid.

    With `concurrent`, the launch may run at the same time as the launch
    before it (the runtime puts it on a second stream and joins the two
    before the next step): `attn-overlap-steps` sets it where neither
    writes what the other reads or writes, and buffers the two use are
    live at the same time. A launch runs beside one other at most.

    `step` names the step in the package where that is not `kernel`'s
    name: `attn-merge-identical-kernels` points launches of identical
    kernels at one of them, and each keeps the name of the kernel it had,
    so that every target's package names the same steps.
  }];
  let arguments = (ins SymbolRefAttr:$kernel, Variadic<Index>:$grid,
                       Arg<Variadic<AnyMemRef>, "", [MemRead, MemWrite]>:$args,
                       OptionalAttr<StrAttr>:$library,
                       UnitAttr:$concurrent,
                       OptionalAttr<StrAttr>:$step);
  let assemblyFormat = [{
    $kernel (`grid` `(` $grid^ `)`)? `(` $args `)` attr-dict
    (`:` type($args)^)?
  }];
  let hasVerifier = 1;
}

#endif // ATTNC_DIALECTS_ATTNRT_ATTNRTOPS_TD
