//===- AttnGPUToNVVM.cpp - attngpu ops to NVVM ops and inline PTX ---------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// One pattern per op. Where NVVM has an op for a primitive (mbarriers, the
// async-proxy fence, TMA) the pattern uses it; wgmma with A in registers,
// its wait with values passed through and ex2.approx.ftz have none, and
// become inline PTX here: the only PTX text in attnc.
//
// wgmma issue sequences: a fence, products and commits, then a wait, are
// lowered together into one asm statement. LLVM then cannot schedule any
// instruction between the fence and the commits, where an instruction that
// defines a wgmma input (an accumulator copy, a descriptor) makes ptxas
// serialize the whole group (C7513). Descriptors offset per step are added
// inside the statement, before the fence, for the same reason.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attngpu/AttnGPUOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace attnc {
#define GEN_PASS_DEF_CONVERTATTNGPUTONVVM
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;
using namespace mlir::attngpu;

namespace {

//===----------------------------------------------------------------------===//
// Inline PTX for wgmma
//===----------------------------------------------------------------------===//

/// An inline asm statement under construction: outputs first ("=f"), then
/// inputs, each with its constraint; `$N` names operand N.
class PtxStatement {
public:
  /// `count` f32 outputs, returned by emit() in order.
  void addOutputs(int64_t count) {
    for (int64_t i = 0; i < count; ++i)
      constrain("=f");
    outputs += count;
  }
  /// An input tied to output `output`.
  void addTied(Value value, int64_t output) {
    constrain(std::to_string(output));
    operands.push_back(value);
  }
  /// An input register; returns its `$N`.
  std::string addInput(Value value, const char *constraint) {
    constrain(constraint);
    operands.push_back(value);
    return "$" + std::to_string(outputs + operands.size() - 1);
  }
  int64_t numOutputs() const { return outputs; }

  /// The statement with `text`: each output as an f32 value. LLVM returns
  /// one output as itself and several as a struct.
  SmallVector<Value> emit(OpBuilder &b, Location loc, StringRef text) {
    Type f32 = b.getF32Type();
    Type resultType =
        outputs > 1 ? LLVM::LLVMStructType::getLiteral(
                          b.getContext(), SmallVector<Type>(outputs, f32))
        : outputs   ? f32
                    : Type();
    auto statement = LLVM::InlineAsmOp::create(
        b, loc, resultType, operands, text, constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
        ArrayAttr());
    if (outputs == 1)
      return {statement.getResult(0)};
    SmallVector<Value> values;
    for (int64_t i = 0; i < outputs; ++i)
      values.push_back(
          LLVM::ExtractValueOp::create(b, loc, statement.getResult(0), i));
    return values;
  }

private:
  void constrain(const std::string &c) {
    constraints += (constraints.empty() ? "" : ",") + c;
  }

  std::string constraints;
  SmallVector<Value> operands;
  int64_t outputs = 0;
};

SmallVector<Value> scalarsOf(OpBuilder &b, Location loc, Value vector) {
  SmallVector<Value> values;
  int64_t count = cast<VectorType>(vector.getType()).getNumElements();
  for (int64_t i = 0; i < count; ++i)
    values.push_back(vector::ExtractOp::create(b, loc, vector, i));
  return values;
}

Value vectorOf(OpBuilder &b, Location loc, ValueRange values) {
  return vector::FromElementsOp::create(
      b, loc,
      VectorType::get({static_cast<int64_t>(values.size())},
                      values.front().getType()),
      values);
}

/// The PTX of wgmma products: outputs (every product's accumulator), tied
/// accumulator inputs, then descriptors and A registers; the steps' text
/// and the descriptor additions they need.
class WgmmaAsm {
public:
  WgmmaAsm(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// Reserves the outputs of `products` and ties their accumulators; call
  /// before addSteps.
  void reserve(ArrayRef<WgmmaMmaAsyncOp> products,
               function_ref<Value(Value)> remap) {
    for (WgmmaMmaAsyncOp product : products) {
      firstOutput.push_back(statement.numOutputs());
      statement.addOutputs(product.getN() / 2);
    }
    for (auto [product, first] : llvm::zip_equal(products, firstOutput))
      if (Value accumulator = WgmmaMmaAsyncOp(product).getAccumulator())
        for (auto [i, value] :
             llvm::enumerate(scalarsOf(b, loc, remap(accumulator))))
          statement.addTied(value, first + i);
    one = statement.addInput(
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1)), "r");
  }

