//===- VectorAccess.h - Chunks of consecutive elements as vectors -*- C++
//-*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Memory-bound kernels read and write 16 bytes per thread and access (8
// bf16 elements) where one element of 2 bytes would leave most of the
// bandwidth unused. A vector access needs a unit-stride view of its buffer
// and, for the alignment it claims, a buffer that starts at a 16-byte
// boundary; callers may pass strided or offset tensors, so kernels check
// isDenseAndAligned at run time and keep an element-by-element path.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_CODEGEN_COMMON_VECTORACCESS_H
#define ATTNC_COMPILER_CODEGEN_COMMON_VECTORACCESS_H

#include "mlir/IR/Builders.h"

namespace attnc {

/// Elements per chunk of the vector forms of memory-bound kernels: 16
/// bytes of a 16-bit type.
constexpr int64_t kElementVectorWidth = 8;

/// Whether `buffer` is dense and row-major (a dim of one element may have
/// any stride), an i1.
mlir::Value isDense(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer);

/// Whether `buffer` is dense and row-major (a dim of one element may have
/// any stride) and starts at a 16-byte boundary (an i1).
mlir::Value isDenseAndAligned(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value buffer);

/// Whether `buffer`'s rows (its last dim) have a unit stride and each
/// starts at a 16-byte boundary (an i1): what vector accesses through a
/// DenseLayout::Strided view need, of a dense buffer or a strided one (a
/// heads view).
mlir::Value hasAlignedRows(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value buffer);

/// How denseView shapes its view: the buffer's dims with its strides but a
/// unit last one; [rows, last dim] with the leading dims as rows; or one
/// dim of all elements in row-major order.
enum class DenseLayout { Strided, Matrix, Flat };

/// `buffer` viewed in `layout` with a unit stride in its last dim, as
/// vector accesses need; valid where the buffer is dense (isDense).
mlir::Value denseView(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value buffer, DenseLayout layout);

/// The `width` elements of `buffer` from `indices` along its last dim (a
/// unit-stride view when `width` > 1, at a multiple of `width`), widened to
/// f32: a vector, or a scalar for one element.
mlir::Value loadChunk(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value buffer, mlir::ValueRange indices,
                      int64_t width);

/// Stores `value` (f32, as loadChunk gives) to `buffer` from `indices`
/// along its last dim, rounded to the buffer's element type.
void storeChunk(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                mlir::Value buffer, mlir::ValueRange indices);

} // namespace attnc

#endif // ATTNC_COMPILER_CODEGEN_COMMON_VECTORACCESS_H
