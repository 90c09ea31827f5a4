//===- AttnAttrs.td - attn enums and attributes ------------*- tablegen -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_DIALECTS_ATTN_ATTNATTRS_TD
#define ATTNC_DIALECTS_ATTN_ATTNATTRS_TD

include "dialects/attn/AttnDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Attn_FeatureMapElu1 : I32EnumAttrCase<"Elu1", 0, "elu1">;
def Attn_FeatureMapRelu : I32EnumAttrCase<"Relu", 1, "relu">;
def Attn_FeatureMapFavor : I32EnumAttrCase<"Favor", 2, "favor">;

// An integer-backed enum attribute: the op prints it bare
// (`attn.linear_attention elu1 ...`) and the generic form as an i32.
def Attn_FeatureMapKindAttr : I32EnumAttr<"FeatureMapKind",
    "kernel feature map of linear attention: elu1, relu or favor",
    [Attn_FeatureMapElu1, Attn_FeatureMapRelu, Attn_FeatureMapFavor]> {
  let cppNamespace = "::mlir::attn";
}

def Attn_MmaNone : I32EnumAttrCase<"None", 0, "none">;
def Attn_MmaSync : I32EnumAttrCase<"Sync", 1, "mma_sync">;
def Attn_MmaWarpgroup : I32EnumAttrCase<"Warpgroup", 2, "wgmma">;

def Attn_MmaKind : I32EnumAttr<"MmaKind",
    "tensor-core instructions of a GPU attention kernel: none, mma_sync or wgmma",
    [Attn_MmaNone, Attn_MmaSync, Attn_MmaWarpgroup]> {
  let cppNamespace = "::mlir::attn";
  let genSpecializedAttr = 0;
}

// An optional flag that prints and parses as `true` or `false` (a parser of
// its own: GCC warns inside MLIR's generic one for std::optional<bool>).
def Attn_OptionalFlag : OptionalParameter<"std::optional<bool>"> {
  let printer = [{ $_printer << (*$_self ? "true" : "false") }];
  let parser = [{ [&]() -> ::mlir::FailureOr<std::optional<bool>> {
    ::llvm::SMLoc at = $_parser.getCurrentLocation();
    ::llvm::StringRef word;
    if (::mlir::failed($_parser.parseOptionalKeyword(&word)) ||
        (word != "true" && word != "false"))
      return $_parser.emitError(at, "expected true or false");
    return std::optional<bool>(word == "true");
  }() }];
}

def Attn_TilesAttr : AttrDef<Attn_Dialect, "Tiles"> {
  let mnemonic = "tiles";
  let summary = "tile sizes and tensor-core kind of an attention kernel";
  let description = [{
    `block_m` query rows form one block of the grid; the key loop advances
    `block_n` keys per tile. On a GPU target, `mma` says which tensor-core
    instructions the kernel is built on: `none` (a scalar kernel, one thread
    per query row), `mma_sync` (a warp per 16 query rows, mma.sync m16n8k16)
    or `wgmma` (warpgroups of 64 query rows, wgmma m64nNk16; sm_90a); host
    kernels leave it out. `pack_group = true` (tensor cores, query length 1)
    makes a block's rows the query heads of one key/value group instead of
    query rows of one head, so the group reads its keys and values once
    (decoding with grouped-query attention). `producer = true` (wgmma;
    attention and its gradient kernels, which need `tma` with it) adds a
    producer warpgroup that copies the tiles while the consumer warpgroups
    only compute, `setmaxnreg` moving the producer's registers to them
    (FlashAttention-3's warp specialization); with `tma = true` it copies
    them by TMA, one instruction per box, from tensor maps the runtime
    makes at each launch (where a tensor's layout allows; otherwise as
    without). `ping_pong = true` (wgmma, two or three warpgroups) makes the
    warpgroups issue their products in turn, so that one's softmax runs
    under another's products. The kernel-config step
    (`attn-kernel-config`) chooses what the attribute leaves open for the
    target; tests pin it.

    ```mlir
    {tiles = #attn.tiles<block_m = 64, block_n = 32>}
    {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma>}
    {tiles = #attn.tiles<block_m = 16, block_n = 64, mma = mma_sync, pack_group = true>}
    {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true>}
    {tiles = #attn.tiles<block_m = 128, block_n = 128, mma = wgmma, producer = true, tma = true, ping_pong = true>}
    ```
  }];
  let parameters = (ins "int64_t":$block_m, "int64_t":$block_n,
                        OptionalParameter<"std::optional<MmaKind>">:$mma,
                        Attn_OptionalFlag:$pack_group,
                        Attn_OptionalFlag:$producer,
                        Attn_OptionalFlag:$tma,
                        Attn_OptionalFlag:$ping_pong);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // ATTNC_DIALECTS_ATTN_ATTNATTRS_TD
