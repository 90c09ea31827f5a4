//===- FormPrograms.cpp - Functions of attn ops to programs of kernels ----===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A public function
//
//   func.func @f(%q, %k, %v) -> (tensor, tensor) {
//     %o, %l = attn.attention %q, %k, %v ...
//     %c = attn.cast %o {scale = 2.0} ...
//     return %c, %l
//   }
//
// becomes the program
//
//   func.func @f(%q: memref, %k, %v, %out: memref, %lse: memref)
//       attributes {attnrt.num_inputs = 3} {
//     %t0 = attnrt.alloc(...) {name = "t0", shape = [...]}
//     attnrt.launch @attnc_kernels::@f_attention0(%q, %k, %v, %t0, %lse)
//     attnrt.launch @attnc_kernels::@f_cast1(%t0, %out)
//     attnrt.dealloc %t0
//     return
//   }
//
// with each op outlined into a kernel function of @attnc_kernels in
// destination-passing style (Codegen/Common/KernelBuffers.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/Graph/DimSymbols.h"
#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "dialects/attnrt/AttnRTOps.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringExtras.h"

#include <set>

namespace attnc {
#define GEN_PASS_DEF_ATTNFORMPROGRAMS
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// Kernel arguments accept any strides and offset, so a program may pass
/// views of larger tensors.
MemRefType bufferType(Type tensorType) {
  return cast<MemRefType>(bufferization::getMemRefTypeWithFullyDynamicLayout(
      cast<TensorType>(tensorType)));
}

/// The first row `slice` takes of its source, when it takes whole rows: a
/// static offset and size along the first dim, every other dim whole.
std::optional<int64_t> sliceBegin(tensor::ExtractSliceOp slice) {
  ArrayRef<int64_t> offsets = slice.getStaticOffsets();
  ArrayRef<int64_t> sizes = slice.getStaticSizes();
  RankedTensorType source = slice.getSourceType();
  if (source.getRank() == 0 || slice.getType().getRank() != source.getRank() ||
      ShapedType::isDynamic(offsets[0]) || ShapedType::isDynamic(sizes[0]) ||
      llvm::any_of(slice.getStaticStrides(),
                   [](int64_t stride) { return stride != 1; }))
    return std::nullopt;
  for (int64_t d = 1; d < source.getRank(); ++d)
    if (offsets[d] != 0 || ShapedType::isDynamic(source.getDimSize(d)) ||
        sizes[d] != source.getDimSize(d))
      return std::nullopt;
  return offsets[0];
}

/// The row concatenation a collapse to rank 1 feeds, its only reader;
/// null otherwise.
tensor::ConcatOp concatOfCollapse(tensor::CollapseShapeOp collapse) {
  Value flat = collapse.getResult();
  if (cast<RankedTensorType>(flat.getType()).getRank() != 1 ||
      !flat.hasOneUse())
    return {};
  return dyn_cast<tensor::ConcatOp>(*flat.getUsers().begin());
}

/// Checks the reshapes a program does in place: a rank-1 value expanded to
/// a static shape (a view of its elements), and a value of static shape
/// collapsed to rank 1 into a row concatenation (written there).
LogicalResult checkReshape(Operation &op) {
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    if (expand.getSrcType().getRank() != 1 ||
        !expand.getResultType().hasStaticShape())
      return op.emitError() << "a compiled function expands only a rank-1 "
                               "value, to a static shape";
    return success();
  }
  auto collapse = cast<tensor::CollapseShapeOp>(op);
  if (!collapse.getSrcType().hasStaticShape() || !concatOfCollapse(collapse))
    return op.emitError() << "a compiled function collapses only a value of "
                             "static shape to rank 1, read by nothing but a "
                             "row concatenation";
  return success();
}

/// Checks a non-kernel op of a graph: row slices, row concatenations and
/// the reshapes between rank 1 and a static shape, which programs do in
/// place.
LogicalResult checkRowOp(Operation &op) {
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    if (!sliceBegin(slice))
      return op.emitError() << "a compiled function slices whole rows: a "
                               "static offset and size along the first dim "
                               "and static other dims, taken whole";
    return success();
  }
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
    return checkReshape(op);
  auto concat = dyn_cast<tensor::ConcatOp>(op);
  if (!concat)
    return op.emitError()
           << "code generation does not support " << op.getName()
           << " in a function; functions hold attn ops (and float arith "
              "and math ops on tensors, which attn-fuse-elementwise turns "
              "into attn.elementwise), row slices, row concatenations and "
              "reshapes of rank-1 values";
  bool staticRows = llvm::all_of(concat.getInputs(), [](Value input) {
    return !cast<ShapedType>(input.getType()).isDynamicDim(0);
  });
  if (concat.getDim() != 0 || !staticRows)
    return op.emitError() << "a compiled function concatenates along the "
                             "first dim, of static extents";
  return success();
}

