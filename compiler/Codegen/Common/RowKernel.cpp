//===- RowKernel.cpp - Row kernels of norms and row sums -----------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/RowKernel.h"

#include "compiler/Codegen/Common/KernelEmitter.h"
#include "compiler/Codegen/Common/VectorAccess.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;

namespace {

constexpr int64_t kWarp = 32;
/// Warps of a GPU block of sum_rows, over interleaved rows: each warp's
/// loop is a chain of dependent loads, so many warps keep enough of them in
/// flight (a norm gradient's 4096 partial rows over 64 blocks).
constexpr int64_t kSumWarps = 32;
/// Warps of a GPU block that reduces over a whole tensor (the token mean).
constexpr int64_t kMeanWarps = 8;

/// The most chunks per lane a row sum unrolls.
constexpr int64_t kUnrolledChunks = 16;

/// Columns of a table row that an embedding gradient's item sums (a warp's
/// on a GPU, 2 a lane).
constexpr int64_t kGradSliceColumns = 64;
/// Slices an embedding gradient's warp sums, one a lane's bounds: one load
/// of the lanes gets them all.
constexpr int64_t kGradSlicesPerWarp = kWarp;
/// Chunks of a row that a lane of a cross-entropy kernel loads before it
/// uses the first (16 bytes each): a 100 KB row per warp needs many bytes
/// in flight to stream at the memory's bandwidth.
constexpr int64_t kChunksInFlight = 4;
/// Warps of attn.token_order's one block: its scatter sorts the tokens in
/// chunks of 1024, a thread each (a power of two, for the bitonic sort).
constexpr int64_t kOrderWarps = 32;

/// Warps of a GPU block of the kernels that reduce with all their threads.
int64_t reduceWarps(Operation *op) {
  if (isa<attn::TokenOrderOp>(op))
    return kOrderWarps;
  return isa<attn::SumRowsOp>(op) ? kSumWarps : kMeanWarps;
}

/// The op's block_size; 1 for attn.token_mean, one block for everything.
int64_t blockSizeOf(Operation *op) {
  auto block = op->getAttrOfType<IntegerAttr>("block_size");
  return block ? block.getInt() : 1;
}

/// Kernels whose block reduces with all its threads (not a warp per row).
bool reducesByBlock(Operation *op) {
  return isa<attn::SumRowsOp, attn::TokenMeanOp, attn::TokenMeanGradOp,
             attn::TokenOrderOp>(op);
}

/// The slices of kGradSliceColumns of an embedding gradient's table row.
int64_t gradSlices(attn::EmbeddingGradOp op) {
  return llvm::divideCeil(op.getDtable().getType().getDimSize(1),
                          kGradSliceColumns);
}

/// The items of an embedding gradient, kGradSlicesPerWarp slices each.
int64_t gradItems(attn::EmbeddingGradOp op) {
  return llvm::divideCeil(op.getDtable().getType().getDimSize(0) *
                              gradSlices(op),
                          kGradSlicesPerWarp);
}

/// The most shared memory a norm gradient's block gives its warps' partial
/// weight sums: up to 3 blocks of 256 threads fit an H100/H200 SM.
constexpr int64_t kPartialSumsBytes = 64 * 1024;

/// Whether a norm gradient's warps keep their partial sums in shared
/// memory (a row of width f32 each, read and written once per row) rather
/// than in the partials result: on a GPU, when they fit.
bool partialSumsShared(Operation *op) {
  if (!isa<attn::RmsNormGradOp, attn::LayerNormGradOp>(op))
    return false;
  int64_t width =
      cast<ShapedType>(op->getOperand(0).getType()).getShape().back();
  return blockSizeOf(op) * width * 4 <= kPartialSumsBytes;
}

class RowKernelBlock : attnc::BlockEmitter {
public:
  RowKernelBlock(OpBuilder &b, Location loc, Operation *op,
                 attnc::KernelBuffers x, Value threadId, Value scratch)
      : BlockEmitter(b, loc, threadId, attnc::rowKernelThreads(op)), op(op),
        x(std::move(x)), perBlock(blockSizeOf(op)), scratch(scratch) {
    if (threadId) {
      lane = arith::RemUIOp::create(b, loc, threadId, index(kWarp));
      warp = arith::DivUIOp::create(b, loc, threadId, index(kWarp));
    } else {
      lane = index(0);
    }
  }

  void emit(Value blockId);

private:
  int64_t lanes() const { return threadId ? kWarp : 1; }
  int64_t width() const {
    return cast<MemRefType>(x.operands[0].getType()).getShape().back();
  }
  /// The product of the first `dims` dims of `buffer`.
  Value dimProduct(Value buffer, int64_t dims) {
    Value product = index(1);
    for (int64_t d = 0; d < dims; ++d)
      product = mul(product, memref::DimOp::create(b, loc, buffer, d));
    return product;
  }
  /// The rows of `buffer`: the product of its leading dims.
  Value rowCount(Value buffer) {
    return dimProduct(buffer, cast<MemRefType>(buffer.getType()).getRank() - 1);
  }
  /// The `chunk` columns of `buffer` from `last`, in f32: a vector in the
  /// vector form, else a scalar.
  Value at(Value buffer, ArrayRef<Value> lead, Value last) {
    return columnsAt(buffer, lead, last, chunk);
  }
  /// The `count` columns of `buffer` from `last`, in f32.
  Value columnsAt(Value buffer, ArrayRef<Value> lead, Value last,
                  int64_t count) {
    SmallVector<Value> indices(lead);
    indices.push_back(last);
    return attnc::loadChunk(b, loc, buffer, indices, count);
  }
  void storeAt(Value v, Value buffer, ArrayRef<Value> lead, Value last) {
    SmallVector<Value> indices(lead);
    indices.push_back(last);
    attnc::storeChunk(b, loc, v, buffer, indices);
  }
  /// `a` and `c` as one type: a scalar (a row statistic) beside a chunk's
  /// vector is broadcast to it.
  std::pair<Value, Value> matched(Value a, Value c) {
    auto type = dyn_cast<VectorType>(a.getType());
    if (!type)
      type = dyn_cast<VectorType>(c.getType());
    auto widen = [&](Value v) -> Value {
      if (!type || isa<VectorType>(v.getType()))
        return v;
      return vector::BroadcastOp::create(b, loc, type, v);
    };
    return {widen(a), widen(c)};
  }
  Value mulF(Value a, Value c) {
    auto [l, r] = matched(a, c);
    return arith::MulFOp::create(b, loc, l, r);
  }
  Value subF(Value a, Value c) {
    auto [l, r] = matched(a, c);
    return arith::SubFOp::create(b, loc, l, r);
  }
  Value addF(Value a, Value c) {
    auto [l, r] = matched(a, c);
    return arith::AddFOp::create(b, loc, l, r);
  }
  /// Zero in each of `chunk` columns.
  Value zeroColumns() {
    if (chunk == 1)
      return f32Const(0);
    return arith::ConstantOp::create(
        b, loc, cast<TypedAttr>(b.getZeroAttr(VectorType::get({chunk}, f32))));
  }
  /// The first column of the k-th chunk of this lane's columns of a row:
  /// lanes take consecutive chunks, so a warp's access is contiguous.
  Value chunkColumn(Value k) {
    return mul(add(mul(k, index(lanes())), lane), index(chunk));
  }
  /// body(d) for the first column d of each of this lane's chunks of a row,
  /// then of each of its tail columns (with chunk 1).
  template <typename Fn> void forRowChunks(Fn body) {
    foldRow(width(), {}, 1, [&](ValueRange, ArrayRef<Value> columns) {
      body(columns.front());
      return SmallVector<Value>();
    });
  }
  using FoldStep = function_ref<SmallVector<Value>(ValueRange state,
                                                   ArrayRef<Value> columns)>;
  /// The lane's state from `init` after step(state, columns) over its
  /// columns of a row of `width`: in the vector form `group` chunks at a
  /// time (their first columns, a straight line, so that all their loads
  /// are in flight together), then the columns that whole chunks of every
  /// lane leave, one at a time with chunk 1; else one column at a time.
  SmallVector<Value> foldRow(int64_t width, ValueRange init, int64_t group,
                             FoldStep step);
  /// step over the lane's columns first, first + lanes, ... below `width`,
  /// one at a time with chunk 1.
  SmallVector<Value> foldColumns(Value first, int64_t width, ValueRange init,
                                 FoldStep step);
  /// The first column that whole chunks of every lane leave (the row's
  /// width when they cover it).
  int64_t tailStart(int64_t width) const {
    return chunk == 1 ? 0 : width / (lanes() * chunk) * lanes() * chunk;
  }
  /// The sum of term(d) over a row's chunks, in every lane.
  Value rowSum(function_ref<Value(Value)> term);
  /// body() in the vector form where every buffer is dense and aligned and
  /// the row into whole chunks, at least one a lane, else as it is.
  template <typename Fn> void inColumnChunks(Fn body);

