//===- DeriveTrainStep.cpp - A training step from a loss function ---------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// For a loss function @f marked `attn.train` and its backward @f_bwd, emits
//
//   func.func @f_step(<f's data arguments>, %params, %m, %v, %lr, %step,
//                     %loss_scale)
//       -> (loss, grad_norm, new_params, new_m, new_v)
//
// whose body is @f's and @f_bwd's (the loss's cotangent is the loss scale),
// the gradients' global norm, and AdamW on every parameter; and the same
// step split for gradient accumulation over micro-batches:
//
//   func.func @f_accumulate(<f's data arguments>, %params, %grad,
//                           %loss_scale) -> (loss, new_grad)
//   func.func @f_apply(%params, %m, %v, %grad, %lr, %step, %loss_scale)
//       -> (grad_norm, new_params, new_m, new_v)
//
// and the forward part alone, the loss at the current weights (of a
// validation batch):
//
//   func.func @f_eval(<f's data arguments>, %params) -> loss
//
// The training state is flat: params (the f32 masters), m, v and grad are
// each one rank-1 f32 tensor holding every parameter in turn (matrices,
// which take weight decay, first), as the functions' `attn.segments` say;
// a state larger than one tensor may be (2^31 - 1 elements, the largest
// extent) is split into chunks of whole parameters, each its own tensors.
// The forward reads each parameter as a view of params (cast once to the
// model's type), the backward writes each gradient into its place in one
// flat gradient, and the norm and AdamW are a few kernels over all
// parameters at once rather than some per parameter. The scalars are
// rank-0 inputs broadcast into element kernels, so one package runs every
// step of a schedule.
//
//===----------------------------------------------------------------------===//

#include "attnc/package/Package.h"
#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <limits>
#include <numeric>

namespace attnc {
#define GEN_PASS_DEF_ATTNDERIVETRAINSTEP
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

constexpr StringLiteral kTrainAttrName = "attn.train";

/// AdamW's constants, gradient clipping and the compute type, from the
/// `attn.train` dictionary; the defaults are torch.optim.AdamW's, with no
/// clipping, computing in the model's own types.
struct TrainOptions {
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8, weightDecay = 0.01;
  /// The largest global gradient norm; 0: no clipping.
  double maxGradNorm = 0;
  /// f16 or bf16: the model's other 16-bit float type becomes this one in
  /// the step (mixed precision as an option of the step); null: none.
  Type compute;
  /// Whether the step recomputes the forward values its backward recomputes
  /// (those the remat policy does not save) instead of keeping them from
  /// its forward part: less memory for more work.
  bool remat = false;
  /// Whether the step's attention gradients sum dq in a fixed order, so that
  /// a run and its resumption are the same bits on a GPU too (atomic sums
  /// are not; on an H100 they made gpt_125m's step 1.9% faster).
  bool deterministic = true;
};

/// Sets the float option `entry` names; an error for an unknown name or a
/// value out of range.
LogicalResult parseNumber(func::FuncOp f, NamedAttribute entry,
                          TrainOptions &options) {
  std::pair<StringRef, double *> fields[] = {
      {"beta1", &options.beta1},
      {"beta2", &options.beta2},
      {"epsilon", &options.epsilon},
      {"weight_decay", &options.weightDecay},
      {"max_grad_norm", &options.maxGradNorm}};
  auto *field = llvm::find_if(
      fields, [&](auto &field) { return field.first == entry.getName(); });
  auto value = dyn_cast<FloatAttr>(entry.getValue());
  if (field == std::end(fields) || !value)
    return f.emitError() << "attn.train: unknown entry or not a float: "
                         << entry.getName().getValue() << " = "
                         << entry.getValue()
                         << " (expected beta1, beta2, epsilon, weight_decay, "
                            "max_grad_norm, compute = f16 or bf16, remat or "
                            "deterministic = true or false)";
  double v = value.getValueAsDouble();
  bool beta = field->first.starts_with("beta");
  bool inRange =
      beta ? v >= 0 && v < 1
           : (field->first == "epsilon" ? v > 0 : v >= 0) && std::isfinite(v);
  if (!inRange)
    return f.emitError() << "attn.train: " << field->first << " = " << v
                         << " is out of range (betas in [0, 1), epsilon > 0, "
                            "weight_decay and max_grad_norm >= 0)";
  *field->second = v;
  return success();
}

FailureOr<TrainOptions> parseTrainOptions(func::FuncOp f) {
  TrainOptions options;
  Attribute attr = f->getAttr(kTrainAttrName);
  if (isa<UnitAttr>(attr))
    return options;
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict)
    return f.emitError() << "expected attn.train to be a unit attribute or a "
                            "dictionary, got "
                         << attr;
  for (NamedAttribute entry : dict) {
    if (entry.getName() == "remat" || entry.getName() == "deterministic") {
      auto flag = dyn_cast<BoolAttr>(entry.getValue());
      if (!flag)
        return f.emitError()
               << "attn.train: " << entry.getName().getValue() << " = "
               << entry.getValue() << " is not true or false";
      (entry.getName() == "remat" ? options.remat : options.deterministic) =
          flag.getValue();
      continue;
    }
    if (entry.getName() != "compute") {
      if (failed(parseNumber(f, entry, options)))
        return failure();
      continue;
    }
    auto type = dyn_cast<TypeAttr>(entry.getValue());
    if (!type || !(type.getValue().isF16() || type.getValue().isBF16()))
      return f.emitError() << "attn.train: compute = " << entry.getValue()
                           << " is not f16 or bf16";
    options.compute = type.getValue();
  }
  return options;
}

