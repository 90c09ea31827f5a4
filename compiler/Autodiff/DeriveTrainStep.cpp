//===- DeriveTrainStep.cpp - A training step from a loss function ---------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// For a loss function @f marked `attn.train` and its backward @f_bwd, emits
//
//   func.func @f_step(<f's arguments, each parameter as its f32 master>,
//                     m_<p>..., v_<p>..., %lr, %step, %loss_scale)
//       -> (loss, grad_norm, new_<p>..., new_m_<p>..., new_v_<p>...)
//
// whose body is @f's and @f_bwd's (the loss's cotangent is the loss scale),
// the gradients' global norm, and AdamW on every parameter; and the same
// step split for gradient accumulation over micro-batches:
//
//   func.func @f_accumulate(<f's arguments>, grad_<p>..., %loss_scale)
//       -> (loss, new_grad_<p>...)
//   func.func @f_apply(<p>..., m_<p>..., v_<p>..., grad_<p>..., %lr, %step,
//                      %loss_scale)
//       -> (grad_norm, new_<p>..., new_m_<p>..., new_v_<p>...)
//
// The scalars are rank-0 inputs broadcast into element kernels, so one
// package runs every step of a schedule.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

#include <functional>
#include <limits>

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
                            "max_grad_norm, or compute = f16 or bf16)";
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
                        TrainOptions options)
      : forward(forward), backward(backward), options(options),
        b(forward->getContext()) {}

  /// The three functions, in that order.
  FailureOr<SmallVector<func::FuncOp>> build();

private:
  LogicalResult findParameters();
  RankedTensorType masterType(unsigned param);
  std::string paramName(unsigned param);
  void addForwardInputs(Signature &inputs);
  void addState(Signature &signature, StringRef prefix,
                ArrayRef<StringRef> kinds);
  func::FuncOp createFunction(StringRef suffix, const Signature &inputs,
                              const Signature &outputs);
  Value argument(StringRef name);
  SmallVector<Value> cloneBody(func::FuncOp from, IRMapping &mapping);
  SmallVector<Value> lossAndGradients(Value cotangent);
  SmallVector<Value> update(ArrayRef<Value> grads, Value lossScale);
  Value squaredNorm(ArrayRef<Value> grads, Value inverseScale);
  SmallVector<Value> adamw(unsigned param, Value grad, ValueRange scalars);
  void retypeCompute();
  func::FuncOp buildStep();
  func::FuncOp buildAccumulate();
  func::FuncOp buildApply();

  func::FuncOp forward, backward, fn;
  TrainOptions options;
  OpBuilder b;
  /// The forward arguments that take gradients, in order.
  SmallVector<unsigned> params;
  /// The names of the arguments of the function being built.
  SmallVector<std::string> argNames;
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

RankedTensorType TrainFunctionsBuilder::masterType(unsigned param) {
  return RankedTensorType::get(
      cast<RankedTensorType>(forward.getArgumentTypes()[param]).getShape(),
      Float32Type::get(forward.getContext()));
}

std::string TrainFunctionsBuilder::paramName(unsigned param) {
  return argumentName(forward, param);
}

/// The forward's arguments, each parameter as its f32 master.
void TrainFunctionsBuilder::addForwardInputs(Signature &inputs) {
  for (unsigned i = 0; i < forward.getNumArguments(); ++i)
    inputs.add(argumentName(forward, i), llvm::is_contained(params, i)
                                             ? masterType(i)
                                             : forward.getArgumentTypes()[i]);
}

/// An f32 tensor per parameter and kind: "<prefix><kind><p>", kinds in
/// order, parameters within each.
void TrainFunctionsBuilder::addState(Signature &signature, StringRef prefix,
                                     ArrayRef<StringRef> kinds) {
  for (StringRef kind : kinds)
    for (unsigned i : params)
      signature.add((prefix + kind + paramName(i)).str(), masterType(i));
}