  /// body(item) for items [first, first + perBlock) below `count`: a loop
  /// on the host, a warp each on a GPU.
  template <typename Fn> void forBlockItems(Value blockId, Value count, Fn fn);
  bool centered() const {
    return isa<attn::LayerNormOp, attn::LayerNormGradOp>(op);
  }
  Value rowMean(Value in, ArrayRef<Value> lead);
  /// x at column d minus the row's mean, if it has one.
  Value centeredValue(Value in, ArrayRef<Value> lead, Value d, Value mean) {
    Value v = at(in, lead, d);
    return mean ? subF(v, mean) : v;
  }
  /// The elements of `buffer`: the product of its dims.
  Value elementCount(Value buffer) {
    return dimProduct(buffer, cast<MemRefType>(buffer.getType()).getRank());
  }
  /// Whether integer `label` is the op's ignore_index.
  Value isIgnored(Value label);
  /// Whether token `token`'s label counts (is not ignore_index).
  Value countsAt(Value labels, Value token);
  /// `v` for a token that counts, 0 for an ignored one.
  Value ifCounts(Value labels, Value token, Value v) {
    return arith::SelectOp::create(b, loc, countsAt(labels, token), v,
                                   f32Const(0));
  }
  /// The sum over i < n of term(i), in every thread: on a GPU each thread
  /// sums i = thread, thread + threads, ..., then every thread adds the
  /// threads' sums in thread order from shared memory (the same bits
  /// whatever the timing); a loop on the host.
  template <typename Fn> Value blockSum(Value n, Fn term);
  Value stridedSum(Value first, Value n, Value step,
                   function_ref<Value(Value)> term);
  void normRow(Value row);
  void gradPartial(Value partial);
  /// Whether integer `v` is in [lower, upper) (index bounds).
  Value inRange(Value v, Value lower, Value upper);
  void embeddingRow(Value row);
  /// The thread's index in its block and the block's threads (0 and 1 on
  /// the host).
  Value threadIndex() { return threadId ? threadId : index(0); }
  int64_t threads() const { return threadId ? numThreads : 1; }
  /// body(i) for i < n, strided over the block's threads.
  template <typename Fn> void forThreads(Value first, Value n, Fn body) {
    loop(add(first, threadIndex()), n, index(threads()), body);
  }
  Value toIndex(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }
  /// Thread t's word of the scratch (shared memory, [warps, 32]) as i32.
  Value threadWord(Value t) {
    Value word =
        load(scratch, {divUI(t, index(kWarp)),
                       arith::RemUIOp::create(b, loc, t, index(kWarp))});
    return arith::BitcastOp::create(b, loc, b.getI32Type(), word);
  }
  /// init + the sum of addend(i, running sum) over i < n, in i32.
  template <typename Fn> Value sumI32(Value n, Value init, Fn addend) {
    auto forOp =
        scf::ForOp::create(b, loc, index(0), n, index(1), ValueRange{init});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    Value sum = forOp.getRegionIterArgs()[0];
    scf::YieldOp::create(
        b, loc,
        ValueRange{arith::AddIOp::create(
            b, loc, sum, addend(forOp.getInductionVar(), sum))});
    return forOp.getResult(0);
  }
  void tokenOrder();
  void countIds();
  void scanCounts();
  void scatterTokens();
  /// Where word `half` (0: key, 1: value) of the pair at `place` of a sort
  /// is in the scratch.
  SmallVector<Value> pairSlot(int64_t half, Value place);
  Value pairWord(int64_t half, Value place);
  void storePair(Value place, Value key, Value value);
  /// Sorts the block's (key, value) pairs in shared memory, one a thread,
  /// by key, then value.
  void sortPairs(Value key, Value value);
  /// Puts the pairs at places i < partner in the order of stage k.
  void orderPair(Value i, Value partner, int64_t k);
  Value firstPlaceOf(Value key);
  void embeddingGradSlices(Value item);
  void embeddingGradRow(Value row, Value firstColumn, Value begin, Value end);
  /// log(sum_d exp(term(d))) over d < width, in every lane, in one pass:
  /// each lane keeps the largest term so far and the sum of exp(term -
  /// it), rescaled when it grows, so that no exponential overflows; the
  /// lanes' pairs merge by shuffles.
  Value logSumExp(int64_t width, function_ref<Value(Value)> term);
  /// Lane `from`'s i32 `word` as an index, in every lane.
  Value fromLane(Value word, Value from) {
    return toIndex(gpu::ShuffleOp::create(b, loc, word, from, i32(kWarp),
                                          gpu::ShuffleMode::IDX)
                       .getShuffleResult());
  }
  /// `v`'s terms combined by `kind` (v a chunk's vector), or `v` (a
  /// scalar).
  Value acrossChunk(vector::CombiningKind kind, Value v);
  /// The largest of `max` and v's terms (v a scalar or a vector).
  Value maxWith(Value max, Value v);
  /// What the exponentials of terms at most `max` subtract: `max`, or 0
  /// while every term is -inf (exp(-inf - -inf) would make the sum NaN).
  Value expShift(Value max);
  /// sum * exp(max - shift): a sum of exp(t - max) as one of exp(t - shift).
  Value rescaled(Value sum, Value max, Value shift);
  /// The logit of class `label` - `offset` of the `logits` row at `lead`
  /// of width() classes, or 0 when the label is none of them (nothing is
  /// read out of the row).
  Value labelLogit(Value label, int64_t offset, Value logits,
                   ArrayRef<Value> lead) {
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(b, loc,
                                       IntegerAttr::get(label.getType(), v));
    };
    Value local = arith::SubIOp::create(b, loc, label, constant(offset));
    Value inRow = inRange(local, index(0), index(width()));
    Value safe = arith::SelectOp::create(b, loc, inRow, local, constant(0));
    Value logit = columnsAt(
        logits, lead,
        arith::IndexCastOp::create(b, loc, b.getIndexType(), safe), 1);
    return arith::SelectOp::create(b, loc, inRow, logit, f32Const(0));
  }
  /// lse - target: 0 for an ignored label, NaN for one outside [0,
  /// classes), so that bad data shows in the loss.
  Value labelLoss(Value label, Value lse, Value target, int64_t classes) {
    Value loss = arith::SelectOp::create(
        b, loc, inRange(label, index(0), index(classes)),
        arith::SubFOp::create(b, loc, lse, target), f32Const(std::nan("")));
    return arith::SelectOp::create(b, loc, isIgnored(label), f32Const(0), loss);
  }
  void crossEntropyRow(Value row);
  void crossEntropyPartialRow(Value row);
  void crossEntropyCombineRow(Value row);
  void crossEntropyGradRow(Value row);
  Value isLabelColumn(Value label, int64_t offset, Value d);
  void tokenMean();
  void tokenMeanGrad(Value blockId);
  Value summand(Value value);
  void sumColumn(Value column);
  void sumColumnsByWarps(Value first);