/// Checks that `func` is a graph of kernel ops on tensors a package can
/// carry, with a located error otherwise.
LogicalResult checkGraph(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitError() << "a compiled function is a single block of "
                               "kernel ops; '"
                            << func.getName() << "' has "
                            << func.getBlocks().size() << " blocks";
  auto checkType = [&](Type type, Location loc) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !attnrt::packageDType(tensor.getElementType()))
      return emitError(loc) << "functions take and return ranked tensors of "
                               "a package element type, got "
                            << type;
    return success();
  };
  for (BlockArgument arg : func.getArguments())
    if (failed(checkType(arg.getType(), arg.getLoc())))
      return failure();
  for (Operation &op : func.getBody().front().without_terminator()) {
    if (!isa<attn::KernelOpInterface>(op) && failed(checkRowOp(op)))
      return failure();
    for (Value result : op.getResults())
      if (failed(checkType(result.getType(), op.getLoc())))
        return failure();
  }
  if (func.getNumResults() == 0)
    return func.emitError() << "function '" << func.getName()
                            << "' returns nothing; a compiled function must "
                               "return at least one tensor";
  return success();
}

/// The forward function of backward function `func`, once it is a
/// program; null otherwise.
func::FuncOp forwardProgramOf(func::FuncOp func) {
  auto forwardName =
      func->getAttrOfType<FlatSymbolRefAttr>(attn::kGradientOfAttrName);
  auto forward = forwardName
                     ? SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                           func, forwardName)
                     : func::FuncOp();
  return forward && forward->hasAttr(attnrt::kNumInputsAttr) ? forward
                                                             : func::FuncOp();
}

/// For a backward function, the symbolic shapes of its forward function's
/// program arguments (inputs, then outputs), which its own first arguments
/// are, then those of the outputs its cotangents stand for: their dims keep
/// the forward's symbols even where no op of the backward reads them (or
/// links them to the rest). Empty otherwise, or while the forward is no
/// program yet.
SmallVector<ArrayAttr> forwardValueShapes(func::FuncOp func) {
  SmallVector<ArrayAttr> shapes;
  func::FuncOp forward = forwardProgramOf(func);
  if (!forward)
    return shapes;
  for (BlockArgument arg : forward.getArguments())
    shapes.push_back(attnrt::symbolicShapeOf(arg));
  int64_t numInputs =
      forward->getAttrOfType<IntegerAttr>(attnrt::kNumInputsAttr).getInt();
  for (unsigned i = shapes.size(); i < func.getNumArguments(); ++i) {
    auto of =
        func.getArgAttrOfType<IntegerAttr>(i, attn::kCotangentOfResultAttrName);
    shapes.push_back(of ? shapes[numInputs + of.getInt()]
                        : ArrayAttr::get(func.getContext(), {}));
  }
  return shapes;
}

/// For a backward function, the names of its arguments that the forward
/// program names: its inputs and outputs, which the backward takes first,
/// and "d<output>" for the cotangent of each output. Empty otherwise.
SmallVector<std::string> forwardValueNames(func::FuncOp func) {
  SmallVector<std::string> names;
  func::FuncOp forward = forwardProgramOf(func);
  if (!forward)
    return names;
  auto nameOf = [&](unsigned i) {
    return forward.getArgAttrOfType<StringAttr>(i, attnrt::kNameAttr)
        .getValue()
        .str();
  };
  for (unsigned i = 0; i < forward.getNumArguments(); ++i)
    names.push_back(nameOf(i));
  unsigned numInputs =
      forward->getAttrOfType<IntegerAttr>(attnrt::kNumInputsAttr).getInt();
  for (unsigned i = names.size(); i < func.getNumArguments(); ++i) {
    auto of =
        func.getArgAttrOfType<IntegerAttr>(i, attn::kCotangentOfResultAttrName);
    names.push_back(of ? "d" + nameOf(numInputs + of.getInt()) : "");
  }
  return names;
}

/// Builds the program of one function.
class ProgramBuilder {
public:
  ProgramBuilder(func::FuncOp func, ModuleOp kernels)
      : func(func), kernels(kernels), symbols(func, forwardValueShapes(func)),
        kernelTable(kernels), b(func) {}

