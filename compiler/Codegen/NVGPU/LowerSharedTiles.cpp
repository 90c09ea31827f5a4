//===- LowerSharedTiles.cpp - Physical layouts of shared-memory tiles -----===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Kernels address shared tiles by logical (row, col); the layout each tile
// declares is applied here, in one place: padded rows are a strided view of
// the bytes; the 128-byte swizzle stores a tile as panels of 64 columns
// whose rows have their 16-byte chunks permuted by the row mod 8, so every
// access's indices are rewritten.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attngpu/AttnGPUOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

namespace attnc {
#define GEN_PASS_DEF_ATTNGPULOWERSHAREDTILES
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// Columns of a 128-byte panel of 16-bit elements, and per 16-byte chunk.
constexpr int64_t kPanelColumns = 64;
constexpr int64_t kChunkColumns = 8;

/// The bytes of `tile` viewed as a row-major `shape` of its element type.
Value viewBytes(OpBuilder &b, attngpu::SharedTileOp tile,
                ArrayRef<int64_t> shape) {
  MemRefType type = tile.getTile().getType();
  auto view = MemRefType::get(shape, type.getElementType(), nullptr,
                              type.getMemorySpace());
  return memref::ViewOp::create(b, tile.getLoc(), view, tile.getBase(),
                                tile.getByteOffset(), ValueRange{});
}

/// A descriptor states the swizzle of the tile it reads: it must be the
/// tile's (`swizzleBytes`, 0 for none).
LogicalResult checkDescriptorSwizzles(attngpu::SharedTileOp tile,
                                      int64_t swizzleBytes) {
  for (Operation *user : tile.getTile().getUsers())
    if (auto descriptor = dyn_cast<attngpu::WgmmaDescriptorOp>(user))
      if (static_cast<int64_t>(descriptor.getSwizzleBytes()) != swizzleBytes)
        return descriptor.emitError()
               << "describes a tile with swizzle_bytes = "
               << descriptor.getSwizzleBytes() << ", but the tile has "
               << swizzleBytes;
  return success();
}

/// A padded (or dense) tile: a view of its rows, cut to its columns (and to
/// the tile's own type).
LogicalResult lowerPlainTile(attngpu::SharedTileOp tile) {
  if (failed(checkDescriptorSwizzles(tile, 0)))
    return failure();
  OpBuilder b(tile);
  MemRefType type = tile.getTile().getType();
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t stride = type.getLayout().isIdentity()
                       ? cols
                       : type.getStridesAndOffset().first[0];
  Value view = viewBytes(b, tile, {rows, stride});
  if (view.getType() != type)
    view = memref::SubViewOp::create(
        b, tile.getLoc(), type, view, ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(cols)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  tile.getTile().replaceAllUsesWith(view);
  tile.erase();
  return success();
}

/// The physical (row, col) of logical (row, col) in a swizzled tile of
/// `rows` rows: panel col / 64 holds rows [panel * rows, panel * rows +
/// rows); within a row, chunk (col % 64) / 8 is stored at chunk position
/// ((col % 64) / 8) xor (row % 8).
SmallVector<Value> swizzle(OpBuilder &b, Location loc, ValueRange logical,
                           int64_t rows) {
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value row = logical[0], col = logical[1];
  Value panel = arith::DivUIOp::create(b, loc, col, constant(kPanelColumns));
  Value inPanel = arith::RemUIOp::create(b, loc, col, constant(kPanelColumns));
  Value chunk = arith::DivUIOp::create(b, loc, inPanel, constant(kChunkColumns));
  Value swizzled = arith::XOrIOp::create(
      b, loc, chunk, arith::RemUIOp::create(b, loc, row, constant(8)));
  Value physicalCol = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, swizzled, constant(kChunkColumns)),
      arith::RemUIOp::create(b, loc, inPanel, constant(kChunkColumns)));
  Value physicalRow = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, panel, constant(rows)), row);
  return {physicalRow, physicalCol};
}

/// Rewrites one use of a swizzled tile onto `physical`.
LogicalResult rewriteSwizzledUse(OpOperand &use, Value physical,
                                 int64_t rows) {
  Operation *user = use.getOwner();
  OpBuilder b(user);
  Location loc = user->getLoc();
  return llvm::TypeSwitch<Operation *, LogicalResult>(user)
      .Case([&](memref::LoadOp load) {
        load.getMemrefMutable().assign(physical);
        load.getIndicesMutable().assign(swizzle(b, loc, load.getIndices(), rows));
        return success();
      })
      .Case([&](memref::StoreOp store) {
        if (use.get() == store.getValueToStore())
          return failure();
        store.getMemrefMutable().assign(physical);
        store.getIndicesMutable().assign(
            swizzle(b, loc, store.getIndices(), rows));
        return success();
      })
      .Case([&](vector::StoreOp store) {
        // Vectors of up to 8 elements from a multiple of their length stay
        // within one 16-byte chunk.
        int64_t length = store.getVectorType().getNumElements();
        if (use.get() == store.getValueToStore() || 8 % length != 0)
          return failure();
        store.getBaseMutable().assign(physical);
        store.getIndicesMutable().assign(
            swizzle(b, loc, store.getIndices(), rows));
        return success();
      })
      .Case([&](nvgpu::LdMatrixOp ldmatrix) {
        // Each lane addresses one 16-byte row chunk, which the swizzle keeps
        // whole.
        ldmatrix.getSrcMemrefMutable().assign(physical);
        ldmatrix.getIndicesMutable().assign(
            swizzle(b, loc, ldmatrix.getIndices(), rows));
        return success();
      })
      .Case([&](nvgpu::DeviceAsyncCopyOp copy) {
        if (use.get() != copy.getDst())
          return failure();
        copy.getDstMutable().assign(physical);
        copy.getDstIndicesMutable().assign(
            swizzle(b, loc, copy.getDstIndices(), rows));
        return success();
      })
      .Case<attngpu::WgmmaDescriptorOp, attngpu::TmaLoadOp,
            attngpu::TmaStoreOp>([&](auto) {
        // These read the tile's address; its layout is their swizzle mode.
        use.set(physical);
        return success();
      })
      .Default([](Operation *) { return failure(); });
}

LogicalResult lowerSwizzledTile(attngpu::SharedTileOp tile) {
  if (failed(checkDescriptorSwizzles(tile, *tile.getSwizzleBytes())))
    return failure();
  OpBuilder b(tile);
  MemRefType type = tile.getTile().getType();
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  Value physical =
      viewBytes(b, tile, {cols / kPanelColumns * rows, kPanelColumns});
  for (OpOperand &use : llvm::make_early_inc_range(tile.getTile().getUses()))
    if (failed(rewriteSwizzledUse(use, physical, rows)))
      return use.getOwner()->emitError()
             << "cannot address a 128-byte swizzled shared tile through "
             << use.getOwner()->getName();
  tile.erase();
  return success();
}

struct AttnGPULowerSharedTilesPass
    : attnc::impl::AttnGPULowerSharedTilesBase<AttnGPULowerSharedTilesPass> {
  void runOnOperation() override {
    SmallVector<attngpu::SharedTileOp> tiles;
    getOperation().walk([&](attngpu::SharedTileOp tile) {
      tiles.push_back(tile);
    });
    for (attngpu::SharedTileOp tile : tiles)
      if (failed(tile.getSwizzleBytes() ? lowerSwizzledTile(tile)
                                        : lowerPlainTile(tile)))
        return signalPassFailure();
  }
};

} // namespace