  Operation *op;
  /// The buffers; in the vector form, their unit-stride views.
  attnc::KernelBuffers x;
  int64_t perBlock;
  /// Columns per access: kElementVectorWidth in the vector form, else 1.
  int64_t chunk = 1;
  /// GPU shared memory (rowKernelScratchShape): the threads' sums of a
  /// reduction, [warps, 32] f32, or a norm gradient's partial sums,
  /// [warps, width] f32.
  Value scratch;
  Value lane, warp;
};

template <typename Fn>
void RowKernelBlock::forBlockItems(Value blockId, Value count, Fn fn) {
  Value first = mul(blockId, index(perBlock));
  Value items = validRows(perBlock, count, first);
  if (!threadId)
    return loopTo(items, [&](Value i) { fn(add(first, i)); });
  loop(warp, items, index(numThreads / kWarp),
       [&](Value i) { fn(add(first, i)); });
}

Value RowKernelBlock::rowSum(function_ref<Value(Value)> term) {
  if (chunk == 1)
    return laneSum(width(), lane, lanes(), term);
  auto add = [&](Value acc, Value v) -> Value { return addF(acc, v); };
  int64_t chunks = width() / (lanes() * chunk);
  Value columns;
  // A warp's few chunks per lane as straight-line code, so that all their
  // loads are in flight at once; a loop over a host thread's many.
  if (chunks <= kUnrolledChunks) {
    for (int64_t k = 0; k < chunks; ++k) {
      Value part = term(chunkColumn(index(k)));
      columns = columns ? addF(columns, part) : part;
    }
  } else {
    columns = reduce(
        index(chunks), zeroColumns(),
        [&](Value k) { return term(chunkColumn(k)); }, add);
  }
  Value sum = acrossChunk(vector::CombiningKind::ADD, columns);
  if (tailStart(width()) < width())
    sum = foldColumns(add(lane, index(tailStart(width()))), width(), {sum},
                      [&](ValueRange state, ArrayRef<Value> d) {
                        return SmallVector<Value>{addF(state[0], term(d[0]))};
                      })[0];
  return laneCombine(sum, lanes(), add);
}

SmallVector<Value> RowKernelBlock::foldColumns(Value first, int64_t width,
                                               ValueRange init, FoldStep step) {
  int64_t vectorChunk = chunk;
  chunk = 1;
  auto forOp = scf::ForOp::create(
      b, loc, first, index(width), index(lanes()), init,
      [&](OpBuilder &nested, Location, Value d, ValueRange state) {
        inside(nested, [&] { scf::YieldOp::create(b, loc, step(state, {d})); });
      });
  chunk = vectorChunk;
  return SmallVector<Value>(forOp.getResults());
}

SmallVector<Value> RowKernelBlock::foldRow(int64_t width, ValueRange init,
                                           int64_t group, FoldStep step) {
  if (chunk == 1)
    return foldColumns(lane, width, init, step);
  int64_t chunks = width / (lanes() * chunk);
  auto groupColumns = [&](Value firstChunk, int64_t count) {
    SmallVector<Value> columns;
    for (int64_t k = 0; k < count; ++k)
      columns.push_back(chunkColumn(add(firstChunk, index(k))));
    return columns;
  };
  auto forOp = scf::ForOp::create(
      b, loc, index(0), index(chunks / group * group), index(group), init,
      [&](OpBuilder &nested, Location, Value k, ValueRange state) {
        inside(nested, [&] {
          scf::YieldOp::create(b, loc, step(state, groupColumns(k, group)));
        });
      });
  SmallVector<Value> state(forOp.getResults());
  if (int64_t rest = chunks % group)
    state = step(state, groupColumns(index(chunks - rest), rest));
  if (tailStart(width) == width)
    return state;
  return foldColumns(add(lane, index(tailStart(width))), width, state, step);
}

Value RowKernelBlock::acrossChunk(vector::CombiningKind kind, Value v) {
  if (!isa<VectorType>(v.getType()))
    return v;
  return vector::ReductionOp::create(b, loc, kind, v);
}

Value RowKernelBlock::maxWith(Value max, Value v) {
  return arith::MaximumFOp::create(
      b, loc, max, acrossChunk(vector::CombiningKind::MAXIMUMF, v));
}

Value RowKernelBlock::expShift(Value max) {
  Value allInfinite =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, max,
                            f32Const(-std::numeric_limits<double>::infinity()));
  return arith::SelectOp::create(b, loc, allInfinite, f32Const(0), max);
}

Value RowKernelBlock::rescaled(Value sum, Value max, Value shift) {
  return arith::MulFOp::create(
      b, loc, sum,
      math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, max, shift)));
}

Value RowKernelBlock::logSumExp(int64_t width,
                                function_ref<Value(Value)> term) {
  SmallVector<Value> init = {f32Const(-std::numeric_limits<double>::infinity()),
                             f32Const(0)};
  auto step = [&](ValueRange state, ArrayRef<Value> columns) {
    SmallVector<Value> values;
    Value max = state[0];
    for (Value d : columns) {
      values.push_back(term(d));
      max = maxWith(max, values.back());
    }
    Value shift = expShift(max);
    Value sum = rescaled(state[1], state[0], shift);
    for (Value v : values) {
      Value exps = math::ExpOp::create(b, loc, subF(v, shift));
      sum = arith::AddFOp::create(
          b, loc, sum, acrossChunk(vector::CombiningKind::ADD, exps));
    }
    return SmallVector<Value>{max, sum};
  };
  SmallVector<Value> lse = laneCombineAll(
      foldRow(width, init, kChunksInFlight, step), lanes(),
      [&](ValueRange mine, ValueRange theirs) {
        Value merged = arith::MaximumFOp::create(b, loc, mine[0], theirs[0]);
        Value shift = expShift(merged);
        return SmallVector<Value>{
            merged,
            arith::AddFOp::create(b, loc, rescaled(mine[1], mine[0], shift),
                                  rescaled(theirs[1], theirs[0], shift))};
      });
  return arith::AddFOp::create(b, loc, lse[0],
                               math::LogOp::create(b, loc, lse[1]));
}

