//===- AttnOps.cpp - attn dialect operations ------------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Verifiers reject every malformed op with a message that names the operand
// and the rule: release MLIR has no asserts, so these checks are what keeps
// the lowerings safe.
//
//===----------------------------------------------------------------------===//

#include "dialects/attn/AttnOps.h"

#include "dialects/attn/RegionTangents.h"

#include "lib/semantics/RegionOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::attn;

#define GET_OP_CLASSES
#include "dialects/attn/AttnOps.cpp.inc"

/// Largest head dim: the tiled kernels keep a row of Q and of the
/// accumulator in registers or shared memory.
static constexpr int64_t kMaxHeadDim = 1024;

//===----------------------------------------------------------------------===//
// Shared shape rules of attention-like ops
//===----------------------------------------------------------------------===//

static bool isAttentionElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

/// Checks rank and that every static dim is in [1, kMaxExtent].
static LogicalResult verifyTensor(Operation *op, StringRef name,
                                  RankedTensorType type, int64_t rank,
                                  StringRef layout) {
  if (type.getRank() != rank)
    return op->emitOpError()
           << "expected " << name << " to have rank " << rank << " " << layout
           << ", got rank " << type.getRank();
  for (auto [dim, extent] : llvm::enumerate(type.getShape())) {
    if (ShapedType::isDynamic(extent))
      continue;
    if (extent < 1)
      return op->emitOpError() << name << " dim " << dim << " is " << extent
                               << "; static dims must be positive";
    if (extent > kMaxExtent)
      return op->emitOpError()
             << name << " dim " << dim << " is " << extent
             << ", larger than the supported maximum " << kMaxExtent;
  }
  return success();
}

static LogicalResult verifyStaticDim(Operation *op, StringRef name,
                                     RankedTensorType type, int64_t dim,
                                     StringRef what) {
  if (type.isDynamicDim(dim))
    return op->emitOpError() << "expected the " << what << " of " << name
                             << " (dim " << dim << ") to be static";
  return success();
}

/// Two dims agree when they are equal or either is dynamic.
static bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

static std::string dimString(int64_t extent) {
  return ShapedType::isDynamic(extent) ? "?" : std::to_string(extent);
}

static LogicalResult verifyDimsMatch(Operation *op, StringRef what,
                                     StringRef nameA, int64_t a,
                                     StringRef nameB, int64_t b) {
  if (dimsCompatible(a, b))
    return success();
  return op->emitOpError() << "expected " << nameA << " and " << nameB
                           << " to have the same " << what << ", got " << a
                           << " and " << b;
}

static constexpr StringLiteral kAttentionLayout =
    "([batch, heads, seq, head_dim])";

/// The shape [B, Hq, Nq, Dv] of attention's out for q and v.
static SmallVector<int64_t> attentionOutShape(Value q, Value v) {
  auto qType = cast<RankedTensorType>(q.getType());
  auto vType = cast<RankedTensorType>(v.getType());
  return {qType.getDimSize(0), qType.getDimSize(1), qType.getDimSize(2),
          vType.getDimSize(3)};
}

/// Rules shared by the attention ops for q [B, Hq, Nq, D], k [B, Hkv, Nk, D]
/// and v [B, Hkv, Nk, Dv].
static LogicalResult verifyQueryKeyValue(Operation *op, Value q, Value k,
                                         Value v) {
  auto qType = cast<RankedTensorType>(q.getType());
  auto kType = cast<RankedTensorType>(k.getType());
  auto vType = cast<RankedTensorType>(v.getType());
  if (failed(verifyTensor(op, "q", qType, 4, kAttentionLayout)) ||
      failed(verifyTensor(op, "k", kType, 4, kAttentionLayout)) ||
      failed(verifyTensor(op, "v", vType, 4, kAttentionLayout)))
    return failure();

  Type elementType = qType.getElementType();
  if (!isAttentionElementType(elementType))
    return op->emitOpError()
           << "expected q element type to be f32, f16 or bf16, got "
           << elementType;
  for (auto [name, type] :
       {std::pair<StringRef, RankedTensorType>{"k", kType}, {"v", vType}}) {
    if (type.getElementType() != elementType)
      return op->emitOpError()
             << "expected " << name << " element type " << type.getElementType()
             << " to match q element type " << elementType;
  }

  for (auto [name, type] : {std::pair<StringRef, RankedTensorType>{"q", qType},
                            {"k", kType},
                            {"v", vType}}) {
    if (failed(verifyStaticDim(op, name, type, 1, "head count")) ||
        failed(verifyStaticDim(op, name, type, 3, "head dim")))
      return failure();
    if (type.getDimSize(3) > kMaxHeadDim)
      return op->emitOpError()
             << "head dim " << type.getDimSize(3) << " of " << name
             << " exceeds the supported maximum " << kMaxHeadDim;
  }

  int64_t headsQ = qType.getDimSize(1);
  int64_t headsKV = kType.getDimSize(1);
  if (failed(verifyDimsMatch(op, "batch size", "q", qType.getDimSize(0), "k",
                             kType.getDimSize(0))) ||
      failed(verifyDimsMatch(op, "batch size", "k", kType.getDimSize(0), "v",
                             vType.getDimSize(0))) ||
      failed(verifyDimsMatch(op, "head count", "k", headsKV, "v",
                             vType.getDimSize(1))) ||
      failed(verifyDimsMatch(op, "sequence length", "k", kType.getDimSize(2),
                             "v", vType.getDimSize(2))) ||
      failed(verifyDimsMatch(op, "head dim", "q", qType.getDimSize(3), "k",
                             kType.getDimSize(3))))
    return failure();
  if (headsQ % headsKV != 0)
    return op->emitOpError()
           << "expected the q head count (" << headsQ
           << ") to be a multiple of the k/v head count (" << headsKV << ")";
  return success();
}

/// verifyQueryKeyValue, and out [B, Hq, Nq, Dv] of q's element type.
static LogicalResult verifyQueryKeyValueOut(Operation *op, Value q, Value k,
                                            Value v, Value out,
                                            StringRef outName = "out") {
  if (failed(verifyQueryKeyValue(op, q, k, v)))
    return failure();
  auto outType = cast<RankedTensorType>(out.getType());
  if (failed(verifyTensor(op, outName, outType, 4, kAttentionLayout)))
    return failure();
  Type elementType = cast<RankedTensorType>(q.getType()).getElementType();
  if (outType.getElementType() != elementType)
    return op->emitOpError() << "expected " << outName << " element type "
                             << outType.getElementType()
                             << " to match q element type " << elementType;
  SmallVector<int64_t> expectedOut = attentionOutShape(q, v);
  if (outType.getShape() != ArrayRef<int64_t>(expectedOut))
    return op->emitOpError()
           << "expected " << outName << " shape [" << dimString(expectedOut[0])
           << ", " << dimString(expectedOut[1]) << ", "
           << dimString(expectedOut[2]) << ", " << expectedOut[3]
           << "] ([batch, q heads, q seq, v head_dim]), got " << outType;
  return success();
}

/// The value of an optional f32 attribute.
static std::optional<float> getFloat(FloatAttr attr) {
  if (!attr)
    return std::nullopt;
  return attr.getValue().convertToFloat();
}

static LogicalResult verifyScale(Operation *op, FloatAttr scaleAttr) {
  std::optional<float> scale = getFloat(scaleAttr);
  if (!scale || (std::isfinite(*scale) && *scale != 0.0f))
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "expected scale to be finite and non-zero, got ";
  if (std::isnan(*scale))
    return diag << "nan";
  if (std::isinf(*scale))
    return diag << (*scale < 0 ? "-inf" : "inf");
  return diag << *scale;
}

//===----------------------------------------------------------------------===//
// TilesAttr
//===----------------------------------------------------------------------===//

/// Tiles beyond this stop fitting a block's working set in cache (host) or
/// shared memory and registers (GPU).
static constexpr int64_t kMaxTile = 256;

