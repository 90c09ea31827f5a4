//===- SharedTiles.cpp - Shared-memory tiles of the tensor-core kernels ---===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/NVGPU/SharedTiles.h"

#include "dialects/attngpu/AttnGPUOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

using namespace mlir;

attnc::MmaSharedLayout
attnc::getMmaSharedLayout(attn::AttentionScoringOpInterface op,
                          int64_t sharedMemoryLimit) {
  attn::TilesAttr tiles = *op.getTiles();
  int64_t headDim = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  bool swizzled = tiles.getMma() == attn::MmaKind::Warpgroup;
  auto aligned = [](int64_t bytes) { return llvm::alignTo(bytes, 1024); };
  MmaSharedLayout layout;
  layout.q = {tiles.getBlockM(), headDim, swizzled};
  layout.k = {tiles.getBlockN(), headDim, swizzled};
  layout.v = {tiles.getBlockN(), headDimV, swizzled};
  layout.qOffset = 0;
  layout.kOffset = aligned(layout.q.bytes());
  layout.kStageBytes = aligned(layout.k.bytes());
  layout.vOffset = layout.kOffset + 2 * layout.kStageBytes;
  layout.vStageBytes = aligned(layout.v.bytes());
  auto place = [&](int64_t vStages) {
    layout.vStages = vStages;
    int64_t end = layout.vOffset + vStages * layout.vStageBytes;
    layout.fullOffset = end;
    layout.kFreeOffset = end + 2 * 8;
    layout.vFreeOffset = end + 4 * 8;
    layout.outStagedOffset = layout.vFreeOffset + vStages * 8;
    layout.bytes =
        swizzled ? layout.outStagedOffset + tiles.getBlockM() / 64 * 8 : end;
  };
  place(swizzled ? 4 : 2);
  if (swizzled && layout.bytes > sharedMemoryLimit)
    place(3);
  // A mask region's key-tile list takes what is left, up to 4 KB (more
  // would cost small kernels their occupancy); too small a list is none.
  constexpr int64_t kMostEntries = 1023, kFewestEntries = 64;
  int64_t listOffset = llvm::alignTo(layout.bytes, 16);
  int64_t entries =
      std::min(kMostEntries, (sharedMemoryLimit - listOffset) / 4 - 1);
  if (!op.getMask().empty() && entries >= kFewestEntries) {
    layout.listOffset = listOffset;
    layout.listCapacity = entries;
    layout.bytes = listOffset + 4 * (entries + 1);
  }
  return layout;
}

using attnc::GlobalSource;

/// The buffer of `input` from its offset on as a 1-D memref of unit stride.
static Value flatView(OpBuilder &b, Location loc, Value input,
                      memref::ExtractStridedMetadataOp metadata) {
  auto flatType = MemRefType::get(
      {ShapedType::kDynamic},
      cast<MemRefType>(input.getType()).getElementType(),
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {1}));
  return memref::ReinterpretCastOp::create(
      b, loc, flatType, metadata.getBaseBuffer(),
      OpFoldResult(metadata.getOffset()),
      ArrayRef<OpFoldResult>{
          b.getIndexAttr(std::numeric_limits<int32_t>::max())},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
}

GlobalSource attnc::TileStager::makeSource(Value input) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, input);
  GlobalSource source{input, {}, {}, {}};
  ValueRange strides = metadata.getStrides();
  auto equal = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y)
        .getResult();
  };
  auto multipleOf = [&](Value v, int64_t n) {
    return equal(arith::RemUIOp::create(b, loc, v, index(n)), index(0));
  };
  Value vectorized = equal(strides[3], index(1));
  for (int64_t i = 0; i < 3; ++i) {
    source.strides[i] = strides[i];
    vectorized =
        arith::AndIOp::create(b, loc, vectorized, multipleOf(strides[i], 8));
  }
  Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, input);
  Value start = add(pointer, mul(metadata.getOffset(), index(2)));
  source.vectorized =
      arith::AndIOp::create(b, loc, vectorized, multipleOf(start, 16));
  source.flat = flatView(b, loc, input, metadata);
  return source;
}