template <typename Fn> void RowKernelBlock::inColumnChunks(Fn body) {
  // Whole chunks keep every row at a 16-byte boundary; a lane needs one.
  if (width() % attnc::kElementVectorWidth != 0 ||
      width() < lanes() * attnc::kElementVectorWidth)
    return body();
  Value applies = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (Value buffer : llvm::concat<Value>(x.operands, x.results))
    if (buffer)
      applies = arith::AndIOp::create(b, loc, applies,
                                      attnc::isDenseAndAligned(b, loc, buffer));
  attnc::KernelBuffers elementwise = x;
  ifThenElse(
      applies,
      [&] {
        for (Value &buffer : llvm::concat<Value>(x.operands, x.results))
          if (buffer)
            buffer =
                attnc::denseView(b, loc, buffer, attnc::DenseLayout::Strided);
        chunk = attnc::kElementVectorWidth;
        body();
        chunk = 1;
        x = elementwise;
      },
      body);
}

/// The mean of a row of `in` (LayerNorm's), or null for RMSNorm's.
Value RowKernelBlock::rowMean(Value in, ArrayRef<Value> lead) {
  if (!centered())
    return Value();
  Value sum = rowSum([&](Value d) { return at(in, lead, d); });
  return arith::DivFOp::create(b, loc, sum, f32Const(width()));
}

/// With xc = x - mean (LayerNorm) or x (RMSNorm): rstd = 1 / sqrt(mean(xc^2)
/// + epsilon); out = xc * rstd * weight (+ bias).
void RowKernelBlock::normRow(Value row) {
  Value in = x.operands[0], weight = x.operands[1];
  Value bias = x.operands.size() > 2 ? x.operands[2] : Value();
  SmallVector<Value> lead = rowIndex(in, row);
  Value mean = rowMean(in, lead);
  auto centeredAt = [&](Value d) { return centeredValue(in, lead, d, mean); };
  Value squares = rowSum([&](Value d) {
    Value v = centeredAt(d);
    return mulF(v, v);
  });
  Value variance = arith::DivFOp::create(b, loc, squares, f32Const(width()));
  Value shifted = arith::AddFOp::create(
      b, loc, variance,
      f32Const(op->getAttrOfType<FloatAttr>("epsilon").getValueAsDouble()));
  Value rstd = arith::DivFOp::create(b, loc, f32Const(1.0),
                                     math::SqrtOp::create(b, loc, shifted));
  if (Value out = x.results[1])
    storeFromLane0(rstd, out, lead, lane, lanes());
  if (Value out = x.results[0])
    forRowChunks([&](Value d) {
      Value v = mulF(mulF(centeredAt(d), rstd), at(weight, {}, d));
      if (bias)
        v = addF(v, at(bias, {}, d));
      storeAt(v, out, lead, d);
    });
}

/// The rows partial, partial + P, ...: dx of each, and the sum of their
/// dout * xhat into the partial row. xhat = (x - mean) * rstd, g = dout *
/// weight, dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), where
/// LayerNorm's mean(g) term is dropped for RMSNorm (whose mean is 0).
void RowKernelBlock::gradPartial(Value partial) {
  Value in = x.operands[0], weight = x.operands[1], rstdIn = x.operands[2],
        dout = x.operands[3], dx = x.results[0], sums = x.results[1];
  Value addend = x.operands.size() > 4 ? x.operands[4] : Value();
  int64_t partials = cast<MemRefType>(sums.getType()).getDimSize(0);
  // The partial row accumulates in the warp's row of shared memory where
  // there is one, written to `sums` once at the end.
  Value acc = scratch ? scratch : sums;
  Value accRow = scratch ? warp : partial;
  forRowChunks([&](Value d) { storeAt(zeroColumns(), acc, {accRow}, d); });
  loop(partial, rowCount(in), index(partials), [&](Value row) {
    SmallVector<Value> lead = rowIndex(in, row);
    Value rstd = load(rstdIn, lead);
    Value mean = rowMean(in, lead);
    auto gAt = [&](Value d) {
      return mulF(at(dout, lead, d), at(weight, {}, d));
    };
    Value dot = rowSum([&](Value d) {
      return mulF(gAt(d), centeredValue(in, lead, d, mean));
    });
    // mean(g * xhat) = rstd * sum(g * xc) / D
    Value meanDot =
        arith::DivFOp::create(b, loc, mulF(dot, rstd), f32Const(width()));
    Value meanG = centered() ? arith::DivFOp::create(b, loc, rowSum(gAt),
                                                     f32Const(width()))
                             : Value();
    forRowChunks([&](Value d) {
      Value dy = at(dout, lead, d);
      Value xhat = mulF(centeredValue(in, lead, d, mean), rstd);
      if (dx) {
        Value g = mulF(dy, at(weight, {}, d));
        if (meanG)
          g = subF(g, meanG);
        Value grad = mulF(rstd, subF(g, mulF(xhat, meanDot)));
        if (addend)
          grad = addF(grad, at(addend, lead, d));
        storeAt(grad, dx, lead, d);
      }
      storeAt(addF(at(acc, {accRow}, d), mulF(dy, xhat)), acc, {accRow}, d);
    });
  });
  if (scratch)
    forRowChunks(
        [&](Value d) { storeAt(at(scratch, {warp}, d), sums, {partial}, d); });
}

Value RowKernelBlock::isIgnored(Value label) {
  int64_t ignore = op->getAttrOfType<IntegerAttr>("ignore_index").getInt();
  Value ignoreValue = arith::ConstantOp::create(
      b, loc, IntegerAttr::get(label.getType(), ignore));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, label,
                               ignoreValue);
}

Value RowKernelBlock::countsAt(Value labels, Value token) {
  Value ignored = isIgnored(load(labels, elementIndex(labels, token)));
  return arith::XOrIOp::create(
      b, loc, ignored,
      arith::ConstantOp::create(b, loc, b.getBoolAttr(true)).getResult());
}

Value RowKernelBlock::stridedSum(Value first, Value n, Value step,
                                 function_ref<Value(Value)> term) {
  auto forOp =
      scf::ForOp::create(b, loc, first, n, step, ValueRange{f32Const(0)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forOp.getBody());
  Value sum = arith::AddFOp::create(b, loc, forOp.getRegionIterArgs()[0],
                                    term(forOp.getInductionVar()));
  scf::YieldOp::create(b, loc, ValueRange{sum});
  return forOp.getResult(0);
}

template <typename Fn> Value RowKernelBlock::blockSum(Value n, Fn term) {
  if (!threadId)
    return stridedSum(index(0), n, index(1), term);
  Value own = stridedSum(threadId, n, index(numThreads), term);
  store(own, scratch, {warp, lane});
  barrier();
  Value total = reduce(
      index(numThreads), f32Const(0),
      [&](Value t) {
        return load(scratch, {divUI(t, index(kWarp)),
                              arith::RemUIOp::create(b, loc, t, index(kWarp))});
      },
      [&](Value acc, Value v) -> Value {
        return arith::AddFOp::create(b, loc, acc, v);
      });
  // The scratch is free again once every thread has read it.
  barrier();
  return total;
}

Value RowKernelBlock::inRange(Value v, Value lower, Value upper) {
  Type type = v.getType();
  auto cast = [&](Value bound) -> Value {
    return arith::IndexCastOp::create(b, loc, type, bound);
  };
  return arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, v, cast(lower)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, cast(upper)));
}

/// out[row, :] = table[id, :], NaN for an id outside [0, V).
void RowKernelBlock::embeddingRow(Value row) {
  Value table = x.operands[0], out = x.results[0];
  SmallVector<Value> lead = rowIndex(out, row);
  Value id = load(x.operands[1], lead);
  Value valid = inRange(id, index(0),
                        index(cast<MemRefType>(table.getType()).getDimSize(0)));
  Value safe = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      arith::SelectOp::create(
          b, loc, valid, id,
          arith::ConstantOp::create(b, loc, IntegerAttr::get(id.getType(), 0))
              .getResult()));
  forLaneColumns(width(), lane, lanes(), [&](Value d) {
    Value v = arith::SelectOp::create(b, loc, valid, at(table, {safe}, d),
                                      f32Const(std::nan("")));
    storeAt(v, out, lead, d);
  });
}

