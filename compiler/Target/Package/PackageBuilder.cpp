//===- PackageBuilder.cpp - Programs and kernels for the manifest ---------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Target/Package/PackageBuilder.h"

#include "compiler/Graph/LaunchGrid.h"
#include "dialects/attn/AttnOps.h"
#include "dialects/attngpu/AttnGPUOps.h"
#include "dialects/attnrt/AttnRTOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace pkg = attnc::pkg;

namespace {

std::string typeName(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return name;
}

/// The signature of program value `value` (its type and symbolic shape
/// were verified by the attnrt dialect).
pkg::TensorSig signature(Value value) {
  auto type = cast<ShapedType>(value.getType());
  pkg::TensorSig sig{attnrt::nameOf(value).str(),
                     *attnrt::packageDType(type.getElementType()),
                     {}};
  for (Attribute dim : attnrt::symbolicShapeOf(value)) {
    if (auto symbol = dyn_cast<StringAttr>(dim))
      sig.shape.push_back(pkg::Dim::named(symbol.str()));
    else
      sig.shape.push_back(pkg::Dim::fixed(cast<IntegerAttr>(dim).getInt()));
  }
  return sig;
}

//===----------------------------------------------------------------------===//
// Semantics: regions and ops
//===----------------------------------------------------------------------===//

/// A mask or score region as straight-line SSA (the verifier admits only
/// ops of the region op table, so every op has a manifest form); its last
/// `numCaptures` arguments are captures.
pkg::Region describeRegion(Region &region, int64_t numCaptures,
                           unsigned yieldIndex = 0) {
  pkg::Region result;
  result.numCaptures = numCaptures;
  Block &block = region.front();
  llvm::DenseMap<Value, int64_t> numbers;
  for (BlockArgument arg : block.getArguments())
    numbers[arg] = numbers.size();
  result.numArgs = block.getNumArguments();
  for (Operation &op : block.without_terminator()) {
    pkg::RegionOp desc;
    desc.name = op.getName().getStringRef().str();
    desc.type = typeName(op.getResult(0).getType());
    for (Value operand : op.getOperands())
      desc.operands.push_back(numbers.lookup(operand));
    desc.predicate = attn::regionPredicate(&op);
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      // Integer constants travel sign-extended from their width (i1 true
      // is -1), as the reference reads them.
      if (auto i = dyn_cast<IntegerAttr>(constant.getValue()))
        desc.intValue = i.getValue().getSExtValue();
      else
        desc.value = cast<FloatAttr>(constant.getValue())
                         .getValue()
                         .convertToDouble();
    }
    numbers[op.getResult(0)] = numbers.size();
    result.ops.push_back(std::move(desc));
  }
  result.yield = numbers.lookup(block.getTerminator()->getOperand(yieldIndex));
  return result;
}

/// The scoring attributes and regions of attention and its gradient
/// kernels (the score region's derivative stays out: the reference derives
/// its own).
pkg::AttentionSpec describeScoring(attn::AttentionScoringOpInterface op) {
  pkg::AttentionSpec a;
  a.scale = op.getEffectiveScale();
  a.causal = op.getCausal();
  a.bottomRight = op.getBottomRight();
  a.windowLeft = op.getWindowLeft();
  a.windowRight = op.getWindowRight();
  a.numCaptures = static_cast<int64_t>(op.getCaptures().size());
  if (!op.getMask().empty())
    a.mask = describeRegion(op.getMask(), a.numCaptures);
  if (!op.getScore().empty())
    a.score = describeRegion(op.getScore(), a.numCaptures);
  return a;
}