LogicalResult
TilesAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t blockM,
                  int64_t blockN, std::optional<MmaKind> mma,
                  std::optional<bool> packGroup, std::optional<bool> producer,
                  std::optional<bool> tma, std::optional<bool> pingPong) {
  if (packGroup.value_or(false) && (!mma || *mma == MmaKind::None))
    return emitError()
           << "pack_group needs tensor-core tiles (mma = mma_sync or wgmma)";
  if (producer.value_or(false) && mma != MmaKind::Warpgroup)
    return emitError() << "producer needs mma = wgmma";
  if (tma.value_or(false) && !producer.value_or(false))
    return emitError() << "tma needs producer = true (the producer copies by "
                          "TMA)";
  if (pingPong.value_or(false) && mma != MmaKind::Warpgroup)
    return emitError() << "ping_pong needs mma = wgmma";
  for (auto [name, size] : {std::pair<StringRef, int64_t>{"block_m", blockM},
                            {"block_n", blockN}}) {
    if (size < 1 || size > kMaxTile)
      return emitError() << "expected " << name << " in [1, " << kMaxTile
                         << "], got " << size;
  }
  if (mma == MmaKind::Sync && !tilesFitMma(*mma, blockM, blockN))
    return emitError() << "expected mma_sync tiles to be multiples of 16, got "
                       << blockM << "x" << blockN;
  if (mma == MmaKind::Warpgroup && !tilesFitMma(*mma, blockM, blockN))
    return emitError() << "expected wgmma tiles of 64, 128 or 192 rows by 64 "
                          "or 128 keys, got "
                       << blockM << "x" << blockN;
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

bool mlir::attn::tilesFitMma(MmaKind mma, int64_t blockM, int64_t blockN) {
  switch (mma) {
  case MmaKind::None:
    return true;
  case MmaKind::Sync:
    return blockM % 16 == 0 && blockN % 16 == 0;
  case MmaKind::Warpgroup:
    return blockM % 64 == 0 && blockM <= 192 && (blockN == 64 || blockN == 128);
  }
  llvm_unreachable("unknown MmaKind");
}

bool mlir::attn::elementFitsMma(Type element) {
  return element.isF16() || element.isBF16();
}

bool mlir::attn::headDimFitsMma(MmaKind mma, int64_t headDim) {
  switch (mma) {
  case MmaKind::None:
    return true;
  case MmaKind::Sync:
    return headDim % 16 == 0 && headDim <= kMaxHeadDim;
  case MmaKind::Warpgroup:
    // wgmma's k16 steps and n in multiples of 8 up to 256; tiles are padded
    // to whole 128-byte swizzle panels of 64 columns.
    return headDim % 16 == 0 && headDim <= 256;
  }
  llvm_unreachable("unknown MmaKind");
}

bool mlir::attn::wgmmaKeyValueAddsDq(int64_t headDim) {
  return headDim % 64 == 0;
}

int64_t mlir::attn::wgmmaWarpgroups(int64_t blockM, int64_t blockN,
                                    bool ownsKeys) {
  return (ownsKeys ? blockN : blockM) / 64;
}

/// The tensor-core kind of the tiles must fit the inputs.
static LogicalResult verifyTensorCores(AttentionScoringOpInterface op) {
  std::optional<TilesAttr> tiles = op.getTiles();
  std::optional<MmaKind> mma = tiles ? tiles->getMma() : std::nullopt;
  if (!mma || *mma == MmaKind::None)
    return success();
  Type element = op.getQ().getType().getElementType();
  if (!elementFitsMma(element))
    return op.emitOpError()
           << "tensor-core tiles (mma = " << stringifyMmaKind(*mma)
           << ") need f16 or bf16 inputs, got " << element;
  int64_t limit = *mma == MmaKind::Warpgroup ? 256 : kMaxHeadDim;
  for (auto [name, dim] : {std::pair<StringRef, int64_t>{
                               "q", op.getQ().getType().getDimSize(3)},
                           {"v", op.getV().getType().getDimSize(3)}})
    if (!headDimFitsMma(*mma, dim))
      return op.emitOpError()
             << "tensor-core tiles (mma = " << stringifyMmaKind(*mma)
             << ") need head dims that are multiples of 16 up to " << limit
             << ", got " << dim << " for " << name;
  if (tiles->getPackGroup().value_or(false) &&
      (op.getQ().getType().getDimSize(2) != 1 ||
       tiles->getBlockM() < op.getGroupSize() ||
       !isa<AttentionOp, AttentionSplitOp>(op.getOperation())))
    return op.emitOpError()
           << "pack_group tiles need a forward attention op with a query "
              "length of 1 and block_m of at least the "
           << op.getGroupSize() << " query heads of a key/value group";
  if (tiles->getProducer().value_or(false) &&
      !isa<AttentionOp, AttentionGradKVOp, AttentionGradQOp>(op.getOperation()))
    return op.emitOpError()
           << "producer tiles need attention, attention_grad_kv or "
              "attention_grad_q (the split kernels copy their own tiles)";
  if (tiles->getProducer().value_or(false) &&
      !tiles->getTma().value_or(false) &&
      isa<AttentionGradKVOp, AttentionGradQOp>(op.getOperation()))
    return op.emitOpError()
           << "producer tiles of a gradient op need tma = true (its producer "
              "loads by TMA where it can)";
  if (tiles->getPingPong().value_or(false) &&
      wgmmaWarpgroups(tiles->getBlockM(), tiles->getBlockN(),
                      isa<AttentionGradKVOp>(op.getOperation())) < 2)
    return op.emitOpError()
           << "ping_pong tiles need two or more warpgroups to take turns (64 "
              "rows of block_m each, of block_n for attention_grad_kv)";
  return success();
}

/// Checks that `value` is an f32 tensor of shape [B, Hq, Nq] of `q` (lse,
/// delta).
static LogicalResult verifyRowStats(Operation *op, StringRef name, Value value,
                                    Value q) {
  auto type = cast<RankedTensorType>(value.getType());
  auto qType = cast<RankedTensorType>(q.getType());
  SmallVector<int64_t> expected(qType.getShape().take_front(3));
  if (type.getShape() == ArrayRef<int64_t>(expected) &&
      type.getElementType().isF32())
    return success();
  return op->emitOpError() << "expected " << name
                           << " to be an f32 tensor of shape ["
                           << dimString(expected[0]) << ", " << expected[1]
                           << ", " << dimString(expected[2])
                           << "] ([batch, q heads, q seq]), got " << type;
}

/// Checks that `value` has exactly the type of `like` (a gradient and its
/// primal).
static LogicalResult verifySameType(Operation *op, StringRef name, Value value,
                                    StringRef likeName, Value like) {
  if (value.getType() == like.getType())
    return success();
  return op->emitOpError() << "expected " << name << " to have the type of "
                           << likeName << ", " << like.getType() << ", got "
                           << value.getType();
}

/// Checks that `value` is the f32 [B, Hq, Nq, D] dq accumulator of `q`.
static LogicalResult verifyDqAccumulator(Operation *op, StringRef name,
                                         Value value, Value q) {
  auto type = cast<RankedTensorType>(value.getType());
  auto qType = cast<RankedTensorType>(q.getType());
  if (type.getShape() == qType.getShape() && type.getElementType().isF32())
    return success();
  return op->emitOpError() << "expected " << name
                           << " to be an f32 tensor of the shape of q, "
                           << qType << ", got " << type;
}

/// Checks a row swizzle width `width` (attribute `name`) over rows of
/// `rowLength` columns: positive multiples of 16 that divide the rows.
static LogicalResult verifyRowSwizzle(Operation *op, StringRef name,
                                      std::optional<int64_t> width,
                                      int64_t rowLength) {
  if (!width)
    return success();
  if (*width < 16 || *width % 16 != 0 || ShapedType::isDynamic(rowLength) ||
      rowLength % *width != 0)
    return op->emitOpError()
           << "expected " << name
           << " to be a multiple of 16 that divides the static row length "
           << (ShapedType::isDynamic(rowLength) ? std::string("?")
                                                : std::to_string(rowLength))
           << ", got " << *width;
  return success();
}

/// Indices of real tensors stay below 2^62 (2^62 rows of 2-byte elements
/// exceed any address space), so q_idx +- window never overflows int64 in
/// the kernels or the reference when the window is at most 2^62.
static constexpr int64_t kMaxWindow = int64_t(1) << 62;

/// The attribute rules of every op with attention's scoring.
static LogicalResult verifyScoringAttrs(AttentionScoringOpInterface op,
                                        FloatAttr scale) {
  if (failed(verifyScale(op, scale)))
    return failure();
  for (auto [name, window] : {std::pair<StringRef, std::optional<int64_t>>{
                                  "window_left", op.getWindowLeft()},
                              {"window_right", op.getWindowRight()}}) {
    if (window && *window < 0)
      return op.emitOpError()
             << "expected " << name << " to be non-negative, got " << *window;
    if (window && *window > kMaxWindow)
      return op.emitOpError()
             << "expected " << name << " to be at most 2^62 (" << kMaxWindow
             << "), got " << *window << "; leave it out for no bound";
  }
  if (op.getBottomRight() && !op.getCausal() && !op.getWindowLeft() &&
      !op.getWindowRight())
    return op.emitOpError() << "bottom_right aligns causal and windows; it "
                               "needs causal, window_left or window_right";
  return verifyTensorCores(op);
}

LogicalResult AttentionOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyQueryKeyValueOut(op, getQ(), getK(), getV(), getOut())) ||
      failed(verifyRowStats(op, "lse", getLse(), getQ())))
    return failure();
  return verifyScoringAttrs(*this, getScaleAttr());
}

