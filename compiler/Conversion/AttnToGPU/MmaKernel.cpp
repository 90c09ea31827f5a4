//===- MmaKernel.cpp - Tensor-core attention kernels ----------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The flash-attention recurrence on tensor cores, FlashAttention-2 style: a
// warp owns 16 query rows. Per key tile:
//
//   S = Q Kᵀ        mma.sync: m16n8k16 per warp, A = Q and B = K from shared
//                   memory through ldmatrix. wgmma: m64nNk16 per warpgroup,
//                   Q and K read by the tensor cores from swizzled shared
//                   memory through descriptors. S in registers either way.
//   mask, score     per element of the fragments, whose (row, key) follows
//                   from the lane: row g or g + 8, keys 2t and 2t + 1
//   softmax         row max across the quad of lanes sharing a row (two
//                   xor shuffles); exp2 with log2(e) folded into the scale
//   O += P V        P converted to the input type in registers: an S
//                   fragment pair is exactly an A fragment, of mma.sync and
//                   of wgmma alike; V through ldmatrix.trans (mma.sync) or
//                   an MN-major descriptor (wgmma)
//
// m and l live in registers per thread (l as a per-thread partial sum,
// reduced across the quad once at the end), O as Dv / 8 fragments carried
// by the key loop. The accumulator layout of wgmma m64nN is that of N / 8
// mma.sync m16n8 fragments per warp, so everything but the two products is
// shared by both kinds.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/AttnToGPU/MmaKernel.h"

#include "compiler/Conversion/AttnToGPU/AttnToGPU.h"

#include "compiler/Conversion/AttnToTiled/KernelEmitter.h"
#include "compiler/Conversion/AttnToTiled/TileClassifier.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;

attnc::MmaSharedLayout
attnc::getMmaSharedLayout(attn::AttentionOp op, const MmaConfig &config) {
  int64_t headDim = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  bool swizzled = config.kind == MmaKind::Warpgroup;
  auto tile = [&](int64_t rows, int64_t width) {
    return MmaTileLayout{rows, width, width + 8, swizzled};
  };
  auto aligned = [](int64_t bytes) { return llvm::alignTo(bytes, 1024); };
  MmaSharedLayout layout;
  layout.q = tile(config.blockM, headDim);
  layout.k = tile(config.blockN, headDim);
  layout.v = tile(config.blockN, headDimV);
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
    layout.bytes = swizzled ? layout.vFreeOffset + vStages * 8 : end;
  };
  place(swizzled ? 4 : 2);
  if (swizzled && layout.bytes > kSm90SharedMemoryBytes)
    place(3);
  return layout;
}

namespace {

class MmaKernelBuilder : attnc::KernelEmitter {
public:
  MmaKernelBuilder(OpBuilder &b, Location loc, attn::AttentionOp op,
                   const attnc::MmaConfig &config)
      : KernelEmitter(b, loc), op(op), config(config), f32(b.getF32Type()),
        element(op.getQ().getType().getElementType()) {
    headDim = op.getQ().getType().getDimSize(3);
    headDimV = op.getV().getType().getDimSize(3);
    threads = config.threads();
    pairType = VectorType::get({2}, element);
    // mma.sync takes f16 pairs as vector<2xf16> and bf16 pairs as i32; the
    // wgmma asm takes both as i32.
    registerType = element.isBF16() || warpgroup() ? Type(b.getI32Type())
                                                   : Type(pairType);
  }

