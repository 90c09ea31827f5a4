//===- AttnInterfaces.td - attn op interfaces --------------*- tablegen -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Where later work plugs in: program formation and code generation ask ops
// through KernelOpInterface; autodiff asks them through VJPOpInterface;
// epilogue fusion through EpilogueAddendOpInterface; cast fusion through
// F32ComputeOpInterface.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_DIALECTS_ATTN_ATTNINTERFACES_TD
#define ATTNC_DIALECTS_ATTN_ATTNINTERFACES_TD

include "mlir/IR/OpBase.td"

def Attn_KernelOpInterface : OpInterface<"KernelOpInterface"> {
  let cppNamespace = "::mlir::attn";
  let description = [{
    An op that code generation turns into one kernel of a program: program
    formation outlines each such op into a kernel function, allocates
    buffers for its results and launches it; a kernel-config step gives it
    its tiles; the target lowerings turn it into a grid of blocks.

    Dims are identified by value (operands first, then results) and dim
    index. Dims with the same class number must have the same extent; the
    class may have a role name ("B", "Nq") that the package uses for its
    symbol when the dim is dynamic.
  }];
  let methods = [
    InterfaceMethod<
      "The kind of kernel, for kernel names (\"attention\", \"cast\").",
      "::llvm::StringRef", "getKernelKind">,
    InterfaceMethod<
      "Role names of the operands, then of the results (\"q\", \"out\"): "
      "the names a program gives the values it takes or returns.",
      "::llvm::SmallVector<::llvm::StringRef>", "getValueRoles">,
    InterfaceMethod<
      "Per value (operands, then results) and dim, the class of dims it "
      "must equal, or -1 for none.",
      "::llvm::SmallVector<::llvm::SmallVector<int64_t>>", "getDimClasses">,
    InterfaceMethod<
      "The role name of dim class `dimClass`, or empty.",
      "::llvm::StringRef", "getDimClassName", (ins "int64_t":$dimClass)>,
    InterfaceMethod<
      "Whether the kernel-config step has chosen the op's tiles.",
      "bool", "hasKernelConfig">,
    InterfaceMethod<
      [{The operand whose buffer result `resultIndex` updates in place, if
        any: program formation gives the result that operand's buffer (the
        operand must be an intermediate value that nothing reads later).}],
      "::std::optional<unsigned>", "getTiedOperand",
      (ins "unsigned":$resultIndex), [{}],
      [{ return ::std::nullopt; }]>,
    InterfaceMethod<
      [{Operands whose buffer result `resultIndex` may take over when
        nothing reads the operand after the op: the kernel reads each
        element of such an operand only before it writes the same element
        of the result. Program formation uses this to save memory; no
        result depends on it.}],
      "::llvm::SmallVector<unsigned>", "getReusableOperands",
      (ins "unsigned":$resultIndex), [{}],
      [{ return {}; }]>,
  ];
}

def Attn_AttentionScoringOpInterface
    : OpInterface<"AttentionScoringOpInterface"> {
  let cppNamespace = "::mlir::attn";
  let description = [{
    An op that scores (query, key) pairs as `attn.attention` does: q
    `[B, Hq, Nq, D]` against k `[B, Hkv, Nk, D]` (v `[B, Hkv, Nk, Dv]`),
    scaled, passed through the score region and restricted by the mask
    shorthands and region. The forward op and its gradient ops share these
    semantics, so the kernel pieces (score model, tile classifier, masks)
    take this interface.
  }];
  let methods = [
    InterfaceMethod<"The query tensor.",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getQ">,
    InterfaceMethod<"The key tensor.",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getK">,
    InterfaceMethod<"The value tensor.",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getV">,
    InterfaceMethod<"Whether key j is allowed only for j <= i.", "bool",
      "getCausal">,
    InterfaceMethod<"Whether causal and windows align with the last key "
      "(row i's diagonal is key i + Nk - Nq) rather than the first.", "bool",
      "getBottomRight">,
    InterfaceMethod<"The left window bound, if any.",
      "::std::optional<uint64_t>", "getWindowLeft">,
    InterfaceMethod<"The right window bound, if any.",
      "::std::optional<uint64_t>", "getWindowRight">,
    InterfaceMethod<"The tensors the mask and score regions read (their "
      "arguments after the indices).", "::mlir::OperandRange", "getCaptures">,
    InterfaceMethod<"The mask region (empty when absent).", "::mlir::Region &",
      "getMask">,
    InterfaceMethod<"The score region (empty when absent).",
      "::mlir::Region &", "getScore">,
    InterfaceMethod<"The regions that compute scores or their derivatives "
      "(score, and score_grad where the op has one): every region but the "
      "mask, which compiles as written.",
      "::llvm::SmallVector<::mlir::Region *>", "getScoreRegions", (ins), [{}],
      [{
        ::llvm::SmallVector<::mlir::Region *> regions;
        for (::mlir::Region &region : $_op->getRegions())
          if (&region != &$_op.getMask())
            regions.push_back(&region);
        return regions;
      }]>,
    InterfaceMethod<"The kernel tiles, once chosen.",
      "::std::optional<::mlir::attn::TilesAttr>", "getTiles">,
    InterfaceMethod<"The softmax scale: the `scale` attribute, or 1/sqrt(D).",
      "float", "getEffectiveScale", (ins), [{}], [{
        if (::mlir::FloatAttr scale = $_op.getScaleAttr())
          return scale.getValue().convertToFloat();
        int64_t headDim = $_op.getQ().getType().getDimSize(3);
        return 1.0f / std::sqrt(static_cast<float>(headDim));
      }]>,
    InterfaceMethod<"The number of ranges the keys are split into, each "
      "attended by its own blocks (attn.attention_split); 1 otherwise.",
      "int64_t", "getKeySplits", (ins), [{}], [{ return 1; }]>,
    InterfaceMethod<"The number of query heads that share one k/v head.",
      "int64_t", "getGroupSize", (ins), [{}], [{
        return $_op.getQ().getType().getDimSize(1) /
               $_op.getK().getType().getDimSize(1);
      }]>,
  ];
}

