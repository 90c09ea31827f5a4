//===- AttnRTOps.cpp - attnrt program dialect -----------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "dialects/attnrt/AttnRTOps.h"

#include "attnc/package/Package.h"

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

bool mlir::attnrt::isSymbolicShapeOf(ArrayAttr shape, ShapedType type,
                                     bool fixedDynamicDims) {
  if (!shape || static_cast<int64_t>(shape.size()) != type.getRank())
    return false;
  for (auto [extent, dim] : llvm::zip(type.getShape(), shape)) {
    if (auto symbol = dyn_cast<StringAttr>(dim)) {
      if (symbol.getValue().empty() || !ShapedType::isDynamic(extent))
        return false;
    } else if (auto fixed = dyn_cast<IntegerAttr>(dim)) {
      if (fixed.getInt() < 0 || (fixed.getInt() != extent &&
                                 !(fixedDynamicDims &&
                                   ShapedType::isDynamic(extent))))
        return false;
    } else {
      return false;
    }
  }
  return true;
}

std::optional<attnc::pkg::DType> mlir::attnrt::packageDType(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return attnc::pkg::parseDType(StringRef(name).lower());
}

/// The attribute `argAttr` of program value `value`: its function's
/// argument attribute, or the one of the alloc or view defining it.
template <typename Attr>
static Attr programAttr(Value value, StringRef argAttr, StringRef opAttr) {
  if (Operation *def = value.getDefiningOp())
    return isa<AllocOp, ViewOp>(def) ? def->getAttrOfType<Attr>(opAttr)
                                     : Attr();
  auto arg = dyn_cast<BlockArgument>(value);
  auto function = arg ? dyn_cast_or_null<FunctionOpInterface>(
                            arg.getOwner()->getParentOp())
                      : FunctionOpInterface();
  if (!function || arg.getOwner() != &function.getFunctionBody().front())
    return Attr();
  return function.getArgAttrOfType<Attr>(arg.getArgNumber(), argAttr);
}

StringAttr mlir::attnrt::nameOf(Value value) {
  return programAttr<StringAttr>(value, kNameAttr, "name");
}

ArrayAttr mlir::attnrt::symbolicShapeOf(Value value) {
  return programAttr<ArrayAttr>(value, kShapeAttr, "shape");
}

LogicalResult AttnRTDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == kKernelAttr) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "expected " << kKernelAttr
                             << " to be a unit attribute";
    return success();
  }
  if (attr.getName() != kNumInputsAttr)
    return op->emitError() << "unknown attribute " << attr.getName();
  auto function = dyn_cast<FunctionOpInterface>(op);
  auto count = dyn_cast<IntegerAttr>(attr.getValue());
  if (!function || !count || count.getInt() < 0 ||
      count.getInt() > function.getNumArguments())
    return op->emitError() << "expected " << kNumInputsAttr
                           << " on a function, an integer from 0 to its "
                              "argument count, got "
                           << attr.getValue();
  // The package writer reads every argument's name and shape.
  for (unsigned i = 0; i < function.getNumArguments(); ++i)
    if (!function.getArgAttr(i, kNameAttr) ||
        !function.getArgAttr(i, kShapeAttr))
      return op->emitError() << "expected every argument of a program to "
                                "carry "
                             << kNameAttr << " and " << kShapeAttr
                             << "; argument #" << i << " does not";
  return success();
}

LogicalResult AttnRTDialect::verifyRegionArgAttribute(Operation *op,
                                                      unsigned region,
                                                      unsigned index,
                                                      NamedAttribute attr) {
  Type type = op->getRegion(region).getArgument(index).getType();
  auto shaped = dyn_cast<ShapedType>(type);
  if (attr.getName() == kNameAttr) {
    auto name = dyn_cast<StringAttr>(attr.getValue());
    if (!name || name.getValue().empty())
      return op->emitError() << "expected " << kNameAttr
                             << " to be a non-empty string, got "
                             << attr.getValue();
    return success();
  }
  if (attr.getName() == kShapeAttr) {
    auto shape = dyn_cast<ArrayAttr>(attr.getValue());
    if (!shaped || !shaped.hasRank() ||
        !isSymbolicShapeOf(shape, shaped, /*fixedDynamicDims=*/true) ||
        !packageDType(shaped.getElementType()))
      return op->emitError()
             << "expected " << kShapeAttr << " of argument #" << index
             << " to give each dim of " << type
             << " (of a package element type): its static extent or a "
                "symbol name, got "
             << attr.getValue();
    return success();
  }
  return op->emitError() << "unknown argument attribute " << attr.getName();
}