/// Checks that `outPart` and `lsePart` are the f32 per-range results
/// [S, B, Hq, Nq, Dv] and [S, B, Hq, Nq] of attention on q and v, with the
/// same static S >= 1.
static LogicalResult verifyKeyRanges(Operation *op, Value q, Value v,
                                     Value outPart, Value lsePart) {
  auto outType = cast<RankedTensorType>(outPart.getType());
  auto lseType = cast<RankedTensorType>(lsePart.getType());
  int64_t splits = outType.getRank() > 0 ? outType.getDimSize(0) : 0;
  SmallVector<int64_t> out = attentionOutShape(q, v);
  out.insert(out.begin(), splits);
  SmallVector<int64_t> rows(ArrayRef<int64_t>(out).take_front(4));
  auto describe = [](ArrayRef<int64_t> shape) {
    std::string text;
    for (int64_t extent : shape)
      text += (text.empty() ? "" : "x") + dimString(extent);
    return text;
  };
  if (ShapedType::isDynamic(splits) || splits < 1 ||
      outType.getShape() != ArrayRef<int64_t>(out) ||
      lseType.getShape() != ArrayRef<int64_t>(rows) ||
      !outType.getElementType().isF32() || !lseType.getElementType().isF32())
    return op->emitOpError()
           << "expected per-range results tensor<" << describe(out)
           << "xf32> and tensor<" << describe(rows)
           << "xf32> ([ranges, batch, q heads, q seq(, v head_dim)]) with a "
              "static number of ranges, got "
           << outType << " and " << lseType;
  return success();
}

LogicalResult AttentionSplitOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyQueryKeyValue(op, getQ(), getK(), getV())) ||
      failed(verifyKeyRanges(op, getQ(), getV(), getOutPart(), getLsePart())))
    return failure();
  return verifyScoringAttrs(*this, getScaleAttr());
}

int64_t AttentionSplitOp::getKeySplits() {
  return getOutPart().getType().getDimSize(0);
}

LogicalResult AttentionCombineOp::verify() {
  auto outType = getOut().getType();
  if (!isAttentionElementType(outType.getElementType()) ||
      outType.getRank() != 4)
    return emitOpError() << "expected out to be a rank-4 tensor of f32, f16 "
                            "or bf16 ([batch, q heads, q seq, v head_dim]), "
                            "got "
                         << outType;
  if (failed(verifyRowStats(*this, "lse", getLse(), getOut())))
    return failure();
  auto outPart = getOutPart().getType();
  auto lsePart = getLsePart().getType();
  SmallVector<int64_t> expected(outType.getShape());
  int64_t splits = outPart.getRank() > 0 ? outPart.getDimSize(0) : 0;
  expected.insert(expected.begin(), splits);
  SmallVector<int64_t> expectedRows(ArrayRef<int64_t>(expected).take_front(4));
  if (ShapedType::isDynamic(splits) || splits < 1 ||
      outPart.getShape() != ArrayRef<int64_t>(expected) ||
      lsePart.getShape() != ArrayRef<int64_t>(expectedRows) ||
      !outPart.getElementType().isF32() || !lsePart.getElementType().isF32())
    return emitOpError() << "expected out_part and lse_part to be f32 with a "
                            "static leading number of ranges and out's and "
                            "lse's shapes after it, got "
                         << outPart << " and " << lsePart;
  if (std::optional<int64_t> block = getBlockSize(); block && *block < 1)
    return emitOpError() << "expected a positive block_size, got " << *block;
  return success();
}

LogicalResult AttentionGradOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyQueryKeyValueOut(op, getQ(), getK(), getV(), getOut())) ||
      failed(verifySameType(op, "dout", getDout(), "out", getOut())) ||
      failed(verifyRowStats(op, "lse", getLse(), getQ())) ||
      failed(verifySameType(op, "dq", getDq(), "q", getQ())) ||
      failed(verifySameType(op, "dk", getDk(), "k", getK())) ||
      failed(verifySameType(op, "dv", getDv(), "v", getV())))
    return failure();
  return verifyScoringAttrs(*this, getScaleAttr());
}

LogicalResult AttentionGradDeltaOp::verify() {
  Operation *op = getOperation();
  auto outType = getOut().getType();
  if (failed(verifyTensor(op, "out", outType, 4,
                          "([batch, heads, seq, head_dim])")) ||
      failed(verifySameType(op, "dout", getDout(), "out", getOut())))
    return failure();
  if (!isAttentionElementType(outType.getElementType()))
    return emitOpError() << "expected out element type to be f32, f16 or "
                            "bf16, got "
                         << outType.getElementType();
  if (failed(verifyRowStats(op, "delta", getDelta(), getOut())))
    return failure();
  auto accType = getDqAccum().getType();
  if (accType.getRank() != 4 ||
      accType.getShape().take_front(3) != outType.getShape().take_front(3) ||
      accType.isDynamicDim(3) || !accType.getElementType().isF32())
    return emitOpError() << "expected dq_accum to be an f32 tensor [batch, q "
                            "heads, q seq, static head_dim] matching out, got "
                         << accType;
  if (std::optional<int64_t> block = getBlockSize(); block && *block < 1)
    return emitOpError() << "expected block_size to be positive, got "
                         << *block;
  return success();
}

/// The operands the key/value and query kernels share: q, k, v, lse, delta
/// and dout.
static LogicalResult verifyGradKernelOperands(Operation *op, Value q, Value k,
                                              Value v, Value lse, Value delta,
                                              Value dout) {
  if (failed(verifyQueryKeyValueOut(op, q, k, v, dout, "dout")) ||
      failed(verifyRowStats(op, "lse", lse, q)))
    return failure();
  return verifyRowStats(op, "delta", delta, q);
}

LogicalResult AttentionGradKVOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyGradKernelOperands(op, getQ(), getK(), getV(), getLse(),
                                      getDelta(), getDout())) ||
      failed(verifySameType(op, "dk", getDk(), "k", getK())) ||
      failed(verifySameType(op, "dv", getDv(), "v", getV())))
    return failure();
  if (bool(getDqAccum()) != bool(getDqAccumOut()))
    return emitOpError() << "expected dq_accum and dq_accum_out together";
  if (getDqAccum() &&
      (failed(verifyDqAccumulator(op, "dq_accum", getDqAccum(), getQ())) ||
       failed(verifySameType(op, "dq_accum_out", getDqAccumOut(), "dq_accum",
                             getDqAccum()))))
    return failure();
  if (getRowSwizzle() && !getDqAccum())
    return emitOpError() << "expected row_swizzle only with dq_accum";
  if (failed(verifyRowSwizzle(op, "row_swizzle", getRowSwizzle(),
                              getQ().getType().getDimSize(3))))
    return failure();
  return verifyScoringAttrs(*this, getScaleAttr());
}

LogicalResult AttentionGradQOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyGradKernelOperands(op, getQ(), getK(), getV(), getLse(),
                                      getDelta(), getDout())) ||
      failed(verifySameType(op, "dq", getDq(), "q", getQ())))
    return failure();
  return verifyScoringAttrs(*this, getScaleAttr());
}

/// The region op table's spelling of `type`, if regions may compute in it.
static std::optional<attnc::sem::ScalarType> regionScalarType(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return attnc::sem::parseScalarType(name);
}

std::string mlir::attn::regionPredicate(Operation *op) {
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    return arith::stringifyCmpIPredicate(cmp.getPredicate()).str();
  if (auto cmp = dyn_cast<arith::CmpFOp>(op))
    return arith::stringifyCmpFPredicate(cmp.getPredicate()).str();
  return "";
}