  /// The steps of product `index` (in reserve order).
  void addSteps(WgmmaMmaAsyncOp product, size_t index,
                function_ref<Value(Value)> remap);
  void commit() { steps += "wgmma.commit_group.sync.aligned;\n"; }
  /// Passes a turn on (attngpu.named_barrier.arrive) after the commits.
  void arrive(NamedBarrierArriveOp op, function_ref<Value(Value)> remap) {
    steps += "bar.arrive " + statement.addInput(remap(op.getId()), "r") + ", " +
             std::to_string(op.getThreads()) + ";\n";
  }

  /// The whole statement: `fence` first, `wait` (pending groups) last when
  /// given. Returns each product's result vector.
  SmallVector<Value> emit(bool fence, std::optional<int64_t> wait) {
    std::string text = "{\n.reg .pred accumulate, overwrite;\n";
    if (descriptors)
      text += ".reg .b64 desc<" + std::to_string(descriptors) + ">;\n";
    text += "setp.ne.b32 accumulate, " + one + ", 0;\n" +
            "setp.eq.b32 overwrite, " + one + ", 0;\n" + prelude +
            (fence ? "wgmma.fence.sync.aligned;\n" : "") + steps;
    if (wait)
      text += "wgmma.wait_group.sync.aligned " + std::to_string(*wait) + ";\n";
    text += "}";
    SmallVector<Value> values = statement.emit(b, loc, text);
    SmallVector<Value> results;
    for (size_t i = 0; i < firstOutput.size(); ++i) {
      int64_t end = i + 1 < firstOutput.size() ? firstOutput[i + 1]
                                               : statement.numOutputs();
      results.push_back(vectorOf(
          b, loc, ArrayRef<Value>(values).slice(firstOutput[i],
                                                end - firstOutput[i])));
    }
    return results;
  }

private:
  /// A register holding `base` advanced by `bytes`, computed in the
  /// prelude.
  std::string advanced(const std::string &base, int64_t bytes) {
    std::string name = "desc" + std::to_string(descriptors++);
    prelude += "add.s64 " + name + ", " + base + ", " +
               std::to_string(bytes >> 4) + ";\n";
    return name;
  }

  OpBuilder &b;
  Location loc;
  PtxStatement statement;
  SmallVector<int64_t> firstOutput;
  std::string one, prelude, steps;
  int64_t descriptors = 0;
};

void WgmmaAsm::addSteps(WgmmaMmaAsyncOp product, size_t index,
                        function_ref<Value(Value)> remap) {
  int64_t first = firstOutput[index];
  std::string d = "{";
  for (int64_t i = 0, n = product.getN(); i < n / 2; ++i)
    d += (i ? ", $" : "$") + std::to_string(first + i);
  d += "}";
  std::string type = product.getElementType().isBF16() ? "bf16" : "f16";
  Value aDescriptor = product.getADescriptor();
  std::string aBase =
      aDescriptor ? statement.addInput(remap(aDescriptor), "l") : "";
  std::string bBase = statement.addInput(remap(product.getBDescriptor()), "l");
  for (int64_t i = 0; i < product.getNumSteps(); ++i) {
    std::string aText;
    if (aDescriptor) {
      aText = advanced(aBase, (*product.getAOffsets())[i]);
    } else {
      aText = "{";
      for (auto [r, reg] : llvm::enumerate(
               scalarsOf(b, loc, remap(product.getAFragments()[i]))))
        aText += (r ? ", " : "") + statement.addInput(reg, "r");
      aText += "}";
    }
    std::string bText = advanced(bBase, product.getBOffsets()[i]);
    bool accumulate = i > 0 || product.getAccumulator();
    steps += "wgmma.mma_async.sync.aligned.m64n" +
             std::to_string(product.getN()) + "k16.f32." + type + "." + type +
             " " + d + ", " + aText + ", " + bText + ", " +
             (accumulate ? "accumulate" : "overwrite") + ", 1, 1, " +
             (aDescriptor ? (product.getTransposeA() ? "1, " : "0, ") : "") +
             (product.getTransposeB() ? "1" : "0") + ";\n";
  }
}

