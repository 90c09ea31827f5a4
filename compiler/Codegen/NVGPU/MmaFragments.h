//===- MmaFragments.h - Tensor-core products on fragments ------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The products a tensor-core kernel is built from, on the per-thread
// fragments they use. A warp owns 16 rows of the m16n8 accumulator layout:
// lane l holds rows g = l / 4 and g + 8, columns 2t and 2t + 1 (t = l % 4) of
// each 8-column fragment, as 4 f32 (row g: 0, 1; row g + 8: 2, 3). The
// wgmma m64nN accumulator of a warpgroup is N / 8 such fragments per warp, so
// everything but the products is shared by both kinds.
//
//   WarpgroupMma  wgmma through attngpu ops: operands from shared tiles by
//                 descriptors, or A from registers
//   SyncMma       mma.sync m16n8k16 with operands through ldmatrix
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_NVGPU_MMAFRAGMENTS_H
#define ATTNC_COMPILER_CODEGEN_NVGPU_MMAFRAGMENTS_H

#include "compiler/Codegen/Common/KernelEmitter.h"
#include "compiler/Codegen/NVGPU/SharedTiles.h"

namespace attnc {

/// Four registers of 32 bits: an A fragment of m16k16 (or a row of the
/// warpgroup's m64k16), pairs of 16-bit elements, each as the product takes
/// it (i32, or vector<2xf16> for f16 mma.sync).
using AFragment = llvm::SmallVector<mlir::Value, 4>;

/// Where lane `lane` of warp `warp` sits in the fragment layouts.
struct LaneGeometry {
  mlir::Value lane, warp;
  mlir::Value group, inGroup; // lane / 4, lane % 4
  mlir::Value warpRow;        // 16 * warp
  // ldmatrix addresses: lane l gives row l % 8 of matrix l / 8. For A (16 x
  // 16) and for pairs of K or V fragments the four matrices are (rows,
  // cols) = (lo, lo), (hi, lo), (lo, hi), (hi, hi) halves.
  mlir::Value aRow, aCol, lane8, half8;
};

class FragmentEmitter : protected KernelEmitter {
public:
  /// `registerType` is how the products take a pair of elements.
  FragmentEmitter(mlir::OpBuilder &b, mlir::Location loc, mlir::Type element,
                  mlir::Type registerType)
      : KernelEmitter(b, loc), element(element), registerType(registerType) {}

  LaneGeometry laneGeometry(mlir::Value threadId);

  /// The sum (or max) of `v` over the four lanes of a quad (one row).
  mlir::Value quadReduce(mlir::Value v, bool max);

  /// Packs two f32 into a register of two input-type elements.
  mlir::Value pack(mlir::Value low, mlir::Value high);
  /// A pair of input-type elements as a register.
  mlir::Value asRegister(mlir::Value pair);

  /// The A fragments of P for keys [16 kk, 16 kk + 16): score fragments
  /// 2 kk and 2 kk + 1 (4 f32 each) packed to the input type.
  llvm::SmallVector<AFragment> probabilityFragments(
      llvm::ArrayRef<mlir::Value> probabilities);

protected:
  mlir::Type element, registerType;
};

/// A wgmma product for the attngpu.wgmma.mma_async of one warpgroup.
struct WgmmaProduct {
  int64_t n;
  /// The accumulator, n / 2 f32; empty to overwrite.
  llvm::SmallVector<mlir::Value> accumulator;
  /// A from a descriptor with per-step byte offsets, or from registers.
  mlir::Value aDescriptor;
  llvm::SmallVector<int64_t> aOffsets;
  llvm::SmallVector<AFragment> aFragments;
  mlir::Value bDescriptor;
  llvm::SmallVector<int64_t> bOffsets;
  bool transposeA = false, transposeB = false;
};

/// Ping-pong between warpgroups (FlashAttention-3): a warpgroup issues its
/// products in its turn only, waiting at its named barrier, and passes the
/// turn on to the next once they are committed, so that one warpgroup's
/// per-element work runs while the tensor cores do another's products.
/// Warpgroup w waits at barrier w + 1 (0 is the block's); every warpgroup
/// must take the same number of turns.
class TensorCoreTurn {
public:
  /// The turns of `warpgroups` warpgroups, `warpgroup` being this one's
  /// index; the first has the first turn.
  static TensorCoreTurn start(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value warpgroup, int64_t warpgroups);
  /// Waits for this warpgroup's turn.
  void await(mlir::OpBuilder &b, mlir::Location loc) const;
  /// Passes the turn on to the next warpgroup.
  void pass(mlir::OpBuilder &b, mlir::Location loc) const;

private:
  TensorCoreTurn(mlir::Value own, mlir::Value next) : own(own), next(next) {}
  /// Each barrier counts the warpgroup waiting and the one passing.
  static constexpr int64_t kThreads = 256;
  mlir::Value own, next;
};

class WarpgroupMma : public FragmentEmitter {
public:
  WarpgroupMma(mlir::OpBuilder &b, mlir::Location loc, mlir::Type element)
      : FragmentEmitter(b, loc, element, b.getI32Type()) {}