  void emit(const attnc::KernelOperands &x, Value shared, Value threadId,
            Value qBlock, Value head, Value batch);

private:
  Value addF(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value mulF(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value maxF(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }

  /// 2^x, flushing subnormal results to zero (ex2.approx.ftz: one MUFU
  /// instruction; without ftz ptxas adds range fix-ups). Probabilities
  /// below 2^-126 of the row max do not change an f32 sum.
  Value exp2(Value x) {
    return LLVM::InlineAsmOp::create(
               b, loc, f32, ValueRange{x}, "ex2.approx.ftz.f32 $0, $1;",
               "=f,f", /*has_side_effects=*/false, /*is_align_stack=*/false,
               LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
               ArrayAttr())
        .getResult(0);
  }

  /// The sum (or max) of `v` over the four lanes of a quad (same row).
  Value quadReduce(Value v, bool max) {
    for (int32_t offset : {1, 2}) {
      Value other =
          gpu::ShuffleOp::create(b, loc, v, offset, 32, gpu::ShuffleMode::XOR)
              .getShuffleResult();
      v = max ? maxF(v, other) : addF(v, other);
    }
    return v;
  }

  /// A [B, H, N, D] input and, when its layout allows 16-byte loads (unit
  /// inner stride, outer strides and base aligned to 8 elements), a flat
  /// view of its buffer for them. Decided once per kernel: the same strides
  /// hold for every tile.
  struct Source {
    Value input;
    Value flat; // 1-D view of the buffer from the input's offset
    Value strides[3];
    Value vectorized; // i1
  };

  Source makeSource(Value input) {
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, input);
    Source source{input, {}, {}, {}};
    ValueRange strides = metadata.getStrides();
    Value vectorized = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             strides[3], index(1));
    auto multipleOf8 = [&](Value v) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                   arith::RemUIOp::create(b, loc, v, index(8)),
                                   index(0));
    };
    for (int64_t i = 0; i < 3; ++i) {
      source.strides[i] = strides[i];
      vectorized =
          arith::AndIOp::create(b, loc, vectorized, multipleOf8(strides[i]));
    }
    Value pointer =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, input);
    Value start = add(pointer, mul(metadata.getOffset(), index(2)));
    source.vectorized = arith::AndIOp::create(
        b, loc, vectorized,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::RemUIOp::create(b, loc, start, index(16)),
                              index(0)));
    auto flatType = MemRefType::get(
        {ShapedType::kDynamic}, element,
        StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {1}));
    source.flat = memref::ReinterpretCastOp::create(
        b, loc, flatType, metadata.getBaseBuffer(),
        OpFoldResult(metadata.getOffset()),
        ArrayRef<OpFoldResult>{
            b.getIndexAttr(std::numeric_limits<int32_t>::max())},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    return source;
  }

  bool warpgroup() const { return config.kind == attnc::MmaKind::Warpgroup; }

  /// A tile in shared memory: its view (rows x padded row for mma.sync,
  /// panels x rows x 64 flattened to (panels * rows) x 64 when swizzled)
  /// and its byte offset from the start of shared memory.
  struct SharedTile {
    Value view;
    attnc::MmaTileLayout layout;
    Value byteOffset;
  };

  SharedTile sharedTile(Value shared, Value byteOffset,
                        const attnc::MmaTileLayout &layout) {
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    SmallVector<int64_t, 2> shape = {layout.rows, layout.rowStride};
    if (layout.swizzled)
      shape = {layout.width / 64 * layout.rows, 64};
    auto type = MemRefType::get(shape, element, nullptr, workgroup);
    Value view =
        memref::ViewOp::create(b, loc, type, shared, byteOffset, ValueRange{});
    return {view, layout, byteOffset};
  }

  /// The view indices of element (row, col) of a tile. Swizzled: panel
  /// col / 64, and within the row the 16-byte chunk (col % 64) / 8 is
  /// stored at chunk position ((col % 64) / 8) xor (row % 8).
  SmallVector<Value, 2> position(const SharedTile &tile, Value row,
                                 Value col) {
    if (!tile.layout.swizzled)
      return {row, col};
    Value panel = arith::DivUIOp::create(b, loc, col, index(64));
    Value inPanel = arith::RemUIOp::create(b, loc, col, index(64));
    Value chunk = arith::DivUIOp::create(b, loc, inPanel, index(8));
    Value swizzled = arith::XOrIOp::create(
        b, loc, chunk, arith::RemUIOp::create(b, loc, row, index(8)));
    Value swizzledCol =
        add(mul(swizzled, index(8)),
            arith::RemUIOp::create(b, loc, inPanel, index(8)));
    return {add(mul(panel, index(tile.layout.rows)), row), swizzledCol};
  }

  /// Copies rows [0, count) of the input from sequence position `first`
  /// into the shared tile, zero-filling its other rows: the tensor cores
  /// compute on whole tiles. Asynchronous 16-byte copies (cp.async, which
  /// the caller commits and waits for) when the source allows them, else
  /// element loads and stores.
  void stageTile(const Source &source, const SharedTile &tile, Value batch,
                 Value head, Value first, Value count) {
    ifThenElse(
        source.vectorized,
        [&] { stageVectors(source, tile, batch, head, first, count); },
        [&] { stageElements(source.input, tile, batch, head, first, count); });
  }

  void stageVectors(const Source &source, const SharedTile &tile, Value batch,
                    Value head, Value first, Value count) {
    const int64_t lanes = 8; // 16 bytes of 16-bit elements
    const int64_t rows = tile.layout.rows, width = tile.layout.width;
    const int64_t chunksPerRow = width / lanes;
    Value base =
        add(mul(batch, source.strides[0]), mul(head, source.strides[1]));
    auto copyChunk = [&](Value row, Value col) {
      Value inside =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, count);
      // Rows past the end read row 0 (always valid).
      Value sourceRow =
          add(first, arith::SelectOp::create(b, loc, inside, row, index(0)));
      Value at = add(add(base, mul(sourceRow, source.strides[2])), col);
      // Rows past the end copy no bytes: cp.async zero-fills them.
      Value sourceElements =
          arith::SelectOp::create(b, loc, inside, index(lanes), index(0));
      nvgpu::DeviceAsyncCopyOp::create(
          b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tile.view,
          position(tile, row, col), source.flat, ValueRange{at},
          b.getIndexAttr(lanes), sourceElements, b.getUnitAttr());
    };
    if (threads % chunksPerRow != 0 || rows % (threads / chunksPerRow) != 0) {
      loop(threadId, index(rows * chunksPerRow), index(threads),
           [&](Value flat) {
             copyChunk(
                 arith::DivUIOp::create(b, loc, flat, index(chunksPerRow)),
                 mul(arith::RemUIOp::create(b, loc, flat, index(chunksPerRow)),
                     index(lanes)));
           });
      return;
    }
    // The block covers whole rows per pass: each thread keeps its column
    // and steps by a fixed number of rows, so the copies unroll and all but
    // the source row is the same for every tile (hoisted out of the key
    // loop).
    const int64_t rowsPerPass = threads / chunksPerRow;
    Value col = mul(arith::RemUIOp::create(b, loc, threadId,
                                           index(chunksPerRow)),
                    index(lanes));
    Value firstRow = arith::DivUIOp::create(b, loc, threadId,
                                            index(chunksPerRow));
    for (int64_t pass = 0; pass < rows / rowsPerPass; ++pass)
      copyChunk(add(firstRow, index(pass * rowsPerPass)), col);
  }

  void stageElements(Value input, const SharedTile &tile, Value batch,
                     Value head, Value first, Value count) {
    const int64_t width = tile.layout.width;
    Value zero =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0));
    loop(threadId, index(tile.layout.rows * width), index(threads),
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
               tile.view, position(tile, row, col));
         });
  }

  /// The wgmma descriptor of a swizzled tile at byte `offset` (i64) from
  /// the start of shared memory, for the 128-byte swizzle: start address,
  /// leading and stride byte offsets (all in 16-byte units) and the swizzle
  /// mode in bits 62-63. K-major operands (Q, K: 64 elements of the reduced
  /// dimension per 128-byte row) step 1024 bytes per 8 rows and ignore the
  /// leading offset; MN-major V steps 1024 bytes per 8 keys and a panel per
  /// 64 output columns.
  Value descriptor(Value offset, int64_t leadingBytes, int64_t strideBytes) {
    auto constant = [&](int64_t v) {
      return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v))
          .getResult();
    };
    Value address = arith::AddIOp::create(b, loc, sharedAddress, offset);
    Value start = arith::ShRUIOp::create(
        b, loc, arith::AndIOp::create(b, loc, address, constant(0x3FFFF)),
        constant(4));
    uint64_t fixed = (static_cast<uint64_t>(leadingBytes >> 4) << 16) |
                     (static_cast<uint64_t>(strideBytes >> 4) << 32) |
                     (1ull << 62);
    return arith::OrIOp::create(b, loc, start,
                                constant(static_cast<int64_t>(fixed)));
  }

  /// One group of wgmma m64 n`n` k16 steps with f32 accumulators (n / 2 per
  /// thread). Step i reads B at `bDescriptor` advanced by bOffsets[i] bytes
  /// (MN-major when `transposeB`), and A either likewise from `aDescriptor`
  /// or, without one, from the four i32 registers aRegisters[i]. Without
  /// `accumulators` the first step overwrites D.
  struct WgmmaGroup {
    int64_t n;
    ValueRange accumulators;
    Value aDescriptor;
    SmallVector<int64_t> aOffsets;
    ArrayRef<SmallVector<Value, 4>> aRegisters;
    Value bDescriptor;
    SmallVector<int64_t> bOffsets;
    bool transposeB;
  };

  /// Issues `groups` in one asm statement (a fence, then each group and a
  /// commit) and waits until at most `inFlight` groups are outstanding. The
  /// accumulators of the last `inFlight` groups come back still owned by the
  /// tensor cores: they go to wgmmaWait before any other use. One statement
  /// per issue keeps LLVM from touching accumulators between the steps.
  SmallVector<SmallVector<Value>> wgmmaIssue(ArrayRef<WgmmaGroup> groups,
                                             int64_t inFlight) {
    const char *type = element.isBF16() ? "bf16" : "f16";
    std::string constraints, text;
    SmallVector<Value> operands;
    auto constrain = [&](const std::string &c) {
      constraints += (constraints.empty() ? "" : ",") + c;
    };
    SmallVector<int64_t> firstOutput;
    int64_t outputs = 0;
    for (const WgmmaGroup &group : groups) {
      firstOutput.push_back(outputs);
      outputs += group.n / 2;
    }
    for (int64_t i = 0; i < outputs; ++i)
      constrain("=f");
    int64_t next = outputs;
    for (auto [group, first] : llvm::zip(groups, firstOutput))
      for (auto [i, accumulator] : llvm::enumerate(group.accumulators)) {
        constrain(std::to_string(first + i));
        operands.push_back(accumulator);
        ++next;
      }
    auto operand = [&](Value value, const char *constraint) {
      constrain(constraint);
      operands.push_back(value);
      return "$" + std::to_string(next++);
    };
    std::string one = operand(
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1)), "r");
    int64_t descriptors = 0;
    std::string prelude, steps;
    for (auto [group, first] : llvm::zip(groups, firstOutput)) {
      std::string d = "{";
      for (int64_t i = 0; i < group.n / 2; ++i)
        d += (i ? ", $" : "$") + std::to_string(first + i);
      d += "}";
      std::string aBase =
          group.aDescriptor ? operand(group.aDescriptor, "l") : "";
      std::string bBase = operand(group.bDescriptor, "l");
      // Every descriptor is computed before the fence into a register of
      // its own: an instruction defining a wgmma input between the fence
      // and the commit serializes the whole group (ptxas C7513).
      auto advanced = [&](const std::string &base, int64_t bytes) {
        std::string name = "desc" + std::to_string(descriptors++);
        prelude += "add.s64 " + name + ", " + base + ", " +
                   std::to_string(bytes >> 4) + ";\n";
        return name;
      };
      for (int64_t i = 0; i < static_cast<int64_t>(group.bOffsets.size());
           ++i) {
        std::string aText;
        if (group.aDescriptor) {
          aText = advanced(aBase, group.aOffsets[i]);
        } else {
          aText = "{";
          for (auto [r, reg] : llvm::enumerate(group.aRegisters[i]))
            aText += (r ? ", " : "") + operand(reg, "r");
          aText += "}";
        }
        std::string bText = advanced(bBase, group.bOffsets[i]);
        bool accumulate = i > 0 || !group.accumulators.empty();
        steps += "wgmma.mma_async.sync.aligned.m64n" + std::to_string(group.n) +
                 "k16.f32." + type + "." + type + " " + d + ", " + aText +
                 ", " + bText + ", " +
                 (accumulate ? "accumulate" : "overwrite") + ", 1, 1, " +
                 (group.aDescriptor ? "0, " : "") +
                 (group.transposeB ? "1" : "0") + ";\n";
      }
      steps += "wgmma.commit_group.sync.aligned;\n";
    }
    text = "{\n.reg .pred accumulate, overwrite;\n";
    if (descriptors)
      text += ".reg .b64 desc<" + std::to_string(descriptors) + ">;\n";
    text += "setp.ne.b32 accumulate, " + one + ", 0;\n" +
            "setp.eq.b32 overwrite, " + one + ", 0;\n" + prelude +
            "wgmma.fence.sync.aligned;\n" + steps +
            "wgmma.wait_group.sync.aligned " + std::to_string(inFlight) +
            ";\n}";
    SmallVector<Value> values = inlineAsm(text, constraints, operands, outputs);
    SmallVector<SmallVector<Value>> results;
    for (auto [group, first] : llvm::zip(groups, firstOutput))
      results.push_back(
          SmallVector<Value>(ArrayRef<Value>(values).slice(first, group.n / 2)));
    return results;
  }

  /// Waits for every outstanding wgmma group; returns `accumulators`, now
  /// valid, followed by `after` (f32 values passed through): whatever is
  /// computed from those happens after the wait. That keeps the next P,
  /// which the loop carries in the registers of the pending P, from being
  /// written while the pending product still reads them (ptxas would
  /// serialize every wgmma, C7513).
  SmallVector<Value> wgmmaWait(ValueRange accumulators, ValueRange after) {
    SmallVector<Value> operands(accumulators);
    llvm::append_range(operands, after);
    std::string constraints;
    for (size_t i = 0; i < operands.size(); ++i)
      constraints += (i ? ",=f" : "=f");
    for (size_t i = 0; i < operands.size(); ++i)
      constraints += "," + std::to_string(i);
    return inlineAsm("wgmma.wait_group.sync.aligned 0;", constraints,
                     operands, operands.size());
  }

  /// A side-effecting asm statement with `count` f32 results.
  SmallVector<Value> inlineAsm(StringRef text, StringRef constraints,
                               ValueRange operands, int64_t count) {
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(count, f32));
    Value result = LLVM::InlineAsmOp::create(
                       b, loc, resultType, operands, text, constraints,
                       /*has_side_effects=*/true, /*is_align_stack=*/false,
                       LLVM::tailcallkind::TailCallKind::None,
                       LLVM::AsmDialectAttr(), ArrayAttr())
                       .getResult(0);
    SmallVector<Value> values;
    for (int64_t i = 0; i < count; ++i)
      values.push_back(LLVM::ExtractValueOp::create(b, loc, result, i));
    return values;
  }

  /// A register of two elements as mma.sync takes it.
  Value asRegister(Value pair) {
    return registerType == pair.getType()
               ? pair
               : LLVM::BitcastOp::create(b, loc, registerType, pair)
                     .getResult();
  }

  /// ldmatrix of `tiles` 8 x 8 matrices: one register (two elements) per
  /// matrix for this lane, in the mma fragment order.
  SmallVector<Value> ldmatrix(Value tile, Value row, Value col, int tiles,
                              bool transpose) {
    auto type = VectorType::get({tiles, 2}, element);
    Value matrices = nvgpu::LdMatrixOp::create(
        b, loc, type, tile, ValueRange{row, col}, transpose, tiles);
    SmallVector<Value> registers;
    for (int64_t i = 0; i < tiles; ++i)
      registers.push_back(asRegister(
          vector::ExtractOp::create(b, loc, matrices, ArrayRef<int64_t>{i})));
    return registers;
  }

  /// Packs two f32 values into a register of an mma A fragment.
  Value pack(Value low, Value high) {
    Value pair = vector::FromElementsOp::create(
        b, loc, pairType,
        ValueRange{arith::TruncFOp::create(b, loc, element, low),
                   arith::TruncFOp::create(b, loc, element, high)});
    return asRegister(pair);
  }

  /// d = a b + c for one m16n8k16 tile: a 4, b 2 registers, c and d 4 f32
  /// (row g cols 2t, 2t + 1; row g + 8 cols 2t, 2t + 1).
  SmallVector<Value> mma(ValueRange a, ValueRange bFrag, ValueRange c) {
    NVVM::MMATypes type =
        element.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(4, f32));
    Value d = NVVM::MmaOp::create(
        b, loc, resultType, a, bFrag, c, ArrayRef<int64_t>{16, 8, 16},
        std::nullopt, std::nullopt, std::array<NVVM::MMATypes, 2>{type, type},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> result;
    for (int64_t i = 0; i < 4; ++i)
      result.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
    return result;
  }

  /// S of the warp's 16 rows and the tile's keys with mma.sync: blockN / 8
  /// fragments of 4 f32. Q and K fragments through ldmatrix.x4 (lane l
  /// addresses row l % 8 of matrix l / 8; see emit()).
  SmallVector<SmallVector<Value>> syncScores(Value qs, Value ks, Value aRow,
                                             Value aCol, Value lane8,
                                             Value half8) {
    const int64_t keyFragments = config.blockN / 8;
    SmallVector<SmallVector<Value>> s(keyFragments,
                                      SmallVector<Value>(4, f32Const(0.0)));
    for (int64_t kk = 0; kk < headDim / 16; ++kk) {
      SmallVector<Value> a =
          ldmatrix(qs, aRow, add(index(kk * 16), aCol), 4, false);
      // One ldmatrix.x4 loads the B fragments of two 8-key fragments.
      for (int64_t j = 0; j < keyFragments; j += 2) {
        SmallVector<Value> bFrags =
            ldmatrix(ks, add(index(j * 8), add(aCol, lane8)),
                     add(index(kk * 16), half8), 4, false);
        s[j] = mma(a, ArrayRef<Value>(bFrags).take_front(2), s[j]);
        s[j + 1] = mma(a, ArrayRef<Value>(bFrags).drop_front(2), s[j + 1]);
      }
    }
    return s;
  }

  /// O += P V with mma.sync; `pFragments` are the A fragments of P, one per
  /// 16 keys. One ldmatrix.x4.trans loads the B fragments of two 8-column
  /// output fragments.
  void syncAccumulate(ArrayRef<SmallVector<Value, 4>> pFragments, Value vs,
                      Value lane8, Value half8, Value aCol,
                      MutableArrayRef<Value> o) {
    for (auto [kk, a] : llvm::enumerate(pFragments)) {
      Value keyRow = add(index(kk * 16), add(lane8, half8));
      for (int64_t n = 0; n < headDimV / 8; n += 2) {
        SmallVector<Value> bFrags = ldmatrix(vs, keyRow, add(index(n * 8), aCol),
                                             4, /*transpose=*/true);
        for (int64_t half = 0; half < 2; ++half) {
          MutableArrayRef<Value> c = o.slice((n + half) * 4, 4);
          SmallVector<Value> d =
              mma(a, ArrayRef<Value>(bFrags).slice(2 * half, 2), c);
          llvm::copy(d, c.begin());
        }
      }
    }
  }

  /// The mbarrier at byte `offset` + 8 `slot` of shared memory.
  Value barrier(int64_t offset, Value slot) {
    Value address = arith::AddIOp::create(
        b, loc, sharedAddress,
        toI64(add(index(offset), mul(slot, index(8)))));
    return LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), address);
  }

  /// Waits until the barrier completes its phase for use `use` (0, 1, ...).
  void waitBarrier(Value bar, Value use) {
    Value parity = arith::IndexCastUIOp::create(
        b, loc, b.getI32Type(), arith::RemUIOp::create(b, loc, use, index(2)));
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, bar, parity,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1000000)));
  }

  void arriveBarrier(Value bar) {
    NVVM::MBarrierArriveOp::create(b, loc, Type(), bar, Value());
  }

  Value toI64(Value v) {
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), v);
  }

  /// S = Q Kᵀ for the warpgroup's 64 rows: wgmma m64 n`blockN` k16, A = Q
  /// and B = K both K-major in shared memory; 16 elements of the head dim
  /// (32 bytes) per step, a new panel every 64.
  WgmmaGroup scoreGroup(const SharedTile &qs, const SharedTile &ks,
                        Value warp) {
    Value warpgroupRows =
        mul(arith::DivUIOp::create(b, loc, warp, index(4)), index(64 * 128));
    WgmmaGroup group{config.blockN, {}, {}, {}, {}, {}, {}, false};
    group.aDescriptor =
        descriptor(toI64(add(qs.byteOffset, warpgroupRows)), 16, 1024);
    group.bDescriptor = descriptor(toI64(ks.byteOffset), 16, 1024);
    for (int64_t kk = 0; kk < headDim / 16; ++kk) {
      int64_t panel = kk / 4, within = kk % 4 * 32;
      group.aOffsets.push_back(panel * qs.layout.rows * 128 + within);
      group.bOffsets.push_back(panel * ks.layout.rows * 128 + within);
    }
    return group;
  }

  /// O += P V: wgmma m64 n`Dv` k16, A = P from registers (one fragment per
  /// 16 keys) and B = V MN-major in shared memory at byte offset `vOffset`
  /// (index): 16 keys (2048 bytes) per step.
  WgmmaGroup outputGroup(ValueRange o,
                         ArrayRef<SmallVector<Value, 4>> pFragments,
                         Value vOffset) {
    WgmmaGroup group{headDimV, o, {}, {}, pFragments, {}, {}, true};
    group.bDescriptor =
        descriptor(toI64(vOffset), config.blockN * 128, 1024);
    for (int64_t kk = 0; kk < static_cast<int64_t>(pFragments.size()); ++kk)
      group.bOffsets.push_back(kk * 16 * 128);
    return group;
  }

  attn::AttentionOp op;
  attnc::MmaConfig config;
  Type f32, element, registerType;
  VectorType pairType;
  int64_t headDim, headDimV;
  Value threadId;
  Value sharedAddress; // i64, for wgmma descriptors
  int64_t threads;
};

