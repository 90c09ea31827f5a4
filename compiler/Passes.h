//===- Passes.h - attnc passes ----------------------------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_PASSES_H
#define ATTNC_COMPILER_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace attngpu {
class AttnGPUDialect;
} // namespace attngpu
namespace attnrt {
class AttnRTDialect;
} // namespace attnrt
namespace bufferization {
class BufferizationDialect;
} // namespace bufferization
namespace LLVM {
class LLVMDialect;
} // namespace LLVM
namespace arith {
class ArithDialect;
} // namespace arith
namespace math {
class MathDialect;
} // namespace math
namespace gpu {
class GPUDialect;
} // namespace gpu
namespace NVVM {
class NVVMDialect;
} // namespace NVVM
namespace nvgpu {
class NVGPUDialect;
} // namespace nvgpu
namespace vector {
class VectorDialect;
} // namespace vector
namespace memref {
class MemRefDialect;
} // namespace memref
namespace scf {
class SCFDialect;
} // namespace scf
} // namespace mlir

namespace attnc {

#define GEN_PASS_DECL
#include "compiler/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Passes.h.inc"

} // namespace attnc

#endif // ATTNC_COMPILER_PASSES_H