/// `attr`, a float constant of `from` elements, as one of `to` (each value
/// rounded to nearest even); other attributes as they are.
Attribute retypeConstant(Attribute attr, Type from, Type to) {
  auto round = [&](APFloat value) {
    bool lost;
    value.convert(cast<FloatType>(to).getFloatSemantics(),
                  APFloat::rmNearestTiesToEven, &lost);
    return value;
  };
  if (auto value = dyn_cast<FloatAttr>(attr); value && value.getType() == from)
    return FloatAttr::get(to, round(value.getValue()));
  auto dense = dyn_cast<DenseFPElementsAttr>(attr);
  if (!dense || dense.getElementType() != from)
    return attr;
  return dense.mapValues(
      to, [&](const APFloat &value) { return round(value).bitcastToAPInt(); });
}

/// Every `from` in `fn` (values, tensors of them, constants, element
/// bodies' roundings) becomes `to`: the step of a bf16 model computing in
/// f16, or back.
void retypeFloats(func::FuncOp fn, Type from, Type to) {
  auto convert = [&](Type type) -> Type {
    if (type == from)
      return to;
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.getElementType() == from ? tensor.clone(to) : type;
  };
  fn.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(convert(arg.getType()));
    for (OpResult result : op->getResults())
      result.setType(convert(result.getType()));
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      constant.setValueAttr(
          cast<TypedAttr>(retypeConstant(constant.getValue(), from, to)));
  });
  Block &entry = fn.getBody().front();
  fn.setType(FunctionType::get(fn.getContext(), entry.getArgumentTypes(),
                               entry.getTerminator()->getOperandTypes()));
}

/// Builds an attn.elementwise of `types` over `inputs` whose body `fn`
/// computes from one f32 per input.
using BodyFn =
    std::function<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;
SmallVector<Value> elementwise(OpBuilder &b, Location loc, TypeRange types,
                               ValueRange inputs, const BodyFn &fn) {
  auto op = attn::ElementwiseOp::create(b, loc, types, inputs,
                                        /*block_size=*/IntegerAttr());
  Block *body = new Block();
  op.getBody().push_back(body);
  for (Value input : inputs)
    body->addArgument(b.getF32Type(), input.getLoc());
  OpBuilder inner = OpBuilder::atBlockEnd(body);
  attn::YieldOp::create(inner, loc, fn(inner, loc, body->getArguments()));
  return SmallVector<Value>(op.getOuts());
}

/// Scalar f32 arithmetic inside an element body.
struct F32 {
  OpBuilder &b;
  Location loc;
  Value c(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value sqrt(Value x) { return math::SqrtOp::create(b, loc, x); }
  Value min(Value x, Value y) {
    return arith::MinimumFOp::create(b, loc, x, y);
  }
  Value select(Value flag, Value x, Value y) {
    Value on =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, flag, c(0.5));
    return arith::SelectOp::create(b, loc, on, x, y);
  }
};

/// A function's arguments or results: names and types, in order.
struct Signature {
  SmallVector<std::string> names;
  SmallVector<Type> types;

  void add(std::string name, Type type) {
    names.push_back(std::move(name));
    types.push_back(type);
  }
};

/// Builds @f_step (one fused step), @f_accumulate (one micro-batch's
/// gradients added to f32 sums) and @f_apply (AdamW from those sums).
class TrainFunctionsBuilder {
public:
  TrainFunctionsBuilder(func::FuncOp forward, func::FuncOp backward,
                        TrainOptions options, int64_t maxFlatElements)
      : forward(forward), backward(backward), options(options),
        maxFlatElements(maxFlatElements), b(forward->getContext()) {}

  /// The four functions, in that order.
  FailureOr<SmallVector<func::FuncOp>> build();

private:
  /// Where a parameter's elements lie in the flat state.
  struct Segment {
    unsigned param;
    unsigned chunk;
    int64_t offset, count;
  };
  /// One tensor of each kind of state: `decayed` elements of matrices, then
  /// the others', `total` in all.
  struct Chunk {
    int64_t decayed = 0, total = 0;
  };