/// Checks one op of a mask or score region against the region op table: a
/// listed op with one result and operand and result types its row accepts.
static LogicalResult verifyRegionOp(Operation *op, StringRef regionName) {
  const attnc::sem::RegionOpInfo *info =
      attnc::sem::findRegionOp(op->getName().getStringRef());
  if (!info || op->getNumResults() != 1 || op->getNumRegions() != 0)
    return op->emitOpError() << "is not allowed in the " << regionName
                             << " region of " << op->getParentOp()->getName()
                             << ": regions hold only the scalar arith "
                                "and math ops of the region op table "
                                "(lib/semantics/RegionOps.def)";
  std::optional<attnc::sem::ScalarType> result =
      regionScalarType(op->getResult(0).getType());
  if (!result)
    return op->emitOpError() << "has a result of type "
                             << op->getResult(0).getType() << ", which "
                             << regionName << " regions do not compute in";
  // Operands are the region's arguments or results checked before; a
  // captured tensor (tensor.extract's source) stands as its element type.
  std::vector<attnc::sem::ScalarType> operands;
  for (Value operand : op->getOperands())
    operands.push_back(
        *regionScalarType(getElementTypeOrSelf(operand.getType())));
  attnc::Status checked =
      attnc::sem::checkRegionOp(*info, operands, *result, regionPredicate(op));
  if (!checked)
    return op->emitOpError() << "in the " << regionName
                             << " region: " << checked.message();
  APInt divisor;
  if (attnc::sem::isIntegerDivision(info->opcode) &&
      matchPattern(op->getOperand(1), m_ConstantInt(&divisor)) &&
      divisor.isZero())
    return op->emitOpError()
           << "in the " << regionName << " region divides by zero";
  return success();
}

/// Checks one optional region (mask, score, score_grad, elementwise body):
/// its arguments, its yield and every op in it.
static LogicalResult verifyRegionBlock(Operation *op, Region &region,
                                       StringRef name, ArrayRef<Type> argTypes,
                                       StringRef argNames,
                                       ArrayRef<Type> resultTypes) {
  if (region.empty())
    return success();
  Block &block = region.front();
  if (block.getArgumentTypes() != TypeRange(argTypes)) {
    InFlightDiagnostic diag = op->emitOpError()
                              << "expected the " << name << " region to take ("
                              << argNames << ") of types (";
    llvm::interleaveComma(argTypes, diag);
    diag << "), got (";
    llvm::interleaveComma(block.getArgumentTypes(), diag);
    return diag << ")";
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError()
           << "expected the " << name << " region to end with attn.yield";
  if (yield.getValues().getTypes() != TypeRange(resultTypes)) {
    InFlightDiagnostic diag = yield.emitOpError()
                              << "expected the " << name << " region to yield ";
    if (resultTypes.size() == 1)
      return diag << "one " << resultTypes.front();
    diag << "(";
    llvm::interleaveComma(resultTypes, diag);
    return diag << ")";
  }
  for (Operation &nested : block.without_terminator())
    if (failed(verifyRegionOp(&nested, name)))
      return failure();
  return success();
}

/// Captures are tensors of rank 1 to 4 (the reference's limit) of an
/// element type regions read (sem::isCaptureElementType).
static LogicalResult verifyCaptures(AttentionScoringOpInterface op) {
  for (auto [i, capture] : llvm::enumerate(op.getCaptures())) {
    auto type = cast<RankedTensorType>(capture.getType());
    std::optional<attnc::sem::ScalarType> element =
        regionScalarType(type.getElementType());
    if (type.getRank() == 0 || type.getRank() > 4 || !element ||
        !attnc::sem::isCaptureElementType(*element))
      return op.emitOpError()
             << "expected capture " << i << " to be a tensor of rank 1 to 4 "
             << "of i32, i64, f16, bf16 or f32, got " << type;
  }
  return success();
}

/// The mask and score regions, and for gradient ops the score_grad region
/// (the score's derivative, with the score region's arguments). Kernels
/// need the derivative whenever there is a score region; attn.attention_grad
/// may leave it to attn-differentiate-score.
static LogicalResult verifyScoringRegions(AttentionScoringOpInterface op,
                                          Region *scoreGrad,
                                          bool scoreGradRequired) {
  if (failed(verifyCaptures(op)))
    return failure();
  MLIRContext *ctx = op->getContext();
  Type index = IndexType::get(ctx);
  Type f32 = Float32Type::get(ctx);
  Type i1 = IntegerType::get(ctx, 1);
  SmallVector<Type> maskArgs = {index, index, index, index};
  SmallVector<Type> scoreArgs = {f32, index, index, index, index};
  llvm::append_range(maskArgs, op.getCaptures().getTypes());
  llvm::append_range(scoreArgs, op.getCaptures().getTypes());
  std::string maskArgNames = "b, h, q_idx, k_idx";
  std::string scoreArgNames = "s, " + maskArgNames;
  for (size_t i = 0, e = op.getCaptures().size(); i < e; ++i) {
    maskArgNames += ", capture" + std::to_string(i);
    scoreArgNames += ", capture" + std::to_string(i);
  }
  if (failed(verifyRegionBlock(op, op.getMask(), "mask", maskArgs, maskArgNames,
                               {i1})) ||
      failed(verifyRegionBlock(op, op.getScore(), "score", scoreArgs,
                               scoreArgNames, {f32})))
    return failure();
  if (!scoreGrad)
    return success();
  bool hasScore = !op.getScore().empty(), hasGrad = !scoreGrad->empty();
  if (hasGrad && !hasScore)
    return op.emitOpError() << "has a score_grad region without a score region";
  if (hasScore && !hasGrad && scoreGradRequired)
    return op.emitOpError() << "has a score region but no score_grad region; "
                               "run attn-differentiate-score";
  return verifyRegionBlock(op, *scoreGrad, "score_grad", scoreArgs,
                           scoreArgNames, {f32});
}

LogicalResult AttentionOp::verifyRegions() {
  return verifyScoringRegions(*this, nullptr, false);
}

LogicalResult AttentionSplitOp::verifyRegions() {
  return verifyScoringRegions(*this, nullptr, false);
}

LogicalResult AttentionGradOp::verifyRegions() {
  return verifyScoringRegions(*this, &getScoreGrad(), false);
}

LogicalResult AttentionGradKVOp::verifyRegions() {
  return verifyScoringRegions(*this, &getScoreGrad(), true);
}

LogicalResult AttentionGradQOp::verifyRegions() {
  return verifyScoringRegions(*this, &getScoreGrad(), true);
}

namespace {

/// The value a single-block region yields, or null.
Value getYieldedValue(Region &region) {
  if (region.empty())
    return {};
  auto yield = dyn_cast<YieldOp>(region.front().getTerminator());
  if (!yield || yield.getValues().size() != 1)
    return {};
  return yield.getValues().front();
}

void clearRegion(PatternRewriter &rewriter, Region &region) {
  while (!region.empty())
    rewriter.eraseBlock(&region.back());
}

/// A mask region that always yields true masks nothing.
struct RemoveTrueMask : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Value allowed = getYieldedValue(op.getMask());
    if (!allowed || !matchPattern(allowed, m_One()))
      return rewriter.notifyMatchFailure(op, "mask is not constant true");
    rewriter.modifyOpInPlace(op, [&] { clearRegion(rewriter, op.getMask()); });
    return success();
  }
};

/// A score region that yields its score argument unchanged is the identity.
struct RemoveIdentityScore : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Value score = getYieldedValue(op.getScore());
    if (!score || score != op.getScore().front().getArgument(0))
      return rewriter.notifyMatchFailure(op, "score is not the identity");
    rewriter.modifyOpInPlace(op, [&] { clearRegion(rewriter, op.getScore()); });
    return success();
  }
};

/// A term of a mask's conjunction that a shorthand says.
struct Shorthand {
  enum Kind { Causal, WindowLeft, WindowRight } kind;
  int64_t bound = 0;
};

/// `term` as a shorthand: `k_idx <= q_idx` (causal), `q_idx - k_idx <= C`
/// (window_left C) or `k_idx - q_idx <= C` (window_right C), written either
/// way round, `< C` counting as `<= C - 1`. Indices are non-negative, so
/// unsigned comparisons of the indices themselves say the same; those of
/// differences do not.
std::optional<Shorthand> asShorthand(Value term, Value qIdx, Value kIdx) {
  using P = arith::CmpIPredicate;
  auto cmp = term.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return std::nullopt;
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  P pred = cmp.getPredicate();
  // a >= b is b <= a.
  static const std::pair<P, P> kSwapped[] = {
      {P::sge, P::sle}, {P::sgt, P::slt}, {P::uge, P::ule}, {P::ugt, P::ult}};
  for (auto [greater, less] : kSwapped)
    if (pred == greater) {
      std::swap(lhs, rhs);
      pred = less;
    }
  bool strict = pred == P::slt || pred == P::ult;
  if (pred != P::sle && pred != P::ule && !strict)
    return std::nullopt;
  if (!strict && lhs == kIdx && rhs == qIdx)
    return Shorthand{Shorthand::Causal};
  APInt constant;
  auto sub = lhs.getDefiningOp<arith::SubIOp>();
  if (pred == P::ule || pred == P::ult || !sub ||
      !matchPattern(rhs, m_ConstantInt(&constant)) ||
      constant.getSignificantBits() > 63)
    return std::nullopt;
  int64_t bound = constant.getSExtValue() - (strict ? 1 : 0);
  if (bound < 0 || bound > kMaxWindow)
    return std::nullopt;
  if (sub.getLhs() == qIdx && sub.getRhs() == kIdx)
    return Shorthand{Shorthand::WindowLeft, bound};
  if (sub.getLhs() == kIdx && sub.getRhs() == qIdx)
    return Shorthand{Shorthand::WindowRight, bound};
  return std::nullopt;
}