  LogicalResult build();

private:
  void nameValues();
  std::string freshName(StringRef prefix, int64_t &counter);
  Value createView(Value value, Value storage, int64_t begin);
  void viewInPlace(Value value, Value source, Value view);
  Value createHeadsView(Value value, Value storage);
  bool splitInPlace(attn::SplitHeadsOp split);
  bool mergeInPlace(attn::MergeHeadsOp merge);
  FailureOr<Value> mergeView(OpResult result);
  void storeIn(Value value, Value storage);
  Value storageOf(Value value) const;
  bool isReadAfter(Value value, Operation *op) const;
  LogicalResult collapseIntoConcat(tensor::CollapseShapeOp collapse);
  FailureOr<Value> concatView(OpResult result);
  LogicalResult finishConcat(tensor::ConcatOp concat);
  void copyInto(Value value, Value buffer);
  void createProgram();
  Value dimOfSymbol(Attribute symbol, Location loc);
  FailureOr<Value> bufferFor(Value value);
  FailureOr<Value> tiedBuffer(OpResult result, unsigned operandIndex);
  Value reusableBuffer(OpResult result);
  void launch(Operation *op, ArrayRef<Value> operandBuffers,
              ArrayRef<Value> resultBuffers);
  func::FuncOp outline(Operation *op, ArrayRef<Value> operandBuffers,
                       ArrayRef<Value> resultBuffers);
  void freeAfterLastUse(Operation *op);

  func::FuncOp func;
  ModuleOp kernels;
  attnc::DimSymbols symbols;
  SymbolTable kernelTable;
  OpBuilder b;
  func::FuncOp program;
  /// The program buffer of each value of the function.
  llvm::DenseMap<Value, Value> buffers;
  /// Output index of values written straight into the caller's outputs.
  llvm::DenseMap<Value, int64_t> outputOf;
  /// Names of the inputs, and of the return positions.
  llvm::DenseMap<Value, std::string> inputNames;
  SmallVector<std::string> resultNames;
  /// Every name a value of the program has.
  std::set<std::string> taken;
  /// Inputs of row concatenations that their kernels wrote into the
  /// concatenation's rows.
  llvm::DenseSet<Value> writtenInPlace;
  /// The value whose buffer holds each value that has none of its own:
  /// views' sources, and merge_heads' results for the values written
  /// into them; and the reverse, each value's residents.
  llvm::DenseMap<Value, Value> storedIn;
  llvm::DenseMap<Value, SmallVector<Value>> residents;
  int64_t nextKernel = 0, nextTemporary = 0, nextView = 0;
};

/// Inputs are named as their source names them (`attn.name`, which attnc
/// keeps from the parsed `%wq`), else after their role in the op that first
/// reads them ("q"),
/// outputs after the role of the result they return ("out", "lse"); a
/// backward function's inputs after the forward program's values ("q",
/// "out", "dout"); activations saved for a backward function after their
/// role, "saved_out". A name already taken falls back to "arg<i>" /
/// "result<i>" / "saved<i>".
void ProgramBuilder::nameValues() {
  auto give = [&](StringRef role, std::string fallback) {
    std::string name = role.str();
    if (role.empty() || taken.count(name))
      name = std::move(fallback);
    taken.insert(name);
    return name;
  };
  auto roleOf = [](Value value, Operation *op) -> StringRef {
    auto kernelOp = dyn_cast<attn::KernelOpInterface>(op);
    if (!kernelOp) // a row slice or concatenation
      return "";
    SmallVector<StringRef> roles = kernelOp.getValueRoles();
    for (auto [i, operand] : llvm::enumerate(op->getOperands()))
      if (operand == value)
        return roles[i];
    for (auto [i, result] : llvm::enumerate(op->getResults()))
      if (result == value)
        return roles[op->getNumOperands() + i];
    return "";
  };
  SmallVector<std::string> forwardNames = forwardValueNames(func);
  for (BlockArgument arg : func.getArguments()) {
    Operation *reader = nullptr;
    for (Operation &op : func.getBody().front().without_terminator())
      if (!reader && llvm::is_contained(op.getOperands(), arg))
        reader = &op;
    auto source = func.getArgAttrOfType<StringAttr>(
        arg.getArgNumber(), attn::kArgumentNameAttrName);
    StringRef role = arg.getArgNumber() < forwardNames.size()
                         ? StringRef(forwardNames[arg.getArgNumber()])
                     : source ? source.getValue()
                     : reader ? roleOf(arg, reader)
                              : StringRef();
    inputNames[arg] = give(role, "arg" + std::to_string(arg.getArgNumber()));
  }
  // A backward function's result is the gradient of the forward function's
  // argument it names (else the one at its index), which is its own
  // argument of that index: "dq" for "q".
  bool gradients = func->hasAttr(attn::kGradientOfAttrName);
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    Operation *def = value.getDefiningOp();
    bool direct = def && !outputOf.count(value);
    if (direct)
      outputOf[value] = i;
    auto of = func.getResultAttrOfType<IntegerAttr>(
        i, attn::kGradientOfArgumentAttrName);
    auto named =
        func.getResultAttrOfType<StringAttr>(i, attn::kArgumentNameAttrName);
    std::string role =
        named       ? named.str()
        : gradients ? "d" + inputNames[func.getArgument(of ? of.getInt() : i)]
                    : (direct ? roleOf(value, def) : StringRef()).str();
    bool saved = func.getResultAttr(i, attn::kSavedAttrName) != nullptr;
    if (saved)
      role = "saved_" + role;
    resultNames.push_back(
        give(role, (saved ? "saved" : "result") + std::to_string(i)));
  }
}