pkg::OpSpec describeOp(Operation *op) {
  pkg::OpSpec spec;
  spec.kind = cast<attn::KernelOpInterface>(op).getKernelKind().str();
  if (auto scoring = dyn_cast<attn::AttentionScoringOpInterface>(op)) {
    spec.attention = describeScoring(scoring);
  } else if (auto cast = dyn_cast<attn::CastOp>(op)) {
    pkg::CastSpec c;
    if (std::optional<APFloat> scale = cast.getScale())
      c.scale = scale->convertToDouble();
    spec.cast = c;
  } else if (isa<attn::RmsNormOp, attn::LayerNormOp>(op)) {
    spec.norm = pkg::NormSpec{
        op->getAttrOfType<FloatAttr>("epsilon").getValueAsDouble()};
  } else if (auto ignore = op->getAttrOfType<IntegerAttr>("ignore_index")) {
    spec.loss = pkg::LossSpec{ignore.getInt()};
    if (auto offset = op->getAttrOfType<IntegerAttr>("vocab_offset"))
      spec.loss->vocabOffset = offset.getInt();
    if (auto size = op->getAttrOfType<IntegerAttr>("vocab_size"))
      spec.loss->vocabSize = size.getInt();
  } else if (auto matmul = dyn_cast<attn::MatmulOp>(op)) {
    spec.matmul =
        pkg::MatmulSpec{matmul.getTransposeA(), matmul.getTransposeB(),
                        matmul.getAddend() != nullptr,
                        matmul.getActivation().value_or("").str()};
  } else if (auto elementwise = dyn_cast<attn::ElementwiseOp>(op)) {
    // One body per result: each holds the ops of all, which the reference
    // evaluates only as far as its own result needs.
    pkg::ElementwiseSpec e;
    for (unsigned k = 0; k < elementwise.getNumResults(); ++k)
      e.bodies.push_back(describeRegion(elementwise.getBody(), 0, k));
    spec.elementwise = std::move(e);
  }
  return spec;
}