/// The ops of an issue sequence: a fence, then groups of products each
/// closed by a commit, possibly a named barrier arrival (passing a turn
/// on), then a wait whose values are products' results. Side-effect free
/// ops between them (other than products) compute before the statement,
/// which replaces the wait.
struct IssueSequence {
  SmallVector<WgmmaMmaAsyncOp> products;
  SmallVector<size_t> groupEnds; // products before each commit
  SmallVector<Operation *> commits;
  NamedBarrierArriveOp arrive;
  WgmmaWaitGroupOp wait;
};

std::optional<IssueSequence> matchIssueSequence(WgmmaFenceOp fence) {
  IssueSequence sequence;
  auto inSequence = [](Operation *op) {
    return isa<WgmmaMmaAsyncOp, WgmmaCommitGroupOp>(op) ||
           (!isa<WgmmaWaitGroupOp, WgmmaFenceOp>(op) &&
            op->getNumRegions() == 0 && isMemoryEffectFree(op));
  };
  Operation *op = fence->getNextNode();
  for (; op && (inSequence(op) || isa<NamedBarrierArriveOp>(op));
       op = op->getNextNode()) {
    if (auto arrive = dyn_cast<NamedBarrierArriveOp>(op)) {
      if (sequence.arrive || sequence.commits.empty())
        return std::nullopt;
      sequence.arrive = arrive;
      continue;
    }
    if (!isa<WgmmaMmaAsyncOp, WgmmaCommitGroupOp>(op))
      continue;
    if (sequence.arrive) // products after the turn passed
      return std::nullopt;
    if (auto product = dyn_cast<WgmmaMmaAsyncOp>(op)) {
      sequence.products.push_back(product);
      continue;
    }
    if (sequence.products.size() ==
        (sequence.groupEnds.empty() ? 0 : sequence.groupEnds.back()))
      return std::nullopt; // an empty group
    sequence.groupEnds.push_back(sequence.products.size());
    sequence.commits.push_back(op);
  }
  sequence.wait = dyn_cast_or_null<WgmmaWaitGroupOp>(op);
  if (!sequence.wait || sequence.groupEnds.empty() ||
      sequence.groupEnds.back() != sequence.products.size())
    return std::nullopt;
  for (Value value : sequence.wait.getValues())
    if (!llvm::is_contained(sequence.products, value.getDefiningOp()))
      return std::nullopt;
  // Products' results are used only after the wait.
  for (WgmmaMmaAsyncOp product : sequence.products)
    for (Operation *user : product->getUsers())
      if (user->getBlock() == sequence.wait->getBlock() &&
          user->isBeforeInBlock(sequence.wait))
        return std::nullopt;
  return sequence;
}

struct WgmmaIssueSequenceLowering : OpConversionPattern<WgmmaFenceOp> {
  WgmmaIssueSequenceLowering(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(WgmmaFenceOp fence, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<IssueSequence> sequence = matchIssueSequence(fence);
    if (!sequence)
      return rewriter.notifyMatchFailure(fence, "not an issue sequence");
    auto remap = [&](Value v) { return rewriter.getRemappedValue(v); };
    // At the wait, after every operand's definition.
    rewriter.setInsertionPoint(sequence->wait);
    WgmmaAsm wgmma(rewriter, sequence->wait.getLoc());
    wgmma.reserve(sequence->products, remap);
    size_t next = 0;
    for (size_t end : sequence->groupEnds) {
      for (; next < end; ++next)
        wgmma.addSteps(sequence->products[next], next, remap);
      wgmma.commit();
    }
    if (sequence->arrive)
      wgmma.arrive(sequence->arrive, remap);
    SmallVector<Value> results =
        wgmma.emit(/*fence=*/true, sequence->wait.getPending());
    SmallVector<Value> waited;
    for (Value value : sequence->wait.getValues())
      waited.push_back(results[llvm::find(sequence->products,
                                          value.getDefiningOp()) -
                               sequence->products.begin()]);
    rewriter.replaceOp(sequence->wait, waited);
    for (Operation *commit : sequence->commits)
      rewriter.eraseOp(commit);
    if (sequence->arrive)
      rewriter.eraseOp(sequence->arrive);
    for (auto [product, result] : llvm::zip(sequence->products, results))
      rewriter.replaceOp(product, result);
    rewriter.eraseOp(fence);
    return success();
  }
};

struct WgmmaMmaAsyncLowering : OpConversionPattern<WgmmaMmaAsyncOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WgmmaMmaAsyncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto remap = [&](Value v) { return rewriter.getRemappedValue(v); };
    WgmmaAsm wgmma(rewriter, op.getLoc());
    wgmma.reserve({op}, remap);
    wgmma.addSteps(op, 0, remap);
    rewriter.replaceOp(op, wgmma.emit(/*fence=*/false, std::nullopt));
    return success();
  }
};