/// attn.token_order: bounds[v + 1] counts the tokens of id v, the counts
/// are summed in place to each id's first place, then each token goes to
/// its id's next place, which moves that id's bound to its end; places past
/// the last bound (tokens of no id) get -1.
void RowKernelBlock::tokenOrder() {
  Value order = x.results[0], bounds = x.results[1];
  forThreads(index(0), memref::DimOp::create(b, loc, bounds, 0),
             [&](Value i) { store(i32(0), bounds, {i}); });
  barrier();
  countIds();
  barrier();
  scanCounts();
  barrier();
  scatterTokens();
  barrier();
  Value classes = index(cast<MemRefType>(bounds.getType()).getDimSize(0) - 1);
  forThreads(toIndex(load(bounds, {classes})), elementCount(order),
             [&](Value p) { store(i32(-1), order, elementIndex(order, p)); });
}

/// bounds[id + 1] += 1 for each token with an id in [0, V): integer atomics,
/// so the counts do not depend on timing.
void RowKernelBlock::countIds() {
  Value ids = x.operands[0], bounds = x.results[1];
  int64_t classes = cast<MemRefType>(bounds.getType()).getDimSize(0) - 1;
  forThreads(index(0), elementCount(ids), [&](Value t) {
    Value id = load(ids, elementIndex(ids, t));
    ifThen(inRange(id, index(0), index(classes)), [&] {
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, i32(1),
                                  bounds,
                                  ValueRange{add(toIndex(id), index(1))});
    });
  });
}

/// bounds[1..V] becomes its exclusive prefix sums (bounds[0] stays 0): each
/// thread sums a contiguous range, the threads' sums go through shared
/// memory (as f32 bit patterns), and each thread rewrites its range from
/// the sum of the ranges before it.
void RowKernelBlock::scanCounts() {
  Value bounds = x.results[1];
  int64_t classes = cast<MemRefType>(bounds.getType()).getDimSize(0) - 1;
  int64_t range = llvm::divideCeil(classes, threads());
  Value first = add(index(1), mul(threadIndex(), index(range)));
  Value end = arith::MaxUIOp::create(
      b, loc, first,
      arith::MinUIOp::create(b, loc, add(first, index(range)),
                             index(classes + 1)));
  Value base = i32(0);
  if (threadId) {
    Value own = sumI32(sub(end, first), i32(0), [&](Value i, Value) {
      return load(bounds, {add(first, i)});
    });
    store(arith::BitcastOp::create(b, loc, f32, own), scratch, {warp, lane});
    barrier();
    base =
        sumI32(threadId, i32(0), [&](Value t, Value) { return threadWord(t); });
  }
  // Each place gets the sum before it, then adds its own count.
  sumI32(sub(end, first), base, [&](Value i, Value before) {
    Value place = add(first, i);
    Value count = load(bounds, {place});
    store(before, bounds, {place});
    return count;
  });
}

/// Tokens in chunks of the block's threads, a thread each. A chunk's (id,
/// index) pairs are sorted in shared memory, so that a token's rank among
/// the chunk's tokens of its id is its distance from its id's first pair;
/// its place is its id's bound plus that rank. Once every thread has read
/// its bound, the last token of each id moves the bound past the chunk's
/// tokens of that id: one writer per bound, so the order is the same
/// whatever the timing.
void RowKernelBlock::scatterTokens() {
  Value ids = x.operands[0], order = x.results[0], bounds = x.results[1];
  int64_t classes = cast<MemRefType>(bounds.getType()).getDimSize(0) - 1;
  Value tokens = elementCount(ids);
  loop(index(0), tokens, index(threads()), [&](Value chunk) {
    Value token = add(chunk, threadIndex());
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, token, tokens);
    Value id =
        load(ids, elementIndex(ids, arith::SelectOp::create(b, loc, inside,
                                                            token, index(0))));
    Value valid = arith::AndIOp::create(b, loc, inside,
                                        inRange(id, index(0), index(classes)));
    // Tokens of no id sort after every id.
    Value key = arith::SelectOp::create(b, loc, valid, toI32(toIndex(id)),
                                        i32(classes));
    // A host thread's chunk is its one token.
    Value place = threadIndex(), sortedKey = key, sortedToken = token,
          rank = index(0), lastOfId = valid;
    if (threadId) {
      sortPairs(key, toI32(place));
      sortedKey = pairWord(0, place);
      sortedToken = add(chunk, toIndex(pairWord(1, place)));
      rank = sub(place, firstPlaceOf(sortedKey));
      Value next = arith::MinUIOp::create(b, loc, add(place, index(1)),
                                          index(threads() - 1));
      lastOfId = arith::OrIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, place, next),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                pairWord(0, next), sortedKey));
    }
    Value slot = add(
        toIndex(arith::MinSIOp::create(b, loc, sortedKey, i32(classes - 1))),
        index(1));
    Value bound = add(toIndex(load(bounds, {slot})), rank);
    // Every thread reads its bound before any moves one.
    barrier();
    ifThen(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, sortedKey,
                                 i32(classes)),
           [&] {
             store(toI32(sortedToken), order, elementIndex(order, bound));
             ifThen(lastOfId, [&] {
               store(toI32(add(bound, index(1))), bounds, {slot});
             });
           });
    // The pairs are read before the next chunk writes its own.
    barrier();
  });
}

SmallVector<Value> RowKernelBlock::pairSlot(int64_t half, Value place) {
  Value row = add(divUI(place, index(kWarp)), index(half * threads() / kWarp));
  return {row, arith::RemUIOp::create(b, loc, place, index(kWarp))};
}

Value RowKernelBlock::pairWord(int64_t half, Value place) {
  return arith::BitcastOp::create(b, loc, b.getI32Type(),
                                  load(scratch, pairSlot(half, place)));
}

void RowKernelBlock::storePair(Value place, Value key, Value value) {
  Value words[] = {key, value};
  for (int64_t half = 0; half < 2; ++half)
    store(arith::BitcastOp::create(b, loc, f32, words[half]), scratch,
          pairSlot(half, place));
}

/// A bitonic sort of the threads' pairs (threads() a power of two): in
/// stage (k, j), the thread of each pair of places i < i ^ j puts the two
/// in the order of its run of k (ascending where i & k is 0).
void RowKernelBlock::sortPairs(Value key, Value value) {
  Value i = threadIndex();
  storePair(i, key, value);
  barrier();
  for (int64_t k = 2; k <= threads(); k *= 2) {
    for (int64_t j = k / 2; j >= 1; j /= 2) {
      Value partner = arith::XOrIOp::create(b, loc, i, index(j));
      ifThen(
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, partner, i),
          [&] { orderPair(i, partner, k); });
      barrier();
    }
  }
}

