//===- DimSymbols.h - Symbolic dims of a function of kernel ops -*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The dims that a function's ops force equal (KernelOpInterface) form
// classes; each class with a dynamic member gets one symbol, or its static
// extent when a member has one. A package binds every symbol from the
// caller's tensors.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_COMPILER_GRAPH_DIMSYMBOLS_H
#define ATTNC_COMPILER_GRAPH_DIMSYMBOLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/EquivalenceClasses.h"

#include <optional>
#include <set>
#include <string>

namespace attnc {

class DimSymbols {
public:
  /// Relates the dims of `func`'s arguments and op results through its
  /// kernel ops, and the dims of its first arguments that share a symbol in
  /// `argumentShapes` (the symbolic shapes a related program gave them: a
  /// backward function's inputs are its forward function's values), then
  /// names each class.
  explicit DimSymbols(mlir::func::FuncOp func,
                      llvm::ArrayRef<mlir::ArrayAttr> argumentShapes = {});

  /// The symbolic shape of `value`: per dim its static extent (i64) or its
  /// symbol (a string).
  mlir::ArrayAttr shapeOf(mlir::Value value) const;

private:
  /// One dim of one value.
  using Slot = std::pair<mlir::Value, int64_t>;

  void relate(mlir::Operation *op);
  void nameClasses();
  std::string baseName(const Slot &leader) const;

  mlir::MLIRContext *ctx;
  /// The function's arguments, then its ops' results: the order classes
  /// are named in.
  llvm::SmallVector<mlir::Value> values;
  llvm::EquivalenceClasses<Slot> classes;
  /// Role names ("B", "Nq") given to dims by the ops, per class leader.
  llvm::DenseMap<Slot, std::set<std::string>> roles;
  /// Per class leader: its static extent, or its symbol.
  llvm::DenseMap<Slot, mlir::Attribute> names;
};

/// "B=4" as the symbol and its extent, for options that size symbols
/// (attnc --symbol, attn-derive-backward's symbols); nothing unless it is
/// NAME=EXTENT with a non-negative extent.
std::optional<std::pair<std::string, int64_t>>
parseSymbolExtent(llvm::StringRef entry);

} // namespace attnc

#endif // ATTNC_COMPILER_GRAPH_DIMSYMBOLS_H