LogicalResult ProgramBuilder::build() {
  nameValues();
  createProgram();
  b.setInsertionPointToStart(&program.getBody().front());
  for (Operation &op : func.getBody().front().without_terminator()) {
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
      viewInPlace(
          slice.getResult(), slice.getSource(),
          createView(slice.getResult(), slice.getSource(), *sliceBegin(slice)));
      continue;
    }
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
      viewInPlace(expand.getResult(), expand.getSrc(),
                  createView(expand.getResult(), expand.getSrc(), 0));
      continue;
    }
    if (auto split = dyn_cast<attn::SplitHeadsOp>(op);
        split && splitInPlace(split))
      continue;
    if (auto merge = dyn_cast<attn::MergeHeadsOp>(op);
        merge && mergeInPlace(merge)) {
      freeAfterLastUse(merge);
      continue;
    }
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
      if (failed(collapseIntoConcat(collapse)))
        return failure();
      continue;
    }
    if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
      if (failed(finishConcat(concat)))
        return failure();
      continue;
    }
    SmallVector<Value> operandBuffers, resultBuffers;
    for (Value operand : op.getOperands())
      operandBuffers.push_back(buffers.lookup(operand));
    auto kernelOp = cast<attn::KernelOpInterface>(op);
    for (OpResult result : op.getResults()) {
      std::optional<unsigned> tied =
          kernelOp.getTiedOperand(result.getResultNumber());
      FailureOr<Value> inPlace = tied ? Value() : concatView(result);
      if (succeeded(inPlace) && !tied && !*inPlace)
        inPlace = mergeView(result);
      if (failed(inPlace))
        return failure();
      Value reused = tied || *inPlace ? Value() : reusableBuffer(result);
      FailureOr<Value> buffer = tied       ? tiedBuffer(result, *tied)
                                : *inPlace ? *inPlace
                                : reused   ? reused
                                           : bufferFor(result);
      if (failed(buffer))
        return failure();
      resultBuffers.push_back(*buffer);
    }
    launch(&op, operandBuffers, resultBuffers);
    freeAfterLastUse(&op);
  }
  // Arguments returned as they are, and values returned twice, are copied.
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    auto found = outputOf.find(value);
    if (found != outputOf.end() && found->second == static_cast<int64_t>(i))
      continue;
    copyInto(value, program.getArgument(func.getNumArguments() + i));
  }
  func::ReturnOp::create(b, func.getLoc());
  program.setName(func.getName());
  func.erase();
  return success();
}

/// The program function: the inputs' buffers, then the outputs', each with
/// its name and symbolic shape.
void ProgramBuilder::createProgram() {
  SmallVector<Type> types;
  SmallVector<Value> values(func.getArguments());
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  llvm::append_range(values, ret.getOperands());
  for (Value value : values)
    types.push_back(bufferType(value.getType()));
  program = func::FuncOp::create(b, func.getLoc(), "program",
                                 FunctionType::get(b.getContext(), types, {}));
  program->setAttr(attnrt::kNumInputsAttr,
                   b.getI64IntegerAttr(func.getNumArguments()));
  for (StringRef kept : {attn::kGradientOfAttrName, attn::kSegmentsAttrName})
    if (Attribute attr = func->getAttr(kept))
      program->setAttr(kept, attr);
  Block *entry = program.addEntryBlock();
  for (auto [i, value] : llvm::enumerate(values)) {
    unsigned numInputs = func.getNumArguments();
    std::string name =
        i < numInputs ? inputNames[value] : resultNames[i - numInputs];
    program.setArgAttr(i, attnrt::kNameAttr, b.getStringAttr(name));
    program.setArgAttr(i, attnrt::kShapeAttr, symbols.shapeOf(value));
    // What a backward function's cotangents and gradients stand for.
    Attribute of = i < numInputs
                       ? func.getArgAttr(i, attn::kCotangentOfResultAttrName)
                       : func.getResultAttr(i - numInputs,
                                            attn::kGradientOfArgumentAttrName);
    if (of)
      program.setArgAttr(i,
                         i < numInputs ? attn::kCotangentOfResultAttrName
                                       : attn::kGradientOfArgumentAttrName,
                         of);
    for (StringRef kept :
         {attn::kSavedAttrName, attn::kFlatAttrName, attn::kUpdatesAttrName})
      if (Attribute attr = i < numInputs
                               ? func.getArgAttr(i, kept)
                               : func.getResultAttr(i - numInputs, kept))
        program.setArgAttr(i, kept, attr);
  }
  for (BlockArgument arg : func.getArguments())
    buffers[arg] = entry->getArgument(arg.getArgNumber());
  for (auto [value, index] : outputOf)
    buffers[value] = entry->getArgument(func.getNumArguments() + index);
}

