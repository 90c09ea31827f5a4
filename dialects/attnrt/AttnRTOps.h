//===- AttnRTOps.h - attnrt program dialect ---------------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_DIALECTS_ATTNRT_ATTNRTOPS_H
#define ATTNC_DIALECTS_ATTNRT_ATTNRTOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>
#include <string>

namespace attnc::pkg {
enum class DType;
} // namespace attnc::pkg

#include "dialects/attnrt/AttnRTOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/attnrt/AttnRTOps.h.inc"

namespace mlir::attnrt {

/// Attribute names of program functions and their arguments.
inline constexpr llvm::StringLiteral kNumInputsAttr = "attnrt.num_inputs";
inline constexpr llvm::StringLiteral kNameAttr = "attnrt.name";
inline constexpr llvm::StringLiteral kShapeAttr = "attnrt.shape";
/// Marks a function of the kernel module as a kernel some program launches.
inline constexpr llvm::StringLiteral kKernelAttr = "attnrt.kernel";
/// The name of the module that holds every kernel of a compiled module.
inline constexpr llvm::StringLiteral kKernelModuleName = "attnc_kernels";

/// The packed entry point the host runtime calls for host kernel `kernel`
/// (the host ABI of lib/include/attnc/package/Package.h).
inline std::string hostEntryName(llvm::StringRef kernel) {
  return (kernel + "_entry").str();
}

/// The constant i64 array {n, rank of argument 0, ..., rank of argument
/// n - 1} beside a host entry point, which the runtime checks a step's
/// arguments against before it calls the entry.
inline std::string hostArgRanksName(llvm::StringRef kernel) {
  return (kernel + "_entry_arg_ranks").str();
}

/// The grid record beside the entry point `entry` of a kernel (host or GPU):
/// the constant i64 array from which the runtime computes the grid the code
/// was compiled for, checked against the manifest's (pkg::Kernel).
inline std::string gridRecordName(llvm::StringRef entry) {
  return (entry + "_grid").str();
}

/// Whether `shape` (a program value's symbolic shape) describes `type`:
/// one entry per dim, static dims equal, dynamic dims named by a symbol (or,
/// with `fixedDynamicDims`, for arguments, fixed by another value of their
/// class).
bool isSymbolicShapeOf(ArrayAttr shape, ShapedType type,
                       bool fixedDynamicDims = false);

/// The package dtype of element type `type` (the one dtype table,
/// lib/package: MLIR's spelling, lower-cased), or none when a package cannot
/// carry it.
std::optional<attnc::pkg::DType> packageDType(Type type);

/// The name and symbolic shape of a program value: an argument of a program
/// function (its `attnrt.name` / `attnrt.shape`) or an `attnrt.alloc`; null
/// for anything else.
StringAttr nameOf(Value value);
ArrayAttr symbolicShapeOf(Value value);

} // namespace mlir::attnrt

#endif // ATTNC_DIALECTS_ATTNRT_ATTNRTOPS_H
