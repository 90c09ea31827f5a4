//===- Program.cpp - fp64 semantics of a whole package function -----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Every value's data is sized by its shape when it is stored (inputs are
// checked on entry, results allocated from their shapes), so an op that has
// checked its operands' shapes may index their data freely.
//
//===----------------------------------------------------------------------===//

#include "lib/reference/Program.h"

#include "lib/dtype/DType.h"
#include "lib/reference/Attention.h"
#include "lib/support/Extents.h"
#include "lib/support/Text.h"

#include <algorithm>
#include <optional>

namespace attnc::ref {

namespace {

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

/// Rounds every element as storing it in a tensor of `dtype` would.
void roundTo(pkg::DType dtype, std::vector<double> &data) {
  if (dtype == pkg::DType::F64)
    return;
  uint64_t element = 0; // wide enough for any dtype
  for (double &x : data) {
    storeElementFromDouble(&element, dtype, 0, x);
    x = loadElementAsDouble(&element, dtype, 0);
  }
}

/// The state of one evaluation: the bound symbols, and the data computed so
/// far.
class Evaluator {
public:
  Evaluator(const pkg::Function &function, const SymbolValues &symbols,
            ValueData values)
      : function(function), symbols(symbols), values(std::move(values)) {}

  Status checkInputs() const;
  Status run(const pkg::OpSpec &op);
  Status checkOutputs() const;
  ValueData take() { return std::move(values); }

private:
  StatusOr<std::vector<int64_t>> shapeOf(const std::string &name) const;
  StatusOr<const std::vector<double> *> operand(const std::string &name) const;
  /// Rounds `data` to `name`'s dtype and keeps it as that value.
  Status store(const std::string &name, std::vector<double> data);
  Status runAttention(const pkg::OpSpec &op);
  Status runCast(const pkg::OpSpec &op);

