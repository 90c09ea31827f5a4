//===- MmaFragments.cpp - Tensor-core products on fragments ---------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/NVGPU/MmaFragments.h"

#include "dialects/attngpu/AttnGPUOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using attnc::AFragment;

//===----------------------------------------------------------------------===//
// FragmentEmitter
//===----------------------------------------------------------------------===//

attnc::LaneGeometry attnc::FragmentEmitter::laneGeometry(Value threadId) {
  LaneGeometry g;
  auto rem = [&](Value x, int64_t n) {
    return arith::RemUIOp::create(b, loc, x, index(n)).getResult();
  };
  auto div = [&](Value x, int64_t n) {
    return arith::DivUIOp::create(b, loc, x, index(n)).getResult();
  };
  g.lane = rem(threadId, 32);
  g.warp = div(threadId, 32);
  g.group = div(g.lane, 4);
  g.inGroup = rem(g.lane, 4);
  g.warpRow = mul(g.warp, index(16));
  g.aRow = add(g.warpRow, rem(g.lane, 16));
  g.aCol = mul(div(g.lane, 16), index(8));
  g.lane8 = rem(g.lane, 8);
  g.half8 = mul(rem(div(g.lane, 8), 2), index(8));
  return g;
}

Value attnc::FragmentEmitter::quadReduce(Value v, bool max) {
  for (int32_t offset : {1, 2}) {
    Value other =
        gpu::ShuffleOp::create(b, loc, v, offset, 32, gpu::ShuffleMode::XOR)
            .getShuffleResult();
    v = max ? arith::MaximumFOp::create(b, loc, v, other).getResult()
            : arith::AddFOp::create(b, loc, v, other).getResult();
  }
  return v;
}

Value attnc::FragmentEmitter::pack(Value low, Value high) {
  return asRegister(vector::FromElementsOp::create(
      b, loc, VectorType::get({2}, element),
      ValueRange{arith::TruncFOp::create(b, loc, element, low),
                 arith::TruncFOp::create(b, loc, element, high)}));
}

Value attnc::FragmentEmitter::asRegister(Value pair) {
  if (pair.getType() == registerType)
    return pair;
  return LLVM::BitcastOp::create(b, loc, registerType, pair);
}

SmallVector<AFragment> attnc::FragmentEmitter::probabilityFragments(
    ArrayRef<Value> probabilities) {
  auto prob = [&](int64_t j, int64_t r) { return probabilities[j * 4 + r]; };
  SmallVector<AFragment> fragments;
  for (int64_t kk = 0; kk < static_cast<int64_t>(probabilities.size()) / 8;
       ++kk)
    fragments.push_back({pack(prob(2 * kk, 0), prob(2 * kk, 1)),
                         pack(prob(2 * kk, 2), prob(2 * kk, 3)),
                         pack(prob(2 * kk + 1, 0), prob(2 * kk + 1, 1)),
                         pack(prob(2 * kk + 1, 2), prob(2 * kk + 1, 3))});
  return fragments;
}

//===----------------------------------------------------------------------===//
// WarpgroupMma
//===----------------------------------------------------------------------===//

Value attnc::WarpgroupMma::descriptor(Value tile, Value byteOffset,
                                      int64_t leadingBytes,
                                      int64_t strideBytes) {
  return attngpu::WgmmaDescriptorOp::create(b, loc, b.getI64Type(), tile,
                                            byteOffset, leadingBytes,
                                            strideBytes,
                                            /*swizzle_bytes=*/128);
}

attnc::WgmmaProduct attnc::WarpgroupMma::scores(Value qTile, int64_t qRows,
                                                Value kTile, int64_t keys,
                                                int64_t headDim,
                                                Value warpgroup) {
  WgmmaProduct product;
  product.n = keys;
  // A warpgroup's 64 rows start 64 rows of 128 bytes into each panel.
  product.aDescriptor = descriptor(qTile, mul(warpgroup, index(64 * 128)),
                                   /*leadingBytes=*/16, /*strideBytes=*/1024);
  product.bDescriptor = descriptor(kTile, index(0), 16, 1024);
  for (int64_t kk = 0; kk < headDim / 16; ++kk) {
    int64_t panel = kk / 4, within = kk % 4 * 32;
    product.aOffsets.push_back(panel * qRows * 128 + within);
    product.bOffsets.push_back(panel * keys * 128 + within);
  }
  return product;
}

attnc::WgmmaProduct attnc::WarpgroupMma::output(ArrayRef<Value> o,
                                                ArrayRef<AFragment> p,
                                                Value vTile, int64_t keys,
                                                int64_t headDimV) {
  WgmmaProduct product;
  product.n = headDimV;
  product.accumulator.assign(o.begin(), o.end());
  product.aFragments.assign(p.begin(), p.end());
  // V is MN-major: 8 keys of 128 bytes per core matrix row group, a panel
  // of `keys` rows per 64 output columns.
  product.bDescriptor = descriptor(vTile, index(0), keys * 128, 1024);
  for (int64_t kk = 0; kk < static_cast<int64_t>(p.size()); ++kk)
    product.bOffsets.push_back(kk * 16 * 128);
  product.transposeB = true;
  return product;
}