void MmaKernelBuilder::emit(const attnc::KernelOperands &x, Value shared,
                            Value tid, Value qBlock, Value head, Value batch) {
  threadId = tid;
  using P = arith::CmpIPredicate;
  const int64_t blockM = config.blockM, blockN = config.blockN;
  const int64_t keyFragments = blockN / 8, outFragments = headDimV / 8;
  const double log2e = 1.4426950408889634, ln2 = 0.6931471805599453;
  float scale = op.getEffectiveScale();
  Value negInf = f32Const(-std::numeric_limits<double>::infinity());
  Value zero = f32Const(0.0);
  Value c0 = index(0), c1 = index(1);

  // Shared tiles in the input type.
  attnc::MmaSharedLayout layout = attnc::getMmaSharedLayout(op, config);
  SharedTile qs = sharedTile(shared, index(layout.qOffset), layout.q);
  // Key and value tiles of stage `stage` (an index value).
  auto kTile = [&](Value stage) {
    return sharedTile(
        shared, add(index(layout.kOffset), mul(stage, index(layout.kStageBytes))),
        layout.k);
  };
  auto vOffsetOf = [&](Value stage) {
    return add(index(layout.vOffset), mul(stage, index(layout.vStageBytes)));
  };
  auto vTile = [&](Value stage) {
    return sharedTile(shared, vOffsetOf(stage), layout.v);
  };
  if (warpgroup()) {
    sharedAddress =
        toI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, shared));
    // Every thread arrives once per key tile on each barrier: "full" by
    // cp.async completion, "k free" and "v free" when its warpgroup's
    // products no longer read the stage.
    Value everyThread =
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(threads));
    ifThen(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                 index(0)),
           [&] {
             for (auto [offset, count] :
                  {std::pair{layout.fullOffset, int64_t{2}},
                   std::pair{layout.kFreeOffset, int64_t{2}},
                   std::pair{layout.vFreeOffset, layout.vStages}})
               for (int64_t i = 0; i < count; ++i)
                 NVVM::MBarrierInitOp::create(b, loc, barrier(offset, index(i)),
                                              everyThread, Value());
           });
    NVVM::FenceMbarrierInitOp::create(b, loc);
    gpu::BarrierOp::create(b, loc);
  }

  Value lane = arith::RemUIOp::create(b, loc, tid, index(32));
  Value warp = arith::DivUIOp::create(b, loc, tid, index(32));
  Value group = arith::DivUIOp::create(b, loc, lane, index(4));
  Value inGroup = arith::RemUIOp::create(b, loc, lane, index(4));
  Value warpRow = mul(warp, index(16));
  // ldmatrix addresses: lane l gives row l % 8 of matrix l / 8. For A (16 x
  // 16 of Q) and for pairs of K or V fragments the four matrices are
  // (rows, cols) = (lo, lo), (hi, lo), (lo, hi), (hi, hi) halves.
  Value aRow = add(warpRow, arith::RemUIOp::create(b, loc, lane, index(16)));
  Value aCol = mul(arith::DivUIOp::create(b, loc, lane, index(16)), index(8));
  Value lane8 = arith::RemUIOp::create(b, loc, lane, index(8));
  Value half8 =
      mul(arith::RemUIOp::create(
              b, loc, arith::DivUIOp::create(b, loc, lane, index(8)), index(2)),
          index(8));

  Value seqQ = memref::DimOp::create(b, loc, x.q, 2);
  Value seqK = memref::DimOp::create(b, loc, x.k, 2);
  Value headKV = arith::DivUIOp::create(b, loc, head, index(op.getGroupSize()));
  Value q0 = mul(qBlock, index(blockM));
  Value rows = arith::MinUIOp::create(b, loc, index(blockM),
                                      arith::SubIOp::create(b, loc, seqQ, q0));
  Value qLast = arith::SubIOp::create(b, loc, add(q0, rows), c1);

  Source qSource = makeSource(x.q), kSource = makeSource(x.k),
         vSource = makeSource(x.v);
  // The q tile travels with the first key tile's copies: the key loop's
  // first wait and barrier cover both, so their latencies overlap.
  stageTile(qSource, qs, batch, head, q0, rows);
  NVVM::CpAsyncCommitGroupOp::create(b, loc);

  // The thread's two rows within the block (g and g + 8 of its warp) and
  // the key offset of its first column within an 8-key fragment.
  Value localRow[2] = {add(warpRow, group), add(add(warpRow, group), index(8))};
  Value qIdx[2] = {add(q0, localRow[0]), add(q0, localRow[1])};
  Value columnBase = mul(inGroup, index(2));

  attnc::KeyRange keys =
      attnc::keyLoopBounds(b, loc, op, q0, qLast, seqK, blockN);
  Value kBegin = keys.begin, kEnd = keys.end;

  // Loop-carried state: m and the partial l of the two rows, then the O
  // accumulator, 4 values per 8 output columns. The wgmma kernel defers
  // each tile's P V to the next tile, where it runs while that tile's
  // softmax does: it also carries P (4 registers per 16 keys), whether a
  // P V is pending, and the stage of its V tile. Only a pending product
  // reads its stage: a skipped tile's stage may hold anything, even NaN in
  // keys no query sees, which 0 x NaN would spread.
  const int64_t stateO = 4, stateP = stateO + 4 * outFragments;
  const int64_t pRegisters = blockN / 16 * 4;
  const int64_t statePending = stateP + pRegisters;
  SmallVector<Value> init = {negInf, negInf, zero, zero};
  init.append(4 * outFragments, zero);
  Value noP = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  if (warpgroup()) {
    init.append(pRegisters, noP);
    init.push_back(arith::ConstantOp::create(b, loc, b.getBoolAttr(false)));
    init.push_back(c0);
  }
  SmallVector<Type> stateTypes = llvm::to_vector(ValueRange(init).getTypes());
  // Element (fragment j, register r) sits in row half r / 2, column r % 2.
  auto keyOf = [&](int64_t j, int64_t r) {
    return add(columnBase, index(j * 8 + r % 2));
  };
  auto fragmentsOf = [&](ValueRange registers) {
    SmallVector<SmallVector<Value, 4>> fragments;
    for (int64_t i = 0; i < static_cast<int64_t>(registers.size()); i += 4)
      fragments.push_back(SmallVector<Value, 4>(registers.slice(i, 4)));
    return fragments;
  };
  // O += P V for the pending P of `state`, if any, waited for.
  auto flushPending = [&](ValueRange state) {
    ValueRange o = state.slice(stateO, 4 * outFragments);
    return llvm::to_vector(ifElse(
        state[statePending], o.getTypes(),
        [&] {
          SmallVector<SmallVector<Value, 4>> pending =
              fragmentsOf(state.slice(stateP, pRegisters));
          return wgmmaIssue(
              {outputGroup(o, pending, vOffsetOf(state.back()))},
              /*inFlight=*/0)[0];
        },
        [&] { return SmallVector<Value>(o); }));
  };

  // Key and value tiles go through stages of shared memory: the copy of
  // the next tile (cp.async when the layout allows) runs while the current
  // one is used. Every tile in the loop's range is copied, even one the
  // classifier then skips: the copies are issued a tile ahead.
  // Copies of the first tile also complete the q tile's.
  Value allAsync =
      arith::AndIOp::create(b, loc, kSource.vectorized, vSource.vectorized);
  Value allAsyncWithQ =
      arith::AndIOp::create(b, loc, allAsync, qSource.vectorized);
  auto stageKeyTile = [&](Value k0, Value tileNumber, Value onlyAsync) {
    Value cols = arith::MinUIOp::create(
        b, loc, index(blockN), arith::SubIOp::create(b, loc, seqK, k0));
    stageTile(kSource, kTile(arith::RemUIOp::create(b, loc, tileNumber, index(2))),
              batch, headKV, k0, cols);
    stageTile(vSource,
              vTile(arith::RemUIOp::create(b, loc, tileNumber,
                                           index(layout.vStages))),
              batch, headKV, k0, cols);
    if (!warpgroup()) {
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
      return;
    }
    // "full": cp.async copies arrive when they land; element-wise stores
    // (layouts without 16-byte loads) need a release arrive after them,
    // which must also wait for this thread's copies.
    Value full = barrier(layout.fullOffset,
                         arith::RemUIOp::create(b, loc, tileNumber, index(2)));
    ifThenElse(
        onlyAsync,
        [&] {
          NVVM::CpAsyncMBarrierArriveOp::create(b, loc, full, /*noinc=*/true);
        },
        [&] {
          NVVM::CpAsyncCommitGroupOp::create(b, loc);
          NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
          arriveBarrier(full);
        });
  };
  Value anyTile = arith::CmpIOp::create(b, loc, P::slt, kBegin, kEnd);
  ifThen(anyTile, [&] { stageKeyTile(kBegin, c0, allAsyncWithQ); });

  auto keyLoop = scf::ForOp::create(
      b, loc, kBegin, kEnd, index(blockN), init,
      [&](OpBuilder &nested, Location, Value k0, ValueRange state) {
        inside(nested, [&] {
          Value tileNumber = arith::DivUIOp::create(
              b, loc, arith::SubIOp::create(b, loc, k0, kBegin), index(blockN));
          Value kStage = arith::RemUIOp::create(b, loc, tileNumber, index(2));
          Value vStage =
              arith::RemUIOp::create(b, loc, tileNumber, index(layout.vStages));
          Value nextK0 = add(k0, index(blockN));
          Value hasNext = arith::CmpIOp::create(b, loc, P::slt, nextK0, kEnd);
          if (warpgroup()) {
            // Wait for this tile's copies (every thread's), then for both
            // warpgroups to be done with the stages the next tile's copies
            // overwrite: k of tile t - 1 (its S) and v of tile t + 1 - V
            // (its P V). No block-wide barrier: a warpgroup may run up to a
            // tile ahead of the other.
            waitBarrier(barrier(layout.fullOffset, kStage),
                        arith::DivUIOp::create(b, loc, tileNumber, index(2)));
            // wgmma reads shared memory through the async proxy: make the
            // generic proxy's writes (cp.async, element-wise stores)
            // visible to it.
            NVVM::FenceProxyOp::create(
                b, loc, NVVM::ProxyKind::async_shared,
                NVVM::SharedSpaceAttr::get(b.getContext(),
                                           NVVM::SharedSpace::shared_cta));
            ifThen(hasNext, [&] {
              ifThen(arith::CmpIOp::create(b, loc, P::uge, tileNumber, c1),
                     [&] {
                       Value previous =
                           arith::SubIOp::create(b, loc, tileNumber, c1);
                       waitBarrier(
                           barrier(layout.kFreeOffset,
                                   arith::RemUIOp::create(b, loc, previous,
                                                          index(2))),
                           arith::DivUIOp::create(b, loc, previous, index(2)));
                     });
              Value stages = index(layout.vStages);
              ifThen(arith::CmpIOp::create(b, loc, P::uge,
                                           add(tileNumber, c1), stages),
                     [&] {
                       Value reused = arith::SubIOp::create(
                           b, loc, add(tileNumber, c1), stages);
                       waitBarrier(
                           barrier(layout.vFreeOffset,
                                   arith::RemUIOp::create(b, loc, reused,
                                                          stages)),
                           arith::DivUIOp::create(b, loc, reused, stages));
                     });
              stageKeyTile(nextK0, add(tileNumber, c1), allAsync);
            });
          } else {
            // This tile's copies are done, and every thread has finished
            // with the stages the next tile's copies overwrite.
            NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
            gpu::BarrierOp::create(b, loc);
            ifThen(hasNext, [&] {
              stageKeyTile(nextK0, add(tileNumber, c1), allAsync);
            });
          }
          // This tile's S is done (k free) once the key tile has been read.
          auto releaseKeyTile = [&] {
            if (warpgroup())
              arriveBarrier(barrier(layout.kFreeOffset, kStage));
          };
          SharedTile ks = kTile(kStage);

          Value cols = arith::MinUIOp::create(
              b, loc, index(blockN), arith::SubIOp::create(b, loc, seqK, k0));
          Value kLast = arith::SubIOp::create(b, loc, add(k0, cols), c1);
          attnc::TileClass tileClass = attnc::classifyTile(
              b, loc, op, {batch, head, q0, qLast, k0, kLast});
          ValueRange next = ifElse(
              tileClass.mayAllow, stateTypes,
              [&] {
                // S = Q Kᵀ: blockN / 8 fragments of 16 rows x 8 keys, 4 f32
                // each. The wgmma kernel issues the pending P V behind it
                // and waits for S only.
                SmallVector<SmallVector<Value>> s;
                SmallVector<Value> oInFlight;
                if (warpgroup()) {
                  // With nothing pending, P is zero and the product reads
                  // this tile's own v stage.
                  SmallVector<SmallVector<Value, 4>> pending =
                      fragmentsOf(state.slice(stateP, pRegisters));
                  Value pendingStage = arith::SelectOp::create(
                      b, loc, state[statePending], state.back(), vStage);
                  SmallVector<SmallVector<Value>> issued = wgmmaIssue(
                      {scoreGroup(qs, ks, warp),
                       outputGroup(state.slice(stateO, 4 * outFragments),
                                   pending, vOffsetOf(pendingStage))},
                      /*inFlight=*/1);
                  for (int64_t j = 0; j < keyFragments; ++j)
                    s.push_back(SmallVector<Value>(
                        ArrayRef<Value>(issued[0]).slice(j * 4, 4)));
                  oInFlight = issued[1];
                  releaseKeyTile();
                } else {
                  s = syncScores(qs.view, ks.view, aRow, aCol, lane8, half8);
                }

                // Per element: scale (and score); on a tile that is partial
                // (past the end of the keys, or not wholly allowed by the
                // mask), key bounds and the mask.
                // Without a score region and with a positive scale, scores
                // stay unscaled: the row max scales once and each exponent
                // is one fma, exp2(s c - m).
                bool unscaled = op.getScore().empty() && scale > 0;
                Value factor = f32Const(unscaled ? scale * log2e : 1.0);
                SmallVector<Value> scores;
                for (int64_t j = 0; j < keyFragments; ++j)
                  for (int64_t r = 0; r < 4; ++r) {
                    if (op.getScore().empty()) {
                      scores.push_back(
                          unscaled ? s[j][r]
                                   : mulF(s[j][r], f32Const(scale * log2e)));
                      continue;
                    }
                    Value modified = attnc::inlineRegion(
                        b, op.getScore(),
                        {mulF(s[j][r], f32Const(scale)), batch, head,
                         qIdx[r / 2], add(k0, keyOf(j, r))});
                    scores.push_back(mulF(modified, f32Const(log2e)));
                  }
                Value partial = arith::CmpIOp::create(b, loc, P::ult, cols,
                                                      index(blockN));
                if (attnc::hasMask(op))
                  partial =
                      arith::OrIOp::create(b, loc, partial, tileClass.mayBlock);
                SmallVector<Type> scoreTypes(scores.size(), f32);
                ValueRange checked = ifElse(
                    partial, scoreTypes,
                    [&] {
                      SmallVector<Value> result;
                      for (int64_t j = 0; j < keyFragments; ++j)
                        for (int64_t r = 0; r < 4; ++r) {
                          Value allowed = arith::CmpIOp::create(
                              b, loc, P::ult, keyOf(j, r), cols);
                          if (attnc::hasMask(op))
                            allowed = arith::AndIOp::create(
                                b, loc, allowed,
                                attnc::emitElementMask(b, loc, op, batch, head,
                                                       qIdx[r / 2],
                                                       add(k0, keyOf(j, r))));
                          result.push_back(arith::SelectOp::create(
                              b, loc, allowed, scores[j * 4 + r], negInf));
                        }
                      return result;
                    },
                    [&] { return scores; });
                scores.assign(checked.begin(), checked.end());

                // Online softmax per row half.
                SmallVector<Value> result(state.begin(), state.end());
                Value alpha[2];
                SmallVector<Value> probabilities(scores.size());
                for (int64_t h = 0; h < 2; ++h) {
                  Value tileMax = negInf;
                  for (int64_t j = 0; j < keyFragments; ++j)
                    for (int64_t r = 2 * h; r < 2 * h + 2; ++r)
                      tileMax = maxF(tileMax, scores[j * 4 + r]);
                  tileMax = mulF(quadReduce(tileMax, /*max=*/true), factor);
                  Value oldMax = state[h];
                  Value newMax = maxF(oldMax, tileMax);
                  // While every key so far is masked, exponents are taken
                  // against 0 so that -inf - -inf never produces NaN.
                  Value noneAllowed = arith::CmpFOp::create(
                      b, loc, arith::CmpFPredicate::OEQ, newMax, negInf);
                  Value pivot = arith::SelectOp::create(b, loc, noneAllowed,
                                                        zero, newMax);
                  alpha[h] =
                      exp2(arith::SubFOp::create(b, loc, oldMax, pivot));
                  Value negPivot = arith::NegFOp::create(b, loc, pivot);
                  Value rowSum = zero;
                  for (int64_t j = 0; j < keyFragments; ++j)
                    for (int64_t r = 2 * h; r < 2 * h + 2; ++r) {
                      Value p = exp2(math::FmaOp::create(
                          b, loc, scores[j * 4 + r], factor, negPivot));
                      probabilities[j * 4 + r] = p;
                      rowSum = addF(rowSum, p);
                    }
                  result[h] = newMax;
                  result[2 + h] = addF(mulF(state[2 + h], alpha[h]), rowSum);
                }

                SmallVector<Value> o(state.slice(stateO, 4 * outFragments));
                if (warpgroup()) {
                  SmallVector<Value> waited =
                      wgmmaWait(oInFlight, probabilities);
                  o.assign(waited.begin(), waited.begin() + o.size());
                  probabilities.assign(waited.begin() + o.size(),
                                       waited.end());
                }
                // Fragments 2kk and 2kk + 1 of P are the A fragment of keys
                // [16 kk, 16 kk + 16).
                SmallVector<SmallVector<Value, 4>> pFragments;
                for (int64_t kk = 0; kk < blockN / 16; ++kk) {
                  auto prob = [&](int64_t j, int64_t r) {
                    return probabilities[j * 4 + r];
                  };
                  pFragments.push_back(
                      {pack(prob(2 * kk, 0), prob(2 * kk, 1)),
                       pack(prob(2 * kk, 2), prob(2 * kk, 3)),
                       pack(prob(2 * kk + 1, 0), prob(2 * kk + 1, 1)),
                       pack(prob(2 * kk + 1, 2), prob(2 * kk + 1, 3))});
                }
                // O = alpha O (+ P V now for mma.sync; the wgmma kernel
                // leaves this tile's P pending).
                for (int64_t i = 0; i < 4 * outFragments; ++i)
                  result[stateO + i] = mulF(o[i], alpha[(i % 4) / 2]);
                MutableArrayRef<Value> out =
                    MutableArrayRef<Value>(result).slice(stateO,
                                                         4 * outFragments);
                if (warpgroup()) {
                  for (auto [i, fragment] : llvm::enumerate(pFragments))
                    llvm::copy(fragment, result.begin() + stateP + 4 * i);
                  result[statePending] = arith::ConstantOp::create(
                      b, loc, b.getBoolAttr(true));
                  result.back() = vStage;
                } else {
                  syncAccumulate(pFragments, vTile(vStage).view, lane8, half8,
                                 aCol, out);
                }
                return result;
              },
              [&] {
                // A skipped tile: the pending P V runs now (its V stage is
                // free for later copies after this tile).
                SmallVector<Value> result(state.begin(), state.end());
                releaseKeyTile();
                if (warpgroup()) {
                  llvm::copy(flushPending(state), result.begin() + stateO);
                  std::fill(result.begin() + stateP,
                            result.begin() + stateP + pRegisters, noP);
                  result[statePending] = arith::ConstantOp::create(
                      b, loc, b.getBoolAttr(false));
                }
                return result;
              });
          // Every P V that reads tile t - 1's v stage is done by now.
          if (warpgroup())
            ifThen(arith::CmpIOp::create(b, loc, P::uge, tileNumber, c1), [&] {
              Value previous = arith::SubIOp::create(b, loc, tileNumber, c1);
              arriveBarrier(barrier(
                  layout.vFreeOffset,
                  arith::RemUIOp::create(b, loc, previous,
                                         index(layout.vStages))));
            });
          scf::YieldOp::create(b, loc, next);
        });
      });

  // A block without key tiles never waited for its q copies.
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  SmallVector<Value> final(keyLoop.getResults().begin(),
                           keyLoop.getResults().end());
  if (warpgroup()) {
    // The last tile's P V.
    llvm::copy(flushPending(keyLoop.getResults()), final.begin() + stateO);
  }

  // Epilogue: the row sums across the quad, then normalize and store.
  for (int64_t h = 0; h < 2; ++h) {
    Value sum = quadReduce(final[2 + h], /*max=*/false);
    Value anyAllowed =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum, zero);
    Value inverse = arith::SelectOp::create(
        b, loc, anyAllowed, arith::DivFOp::create(b, loc, f32Const(1.0), sum),
        zero);
    Value owned = arith::CmpIOp::create(b, loc, P::ult, localRow[h], rows);
    ifThen(owned, [&] {
      if (x.out) {
        Type outType = cast<MemRefType>(x.out.getType()).getElementType();
        for (int64_t n = 0; n < outFragments; ++n)
          for (int64_t c = 0; c < 2; ++c) {
            Value value = mulF(final[stateO + n * 4 + 2 * h + c], inverse);
            if (outType != f32)
              value = arith::TruncFOp::create(b, loc, outType, value);
            memref::StoreOp::create(
                b, loc, value, x.out,
                ValueRange{batch, head, qIdx[h],
                           add(columnBase, index(n * 8 + c))});
          }
      }
      if (x.lse) {
        Value first = arith::CmpIOp::create(b, loc, P::eq, inGroup, index(0));
        ifThen(first, [&] {
          Value log2Sum = addF(final[h], math::Log2Op::create(b, loc, sum));
          Value natural = mulF(log2Sum, f32Const(ln2));
          memref::StoreOp::create(
              b, loc,
              arith::SelectOp::create(b, loc, anyAllowed, natural, negInf),
              x.lse, ValueRange{batch, head, qIdx[h]});
        });
      }
    });
  }
}

} // namespace

void attnc::emitMmaKernel(OpBuilder &b, Location loc, attn::AttentionOp op,
                          const MmaConfig &config,
                          const KernelOperands &operands, Value shared,
                          Value threadId, Value qBlock, Value head,
                          Value batch) {
  MmaKernelBuilder(b, loc, op, config)
      .emit(operands, shared, threadId, qBlock, head, batch);
}