  LogicalResult findParameters();
  LogicalResult checkNames();
  LogicalResult layOut();
  RankedTensorType flatType(unsigned chunk, Type element);
  std::string paramName(unsigned param);
  void addDataInputs(Signature &inputs);
  void addState(Signature &signature, StringRef prefix,
                ArrayRef<StringRef> kinds);
  SmallVector<Value> stateArguments(StringRef kind);
  func::FuncOp createFunction(StringRef suffix, const Signature &inputs,
                              const Signature &outputs);
  Value argument(StringRef name);
  SmallVector<Value> cloneBody(func::FuncOp from, IRMapping &mapping);
  Value parameter(unsigned param,
                  llvm::DenseMap<std::pair<unsigned, Type>, Value> &casts);
  SmallVector<Value> forwardBody(IRMapping &mapping);
  SmallVector<Value> lossAndGradients(Value cotangent);
  SmallVector<Value> flatten(ArrayRef<Value> grads);
  SmallVector<Value> update(ArrayRef<Value> grads, Value lossScale);
  Value sumOfSquares(ArrayRef<Value> grads);
  Value sumOfSquares(Value grad, int64_t total);
  SmallVector<Value> adamw(unsigned chunk, Value grad, int64_t begin,
                           int64_t count, double decay, ValueRange scalars);
  void applyOptions();
  func::FuncOp buildStep();
  func::FuncOp buildAccumulate();
  func::FuncOp buildApply();
  func::FuncOp buildEval();

  func::FuncOp forward, backward, fn;
  TrainOptions options;
  int64_t maxFlatElements;
  OpBuilder b;
  /// The forward arguments that take gradients, in order.
  SmallVector<unsigned> params;
  /// The parameters in the flat state's order: those of rank >= 2 (weight
  /// decay applies) first, then the others, filling the chunks in turn.
  SmallVector<Segment> segments;
  SmallVector<Chunk> chunks;
  /// The names of the arguments of the function being built, and the chunk
  /// of each of its flat state's.
  SmallVector<std::string> argNames;
  llvm::StringMap<unsigned> flatChunks;
};

/// The source name of forward argument `i` ("arg<i>" without one).
std::string argumentName(func::FuncOp f, unsigned i) {
  if (auto name =
          f.getArgAttrOfType<StringAttr>(i, attn::kArgumentNameAttrName))
    return name.str();
  return "arg" + std::to_string(i);
}

/// The parameters are the arguments of static shape the backward returns
/// gradients of (one of dynamic shape is data, as a batch of activations
/// is); the loss is the one result that takes a cotangent.
LogicalResult TrainFunctionsBuilder::findParameters() {
  for (unsigned i = 0; i < backward.getNumResults(); ++i) {
    auto of = backward.getResultAttrOfType<IntegerAttr>(
        i, attn::kGradientOfArgumentAttrName);
    unsigned arg = of ? of.getInt() : i;
    if (cast<RankedTensorType>(forward.getArgumentTypes()[arg])
            .hasStaticShape())
      params.push_back(arg);
  }
  llvm::sort(params);
  if (params.empty())
    return forward.emitError() << "attn.train: no argument of static shape "
                                  "takes a gradient, so nothing is trained";
  SmallVector<int64_t> cotangentsOf;
  for (unsigned i = 0; i < backward.getNumArguments(); ++i)
    if (auto of = backward.getArgAttrOfType<IntegerAttr>(
            i, attn::kCotangentOfResultAttrName))
      cotangentsOf.push_back(of.getInt());
  auto loss = dyn_cast<RankedTensorType>(
      forward.getNumResults() ? forward.getResultTypes()[0] : Type());
  if (cotangentsOf != SmallVector<int64_t>{0} || !loss || loss.getRank() != 0 ||
      !loss.getElementType().isF32())
    return forward.emitError() << "attn.train needs a function whose one "
                                  "differentiable result, its first, is a "
                                  "tensor<f32> loss";
  return success();
}

/// State `kind` of chunk `chunk`, as the package names it.
std::string stateName(StringRef kind, unsigned chunk) {
  return attnc::pkg::flatStateName(kind.str(), chunk);
}

/// The names the training functions give their own inputs: the flat
/// state's kinds (a name per chunk each), then the scalars.
constexpr StringLiteral kFlatKinds[] = {"params", "m", "v", "grad"};
constexpr StringLiteral kScalarNames[] = {"lr", "step", "loss_scale"};

/// A data input named as a state input would make two inputs of one name.
LogicalResult TrainFunctionsBuilder::checkNames() {
  llvm::StringSet<> stateNames;
  for (StringRef kind : kFlatKinds)
    for (unsigned chunk = 0; chunk < chunks.size(); ++chunk)
      stateNames.insert(stateName(kind, chunk));
  for (StringRef name : kScalarNames)
    stateNames.insert(name);
  for (unsigned i = 0; i < forward.getNumArguments(); ++i)
    if (!llvm::is_contained(params, i) &&
        stateNames.contains(argumentName(forward, i)))
      return forward.emitError()
             << "attn.train: input '" << argumentName(forward, i)
             << "' has the name of an input of the training step (params, "
                "m, v, grad, lr, step, loss_scale, or a chunk's params_<c>, "
                "...); rename it";
  return success();
}