/// Passes every value through `wgmma.wait_group.sync.aligned N`: the asm
/// ties each scalar to an output, so nothing computed from the results can
/// move above the wait.
struct WgmmaWaitGroupLowering : OpConversionPattern<WgmmaWaitGroupOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WgmmaWaitGroupOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> scalars;
    for (Value value : adaptor.getValues()) {
      // f32 and vectors of f32 only (the verifier): "=f" registers.
      if (isa<VectorType>(value.getType()))
        llvm::append_range(scalars, scalarsOf(rewriter, loc, value));
      else
        scalars.push_back(value);
    }
    PtxStatement statement;
    statement.addOutputs(scalars.size());
    for (auto [i, value] : llvm::enumerate(scalars))
      statement.addTied(value, i);
    SmallVector<Value> outputs = statement.emit(
        rewriter, loc,
        "wgmma.wait_group.sync.aligned " + std::to_string(op.getPending()) +
            ";");
    SmallVector<Value> results;
    size_t next = 0;
    for (Value value : adaptor.getValues()) {
      auto vector = dyn_cast<VectorType>(value.getType());
      int64_t count = vector ? vector.getNumElements() : 1;
      ArrayRef<Value> slice = ArrayRef<Value>(outputs).slice(next, count);
      results.push_back(vector ? vectorOf(rewriter, loc, slice) : slice[0]);
      next += count;
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// A pattern whose rewrite is `lower`: the ops below need nothing else.
template <typename Op,
          void (*lower)(Op, typename Op::Adaptor, ConversionPatternRewriter &)>
struct Lowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    lower(op, adaptor, rewriter);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Descriptors, mbarriers, fences, TMA, math
//===----------------------------------------------------------------------===//

/// The address of a workgroup memref's first element, as an i64.
Value sharedAddress(OpBuilder &b, Location loc, Value memref) {
  Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), pointer);
}

/// The address `byteOffset` bytes into workgroup memref `memref`, as an i64.
Value sharedAddress(OpBuilder &b, Location loc, Value memref,
                    Value byteOffset) {
  return arith::AddIOp::create(
      b, loc, sharedAddress(b, loc, memref),
      arith::IndexCastUIOp::create(b, loc, b.getI64Type(), byteOffset));
}

Value sharedPointer(OpBuilder &b, Location loc, Value address) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), address);
}

/// start address >> 4 in bits 0-13, leading and stride byte offsets >> 4 in
/// bits 16-29 and 32-45, the swizzle mode in bits 62-63 (1: 128 bytes).
void lowerDescriptor(WgmmaDescriptorOp op, WgmmaDescriptorOp::Adaptor adaptor,
                     ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto constant = [&](int64_t v) {
    return arith::ConstantOp::create(rewriter, loc,
                                     rewriter.getI64IntegerAttr(v))
        .getResult();
  };
  Value address = sharedAddress(rewriter, loc, adaptor.getTile(),
                                adaptor.getByteOffset());
  Value start = arith::ShRUIOp::create(
      rewriter, loc,
      arith::AndIOp::create(rewriter, loc, address, constant(0x3FFFF)),
      constant(4));
  uint64_t fixed = (static_cast<uint64_t>(op.getLeadingBytes() >> 4) << 16) |
                   (static_cast<uint64_t>(op.getStrideBytes() >> 4) << 32) |
                   (op.getSwizzleBytes() == 128 ? 1ull << 62 : 0);
  rewriter.replaceOpWithNewOp<arith::OrIOp>(
      op, start, constant(static_cast<int64_t>(fixed)));
}

