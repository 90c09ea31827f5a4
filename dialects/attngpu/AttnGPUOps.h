//===- AttnGPUOps.h - attngpu kernel dialect --------------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_DIALECTS_ATTNGPU_ATTNGPUOPS_H
#define ATTNC_DIALECTS_ATTNGPU_ATTNGPUOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/attngpu/AttnGPUOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/attngpu/AttnGPUOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "dialects/attngpu/AttnGPUOps.h.inc"

namespace mlir::attngpu {
/// The dynamic shared memory a GPU kernel (gpu.func) is launched with, in
/// bytes: set by attn-outline-gpu-kernels, read by the package writer.
inline constexpr llvm::StringLiteral kDynamicSharedMemoryBytesAttr =
    "attngpu.dynamic_shared_memory_bytes";
/// The tensor maps a GPU kernel takes after its memrefs (an array of
/// {arg, box, swizzle_bytes}: the kernel argument each describes, its box
/// innermost first and its swizzle), one 128-byte grid-constant parameter
/// each, then an i64 of their valid bits: set by attn-outline-gpu-kernels,
/// read by attn-tensor-map-params and the package writer.
inline constexpr llvm::StringLiteral kTensorMapsAttr = "attngpu.tensor_maps";
/// The bytes of a CUtensorMap, and the alignment of its parameter.
inline constexpr int64_t kTensorMapBytes = 128, kTensorMapAlignment = 64;
} // namespace mlir::attngpu

#endif // ATTNC_DIALECTS_ATTNGPU_ATTNGPUOPS_H
