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

def Attn_FeatureMapElu1 : I32EnumCase<"Elu1", 0, "elu1">;
def Attn_FeatureMapRelu : I32EnumCase<"Relu", 1, "relu">;
def Attn_FeatureMapFavor : I32EnumCase<"Favor", 2, "favor">;

def Attn_FeatureMapKind : I32Enum<"FeatureMapKind",
    "kernel feature map of linear attention",
    [Attn_FeatureMapElu1, Attn_FeatureMapRelu, Attn_FeatureMapFavor]> {
  let cppNamespace = "::mlir::attn";
}

def Attn_FeatureMapKindAttr
    : EnumAttr<Attn_Dialect, Attn_FeatureMapKind, "feature_map"> {
  let summary = "feature map phi of linear attention: elu1, relu or favor";
  // Printed bare in the op (`attn.linear_attention elu1 ...`).
  let assemblyFormat = "`` $value";
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