/// The terms of `value` as a conjunction (arith.andi trees of i1).
void collectConjuncts(Value value, SmallVectorImpl<Value> &terms) {
  if (auto both = value.getDefiningOp<arith::AndIOp>()) {
    collectConjuncts(both.getLhs(), terms);
    collectConjuncts(both.getRhs(), terms);
    return;
  }
  terms.push_back(value);
}

/// Terms of a mask region that a shorthand says (`k_idx <= q_idx`,
/// `q_idx - k_idx <= C`, `k_idx - q_idx <= C`) become `causal`,
/// `window_left` and `window_right`, which bound the key loop without
/// region analysis; the region keeps the other terms, or goes. Masks traced
/// from Python (attnc.flex) write sliding windows this way.
struct MaskTermsToShorthands : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Value allowed = getYieldedValue(op.getMask());
    if (!allowed)
      return rewriter.notifyMatchFailure(op, "no mask region");
    if (op.getBottomRight())
      return rewriter.notifyMatchFailure(
          op, "shorthands would align with the last key, the region does not");
    Block &block = op.getMask().front();
    Value qIdx = block.getArgument(2), kIdx = block.getArgument(3);
    SmallVector<Value> terms, rest;
    SmallVector<Shorthand> shorthands;
    collectConjuncts(allowed, terms);
    for (Value term : terms) {
      if (std::optional<Shorthand> s = asShorthand(term, qIdx, kIdx))
        shorthands.push_back(*s);
      else
        rest.push_back(term);
    }
    if (shorthands.empty())
      return rewriter.notifyMatchFailure(op, "no term is a shorthand");
    rewriter.modifyOpInPlace(op, [&] {
      for (const Shorthand &s : shorthands)
        applyShorthand(op, s);
      if (rest.empty()) {
        clearRegion(rewriter, op.getMask());
        return;
      }
      Operation *yield = block.getTerminator();
      rewriter.setInsertionPoint(yield);
      Value conjunction = rest.front();
      for (Value term : ArrayRef<Value>(rest).drop_front())
        conjunction =
            arith::AndIOp::create(rewriter, yield->getLoc(), conjunction, term);
      yield->setOperand(0, conjunction);
    });
    return success();
  }

  static void applyShorthand(AttentionOp op, const Shorthand &s) {
    auto tighter = [](std::optional<int64_t> old, int64_t bound) {
      return old ? std::min(*old, bound) : bound;
    };
    if (s.kind == Shorthand::Causal)
      op.setCausal(true);
    else if (s.kind == Shorthand::WindowLeft)
      op.setWindowLeft(tighter(op.getWindowLeft(), s.bound));
    else
      op.setWindowRight(tighter(op.getWindowRight(), s.bound));
  }
};

} // namespace

void AttentionOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<RemoveTrueMask, RemoveIdentityScore, MaskTermsToShorthands>(
      context);
}

//===----------------------------------------------------------------------===//
// LinearAttentionOp
//===----------------------------------------------------------------------===//

/// Upper bound on FAVOR+ random features: the feature matrix lives in the
/// kernel's shared memory.
static constexpr int64_t kMaxRandomFeatures = 4096;

LogicalResult LinearAttentionOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyQueryKeyValueOut(op, getQ(), getK(), getV(), getOut())))
    return failure();

  if (getFeatureMap() == FeatureMapKind::Favor) {
    std::optional<int64_t> numFeatures = getNumFeatures();
    if (!numFeatures || !getSeed())
      return emitOpError()
             << "the favor feature map needs num_features and seed";
    if (*numFeatures < 1 || *numFeatures > kMaxRandomFeatures)
      return emitOpError() << "expected num_features in [1, "
                           << kMaxRandomFeatures << "], got " << *numFeatures;
  } else if (getNumFeatures() || getSeed()) {
    return emitOpError() << "num_features and seed apply only to the favor "
                            "feature map, not "
                         << stringifyFeatureMapKind(getFeatureMap());
  }

  int64_t seqQ = getQ().getType().getDimSize(2);
  int64_t seqK = getK().getType().getDimSize(2);
  if (getCausal() && !dimsCompatible(seqQ, seqK))
    return emitOpError() << "causal linear attention needs equal q and k "
                            "sequence lengths, got "
                         << seqQ << " and " << seqK;
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

/// The shape and block size of a kernel of independent elements (cast,
/// elementwise): static dims in range, a positive block.
static LogicalResult verifyElementKernelShape(Operation *op,
                                              ArrayRef<int64_t> shape,
                                              std::optional<int64_t> block) {
  for (int64_t extent : shape)
    if (!ShapedType::isDynamic(extent) && (extent < 1 || extent > kMaxExtent))
      return op->emitOpError()
             << "dim " << extent
             << " is out of range; static dims must be in [1, " << kMaxExtent
             << "]";
  if (block && *block < 1)
    return op->emitOpError()
           << "expected block_size to be positive, got " << *block;
  return success();
}

LogicalResult CastOp::verify() {
  RankedTensorType inType = getIn().getType();
  RankedTensorType outType = getOut().getType();
  if (inType.getShape() != outType.getShape())
    return emitOpError() << "expected the result shape to match the input, got "
                         << inType << " and " << outType;
  if (!isa<FloatType>(inType.getElementType()))
    return emitOpError() << "expected a floating-point input, got "
                         << inType.getElementType();
  Type to = outType.getElementType();
  if (!to.isF32() && !to.isF16() && !to.isBF16() &&
      !isa<Float8E4M3FNType, Float8E5M2Type>(to))
    return emitOpError() << "expected the result element type to be f32, f16, "
                            "bf16, f8E4M3FN or f8E5M2, got "
                         << to;
  if (failed(verifyElementKernelShape(getOperation(), inType.getShape(),
                                      getBlockSize())))
    return failure();
  if (getInRowSwizzle() && inType.getRank() < 2)
    return emitOpError() << "expected in_row_swizzle on rows: an input of "
                            "rank 2 or more, got "
                         << inType;
  if (getInRowSwizzle() &&
      failed(verifyRowSwizzle(getOperation(), "in_row_swizzle",
                              getInRowSwizzle(), inType.getShape().back())))
    return failure();
  return verifyScale(getOperation(), getScaleAttr());
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  std::optional<float> scale = getFloat(getScaleAttr());
  bool unitScale = !scale || *scale == 1.0f;
  if (unitScale && getIn().getType() == getOut().getType() &&
      !getInRowSwizzle())
    return getIn();
  return {};
}

//===----------------------------------------------------------------------===//
// ElementwiseOp
//===----------------------------------------------------------------------===//

static bool isElementwiseElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

/// Whether input `value` of an elementwise op whose results are `shape`
/// is a scalar that every element reads (a rank-0 tensor beside results
/// that are not).
static bool isBroadcastInput(Value value, RankedTensorType shape) {
  return cast<RankedTensorType>(value.getType()).getRank() == 0 &&
         shape.getRank() != 0;
}

bool ElementwiseOp::isBroadcastInput(unsigned index) {
  return ::isBroadcastInput(
      getInputs()[index], cast<RankedTensorType>(getOuts().front().getType()));
}

/// Checks that `value` (`what`) is a tensor of f32, f16 or bf16 elements
/// of `shape`'s shape, or a broadcast scalar where `broadcasts`.
static LogicalResult verifyElementwiseValue(Operation *op, StringRef what,
                                            Value value, RankedTensorType shape,
                                            bool broadcasts = false) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!isElementwiseElementType(type.getElementType()))
    return op->emitOpError()
           << "expected " << what << " to have f32, f16 or bf16 elements, got "
           << type;
  if (broadcasts && isBroadcastInput(value, shape))
    return success();
  if (type.getRank() != shape.getRank() ||
      !llvm::all_of(
          llvm::zip(type.getShape(), shape.getShape()), [](auto dims) {
            return dimsCompatible(std::get<0>(dims), std::get<1>(dims));
          }))
    return op->emitOpError()
           << "expected " << what << " to have the first result's shape, got "
           << type << " and " << shape;
  return success();
}