void RowKernelBlock::orderPair(Value i, Value partner, int64_t k) {
  Value key = pairWord(0, i), value = pairWord(1, i);
  Value otherKey = pairWord(0, partner), otherValue = pairWord(1, partner);
  auto cmp = [&](arith::CmpIPredicate predicate, Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  };
  // Pairs are unique: their values are the threads'.
  Value greater = arith::OrIOp::create(
      b, loc, cmp(arith::CmpIPredicate::sgt, key, otherKey),
      arith::AndIOp::create(b, loc,
                            cmp(arith::CmpIPredicate::eq, key, otherKey),
                            cmp(arith::CmpIPredicate::sgt, value, otherValue)));
  Value descending = cmp(arith::CmpIPredicate::ne,
                         arith::AndIOp::create(b, loc, i, index(k)), index(0));
  ifThen(arith::XOrIOp::create(b, loc, greater, descending), [&] {
    storePair(i, otherKey, otherValue);
    storePair(partner, key, value);
  });
}

/// The first place of the sorted pairs whose key is `key`: the count of
/// keys below it, found by halving.
Value RowKernelBlock::firstPlaceOf(Value key) {
  Value first = index(0);
  for (int64_t step = threads() / 2; step >= 1; step /= 2) {
    Value below =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                              pairWord(0, add(first, index(step - 1))), key);
    first =
        arith::SelectOp::create(b, loc, below, add(first, index(step)), first);
  }
  return first;
}

/// The slices item, item + items, item + 2 * items, ... of the dtable rows
/// (slice j of row r is r * slices + j): each slice's sum of the dout rows
/// of its row's tokens, in order. Most rows of a table have no tokens in a
/// batch, so a warp takes many slices, whose bounds its lanes load
/// together; the slices it takes are far apart, so that the frequent ids,
/// often close together (a byte-level corpus uses the first 256), are
/// spread over many warps.
void RowKernelBlock::embeddingGradSlices(Value item) {
  Value bounds = x.operands[1], tokens = elementCount(x.operands[0]);
  auto grad = cast<attn::EmbeddingGradOp>(op);
  int64_t rows = grad.getDtable().getType().getDimSize(0),
          slices = gradSlices(grad), items = gradItems(grad);
  // Slice k of the warp: its row and first column.
  auto sliceAt = [&](Value k) -> std::pair<Value, Value> {
    Value slice = arith::MinUIOp::create(
        b, loc, add(item, mul(k, index(items))), index(rows * slices - 1));
    return {divUI(slice, index(slices)),
            mul(arith::RemUIOp::create(b, loc, slice, index(slices)),
                index(kGradSliceColumns))};
  };
  // Bounds clamped to [0, tokens] and places to a token, as the reference
  // does, so that bad order or bounds read nothing out of bounds.
  auto rowBounds = [&](Value row) -> std::pair<Value, Value> {
    Value end = arith::MinUIOp::create(
        b, loc, toIndex(load(bounds, {add(row, index(1))})), tokens);
    return {arith::MinUIOp::create(b, loc, toIndex(load(bounds, {row})), end),
            end};
  };
  // The slices below rows * slices: those k with item + k * items below.
  Value count = arith::MinUIOp::create(
      b, loc, index(kGradSlicesPerWarp),
      arith::CeilDivUIOp::create(b, loc, sub(index(rows * slices), item),
                                 index(items)));
  if (!threadId)
    return loopTo(count, [&](Value k) {
      auto [row, firstColumn] = sliceAt(k);
      auto [begin, end] = rowBounds(row);
      embeddingGradRow(row, firstColumn, begin, end);
    });
  // Lane k holds the bounds of slice k's row, handed to the whole warp by
  // shuffles.
  auto [ownBegin, ownEnd] = rowBounds(sliceAt(lane).first);
  loopTo(count, [&](Value k) {
    auto [row, firstColumn] = sliceAt(k);
    Value end = fromLane(toI32(ownEnd), toI32(k));
    embeddingGradRow(row, firstColumn, fromLane(toI32(ownBegin), toI32(k)),
                     end);
  });
}

/// The slice of dtable row `row` from `firstColumn`: the sum of the dout
/// rows of the tokens at places [begin, end), in order. A warp's lanes take
/// 32 of the places at a time (one coalesced load), then all their
/// columns' loads go out before the first add, so a frequent id's
/// thousands of tokens cost a memory round trip per 32.
void RowKernelBlock::embeddingGradRow(Value row, Value firstColumn, Value begin,
                                      Value end) {
  Value order = x.operands[0], dout = x.operands[2], dtable = x.results[0];
  int64_t width = cast<MemRefType>(dtable.getType()).getDimSize(1);
  SmallVector<Value> columns, valid;
  for (int64_t k = 0; k < kGradSliceColumns / lanes(); ++k) {
    Value d = add(firstColumn, add(lane, index(k * lanes())));
    valid.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, d,
                                          index(width)));
    columns.push_back(
        arith::SelectOp::create(b, loc, valid.back(), d, index(width - 1)));
  }
  Value tokens = elementCount(order);
  SmallVector<Value> zeros(columns.size(), f32Const(0));
  auto forOp = scf::ForOp::create(b, loc, begin, end, index(lanes()), zeros);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    Value chunk = forOp.getInductionVar();
    Value last = sub(end, index(1));
    Value mine = arith::MinUIOp::create(b, loc, add(chunk, lane), last);
    Value token = load(order, elementIndex(order, mine));
    // Each lane splits its own token's index into dout's leading dims (64-bit
    // divisions, once a lane), and the warp shares them.
    SmallVector<Value> ownLead =
        rowIndex(dout, arith::MinUIOp::create(b, loc, toIndex(token),
                                              sub(tokens, index(1))));
    SmallVector<Value> shared;
    if (threadId)
      for (Value dim : ownLead)
        shared.push_back(toI32(dim));
    SmallVector<Value> sums(forOp.getRegionIterArgs());
    SmallVector<std::pair<Value, SmallVector<Value>>> rows;
    for (int64_t j = 0; j < lanes(); ++j) {
      SmallVector<Value> lead = ownLead;
      if (threadId)
        for (auto [dim, word] : llvm::zip(lead, shared))
          dim = fromLane(word, i32(j));
      SmallVector<Value> values;
      for (Value d : columns)
        values.push_back(at(dout, lead, d));
      rows.push_back({add(chunk, index(j)), values});
    }
    for (auto &[place, values] : rows) {
      Value inRow =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, place, end);
      for (size_t k = 0; k < sums.size(); ++k)
        sums[k] = arith::SelectOp::create(
            b, loc, inRow, arith::AddFOp::create(b, loc, sums[k], values[k]),
            sums[k]);
    }
    scf::YieldOp::create(b, loc, sums);
  }
  for (auto [sum, d, inside] : llvm::zip(forOp.getResults(), columns, valid))
    ifThen(inside, [&] { store(sum, dtable, {row, d}); });
}

/// lse = m + log(sum exp(x - m)) with m the row's max; loss = lse -
/// x[label], 0 for an ignored label, NaN for one outside [0, V).
void RowKernelBlock::crossEntropyRow(Value row) {
  Value logits = x.operands[0], labels = x.operands[1];
  SmallVector<Value> lead = rowIndex(logits, row);
  auto logitAt = [&](Value d) { return at(logits, lead, d); };
  Value lse = logSumExp(width(), logitAt);
  if (Value out = x.results[1])
    storeFromLane0(lse, out, lead, lane, lanes());
  Value out = x.results[0];
  if (!out)
    return;
  Value label = load(labels, lead);
  Value loss =
      labelLoss(label, lse, labelLogit(label, 0, logits, lead), width());
  storeFromLane0(loss, out, lead, lane, lanes());
}

