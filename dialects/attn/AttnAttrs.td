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

def Attn_TilesAttr : AttrDef<Attn_Dialect, "Tiles"> {
  let mnemonic = "tiles";
  let summary = "tile sizes of an attention kernel";
  let description = [{
    `block_m` query rows form one block of the grid; the key loop advances
    `block_n` keys per tile. Code generation picks them with a heuristic when
    the attribute is absent (`attn-select-tiles`); tests pin them.

    ```mlir
    {tiles = #attn.tiles<block_m = 64, block_n = 32>}
    ```
  }];
  let parameters = (ins "int64_t":$block_m, "int64_t":$block_n);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // ATTNC_DIALECTS_ATTN_ATTNATTRS_TD