LogicalResult ElementwiseOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "expected at least one input";
  if (getOuts().empty())
    return emitOpError() << "expected at least one result";
  auto shape = cast<RankedTensorType>(getOuts().front().getType());
  if (failed(verifyElementKernelShape(getOperation(), shape.getShape(),
                                      getBlockSize())))
    return failure();
  for (auto [i, out] : llvm::enumerate(getOuts()))
    if (failed(verifyElementwiseValue(*this, "result " + std::to_string(i), out,
                                      shape)))
      return failure();
  for (auto [i, input] : llvm::enumerate(getInputs()))
    if (failed(verifyElementwiseValue(*this, "input " + std::to_string(i),
                                      input, shape, /*broadcasts=*/true)))
      return failure();
  // The extents of the results come from an input of their shape.
  if (llvm::all_of(llvm::seq<unsigned>(0, getInputs().size()),
                   [&](unsigned i) { return isBroadcastInput(i); }))
    return emitOpError() << "expected an input of the results' shape "
                            "besides rank-0 inputs, which are broadcast";
  return success();
}

LogicalResult ElementwiseOp::verifyRegions() {
  Type f32 = Float32Type::get(getContext());
  SmallVector<Type> args(getInputs().size(), f32);
  SmallVector<Type> yields(getOuts().size(), f32);
  return verifyRegionBlock(*this, getBody(), "body", args, "one f32 per input",
                           yields);
}

/// Drops the inputs of `op` that its body does not read, and reads an input
/// passed twice through its first argument. One input stays: it gives the
/// shape. A kernel loads and checks every input it takes, so each one that
/// goes saves a pass over a tensor. Returns whether `op` changed.
static bool dropRedundantInputs(ElementwiseOp op, RewriterBase &rewriter) {
  Block &body = op.getBody().front();
  llvm::DenseMap<Value, unsigned> first;
  llvm::BitVector drop(op.getInputs().size());
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    auto [it, inserted] = first.try_emplace(input, i);
    if (!inserted) {
      rewriter.replaceAllUsesWith(body.getArgument(i),
                                  body.getArgument(it->second));
      drop.set(i);
    }
  }
  for (unsigned i = 0; i < body.getNumArguments(); ++i)
    if (body.getArgument(i).use_empty())
      drop.set(i);
  // One input of the results' shape stays: it gives their extents.
  if (llvm::all_of(llvm::seq<unsigned>(0, drop.size()), [&](unsigned i) {
        return drop.test(i) || op.isBroadcastInput(i);
      }))
    for (unsigned i = 0; i < drop.size(); ++i)
      if (!op.isBroadcastInput(i)) {
        drop.reset(i);
        break;
      }
  if (drop.none())
    return false;
  rewriter.modifyOpInPlace(op, [&] {
    for (unsigned i = drop.size(); i-- > 0;)
      if (drop.test(i)) {
        body.eraseArgument(i);
        op.getInputsMutable().erase(i);
      }
  });
  return true;
}

namespace {

struct DropRedundantElementwiseInputs : OpRewritePattern<ElementwiseOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ElementwiseOp op,
                                PatternRewriter &rewriter) const override {
    return success(dropRedundantInputs(op, rewriter));
  }
};

/// A result that yields an input unchanged, in the input's type, is that
/// input (the f32 form of an element rounds back to itself); a result that
/// yields what an earlier result of its type yields is that result. Their
/// readers read those instead, and the results nothing reads leave the op.
struct ForwardElementwiseResults : OpRewritePattern<ElementwiseOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ElementwiseOp op,
                                PatternRewriter &rewriter) const override {
    Operation *yield = op.getBody().front().getTerminator();
    bool forwarded = false;
    for (auto [i, out] : llvm::enumerate(op.getOuts())) {
      Value same = sameValue(op, yield, i);
      if (same && !out.use_empty()) {
        rewriter.replaceAllUsesWith(out, same);
        forwarded = true;
      }
    }
    auto unused = [](Value out) { return out.use_empty(); };
    // With no reader left the pure op is dead, which the driver erases.
    if (llvm::none_of(op.getOuts(), unused) ||
        llvm::all_of(op.getOuts(), unused))
      return success(forwarded);
    dropUnusedResults(op, yield, rewriter);
    return success();
  }

  /// The value result `index` equals without a kernel: an input or an
  /// earlier result; null if none.
  static Value sameValue(ElementwiseOp op, Operation *yield, unsigned index) {
    Value yielded = yield->getOperand(index);
    Type type = op.getOuts()[index].getType();
    if (auto arg = dyn_cast<BlockArgument>(yielded);
        arg && arg.getOwner()->getParentOp() == op &&
        op.getInputs()[arg.getArgNumber()].getType() == type)
      return op.getInputs()[arg.getArgNumber()];
    for (unsigned earlier = 0; earlier < index; ++earlier)
      if (yield->getOperand(earlier) == yielded &&
          op.getOuts()[earlier].getType() == type)
        return op.getOuts()[earlier];
    return {};
  }

  /// Replaces `op` by one with only the results something reads.
  static void dropUnusedResults(ElementwiseOp op, Operation *yield,
                                PatternRewriter &rewriter) {
    SmallVector<Value> kept, yields;
    for (auto [out, yielded] : llvm::zip(op.getOuts(), yield->getOperands()))
      if (!out.use_empty()) {
        kept.push_back(out);
        yields.push_back(yielded);
      }
    rewriter.modifyOpInPlace(yield, [&] { yield->setOperands(yields); });
    auto narrowed = ElementwiseOp::create(
        rewriter, op.getLoc(), ValueRange(kept).getTypes(), op.getInputs(),
        op.getBlockSizeAttr());
    rewriter.inlineRegionBefore(op.getBody(), narrowed.getBody(),
                                narrowed.getBody().end());
    for (auto [old, replacement] : llvm::zip(kept, narrowed.getOuts()))
      rewriter.replaceAllUsesWith(old, replacement);
    rewriter.eraseOp(op);
  }
};

} // namespace

void ElementwiseOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                MLIRContext *context) {
  results.add<DropRedundantElementwiseInputs, ForwardElementwiseResults>(
      context);
}

//===----------------------------------------------------------------------===//
// KernelOpInterface
//===----------------------------------------------------------------------===//

namespace {
/// Dim classes of attention: batch, query length, key length, then the
/// static head counts and head dims.
enum AttentionDim : int64_t {
  kBatch,
  kQuerySeq,
  kKeySeq,
  kQueryHeads,
  kKeyHeads,
  kHeadDim,
  kHeadDimV,
  kKeyRanges
};
} // namespace

/// The roles of `op`'s captures, appended to `roles` after its other
/// operands.
static void appendCaptureRoles(AttentionScoringOpInterface op,
                               SmallVector<StringRef> &roles) {
  roles.append(op.getCaptures().size(), "capture");
}

/// Captures' dims are tied to nothing.
static void appendCaptureDims(AttentionScoringOpInterface op,
                              SmallVector<SmallVector<int64_t>> &dims) {
  for (Value capture : op.getCaptures())
    dims.push_back(SmallVector<int64_t>(
        cast<RankedTensorType>(capture.getType()).getRank(), -1));
}

/// Roles and dim classes of attention and its split form: q, k, v, the
/// captures, then `results`.
static SmallVector<StringRef> attentionRoles(AttentionScoringOpInterface op,
                                             ArrayRef<StringRef> results) {
  SmallVector<StringRef> roles = {"q", "k", "v"};
  appendCaptureRoles(op, roles);
  llvm::append_range(roles, results);
  return roles;
}

static SmallVector<SmallVector<int64_t>>
attentionDims(AttentionScoringOpInterface op,
              ArrayRef<SmallVector<int64_t>> results) {
  SmallVector<SmallVector<int64_t>> dims = {
      {kBatch, kQueryHeads, kQuerySeq, kHeadDim},
      {kBatch, kKeyHeads, kKeySeq, kHeadDim},
      {kBatch, kKeyHeads, kKeySeq, kHeadDimV}};
  appendCaptureDims(op, dims);
  llvm::append_range(dims, results);
  return dims;
}

StringRef AttentionOp::getKernelKind() { return "attention"; }

