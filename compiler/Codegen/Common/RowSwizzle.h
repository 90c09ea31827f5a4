//===- RowSwizzle.h - The dq accumulator's row order ------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// attn.attention_grad_kv's `row_swizzle` and attn.cast's `in_row_swizzle`:
// every kernel that writes or reads such rows places a column through
// swizzledColumn, so the order is written down once.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_COMMON_ROWSWIZZLE_H
#define ATTNC_COMPILER_CODEGEN_COMMON_ROWSWIZZLE_H

#include "mlir/IR/Builders.h"

namespace attnc {

/// The position in row `row` of column `column` in the swizzled order of
/// width `width`: within its group of `width` columns, the 16 columns k and
/// the pair i (0-3) of each 8 of them select the 4-float slot
/// (4k + i + 4 (row mod 8)) mod (width / 4), which holds the pair, then the
/// pair 8 columns on. A wgmma accumulator row's 4 values of one thread
/// (columns c, c + 1, c + 8, c + 9) thus land in one 16-byte slot, and the
/// 8 rows of a warp's store fall in distinct banks.
mlir::Value swizzledColumn(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value row, mlir::Value column, int64_t width);

/// The columns of 4 slots: 8 consecutive columns' pairs and the pairs 8
/// columns on, so a reader of 16 columns from a multiple of 16 loads 4
/// whole slots (16 bytes each).
constexpr int64_t kSwizzledChunkColumns = 16;

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_ROWSWIZZLE_H