void lowerMBarrier(MBarrierOp op, MBarrierOp::Adaptor adaptor,
                   ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  rewriter.replaceOp(
      op, sharedPointer(rewriter, loc,
                        sharedAddress(rewriter, loc, adaptor.getBase(),
                                      adaptor.getByteOffset())));
}

void lowerInit(MBarrierInitOp op, MBarrierInitOp::Adaptor adaptor,
               ConversionPatternRewriter &rewriter) {
  rewriter.replaceOpWithNewOp<NVVM::MBarrierInitOp>(
      op, adaptor.getBarrier(), adaptor.getCount(), Value());
}

void lowerArrive(MBarrierArriveOp op, MBarrierArriveOp::Adaptor adaptor,
                 ConversionPatternRewriter &rewriter) {
  rewriter.replaceOpWithNewOp<NVVM::MBarrierArriveOp>(
      op, Type(), adaptor.getBarrier(), Value());
}

void lowerArriveCpAsync(MBarrierArriveCpAsyncOp op,
                        MBarrierArriveCpAsyncOp::Adaptor adaptor,
                        ConversionPatternRewriter &rewriter) {
  rewriter.replaceOpWithNewOp<NVVM::CpAsyncMBarrierArriveOp>(
      op, adaptor.getBarrier(), /*noinc=*/true);
}

void lowerArriveExpectTx(MBarrierArriveExpectTxOp op,
                         MBarrierArriveExpectTxOp::Adaptor adaptor,
                         ConversionPatternRewriter &rewriter) {
  rewriter.replaceOpWithNewOp<NVVM::MBarrierArriveExpectTxOp>(
      op, Type(), adaptor.getBarrier(), adaptor.getBytes(),
      NVVM::MemScopeKindAttr(), BoolAttr(), Value());
}

void lowerNamedSync(NamedBarrierSyncOp op, NamedBarrierSyncOp::Adaptor adaptor,
                    ConversionPatternRewriter &rewriter) {
  Value threads = arith::ConstantOp::create(
      rewriter, op.getLoc(), rewriter.getI32IntegerAttr(op.getThreads()));
  rewriter.replaceOpWithNewOp<NVVM::BarrierOp>(
      op, Type(), adaptor.getId(), threads, NVVM::BarrierReductionAttr(),
      Value());
}

void lowerNamedArrive(NamedBarrierArriveOp op,
                      NamedBarrierArriveOp::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) {
  Value threads = arith::ConstantOp::create(
      rewriter, op.getLoc(), rewriter.getI32IntegerAttr(op.getThreads()));
  rewriter.replaceOpWithNewOp<NVVM::BarrierArriveOp>(op, adaptor.getId(),
                                                     threads);
}

/// Spins until the phase completes; the ticks are only a suspend hint.
void lowerWait(MBarrierWaitOp op, MBarrierWaitOp::Adaptor adaptor,
               ConversionPatternRewriter &rewriter) {
  Value ticks = arith::ConstantOp::create(
      rewriter, op.getLoc(), rewriter.getI32IntegerAttr(1000000));
  rewriter.replaceOpWithNewOp<NVVM::MBarrierTryWaitParityOp>(
      op, adaptor.getBarrier(), adaptor.getParity(), ticks);
}

template <typename Op, typename NVVMOp>
void lowerToNVVM(Op op, typename Op::Adaptor, ConversionPatternRewriter &rewriter) {
  rewriter.replaceOpWithNewOp<NVVMOp>(op);
}

void lowerFenceProxyAsync(FenceProxyAsyncOp op, FenceProxyAsyncOp::Adaptor,
                          ConversionPatternRewriter &rewriter) {
  rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
      op, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

/// The NVVM TMA ops take the tensor map as a generic pointer; a kernel
/// parameter may come as a global one.
Value genericMap(OpBuilder &b, Location loc, Value map) {
  if (cast<LLVM::LLVMPointerType>(map.getType()).getAddressSpace() == 0)
    return map;
  return LLVM::AddrSpaceCastOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), map);
}