SmallVector<StringRef> AttentionOp::getValueRoles() {
  return attentionRoles(*this, {"out", "lse"});
}

SmallVector<SmallVector<int64_t>> AttentionOp::getDimClasses() {
  return attentionDims(*this, {{kBatch, kQueryHeads, kQuerySeq, kHeadDimV},
                               {kBatch, kQueryHeads, kQuerySeq}});
}

StringRef AttentionOp::getDimClassName(int64_t dimClass) {
  return attentionDimName(dimClass);
}

StringRef mlir::attn::attentionDimName(int64_t dimClass) {
  switch (dimClass) {
  case kBatch:
    return "B";
  case kQuerySeq:
    return "Nq";
  case kKeySeq:
    return "Nk";
  default:
    return "";
  }
}

bool AttentionOp::hasKernelConfig() { return getTiles().has_value(); }

StringRef AttentionSplitOp::getKernelKind() { return "attention_split"; }

SmallVector<StringRef> AttentionSplitOp::getValueRoles() {
  return attentionRoles(*this, {"out_part", "lse_part"});
}

SmallVector<SmallVector<int64_t>> AttentionSplitOp::getDimClasses() {
  return attentionDims(*this,
                       {{kKeyRanges, kBatch, kQueryHeads, kQuerySeq, kHeadDimV},
                        {kKeyRanges, kBatch, kQueryHeads, kQuerySeq}});
}

StringRef AttentionSplitOp::getDimClassName(int64_t dimClass) {
  return attentionDimName(dimClass);
}

bool AttentionSplitOp::hasKernelConfig() { return getTiles().has_value(); }

StringRef AttentionCombineOp::getKernelKind() { return "attention_combine"; }

SmallVector<StringRef> AttentionCombineOp::getValueRoles() {
  return {"out_part", "lse_part", "out", "lse"};
}

SmallVector<SmallVector<int64_t>> AttentionCombineOp::getDimClasses() {
  return {{kKeyRanges, kBatch, kQueryHeads, kQuerySeq, kHeadDimV},
          {kKeyRanges, kBatch, kQueryHeads, kQuerySeq},
          {kBatch, kQueryHeads, kQuerySeq, kHeadDimV},
          {kBatch, kQueryHeads, kQuerySeq}};
}

StringRef AttentionCombineOp::getDimClassName(int64_t dimClass) {
  return attentionDimName(dimClass);
}

bool AttentionCombineOp::hasKernelConfig() {
  return getBlockSize().has_value();
}

StringRef AttentionGradDeltaOp::getKernelKind() {
  return "attention_grad_delta";
}

SmallVector<StringRef> AttentionGradDeltaOp::getValueRoles() {
  return {"out", "dout", "delta", "dq_accum"};
}

SmallVector<SmallVector<int64_t>> AttentionGradDeltaOp::getDimClasses() {
  return {{kBatch, kQueryHeads, kQuerySeq, kHeadDimV},
          {kBatch, kQueryHeads, kQuerySeq, kHeadDimV},
          {kBatch, kQueryHeads, kQuerySeq},
          {kBatch, kQueryHeads, kQuerySeq, kHeadDim}};
}

StringRef AttentionGradDeltaOp::getDimClassName(int64_t dimClass) {
  return attentionDimName(dimClass);
}

bool AttentionGradDeltaOp::hasKernelConfig() {
  return getBlockSize().has_value();
}

/// Dim classes of the operands the gradient kernels share: q, k, v, lse,
/// delta, dout.
static SmallVector<SmallVector<int64_t>> gradKernelOperandDims() {
  return {{kBatch, kQueryHeads, kQuerySeq, kHeadDim},
          {kBatch, kKeyHeads, kKeySeq, kHeadDim},
          {kBatch, kKeyHeads, kKeySeq, kHeadDimV},
          {kBatch, kQueryHeads, kQuerySeq},
          {kBatch, kQueryHeads, kQuerySeq},
          {kBatch, kQueryHeads, kQuerySeq, kHeadDimV}};
}

static SmallVector<StringRef> gradKernelOperandRoles() {
  return {"q", "k", "v", "lse", "delta", "dout"};
}

StringRef AttentionGradKVOp::getKernelKind() { return "attention_grad_kv"; }

SmallVector<StringRef> AttentionGradKVOp::getValueRoles() {
  SmallVector<StringRef> roles = gradKernelOperandRoles();
  if (getDqAccum())
    roles.push_back("dq_accum");
  appendCaptureRoles(*this, roles);
  roles.append({"dk", "dv"});
  if (getDqAccumOut())
    roles.push_back("dq_accum_out");
  return roles;
}

SmallVector<SmallVector<int64_t>> AttentionGradKVOp::getDimClasses() {
  SmallVector<SmallVector<int64_t>> dims = gradKernelOperandDims();
  SmallVector<int64_t> accumulator = dims[0];
  if (getDqAccum())
    dims.push_back(accumulator);
  appendCaptureDims(*this, dims);
  dims.push_back(dims[1]);
  dims.push_back(dims[2]);
  if (getDqAccumOut())
    dims.push_back(accumulator);
  return dims;
}

StringRef AttentionGradKVOp::getDimClassName(int64_t dimClass) {
  return attentionDimName(dimClass);
}

bool AttentionGradKVOp::hasKernelConfig() { return getTiles().has_value(); }

std::optional<unsigned> AttentionGradKVOp::getTiedOperand(unsigned result) {
  if (result == 2 && getDqAccum())
    return getODSOperandIndexAndLength(6).first; // dq_accum
  return std::nullopt;
}

StringRef AttentionGradQOp::getKernelKind() { return "attention_grad_q"; }

SmallVector<StringRef> AttentionGradQOp::getValueRoles() {
  SmallVector<StringRef> roles = gradKernelOperandRoles();
  appendCaptureRoles(*this, roles);
  roles.push_back("dq");
  return roles;
}

SmallVector<SmallVector<int64_t>> AttentionGradQOp::getDimClasses() {
  SmallVector<SmallVector<int64_t>> dims = gradKernelOperandDims();
  appendCaptureDims(*this, dims);
  dims.push_back(dims[0]);
  return dims;
}

StringRef AttentionGradQOp::getDimClassName(int64_t dimClass) {
  return attentionDimName(dimClass);
}

bool AttentionGradQOp::hasKernelConfig() { return getTiles().has_value(); }

StringRef CastOp::getKernelKind() { return "cast"; }

SmallVector<StringRef> CastOp::getValueRoles() { return {"in", "out"}; }

SmallVector<SmallVector<int64_t>> CastOp::getDimClasses() {
  SmallVector<int64_t> dims =
      llvm::to_vector(llvm::seq<int64_t>(0, getIn().getType().getRank()));
  return {dims, dims};
}

StringRef CastOp::getDimClassName(int64_t) { return ""; }

bool CastOp::hasKernelConfig() { return getBlockSize().has_value(); }

StringRef ElementwiseOp::getKernelKind() { return "elementwise"; }

/// Inputs have no role (fusion orders them freely), so a program names the
/// arguments they read by position; results after the first have none
/// either.
SmallVector<StringRef> ElementwiseOp::getValueRoles() {
  SmallVector<StringRef> roles(getNumOperands() + getNumResults(), "");
  roles[getNumOperands()] = "out";
  return roles;
}

SmallVector<SmallVector<int64_t>> ElementwiseOp::getDimClasses() {
  int64_t rank = cast<RankedTensorType>(getOuts().front().getType()).getRank();
  SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<SmallVector<int64_t>> classes(getNumOperands() + getNumResults(),
                                            dims);
  for (unsigned i = 0; i < getNumOperands(); ++i)
    if (isBroadcastInput(i))
      classes[i].clear();
  return classes;
}

StringRef ElementwiseOp::getDimClassName(int64_t) { return ""; }

bool ElementwiseOp::hasKernelConfig() { return getBlockSize().has_value(); }

/// Every thread reads its elements of all inputs before it writes the same
/// elements of the results, so a result may overwrite an input of its type.
SmallVector<unsigned> ElementwiseOp::getReusableOperands(unsigned result) {
  SmallVector<unsigned> operands;
  for (OpOperand &operand : getOperation()->getOpOperands())
    if (operand.get().getType() == getOperation()->getResult(result).getType())
      operands.push_back(operand.getOperandNumber());
  return operands;
}

//===----------------------------------------------------------------------===//
// F32ComputeOpInterface
//===----------------------------------------------------------------------===//

