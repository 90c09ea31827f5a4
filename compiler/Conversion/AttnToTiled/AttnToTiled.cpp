//===- AttnToTiled.cpp - attn.attention to the tiled kernel form ----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The host kernel computes the grid blocks [block_begin, block_end); block
// id `blk` is (qb, h, b) = delinearize(blk, (ceil(Nq / block_m), Hq, B)),
// x fastest. Working tiles are allocated once per call, outside the block
// loop; BlockBuilder emits each block's flash-attention recurrence.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/AttnToTiled/AttnToTiled.h"

#include "compiler/Conversion/AttnToTiled/BlockBuilder.h"
#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

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
  auto unsupported =
      [&](Operation *at) {
        return at->emitError()
               << "code generation supports functions whose body is one "
                  "attn.attention on the function's arguments, returning its "
                  "results";
      };
  if (func.isExternal())
    return unsupported(func);
  Block &body = func.front();
  auto ops = body.without_terminator();
  auto op = ops.empty() ? attn::AttentionOp()
                        : dyn_cast<attn::AttentionOp>(*ops.begin());
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

FailureOr<AttentionKernelForm> attnc::matchTiledKernel(func::FuncOp func) {
  FailureOr<AttentionKernelForm> form = matchAttentionKernel(func);
  if (succeeded(form) && !form->op.getTiles())
    return form->op.emitError()
           << "tile sizes are not set: run attn-select-tiles first or give "
              "the op a `tiles` attribute";
  return form;
}

SmallVector<Type> attnc::kernelTensorTypes(func::FuncOp func) {
  SmallVector<Type> types;
  for (Type t : func.getArgumentTypes())
    types.push_back(kernelMemRefType(t));
  for (Type t : func.getResultTypes())
    types.push_back(kernelMemRefType(t));
  return types;
}

MemRefType attnc::kernelMemRefType(Type tensorType) {
  auto type = cast<RankedTensorType>(tensorType);
  SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, strides);
  return MemRefType::get(type.getShape(), type.getElementType(), layout);
}

namespace {

/// Emits the host kernel body: working tiles allocated once per call, then
/// the blocks [blockBegin, blockEnd) one after another.
void buildHostKernel(OpBuilder &b, Location loc, attn::AttentionOp op,
                     const attnc::KernelOperands &operands, Value blockBegin,
                     Value blockEnd) {
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto qType = cast<MemRefType>(operands.q.getType());
  int64_t headDim = qType.getDimSize(3), headsQ = qType.getDimSize(1);
  int64_t headDimV = cast<MemRefType>(operands.v.getType()).getDimSize(3);
  attn::TilesAttr tiles = *op.getTiles();
  int64_t blockM = tiles.getBlockM(), blockN = tiles.getBlockN();
  auto alloc = [&](ArrayRef<int64_t> shape) {
    return memref::AllocOp::create(b, loc,
                                   MemRefType::get(shape, b.getF32Type()))
        .getResult();
  };
  attnc::BlockTiles t{alloc({blockM, headDim}),
                      alloc({blockN, headDim}),
                      alloc({blockN, headDimV}),
                      alloc({blockM, blockN}),
                      alloc({blockM, headDimV}),
                      alloc({blockM}),
                      alloc({blockM})};

  Value seqQ = memref::DimOp::create(b, loc, operands.q, 2);
  Value queryBlocks = arith::CeilDivUIOp::create(b, loc, seqQ, index(blockM));
  scf::ForOp::create(
      b, loc, blockBegin, blockEnd, index(1), ValueRange{},
      [&](OpBuilder &nested, Location, Value blk, ValueRange) {
        // Block ids are linear with x (query blocks) fastest.
        Value qBlock = arith::RemUIOp::create(nested, loc, blk, queryBlocks);
        Value rest = arith::DivUIOp::create(nested, loc, blk, queryBlocks);
        Value headsValue = arith::ConstantIndexOp::create(nested, loc, headsQ);
        Value head = arith::RemUIOp::create(nested, loc, rest, headsValue);
        Value batch = arith::DivUIOp::create(nested, loc, rest, headsValue);
        attnc::emitAttentionBlock(nested, loc, op, operands, t, qBlock, head,
                                  batch, /*threadId=*/nullptr);
        scf::YieldOp::create(nested, loc);
      });
  for (Value buffer : {t.q, t.k, t.v, t.s, t.acc, t.rowMax, t.rowSum})
    memref::DeallocOp::create(b, loc, buffer);
}

LogicalResult lowerKernelFunction(func::FuncOp func) {
  FailureOr<AttentionKernelForm> form = attnc::matchTiledKernel(func);
  if (failed(form))
    return failure();
  attn::AttentionOp op = form->op;

  MLIRContext *ctx = func.getContext();
  Block &oldBody = func.front();
  SmallVector<Type> argTypes = attnc::kernelTensorTypes(func);
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
  buildHostKernel(
      b, loc, op,
      {argFor(op.getQ()), argFor(op.getK()), argFor(op.getV()), out, lse},
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