/// `prefix` and the next number that no value of the program is named.
std::string ProgramBuilder::freshName(StringRef prefix, int64_t &counter) {
  std::string name;
  do
    name = (prefix + Twine(counter++)).str();
  while (taken.count(name));
  taken.insert(name);
  return name;
}

/// A launch that copies `value` into `buffer`.
void ProgramBuilder::copyInto(Value value, Value buffer) {
  auto copy = attn::CastOp::create(b, value.getLoc(), value.getType(), value,
                                   FloatAttr(), IntegerAttr(), IntegerAttr());
  launch(copy, {buffers.lookup(value)}, {buffer});
  copy.erase();
}

/// A view of the rows of `storage`'s buffer from `begin` that hold
/// `value` (a view of a view is one of its storage).
Value ProgramBuilder::createView(Value value, Value storage, int64_t begin) {
  Value base = buffers.lookup(storage);
  if (auto outer = base.getDefiningOp<attnrt::ViewOp>()) {
    // A row of a view of a rank-1 source is a row of its elements (a
    // reshaped view has a static shape).
    int64_t rowElements = 1;
    if (cast<MemRefType>(outer.getSource().getType()).getRank() == 1)
      for (int64_t extent :
           cast<MemRefType>(outer.getView().getType()).getShape().drop_front())
        rowElements *= extent;
    begin = outer.getBeginAttr().getInt() + begin * rowElements;
    base = outer.getSource();
  }
  return attnrt::ViewOp::create(b, value.getLoc(), bufferType(value.getType()),
                                base, begin, freshName("v", nextView),
                                symbols.shapeOf(value), IntegerAttr());
}

/// A row slice, a rank-1 value expanded, or heads split off a whole
/// buffer, is `view` of its source's buffer; a returned one is copied out
/// of it.
void ProgramBuilder::viewInPlace(Value value, Value source, Value view) {
  storeIn(value, source);
  if (Value output = buffers.lookup(value)) {
    buffers[value] = view;
    copyInto(value, output);
    buffers[value] = output;
  } else {
    buffers[value] = view;
  }
}

/// `value` lives in `storage`'s buffer.
void ProgramBuilder::storeIn(Value value, Value storage) {
  storedIn[value] = storage;
  residents[storage].push_back(value);
}

/// The heads view of `storage`'s buffer [B, N, H * D] as `value`
/// [B, H, N, D].
Value ProgramBuilder::createHeadsView(Value value, Value storage) {
  int64_t heads = cast<ShapedType>(value.getType()).getDimSize(1);
  return attnrt::ViewOp::create(
      b, value.getLoc(), bufferType(value.getType()), buffers.lookup(storage),
      /*begin=*/0, freshName("v", nextView), symbols.shapeOf(value),
      b.getI64IntegerAttr(heads));
}

/// Whether `op`, a split or merge between `merged` and `split`, only moves
/// elements, as a heads view can: no rotary tables, one element type.
static bool movesHeadsOnly(Operation *op, Value merged, Value split) {
  auto tables = op->getOperands().drop_front();
  return tables.empty() &&
         getElementTypeOrSelf(merged) == getElementTypeOrSelf(split);
}

/// Whether `op` may read or write a value through a heads view: kernels
/// take any strides, and a returned value is copied; but a library GEMM
/// (attn.matmul on a GPU) needs leading dims that collapse into rows, and
/// a row slice of a heads view is no view the package has.
static bool takesHeadsView(Operation *op) {
  return isa<func::ReturnOp>(op) ||
         (isa<attn::KernelOpInterface>(op) && !isa<attn::MatmulOp>(op));
}

/// A split_heads without tables of a whole buffer is a heads view of it
/// (copied into the caller's output when returned); false when it needs
/// its kernel.
bool ProgramBuilder::splitInPlace(attn::SplitHeadsOp split) {
  Value source = buffers.lookup(split.getX());
  if (!movesHeadsOnly(split, split.getX(), split.getOut()) ||
      source.getDefiningOp<attnrt::ViewOp>() ||
      !llvm::all_of(split.getOut().getUsers(), takesHeadsView))
    return false;
  viewInPlace(split.getOut(), split.getX(),
              createHeadsView(split.getOut(), split.getX()));
  return true;
}

