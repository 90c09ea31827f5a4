//===- AttnToTiled.cpp - attn.attention to the tiled kernel form ----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The kernel computes the grid blocks [block_begin, block_end); block id
// `blk` covers query rows [qb * block_m, qb * block_m + rows) of head `h` and
// batch `b` where (qb, h, b) = delinearize(blk, (ceil(Nq / block_m), Hq, B)).
// Per block:
//
//   stage Q rows in f32; m = -inf, l = 0, acc = 0
//   for each key tile [k0, k0 + cols) inside the bounds the shorthands allow:
//     classify the tile; skip it if empty
//     stage K and V rows in f32
//     S = Q Kᵀ * scale * log2(e)     (or score(Q Kᵀ * scale) * log2(e))
//     if the tile is partial: S = mask ? S : -inf
//     online softmax: m' = max(m, rowmax S); P = exp2(S - m');
//                     a = exp2(m - m'); l = a l + rowsum P; acc = a acc + P V
//   out = acc / l; lse = (m + log2 l) ln 2    (0 and -inf when l = 0)
//
// Working buffers are allocated once per call, outside the block loop. Loops
// over rows and keys stop at the valid extent of the tile, so nothing out of
// bounds is read or kept.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/AttnToTiled/AttnToTiled.h"

#include "compiler/Conversion/AttnToTiled/TileClassifier.h"
#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <limits>

namespace attnc {
#define GEN_PASS_DEF_CONVERTATTNTOTILED
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;
using attnc::AttentionKernelForm;

std::string attnc::hostEntryName(StringRef kernel) {
  return (kernel + "_entry").str();
}

FailureOr<AttentionKernelForm> attnc::matchAttentionKernel(func::FuncOp func) {
  auto unsupported = [&](Operation *at) {
    return at->emitError()
           << "code generation supports functions whose body is one "
              "attn.attention on the function's arguments, returning its "
              "results";
  };
  if (func.isExternal())
    return unsupported(func);
  Block &body = func.front();
  auto ops = body.without_terminator();
  auto op = ops.empty() ? attn::AttentionOp() : dyn_cast<attn::AttentionOp>(*ops.begin());
  if (!op)
    return unsupported(ops.empty() ? body.getTerminator() : &*ops.begin());
  if (std::next(ops.begin()) != ops.end())
    return unsupported(&*std::next(ops.begin()));
  for (Value operand : op->getOperands()) {
    auto arg = dyn_cast<BlockArgument>(operand);
    if (!arg || arg.getOwner() != &body)
      return unsupported(op);
  }
  AttentionKernelForm form{op, {}};
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  if (ret.getNumOperands() == 0)
    return ret.emitError() << "a kernel function must return the attention "
                              "output, its lse, or both";
  for (Value result : ret.getOperands()) {
    if (result.getDefiningOp() != op.getOperation())
      return unsupported(ret);
    bool isOut = result == op.getOut();
    if (llvm::count(form.resultIsOut, isOut))
      return ret.emitError() << "the kernel function returns the attention "
                             << (isOut ? "output" : "lse") << " twice";
    form.resultIsOut.push_back(isOut);
  }
  return form;
}

namespace {

/// The buffer type of a kernel argument: any strides, any offset, so callers
/// can pass views of larger tensors.
MemRefType kernelMemRefType(Type tensorType) {
  auto type = cast<RankedTensorType>(tensorType);
  SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, strides);
  return MemRefType::get(type.getShape(), type.getElementType(), layout);
}

/// Builds the kernel body; see the file comment.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, attn::AttentionOp op)
      : b(b), loc(loc), op(op), f32(b.getF32Type()) {}

  void build(Value q, Value k, Value v, Value out, Value lse, Value blockBegin,
             Value blockEnd);

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f32Const(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }

  /// for (iv = lb; iv < ub; iv += step) body(iv)
  template <typename Fn> void loop(Value lb, Value ub, Value step, Fn body) {
    scf::ForOp::create(b, loc, lb, ub, step, ValueRange{},
                       [&](OpBuilder &nested, Location, Value iv, ValueRange) {
                         OpBuilder::InsertionGuard guard(b);
                         b.setInsertionPoint(nested.getInsertionBlock(),
                                             nested.getInsertionPoint());
                         body(iv);
                         scf::YieldOp::create(b, loc);
                       });
  }
  template <typename Fn> void loop(Value ub, Fn body) {
    loop(c0, ub, c1, body);
  }

