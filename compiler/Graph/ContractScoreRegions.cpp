//===- ContractScoreRegions.cpp - Fused multiply-adds in score regions ----===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Kernels inline a score region once per score element. Its float
// arithmetic, as written, rounds every product and sum: PTX `mul.rn` and
// `sub.rn`, which ptxas may not fuse. CUDA C++ under nvcc and Triton (and
// so FlexAttention's score_mod) contract `a * b + c` into one fma by
// default, which rounds once. Marking the float ops of score and
// score_grad regions (products and sums) `fastmath<contract>` lets
// attnc's kernels do the same: ALiBi's `s - slope * d` becomes one fma
// per element.
//
// Mask regions keep their arithmetic as written: a contracted product
// could land on the other side of a comparison.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNCONTRACTSCOREREGIONS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// Adds `contract` to the fast-math flags of `op` where it is a product
/// or a sum, the ops an fma takes the place of.
void allowContraction(arith::ArithFastMathInterface op) {
  if (!isa<arith::MulFOp, arith::AddFOp, arith::SubFOp>(op.getOperation()))
    return;
  arith::FastMathFlags flags = arith::FastMathFlags::none;
  if (arith::FastMathFlagsAttr old = op.getFastMathFlagsAttr())
    flags = old.getValue();
  op->setAttr(op.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(
                  op->getContext(), flags | arith::FastMathFlags::contract));
}

struct ContractScoreRegionsPass
    : attnc::impl::AttnContractScoreRegionsBase<ContractScoreRegionsPass> {
  void runOnOperation() override {
    getOperation().walk([](attn::AttentionScoringOpInterface op) {
      for (Region *region : op.getScoreRegions())
        region->walk(allowContraction);
    });
  }
};

} // namespace