/// When `result` is read by a merge_heads without tables, the heads view
/// of the merge's buffer it is written into, so that the merge moves
/// nothing; null otherwise (a returned result, a merge into a view).
FailureOr<Value> ProgramBuilder::mergeView(OpResult result) {
  if (buffers.count(result) || !takesHeadsView(result.getOwner()) ||
      !llvm::all_of(result.getUsers(), takesHeadsView))
    return Value();
  for (Operation *user : result.getUsers()) {
    auto merge = dyn_cast<attn::MergeHeadsOp>(user);
    if (!merge || !movesHeadsOnly(merge, merge.getOut(), result))
      continue;
    FailureOr<Value> merged = bufferFor(merge.getOut());
    if (failed(merged) || !*merged || merged->getDefiningOp<attnrt::ViewOp>())
      return failed(merged) ? merged : Value();
    Value view = createHeadsView(result, merge.getOut());
    buffers[result] = view;
    storeIn(result, merge.getOut());
    return view;
  }
  return Value();
}

/// Whether `merge` moves nothing: its input was written into a heads view
/// of its buffer (mergeView), or lives in a heads view of another value's
/// whole buffer (a merge recomputed for a backward), whose buffer the
/// merge's result then is.
bool ProgramBuilder::mergeInPlace(attn::MergeHeadsOp merge) {
  Value storage = storedIn.lookup(merge.getY());
  if (storage == merge.getOut())
    return true;
  auto view = buffers.lookup(merge.getY()).getDefiningOp<attnrt::ViewOp>();
  if (!view || !view.getHeads() || buffers.count(merge.getOut()) ||
      !movesHeadsOnly(merge, merge.getOut(), merge.getY()) ||
      symbols.shapeOf(merge.getOut()) != symbols.shapeOf(storage))
    return false;
  buffers[merge.getOut()] = buffers.lookup(storage);
  storeIn(merge.getOut(), storage);
  return true;
}

/// The first row of the concatenation's input `index` in its result.
static int64_t rowsBefore(tensor::ConcatOp concat, unsigned index) {
  int64_t rows = 0;
  for (Value input : concat.getInputs().take_front(index))
    rows += cast<ShapedType>(input.getType()).getDimSize(0);
  return rows;
}

/// When `result` is read only by a row concatenation, or by a collapse to
/// rank 1 into one, the view of the concatenation's buffer it is written
/// into, in place (in its own shape); null otherwise.
FailureOr<Value> ProgramBuilder::concatView(OpResult result) {
  if (!result.hasOneUse() || buffers.count(result))
    return Value();
  OpOperand *use = &*result.getUses().begin();
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(use->getOwner()))
    use = &*collapse.getResult().getUses().begin(); // checkReshape: one
  auto concat = dyn_cast<tensor::ConcatOp>(use->getOwner());
  if (!concat)
    return Value();
  if (failed(bufferFor(concat.getResult())))
    return failure();
  Value view = createView(result, concat.getResult(),
                          rowsBefore(concat, use->getOperandNumber()));
  buffers[result] = view;
  writtenInPlace.insert(result);
  return view;
}

/// A collapse into a concatenation: its rows of the concatenation's
/// buffer, where its source was written in place, or is copied now.
LogicalResult
ProgramBuilder::collapseIntoConcat(tensor::CollapseShapeOp collapse) {
  Value source = collapse.getSrc(), flat = collapse.getResult();
  OpOperand &use = *flat.getUses().begin();
  auto concat = cast<tensor::ConcatOp>(use.getOwner());
  if (failed(bufferFor(concat.getResult())))
    return failure();
  int64_t begin = rowsBefore(concat, use.getOperandNumber());
  if (!writtenInPlace.contains(source))
    copyInto(source, createView(source, concat.getResult(), begin));
  buffers[flat] = createView(flat, concat.getResult(), begin);
  writtenInPlace.insert(flat);
  freeAfterLastUse(collapse);
  return success();
}

/// Copies into the concatenation's buffer the inputs not written there in
/// place (arguments, values read elsewhere too).
LogicalResult ProgramBuilder::finishConcat(tensor::ConcatOp concat) {
  if (failed(bufferFor(concat.getResult())))
    return failure();
  for (auto [index, input] : llvm::enumerate(concat.getInputs()))
    if (!writtenInPlace.contains(input))
      copyInto(input, createView(input, concat.getResult(),
                                 rowsBefore(concat, index)));
  freeAfterLastUse(concat);
  return success();
}

/// A dim of the program's arguments with symbol `symbol`: the extent of a
/// dynamic dim of an intermediate buffer.
Value ProgramBuilder::dimOfSymbol(Attribute symbol, Location loc) {
  for (BlockArgument arg : program.getArguments()) {
    ArrayAttr shape = attnrt::symbolicShapeOf(arg);
    auto at = llvm::find(shape, symbol);
    if (at != shape.end())
      return memref::DimOp::create(b, loc, arg, at - shape.begin());
  }
  return Value();
}

