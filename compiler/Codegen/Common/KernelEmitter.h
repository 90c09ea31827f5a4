//===- KernelEmitter.h - Structured-control helpers for kernels -*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The attention kernel builders (the row-per-thread RowBlock and the
// tensor-core kernel) emit straight-line IR plus scf loops and branches
// whose bodies are C++ lambdas. This base keeps those helpers in one place.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_COMMON_KERNELEMITTER_H
#define ATTNC_COMPILER_CODEGEN_COMMON_KERNELEMITTER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace attnc {

/// An f32 constant at the builder's insertion point.
inline mlir::Value f32Constant(mlir::OpBuilder &b, mlir::Location loc,
                               double value) {
  return mlir::arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

class KernelEmitter {
protected:
  KernelEmitter(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::Value index(int64_t v) {
    return mlir::arith::ConstantIndexOp::create(b, loc, v);
  }
  mlir::Value i32(int64_t v) {
    return mlir::arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  /// An index as an i32 (TMA coordinates, mbarrier phases).
  mlir::Value toI32(mlir::Value v) {
    return mlir::arith::IndexCastUIOp::create(b, loc, b.getI32Type(), v);
  }
  mlir::Value f32Const(double v) { return f32Constant(b, loc, v); }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return mlir::arith::AddIOp::create(b, loc, x, y);
  }
  mlir::Value sub(mlir::Value x, mlir::Value y) {
    return mlir::arith::SubIOp::create(b, loc, x, y);
  }
  mlir::Value mul(mlir::Value x, mlir::Value y) {
    return mlir::arith::MulIOp::create(b, loc, x, y);
  }
  mlir::Value divUI(mlir::Value x, mlir::Value y) {
    return mlir::arith::DivUIOp::create(b, loc, x, y);
  }
  /// min(tile, extent - first): the valid rows of a tile from `first` on.
  mlir::Value validRows(int64_t tile, mlir::Value extent, mlir::Value first) {
    return mlir::arith::MinUIOp::create(
        b, loc, index(tile),
        mlir::arith::SubIOp::create(b, loc, extent, first));
  }
  /// first + count - 1: the last index of a non-empty range.
  mlir::Value lastOf(mlir::Value first, mlir::Value count) {
    return mlir::arith::SubIOp::create(b, loc, add(first, count), index(1));
  }

  /// Runs `body` with the builder at `nested`'s insertion point, restoring
  /// it afterwards.
  template <typename Fn> void inside(mlir::OpBuilder &nested, Fn body) {
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
    body();
  }

  /// for (iv = lb; iv < ub; iv += step) body(iv). The body is built inside
  /// the finished loop op, so that what it emits may look at the loops
  /// around it (the tile classifier hoists out of them).
  template <typename Fn>
  void loop(mlir::Value lb, mlir::Value ub, mlir::Value step, Fn body) {
    auto forOp = mlir::scf::ForOp::create(b, loc, lb, ub, step);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forOp.getBody()->getTerminator());
    body(forOp.getInductionVar());
  }

  /// acc = combine(acc, term(iv)) for iv in [0, ub), starting from `init`.
  template <typename Fn, typename Combine>
  mlir::Value reduce(mlir::Value ub, mlir::Value init, Fn term,
                     Combine combine) {
    auto forOp = mlir::scf::ForOp::create(
        b, loc, index(0), ub, index(1), mlir::ValueRange{init},
        [&](mlir::OpBuilder &nested, mlir::Location, mlir::Value iv,
            mlir::ValueRange iters) {
          inside(nested, [&] {
            mlir::scf::YieldOp::create(b, loc, combine(iters[0], term(iv)));
          });
        });
    return forOp.getResult(0);
  }

  template <typename Fn> void ifThen(mlir::Value cond, Fn body) {
    mlir::scf::IfOp::create(b, loc, cond,
                            [&](mlir::OpBuilder &nested, mlir::Location) {
                              inside(nested, [&] {
                                body();
                                mlir::scf::YieldOp::create(b, loc);
                              });
                            });
  }

  template <typename Then, typename Else>
  void ifThenElse(mlir::Value cond, Then then, Else otherwise) {
    auto branch = [&](auto body) {
      return [&, body](mlir::OpBuilder &nested, mlir::Location) {
        inside(nested, [&] {
          body();
          mlir::scf::YieldOp::create(b, loc);
        });
      };
    };
    mlir::scf::IfOp::create(b, loc, cond, branch(then), branch(otherwise));
  }

  /// An scf.if yielding `types` (at least one), each branch building its
  /// yielded values.
  template <typename Then, typename Else>
  mlir::ValueRange ifElse(mlir::Value cond, mlir::TypeRange types, Then then,
                          Else otherwise) {
    auto ifOp = mlir::scf::IfOp::create(b, loc, types, cond, /*withElse=*/true);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    mlir::scf::YieldOp::create(b, loc, then());
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    mlir::scf::YieldOp::create(b, loc, otherwise());
    return ifOp.getResults();
  }

  mlir::OpBuilder &b;
  mlir::Location loc;
};

/// Helpers of the kernels whose working tiles are f32 memrefs, for both
/// mappings onto threads: on the host a block is one thread that loops
/// over everything (`threadId` null); on a GPU each of `numThreads` threads
/// owns one row, copies are strided over all threads and barriers order
/// shared-tile writes before reads.
class BlockEmitter : protected KernelEmitter {
protected:
  BlockEmitter(mlir::OpBuilder &b, mlir::Location loc, mlir::Value threadId,
               int64_t numThreads)
      : KernelEmitter(b, loc), threadId(threadId), numThreads(numThreads),
        f32(b.getF32Type()) {}

  mlir::Value load(mlir::Value memref, mlir::ValueRange indices) {
    return mlir::memref::LoadOp::create(b, loc, memref, indices);
  }
  void store(mlir::Value value, mlir::Value memref, mlir::ValueRange indices) {
    mlir::memref::StoreOp::create(b, loc, value, memref, indices);
  }
  template <typename Fn> void loopTo(mlir::Value ub, Fn body) {
    loop(index(0), ub, index(1), body);
  }
  mlir::Value toF32(mlir::Value v) {
    return v.getType() == f32 ? v : mlir::arith::ExtFOp::create(b, loc, f32, v);
  }
  /// `v` (f32) in the element type of `memref`.
  mlir::Value fromF32(mlir::Value v, mlir::Value memref) {
    mlir::Type type =
        mlir::cast<mlir::MemRefType>(memref.getType()).getElementType();
    return type == f32 ? v : mlir::arith::TruncFOp::create(b, loc, type, v);
  }

  /// body(i) for each row i < rows: a loop on the host, the thread's own
  /// row on a GPU.
  template <typename Fn> void forEachRow(mlir::Value rows, Fn body) {
    if (!threadId)
      return loopTo(rows, body);
    ifThen(mlir::arith::CmpIOp::create(b, loc, mlir::arith::CmpIPredicate::ult,
                                       threadId, rows),
           [&] { body(threadId); });
  }

  /// body(row, col) for row < count, col < width: nested loops on the host;
  /// on a GPU the flattened index space strided over the threads,
  /// consecutive threads on consecutive columns (coalesced reads).
  template <typename Fn>
  void forEachElement(mlir::Value count, int64_t width, Fn body) {
    if (!threadId) {
      loopTo(count, [&](mlir::Value row) {
        loopTo(index(width), [&](mlir::Value col) { body(row, col); });
      });
      return;
    }
    mlir::Value total = mul(count, index(width));
    loop(threadId, total, index(numThreads), [&](mlir::Value flat) {
      body(mlir::arith::DivUIOp::create(b, loc, flat, index(width)),
           mlir::arith::RemUIOp::create(b, loc, flat, index(width)));
    });
  }

  /// The multi-index of row `row` of `buffer`: its leading dims, row-major.
  llvm::SmallVector<mlir::Value> rowIndex(mlir::Value buffer, mlir::Value row) {
    int64_t rank = mlir::cast<mlir::MemRefType>(buffer.getType()).getRank();
    return delinearize(buffer, row, rank - 1);
  }

  /// The multi-index of element `flat` of `buffer`: all its dims.
  llvm::SmallVector<mlir::Value> elementIndex(mlir::Value buffer,
                                              mlir::Value flat) {
    int64_t rank = mlir::cast<mlir::MemRefType>(buffer.getType()).getRank();
    return delinearize(buffer, flat, rank);
  }

  /// The multi-index of `row` over the first `dims` dims of `buffer`,
  /// row-major.
  llvm::SmallVector<mlir::Value> delinearize(mlir::Value buffer,
                                             mlir::Value row, int64_t dims) {
    llvm::SmallVector<mlir::Value> indices(dims);
    for (int64_t d = dims - 1; d > 0; --d) {
      mlir::Value extent = mlir::memref::DimOp::create(b, loc, buffer, d);
      indices[d] = mlir::arith::RemUIOp::create(b, loc, row, extent);
      row = divUI(row, extent);
    }
    if (!indices.empty())
      indices[0] = row;
    return indices;
  }

  /// Work on a row of `width` columns spread over `lanes` threads (a warp's
  /// lanes on a GPU, one thread on the host): `lane` takes columns lane,
  /// lane + lanes, ...
  template <typename Fn>
  void forLaneColumns(int64_t width, mlir::Value lane, int64_t lanes, Fn body) {
    loop(lane, index(width), index(lanes), body);
  }

  /// The sum of term(d) over the row's columns, in every lane.
  template <typename Fn>
  mlir::Value laneSum(int64_t width, mlir::Value lane, int64_t lanes, Fn term) {
    return laneReduce(width, lane, lanes, f32Const(0.0), term,
                      [&](mlir::Value acc, mlir::Value v) -> mlir::Value {
                        return mlir::arith::AddFOp::create(b, loc, acc, v);
                      });
  }

  /// combine of term(d) over the row's columns from `init`, in every lane:
  /// each lane combines its own columns (a constant count, so that their
  /// loads unroll and are in flight together), then the lanes' results are
  /// combined by shuffles.
  template <typename Fn, typename Combine>
  mlir::Value laneReduce(int64_t width, mlir::Value lane, int64_t lanes,
                         mlir::Value init, Fn term, Combine sum) {
    mlir::Value total = reduce(
        index(width / lanes), init,
        [&](mlir::Value k) { return term(add(lane, mul(k, index(lanes)))); },
        sum);
    if (int64_t rest = width % lanes) {
      mlir::Value inRow = mlir::arith::CmpIOp::create(
          b, loc, mlir::arith::CmpIPredicate::ult, lane, index(rest));
      mlir::Value partial = total;
      total = ifElse(
          inRow, {f32},
          [&] { return sum(partial, term(add(lane, index(width - rest)))); },
          [&] { return partial; })[0];
    }
    return laneCombine(total, lanes, sum);
  }

  /// combine of every lane's `value`, in every lane, by xor shuffles.
  template <typename Combine>
  mlir::Value laneCombine(mlir::Value value, int64_t lanes, Combine sum) {
    return laneCombineAll(
        value, lanes, [&](mlir::ValueRange mine, mlir::ValueRange theirs) {
          return llvm::SmallVector<mlir::Value>{sum(mine[0], theirs[0])};
        })[0];
  }

  /// combine(mine, theirs) of every lane's `values` (a state of several
  /// values, all shuffled before they combine), in every lane, by xor
  /// shuffles.
  template <typename Combine>
  llvm::SmallVector<mlir::Value>
  laneCombineAll(mlir::ValueRange values, int64_t lanes, Combine combine) {
    llvm::SmallVector<mlir::Value> state(values);
    for (int64_t offset = lanes / 2; offset > 0; offset /= 2) {
      llvm::SmallVector<mlir::Value> theirs;
      for (mlir::Value v : state)
        theirs.push_back(
            mlir::gpu::ShuffleOp::create(b, loc, v, offset, lanes,
                                         mlir::gpu::ShuffleMode::XOR)
                .getShuffleResult());
      state = combine(state, theirs);
    }
    return state;
  }

  /// Stores `v` from lane 0 only, when lanes share it.
  void storeFromLane0(mlir::Value v, mlir::Value memref,
                      mlir::ValueRange indices, mlir::Value lane,
                      int64_t lanes) {
    if (lanes == 1)
      return store(v, memref, indices);
    ifThen(mlir::arith::CmpIOp::create(b, loc, mlir::arith::CmpIPredicate::eq,
                                       lane, index(0)),
           [&] { store(v, memref, indices); });
  }

  /// Orders shared-tile writes before reads on a GPU; nothing on the host.
  void barrier() {
    if (threadId)
      mlir::gpu::BarrierOp::create(b, loc);
  }

  /// Copies rows [0, count) of a [B, H, N, D] input, starting at sequence
  /// position `first` of (batch, head), into the f32 tile `tile`.
  void stageRows(mlir::Value input, mlir::Value tile, mlir::Value batch,
                 mlir::Value head, mlir::Value first, mlir::Value count,
                 int64_t width) {
    forEachElement(count, width, [&](mlir::Value row, mlir::Value col) {
      store(toF32(load(input, {batch, head, add(first, row), col})), tile,
            {row, col});
    });
  }

  mlir::Value threadId;
  int64_t numThreads;
  mlir::Type f32;
};

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_KERNELEMITTER_H