/// Orders the parameters in the flat state, matrices (decayed) first,
/// starting a chunk where the next parameter would make one larger than
/// maxFlatElements; an error for a parameter larger than that.
LogicalResult TrainFunctionsBuilder::layOut() {
  chunks.emplace_back();
  for (bool matrices : {true, false})
    for (unsigned i : params) {
      auto type = cast<RankedTensorType>(forward.getArgumentTypes()[i]);
      if ((type.getRank() >= 2) != matrices)
        continue;
      int64_t count = type.getNumElements();
      if (count > maxFlatElements)
        return forward.emitError()
               << "attn.train: parameter '" << paramName(i) << "' has " << count
               << " elements, more than a flat state tensor holds ("
               << maxFlatElements << ")";
      if (chunks.back().total + count > maxFlatElements)
        chunks.emplace_back();
      Chunk &chunk = chunks.back();
      segments.push_back({i, unsigned(chunks.size() - 1), chunk.total, count});
      chunk.total += count;
      if (matrices)
        chunk.decayed = chunk.total;
    }
  return success();
}

RankedTensorType TrainFunctionsBuilder::flatType(unsigned chunk, Type element) {
  return RankedTensorType::get({chunks[chunk].total}, element);
}

std::string TrainFunctionsBuilder::paramName(unsigned param) {
  return argumentName(forward, param);
}

/// The forward's arguments that are not parameters.
void TrainFunctionsBuilder::addDataInputs(Signature &inputs) {
  for (unsigned i = 0; i < forward.getNumArguments(); ++i)
    if (!llvm::is_contained(params, i))
      inputs.add(argumentName(forward, i), forward.getArgumentTypes()[i]);
}

/// A flat f32 tensor per kind and chunk, "<prefix><kind>" of chunk 0, then
/// "<prefix><kind>_1" and so on.
void TrainFunctionsBuilder::addState(Signature &signature, StringRef prefix,
                                     ArrayRef<StringRef> kinds) {
  for (StringRef kind : kinds)
    for (unsigned chunk = 0; chunk < chunks.size(); ++chunk) {
      std::string name = prefix.str() + stateName(kind, chunk);
      flatChunks[name] = chunk;
      signature.add(name, flatType(chunk, b.getF32Type()));
    }
}

/// The function's arguments of state `kind`, a chunk each.
SmallVector<Value> TrainFunctionsBuilder::stateArguments(StringRef kind) {
  SmallVector<Value> values;
  for (unsigned chunk = 0; chunk < chunks.size(); ++chunk)
    values.push_back(argument(stateName(kind, chunk)));
  return values;
}

func::FuncOp TrainFunctionsBuilder::createFunction(StringRef suffix,
                                                   const Signature &inputs,
                                                   const Signature &outputs) {
  MLIRContext *context = forward.getContext();
  b.setInsertionPointToEnd(forward->getBlock());
  fn = func::FuncOp::create(
      b, forward.getLoc(), (forward.getName() + suffix).str(),
      FunctionType::get(context, inputs.types, outputs.types));
  // attn.flat: the chunk where there are several.
  auto flatMark = [&](StringRef name) -> Attribute {
    auto chunk = flatChunks.find(name);
    if (chunk == flatChunks.end())
      return {};
    if (chunks.size() == 1)
      return b.getUnitAttr();
    return b.getI64IntegerAttr(chunk->second);
  };
  for (auto [i, name] : llvm::enumerate(inputs.names)) {
    fn.setArgAttr(i, attn::kArgumentNameAttrName, b.getStringAttr(name));
    if (Attribute mark = flatMark(name))
      fn.setArgAttr(i, attn::kFlatAttrName, mark);
  }
  for (auto [i, name] : llvm::enumerate(outputs.names)) {
    fn.setResultAttr(i, attn::kArgumentNameAttrName, b.getStringAttr(name));
    Attribute mark = flatMark(name);
    if (!mark)
      continue;
    fn.setResultAttr(i, attn::kFlatAttrName, mark);
    // The new state may overwrite the state it is computed from: the update
    // kernels read each element before writing it, after every other read.
    StringRef updated = StringRef(name).drop_front(strlen("new_"));
    if (llvm::is_contained(inputs.names, updated))
      fn.setResultAttr(i, attn::kUpdatesAttrName, b.getStringAttr(updated));
  }
  SmallVector<Attribute> parts;
  for (const Segment &segment : segments) {
    SmallVector<NamedAttribute> fields = {
        b.getNamedAttr("name", b.getStringAttr(paramName(segment.param))),
        b.getNamedAttr("shape",
                       b.getDenseI64ArrayAttr(
                           cast<RankedTensorType>(
                               forward.getArgumentTypes()[segment.param])
                               .getShape())),
        b.getNamedAttr("offset", b.getI64IntegerAttr(segment.offset))};
    if (chunks.size() > 1)
      fields.push_back(
          b.getNamedAttr("chunk", b.getI64IntegerAttr(segment.chunk)));
    parts.push_back(b.getDictionaryAttr(fields));
  }
  fn->setAttr(attn::kSegmentsAttrName, b.getArrayAttr(parts));
  argNames = inputs.names;
  b.setInsertionPointToStart(fn.addEntryBlock());
  return fn;
}

Value TrainFunctionsBuilder::argument(StringRef name) {
  return fn.getArgument(llvm::find(argNames, name) - argNames.begin());
}