/// The shared::cluster form, which PTX 8.0 has (the shared::cta one needs
/// PTX 8.6): in a cluster of one block it is this block's shared memory.
void lowerTmaLoad(TmaLoadOp op, TmaLoadOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Value tile = LLVM::AddrSpaceCastOp::create(
      rewriter, loc, LLVM::LLVMPointerType::get(ctx, 7),
      sharedPointer(rewriter, loc,
                    sharedAddress(rewriter, loc, adaptor.getTile())));
  rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(
      op, tile, genericMap(rewriter, loc, adaptor.getTensorMap()),
      adaptor.getCoordinates(), adaptor.getBarrier(), ValueRange{}, Value(),
      Value(), NVVM::TMALoadMode::TILE,
      /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), Value());
}

/// The TMA store reads the tile from this block's shared memory (address
/// space 3, the PTX 8.0 form .shared::cta).
void lowerTmaStore(TmaStoreOp op, TmaStoreOp::Adaptor adaptor,
                   ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value tile = sharedPointer(rewriter, loc,
                             sharedAddress(rewriter, loc, adaptor.getTile()));
  rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(
      op, genericMap(rewriter, loc, adaptor.getTensorMap()), tile,
      adaptor.getCoordinates(), /*l2CacheHint=*/Value(),
      NVVM::TMAStoreModeAttr::get(rewriter.getContext(),
                                  NVVM::TMAStoreMode::TILE),
      /*predicate=*/Value());
}

/// One MUFU instruction; without .ftz ptxas adds range fix-ups.
void lowerExp2(Exp2Op op, Exp2Op::Adaptor adaptor,
               ConversionPatternRewriter &rewriter) {
  rewriter.replaceOpWithNewOp<LLVM::InlineAsmOp>(
      op, rewriter.getF32Type(), ValueRange{adaptor.getX()},
      "ex2.approx.ftz.f32 $0, $1;", "=f,f", /*has_side_effects=*/false,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr(), ArrayAttr());
}

/// The address of element `indices` of a global memref, as an i64: its
/// aligned pointer plus (offset + sum of index x stride) elements.
Value globalElementAddress(OpBuilder &b, Location loc, Value memref,
                           ValueRange indices) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value linear = metadata.getOffset();
  for (auto [index, stride] : llvm::zip(indices, metadata.getStrides()))
    linear = arith::AddIOp::create(
        b, loc, linear, arith::MulIOp::create(b, loc, index, stride));
  auto elementBytes = arith::ConstantIndexOp::create(
      b, loc,
      cast<MemRefType>(memref.getType()).getElementTypeBitWidth() / 8);
  Value bytes = arith::MulIOp::create(b, loc, linear, elementBytes);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(), arith::AddIOp::create(b, loc, base, bytes));
}

/// red.global.add.vN.f32: one relaxed reduction of N f32 at the address.
void lowerRedAdd(RedAddOp op, RedAddOp::Adaptor adaptor,
                 ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  int64_t lanes = op.getValue().getType().getNumElements();
  PtxStatement asmOperands;
  std::string address = asmOperands.addInput(
      globalElementAddress(rewriter, loc, adaptor.getMemref(),
                           adaptor.getIndices()),
      "l");
  std::string values;
  for (int64_t i = 0; i < lanes; ++i) {
    Value lane = vector::ExtractOp::create(rewriter, loc, adaptor.getValue(),
                                           ArrayRef<int64_t>{i});
    values += (i ? ", " : "") + asmOperands.addInput(lane, "f");
  }
  asmOperands.emit(rewriter, loc,
                   "red.global.add.v" + std::to_string(lanes) + ".f32 [" +
                       address + "], {" + values + "};");
  rewriter.eraseOp(op);
}

