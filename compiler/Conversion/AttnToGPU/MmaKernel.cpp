//===- MmaKernel.cpp - Tensor-core attention kernel (mma.sync) ------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The flash-attention recurrence on tensor cores, FlashAttention-2 style: a
// block of four warps owns 64 query rows, 16 per warp. Per key tile of 64:
//
//   S = Q Kᵀ        mma.sync m16n8k16, A = Q and B = K from shared memory
//                   through ldmatrix, S in registers (8 fragments per warp)
//   mask, score     per element of the fragments, whose (row, key) follows
//                   from the lane: row g or g + 8, keys 2t and 2t + 1
//   softmax         row max across the quad of lanes sharing a row (two
//                   xor shuffles); exp2 with log2(e) folded into the scale
//   O += P V        P converted to the input type in registers: an S
//                   fragment pair is exactly an A fragment; V through
//                   ldmatrix.trans
//
// m and l live in registers per thread (l as a per-thread partial sum,
// reduced across the quad once at the end), O as Dv / 8 fragments carried
// by the key loop. Fragment layouts are those of PTX's mma.m16n8k16.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/AttnToGPU/MmaKernel.h"

#include "compiler/Conversion/AttnToTiled/KernelEmitter.h"
#include "compiler/Conversion/AttnToTiled/TileClassifier.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;

attnc::MmaSharedLayout attnc::getMmaSharedLayout(attn::AttentionOp op) {
  int64_t headDim = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  MmaSharedLayout layout;
  layout.qRow = headDim + 8;
  layout.kRow = headDim + 8;
  layout.vRow = headDimV + 8;
  const int64_t elementBytes = 2;
  layout.qOffset = 0;
  layout.kOffset =
      layout.qOffset + mmaBlockM(headDimV) * layout.qRow * elementBytes;
  layout.vOffset = layout.kOffset + kMmaBlockN * layout.kRow * elementBytes;
  layout.stageBytes =
      (kMmaBlockN * layout.kRow + kMmaBlockN * layout.vRow) * elementBytes;
  layout.bytes = layout.kOffset + 2 * layout.stageBytes;
  return layout;
}

namespace {

class MmaKernelBuilder : attnc::KernelEmitter {
public:
  MmaKernelBuilder(OpBuilder &b, Location loc, attn::AttentionOp op)
      : KernelEmitter(b, loc), op(op), f32(b.getF32Type()),
        element(op.getQ().getType().getElementType()) {
    headDim = op.getQ().getType().getDimSize(3);
    headDimV = op.getV().getType().getDimSize(3);
    threads = attnc::mmaThreads(attnc::mmaBlockM(headDimV));
    pairType = VectorType::get({2}, element);
    // mma.sync takes f16 pairs as vector<2xf16> and bf16 pairs as i32.
    registerType = element.isBF16() ? Type(b.getI32Type()) : Type(pairType);
  }