LogicalResult AllocOp::verify() {
  auto type = cast<MemRefType>(getBuffer().getType());
  if (!type.getLayout().isIdentity())
    return emitOpError() << "expected a dense row-major buffer, got " << type;
  if (getDynamicSizes().size() != type.getNumDynamicDims())
    return emitOpError() << "expected " << type.getNumDynamicDims()
                         << " dynamic sizes, got " << getDynamicSizes().size();
  if (!packageDType(type.getElementType()))
    return emitOpError() << "expected an element type a package carries, got "
                         << type.getElementType();
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

/// A heads view's types: all of `source` [B, N, H * D] as [B, H, N, D].
static bool isHeadsViewOf(MemRefType view, MemRefType source, int64_t heads) {
  if (source.getRank() != 3 || view.getRank() != 4 || heads < 1 ||
      view.getElementType() != source.getElementType())
    return false;
  int64_t width = source.getDimSize(2);
  return !ShapedType::isDynamic(width) && width % heads == 0 &&
         view.getShape() == ArrayRef<int64_t>{source.getDimSize(0), heads,
                                              source.getDimSize(1),
                                              width / heads};
}

LogicalResult ViewOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto view = cast<MemRefType>(getView().getType());
  if (!isSymbolicShapeOf(getShape(), view) || getName().empty())
    return emitOpError() << "expected a name and a shape giving each dim of "
                         << view << ", got " << getShape();
  if (std::optional<int64_t> heads = getHeads()) {
    if (!isHeadsViewOf(view, source, *heads) || getBeginAttr().getInt() != 0)
      return emitOpError() << "expected all of " << source << " as " << *heads
                           << " heads [B, H, N, D] from row 0, got " << view;
    return success();
  }
  // Of a rank-1 source, elements in any static shape; else rows.
  bool reshaped = source.getRank() == 1;
  bool fits = reshaped ? view.getRank() >= 1 && view.hasStaticShape()
                       : view.getRank() == source.getRank() &&
                             view.getShape().drop_front() ==
                                 source.getShape().drop_front();
  if (source.getRank() == 0 || !fits ||
      view.getElementType() != source.getElementType())
    return emitOpError() << "expected rows of " << source
                         << ": its element type and dims but the first (or, "
                            "of a rank-1 source, static dims), got "
                         << view;
  int64_t rows = reshaped && view.hasStaticShape() ? view.getNumElements()
                                                   : view.getDimSize(0);
  if (ShapedType::isDynamic(rows) || rows < 1)
    return emitOpError() << "expected a static row count >= 1, got " << view;
  // The attribute's signed value: I64Attr's accessor is unsigned.
  int64_t begin = getBeginAttr().getInt();
  int64_t available = source.getDimSize(0);
  if (begin < 0 ||
      (!ShapedType::isDynamic(available) && begin + rows > available))
    return emitOpError() << "rows [" << begin << ", " << begin + rows
                         << ") are not rows of " << source;
  return success();
}

LogicalResult LaunchOp::verify() {
  if (getGrid().size() > 3)
    return emitOpError() << "expected a grid of at most 3 extents (x, y, z), "
                            "got "
                         << getGrid().size();
  if (getLibrary() && !getGrid().empty())
    return emitOpError() << "expected no grid for library routine "
                         << getLibraryAttr();
  if (!getConcurrent())
    return success();
  LaunchOp before;
  for (Operation *op = (*this)->getPrevNode(); op && !before;
       op = op->getPrevNode())
    before = dyn_cast<LaunchOp>(op);
  if (!before)
    return emitOpError() << "is concurrent, but no launch comes before it "
                            "to run beside";
  if (before.getConcurrent())
    return emitOpError() << "is concurrent, but the launch before it already "
                            "runs beside another: a launch runs beside one "
                            "other at most";
  return success();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  if (getLibrary())
    return success();
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