attnc::GlobalRowValues attnc::TileStager::makeRowValuesSource(Value input) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, input);
  GlobalRowValues source;
  source.flat = flatView(b, loc, input, metadata);
  for (int64_t i = 0; i < 3; ++i)
    source.strides[i] = metadata.getStrides()[i];
  return source;
}

void attnc::TileStager::stageRowValues(const GlobalRowValues &source,
                                       Value array, Value batch, Value head,
                                       Value first, Value count) {
  int64_t length = cast<MemRefType>(array.getType()).getDimSize(0);
  Value base = add(mul(batch, source.strides[0]), mul(head, source.strides[1]));
  loop(threadId, index(length), index(threads), [&](Value i) {
    // Entries past the end read entry `first` (always valid) and copy
    // nothing: cp.async zero-fills them.
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, count);
    Value row =
        add(first, arith::SelectOp::create(b, loc, inside, i, index(0)));
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), array,
        ValueRange{i}, source.flat,
        ValueRange{add(base, mul(row, source.strides[2]))}, b.getIndexAttr(1),
        arith::SelectOp::create(b, loc, inside, index(1), index(0)),
        UnitAttr());
  });
}

Value attnc::TileStager::sharedTile(Value shared, Value byteOffset,
                                    const MmaTileLayout &layout,
                                    Type element) {
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::AddressSpace::Workgroup);
  MemRefLayoutAttrInterface strided;
  if (!layout.swizzled)
    strided = StridedLayoutAttr::get(b.getContext(), 0,
                                     {layout.rowStride(), 1});
  int64_t columns = layout.swizzled ? layout.rowStride() : layout.width;
  auto type =
      MemRefType::get({layout.rows, columns}, element, strided, workgroup);
  IntegerAttr swizzle =
      layout.swizzled ? b.getI64IntegerAttr(128) : IntegerAttr();
  return attngpu::SharedTileOp::create(b, loc, type, shared, byteOffset,
                                       swizzle);
}

void attnc::TileStager::stage(const GlobalSource &source, Value tile,
                              Value batch, Value head, Value first,
                              Value count) {
  if (elementsOnly) {
    stageElements(source.input, tile, batch, head, first, count);
    return;
  }
  ifThenElse(
      source.vectorized,
      [&] { stageVectors(source, tile, batch, head, first, count); },
      [&] { stageElements(source.input, tile, batch, head, first, count); });
}