  void emit(const attnc::KernelOperands &x, Value shared, Value threadId,
            Value qBlock, Value head, Value batch);

private:
  Value addF(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value mulF(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value maxF(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }

  /// The sum (or max) of `v` over the four lanes of a quad (same row).
  Value quadReduce(Value v, bool max) {
    for (int32_t offset : {1, 2}) {
      Value other =
          gpu::ShuffleOp::create(b, loc, v, offset, 32, gpu::ShuffleMode::XOR)
              .getShuffleResult();
      v = max ? maxF(v, other) : addF(v, other);
    }
    return v;
  }

  /// A [B, H, N, D] input and, when its layout allows 16-byte loads (unit
  /// inner stride, outer strides and base aligned to 8 elements), a flat
  /// view of its buffer for them. Decided once per kernel: the same strides
  /// hold for every tile.
  struct Source {
    Value input;
    Value flat; // 1-D view of the buffer from the input's offset
    Value strides[3];
    Value vectorized; // i1
  };

  Source makeSource(Value input) {
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, input);
    Source source{input, {}, {}, {}};
    ValueRange strides = metadata.getStrides();
    Value vectorized = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             strides[3], index(1));
    auto multipleOf8 = [&](Value v) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                   arith::RemUIOp::create(b, loc, v, index(8)),
                                   index(0));
    };
    for (int64_t i = 0; i < 3; ++i) {
      source.strides[i] = strides[i];
      vectorized =
          arith::AndIOp::create(b, loc, vectorized, multipleOf8(strides[i]));
    }
    Value pointer =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, input);
    Value start = add(pointer, mul(metadata.getOffset(), index(2)));
    source.vectorized = arith::AndIOp::create(
        b, loc, vectorized,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::RemUIOp::create(b, loc, start, index(16)),
                              index(0)));
    auto flatType = MemRefType::get(
        {ShapedType::kDynamic}, element,
        StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {1}));
    source.flat = memref::ReinterpretCastOp::create(
        b, loc, flatType, metadata.getBaseBuffer(),
        OpFoldResult(metadata.getOffset()),
        ArrayRef<OpFoldResult>{
            b.getIndexAttr(std::numeric_limits<int32_t>::max())},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    return source;
  }

  /// Copies rows [0, count) of the input from sequence position `first`
  /// into the shared tile, zero-filling rows [count, rows): the tensor cores
  /// compute on whole tiles. 16-byte loads when the source allows them,
  /// issued as asynchronous copies (cp.async) when `async`; the caller
  /// commits and waits for them.
  void stageTile(const Source &source, Value tile, Value batch, Value head,
                 Value first, Value count, int64_t rows, int64_t width,
                 bool async = false) {
    ifThenElse(
        source.vectorized,
        [&] {
          stageVectors(source, tile, batch, head, first, count, rows, width,
                       async);
        },
        [&] {
          stageElements(source.input, tile, batch, head, first, count, rows,
                        width);
        });
  }

  void stageVectors(const Source &source, Value tile, Value batch, Value head,
                    Value first, Value count, int64_t rows, int64_t width,
                    bool async) {
    const int64_t lanes = 8; // 16 bytes of 16-bit elements
    auto vectorType = VectorType::get({lanes}, element);
    Value zeros = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(vectorType, b.getFloatAttr(element, 0.0)));
    Value base =
        add(mul(batch, source.strides[0]), mul(head, source.strides[1]));
    loop(
        threadId, index(rows * width / lanes), index(threads), [&](Value flat) {
          Value row =
              arith::DivUIOp::create(b, loc, flat, index(width / lanes));
          Value col =
              mul(arith::RemUIOp::create(b, loc, flat, index(width / lanes)),
                  index(lanes));
          Value inside = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult, row, count);
          // Rows past the end read row 0 (always valid) and store zeros.
          Value sourceRow = add(
              first, arith::SelectOp::create(b, loc, inside, row, index(0)));
          Value at = add(add(base, mul(sourceRow, source.strides[2])), col);
          if (async) {
            // Rows past the end copy no bytes: cp.async zero-fills them.
            Value sourceElements =
                arith::SelectOp::create(b, loc, inside, index(lanes), index(0));
            nvgpu::DeviceAsyncCopyOp::create(
                b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tile,
                ValueRange{row, col}, source.flat, ValueRange{at},
                b.getIndexAttr(lanes), sourceElements, b.getUnitAttr());
            return;
          }
          Value loaded = vector::LoadOp::create(b, loc, vectorType, source.flat,
                                                ValueRange{at}, false,
                                                llvm::MaybeAlign(16));
          Value value = arith::SelectOp::create(b, loc, inside, loaded, zeros);
          vector::StoreOp::create(b, loc, value, tile, ValueRange{row, col},
                                  false, llvm::MaybeAlign(16));
        });
  }

  void stageElements(Value input, Value tile, Value batch, Value head,
                     Value first, Value count, int64_t rows, int64_t width) {
    Value zero =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0));
    loop(threadId, index(rows * width), index(threads), [&](Value flat) {
      Value row = arith::DivUIOp::create(b, loc, flat, index(width));
      Value col = arith::RemUIOp::create(b, loc, flat, index(width));
      Value inside =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, count);
      Value sourceRow =
          add(first, arith::SelectOp::create(b, loc, inside, row, index(0)));
      Value loaded = memref::LoadOp::create(
          b, loc, input, ValueRange{batch, head, sourceRow, col});
      memref::StoreOp::create(
          b, loc, arith::SelectOp::create(b, loc, inside, loaded, zero), tile,
          ValueRange{row, col});
    });
  }

  /// A register of two elements as mma.sync takes it.
  Value asRegister(Value pair) {
    return registerType == pair.getType()
               ? pair
               : LLVM::BitcastOp::create(b, loc, registerType, pair)
                     .getResult();
  }

  /// ldmatrix of `tiles` 8 x 8 matrices: one register (two elements) per
  /// matrix for this lane, in the mma fragment order.
  SmallVector<Value> ldmatrix(Value tile, Value row, Value col, int tiles,
                              bool transpose) {
    auto type = VectorType::get({tiles, 2}, element);
    Value matrices = nvgpu::LdMatrixOp::create(
        b, loc, type, tile, ValueRange{row, col}, transpose, tiles);
    SmallVector<Value> registers;
    for (int64_t i = 0; i < tiles; ++i)
      registers.push_back(asRegister(
          vector::ExtractOp::create(b, loc, matrices, ArrayRef<int64_t>{i})));
    return registers;
  }

  /// Packs two f32 values into a register of an mma A fragment.
  Value pack(Value low, Value high) {
    Value pair = vector::FromElementsOp::create(
        b, loc, pairType,
        ValueRange{arith::TruncFOp::create(b, loc, element, low),
                   arith::TruncFOp::create(b, loc, element, high)});
    return asRegister(pair);
  }

  /// d = a b + c for one m16n8k16 tile: a 4, b 2 registers, c and d 4 f32
  /// (row g cols 2t, 2t + 1; row g + 8 cols 2t, 2t + 1).
  SmallVector<Value> mma(ValueRange a, ValueRange bFrag, ValueRange c) {
    NVVM::MMATypes type =
        element.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(4, f32));
    Value d = NVVM::MmaOp::create(
        b, loc, resultType, a, bFrag, c, ArrayRef<int64_t>{16, 8, 16},
        std::nullopt, std::nullopt, std::array<NVVM::MMATypes, 2>{type, type},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> result;
    for (int64_t i = 0; i < 4; ++i)
      result.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
    return result;
  }

  attn::AttentionOp op;
  Type f32, element, registerType;
  VectorType pairType;
  int64_t headDim, headDimV;
  Value threadId;
  int64_t threads;
};