attnc::WgmmaProduct attnc::WarpgroupMma::transposedA(Value aTile, Value bTile,
                                                     int64_t rows, Value kFirst,
                                                     int64_t k, Value n0,
                                                     int64_t n) {
  WgmmaProduct product;
  product.n = n;
  // Both MN-major: core matrices of 8 rows of 128 bytes, a panel of
  // `rows` rows per 64 elements of m (one) or n. Columns within a panel
  // are a byte offset into its rows: the swizzle is a function of the
  // address, and the tiles start at multiples of its 1024-byte period.
  Value firstByte = mul(kFirst, index(128));
  Value panel = arith::DivUIOp::create(b, loc, n0, index(64));
  Value inPanel = arith::RemUIOp::create(b, loc, n0, index(64));
  Value columnByte = add(mul(panel, index(rows * 128)), mul(inPanel, index(2)));
  product.aDescriptor = descriptor(aTile, firstByte, rows * 128, 1024);
  product.bDescriptor =
      descriptor(bTile, add(firstByte, columnByte), rows * 128, 1024);
  for (int64_t kk = 0; kk < k / 16; ++kk) {
    product.aOffsets.push_back(kk * 16 * 128);
    product.bOffsets.push_back(kk * 16 * 128);
  }
  product.transposeA = product.transposeB = true;
  return product;
}

Value attnc::WarpgroupMma::toVector(ValueRange values) {
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({static_cast<int64_t>(values.size())},
                              values.front().getType()),
      values);
}

SmallVector<Value> attnc::WarpgroupMma::fromVector(Value vector) {
  SmallVector<Value> values;
  int64_t count = cast<VectorType>(vector.getType()).getNumElements();
  for (int64_t i = 0; i < count; ++i)
    values.push_back(vector::ExtractOp::create(b, loc, vector, i));
  return values;
}

attnc::TensorCoreTurn attnc::TensorCoreTurn::start(OpBuilder &b, Location loc,
                                                   Value warpgroup,
                                                   int64_t warpgroups) {
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto barrierOf = [&](Value w) {
    return arith::IndexCastUIOp::create(
               b, loc, b.getI32Type(),
               arith::AddIOp::create(b, loc, w, index(1)))
        .getResult();
  };
  Value next = arith::RemUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, warpgroup, index(1)),
      index(warpgroups));
  TensorCoreTurn turn(barrierOf(warpgroup), barrierOf(next));
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      warpgroup, index(0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  attngpu::NamedBarrierArriveOp::create(b, loc, turn.own, kThreads);
  return turn;
}

void attnc::TensorCoreTurn::await(OpBuilder &b, Location loc) const {
  attngpu::NamedBarrierSyncOp::create(b, loc, own, kThreads);
}

void attnc::TensorCoreTurn::pass(OpBuilder &b, Location loc) const {
  attngpu::NamedBarrierArriveOp::create(b, loc, next, kThreads);
}

SmallVector<SmallVector<Value>>
attnc::WarpgroupMma::issue(ArrayRef<WgmmaProduct> products, int64_t inFlight,
                           const TensorCoreTurn *turn) {
  // Operands first: nothing but the products may sit between the fence
  // and the wait.
  SmallVector<SmallVector<Value>> fragments(products.size());
  SmallVector<Value> accumulators;
  for (auto [i, product] : llvm::enumerate(products)) {
    for (const AFragment &fragment : product.aFragments)
      fragments[i].push_back(toVector(fragment));
    accumulators.push_back(
        product.accumulator.empty() ? Value() : toVector(product.accumulator));
  }
  if (turn)
    turn->await(b, loc);
  attngpu::WgmmaFenceOp::create(b, loc);
  SmallVector<Value> results;
  for (auto [i, product] : llvm::enumerate(products)) {
    results.push_back(attngpu::WgmmaMmaAsyncOp::create(
        b, loc, VectorType::get({product.n / 2}, b.getF32Type()),
        product.aDescriptor, fragments[i], product.bDescriptor, accumulators[i],
        product.n, element,
        product.aDescriptor ? b.getDenseI64ArrayAttr(product.aOffsets)
                            : DenseI64ArrayAttr(),
        product.bOffsets, product.transposeA, product.transposeB));
    attngpu::WgmmaCommitGroupOp::create(b, loc);
  }
  if (turn)
    turn->pass(b, loc);
  size_t done = results.size() - inFlight;
  if (done > 0) {
    auto waited = attngpu::WgmmaWaitGroupOp::create(
        b, loc, ValueRange(results).take_front(done).getTypes(), inFlight,
        ValueRange(results).take_front(done));
    llvm::copy(waited.getResults(), results.begin());
  }
  SmallVector<SmallVector<Value>> finished;
  for (Value result : results)
    finished.push_back(fromVector(result));
  return finished;
}