/// A vocabulary chunk's part of a row: lse over the chunk's classes, and
/// the label's logit when the label is one of them, else 0; both at [0,
/// row...].
void RowKernelBlock::crossEntropyPartialRow(Value row) {
  Value logits = x.operands[0], labels = x.operands[1];
  SmallVector<Value> lead = rowIndex(logits, row);
  auto logitAt = [&](Value d) { return at(logits, lead, d); };
  SmallVector<Value> part = {index(0)};
  llvm::append_range(part, lead);
  if (Value lse = x.results[0])
    storeFromLane0(logSumExp(width(), logitAt), lse, part, lane, lanes());
  Value out = x.results[1];
  if (!out)
    return;
  int64_t offset =
      cast<attn::CrossEntropyPartialOp>(op).getVocabOffsetAttr().getInt();
  storeFromLane0(labelLogit(load(labels, lead), offset, logits, lead), out,
                 part, lane, lanes());
}

/// A row's loss from its chunks' parts: lse = log sum_p exp(lse_p), loss =
/// lse - sum_p target_p, 0 for an ignored label, NaN for one outside [0,
/// vocab_size).
void RowKernelBlock::crossEntropyCombineRow(Value row) {
  auto combine = cast<attn::CrossEntropyCombineOp>(op);
  Value parts = x.operands[0], targets = x.operands[1], labels = x.operands[2];
  int64_t count = cast<MemRefType>(parts.getType()).getDimSize(0);
  SmallVector<Value> lead = elementIndex(labels, row);
  auto partAt = [&](Value buffer, Value p) {
    SmallVector<Value> indices = {p};
    llvm::append_range(indices, lead);
    return load(buffer, indices);
  };
  Value lse = logSumExp(count, [&](Value p) { return partAt(parts, p); });
  Value target = laneSum(count, lane, lanes(),
                         [&](Value p) { return partAt(targets, p); });
  if (Value out = x.results[1])
    storeFromLane0(lse, out, lead, lane, lanes());
  Value out = x.results[0];
  if (!out)
    return;
  Value loss = labelLoss(load(labels, lead), lse, target,
                         combine.getVocabSizeAttr().getInt());
  storeFromLane0(loss, out, lead, lane, lanes());
}

/// dlogits = (exp(x - lse) - [d + vocab_offset == label]) * dloss, 0 on an
/// ignored row.
void RowKernelBlock::crossEntropyGradRow(Value row) {
  Value logits = x.operands[0], labels = x.operands[1], dlogits = x.results[0];
  SmallVector<Value> lead = rowIndex(logits, row);
  Value label = load(labels, lead);
  Value lse = load(x.operands[2], lead);
  Value dloss = arith::SelectOp::create(b, loc, isIgnored(label), f32Const(0),
                                        load(x.operands[3], lead));
  int64_t offset =
      cast<attn::CrossEntropyGradOp>(op).getVocabOffsetAttr().getInt();
  // All of a group's loads go out before its first store.
  foldRow(width(), {}, kChunksInFlight,
          [&](ValueRange, ArrayRef<Value> columns) {
            SmallVector<Value> values;
            for (Value d : columns)
              values.push_back(at(logits, lead, d));
            for (auto [d, v] : llvm::zip(columns, values)) {
              Value p = math::ExpOp::create(b, loc, subF(v, lse));
              Value onehot = arith::UIToFPOp::create(
                  b, loc, p.getType(), isLabelColumn(label, offset, d));
              storeAt(mulF(subF(p, onehot), dloss), dlogits, lead, d);
            }
            return SmallVector<Value>();
          });
}

/// Which of the `chunk` columns from `d` (+ the vocabulary offset) are the
/// label's class: an i1, or a vector of them.
Value RowKernelBlock::isLabelColumn(Value label, int64_t offset, Value d) {
  Type type = label.getType();
  // label - (d + offset) against the chunk's column numbers 0, 1, ...
  Value relative = arith::SubIOp::create(
      b, loc, label,
      arith::IndexCastOp::create(b, loc, type, add(d, index(offset))));
  if (chunk == 1)
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, relative,
        arith::ConstantOp::create(b, loc, IntegerAttr::get(type, 0)));
  auto vectorType = VectorType::get({chunk}, type);
  SmallVector<Attribute> columns;
  for (int64_t k = 0; k < chunk; ++k)
    columns.push_back(IntegerAttr::get(type, k));
  Value numbers = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(vectorType, columns));
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      vector::BroadcastOp::create(b, loc, vectorType, relative), numbers);
}

/// mean = sum of the counted values / their count, in one block.
void RowKernelBlock::tokenMean() {
  Value values = x.operands[0], labels = x.operands[1], mean = x.results[0];
  Value n = elementCount(values);
  Value sum = blockSum(n, [&](Value i) {
    return ifCounts(labels, i, load(values, elementIndex(values, i)));
  });
  Value count =
      blockSum(n, [&](Value i) { return ifCounts(labels, i, f32Const(1)); });
  Value result = arith::DivFOp::create(b, loc, sum, count);
  if (!threadId)
    return store(result, mean, {});
  ifThen(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, threadId,
                               index(0)),
         [&] { store(result, mean, {}); });
}

/// dvalues = dmean / count for the block's counted tokens, 0 for the
/// others; every block counts the tokens again (a pass over the labels,
/// small beside the logits these losses come from).
void RowKernelBlock::tokenMeanGrad(Value blockId) {
  Value labels = x.operands[0], dvalues = x.results[0];
  Value n = elementCount(labels);
  Value count =
      blockSum(n, [&](Value i) { return ifCounts(labels, i, f32Const(1)); });
  Value scale = arith::DivFOp::create(b, loc, load(x.operands[1], {}), count);
  Value first = mul(blockId, index(perBlock));
  Value items = validRows(perBlock, n, first);
  auto body = [&](Value i) {
    Value token = add(first, i);
    store(ifCounts(labels, token, scale), dvalues,
          elementIndex(dvalues, token));
  };
  if (!threadId)
    return loopTo(items, body);
  loop(threadId, items, index(numThreads), body);
}

/// out[column] = the sum of the column over the rows, in row order.
void RowKernelBlock::sumColumn(Value column) {
  Value in = x.operands[0], out = x.results[0];
  Value total = reduce(
      rowCount(in), f32Const(0),
      [&](Value row) { return summand(at(in, rowIndex(in, row), column)); },
      [&](Value acc, Value v) -> Value {
        return arith::AddFOp::create(b, loc, acc, v);
      });
  store(fromF32(total, out), out, column);
}

/// What sum_rows adds of an element (in f32): its square with `squares`.
Value RowKernelBlock::summand(Value value) {
  if (!cast<attn::SumRowsOp>(op).getSquares())
    return value;
  return arith::MulFOp::create(b, loc, value, value);
}