  const pkg::Function &function;
  const SymbolValues &symbols;
  ValueData values;
};

StatusOr<std::vector<int64_t>>
Evaluator::shapeOf(const std::string &name) const {
  const pkg::TensorSig *sig = function.findValue(name);
  if (!sig)
    return Status::error("no shape for value " + inQuotes(name));
  std::vector<int64_t> shape;
  for (const pkg::Dim &dim : sig->shape) {
    auto bound = dim.isStatic() ? symbols.end() : symbols.find(dim.symbol);
    if (!dim.isStatic() && bound == symbols.end())
      return Status::error("no shape for value " + inQuotes(name) +
                           ": symbol " + dim.symbol + " is unbound");
    shape.push_back(dim.isStatic() ? dim.extent : bound->second);
  }
  return shape;
}

StatusOr<const std::vector<double> *>
Evaluator::operand(const std::string &name) const {
  auto it = values.find(name);
  if (it == values.end())
    return Status::error("operand " + inQuotes(name) +
                         " is neither an input nor computed by an earlier op");
  return &it->second;
}

Status Evaluator::store(const std::string &name, std::vector<double> data) {
  const pkg::TensorSig *sig = function.findValue(name);
  if (!sig)
    return Status::error("no value named " + inQuotes(name));
  roundTo(sig->dtype, data);
  values[name] = std::move(data);
  return Status::ok();
}

Status Evaluator::checkInputs() const {
  for (const auto &entry : values)
    if (std::none_of(function.inputs.begin(), function.inputs.end(),
                     [&](const pkg::TensorSig &input) {
                       return input.name == entry.first;
                     }))
      return Status::error(inQuotes(entry.first) + " is not an input of '" +
                           function.name + "'");
  for (const pkg::TensorSig &input : function.inputs) {
    auto it = values.find(input.name);
    if (it == values.end())
      return Status::error("no data for input " + inQuotes(input.name));
    auto shape = shapeOf(input.name);
    if (!shape)
      return shape.status();
    std::optional<int64_t> count = elementCount(*shape);
    if (!count || static_cast<uint64_t>(*count) != it->second.size())
      return Status::error("input " + inQuotes(input.name) + " has " +
                           std::to_string(it->second.size()) +
                           " elements, but its shape is " + shapeText(*shape));
  }
  return Status::ok();
}

Status Evaluator::checkOutputs() const {
  for (const pkg::TensorSig &output : function.outputs)
    if (!values.count(output.name))
      return Status::error("output " + inQuotes(output.name) +
                           " is not computed by any op");
  return Status::ok();
}

Status Evaluator::run(const pkg::OpSpec &op) {
  if (op.kind == "attention") {
    if (!op.attention || op.operands.size() != 3 || op.results.size() != 2)
      return Status::error("needs an attention spec, 3 operands and 2 results");
    return runAttention(op);
  }
  if (op.kind == "cast") {
    if (!op.cast || op.operands.size() != 1 || op.results.size() != 1)
      return Status::error("needs a cast spec, 1 operand and 1 result");
    return runCast(op);
  }
  return Status::error("unknown kind " + inQuotes(op.kind));
}

/// The shapes of one attention op, "" results having none.
struct AttentionShapes {
  std::vector<int64_t> q, k, v, out, lse;
};

/// Checks `s` against attention's rules and gives the reference's shape.
StatusOr<AttentionShape> attentionShape(const pkg::OpSpec &op,
                                        const AttentionShapes &s) {
  const std::string &outName = op.results[0], &lseName = op.results[1];
  bool fits = s.q.size() == 4 && s.k.size() == 4 && s.v.size() == 4;
  AttentionShape shape;
  if (fits) {
    shape = {s.q[0], s.q[1], s.k[1], s.q[2], s.k[2], s.q[3], s.v[3]};
    fits =
        s.k == std::vector<int64_t>{shape.batch, shape.headsKV, shape.seqK,
                                    shape.headDim} &&
        s.v == std::vector<int64_t>{shape.batch, shape.headsKV, shape.seqK,
                                    shape.headDimV} &&
        (outName.empty() ||
         s.out == std::vector<int64_t>{shape.batch, shape.headsQ, shape.seqQ,
                                       shape.headDimV}) &&
        (lseName.empty() ||
         s.lse == std::vector<int64_t>{shape.batch, shape.headsQ, shape.seqQ});
  }
  if (fits)
    return shape;
  auto named = [](const std::string &name, const std::vector<int64_t> &dims) {
    return name.empty() ? std::string("_") : name + " " + shapeText(dims);
  };
  return Status::error(
      "shapes " + named(op.operands[0], s.q) + ", " +
      named(op.operands[1], s.k) + ", " + named(op.operands[2], s.v) + " -> " +
      named(outName, s.out) + ", " + named(lseName, s.lse) +
      " do not fit [B, Hq, Nq, D], [B, Hkv, Nk, D], [B, Hkv, Nk, Dv] -> "
      "[B, Hq, Nq, Dv], [B, Hq, Nq]");
}

Status Evaluator::runAttention(const pkg::OpSpec &op) {
  AttentionShapes s;
  std::vector<int64_t> *dims[] = {&s.q, &s.k, &s.v, &s.out, &s.lse};
  const std::string *names[] = {&op.operands[0], &op.operands[1],
                                &op.operands[2], &op.results[0],
                                &op.results[1]};
  for (size_t i = 0; i < 5; ++i) {
    if (names[i]->empty())
      continue;
    auto shape = shapeOf(*names[i]);
    if (!shape)
      return shape.status();
    *dims[i] = std::move(*shape);
  }
  auto shape = attentionShape(op, s);
  if (!shape)
    return shape.status();
  const std::vector<double> *in[3];
  for (size_t i = 0; i < 3; ++i) {
    auto data = operand(op.operands[i]);
    if (!data)
      return data.status();
    in[i] = *data;
  }
  // An unkept output still needs room; an unkept lse is not computed.
  std::optional<int64_t> outCount =
      elementCount({shape->batch, shape->headsQ, shape->seqQ, shape->headDimV});
  std::optional<int64_t> lseCount =
      elementCount({shape->batch, shape->headsQ, shape->seqQ});
  if (!outCount || !lseCount)
    return Status::error("the attention results are too large");
  std::vector<double> out(static_cast<size_t>(*outCount)), lse;
  if (!op.results[1].empty())
    lse.resize(static_cast<size_t>(*lseCount));
  if (Status st = attentionForward(
          *op.attention, *shape, in[0]->data(), in[1]->data(), in[2]->data(),
          out.data(), op.results[1].empty() ? nullptr : lse.data());
      !st)
    return st;
  if (!op.results[0].empty())
    if (Status st = store(op.results[0], std::move(out)); !st)
      return st;
  return op.results[1].empty() ? Status::ok()
                               : store(op.results[1], std::move(lse));
}

Status Evaluator::runCast(const pkg::OpSpec &op) {
  const std::string &from = op.operands[0], &to = op.results[0];
  auto fromShape = shapeOf(from);
  if (!fromShape)
    return fromShape.status();
  if (to.empty())
    return Status::ok();
  auto toShape = shapeOf(to);
  if (!toShape)
    return toShape.status();
  if (*fromShape != *toShape)
    return Status::error("operand " + from + " has shape " +
                         shapeText(*fromShape) + ", result " + to + " has " +
                         shapeText(*toShape));
  auto data = operand(from);
  if (!data)
    return data.status();
  std::vector<double> result = **data;
  for (double &x : result)
    x *= op.cast->scale;
  return store(to, std::move(result));
}

} // namespace

StatusOr<ValueData> evaluateProgram(const pkg::Function &function,
                                    const SymbolValues &symbols,
                                    ValueData inputs) {
  try {
    Evaluator evaluator(function, symbols, std::move(inputs));
    if (Status s = evaluator.checkInputs(); !s)
      return s;
    for (size_t i = 0; i < function.ops.size(); ++i) {
      const pkg::OpSpec &op = function.ops[i];
      if (Status s = evaluator.run(op); !s)
        return s.withContext("op " + std::to_string(i) + " (" + op.kind + ")");
    }
    if (Status s = evaluator.checkOutputs(); !s)
      return s;
    return evaluator.take();
  } catch (const std::exception &e) {
    return Status::error(std::string("program reference: internal error: ") +
                         e.what());
  }
}

} // namespace attnc::ref