  /// A reduction loop: acc = combine(acc, term(iv)) for iv in [0, ub).
  template <typename Fn, typename Combine>
  Value reduce(Value ub, Value init, Fn term, Combine combine) {
    auto forOp = scf::ForOp::create(
        b, loc, c0, ub, c1, ValueRange{init},
        [&](OpBuilder &nested, Location, Value iv, ValueRange iters) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          scf::YieldOp::create(b, loc, combine(iters[0], term(iv)));
        });
    return forOp.getResult(0);
  }

  template <typename Fn> void ifThen(Value cond, Fn body) {
    scf::IfOp::create(b, loc, cond, [&](OpBuilder &nested, Location) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
      body();
      scf::YieldOp::create(b, loc);
    });
  }

  Value load(Value memref, ValueRange indices) {
    return memref::LoadOp::create(b, loc, memref, indices);
  }
  void store(Value value, Value memref, ValueRange indices) {
    memref::StoreOp::create(b, loc, value, memref, indices);
  }
  Value toF32(Value v) {
    return v.getType() == f32 ? v : arith::ExtFOp::create(b, loc, f32, v);
  }
  Value alloc(ArrayRef<int64_t> shape) {
    return memref::AllocOp::create(b, loc, MemRefType::get(shape, f32));
  }

  /// Copies rows [0, count) of a [B, H, N, D] input, starting at sequence
  /// position `first` of (batch, head), into the f32 tile `tile`.
  void stageRows(Value input, Value tile, Value batch, Value head, Value first,
                 Value count, int64_t width) {
    loop(count, [&](Value row) {
      Value pos = arith::AddIOp::create(b, loc, first, row);
      loop(index(width), [&](Value col) {
        store(toF32(load(input, {batch, head, pos, col})), tile, {row, col});
      });
    });
  }

  OpBuilder &b;
  Location loc;
  attn::AttentionOp op;
  Type f32;
  Value c0, c1;
  arith::FastMathFlagsAttr dotFlags;
};