/// The buffer of an op result: the caller's output when it is returned,
/// else a fresh intermediate buffer, or none when nothing reads it.
FailureOr<Value> ProgramBuilder::bufferFor(Value value) {
  if (Value buffer = buffers.lookup(value))
    return buffer;
  if (value.use_empty())
    return Value();
  auto type = cast<RankedTensorType>(value.getType());
  ArrayAttr shape = symbols.shapeOf(value);
  // A dim another value fixes (the class has a static extent) is static.
  SmallVector<int64_t> extents;
  SmallVector<Value> sizes;
  for (Attribute dim : shape) {
    if (auto fixed = dyn_cast<IntegerAttr>(dim)) {
      extents.push_back(fixed.getInt());
      continue;
    }
    extents.push_back(ShapedType::kDynamic);
    sizes.push_back(dimOfSymbol(dim, value.getLoc()));
    if (!sizes.back())
      return emitError(value.getLoc())
             << "the extent " << dim << " of this intermediate value is no "
             << "dim of the function's arguments or results";
  }
  auto memrefType = MemRefType::get(extents, type.getElementType());
  std::string name = freshName("t", nextTemporary);
  Value buffer = attnrt::AllocOp::create(b, value.getLoc(), memrefType, sizes,
                                         name, shape, IntegerAttr());
  buffers[value] = buffer;
  return buffer;
}

void ProgramBuilder::launch(Operation *op, ArrayRef<Value> operandBuffers,
                            ArrayRef<Value> resultBuffers) {
  func::FuncOp kernel = outline(op, operandBuffers, resultBuffers);
  SmallVector<Value> args(operandBuffers);
  for (Value buffer : resultBuffers)
    if (buffer)
      args.push_back(buffer);
  auto symbol = SymbolRefAttr::get(
      kernels.getSymNameAttr(),
      {FlatSymbolRefAttr::get(kernel.getSymNameAttr())});
  attnrt::LaunchOp::create(b, op->getLoc(), symbol, ValueRange{}, args,
                           /*library=*/StringAttr(), /*concurrent=*/false,
                           /*step=*/StringAttr());
}

/// The kernel function of `op`: its operands read from argument buffers,
/// each kept result written into one.
/// `name` as the start of a symbol every target accepts (PTX and ELF
/// identifiers): letters, digits and underscores, not starting with a
/// digit. Only a readable stem: the kernel table makes the whole name
/// unique, and the function's own name stays the package's key. A kernel
/// name ends in a digit, so it is never one of the names derived from
/// another kernel's (`<kernel>_entry`, `<kernel>_entry_arg_ranks`,
/// `<kernel>_grid`, `<kernel>_entry_grid`), and
/// it never starts as their C interface wrappers do (`_mlir_ciface_`).
static std::string symbolStem(StringRef name) {
  std::string stem;
  for (char c : name)
    stem += llvm::isAlnum(c) ? c : '_';
  if (stem.empty() || llvm::isDigit(stem.front()))
    stem.insert(stem.begin(), '_');
  else if (StringRef(stem).starts_with("_mlir_ciface_"))
    stem.insert(stem.begin(), 'k');
  return stem;
}

func::FuncOp ProgramBuilder::outline(Operation *op,
                                     ArrayRef<Value> operandBuffers,
                                     ArrayRef<Value> resultBuffers) {
  SmallVector<Type> types;
  for (Value operand : op->getOperands())
    types.push_back(bufferType(operand.getType()));
  for (auto [result, buffer] : llvm::zip(op->getResults(), resultBuffers))
    if (buffer)
      types.push_back(bufferType(result.getType()));
  std::string name = symbolStem(func.getName()) + "_" +
                     cast<attn::KernelOpInterface>(op).getKernelKind().str() +
                     std::to_string(nextKernel++);
  OpBuilder k = OpBuilder::atBlockEnd(kernels.getBody());
  auto kernel = func::FuncOp::create(
      k, op->getLoc(), name, FunctionType::get(b.getContext(), types, {}));
  kernel->setAttr(attnrt::kKernelAttr, k.getUnitAttr());
  kernelTable.insert(kernel);
  Block *entry = kernel.addEntryBlock();
  k.setInsertionPointToStart(entry);
  IRMapping mapping;
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    mapping.map(operand, bufferization::ToTensorOp::create(
                             k, op->getLoc(), operand.getType(),
                             entry->getArgument(i)));
  Operation *clone = k.clone(*op, mapping);
  // A recomputation is the same kernel as the forward op it repeats.
  clone->removeAttr(attn::kRecomputeAttrName);
  unsigned next = op->getNumOperands();
  for (auto [result, buffer] : llvm::zip(clone->getResults(), resultBuffers))
    if (buffer) {
      auto write = bufferization::MaterializeInDestinationOp::create(
          k, op->getLoc(), result, entry->getArgument(next++));
      write.setWritable(true);
    }
  func::ReturnOp::create(k, op->getLoc());
  return kernel;
}

