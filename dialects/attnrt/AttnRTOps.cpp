//===- AttnRTOps.cpp - attnrt program dialect -----------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "dialects/attnrt/AttnRTOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::attnrt;

#include "dialects/attnrt/AttnRTOpsDialect.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/attnrt/AttnRTOps.cpp.inc"

void AttnRTDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/attnrt/AttnRTOps.cpp.inc"
      >();
}

bool mlir::attnrt::isSymbolicShapeOf(ArrayAttr shape, ShapedType type) {
  if (!shape || static_cast<int64_t>(shape.size()) != type.getRank())
    return false;
  for (auto [extent, dim] : llvm::zip(type.getShape(), shape)) {
    if (auto symbol = dyn_cast<StringAttr>(dim)) {
      if (symbol.getValue().empty() || !ShapedType::isDynamic(extent))
        return false;
    } else if (auto fixed = dyn_cast<IntegerAttr>(dim)) {
      if (fixed.getInt() != extent)
        return false;
    } else {
      return false;
    }
  }
  return true;
}

LogicalResult AllocOp::verify() {
  auto type = cast<MemRefType>(getBuffer().getType());
  if (!type.getLayout().isIdentity())
    return emitOpError() << "expected a dense row-major buffer, got " << type;
  if (static_cast<int64_t>(getDynamicSizes().size()) !=
      type.getNumDynamicDims())
    return emitOpError() << "expected " << type.getNumDynamicDims()
                         << " dynamic sizes, got " << getDynamicSizes().size();
  if (!isSymbolicShapeOf(getShape(), type))
    return emitOpError() << "expected shape to give each dim of " << type
                         << ": its static extent or a symbol name, got "
                         << getShape();
  if (getName().empty())
    return emitOpError() << "expected a non-empty name";
  if (std::optional<int64_t> slot = getSlot(); slot && *slot < 0)
    return emitOpError() << "expected a non-negative slot, got " << *slot;
  return success();
}

LogicalResult LaunchOp::verify() {
  if (getGrid().size() > 3)
    return emitOpError() << "expected a grid of at most 3 extents (x, y, z), "
                            "got "
                         << getGrid().size();
  return success();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  Operation *kernel = symbols.lookupNearestSymbolFrom(*this, getKernelAttr());
  if (!kernel)
    return emitOpError() << "kernel " << getKernel() << " does not exist";
  auto function = dyn_cast<FunctionOpInterface>(kernel);
  if (!function)
    return emitOpError() << "kernel " << getKernel() << " is not a function";
  // Target lowerings may add arguments after the buffers (a host kernel's
  // block range); the buffers come first.
  if (function.getNumArguments() < getArgs().size())
    return emitOpError() << "passes " << getArgs().size()
                         << " buffers to kernel " << getKernel()
                         << ", which takes " << function.getNumArguments()
                         << " arguments";
  return success();
}