void KernelBuilder::build(Value q, Value k, Value v, Value out, Value lse,
                          Value blockBegin, Value blockEnd) {
  c0 = index(0);
  c1 = index(1);
  // The dot products may be reassociated and fused so they vectorize.
  dotFlags = arith::FastMathFlagsAttr::get(
      b.getContext(), arith::FastMathFlags::reassoc | arith::FastMathFlags::contract);

  auto qType = cast<MemRefType>(q.getType());
  int64_t headDim = qType.getDimSize(3);
  int64_t headDimV = cast<MemRefType>(v.getType()).getDimSize(3);
  int64_t headsQ = qType.getDimSize(1);
  attn::TilesAttr tiles = *op.getTiles();
  int64_t blockM = tiles.getBlockM(), blockN = tiles.getBlockN();
  Value cBlockM = index(blockM), cBlockN = index(blockN);

  Value seqQ = memref::DimOp::create(b, loc, q, 2);
  Value seqK = memref::DimOp::create(b, loc, k, 2);
  Value queryBlocks = arith::CeilDivUIOp::create(b, loc, seqQ, cBlockM);

  Value qTile = alloc({blockM, headDim});
  Value kTile = alloc({blockN, headDim});
  Value vTile = alloc({blockN, headDimV});
  Value sTile = alloc({blockM, blockN});
  Value acc = alloc({blockM, headDimV});
  Value rowMax = alloc({blockM});
  Value rowSum = alloc({blockM});

  float scale = op.getEffectiveScale();
  const double log2e = 1.4426950408889634, ln2 = 0.6931471805599453;
  Value negInf = f32Const(-std::numeric_limits<double>::infinity());
  Value zero = f32Const(0.0);

  loop(blockBegin, blockEnd, c1, [&](Value blk) {
    Value qBlock = arith::RemUIOp::create(b, loc, blk, queryBlocks);
    Value rest = arith::DivUIOp::create(b, loc, blk, queryBlocks);
    Value head = arith::RemUIOp::create(b, loc, rest, index(headsQ));
    Value batch = arith::DivUIOp::create(b, loc, rest, index(headsQ));
    Value headKV = arith::DivUIOp::create(b, loc, head, index(op.getGroupSize()));
    Value q0 = arith::MulIOp::create(b, loc, qBlock, cBlockM);
    Value rows = arith::MinUIOp::create(
        b, loc, cBlockM, arith::SubIOp::create(b, loc, seqQ, q0));
    Value qLast = arith::SubIOp::create(
        b, loc, arith::AddIOp::create(b, loc, q0, rows), c1);

    stageRows(q, qTile, batch, head, q0, rows, headDim);
    loop(rows, [&](Value i) {
      store(negInf, rowMax, {i});
      store(zero, rowSum, {i});
      loop(index(headDimV), [&](Value d) { store(zero, acc, {i, d}); });
    });

    // The shorthands bound the key loop; the classifier handles the rest.
    Value kBegin = c0, kEnd = seqK;
    Value pastLast = arith::AddIOp::create(b, loc, qLast, c1);
    if (op.getCausal())
      kEnd = arith::MinSIOp::create(b, loc, kEnd, pastLast);
    if (std::optional<int64_t> right = op.getWindowRight())
      kEnd = arith::MinSIOp::create(
          b, loc, kEnd, arith::AddIOp::create(b, loc, pastLast, index(*right)));
    if (std::optional<int64_t> left = op.getWindowLeft()) {
      Value first = arith::MaxSIOp::create(
          b, loc, c0, arith::SubIOp::create(b, loc, q0, index(*left)));
      // Keep key tiles aligned to block_n.
      kBegin = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, first, cBlockN), cBlockN);
    }

    loop(kBegin, kEnd, cBlockN, [&](Value k0) {
      Value cols = arith::MinUIOp::create(
          b, loc, cBlockN, arith::SubIOp::create(b, loc, seqK, k0));
      Value kLast = arith::SubIOp::create(
          b, loc, arith::AddIOp::create(b, loc, k0, cols), c1);
      attnc::TileClass tileClass =
          attnc::classifyTile(b, loc, op, {batch, head, q0, qLast, k0, kLast});
      ifThen(tileClass.mayAllow, [&] {
        stageRows(k, kTile, batch, headKV, k0, cols, headDim);
        stageRows(v, vTile, batch, headKV, k0, cols, headDimV);

        // Scores in log2 units.
        loop(rows, [&](Value i) {
          loop(cols, [&](Value j) {
            Value dot = reduce(
                index(headDim), zero,
                [&](Value d) {
                  return arith::MulFOp::create(b, loc, load(qTile, {i, d}),
                                               load(kTile, {j, d}), dotFlags)
                      .getResult();
                },
                [&](Value sum, Value term) {
                  return arith::AddFOp::create(b, loc, sum, term, dotFlags)
                      .getResult();
                });
            Value score;
            if (op.getScore().empty()) {
              score = arith::MulFOp::create(b, loc, dot, f32Const(scale * log2e));
            } else {
              Value scaled = arith::MulFOp::create(b, loc, dot, f32Const(scale));
              Value qIdx = arith::AddIOp::create(b, loc, q0, i);
              Value kIdx = arith::AddIOp::create(b, loc, k0, j);
              Value modified = attnc::inlineRegion(
                  b, op.getScore(), {scaled, batch, head, qIdx, kIdx});
              score = arith::MulFOp::create(b, loc, modified, f32Const(log2e));
            }
            store(score, sTile, {i, j});
          });
        });

        // Partial tiles only: full tiles pay no mask math.
        if (attnc::hasMask(op)) {
          ifThen(tileClass.mayBlock, [&] {
            loop(rows, [&](Value i) {
              loop(cols, [&](Value j) {
                Value qIdx = arith::AddIOp::create(b, loc, q0, i);
                Value kIdx = arith::AddIOp::create(b, loc, k0, j);
                Value allowed =
                    attnc::emitElementMask(b, loc, op, batch, head, qIdx, kIdx);
                Value masked = arith::SelectOp::create(
                    b, loc, allowed, load(sTile, {i, j}), negInf);
                store(masked, sTile, {i, j});
              });
            });
          });
        }

        // Online softmax update of each row.
        loop(rows, [&](Value i) {
          Value oldMax = load(rowMax, {i});
          Value tileMax = reduce(
              cols, negInf, [&](Value j) { return load(sTile, {i, j}); },
              [&](Value x, Value y) {
                return arith::MaximumFOp::create(b, loc, x, y).getResult();
              });
          Value newMax = arith::MaximumFOp::create(b, loc, oldMax, tileMax);
          // While every key so far is masked, exponents are taken against 0
          // so that -inf - -inf never produces NaN.
          Value noneAllowed = arith::CmpFOp::create(
              b, loc, arith::CmpFPredicate::OEQ, newMax, negInf);
          Value pivot = arith::SelectOp::create(b, loc, noneAllowed, zero, newMax);
          Value alpha = math::Exp2Op::create(
              b, loc, arith::SubFOp::create(b, loc, oldMax, pivot));
          Value tileSum = reduce(
              cols, zero,
              [&](Value j) {
                Value p = math::Exp2Op::create(
                    b, loc, arith::SubFOp::create(b, loc, load(sTile, {i, j}), pivot));
                store(p, sTile, {i, j});
                return p;
              },
              [&](Value x, Value y) {
                return arith::AddFOp::create(b, loc, x, y, dotFlags).getResult();
              });
          Value sum = arith::AddFOp::create(
              b, loc, arith::MulFOp::create(b, loc, load(rowSum, {i}), alpha),
              tileSum);
          store(sum, rowSum, {i});
          store(newMax, rowMax, {i});
          loop(index(headDimV), [&](Value d) {
            store(arith::MulFOp::create(b, loc, load(acc, {i, d}), alpha), acc,
                  {i, d});
          });
          loop(cols, [&](Value j) {
            Value p = load(sTile, {i, j});
            loop(index(headDimV), [&](Value d) {
              Value product =
                  arith::MulFOp::create(b, loc, p, load(vTile, {j, d}), dotFlags);
              store(arith::AddFOp::create(b, loc, load(acc, {i, d}), product,
                                          dotFlags),
                    acc, {i, d});
            });
          });
        });
      });
    });

    // Epilogue: normalize and write the block's rows.
    loop(rows, [&](Value i) {
      Value qIdx = arith::AddIOp::create(b, loc, q0, i);
      Value sum = load(rowSum, {i});
      Value anyAllowed =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum, zero);
      if (out) {
        Value inverse = arith::SelectOp::create(
            b, loc, anyAllowed, arith::DivFOp::create(b, loc, f32Const(1.0), sum),
            zero);
        Type outType = cast<MemRefType>(out.getType()).getElementType();
        loop(index(headDimV), [&](Value d) {
          Value value = arith::MulFOp::create(b, loc, load(acc, {i, d}), inverse);
          if (outType != f32)
            value = arith::TruncFOp::create(b, loc, outType, value);
          store(value, out, {batch, head, qIdx, d});
        });
      }
      if (lse) {
        Value log2Sum = arith::AddFOp::create(b, loc, load(rowMax, {i}),
                                              math::Log2Op::create(b, loc, sum));
        Value natural = arith::MulFOp::create(b, loc, log2Sum, f32Const(ln2));
        store(arith::SelectOp::create(b, loc, anyAllowed, natural, negInf), lse,
              {batch, head, qIdx});
      }
    });
  });

  for (Value buffer : {qTile, kTile, vTile, sTile, acc, rowMax, rowSum})
    memref::DeallocOp::create(b, loc, buffer);
}