/// Whether an op after `op` reads `value`, itself or a value living in its
/// buffer.
bool ProgramBuilder::isReadAfter(Value value, Operation *op) const {
  if (llvm::any_of(value.getUsers(), [&](Operation *user) {
        return user != op && op->isBeforeInBlock(user);
      }))
    return true;
  auto found = residents.find(value);
  return found != residents.end() &&
         llvm::any_of(found->second, [&](Value resident) {
           return isReadAfter(resident, op);
         });
}

/// The value whose buffer `value` lives in.
Value ProgramBuilder::storageOf(Value value) const {
  while (Value storage = storedIn.lookup(value))
    value = storage;
  return value;
}

/// The buffer of a result that updates operand `operandIndex` in place: the
/// operand's, which must be an intermediate buffer that nothing reads after
/// the op, and the result must not be written into an output.
FailureOr<Value> ProgramBuilder::tiedBuffer(OpResult result,
                                            unsigned operandIndex) {
  Operation *op = result.getOwner();
  Value operand = op->getOperand(operandIndex);
  Value buffer = buffers.lookup(operand);
  bool readLater = isReadAfter(storageOf(operand), op);
  if (!buffer.getDefiningOp<attnrt::AllocOp>() || readLater ||
      buffers.count(result))
    return op->emitError()
           << "result " << result.getResultNumber() << " updates operand "
           << operandIndex
           << " in place, so that operand must be an intermediate value "
              "read by nothing later and the result must not be returned "
              "directly";
  buffers[result] = buffer;
  return buffer;
}

/// The intermediate buffer of an operand that `result` may take over
/// (KernelOpInterface::getReusableOperands), so that the function needs
/// one buffer less: one nothing reads after the op, holding a value of the
/// result's symbolic shape, not taken by another result of the op. Null
/// when there is none, or when the result has a buffer already (an output)
/// or none at all (nothing reads it).
Value ProgramBuilder::reusableBuffer(OpResult result) {
  Operation *op = result.getOwner();
  if (buffers.count(result) || result.use_empty())
    return Value();
  auto kernelOp = cast<attn::KernelOpInterface>(op);
  for (unsigned index :
       kernelOp.getReusableOperands(result.getResultNumber())) {
    Value operand = op->getOperand(index);
    Value buffer = buffers.lookup(operand);
    bool taken = llvm::any_of(op->getResults(), [&](Value other) {
      return buffers.lookup(other) == buffer;
    });
    if (!buffer.getDefiningOp<attnrt::AllocOp>() || taken ||
        isReadAfter(storageOf(operand), op) ||
        symbols.shapeOf(operand) != symbols.shapeOf(result))
      continue;
    buffers[result] = buffer;
    return buffer;
  }
  return Value();
}

/// Frees every intermediate buffer whose last reader is `op`, unless a
/// result of `op` took it over in place.
void ProgramBuilder::freeAfterLastUse(Operation *op) {
  for (Value operand : op->getOperands()) {
    Value storage = storageOf(operand);
    auto alloc = buffers.lookup(storage).getDefiningOp<attnrt::AllocOp>();
    if (!alloc || isReadAfter(storage, op))
      continue;
    if (llvm::any_of(op->getResults(), [&](Value result) {
          return buffers.lookup(result) == alloc.getResult();
        }))
      continue;
    if (llvm::any_of(alloc->getUsers(), [](Operation *user) {
          return isa<attnrt::DeallocOp>(user);
        }))
      continue;
    attnrt::DeallocOp::create(b, op->getLoc(), alloc);
  }
}

struct AttnFormProgramsPass
    : attnc::impl::AttnFormProgramsBase<AttnFormProgramsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto functions = llvm::to_vector(llvm::make_filter_range(
        module.getOps<func::FuncOp>(),
        [](func::FuncOp func) { return func.isPublic(); }));
    if (functions.empty()) {
      module.emitError() << "the module has no public function to compile";
      return signalPassFailure();
    }
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto kernels = ModuleOp::create(b, module.getLoc(),
                                    StringRef(attnrt::kKernelModuleName));
    // Every function is checked before DimSymbols reads its shapes.
    for (func::FuncOp func : functions)
      if (failed(checkGraph(func)) ||
          failed(ProgramBuilder(func, kernels).build()))
        return signalPassFailure();
    // Private helpers of the graph level are no longer referenced.
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func.isPrivate())
        func.erase();
  }
};

} // namespace