/// Clones `from`'s body at the builder; returns the values it returns.
SmallVector<Value> TrainFunctionsBuilder::cloneBody(func::FuncOp from,
                                                    IRMapping &mapping) {
  for (Operation &op : from.getBody().front().without_terminator())
    b.clone(op, mapping);
  return llvm::map_to_vector(
      from.getBody().front().getTerminator()->getOperands(),
      [&](Value v) { return mapping.lookupOrDefault(v); });
}

/// The reassociation of every dim of a rank-`rank` tensor into one: a
/// parameter's shape to or from its elements in the flat state.
static SmallVector<ReassociationIndices> allDims(int64_t rank) {
  SmallVector<ReassociationIndices> all(1);
  for (int64_t d = 0; d < rank; ++d)
    all[0].push_back(d);
  return all;
}

/// Parameter `param` as the forward reads it: its elements of its chunk of
/// params, cast to its type (one cast of the chunk per type, kept in
/// `casts`; f32 parameters are views of params itself).
Value TrainFunctionsBuilder::parameter(
    unsigned param, llvm::DenseMap<std::pair<unsigned, Type>, Value> &casts) {
  Location loc = forward.getLoc();
  auto type = cast<RankedTensorType>(forward.getArgumentTypes()[param]);
  const Segment &segment = *llvm::find_if(
      segments, [&](const Segment &s) { return s.param == param; });
  Value masters = argument(stateName("params", segment.chunk));
  Value &flat = casts[{segment.chunk, type.getElementType()}];
  if (!flat)
    flat = type.getElementType().isF32()
               ? masters
               : attn::CastOp::create(
                     b, loc, flatType(segment.chunk, type.getElementType()),
                     masters, FloatAttr(), IntegerAttr(), IntegerAttr());
  Value elements = tensor::ExtractSliceOp::create(
      b, loc, flat, ArrayRef<OpFoldResult>{b.getIndexAttr(segment.offset)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(segment.count)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  if (type.getRank() == 1)
    return elements;
  return tensor::ExpandShapeOp::create(b, loc, type, elements,
                                       allDims(type.getRank()));
}

/// The forward's body on the function's data arguments and the parameters
/// (`mapping` maps the forward's values to the clones); returns its
/// results.
SmallVector<Value> TrainFunctionsBuilder::forwardBody(IRMapping &mapping) {
  llvm::DenseMap<std::pair<unsigned, Type>, Value> casts;
  for (unsigned i = 0; i < forward.getNumArguments(); ++i)
    mapping.map(forward.getArgument(i),
                llvm::is_contained(params, i)
                    ? parameter(i, casts)
                    : argument(argumentName(forward, i)));
  return cloneBody(forward, mapping);
}

/// The forward's and backward's bodies on the function's data arguments and
/// the parameters, with `cotangent` as the loss's: the loss, then each
/// parameter's gradient.
SmallVector<Value> TrainFunctionsBuilder::lossAndGradients(Value cotangent) {
  IRMapping mapping;
  SmallVector<Value> results = forwardBody(mapping);
  unsigned numArgs = forward.getNumArguments();
  for (unsigned i = 0; i < backward.getNumArguments(); ++i)
    mapping.map(backward.getArgument(i),
                i < numArgs ? mapping.lookup(forward.getArgument(i))
                : i < numArgs + results.size() ? results[i - numArgs]
                                               : cotangent);
  SmallVector<Value> backwardResults = cloneBody(backward, mapping);
  // Without remat the backward's recomputed values are the forward part's
  // own: unmarked, CSE merges them.
  if (!options.remat)
    fn.walk([](Operation *op) { op->removeAttr(attn::kRecomputeAttrName); });
  SmallVector<Value> lossAndGrads(params.size() + 1);
  lossAndGrads[0] = results[0];
  for (auto [i, grad] : llvm::enumerate(backwardResults)) {
    auto of = backward.getResultAttrOfType<IntegerAttr>(
        i, attn::kGradientOfArgumentAttrName);
    auto *param = llvm::find(params, of ? of.getInt() : i);
    if (param != params.end())
      lossAndGrads[1 + (param - params.begin())] = grad;
  }
  return lossAndGrads;
}

/// The gradients (in the order of `params`) as one flat tensor a chunk in
/// the state's order, each written in its place: of their element type, or
/// f32 where they differ.
SmallVector<Value> TrainFunctionsBuilder::flatten(ArrayRef<Value> grads) {
  Location loc = forward.getLoc();
  Type element = cast<RankedTensorType>(grads[0].getType()).getElementType();
  if (llvm::any_of(grads, [&](Value grad) {
        return cast<RankedTensorType>(grad.getType()).getElementType() !=
               element;
      }))
    element = b.getF32Type();
  SmallVector<SmallVector<Value>> parts(chunks.size());
  for (const Segment &segment : segments) {
    Value grad = grads[llvm::find(params, segment.param) - params.begin()];
    auto type = cast<RankedTensorType>(grad.getType());
    if (type.getElementType() != element)
      grad = attn::CastOp::create(b, loc, type.clone(element), grad,
                                  FloatAttr(), IntegerAttr(), IntegerAttr());
    if (type.getRank() > 1) {
      grad = tensor::CollapseShapeOp::create(b, loc, grad,
                                             allDims(type.getRank()));
    }
    parts[segment.chunk].push_back(grad);
  }
  return llvm::map_to_vector(parts, [&](ArrayRef<Value> chunk) -> Value {
    if (chunk.size() == 1)
      return chunk[0];
    return tensor::ConcatOp::create(b, loc, 0, chunk);
  });
}

/// The gradient norm and AdamW's update of every parameter from the flat
/// gradient's chunks `grads` (scaled by `lossScale`): the norm, then the new
/// masters, first moments and second moments, a chunk each.
SmallVector<Value> TrainFunctionsBuilder::update(ArrayRef<Value> grads,
                                                 Value lossScale) {
  Location loc = forward.getLoc();
  auto scalar = RankedTensorType::get({}, b.getF32Type());
  Value inverseScale =
      elementwise(b, loc, scalar, lossScale,
                  [](OpBuilder &b, Location loc, ValueRange args) {
                    F32 x{b, loc};
                    return SmallVector<Value>{x.div(x.c(1), args[0])};
                  })[0];
  TrainOptions o = options;
  SmallVector<Value> norm = elementwise(
      b, loc, SmallVector<Type>(5, scalar),
      {sumOfSquares(grads), inverseScale, argument("step")},
      [o](OpBuilder &b, Location loc, ValueRange args) {
        F32 x{b, loc};
        // The norm of the unscaled gradient: its elements are inverseScale
        // times the flat gradient's.
        Value norm = x.mul(x.sqrt(args[0]), args[1]);
        double maxNorm = o.maxGradNorm;
        // torch.nn.utils.clip_grad_norm_'s factor.
        Value clip =
            maxNorm > 0
                ? x.min(x.c(1), x.div(x.c(maxNorm), x.add(norm, x.c(1e-6))))
                : x.c(1);
        Value finite =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, norm,
                                  x.c(std::numeric_limits<double>::infinity()));
        Value apply = arith::SelectOp::create(b, loc, finite, x.c(1), x.c(0));
        // 1 - beta^t, for step t (from 1).
        auto correction = [&](double beta) {
          return x.sub(x.c(1),
                       math::PowFOp::create(b, loc, x.c(beta), args[2]));
        };
        return SmallVector<Value>{norm, x.mul(args[1], clip), apply,
                                  correction(o.beta1), correction(o.beta2)};
      });
  SmallVector<Value> scalars = {argument("lr"), norm[1], norm[2], norm[3],
                                norm[4]};
  // Per chunk, decay on the matrices' elements, none on the rest: one
  // kernel each.
  SmallVector<SmallVector<Value>> newState(3);
  for (auto [chunk, grad] : llvm::enumerate(grads)) {
    auto [decayed, total] = chunks[chunk];
    SmallVector<SmallVector<Value>> updates;
    if (decayed > 0)
      updates.push_back(
          adamw(chunk, grad, 0, decayed, options.weightDecay, scalars));
    if (decayed < total)
      updates.push_back(
          adamw(chunk, grad, decayed, total - decayed, 0, scalars));
    for (unsigned k = 0; k < 3; ++k) {
      SmallVector<Value> parts = llvm::map_to_vector(
          updates, [&](ArrayRef<Value> update) { return update[k]; });
      newState[k].push_back(
          parts.size() == 1
              ? parts[0]
              : tensor::ConcatOp::create(b, forward.getLoc(), 0, parts)
                    .getResult());
    }
  }
  SmallVector<Value> outputs = {norm[0]};
  for (ArrayRef<Value> kind : newState)
    llvm::append_range(outputs, kind);
  return outputs;
}

/// @f_step(f's data inputs, params, m, v, lr, step, loss_scale)
///     -> (loss, grad_norm, new_params, new_m, new_v)
func::FuncOp TrainFunctionsBuilder::buildStep() {
  auto scalar = RankedTensorType::get({}, b.getF32Type());
  Signature inputs, outputs;
  addDataInputs(inputs);
  addState(inputs, "", {"params", "m", "v"});
  for (StringRef name : {"lr", "step", "loss_scale"})
    inputs.add(name.str(), scalar);
  outputs.add("loss", scalar);
  outputs.add("grad_norm", scalar);
  addState(outputs, "new_", {"params", "m", "v"});
  createFunction("_step", inputs, outputs);
  SmallVector<Value> lossAndGrads = lossAndGradients(argument("loss_scale"));
  SmallVector<Value> results = {lossAndGrads[0]};
  llvm::append_range(results,
                     update(flatten(ArrayRef(lossAndGrads).drop_front()),
                            argument("loss_scale")));
  func::ReturnOp::create(b, forward.getLoc(), results);
  applyOptions();
  return fn;
}

/// @f_accumulate(f's data inputs, params, grad, loss_scale)
///     -> (loss, new_grad): the gradients of one micro-batch, its loss's
/// cotangent `loss_scale` (the scale over the micro-batch count), added to
/// the f32 sums in grad.
func::FuncOp TrainFunctionsBuilder::buildAccumulate() {
  auto scalar = RankedTensorType::get({}, b.getF32Type());
  Signature inputs, outputs;
  addDataInputs(inputs);
  addState(inputs, "", {"params", "grad"});
  inputs.add("loss_scale", scalar);
  outputs.add("loss", scalar);
  addState(outputs, "new_", {"grad"});
  createFunction("_accumulate", inputs, outputs);
  SmallVector<Value> lossAndGrads = lossAndGradients(argument("loss_scale"));
  SmallVector<Value> results = {lossAndGrads[0]};
  SmallVector<Value> grads = flatten(ArrayRef(lossAndGrads).drop_front());
  for (auto [sum, grad] : llvm::zip_equal(stateArguments("grad"), grads))
    results.push_back(elementwise(
        b, forward.getLoc(), sum.getType(), {sum, grad},
        [](OpBuilder &b, Location loc, ValueRange args) {
          return SmallVector<Value>{F32{b, loc}.add(args[0], args[1])};
        })[0]);
  func::ReturnOp::create(b, forward.getLoc(), results);
  applyOptions();
  return fn;
}

/// @f_apply(params, m, v, grad, lr, step, loss_scale)
///     -> (grad_norm, new_params, new_m, new_v): @f_step's update from
/// summed gradients.
func::FuncOp TrainFunctionsBuilder::buildApply() {
  auto scalar = RankedTensorType::get({}, b.getF32Type());
  Signature inputs, outputs;
  addState(inputs, "", {"params", "m", "v", "grad"});
  for (StringRef name : {"lr", "step", "loss_scale"})
    inputs.add(name.str(), scalar);
  outputs.add("grad_norm", scalar);
  addState(outputs, "new_", {"params", "m", "v"});
  createFunction("_apply", inputs, outputs);
  func::ReturnOp::create(
      b, forward.getLoc(),
      update(stateArguments("grad"), argument("loss_scale")));
  return fn;
}

/// @f_eval(f's data inputs, params) -> loss: the forward part of the step
/// alone, the loss of a batch at the current weights (a validation batch)
/// without the backward's work.
func::FuncOp TrainFunctionsBuilder::buildEval() {
  Signature inputs, outputs;
  addDataInputs(inputs);
  addState(inputs, "", {"params"});
  outputs.add("loss", RankedTensorType::get({}, b.getF32Type()));
  createFunction("_eval", inputs, outputs);
  IRMapping mapping;
  Value loss = forwardBody(mapping)[0];
  func::ReturnOp::create(b, forward.getLoc(), loss);
  applyOptions();
  return fn;
}

/// The step's options that apply to the whole function: its attention
/// gradients made deterministic, and with a compute type, its other 16-bit
/// floats become it.
void TrainFunctionsBuilder::applyOptions() {
  if (options.deterministic)
    fn.walk([](attn::AttentionGradOp grad) { grad.setDeterministic(true); });
  if (!options.compute)
    return;
  MLIRContext *context = fn.getContext();
  Type other = options.compute.isF16() ? Type(BFloat16Type::get(context))
                                       : Type(Float16Type::get(context));
  retypeFloats(fn, other, options.compute);
}

FailureOr<SmallVector<func::FuncOp>> TrainFunctionsBuilder::build() {
  if (failed(findParameters()) || failed(layOut()) || failed(checkNames()))
    return failure();
  return SmallVector<func::FuncOp>{buildStep(), buildAccumulate(), buildApply(),
                                   buildEval()};
}

/// The largest divisor of `n` up to 8192: the columns of a flat value's
/// row sums (each block of sum_rows takes 32 columns, so wide rows keep
/// many blocks busy).
static int64_t sumColumns(int64_t n) {
  for (int64_t columns = std::min<int64_t>(n, 8192); columns > 1; --columns)
    if (n % columns == 0)
      return columns;
  return 1;
}

/// sum over the flat gradient's elements g of g^2, in f32: each chunk's,
/// then their sum in chunk order.
Value TrainFunctionsBuilder::sumOfSquares(ArrayRef<Value> grads) {
  Value sum = sumOfSquares(grads[0], chunks[0].total);
  for (unsigned chunk = 1; chunk < grads.size(); ++chunk)
    sum = elementwise(
        b, forward.getLoc(), sum.getType(),
        {sum, sumOfSquares(grads[chunk], chunks[chunk].total)},
        [](OpBuilder &b, Location loc, ValueRange args) {
          return SmallVector<Value>{F32{b, loc}.add(args[0], args[1])};
        })[0];
  return sum;
}

/// sum over the `total` elements g of one flat gradient of g^2, in f32: the
/// gradient as rows of many columns, the squares summed over the rows as
/// they are read (never held), then the column sums summed (sums in a
/// fixed order, so the norm is the same bits on every run).
Value TrainFunctionsBuilder::sumOfSquares(Value grad, int64_t total) {
  Location loc = forward.getLoc();
  auto f32 = b.getF32Type();
  int64_t columns = sumColumns(total);
  if (columns == 1 || columns == total)
    return attn::SumRowsOp::create(b, loc, RankedTensorType::get({}, f32), grad,
                                   b.getUnitAttr(),
                                   /*block_size=*/IntegerAttr());
  auto rows = RankedTensorType::get(
      {total / columns, columns},
      cast<RankedTensorType>(grad.getType()).getElementType());
  Value matrix = tensor::ExpandShapeOp::create(
      b, loc, rows, grad, SmallVector<ReassociationIndices>{{0, 1}});
  Value sums =
      attn::SumRowsOp::create(b, loc, RankedTensorType::get({columns}, f32),
                              matrix, b.getUnitAttr(), IntegerAttr());
  return attn::SumRowsOp::create(b, loc, RankedTensorType::get({}, f32), sums,
                                 UnitAttr(), /*block_size=*/IntegerAttr());
}

/// AdamW (torch.optim.AdamW's update, in f32) on the `count` elements of
/// chunk `chunk` of the flat state from `begin` (`grad` is that chunk's
/// gradient), with weight decay `decay`: scalars are lr,
/// the gradient's factor (the inverse loss scale times the clipping
/// factor), whether to apply the step (1) or keep everything (0, a
/// gradient that is not finite) and the two bias corrections.
SmallVector<Value> TrainFunctionsBuilder::adamw(unsigned chunk, Value grad,
                                                int64_t begin, int64_t count,
                                                double decay,
                                                ValueRange scalars) {
  Location loc = forward.getLoc();
  auto part = [&](Value flat) -> Value {
    if (count == chunks[chunk].total)
      return flat;
    return tensor::ExtractSliceOp::create(
        b, loc, flat, ArrayRef<OpFoldResult>{b.getIndexAttr(begin)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(count)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  };
  SmallVector<Value> inputs = {part(grad),
                               part(argument(stateName("params", chunk))),
                               part(argument(stateName("m", chunk))),
                               part(argument(stateName("v", chunk)))};
  llvm::append_range(inputs, scalars);
  TrainOptions o = options;
  Type type = inputs[1].getType();
  return elementwise(
      b, loc, {type, type, type}, inputs,
      [o, decay](OpBuilder &b, Location loc, ValueRange args) {
        F32 x{b, loc};
        Value g = args[0], p = args[1], m = args[2], v = args[3], lr = args[4],
              factor = args[5], apply = args[6], bc1 = args[7], bc2 = args[8];
        g = x.mul(g, factor);
        Value m1 = x.add(x.mul(x.c(o.beta1), m), x.mul(x.c(1 - o.beta1), g));
        Value v1 =
            x.add(x.mul(x.c(o.beta2), v), x.mul(x.c(1 - o.beta2), x.mul(g, g)));
        Value decayed = x.mul(p, x.sub(x.c(1), x.mul(lr, x.c(decay))));
        Value denom = x.add(x.div(x.sqrt(v1), x.sqrt(bc2)), x.c(o.epsilon));
        Value p1 = x.sub(decayed, x.mul(x.div(lr, bc1), x.div(m1, denom)));
        return SmallVector<Value>{x.select(apply, p1, p),
                                  x.select(apply, m1, m),
                                  x.select(apply, v1, v)};
      });
}

/// The backward function derived for `forward`, if any.
func::FuncOp backwardOf(ModuleOp module, func::FuncOp forward) {
  for (auto func : module.getOps<func::FuncOp>())
    if (auto of =
            func->getAttrOfType<FlatSymbolRefAttr>(attn::kGradientOfAttrName);
        of && of.getValue() == forward.getName())
      return func;
  return {};
}

struct AttnDeriveTrainStepPass
    : attnc::impl::AttnDeriveTrainStepBase<AttnDeriveTrainStepPass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t maxFlat = maxFlatElements;
    if (maxFlat < 1 || maxFlat > attn::kMaxExtent) {
      getOperation().emitError()
          << "attn-derive-train-step: max-flat-elements = " << maxFlat
          << " is outside [1, " << attn::kMaxExtent << "]";
      return signalPassFailure();
    }
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> marked;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(kTrainAttrName))
        marked.push_back(func);
    SymbolTable symbols(module);
    for (func::FuncOp forward : marked) {
      FailureOr<TrainOptions> options = parseTrainOptions(forward);
      if (failed(options))
        return signalPassFailure();
      forward->removeAttr(kTrainAttrName);
      func::FuncOp backward = backwardOf(module, forward);
      if (!backward) {
        forward.emitError() << "attn.train needs the backward function: "
                               "mark the function attn.backward too";
        return signalPassFailure();
      }
      for (StringRef suffix : {"_step", "_accumulate", "_apply", "_eval"}) {
        std::string name = (forward.getName() + suffix).str();
        if (symbols.lookup(name)) {
          forward.emitError() << "cannot derive '" << name
                              << "': the module already has a symbol of "
                                 "that name";
          return signalPassFailure();
        }
      }
      FailureOr<SmallVector<func::FuncOp>> functions =
          TrainFunctionsBuilder(forward, backward, *options, maxFlat).build();
      if (failed(functions))
        return signalPassFailure();
      for (func::FuncOp function : *functions)
        symbols.insert(function);
    }
  }
};

} // namespace