SmallVector<Value> attnc::WarpgroupMma::wait(ValueRange accumulators,
                                             ValueRange after,
                                             int64_t pending) {
  SmallVector<Value> values = {toVector(accumulators)};
  llvm::append_range(values, after);
  auto waited = attngpu::WgmmaWaitGroupOp::create(
      b, loc, ValueRange(values).getTypes(), pending, values);
  SmallVector<Value> results = fromVector(waited.getResult(0));
  llvm::append_range(results, waited.getResults().drop_front());
  return results;
}

//===----------------------------------------------------------------------===//
// SyncMma
//===----------------------------------------------------------------------===//

SmallVector<Value> attnc::SyncMma::ldmatrix(Value tile, Value row, Value col,
                                            int tiles, bool transpose) {
  auto type = VectorType::get({tiles, 2}, element);
  Value matrices = nvgpu::LdMatrixOp::create(
      b, loc, type, tile, ValueRange{row, col}, transpose, tiles);
  SmallVector<Value> registers;
  for (int64_t i = 0; i < tiles; ++i)
    registers.push_back(asRegister(
        vector::ExtractOp::create(b, loc, matrices, ArrayRef<int64_t>{i})));
  return registers;
}

/// d = a b + c for one m16n8k16 tile: a 4, b 2 registers, c and d 4 f32.
SmallVector<Value> attnc::SyncMma::mma(ValueRange a, ValueRange bFrag,
                                       ValueRange c) {
  NVVM::MMATypes type =
      element.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(4, b.getF32Type()));
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

SmallVector<SmallVector<Value>>
attnc::SyncMma::scores(Value qTile, Value kTile, int64_t keys,
                       int64_t headDim, const LaneGeometry &lanes) {
  const int64_t keyFragments = keys / 8;
  SmallVector<SmallVector<Value>> s(keyFragments,
                                    SmallVector<Value>(4, f32Const(0.0)));
  for (int64_t kk = 0; kk < headDim / 16; ++kk) {
    SmallVector<Value> a =
        ldmatrix(qTile, lanes.aRow, add(index(kk * 16), lanes.aCol), 4, false);
    // One ldmatrix.x4 loads the B fragments of two 8-key fragments.
    for (int64_t j = 0; j < keyFragments; j += 2) {
      SmallVector<Value> bFrags =
          ldmatrix(kTile, add(index(j * 8), add(lanes.aCol, lanes.lane8)),
                   add(index(kk * 16), lanes.half8), 4, false);
      s[j] = mma(a, ArrayRef<Value>(bFrags).take_front(2), s[j]);
      s[j + 1] = mma(a, ArrayRef<Value>(bFrags).drop_front(2), s[j + 1]);
    }
  }
  return s;
}

void attnc::SyncMma::accumulate(ArrayRef<AFragment> p, Value vTile,
                                int64_t headDimV, const LaneGeometry &lanes,
                                MutableArrayRef<Value> o) {
  for (auto [kk, a] : llvm::enumerate(p)) {
    Value keyRow = add(index(kk * 16), add(lanes.lane8, lanes.half8));
    for (int64_t n = 0; n < headDimV / 8; n += 2) {
      SmallVector<Value> bFrags = ldmatrix(
          vTile, keyRow, add(index(n * 8), lanes.aCol), 4, /*transpose=*/true);
      for (int64_t half = 0; half < 2; ++half) {
        MutableArrayRef<Value> c = o.slice((n + half) * 4, 4);
        SmallVector<Value> d =
            mma(a, ArrayRef<Value>(bFrags).slice(2 * half, 2), c);
        llvm::copy(d, c.begin());
      }
    }
  }
}

SmallVector<AFragment> attnc::SyncMma::transposedA(Value tile, Value mBase,
                                                   int64_t k,
                                                   const LaneGeometry &lanes) {
  // Matrix l / 8 of lane l covers k rows [aCol, aCol + 8) and m columns
  // [half8, half8 + 8) of the 16 x 16 step; transposed on load, each lane
  // gets A's (row g, k pair 2t) of it.
  SmallVector<AFragment> fragments;
  for (int64_t kk = 0; kk < k / 16; ++kk)
    fragments.push_back(AFragment(
        ldmatrix(tile, add(index(kk * 16), add(lanes.aCol, lanes.lane8)),
                 add(mBase, lanes.half8), 4, /*transpose=*/true)));
  return fragments;
}