/// The tile configuration of a kernel op, for the manifest.
std::map<std::string, int64_t> describeConfig(Operation *op) {
  if (auto delta = dyn_cast<attn::AttentionGradDeltaOp>(op))
    if (std::optional<int64_t> block = delta.getBlockSize())
      return {{"block_size", *block}};
  if (auto attention = dyn_cast<attn::AttentionScoringOpInterface>(op)) {
    std::map<std::string, int64_t> config;
    if (std::optional<attn::TilesAttr> tiles = attention.getTiles()) {
      config = {{"block_m", tiles->getBlockM()},
                {"block_n", tiles->getBlockN()}};
      if (std::optional<attn::MmaKind> mma = tiles->getMma())
        config["mma"] = static_cast<int64_t>(*mma);
      if (tiles->getPackGroup().value_or(false))
        config["pack_group"] = 1;
      if (tiles->getProducer().value_or(false))
        config["producer"] = 1;
      if (tiles->getTma().value_or(false))
        config["tma"] = 1;
      if (tiles->getPingPong().value_or(false))
        config["ping_pong"] = 1;
    }
    return config;
  }
  if (auto cast = dyn_cast<attn::CastOp>(op))
    if (std::optional<int64_t> block = cast.getBlockSize())
      return {{"block_size", *block}};
  if (auto elementwise = dyn_cast<attn::ElementwiseOp>(op))
    if (std::optional<int64_t> block = elementwise.getBlockSize())
      return {{"block_size", *block}};
  if (isa<attn::AttentionCombineOp, attn::RmsNormOp, attn::RmsNormGradOp,
          attn::LayerNormOp, attn::LayerNormGradOp, attn::SumRowsOp,
          attn::SplitHeadsOp, attn::MergeHeadsOp, attn::CrossEntropyOp,
          attn::CrossEntropyGradOp, attn::CrossEntropyPartialOp,
          attn::CrossEntropyCombineOp, attn::TokenMeanGradOp, attn::EmbeddingOp,
          attn::EmbeddingGradOp>(op))
    if (auto block = op->getAttrOfType<IntegerAttr>("block_size"))
      return {{"block_size", block.getInt()}};
  // A library routine reads its config (pkg::Kernel::library).
  if (auto matmul = dyn_cast<attn::MatmulOp>(op)) {
    if (matmul.getLibrary())
      return pkg::cublasLtMatmulConfig(*describeOp(matmul).matmul,
                                       matmul.getBias() != nullptr);
    if (std::optional<ArrayRef<int64_t>> tile = matmul.getTile())
      return {{"block_m", (*tile)[0]}, {"block_n", (*tile)[1]}};
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

/// The kernel op of a kernel function (its one op besides the buffer
/// bridges and the return).
Operation *kernelOpOf(func::FuncOp kernel) {
  for (Operation &op : kernel.getBody().front())
    if (isa<attn::KernelOpInterface>(op))
      return &op;
  return nullptr;
}

/// The step of `launch` and what its kernel computes, in value names.
LogicalResult describeLaunch(attnrt::LaunchOp launch, pkg::Function &fn) {
  auto kernel = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      launch, launch.getKernelAttr());
  Operation *op = kernel ? kernelOpOf(kernel) : nullptr;
  if (!op)
    return launch.emitError() << "launches " << launch.getKernel()
                              << ", which is not a kernel of an attn op";
  // Launches of one kernel merged from identical ones keep their names.
  std::string name = launch.getStep().value_or(kernel.getName()).str();
  pkg::Step step{name, {}, launch.getConcurrent()};
  for (Value arg : launch.getArgs())
    step.args.push_back(attnrt::nameOf(arg).str());
  pkg::OpSpec spec = describeOp(op);
  // Kernel arguments are the op's operands, then its kept results.
  auto argName = [&](Value kernelArg) {
    return step.args[cast<BlockArgument>(kernelArg).getArgNumber()];
  };
  for (Value operand : op->getOperands())
    spec.operands.push_back(
        argName(operand.getDefiningOp<bufferization::ToTensorOp>().getBuffer()));
  for (Value result : op->getResults()) {
    auto write = result.use_empty()
                     ? nullptr
                     : dyn_cast<bufferization::MaterializeInDestinationOp>(
                           *result.getUsers().begin());
    spec.results.push_back(write ? argName(write.getDest()) : "");
  }
  fn.steps.push_back(std::move(step));
  fn.ops.push_back(std::move(spec));
  pkg::Kernel k;
  k.name = name;
  k.config = describeConfig(op);
  fn.kernels.push_back(std::move(k));
  return success();
}

/// The ops a function computes are its semantics, which the fp64 reference
/// checks end to end: an attention_split and the attention_combine of its
/// results are the attention they split.
void mergeKeyRanges(pkg::Function &fn) {
  std::vector<pkg::OpSpec> merged;
  for (pkg::OpSpec &op : fn.ops) {
    if (op.kind == "attention_split")
      continue;
    if (op.kind == "attention_combine") {
      auto split = llvm::find_if(fn.ops, [&](const pkg::OpSpec &other) {
        return other.kind == "attention_split" && other.results == op.operands;
      });
      if (split != fn.ops.end()) {
        pkg::OpSpec attention = *split;
        attention.kind = "attention";
        attention.results = op.results;
        merged.push_back(std::move(attention));
        continue;
      }
    }
    merged.push_back(std::move(op));
  }
  fn.ops = std::move(merged);
}

/// A backward program's cotangents (the forward outputs they stand for)
/// and outputs (the forward inputs they are gradients of).
void describeGradientMaps(func::FuncOp program, int64_t numInputs,
                          pkg::Function &fn) {
  for (BlockArgument arg : program.getArguments()) {
    bool input = arg.getArgNumber() < numInputs;
    auto of = program.getArgAttrOfType<IntegerAttr>(
        arg.getArgNumber(), input ? attn::kCotangentOfResultAttrName
                                  : attn::kGradientOfArgumentAttrName);
    if (!input)
      fn.gradientOfInputs.push_back(of ? of.getInt()
                                       : arg.getArgNumber() - numInputs);
    else if (of)
      fn.cotangentOf.push_back(of.getInt());
  }
}

/// Gives each input that a cross-entropy reads as labels the class count of
/// its logits, and each input an embedding reads as ids the rows of its
/// table, as index bound, so that tools draw them in range.
void boundIndexInputs(pkg::Function &fn) {
  // The extent of dim `dim` of `by`, less `less`.
  auto bound = [&](const std::string &name, const pkg::TensorSig *by,
                   size_t dim, int64_t less = 0) {
    if (!by || by->shape.size() <= dim || !by->shape[dim].isStatic())
      return;
    for (pkg::TensorSig &input : fn.inputs)
      if (input.name == name)
        input.indexBound = by->shape[dim].extent - less;
  };
  for (const pkg::OpSpec &op : fn.ops) {
    if (op.kind == "cross_entropy") {
      const pkg::TensorSig *logits = fn.findValue(op.operands[0]);
      bound(op.operands[1], logits, logits ? logits->shape.size() - 1 : 0);
    } else if (op.kind == "cross_entropy_grad" && op.loss) {
      // A vocabulary chunk's logits: the classes below its end, the
      // largest of which is the last chunk's.
      const pkg::TensorSig *logits = fn.findValue(op.operands[0]);
      const pkg::Dim *classes = logits ? &logits->shape.back() : nullptr;
      for (pkg::TensorSig &input : fn.inputs)
        if (input.name == op.operands[1] && classes && classes->isStatic())
          input.indexBound = std::max(input.indexBound.value_or(0),
                                      op.loss->vocabOffset + classes->extent);
    } else if (op.kind == "cross_entropy_combine" && op.loss &&
               op.loss->vocabSize) {
      for (pkg::TensorSig &input : fn.inputs)
        if (input.name == op.operands[2])
          input.indexBound = *op.loss->vocabSize;
    } else if (op.kind == "embedding") {
      bound(op.operands[1], fn.findValue(op.operands[0]), 0);
    } else if (op.kind == "token_order") {
      bound(op.operands[0], fn.findValue(op.results[1]), 0, 1); // [V + 1]
    }
  }
}

/// The flat values, segments and in-place updates of a training step
/// (attn.flat, attn.segments, attn.updates).
void describeSegments(func::FuncOp program, pkg::Function &fn) {
  auto segments = program->getAttrOfType<ArrayAttr>(attn::kSegmentsAttrName);
  if (!segments)
    return;
  for (unsigned i = 0; i < program.getNumArguments(); ++i) {
    std::string name =
        program.getArgAttrOfType<StringAttr>(i, attnrt::kNameAttr).str();
    if (Attribute flat = program.getArgAttr(i, attn::kFlatAttrName)) {
      fn.flatValues.push_back(name);
      if (auto chunk = dyn_cast<IntegerAttr>(flat))
        fn.flatChunks.push_back(chunk.getInt());
    }
    if (auto updated =
            program.getArgAttrOfType<StringAttr>(i, attn::kUpdatesAttrName))
      fn.updates[name] = updated.str();
  }
  for (auto segment : segments.getAsRange<DictionaryAttr>()) {
    pkg::Segment part{segment.getAs<StringAttr>("name").str(),
                      {},
                      segment.getAs<IntegerAttr>("offset").getInt()};
    if (auto chunk = segment.getAs<IntegerAttr>("chunk"))
      part.chunk = chunk.getInt();
    for (int64_t extent :
         segment.getAs<DenseI64ArrayAttr>("shape").asArrayRef())
      part.shape.push_back(extent);
    fn.segments.push_back(std::move(part));
  }
}

FailureOr<pkg::Function> describeProgram(func::FuncOp program) {
  pkg::Function fn;
  fn.name = program.getName().str();
  auto numInputs = program->getAttrOfType<IntegerAttr>(attnrt::kNumInputsAttr);
  if (auto forward =
          program->getAttrOfType<FlatSymbolRefAttr>(attn::kGradientOfAttrName))
    fn.gradientOf = forward.getValue().str();
  for (BlockArgument arg : program.getArguments())
    (arg.getArgNumber() < numInputs.getInt() ? fn.inputs : fn.outputs)
        .push_back(signature(arg));
  if (fn.gradientOf)
    describeGradientMaps(program, numInputs.getInt(), fn);
  for (BlockArgument arg :
       program.getArguments().drop_front(numInputs.getInt()))
    if (program.getArgAttr(arg.getArgNumber(), attn::kSavedAttrName))
      fn.savedOutputs.push_back(arg.getArgNumber() - numInputs.getInt());
  describeSegments(program, fn);
  WalkResult result = program.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<attnrt::AllocOp>(op)) {
      std::optional<int64_t> slot = alloc.getSlot();
      if (!slot) {
        alloc.emitError() << "buffer " << alloc.getName()
                          << " has no slot: run attn-plan-buffers first";
        return WalkResult::interrupt();
      }
      fn.buffers.push_back({signature(alloc), *slot});
    } else if (auto view = dyn_cast<attnrt::ViewOp>(op)) {
      fn.views.push_back(
          {signature(view), attnrt::nameOf(view.getSource()).str(),
           view.getBeginAttr().getInt(), view.getHeads().value_or(0)});
    } else if (auto launch = dyn_cast<attnrt::LaunchOp>(op)) {
      if (failed(describeLaunch(launch, fn)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  mergeKeyRanges(fn);
  boundIndexInputs(fn);
  return fn;
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

/// `value` (a grid extent of a launch) as one grid term over the program's
/// symbols: constants and dims of program values, multiplied, and divided
/// (rounding up) by a constant.
FailureOr<pkg::GridTerm> gridTerm(Value value) {
  auto unexpressible = [&]() {
    return emitError(value.getLoc())
           << "a launch grid must be a product of constants and dims of "
              "program values, divided by a constant, to be written to a "
              "package";
  };
  FailureOr<attnc::GridProduct> product = attnc::matchGridProduct(value);
  if (failed(product))
    return unexpressible();
  pkg::GridTerm term{product->constant, {}, product->divisor};
  for (auto [source, index] : product->dims) {
    ArrayAttr shape = attnrt::symbolicShapeOf(source);
    if (!shape)
      return unexpressible();
    if (auto symbol = dyn_cast<StringAttr>(shape[index]))
      term.symbols.push_back(symbol.str());
    else
      term.constant *= cast<IntegerAttr>(shape[index]).getInt();
  }
  if (term.symbols.empty()) // a constant extent
    return pkg::GridTerm{
        llvm::divideCeilSigned(term.constant, term.divisor), {}, 1};
  return term;
}

/// The tensor maps the kernel takes (attngpu::kTensorMapsAttr).
LogicalResult describeTensorMaps(gpu::GPUFuncOp function, pkg::Kernel &k) {
  auto maps = function->getAttrOfType<ArrayAttr>(attngpu::kTensorMapsAttr);
  if (!maps)
    return success();
  for (Attribute entry : maps) {
    auto map = dyn_cast<DictionaryAttr>(entry);
    auto arg = map ? map.getAs<IntegerAttr>("arg") : IntegerAttr();
    auto box = map ? map.getAs<DenseI64ArrayAttr>("box") : DenseI64ArrayAttr();
    auto swizzle =
        map ? map.getAs<IntegerAttr>("swizzle_bytes") : IntegerAttr();
    if (!arg || !box || !swizzle)
      return function.emitError()
             << "malformed " << attngpu::kTensorMapsAttr << " entry " << entry;
    pkg::TensorMap described;
    described.arg = arg.getInt();
    described.box.assign(box.asArrayRef().begin(), box.asArrayRef().end());
    described.swizzleBytes = swizzle.getInt();
    k.tensorMaps.push_back(std::move(described));
  }
  return success();
}

/// The kernel's entry, block, shared memory and tensor maps for `target`.
LogicalResult describeEntry(Operation *kernel, StringRef target,
                            pkg::Kernel &k) {
  StringRef symbol = cast<SymbolOpInterface>(kernel).getName();
  if (target == "host") {
    k.entry = attnrt::hostEntryName(symbol);
    return success();
  }
  auto function = dyn_cast<gpu::GPUFuncOp>(kernel);
  std::optional<ArrayRef<int32_t>> block =
      function ? function.getKnownBlockSize() : std::nullopt;
  auto shared = function ? function->getAttrOfType<IntegerAttr>(
                               attngpu::kDynamicSharedMemoryBytesAttr)
                         : IntegerAttr();
  if (!block || !shared)
    return kernel->emitError() << "GPU kernel " << k.name
                               << " has no known block size or dynamic "
                                  "shared memory";
  k.entry = symbol.str();
  for (int i = 0; i < 3; ++i)
    k.block[i] = (*block)[i];
  k.dynamicSharedMemoryBytes = shared.getInt();
  return describeTensorMaps(function, k);
}

} // namespace

FailureOr<std::vector<pkg::Function>>
attnc::describePrograms(ModuleOp module) {
  std::vector<pkg::Function> functions;
  for (auto program : module.getOps<func::FuncOp>()) {
    if (!program->hasAttr(attnrt::kNumInputsAttr))
      continue;
    FailureOr<pkg::Function> fn = describeProgram(program);
    if (failed(fn))
      return failure();
    functions.push_back(std::move(*fn));
  }
  if (functions.empty())
    return module.emitError() << "the module has no program to package";
  return functions;
}

LogicalResult attnc::describeLaunches(ModuleOp module, StringRef target,
                                      StringRef blob,
                                      std::vector<pkg::Function> &functions) {
  for (pkg::Function &fn : functions) {
    auto program = module.lookupSymbol<func::FuncOp>(fn.name);
    SmallVector<attnrt::LaunchOp> launches(program.getOps<attnrt::LaunchOp>());
    if (launches.size() != fn.kernels.size())
      return program.emitError()
             << "has " << launches.size() << " launches after lowering, "
             << fn.kernels.size() << " before";
    for (auto [launch, k] : llvm::zip_equal(launches, fn.kernels)) {
      k.target = target.str();
      if (std::optional<StringRef> library = launch.getLibrary()) {
        k.library = library->str();
        continue;
      }
      k.blob = blob.str();
      if (launch.getGrid().empty())
        return launch.emitError() << "the launch of " << k.name
                                  << " has no grid: no target lowering mapped "
                                     "its kernel";
      for (Value extent : launch.getGrid()) {
        FailureOr<pkg::GridTerm> term = gridTerm(extent);
        if (failed(term))
          return failure();
        k.grid.push_back({std::move(*term)});
      }
      Operation *kernel =
          SymbolTable::lookupNearestSymbolFrom(launch, launch.getKernelAttr());
      if (failed(describeEntry(kernel, target, k)))
        return failure();
    }
  }
  return success();
}