// The body's arguments and yields are f32: every input is widened to it,
// every result rounded from it.
bool ElementwiseOp::readsInF32(unsigned index) { return true; }
bool ElementwiseOp::roundsFromF32(unsigned index) { return true; }

//===----------------------------------------------------------------------===//
// VJPOpInterface
//===----------------------------------------------------------------------===//

/// out = convert(in * scale): the conversion is the identity for gradients
/// (mixed precision keeps the product rule), so d_in = d_out * scale, in the
/// type of `in`.
FailureOr<SmallVector<Value>> CastOp::buildVJP(OpBuilder &builder,
                                               ValueRange resultCotangents) {
  if (resultCotangents.size() != 1)
    return emitOpError() << "expected one result cotangent, got "
                         << resultCotangents.size();
  Value cotangent = resultCotangents.front();
  if (!cotangent)
    return SmallVector<Value>{Value()};
  // Only the backward's own programs read swizzled rows, after autodiff.
  if (getInRowSwizzle())
    return emitOpError() << "with in_row_swizzle has no gradient";
  if (cotangent.getType() != getOut().getType())
    return emitOpError() << "expected the result cotangent to be "
                         << getOut().getType() << ", got "
                         << cotangent.getType();
  Value operandCotangent =
      CastOp::create(builder, getLoc(), getIn().getType(), cotangent,
                     getScaleAttr(), /*block_size=*/IntegerAttr(),
                     /*in_row_swizzle=*/IntegerAttr());
  return SmallVector<Value>{operandCotangent};
}

/// sum_k cotangent_k * tangent_k over the results with both (null when
/// none); a tangent of 1 passes its cotangent on as it is.
static Value weightedSum(OpBuilder &b, Location loc, ArrayRef<Value> tangents,
                         ArrayRef<Value> cotangents) {
  Value sum;
  for (auto [tangent, cotangent] : llvm::zip(tangents, cotangents)) {
    if (!tangent || !cotangent)
      continue;
    Value term = matchPattern(tangent, m_OneFloat())
                     ? cotangent
                     : arith::MulFOp::create(b, loc, tangent, cotangent);
    sum = sum ? arith::AddFOp::create(b, loc, sum, term) : term;
  }
  return sum;
}

/// Erases the ops of `body` nothing reads.
static void eraseDeadOps(Block &body) {
  SmallVector<Operation *> ops = llvm::map_to_vector(
      body.without_terminator(), [](Operation &op) { return &op; });
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty())
      op->erase();
}

/// The gradients of all inputs are one elementwise op over the inputs and
/// the result cotangents: per input, the forward body's tangents with that
/// input seeded with 1, weighted by the cotangents. An input whose gradient
/// is a cotangent as it is (derivative 1, same type) gets it without a
/// kernel; one the results do not depend on gets none.
FailureOr<SmallVector<Value>>
ElementwiseOp::buildVJP(OpBuilder &builder, ValueRange resultCotangents) {
  if (resultCotangents.size() != getNumResults())
    return emitOpError() << "expected " << getNumResults()
                         << " result cotangents, got "
                         << resultCotangents.size();
  SmallVector<Value> operands(getInputs());
  for (auto [out, cotangent] : llvm::zip(getOuts(), resultCotangents)) {
    if (cotangent && cotangent.getType() != out.getType())
      return emitOpError() << "expected the result cotangent to be "
                           << out.getType() << ", got " << cotangent.getType();
    if (cotangent)
      operands.push_back(cotangent);
  }
  Location loc = getLoc();
  Block &source = getBody().front();
  // The body is built in an op with a result per input; the op that
  // returns takes over its region with the results that have a kernel.
  auto draft =
      ElementwiseOp::create(builder, loc, getInputs().getTypes(), operands,
                            /*block_size=*/IntegerAttr());
  Block *body = new Block();
  draft.getBody().push_back(body);
  for (Value operand : operands)
    body->addArgument(builder.getF32Type(), operand.getLoc());
  OpBuilder b = OpBuilder::atBlockEnd(body);
  // The cotangents' arguments, by result (null for a result without one).
  SmallVector<Value> cotangentArgs;
  unsigned next = getInputs().size();
  for (Value cotangent : resultCotangents)
    cotangentArgs.push_back(cotangent ? body->getArgument(next++) : Value());
  Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0));
  SmallVector<Value> cotangents(getInputs().size(), Value()), yields;
  SmallVector<unsigned> yieldedInputs;
  for (unsigned i = 0; i < getInputs().size(); ++i) {
    if (isBroadcastInput(i))
      continue;
    IRMapping mapping;
    mapping.map(source.getArguments(),
                body->getArguments().take_front(getInputs().size()));
    FailureOr<SmallVector<Value>> tangents = cloneWithTangents(
        b, source, mapping, {{source.getArgument(i), one}},
        source.getTerminator()->getOperands(), "input " + std::to_string(i));
    if (failed(tangents)) {
      draft.erase();
      return failure();
    }
    Value gradient = weightedSum(b, loc, *tangents, cotangentArgs);
    auto arg = dyn_cast_or_null<BlockArgument>(gradient);
    if (arg &&
        operands[arg.getArgNumber()].getType() == getInputs()[i].getType()) {
      cotangents[i] = operands[arg.getArgNumber()];
    } else if (gradient) {
      yields.push_back(gradient);
      yieldedInputs.push_back(i);
    }
  }
  if (yields.empty()) {
    draft.erase();
    return cotangents;
  }
  YieldOp::create(b, loc, yields);
  eraseDeadOps(*body);
  SmallVector<Type> types = llvm::map_to_vector(
      yieldedInputs, [&](unsigned i) { return getInputs()[i].getType(); });
  auto grad = ElementwiseOp::create(builder, loc, types, operands,
                                    /*block_size=*/IntegerAttr());
  grad.getBody().takeBody(draft.getBody());
  draft.erase();
  IRRewriter rewriter(builder);
  dropRedundantInputs(grad, rewriter);
  for (auto [i, result] : llvm::zip(yieldedInputs, grad.getOuts()))
    cotangents[i] = result;
  return cotangents;
}

Value mlir::attn::buildElementwiseSum(OpBuilder &b, Location loc, Value x,
                                      Value y) {
  auto sum =
      ElementwiseOp::create(b, loc, TypeRange{x.getType()}, ValueRange{x, y},
                            /*block_size=*/IntegerAttr());
  Block *body = new Block();
  sum.getBody().push_back(body);
  Type f32 = b.getF32Type();
  body->addArguments({f32, f32}, {loc, loc});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(body);
  YieldOp::create(
      b, loc,
      arith::AddFOp::create(b, loc, body->getArgument(0), body->getArgument(1))
          .getResult());
  return sum.getOuts().front();
}

bool AttentionOp::isDifferentiableResult(unsigned index) { return index == 0; }

/// Captures (document ids, bias tables) carry no gradient.
bool AttentionOp::isDifferentiableOperand(unsigned index) { return index < 3; }

bool ElementwiseOp::isDifferentiableOperand(unsigned index) {
  return !isBroadcastInput(index);
}

/// The gradient of attention is attn.attention_grad over the op's operands
/// and results, with its attributes and regions; `lse` carries no
/// cotangent (it is an auxiliary result that the backward pass saves).
FailureOr<SmallVector<Value>>
AttentionOp::buildVJP(OpBuilder &builder, ValueRange resultCotangents) {
  if (resultCotangents.size() != 2)
    return emitOpError() << "expected two result cotangents, got "
                         << resultCotangents.size();
  if (resultCotangents[1])
    return emitOpError() << "cannot differentiate through lse: the gradient "
                            "of attention takes a cotangent of out only";
  Value dout = resultCotangents[0];
  if (!dout)
    return SmallVector<Value>(getNumOperands(), Value());
  if (dout.getType() != getOut().getType())
    return emitOpError() << "expected the out cotangent to be "
                         << getOut().getType() << ", got " << dout.getType();
  auto grad = AttentionGradOp::create(
      builder, getLoc(),
      TypeRange{getQ().getType(), getK().getType(), getV().getType()}, getQ(),
      getK(), getV(), getOut(), getLse(), dout, getCaptures(),
      /*deterministic=*/false, getScaleAttr(), getCausal(), getBottomRight(),
      getWindowLeftAttr(), getWindowRightAttr(), /*tiles=*/TilesAttr());
  IRMapping mapping;
  getMask().cloneInto(&grad.getMask(), mapping);
  getScore().cloneInto(&grad.getScore(), mapping);
  // Captures carry no gradient.
  SmallVector<Value> cotangents(grad.getResults());
  cotangents.append(getCaptures().size(), Value());
  return cotangents;
}