LogicalResult lowerKernelFunction(func::FuncOp func) {
  FailureOr<AttentionKernelForm> form = attnc::matchAttentionKernel(func);
  if (failed(form))
    return failure();
  attn::AttentionOp op = form->op;
  if (!op.getTiles())
    return op.emitError() << "tile sizes are not set: run attn-select-tiles "
                             "first or give the op a `tiles` attribute";

  MLIRContext *ctx = func.getContext();
  Block &oldBody = func.front();
  SmallVector<Type> argTypes;
  for (Type t : func.getArgumentTypes())
    argTypes.push_back(kernelMemRefType(t));
  for (Type t : func.getResultTypes())
    argTypes.push_back(kernelMemRefType(t));
  IndexType indexType = IndexType::get(ctx);
  argTypes.append({indexType, indexType});

  auto *body = new Block();
  Location loc = op.getLoc();
  body->addArguments(argTypes, SmallVector<Location>(argTypes.size(), loc));
  func.getBody().push_front(body);

  auto argFor = [&](Value operand) {
    return body->getArgument(cast<BlockArgument>(operand).getArgNumber());
  };
  unsigned numInputs = func.getNumArguments();
  Value out, lse;
  for (auto [i, isOut] : llvm::enumerate(form->resultIsOut))
    (isOut ? out : lse) = body->getArgument(numInputs + i);

  OpBuilder b = OpBuilder::atBlockBegin(body);
  KernelBuilder(b, loc, op)
      .build(argFor(op.getQ()), argFor(op.getK()), argFor(op.getV()), out, lse,
             body->getArgument(argTypes.size() - 2),
             body->getArgument(argTypes.size() - 1));
  func::ReturnOp::create(b, loc);

  attn::TilesAttr tiles = *op.getTiles();
  oldBody.dropAllDefinedValueUses();
  oldBody.erase();
  func.setType(FunctionType::get(ctx, argTypes, {}));
  func.removeArgAttrsAttr();
  func.removeResAttrsAttr();
  // Marks the kernel for attn-host-entry-points, and asks func-to-llvm for
  // the descriptor-pointer wrapper that the packed entry point calls.
  func->setAttr("attn.kernel", tiles);
  func->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
  return success();
}

struct ConvertAttnToTiledPass
    : attnc::impl::ConvertAttnToTiledBase<ConvertAttnToTiledPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool hasAttention = false;
    func.walk([&](attn::AttentionOp) { hasAttention = true; });
    if (hasAttention && failed(lowerKernelFunction(func)))
      signalPassFailure();
  }
};

} // namespace