void attnc::TileStager::stageVectors(const GlobalSource &source, Value tile,
                                     Value batch, Value head, Value first,
                                     Value count) {
  const int64_t lanes = 8; // 16 bytes of 16-bit elements
  auto tileType = cast<MemRefType>(tile.getType());
  const int64_t rows = tileType.getDimSize(0);
  const int64_t width = cast<MemRefType>(source.input.getType()).getDimSize(3);
  // Threads are laid out over the tile's whole rows (a swizzled tile's
  // padding chunks too, so that passes cover whole rows without a division
  // per copy); those of padding chunks copy nothing.
  const int64_t chunksPerRow = tileType.getDimSize(1) / lanes;
  Value base = add(mul(batch, source.strides[0]), mul(head, source.strides[1]));
  // How a copy finds its source row: `whole`, every row of the tile is in
  // range; else rows past the end read the tile's first row (always
  // valid), selected before the address is computed or, `affine`, after
  // (affine in the row, so that LLVM steps it through a rolled loop).
  enum class RowCheck { Select, Affine, Whole };
  auto copyChunk = [&](Value row, Value col, RowCheck check) {
    Value inside = check == RowCheck::Whole
                       ? arith::ConstantOp::create(b, loc, b.getBoolAttr(true))
                       : arith::CmpIOp::create(
                             b, loc, arith::CmpIPredicate::ult, row, count)
                             .getResult();
    Value at;
    if (check == RowCheck::Select) {
      Value sourceRow =
          add(first, arith::SelectOp::create(b, loc, inside, row, index(0)));
      at = add(add(base, mul(sourceRow, source.strides[2])), col);
    } else {
      Value tileStart = add(add(base, mul(first, source.strides[2])), col);
      at = arith::SelectOp::create(b, loc, inside,
                                   add(tileStart, mul(row, source.strides[2])),
                                   tileStart);
    }
    // Rows past the end copy no bytes: cp.async zero-fills them.
    Value sourceElements =
        arith::SelectOp::create(b, loc, inside, index(lanes), index(0));
    auto copy = [&] {
      nvgpu::DeviceAsyncCopyOp::create(
          b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tile,
          ValueRange{row, col}, source.flat, ValueRange{at},
          b.getIndexAttr(lanes), sourceElements, b.getUnitAttr());
    };
    if (chunksPerRow * lanes == width)
      copy();
    else
      ifThen(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col,
                                   index(width)),
             copy);
  };
  if (threads % chunksPerRow != 0 || rows % (threads / chunksPerRow) != 0) {
    loop(threadId, index(rows * chunksPerRow), index(threads), [&](Value flat) {
      copyChunk(arith::DivUIOp::create(b, loc, flat, index(chunksPerRow)),
                mul(arith::RemUIOp::create(b, loc, flat, index(chunksPerRow)),
                    index(lanes)),
                rolled ? RowCheck::Affine : RowCheck::Select);
    });
    return;
  }
  // The block covers whole rows per pass: each thread keeps its column and
  // steps by a fixed number of rows, so the copies unroll and all but the
  // source row is the same for every tile (hoisted out of the key loop).
  const int64_t rowsPerPass = threads / chunksPerRow;
  Value col = mul(arith::RemUIOp::create(b, loc, threadId, index(chunksPerRow)),
                  index(lanes));
  Value firstRow =
      arith::DivUIOp::create(b, loc, threadId, index(chunksPerRow));
  // Unrolled, a whole tile (every tile of the key loop but its last, as a
  // rule) takes copies without row checks: per copy a select of the
  // address and of its size were most of the mma.sync decoding kernel's
  // instructions, which issue-bound it (H200, ncu: 0.3 instructions issued
  // per scheduler and cycle, 1.24 warps each).
  if (!rolled) {
    auto copies = [&](bool whole) {
      for (int64_t pass = 0; pass < rows / rowsPerPass; ++pass)
        copyChunk(add(firstRow, index(pass * rowsPerPass)), col,
                  whole ? RowCheck::Whole : RowCheck::Select);
    };
    ifThenElse(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, count,
                              index(rows)),
        [&] { copies(true); }, [&] { copies(false); });
    return;
  }
  // A loop whose trip count depends on the thread, which LLVM unrolls only
  // partly: fully unrolled, each pass's row offset would be hoisted out of
  // the key loop into registers of its own. Rows stepped from the pass
  // number keep the row's residue mod 8 (the swizzle's) visibly the first
  // row's, so the swizzle is computed once: with the affine address, about
  // 7 instructions per 16-byte copy instead of 20.
  Value passCount = arith::CeilDivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, index(rows), firstRow),
      index(rowsPerPass));
  auto passes = scf::ForOp::create(b, loc, index(0), passCount, index(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(passes.getBody()->getTerminator());
  copyChunk(add(firstRow, mul(passes.getInductionVar(), index(rowsPerPass))),
            col, RowCheck::Affine);
}

void attnc::TileStager::stageElements(Value input, Value tile, Value batch,
                                      Value head, Value first, Value count) {
  auto tileType = cast<MemRefType>(tile.getType());
  const int64_t width = cast<MemRefType>(input.getType()).getDimSize(3);
  Value zero = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(tileType.getElementType(), 0.0));
  loop(threadId, index(tileType.getDimSize(0) * width), index(threads),
       [&](Value flat) {
         Value row = arith::DivUIOp::create(b, loc, flat, index(width));
         Value col = arith::RemUIOp::create(b, loc, flat, index(width));
         Value inside = arith::CmpIOp::create(
             b, loc, arith::CmpIPredicate::ult, row, count);
         Value sourceRow = add(
             first, arith::SelectOp::create(b, loc, inside, row, index(0)));
         Value loaded = memref::LoadOp::create(
             b, loc, input, ValueRange{batch, head, sourceRow, col});
         memref::StoreOp::create(
             b, loc, arith::SelectOp::create(b, loc, inside, loaded, zero),
             tile, ValueRange{row, col});
       });
}