/// One bulk reduction of the shared span into global memory, in the bulk
/// group the next nvvm.cp.async.bulk.commit.group closes.
void lowerBulkReduceAdd(BulkReduceAddOp op, BulkReduceAddOp::Adaptor adaptor,
                        ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  PtxStatement asmOperands;
  std::string to = asmOperands.addInput(
      globalElementAddress(rewriter, loc, adaptor.getMemref(),
                           adaptor.getIndices()),
      "l");
  std::string from = asmOperands.addInput(
      sharedAddress(rewriter, loc, adaptor.getSource()), "l");
  std::string bytes = asmOperands.addInput(adaptor.getBytes(), "r");
  asmOperands.emit(rewriter, loc,
                   "cp.reduce.async.bulk.global.shared::cta.bulk_group.add."
                   "f32 [" +
                       to + "], [" + from + "], " + bytes + ";");
  rewriter.eraseOp(op);
}

struct ConvertAttnGPUToNVVMPass
    : attnc::impl::ConvertAttnGPUToNVVMBase<ConvertAttnGPUToNVVMPass> {
  void runOnOperation() override {
    if (failed(checkSharedTilesLowered()) || failed(checkTensorMapsOutlined()))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    converter.addConversion([&](MBarrierType) {
      return LLVM::LLVMPointerType::get(ctx, 3);
    });
    auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                   Location loc) -> Value {
      return UnrealizedConversionCastOp::create(b, loc, type, inputs)
          .getResult(0);
    };
    converter.addSourceMaterialization(cast);
    converter.addTargetMaterialization(cast);

    RewritePatternSet patterns(ctx);
    patterns.add<WgmmaIssueSequenceLowering>(converter, ctx);
    patterns.add<
        WgmmaMmaAsyncLowering, WgmmaWaitGroupLowering,
        Lowering<WgmmaFenceOp,
                 lowerToNVVM<WgmmaFenceOp, NVVM::WgmmaFenceAlignedOp>>,
        Lowering<
            WgmmaCommitGroupOp,
            lowerToNVVM<WgmmaCommitGroupOp, NVVM::WgmmaGroupSyncAlignedOp>>,
        Lowering<MBarrierFenceInitOp,
                 lowerToNVVM<MBarrierFenceInitOp, NVVM::FenceMbarrierInitOp>>,
        Lowering<WgmmaDescriptorOp, lowerDescriptor>,
        Lowering<MBarrierOp, lowerMBarrier>,
        Lowering<MBarrierInitOp, lowerInit>,
        Lowering<MBarrierArriveOp, lowerArrive>,
        Lowering<MBarrierArriveCpAsyncOp, lowerArriveCpAsync>,
        Lowering<MBarrierArriveExpectTxOp, lowerArriveExpectTx>,
        Lowering<MBarrierWaitOp, lowerWait>,
        Lowering<NamedBarrierSyncOp, lowerNamedSync>,
        Lowering<NamedBarrierArriveOp, lowerNamedArrive>,
        Lowering<FenceProxyAsyncOp, lowerFenceProxyAsync>,
        Lowering<TmaLoadOp, lowerTmaLoad>, Lowering<TmaStoreOp, lowerTmaStore>,
        Lowering<Exp2Op, lowerExp2>, Lowering<RedAddOp, lowerRedAdd>,
        Lowering<BulkReduceAddOp, lowerBulkReduceAdd>>(converter, ctx);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<AttnGPUDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }

private:
  /// A tensor map is a kernel parameter, which outlining makes it.
  LogicalResult checkTensorMapsOutlined() {
    WalkResult walk = getOperation()->walk([](TensorMapOp op) {
      op.emitOpError() << "must become a kernel parameter by "
                          "attn-outline-gpu-kernels before "
                          "convert-attngpu-to-nvvm";
      return WalkResult::interrupt();
    });
    return failure(walk.wasInterrupted());
  }

  /// Tiles have no address of their own until their layout is lowered.
  LogicalResult checkSharedTilesLowered() {
    WalkResult walk = getOperation()->walk([](SharedTileOp op) {
      op.emitOpError() << "must be lowered by attngpu-lower-shared-tiles "
                          "before convert-attngpu-to-nvvm";
      return WalkResult::interrupt();
    });
    return failure(walk.wasInterrupted());
  }
};

} // namespace