  /// The descriptor of a 128-byte swizzled tile from `byteOffset` on.
  mlir::Value descriptor(mlir::Value tile, mlir::Value byteOffset,
                         int64_t leadingBytes, int64_t strideBytes);

  /// S = Q Kᵀ for warpgroup `warpgroup`'s 64 rows of the q tile (rows of
  /// `qRows`): wgmma m64 n`keys` k16, Q and K both K-major in swizzled
  /// tiles; 16 elements of the head dim (32 bytes) per step, a new panel
  /// every 64.
  WgmmaProduct scores(mlir::Value qTile, int64_t qRows, mlir::Value kTile,
                      int64_t keys, int64_t headDim, mlir::Value warpgroup);

  /// O += P V: wgmma m64 n`headDimV` k16, A = P from registers (one
  /// fragment per 16 keys) and B = V MN-major in a swizzled tile of `keys`
  /// rows: 16 keys (2048 bytes) per step.
  WgmmaProduct output(llvm::ArrayRef<mlir::Value> o,
                      llvm::ArrayRef<AFragment> p, mlir::Value vTile,
                      int64_t keys, int64_t headDimV);

  /// D = Aᵀ B[:, n0 : n0 + n], both read from row `kFirst` of `rows`-row
  /// tiles for `k` rows, 16 (2048 bytes) per step: A k-major (aTile[k][m],
  /// its 64 m one panel) read transposed, B MN-major (bTile[k][n], a panel
  /// per 64 n; `n0` a multiple of 8). The backward pass's dQ = dS K from
  /// the dSᵀ it wrote.
  WgmmaProduct transposedA(mlir::Value aTile, mlir::Value bTile, int64_t rows,
                           mlir::Value kFirst, int64_t k, mlir::Value n0,
                           int64_t n);

  /// Issues `products` after one fence, each its own commit group, and
  /// waits until at most `inFlight` groups are outstanding (no wait when
  /// all of them may be). Returns each product's accumulator: those of the
  /// first products are valid, those of the last `inFlight` are still being
  /// written by the tensor cores and go to wait() before any other use.
  /// With a `turn`, the products are issued in the warpgroup's turn.
  llvm::SmallVector<llvm::SmallVector<mlir::Value>>
  issue(llvm::ArrayRef<WgmmaProduct> products, int64_t inFlight,
        const TensorCoreTurn *turn = nullptr);

  /// Waits until at most `pending` groups are outstanding, those committed
  /// after the one of `accumulators` (groups finish in order); returns
  /// `accumulators`, now valid, followed by `after` passed through, so that
  /// what is computed from those happens after the wait.
  llvm::SmallVector<mlir::Value> wait(mlir::ValueRange accumulators,
                                      mlir::ValueRange after,
                                      int64_t pending = 0);

private:
  mlir::Value toVector(mlir::ValueRange values);
  llvm::SmallVector<mlir::Value> fromVector(mlir::Value vector);
};

class SyncMma : public FragmentEmitter {
public:
  /// mma.sync takes f16 pairs as vector<2xf16> and bf16 pairs as i32.
  SyncMma(mlir::OpBuilder &b, mlir::Location loc, mlir::Type element)
      : FragmentEmitter(b, loc, element,
                        element.isF16()
                            ? mlir::Type(mlir::VectorType::get({2}, element))
                            : mlir::Type(b.getI32Type())) {}

  /// S of the warp's 16 rows and `keys` keys: keys / 8 fragments of 4 f32.
  /// Q and K fragments through ldmatrix.x4 from padded tiles.
  llvm::SmallVector<llvm::SmallVector<mlir::Value>>
  scores(mlir::Value qTile, mlir::Value kTile, int64_t keys, int64_t headDim,
         const LaneGeometry &lanes);

  /// O += P V; `p` holds the A fragments of P, one per 16 keys. One
  /// ldmatrix.x4.trans loads the B fragments of two 8-column output
  /// fragments.
  void accumulate(llvm::ArrayRef<AFragment> p, mlir::Value vTile,
                  int64_t headDimV, const LaneGeometry &lanes,
                  llvm::MutableArrayRef<mlir::Value> o);

  /// The A fragments of rows [mBase, mBase + 16) of the transpose of
  /// `tile`, which holds the matrix k-major (tile[k][m], `k` rows): one
  /// ldmatrix.x4.trans per 16 k. The backward pass reads dS this way from
  /// the dSᵀ its key-major warps wrote.
  llvm::SmallVector<AFragment> transposedA(mlir::Value tile, mlir::Value mBase,
                                           int64_t k,
                                           const LaneGeometry &lanes);

private:
  llvm::SmallVector<mlir::Value> ldmatrix(mlir::Value tile, mlir::Value row,
                                          mlir::Value col, int tiles,
                                          bool transpose);
  llvm::SmallVector<mlir::Value> mma(mlir::ValueRange a, mlir::ValueRange b,
                                     mlir::ValueRange c);
};

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_NVGPU_MMAFRAGMENTS_H
