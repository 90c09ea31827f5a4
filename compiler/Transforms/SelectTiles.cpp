//===- SelectTiles.cpp - Pick tile sizes for attn.attention ---------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/AttnToGPU/MmaKernel.h"
#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"

#include "llvm/Support/MathExtras.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNSELECTTILES
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// The largest useful tile along a sequence of static length `extent`: the
/// next power of two, capped at `preferred`.
int64_t fitToExtent(int64_t preferred, int64_t extent) {
  if (ShapedType::isDynamic(extent) || extent >= preferred)
    return preferred;
  return static_cast<int64_t>(llvm::PowerOf2Ceil(extent));
}

struct AttnSelectTilesPass
    : attnc::impl::AttnSelectTilesBase<AttnSelectTilesPass> {
  using Base::Base;

  void runOnOperation() override {
    // Host: 64 x 64 keeps a block's f32 tiles (Q, K, V, S, acc) in L2 for
    // head dims up to 256. sm_90a: the tensor-core kernel has fixed tiles
    // (MmaKernel.h); the scalar kernel keeps f32 tiles in shared memory
    // (GpuBlockLayout), so wide heads take 32 x 32.
    bool gpu = target == "sm_90a";
    if (!gpu && target != "host") {
      getOperation().emitError()
          << "unknown target '" << target << "'; expected host or sm_90a";
      return signalPassFailure();
    }
    bool forceSync = tensorCores == "mma-sync";
    if (!forceSync && tensorCores != "auto") {
      getOperation().emitError() << "unknown tensor-core kernel '"
                                 << tensorCores
                                 << "'; expected auto or mma-sync";
      return signalPassFailure();
    }
    getOperation().walk([&](attn::AttentionOp op) {
      if (op.getTiles())
        return;
      int64_t headDim = op.getQ().getType().getDimSize(3);
      int64_t blockM = 64, blockN = 64;
      std::optional<attnc::MmaConfig> mma = attnc::preferredMmaConfig(op);
      if (mma && forceSync)
        mma = attnc::syncMmaConfig(op.getV().getType().getDimSize(3));
      if (gpu && mma) {
        blockM = mma->blockM;
        blockN = mma->blockN;
      } else if (gpu && headDim > 128) {
        blockM = blockN = 32;
      }
      blockM = fitToExtent(blockM, op.getQ().getType().getDimSize(2));
      blockN = fitToExtent(blockN, op.getK().getType().getDimSize(2));
      op.setTilesAttr(attn::TilesAttr::get(op.getContext(), blockM, blockN));
    });
  }
};

} // namespace
