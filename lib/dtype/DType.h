//===- DType.h - Conversions between float and narrow element types ------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// bf16, fp16 and the two OCP fp8 formats, as bit patterns, to and from float;
// plus element access by pkg::DType for code that handles tensors of any
// element type (the runtime's checkers, the reference).
//
// Every narrowing conversion rounds to nearest, ties to even, with correct
// subnormals. NaN stays NaN (keeping its sign). Infinity and values that
// round past the largest finite value become infinity, except in f8e4m3fn,
// which has no infinity: there they become NaN.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_DTYPE_DTYPE_H
#define ATTNC_LIB_DTYPE_DTYPE_H

#include "attnc/package/Package.h"

#include <cstdint>

namespace attnc {

uint16_t floatToBF16(float value);
float bf16ToFloat(uint16_t bits);

uint16_t floatToF16(float value);
float f16ToFloat(uint16_t bits);

/// fp8 with 4 exponent bits (bias 7) and 3 mantissa bits; no infinity, NaN
/// is S.1111.111, largest finite 448.
uint8_t floatToF8E4M3FN(float value);
float f8E4M3FNToFloat(uint8_t bits);

/// fp8 with 5 exponent bits (bias 15) and 2 mantissa bits; IEEE-style
/// infinity and NaN, largest finite 57344.
uint8_t floatToF8E5M2(float value);
float f8E5M2ToFloat(uint8_t bits);

/// Element `elementIndex` of a dense array of `type` starting at `base` (no
/// alignment needed). i1 is one byte, read as 0 or 1 (any nonzero byte is 1).
double loadElementAsDouble(const void *base, pkg::DType type,
                           int64_t elementIndex);

/// Stores `value` into element `elementIndex` of a dense array of `type`.
/// The 16- and 8-bit float types round through float (as a kernel that
/// computes in f32 would). Integers round to nearest (ties away from zero)
/// and saturate at the type's range, NaN becoming 0; i1 stores 1 for any
/// nonzero value (NaN included) and 0 for zero.
void storeElementFromDouble(void *base, pkg::DType type, int64_t elementIndex,
                            double value);

} // namespace attnc

#endif // ATTNC_LIB_DTYPE_DTYPE_H
