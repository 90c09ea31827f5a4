//===- AttnGPUOps.cpp - attngpu kernel dialect ----------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The verifiers hold each op to what its lowering emits: PTX rejects a
// malformed wgmma only at ptxas time, far from the op that caused it.
//
//===----------------------------------------------------------------------===//

#include "dialects/attngpu/AttnGPUOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::attngpu;

#include "dialects/attngpu/AttnGPUOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/attngpu/AttnGPUOpsTypes.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/attngpu/AttnGPUOps.cpp.inc"

void AttnGPUDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/attngpu/AttnGPUOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/attngpu/AttnGPUOpsTypes.cpp.inc"
      >();
}

/// The only swizzle the kernels use: 128-byte rows, wgmma's mode 1.
static constexpr int64_t kSwizzleBytes = 128;

static bool inWorkgroupMemory(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Ops that read a memref's address take it from its aligned pointer: the
/// memory must be shared and the layout must start there (offset 0).
static LogicalResult verifyShared(Operation *op, StringRef what,
                                  MemRefType type) {
  if (!inWorkgroupMemory(type))
    return op->emitOpError() << "expected " << what
                             << " in workgroup memory, got " << type;
  int64_t offset;
  SmallVector<int64_t> strides;
  if (failed(type.getStridesAndOffset(strides, offset)) || offset != 0)
    return op->emitOpError() << "expected " << what
                             << " to start at its buffer (layout offset 0), "
                                "got "
                             << type;
  return success();
}

//===----------------------------------------------------------------------===//
// SharedTileOp
//===----------------------------------------------------------------------===//

/// Without a swizzle the layout must be row-major with a row stride of at
/// least the row length: a view of the bytes, possibly padded.
static LogicalResult verifyPlainTile(SharedTileOp op, MemRefType type) {
  if (type.getLayout().isIdentity())
    return success();
  int64_t offset;
  SmallVector<int64_t> strides;
  if (failed(type.getStridesAndOffset(strides, offset)) || offset != 0 ||
      strides[1] != 1 || ShapedType::isDynamic(strides[0]) ||
      strides[0] < type.getDimSize(1))
    return op.emitOpError()
           << "expected a row-major tile layout, possibly with padded rows "
              "(strided<[stride, 1]> with stride >= "
           << type.getDimSize(1) << "), got " << type.getLayout();
  return success();
}

/// A 128-byte swizzled tile: 16-bit elements in whole 64-column panels, each
/// starting on a 1024-byte boundary (the swizzle's period in addresses).
static LogicalResult verifySwizzledTile(SharedTileOp op, MemRefType type) {
  if (type.getElementTypeBitWidth() != 16 || !type.getLayout().isIdentity() ||
      type.getDimSize(1) % 64 != 0 || type.getDimSize(0) % 8 != 0)
    return op.emitOpError()
           << "a 128-byte swizzled tile holds 16-bit elements in whole "
              "64-column panels of a multiple of 8 rows with the identity "
              "layout, got "
           << type;
  APInt offset;
  if (matchPattern(op.getByteOffset(), m_ConstantInt(&offset)) &&
      offset.getZExtValue() % 1024 != 0)
    return op.emitOpError() << "a 128-byte swizzled tile must start on a "
                               "1024-byte boundary, got byte offset "
                            << offset.getZExtValue();
  return success();
}

LogicalResult SharedTileOp::verify() {
  MemRefType type = getTile().getType();
  if (failed(verifyShared(*this, "the base", getBase().getType())))
    return failure();
  if (!inWorkgroupMemory(type))
    return emitOpError() << "expected the tile in workgroup memory, got "
                         << type;
  if (!type.hasStaticShape())
    return emitOpError() << "expected a static tile shape, got " << type;
  std::optional<int64_t> swizzle = getSwizzleBytes();
  if (!swizzle)
    return verifyPlainTile(*this, type);
  if (*swizzle != kSwizzleBytes)
    return emitOpError() << "expected swizzle_bytes = 128, got " << *swizzle;
  return verifySwizzledTile(*this, type);
}

//===----------------------------------------------------------------------===//
// Warpgroup MMA
//===----------------------------------------------------------------------===//

LogicalResult WgmmaDescriptorOp::verify() {
  if (failed(verifyShared(*this, "the tile", getTile().getType())))
    return failure();
  int64_t swizzle = getSwizzleBytes();
  if (swizzle != 0 && swizzle != kSwizzleBytes)
    return emitOpError() << "expected swizzle_bytes 0 or 128, got " << swizzle;
  // Both offsets are 14-bit fields in 16-byte units.
  for (auto [name, bytes] : {std::pair<StringRef, int64_t>{
                                 "leading_bytes", getLeadingBytes()},
                             {"stride_bytes", getStrideBytes()}})
    if (bytes <= 0 || bytes % 16 != 0 || bytes >= (int64_t(1) << 18))
      return emitOpError() << "expected " << name
                           << " to be a positive multiple of 16 below 2^18, got "
                           << bytes;
  return success();
}

/// Byte offsets of steps: non-negative multiples of 16 (descriptors count
/// in 16-byte units).
static LogicalResult verifyStepOffsets(WgmmaMmaAsyncOp op, StringRef name,
                                       ArrayRef<int64_t> offsets) {
  for (int64_t offset : offsets)
    if (offset < 0 || offset % 16 != 0)
      return op.emitOpError() << "expected " << name
                              << " to be non-negative multiples of 16, got "
                              << offset;
  return success();
}

LogicalResult WgmmaMmaAsyncOp::verify() {
  int64_t steps = getNumSteps(), n = getN();
  if (steps == 0)
    return emitOpError() << "expected at least one k16 step";
  if (n < 8 || n > 256 || n % 8 != 0)
    return emitOpError() << "expected n to be a multiple of 8 in [8, 256], got "
                         << n;
  Type element = getElementType();
  if (!element.isF16() && !element.isBF16())
    return emitOpError() << "expected element_type f16 or bf16, got "
                         << element;
  auto resultType = cast<VectorType>(getResult().getType());
  if (resultType.getNumElements() != n / 2)
    return emitOpError() << "expected the result to hold n / 2 = " << n / 2
                         << " f32 per thread, got " << resultType;
  if (getAccumulator() && getAccumulator().getType() != resultType)
    return emitOpError() << "expected the accumulator to have the result type "
                         << resultType << ", got "
                         << getAccumulator().getType();
  bool fromDescriptor = static_cast<bool>(getADescriptor());
  if (fromDescriptor == !getAFragments().empty())
    return emitOpError() << "expected A from exactly one of a descriptor and "
                            "register fragments";
  if (fromDescriptor &&
      (!getAOffsets() || static_cast<int64_t>(getAOffsets()->size()) != steps))
    return emitOpError() << "expected one a_offsets entry per step (" << steps
                         << ")";
  if (!fromDescriptor && getAOffsets())
    return emitOpError() << "a_offsets apply only to A from a descriptor";
  if (!fromDescriptor && getTransposeA())
    return emitOpError() << "transpose_a applies only to A from a descriptor";
  if (!fromDescriptor && static_cast<int64_t>(getAFragments().size()) != steps)
    return emitOpError() << "expected one A fragment per step (" << steps
                         << "), got " << getAFragments().size();
  if (getAOffsets() && failed(verifyStepOffsets(*this, "a_offsets",
                                                *getAOffsets())))
    return failure();
  return verifyStepOffsets(*this, "b_offsets", getBOffsets());
}

/// The commit groups closed between `product` and `wait` in their block.
static int64_t commitsBetween(Operation *product, Operation *wait) {
  int64_t commits = 0;
  for (Operation *op = product->getNextNode(); op != wait;
       op = op->getNextNode())
    commits += isa<WgmmaCommitGroupOp>(op);
  return commits;
}

LogicalResult WgmmaWaitGroupOp::verify() {
  int64_t pending = getPendingAttr().getInt();
  if (pending < 0 || pending > 7)
    return emitOpError() << "expected pending in [0, 7], got " << pending;
  // A product's accumulator is valid once its group is complete: at least
  // `pending` groups must have been committed after its own.
  for (Value value : getValues()) {
    auto product = value.getDefiningOp<WgmmaMmaAsyncOp>();
    if (product && product->getBlock() == (*this)->getBlock() &&
        commitsBetween(product, *this) <= pending)
      return emitOpError() << "passes the result of a wgmma product whose "
                              "group may still be in flight (pending = "
                           << pending << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

void TensorMapOp::build(OpBuilder &b, OperationState &state, Value input,
                        ArrayRef<int64_t> box, int64_t swizzleBytes) {
  build(b, state, LLVM::LLVMPointerType::get(b.getContext()), b.getI1Type(),
        input, b.getDenseI64ArrayAttr(box), b.getI64IntegerAttr(swizzleBytes));
}

/// What cuTensorMapEncodeTiled takes: ranks 1 to 5, box extents up to 256,
/// an inner box extent of whole 16-byte units within the swizzle's span.
LogicalResult TensorMapOp::verify() {
  MemRefType type = getInput().getType();
  ArrayRef<int64_t> box = getBox();
  if (type.getRank() < 1 || type.getRank() > 5)
    return emitOpError() << "expected an input of rank 1 to 5, got " << type;
  if (inWorkgroupMemory(type))
    return emitOpError() << "expected an input in global memory, got " << type;
  Type element = type.getElementType();
  if (!element.isF16() && !element.isBF16() && !element.isF32())
    return emitOpError() << "expected f16, bf16 or f32 elements, got "
                         << element;
  if (static_cast<int64_t>(box.size()) != type.getRank())
    return emitOpError() << "expected " << type.getRank()
                         << " box extents (one per dim), got " << box.size();
  for (int64_t extent : box)
    if (extent < 1 || extent > 256)
      return emitOpError() << "expected box extents in [1, 256], got "
                           << extent;
  int64_t swizzle = getSwizzleBytes();
  if (swizzle != 0 && swizzle != kSwizzleBytes)
    return emitOpError() << "expected swizzle_bytes 0 or 128, got " << swizzle;
  int64_t innerBytes = box.front() * element.getIntOrFloatBitWidth() / 8;
  if (innerBytes % 16 != 0 || (swizzle != 0 && innerBytes > swizzle))
    return emitOpError() << "expected an inner box of whole 16-byte units"
                         << (swizzle ? " up to the swizzle's 128" : "")
                         << ", got " << innerBytes << " bytes";
  return success();
}

/// A TMA box has 1 to 5 coordinates, one per dimension of its tensor.
static LogicalResult verifyTmaBox(Operation *op, size_t rank) {
  if (rank < 1 || rank > 5)
    return op->emitOpError() << "expected 1 to 5 coordinates, got " << rank;
  return success();
}

LogicalResult TmaLoadOp::verify() {
  if (failed(verifyTmaBox(*this, getCoordinates().size())))
    return failure();
  return verifyShared(*this, "the destination tile", getTile().getType());
}

LogicalResult TmaStoreOp::verify() {
  if (failed(verifyTmaBox(*this, getCoordinates().size())))
    return failure();
  return verifyShared(*this, "the source tile", getTile().getType());
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

LogicalResult MBarrierOp::verify() {
  if (failed(verifyShared(*this, "the base", getBase().getType())))
    return failure();
  // The mbarrier instructions take an 8-byte aligned address.
  APInt offset;
  if (matchPattern(getByteOffset(), m_ConstantInt(&offset)) &&
      offset.getZExtValue() % 8 != 0)
    return emitOpError() << "expected an 8-byte aligned byte offset, got "
                         << offset.getZExtValue();
  return success();
}

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

/// Barrier 0 is the block-wide one; a count is of whole warps, at most a
/// block's 1024 threads.
static LogicalResult verifyNamedBarrier(Operation *op, Value id,
                                        int64_t threads) {
  if (threads <= 0 || threads % 32 != 0 || threads > 1024)
    return op->emitOpError()
           << "expected a thread count that is a multiple of 32 up to 1024, "
              "got "
           << threads;
  APInt constant;
  if (matchPattern(id, m_ConstantInt(&constant)) &&
      (constant.getSExtValue() < 1 || constant.getSExtValue() > 15))
    return op->emitOpError() << "expected a barrier id from 1 to 15, got "
                             << constant.getSExtValue();
  return success();
}

LogicalResult NamedBarrierSyncOp::verify() {
  return verifyNamedBarrier(*this, getId(), getThreads());
}

LogicalResult NamedBarrierArriveOp::verify() {
  return verifyNamedBarrier(*this, getId(), getThreads());
}

//===----------------------------------------------------------------------===//
// Global reductions
//===----------------------------------------------------------------------===//

/// Checks that `indices` address one element of `type`, a memref in global
/// memory (where the reductions exist).
static LogicalResult verifyGlobalElement(Operation *op, MemRefType type,
                                         ValueRange indices) {
  if (static_cast<int64_t>(indices.size()) != type.getRank())
    return op->emitOpError()
           << "expected " << type.getRank() << " indices for the memref, got "
           << indices.size();
  Attribute space = type.getMemorySpace();
  auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(space);
  if (space && !(gpuSpace && gpuSpace.getValue() == gpu::AddressSpace::Global))
    return op->emitOpError()
           << "expected a memref in global memory, got " << type;
  return success();
}

LogicalResult RedAddOp::verify() {
  return verifyGlobalElement(*this, getMemref().getType(), getIndices());
}

LogicalResult BulkReduceAddOp::verify() {
  if (failed(verifyShared(*this, "the source", getSource().getType())))
    return failure();
  APInt bytes;
  if (matchPattern(getBytes(), m_ConstantInt(&bytes)) &&
      bytes.getZExtValue() % 16 != 0)
    return emitOpError() << "expected a multiple of 16 bytes, got "
                         << bytes.getZExtValue();
  return verifyGlobalElement(*this, getMemref().getType(), getIndices());
}