void RowKernelBlock::emit(Value blockId) {
  if (isa<attn::RmsNormOp, attn::LayerNormOp>(op))
    return inColumnChunks([&] {
      forBlockItems(blockId, rowCount(x.operands[0]),
                    [&](Value row) { normRow(row); });
    });
  if (isa<attn::EmbeddingOp>(op))
    return forBlockItems(blockId, rowCount(x.results[0]),
                         [&](Value row) { embeddingRow(row); });
  if (auto grad = dyn_cast<attn::EmbeddingGradOp>(op))
    return forBlockItems(blockId, index(gradItems(grad)),
                         [&](Value item) { embeddingGradSlices(item); });
  if (isa<attn::TokenOrderOp>(op))
    return tokenOrder();
  if (isa<attn::CrossEntropyOp, attn::CrossEntropyGradOp,
          attn::CrossEntropyPartialOp>(op))
    return inColumnChunks([&] {
      forBlockItems(blockId, rowCount(x.operands[0]), [&](Value row) {
        if (isa<attn::CrossEntropyOp>(op))
          return crossEntropyRow(row);
        if (isa<attn::CrossEntropyGradOp>(op))
          return crossEntropyGradRow(row);
        crossEntropyPartialRow(row);
      });
    });
  if (isa<attn::CrossEntropyCombineOp>(op))
    return forBlockItems(blockId, elementCount(x.operands[2]),
                         [&](Value row) { crossEntropyCombineRow(row); });
  if (isa<attn::TokenMeanOp>(op))
    return tokenMean();
  if (isa<attn::TokenMeanGradOp>(op))
    return tokenMeanGrad(blockId);
  if (isa<attn::RmsNormGradOp, attn::LayerNormGradOp>(op))
    return inColumnChunks([&] {
      Value partials = memref::DimOp::create(b, loc, x.results[1], 0);
      forBlockItems(blockId, partials, [&](Value p) { gradPartial(p); });
    });
  Value first = mul(blockId, index(perBlock));
  if (threadId)
    return sumColumnsByWarps(first);
  // A thread per column.
  Value columns = validRows(perBlock, index(width()), first);
  forEachRow(columns, [&](Value i) { sumColumn(add(first, i)); });
}

/// On a GPU, 32 columns at a time, a lane each: the block's warps sum
/// interleaved rows (warp w rows w, w + warps, ...), coalesced along the
/// columns, and warp 0 adds their sums in warp order, so the result does
/// not depend on timing. A thread per column walking every row would leave
/// most of the chip idle (2048 columns are 8 blocks).
void RowKernelBlock::sumColumnsByWarps(Value first) {
  Value in = x.operands[0], out = x.results[0];
  int64_t warps = numThreads / kWarp;
  Value rows = rowCount(in);
  loop(index(0), index(perBlock), index(kWarp), [&](Value group) {
    Value column = add(add(first, group), lane);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         column, index(width()));
    Value sum = ifElse(
        inside, {f32},
        [&] {
          return SmallVector<Value>{
              stridedSum(warp, rows, index(warps), [&](Value row) {
                return summand(at(in, rowIndex(in, row), column));
              })};
        },
        [&] { return SmallVector<Value>{f32Const(0)}; })[0];
    store(sum, scratch, {warp, lane});
    barrier();
    Value lead =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp, index(0));
    ifThen(arith::AndIOp::create(b, loc, lead, inside), [&] {
      Value total = reduce(
          index(warps), f32Const(0),
          [&](Value w) {
            return load(scratch, {w, lane});
          },
          [&](Value acc, Value v) -> Value {
            return arith::AddFOp::create(b, loc, acc, v);
          });
      store(fromF32(total, out), out, column);
    });
    barrier();
  });
}

} // namespace

int64_t attnc::rowKernelThreads(Operation *op) {
  return reducesByBlock(op) ? reduceWarps(op) * kWarp : blockSizeOf(op) * kWarp;
}

SmallVector<int64_t> attnc::rowKernelScratchShape(Operation *op) {
  // A token order sorts a pair of words a thread.
  if (isa<attn::TokenOrderOp>(op))
    return {2 * kOrderWarps, kWarp};
  if (reducesByBlock(op))
    return {reduceWarps(op), kWarp};
  if (partialSumsShared(op))
    return {blockSizeOf(op),
            cast<ShapedType>(op->getOperand(0).getType()).getShape().back()};
  return {};
}

Value attnc::rowKernelGrid(OpBuilder &b, Location loc, Operation *op,
                           const KernelBuffers &buffers) {
  // The product of the first `dims` dims of `buffer`.
  auto product = [&](Value buffer, int64_t dims) -> Value {
    Value count = arith::ConstantIndexOp::create(b, loc, 1);
    for (int64_t d = 0; d < dims; ++d)
      count = arith::MulIOp::create(b, loc, count,
                                    memref::DimOp::create(b, loc, buffer, d));
    return count;
  };
  Value in = buffers.operands[0];
  int64_t rank = cast<MemRefType>(in.getType()).getRank();
  Value count;
  if (isa<attn::RmsNormOp, attn::LayerNormOp, attn::CrossEntropyOp,
          attn::CrossEntropyGradOp, attn::CrossEntropyPartialOp>(op)) {
    count = product(in, rank - 1);
  } else if (isa<attn::CrossEntropyCombineOp>(op)) {
    Value labels = buffers.operands[2];
    count = product(labels, cast<MemRefType>(labels.getType()).getRank());
  } else if (isa<attn::TokenMeanOp, attn::TokenOrderOp>(op)) {
    return arith::ConstantIndexOp::create(b, loc, 1);
  } else if (isa<attn::EmbeddingOp>(op)) {
    Value ids = buffers.operands[1];
    count = product(ids, cast<MemRefType>(ids.getType()).getRank());
  } else if (auto grad = dyn_cast<attn::EmbeddingGradOp>(op)) {
    count = arith::ConstantIndexOp::create(b, loc, gradItems(grad));
  } else if (isa<attn::TokenMeanGradOp>(op)) {
    count = product(in, rank);
  } else if (isa<attn::RmsNormGradOp, attn::LayerNormGradOp>(op)) {
    count = memref::DimOp::create(b, loc, buffers.results[1], 0);
  } else {
    // sum_rows: its columns, one for a rank-0 result.
    auto out = cast<ShapedType>(op->getResult(0).getType());
    count = arith::ConstantIndexOp::create(
        b, loc, out.getRank() ? out.getDimSize(0) : 1);
  }
  return arith::CeilDivUIOp::create(
      b, loc, count, arith::ConstantIndexOp::create(b, loc, blockSizeOf(op)));
}

/// sum_rows to a rank-0 result sums rows of one column: its [R] input and
/// [] result as [R, 1] and [1]. Other kernels' buffers are as they are.
static attnc::KernelBuffers
rowKernelBuffers(OpBuilder &b, Location loc, Operation *op,
                 const attnc::KernelBuffers &buffers) {
  auto sum = dyn_cast<attn::SumRowsOp>(op);
  if (!sum || sum.getOut().getType().getRank() != 0 || !buffers.results[0])
    return buffers;
  auto expand = [&](Value buffer, SmallVector<OpFoldResult> shape,
                    SmallVector<ReassociationIndices> reassociation) -> Value {
    SmallVector<int64_t> staticShape;
    SmallVector<Value> dynamic;
    dispatchIndexOpFoldResults(shape, dynamic, staticShape);
    auto type = memref::ExpandShapeOp::computeExpandedType(
        cast<MemRefType>(buffer.getType()), staticShape, reassociation);
    return memref::ExpandShapeOp::create(b, loc, *type, buffer, reassociation,
                                         shape);
  };
  attnc::KernelBuffers columns = buffers;
  Value in = buffers.operands[0];
  columns.operands[0] = expand(
      in, {memref::getMixedSize(b, loc, in, 0), b.getIndexAttr(1)}, {{0, 1}});
  columns.results[0] = expand(buffers.results[0], {b.getIndexAttr(1)}, {});
  return columns;
}

void attnc::emitRowKernelBlock(OpBuilder &b, Location loc, Operation *op,
                               const KernelBuffers &buffers, Value blockId,
                               Value threadId, Value scratch) {
  RowKernelBlock(b, loc, op, rowKernelBuffers(b, loc, op, buffers), threadId,
                 scratch)
      .emit(blockId);
}