void MmaKernelBuilder::emit(const attnc::KernelOperands &x, Value shared,
                            Value tid, Value qBlock, Value head, Value batch) {
  threadId = tid;
  using P = arith::CmpIPredicate;
  const int64_t blockM = attnc::mmaBlockM(headDimV), blockN = attnc::kMmaBlockN;
  const int64_t keyFragments = blockN / 8, outFragments = headDimV / 8;
  const double log2e = 1.4426950408889634, ln2 = 0.6931471805599453;
  float scale = op.getEffectiveScale();
  Value negInf = f32Const(-std::numeric_limits<double>::infinity());
  Value zero = f32Const(0.0);
  Value c0 = index(0), c1 = index(1);

  // Shared tiles in the input type.
  attnc::MmaSharedLayout layout = attnc::getMmaSharedLayout(op);
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto view = [&](int64_t offset, int64_t rows, int64_t width) {
    auto type = MemRefType::get({rows, width}, element, nullptr, workgroup);
    return memref::ViewOp::create(b, loc, type, shared, index(offset),
                                  ValueRange{})
        .getResult();
  };
  Value qs = view(layout.qOffset, blockM, layout.qRow);
  // Key/value tiles of stage `stage` (an index value, 0 or 1).
  auto stageView = [&](Value stage, int64_t offset, int64_t width) {
    auto type = MemRefType::get({blockN, width}, element, nullptr, workgroup);
    Value at = add(index(offset), mul(stage, index(layout.stageBytes)));
    return memref::ViewOp::create(b, loc, type, shared, at, ValueRange{})
        .getResult();
  };

  Value lane = arith::RemUIOp::create(b, loc, tid, index(32));
  Value warp = arith::DivUIOp::create(b, loc, tid, index(32));
  Value group = arith::DivUIOp::create(b, loc, lane, index(4));
  Value inGroup = arith::RemUIOp::create(b, loc, lane, index(4));
  Value warpRow = mul(warp, index(16));
  // ldmatrix addresses: lane l gives row l % 8 of matrix l / 8. For A (16 x
  // 16 of Q) and for pairs of K or V fragments the four matrices are
  // (rows, cols) = (lo, lo), (hi, lo), (lo, hi), (hi, hi) halves.
  Value aRow = add(warpRow, arith::RemUIOp::create(b, loc, lane, index(16)));
  Value aCol = mul(arith::DivUIOp::create(b, loc, lane, index(16)), index(8));
  Value lane8 = arith::RemUIOp::create(b, loc, lane, index(8));
  Value half8 =
      mul(arith::RemUIOp::create(
              b, loc, arith::DivUIOp::create(b, loc, lane, index(8)), index(2)),
          index(8));

  Value seqQ = memref::DimOp::create(b, loc, x.q, 2);
  Value seqK = memref::DimOp::create(b, loc, x.k, 2);
  Value headKV = arith::DivUIOp::create(b, loc, head, index(op.getGroupSize()));
  Value q0 = mul(qBlock, index(blockM));
  Value rows = arith::MinUIOp::create(b, loc, index(blockM),
                                      arith::SubIOp::create(b, loc, seqQ, q0));
  Value qLast = arith::SubIOp::create(b, loc, add(q0, rows), c1);

  Source qSource = makeSource(x.q), kSource = makeSource(x.k),
         vSource = makeSource(x.v);
  stageTile(qSource, qs, batch, head, q0, rows, blockM, headDim);
  gpu::BarrierOp::create(b, loc);

  // The thread's two rows within the block (g and g + 8 of its warp) and
  // the key offset of its first column within an 8-key fragment.
  Value localRow[2] = {add(warpRow, group), add(add(warpRow, group), index(8))};
  Value qIdx[2] = {add(q0, localRow[0]), add(q0, localRow[1])};
  Value columnBase = mul(inGroup, index(2));

  attnc::KeyRange keys =
      attnc::keyLoopBounds(b, loc, op, q0, qLast, seqK, blockN);
  Value kBegin = keys.begin, kEnd = keys.end;

  // Loop-carried state: m and the partial l of the two rows, then the O
  // accumulator, 4 values per 8 output columns.
  const int64_t stateO = 4;
  SmallVector<Value> init = {negInf, negInf, zero, zero};
  init.append(4 * outFragments, zero);
  SmallVector<Type> stateTypes(init.size(), f32);
  // Element (fragment j, register r) sits in row half r / 2, column r % 2.
  auto keyOf = [&](int64_t j, int64_t r) {
    return add(columnBase, index(j * 8 + r % 2));
  };

  // Key and value tiles go through two stages of shared memory: the copy of
  // the next tile (cp.async when the layout allows) runs while the current
  // one is used. Every tile in the loop's range is copied, even one the
  // classifier then skips: the copies are issued a tile ahead.
  auto stageKeyTile = [&](Value k0, Value stage) {
    Value cols = arith::MinUIOp::create(
        b, loc, index(blockN), arith::SubIOp::create(b, loc, seqK, k0));
    stageTile(kSource, stageView(stage, layout.kOffset, layout.kRow), batch,
              headKV, k0, cols, blockN, headDim, /*async=*/true);
    stageTile(vSource, stageView(stage, layout.vOffset, layout.vRow), batch,
              headKV, k0, cols, blockN, headDimV, /*async=*/true);
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  };
  ifThen(arith::CmpIOp::create(b, loc, P::slt, kBegin, kEnd),
         [&] { stageKeyTile(kBegin, c0); });

  auto keyLoop = scf::ForOp::create(
      b, loc, kBegin, kEnd, index(blockN), init,
      [&](OpBuilder &nested, Location, Value k0, ValueRange state) {
        inside(nested, [&] {
          Value tileNumber = arith::DivUIOp::create(
              b, loc, arith::SubIOp::create(b, loc, k0, kBegin), index(blockN));
          Value stage = arith::RemUIOp::create(b, loc, tileNumber, index(2));
          // This tile's copies are done, and every thread has finished with
          // the other stage, which the next tile's copies overwrite.
          NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
          gpu::BarrierOp::create(b, loc);
          Value nextK0 = add(k0, index(blockN));
          ifThen(arith::CmpIOp::create(b, loc, P::slt, nextK0, kEnd), [&] {
            stageKeyTile(nextK0, arith::SubIOp::create(b, loc, c1, stage));
          });
          Value ks = stageView(stage, layout.kOffset, layout.kRow);
          Value vs = stageView(stage, layout.vOffset, layout.vRow);

          Value cols = arith::MinUIOp::create(
              b, loc, index(blockN), arith::SubIOp::create(b, loc, seqK, k0));
          Value kLast = arith::SubIOp::create(b, loc, add(k0, cols), c1);
          attnc::TileClass tileClass = attnc::classifyTile(
              b, loc, op, {batch, head, q0, qLast, k0, kLast});
          ValueRange next = ifElse(
              tileClass.mayAllow, stateTypes,
              [&] {
                // S = Q Kᵀ: 8 fragments of 16 rows x 8 keys, 4 f32 each.
                SmallVector<SmallVector<Value>> s(keyFragments,
                                                  SmallVector<Value>(4, zero));
                for (int64_t kk = 0; kk < headDim / 16; ++kk) {
                  SmallVector<Value> a =
                      ldmatrix(qs, aRow, add(index(kk * 16), aCol), 4, false);
                  // One ldmatrix.x4 loads the B fragments of two 8-key
                  // fragments.
                  for (int64_t j = 0; j < keyFragments; j += 2) {
                    SmallVector<Value> bFrags =
                        ldmatrix(ks, add(index(j * 8), add(aCol, lane8)),
                                 add(index(kk * 16), half8), 4, false);
                    s[j] = mma(a, ArrayRef<Value>(bFrags).take_front(2), s[j]);
                    s[j + 1] =
                        mma(a, ArrayRef<Value>(bFrags).drop_front(2), s[j + 1]);
                  }
                }

                // Per element: scale (and score), key bounds, then the mask on
                // partial tiles.
                SmallVector<Value> scores;
                for (int64_t j = 0; j < keyFragments; ++j)
                  for (int64_t r = 0; r < 4; ++r) {
                    Value score;
                    if (op.getScore().empty()) {
                      score = mulF(s[j][r], f32Const(scale * log2e));
                    } else {
                      Value modified = attnc::inlineRegion(
                          b, op.getScore(),
                          {mulF(s[j][r], f32Const(scale)), batch, head,
                           qIdx[r / 2], add(k0, keyOf(j, r))});
                      score = mulF(modified, f32Const(log2e));
                    }
                    Value inBounds = arith::CmpIOp::create(b, loc, P::ult,
                                                           keyOf(j, r), cols);
                    scores.push_back(arith::SelectOp::create(b, loc, inBounds,
                                                             score, negInf));
                  }
                if (attnc::hasMask(op)) {
                  SmallVector<Type> scoreTypes(scores.size(), f32);
                  ValueRange masked = ifElse(
                      tileClass.mayBlock, scoreTypes,
                      [&] {
                        SmallVector<Value> result;
                        for (int64_t j = 0; j < keyFragments; ++j)
                          for (int64_t r = 0; r < 4; ++r) {
                            Value allowed = attnc::emitElementMask(
                                b, loc, op, batch, head, qIdx[r / 2],
                                add(k0, keyOf(j, r)));
                            result.push_back(arith::SelectOp::create(
                                b, loc, allowed, scores[j * 4 + r], negInf));
                          }
                        return result;
                      },
                      [&] { return scores; });
                  scores.assign(masked.begin(), masked.end());
                }

                // Online softmax per row half.
                SmallVector<Value> result(state.begin(), state.end());
                Value alpha[2];
                SmallVector<Value> probabilities(scores.size());
                for (int64_t h = 0; h < 2; ++h) {
                  Value tileMax = negInf;
                  for (int64_t j = 0; j < keyFragments; ++j)
                    for (int64_t r = 2 * h; r < 2 * h + 2; ++r)
                      tileMax = maxF(tileMax, scores[j * 4 + r]);
                  tileMax = quadReduce(tileMax, /*max=*/true);
                  Value oldMax = state[h];
                  Value newMax = maxF(oldMax, tileMax);
                  // While every key so far is masked, exponents are taken
                  // against 0 so that -inf - -inf never produces NaN.
                  Value noneAllowed = arith::CmpFOp::create(
                      b, loc, arith::CmpFPredicate::OEQ, newMax, negInf);
                  Value pivot = arith::SelectOp::create(b, loc, noneAllowed,
                                                        zero, newMax);
                  alpha[h] = math::Exp2Op::create(
                      b, loc, arith::SubFOp::create(b, loc, oldMax, pivot));
                  Value partial = zero;
                  for (int64_t j = 0; j < keyFragments; ++j)
                    for (int64_t r = 2 * h; r < 2 * h + 2; ++r) {
                      Value p = math::Exp2Op::create(
                          b, loc,
                          arith::SubFOp::create(b, loc, scores[j * 4 + r],
                                                pivot));
                      probabilities[j * 4 + r] = p;
                      partial = addF(partial, p);
                    }
                  result[h] = newMax;
                  result[2 + h] = addF(mulF(state[2 + h], alpha[h]), partial);
                }

                // O = alpha O + P V. Fragments 2kk and 2kk + 1 of P are the A
                // fragment of keys [16 kk, 16 kk + 16).
                for (int64_t n = 0; n < outFragments; ++n)
                  for (int64_t r = 0; r < 4; ++r)
                    result[stateO + n * 4 + r] =
                        mulF(state[stateO + n * 4 + r], alpha[r / 2]);
                for (int64_t kk = 0; kk < blockN / 16; ++kk) {
                  auto prob = [&](int64_t j, int64_t r) {
                    return probabilities[j * 4 + r];
                  };
                  SmallVector<Value> a = {
                      pack(prob(2 * kk, 0), prob(2 * kk, 1)),
                      pack(prob(2 * kk, 2), prob(2 * kk, 3)),
                      pack(prob(2 * kk + 1, 0), prob(2 * kk + 1, 1)),
                      pack(prob(2 * kk + 1, 2), prob(2 * kk + 1, 3))};
                  Value keyRow = add(index(kk * 16), add(lane8, half8));
                  // One ldmatrix.x4.trans loads the B fragments of two
                  // 8-column output fragments.
                  for (int64_t n = 0; n < outFragments; n += 2) {
                    SmallVector<Value> bFrags =
                        ldmatrix(vs, keyRow, add(index(n * 8), aCol), 4,
                                 /*transpose=*/true);
                    for (int64_t half = 0; half < 2; ++half) {
                      int64_t at = stateO + (n + half) * 4;
                      ValueRange c(ArrayRef<Value>(result).slice(at, 4));
                      SmallVector<Value> d =
                          mma(a, ArrayRef<Value>(bFrags).slice(2 * half, 2), c);
                      for (int64_t r = 0; r < 4; ++r)
                        result[at + r] = d[r];
                    }
                  }
                }
                return result;
              },
              [&] { return SmallVector<Value>(state.begin(), state.end()); });
          scf::YieldOp::create(b, loc, next);
        });
      });

  // Epilogue: the row sums across the quad, then normalize and store.
  SmallVector<Value> final(keyLoop.getResults().begin(),
                           keyLoop.getResults().end());
  for (int64_t h = 0; h < 2; ++h) {
    Value sum = quadReduce(final[2 + h], /*max=*/false);
    Value anyAllowed =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum, zero);
    Value inverse = arith::SelectOp::create(
        b, loc, anyAllowed, arith::DivFOp::create(b, loc, f32Const(1.0), sum),
        zero);
    Value owned = arith::CmpIOp::create(b, loc, P::ult, localRow[h], rows);
    ifThen(owned, [&] {
      if (x.out) {
        Type outType = cast<MemRefType>(x.out.getType()).getElementType();
        for (int64_t n = 0; n < outFragments; ++n)
          for (int64_t c = 0; c < 2; ++c) {
            Value value = mulF(final[stateO + n * 4 + 2 * h + c], inverse);
            if (outType != f32)
              value = arith::TruncFOp::create(b, loc, outType, value);
            memref::StoreOp::create(
                b, loc, value, x.out,
                ValueRange{batch, head, qIdx[h],
                           add(columnBase, index(n * 8 + c))});
          }
      }
      if (x.lse) {
        Value first = arith::CmpIOp::create(b, loc, P::eq, inGroup, index(0));
        ifThen(first, [&] {
          Value log2Sum = addF(final[h], math::Log2Op::create(b, loc, sum));
          Value natural = mulF(log2Sum, f32Const(ln2));
          memref::StoreOp::create(
              b, loc,
              arith::SelectOp::create(b, loc, anyAllowed, natural, negInf),
              x.lse, ValueRange{batch, head, qIdx[h]});
        });
      }
    });
  }
}

} // namespace

void attnc::emitMmaKernel(OpBuilder &b, Location loc, attn::AttentionOp op,
                          const KernelOperands &operands, Value shared,
                          Value threadId, Value qBlock, Value head,
                          Value batch) {
  MmaKernelBuilder(b, loc, op)
      .emit(operands, shared, threadId, qBlock, head, batch);
}
