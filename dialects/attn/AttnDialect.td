//===- AttnDialect.td - The attn dialect and its op base ---*- tablegen -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_DIALECTS_ATTN_ATTNDIALECT_TD
#define ATTNC_DIALECTS_ATTN_ATTNDIALECT_TD

include "mlir/IR/OpBase.td"

def Attn_Dialect : Dialect {
  let name = "attn";
  let cppNamespace = "::mlir::attn";
  let summary = "Attention and transformer building blocks";
  let description = [{
    The `attn` dialect describes transformer blocks at the level a user thinks
    of them: softmax attention with FlexAttention-style mask and score
    regions, linear attention with a fused feature map, and casts with
    scaling. attnc lowers each op into one tiled, fused kernel.

    Tensors use the `[batch, heads, sequence, head_dim]` layout. Batch and
    sequence dims may be dynamic; head counts and head dims are static.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 0;
}

class Attn_Op<string mnemonic, list<Trait> traits = []>
    : Op<Attn_Dialect, mnemonic, traits>;

#endif // ATTNC_DIALECTS_ATTN_ATTNDIALECT_TD