func::FuncOp TrainFunctionsBuilder::createFunction(StringRef suffix,
                                                   const Signature &inputs,
                                                   const Signature &outputs) {
  MLIRContext *context = forward.getContext();
  b.setInsertionPointToEnd(forward->getBlock());
  fn = func::FuncOp::create(
      b, forward.getLoc(), (forward.getName() + suffix).str(),
      FunctionType::get(context, inputs.types, outputs.types));
  for (auto [i, name] : llvm::enumerate(inputs.names))
    fn.setArgAttr(i, attn::kArgumentNameAttrName, b.getStringAttr(name));
  for (auto [i, name] : llvm::enumerate(outputs.names))
    fn.setResultAttr(i, attn::kArgumentNameAttrName, b.getStringAttr(name));
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

/// The forward's and backward's bodies on the function's first arguments
/// (masters cast to the parameters' types), with `cotangent` as the loss's:
/// the loss, then each parameter's gradient.
SmallVector<Value> TrainFunctionsBuilder::lossAndGradients(Value cotangent) {
  Location loc = forward.getLoc();
  IRMapping mapping;
  for (unsigned i = 0; i < forward.getNumArguments(); ++i) {
    Value arg = fn.getArgument(i);
    Type type = forward.getArgumentTypes()[i];
    if (arg.getType() != type)
      arg = attn::CastOp::create(b, loc, type, arg, FloatAttr(), IntegerAttr(),
                                 IntegerAttr());
    mapping.map(forward.getArgument(i), arg);
  }
  SmallVector<Value> results = cloneBody(forward, mapping);
  unsigned numArgs = forward.getNumArguments();
  for (unsigned i = 0; i < backward.getNumArguments(); ++i)
    mapping.map(backward.getArgument(i),
                i < numArgs ? mapping.lookup(forward.getArgument(i))
                : i < numArgs + results.size() ? results[i - numArgs]
                                               : cotangent);
  SmallVector<Value> backwardResults = cloneBody(backward, mapping);
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

/// The gradient norm and AdamW's update of every parameter from `grads`
/// (scaled by `lossScale`): the norm, then the new masters, first moments
/// and second moments.
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
      {squaredNorm(grads, inverseScale), inverseScale, argument("step")},
      [o](OpBuilder &b, Location loc, ValueRange args) {
        F32 x{b, loc};
        Value norm = x.sqrt(args[0]);
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
  SmallVector<SmallVector<Value>> updates;
  for (auto [param, grad] : llvm::zip(params, grads))
    updates.push_back(adamw(param, grad, scalars));
  SmallVector<Value> outputs = {norm[0]};
  for (unsigned k = 0; k < 3; ++k)
    for (const SmallVector<Value> &update : updates)
      outputs.push_back(update[k]);
  return outputs;
}

/// @f_step(f's inputs, m_, v_, lr, step, loss_scale)
///     -> (loss, grad_norm, new_, new_m_, new_v_)
func::FuncOp TrainFunctionsBuilder::buildStep() {
  auto scalar = RankedTensorType::get({}, b.getF32Type());
  Signature inputs, outputs;
  addForwardInputs(inputs);
  addState(inputs, "", {"m_", "v_"});
  for (StringRef name : {"lr", "step", "loss_scale"})
    inputs.add(name.str(), scalar);
  outputs.add("loss", scalar);
  outputs.add("grad_norm", scalar);
  addState(outputs, "new_", {"", "m_", "v_"});
  createFunction("_step", inputs, outputs);
  SmallVector<Value> lossAndGrads = lossAndGradients(argument("loss_scale"));
  SmallVector<Value> results = {lossAndGrads[0]};
  llvm::append_range(results, update(ArrayRef(lossAndGrads).drop_front(),
                                     argument("loss_scale")));
  func::ReturnOp::create(b, forward.getLoc(), results);
  retypeCompute();
  return fn;
}

/// @f_accumulate(f's inputs, grad_, loss_scale) -> (loss, new_grad_): the
/// gradients of one micro-batch, its loss's cotangent `loss_scale` (the
/// scale over the micro-batch count), added to the f32 sums grad_<p>.
func::FuncOp TrainFunctionsBuilder::buildAccumulate() {
  auto scalar = RankedTensorType::get({}, b.getF32Type());
  Signature inputs, outputs;
  addForwardInputs(inputs);
  addState(inputs, "", {"grad_"});
  inputs.add("loss_scale", scalar);
  outputs.add("loss", scalar);
  addState(outputs, "new_", {"grad_"});
  createFunction("_accumulate", inputs, outputs);
  SmallVector<Value> lossAndGrads = lossAndGradients(argument("loss_scale"));
  SmallVector<Value> results = {lossAndGrads[0]};
  for (auto [param, grad] :
       llvm::zip(params, ArrayRef(lossAndGrads).drop_front())) {
    Value sum = argument("grad_" + paramName(param));
    results.push_back(elementwise(
        b, forward.getLoc(), sum.getType(), {sum, grad},
        [](OpBuilder &b, Location loc, ValueRange args) {
          return SmallVector<Value>{F32{b, loc}.add(args[0], args[1])};
        })[0]);
  }
  func::ReturnOp::create(b, forward.getLoc(), results);
  retypeCompute();
  return fn;
}

/// @f_apply(masters, m_, v_, grad_, lr, step, loss_scale)
///     -> (grad_norm, new_, new_m_, new_v_): @f_step's update from summed
/// gradients.
func::FuncOp TrainFunctionsBuilder::buildApply() {
  auto scalar = RankedTensorType::get({}, b.getF32Type());
  Signature inputs, outputs;
  addState(inputs, "", {"", "m_", "v_", "grad_"});
  for (StringRef name : {"lr", "step", "loss_scale"})
    inputs.add(name.str(), scalar);
  outputs.add("grad_norm", scalar);
  addState(outputs, "new_", {"", "m_", "v_"});
  createFunction("_apply", inputs, outputs);
  SmallVector<Value> grads = llvm::map_to_vector(
      params, [&](unsigned i) { return argument("grad_" + paramName(i)); });
  func::ReturnOp::create(b, forward.getLoc(),
                         update(grads, argument("loss_scale")));
  return fn;
}

/// With a compute type, the function's other 16-bit floats become it.
void TrainFunctionsBuilder::retypeCompute() {
  if (!options.compute)
    return;
  MLIRContext *context = fn.getContext();
  Type other = options.compute.isF16() ? Type(BFloat16Type::get(context))
                                       : Type(Float16Type::get(context));
  retypeFloats(fn, other, options.compute);
}

FailureOr<SmallVector<func::FuncOp>> TrainFunctionsBuilder::build() {
  if (failed(findParameters()))
    return failure();
  return SmallVector<func::FuncOp>{buildStep(), buildAccumulate(),
                                   buildApply()};
}

/// sum over all gradients g of (g * inverseScale)^2, in f32: each
/// gradient's squares summed over rows, the column sums of all of them
/// concatenated, then summed whole (sums in a fixed order, so the norm is
/// the same bits on every run).
Value TrainFunctionsBuilder::squaredNorm(ArrayRef<Value> grads,
                                         Value inverseScale) {
  Location loc = forward.getLoc();
  auto f32 = b.getF32Type();
  SmallVector<Value> columnSums;
  for (Value grad : grads) {
    auto type = cast<RankedTensorType>(grad.getType());
    Value squares = elementwise(
        b, loc, RankedTensorType::get(type.getShape(), f32),
        {grad, inverseScale}, [](OpBuilder &b, Location loc, ValueRange args) {
          F32 x{b, loc};
          Value g = x.mul(args[0], args[1]);
          return SmallVector<Value>{x.mul(g, g)};
        })[0];
    if (type.getRank() == 1) {
      columnSums.push_back(squares);
      continue;
    }
    columnSums.push_back(attn::SumRowsOp::create(
        b, loc, RankedTensorType::get({type.getShape().back()}, f32), squares,
        /*block_size=*/IntegerAttr()));
  }
  Value all = columnSums.size() == 1
                  ? columnSums[0]
                  : tensor::ConcatOp::create(b, loc, 0, columnSums).getResult();
  return attn::SumRowsOp::create(b, loc, RankedTensorType::get({}, f32), all,
                                 /*block_size=*/IntegerAttr());
}

/// AdamW on parameter `param` (torch.optim.AdamW's update, in f32):
/// scalars are lr, the gradient's factor (the inverse loss scale times the
/// clipping factor), whether to apply the step (1) or keep everything (0,
/// a gradient that is not finite) and the two bias corrections.
SmallVector<Value> TrainFunctionsBuilder::adamw(unsigned param, Value grad,
                                                ValueRange scalars) {
  std::string name = paramName(param);
  Value master = argument(name);
  SmallVector<Value> inputs = {grad, master, argument("m_" + name),
                               argument("v_" + name)};
  llvm::append_range(inputs, scalars);
  // Decay only matrices, as nanoGPT and Megatron do: norms' gains and
  // biases keep their scale.
  double decay = cast<RankedTensorType>(master.getType()).getRank() >= 2
                     ? options.weightDecay
                     : 0;
  TrainOptions o = options;
  Type type = master.getType();
  return elementwise(
      b, forward.getLoc(), {type, type, type}, inputs,
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
  void runOnOperation() override {
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
      for (StringRef suffix : {"_step", "_accumulate", "_apply"}) {
        std::string name = (forward.getName() + suffix).str();
        if (symbols.lookup(name)) {
          forward.emitError() << "cannot derive '" << name
                              << "': the module already has a symbol of "
                                 "that name";
          return signalPassFailure();
        }
      }
      FailureOr<SmallVector<func::FuncOp>> functions =
          TrainFunctionsBuilder(forward, backward, *options).build();
      if (failed(functions))
        return signalPassFailure();
      for (func::FuncOp function : *functions)
        symbols.insert(function);
    }
  }
};

} // namespace