def Attn_EpilogueAddendOpInterface
    : OpInterface<"EpilogueAddendOpInterface"> {
  let cppNamespace = "::mlir::attn";
  let description = [{
    A kernel op that can add a tensor to one of its results before rounding
    it (an addend in its epilogue), so that a sum which reads that result
    needs no kernel of its own: attn-fuse-epilogues moves such sums in.
    The addend's gradient is the target result's cotangent.
  }];
  let methods = [
    InterfaceMethod<"The result an addend is added to.",
      "::mlir::Value", "getAddendTarget">,
    InterfaceMethod<"The addend, or null when the op has none.",
      "::mlir::Value", "getEpilogueAddend">,
    InterfaceMethod<
      [{This op with `addend` (of the target's type) added to its target
        result, built at `builder`'s insertion point; its results are this
        op's, in order.}],
      "::mlir::Operation *", "cloneWithAddend",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Value":$addend)>,
  ];
}

def Attn_F32ComputeOpInterface : OpInterface<"F32ComputeOpInterface"> {
  let cppNamespace = "::mlir::attn";
  let description = [{
    A kernel op that computes in f32 whatever its tensors' element types:
    some operands are read widened to f32, some results rounded once from
    f32, and each of those may have f32, f16 or bf16 elements. So an
    unscaled `attn.cast` next to it may be folded in without changing a
    bit: a widening cast into the operand it feeds, a cast of an f32
    result into the result (attn-fuse-casts).
  }];
  let methods = [
    InterfaceMethod<
      "Whether operand `index` is read widened to f32, with f32, f16 or "
      "bf16 elements.",
      "bool", "readsInF32", (ins "unsigned":$index)>,
    InterfaceMethod<
      "Whether result `index` is computed in f32 and rounded once to its "
      "element type, which may be f32, f16 or bf16.",
      "bool", "roundsFromF32", (ins "unsigned":$index)>,
  ];
}

def Attn_VJPOpInterface : OpInterface<"VJPOpInterface"> {
  let cppNamespace = "::mlir::attn";
  let description = [{
    An op that reverse-mode autodiff can differentiate: it builds its own
    vector-Jacobian product, so a new op brings its own gradient rule.
  }];
  let methods = [
    InterfaceMethod<
      [{Emits, at the builder's insertion point, the cotangents of the
        operands given `resultCotangents`, one per result (a null value for
        a result that does not reach the loss). Returns one value per
        operand, null for an operand without a cotangent; fails with a
        diagnostic on the op when the product cannot be built.}],
      "::mlir::FailureOr<::llvm::SmallVector<::mlir::Value>>", "buildVJP",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$resultCotangents)>,
    InterfaceMethod<
      [{Whether result `index` takes a cotangent. An auxiliary result (the
        lse of attention, which the backward pass saves but does not
        differentiate) does not.}],
      "bool", "isDifferentiableResult", (ins "unsigned":$index), [{}],
      [{ return true; }]>,
    InterfaceMethod<
      [{Whether operand `index` takes a gradient. Operands that only
        parameterize the op (attention's captures, rotary tables) do not:
        its rule gives them a null cotangent, and a function argument read
        only through such operands has no gradient.}],
      "bool", "isDifferentiableOperand", (ins "unsigned":$index), [{}],
      [{ return true; }]>,
  ];
}

#endif // ATTNC_DIALECTS_ATTN_ATTNINTERFACES_TD
