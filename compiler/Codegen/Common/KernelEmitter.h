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
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace attnc {

class KernelEmitter {
protected:
  KernelEmitter(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::Value index(int64_t v) {
    return mlir::arith::ConstantIndexOp::create(b, loc, v);
  }
  mlir::Value f32Const(double v) {
    return mlir::arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return mlir::arith::AddIOp::create(b, loc, x, y);
  }
  mlir::Value mul(mlir::Value x, mlir::Value y) {
    return mlir::arith::MulIOp::create(b, loc, x, y);
  }

  /// Runs `body` with the builder at `nested`'s insertion point, restoring
  /// it afterwards.
  template <typename Fn> void inside(mlir::OpBuilder &nested, Fn body) {
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
    body();
  }

  /// for (iv = lb; iv < ub; iv += step) body(iv)
  template <typename Fn>
  void loop(mlir::Value lb, mlir::Value ub, mlir::Value step, Fn body) {
    mlir::scf::ForOp::create(b, loc, lb, ub, step, mlir::ValueRange{},
                             [&](mlir::OpBuilder &nested, mlir::Location,
                                 mlir::Value iv, mlir::ValueRange) {
                               inside(nested, [&] {
                                 body(iv);
                                 mlir::scf::YieldOp::create(b, loc);
                               });
                             });
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

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_KERNELEMITTER_H
