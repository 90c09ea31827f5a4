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
#include "lib/reference/AttentionGrad.h"
#include "lib/reference/Matmul.h"
#include "lib/reference/Norm.h"
#include "lib/reference/Region.h"
#include "lib/reference/Token.h"
#include "lib/semantics/Activations.h"
#include "lib/support/Extents.h"
#include "lib/support/Text.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace attnc::ref {

namespace {

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

//===----------------------------------------------------------------------===//
// Attention shapes
//===----------------------------------------------------------------------===//

/// The dims of attention's arrays.
enum AttnDim { B, Hq, Hkv, Nq, Nk, D, Dv, kNumAttnDims };
constexpr const char *kAttnDimNames[] = {"B",  "Hq", "Hkv", "Nq",
                                         "Nk", "D",  "Dv"};
using Pattern = std::vector<AttnDim>;
const Pattern kQ = {B, Hq, Nq, D}, kK = {B, Hkv, Nk, D}, kV = {B, Hkv, Nk, Dv},
              kOut = {B, Hq, Nq, Dv}, kRows = {B, Hq, Nq};
/// The operands of attention_grad_kv and attention_grad_q.
const std::vector<Pattern> kGradOperands = {kQ, kK, kV, kRows, kRows, kOut};

/// The extent of each dim, -1 where no value binds it.
using AttnDims = std::array<int64_t, kNumAttnDims>;

/// The reference's shape; a dim no value binds takes part in nothing: 0.
AttentionShape attentionShapeOf(const AttnDims &dims) {
  auto at = [&](AttnDim dim) { return std::max<int64_t>(dims[dim], 0); };
  return {at(B), at(Hq), at(Hkv), at(Nq), at(Nk), at(D), at(Dv)};
}

std::string patternText(const Pattern &pattern) {
  std::string text = "[";
  for (size_t i = 0; i < pattern.size(); ++i)
    text += std::string(i ? ", " : "") + kAttnDimNames[pattern[i]];
  return text + "]";
}

/// Binds the dims of `pattern` to `shape`; false if they do not fit it or
/// an extent bound before.
bool bind(const Pattern &pattern, const std::vector<int64_t> &shape,
          AttnDims &dims) {
  if (shape.size() != pattern.size())
    return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (dims[pattern[i]] >= 0 && dims[pattern[i]] != shape[i])
      return false;
    dims[pattern[i]] = shape[i];
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

/// The state of one evaluation: the bound symbols, and the data computed so
/// far.
class Evaluator {
public:
  Evaluator(const pkg::Function &function, const SymbolValues &symbols,
            ValueData values, Rounding rounding)
      : function(function), symbols(symbols), values(std::move(values)),
        rounding(rounding) {}

  Status checkInputs() const;
  Status run(const pkg::OpSpec &op);
  Status checkOutputs() const;
  ValueData take() { return std::move(values); }

private:
  StatusOr<std::vector<int64_t>> shapeOf(const std::string &name) const;
  StatusOr<const std::vector<double> *> operand(const std::string &name) const;
  /// The data of operand `name` of an element-by-element op, whose shape
  /// must be that of its result `result`.
  StatusOr<const std::vector<double> *>
  operandShapedAs(const std::string &name, const std::string &result) const;
  /// Rounds `data` to `name`'s dtype and keeps it as that value.
  Status store(const std::string &name, std::vector<double> data);
  /// Binds the shapes of an attention-family op from its operand and
  /// result patterns, runs `compute(dims, operands, results)` on its
  /// operands and zeroed result buffers, and stores the results.
  template <typename Fn>
  Status runOnShapes(const pkg::OpSpec &op,
                     const std::vector<Pattern> &operandPatterns,
                     const std::vector<Pattern> &resultPatterns, Fn compute);
  Status runAttention(const pkg::OpSpec &op);
  Status runGradDelta(const pkg::OpSpec &op);
  Status runGradKV(const pkg::OpSpec &op);
  Status runGradQ(const pkg::OpSpec &op);
  Status runCast(const pkg::OpSpec &op);
  Status runElementwise(const pkg::OpSpec &op);
  Status runMatmul(const pkg::OpSpec &op);
  Status addBias(const pkg::OpSpec &op, int64_t n, std::vector<double> &result);
  Status addAddend(const std::string &name,
                   const std::vector<int64_t> &outShape,
                   std::vector<double> &result);
  Status runNorm(const pkg::OpSpec &op);
  Status runNormGrad(const pkg::OpSpec &op);
  Status runSumRows(const pkg::OpSpec &op);
  Status runEmbedding(const pkg::OpSpec &op);
  Status runTokenOrder(const pkg::OpSpec &op);
  Status checkBounds(const std::string &name, int64_t rows) const;
  Status runLoss(const pkg::OpSpec &op);
  Status runCrossEntropy(const pkg::OpSpec &op);
  Status runTokenMean(const pkg::OpSpec &op);
  Status runLossChunks(const pkg::OpSpec &op);
  Status runHeads(const pkg::OpSpec &op, bool split);
  /// The shapes of `names` ("" for an unkept result has none), or an error
  /// unless they fit `expected`: one pattern per name of dim letters, rows
  /// "R" standing for any number of leading dims shared by all.
  StatusOr<std::map<char, int64_t>>
  bindRows(const std::vector<std::string> &names,
           const std::vector<std::string> &patterns) const;
  /// Binds the operands and the named results of an attention-family op
  /// to their patterns.
  StatusOr<AttnDims>
  bindShapes(const pkg::OpSpec &op, const std::vector<Pattern> &operandPatterns,
             const std::vector<Pattern> &resultPatterns) const;
  /// The data of each operand of `op`, in order.
  StatusOr<std::vector<const double *>> operands(const pkg::OpSpec &op) const;
  StatusOr<std::vector<CaptureView>> captures(const pkg::OpSpec &op) const;
  /// Stores each named result of `op` with its data in `data`.
  Status storeResults(const pkg::OpSpec &op,
                      std::vector<std::vector<double>> data);

  /// The rows a view takes of the value it views: the first and the
  /// count of elements.
  StatusOr<std::pair<size_t, size_t>> viewSpan(const pkg::View &view) const;

  const pkg::Function &function;
  const SymbolValues &symbols;
  ValueData values;
  Rounding rounding;
  /// The data of each view an op read, copied out of the value it views.
  mutable ValueData viewData;
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

StatusOr<std::pair<size_t, size_t>>
Evaluator::viewSpan(const pkg::View &view) const {
  auto shape = shapeOf(view.of);
  if (!shape)
    return shape.status();
  std::optional<int64_t> count = elementCount(*shape);
  int64_t rows = view.rowsOf(shape->size());
  if (!count || shape->empty() || (*shape)[0] < view.begin + rows)
    return Status::error("view " + inQuotes(view.tensor.name) +
                         " takes rows past the end of " + inQuotes(view.of));
  size_t row = (*shape)[0] ? static_cast<size_t>(*count / (*shape)[0]) : 0;
  return std::make_pair(static_cast<size_t>(view.begin) * row,
                        static_cast<size_t>(rows) * row);
}

/// For each element of a heads view in its [B, H, N, D] order, the place
/// of that element in its value's [B, N, H * D] (of shape `ofShape`).
static std::vector<size_t> headsPlaces(const std::vector<int64_t> &ofShape,
                                       int64_t heads) {
  int64_t batch = ofShape[0], rows = ofShape[1], width = ofShape[2] / heads;
  std::vector<size_t> places;
  places.reserve(static_cast<size_t>(batch * rows * heads * width));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t n = 0; n < rows; ++n)
        for (int64_t d = 0; d < width; ++d)
          places.push_back(
              static_cast<size_t>(((b * rows + n) * heads + h) * width + d));
  return places;
}

StatusOr<const std::vector<double> *>
Evaluator::operand(const std::string &name) const {
  const pkg::View *heads = function.findView(name);
  if (heads && heads->heads) {
    auto of = operand(heads->of);
    auto shape = shapeOf(heads->of);
    if (!of || !shape)
      return of ? shape.status() : of.status();
    std::vector<size_t> places = headsPlaces(*shape, heads->heads);
    if ((*of)->size() != places.size())
      return Status::error("internal error: " + std::to_string((*of)->size()) +
                           " elements for heads view " + inQuotes(name));
    std::vector<double> &data = viewData[name];
    data.clear();
    for (size_t place : places)
      data.push_back((**of)[place]);
    return &data;
  }
  if (const pkg::View *view = function.findView(name)) {
    auto of = operand(view->of);
    auto span = viewSpan(*view);
    if (!of || !span)
      return of ? span.status() : of.status();
    auto first = (*of)->begin() + span->first;
    return &(viewData[name] = std::vector<double>(first, first + span->second));
  }
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
  if (rounding == Rounding::ToDTypes)
    roundTo(sig->dtype, data);
  const pkg::View *view = function.findView(name);
  if (!view) {
    values[name] = std::move(data);
    return Status::ok();
  }
  // A view's rows go into the value it views, zeros until written.
  auto shape = shapeOf(view->of);
  if (view->heads) {
    if (!shape)
      return shape.status();
    std::vector<size_t> places = headsPlaces(*shape, view->heads);
    if (data.size() != places.size())
      return Status::error("internal error: " + std::to_string(data.size()) +
                           " elements for heads view " + inQuotes(name));
    std::vector<double> &of = values[view->of];
    of.resize(data.size());
    for (size_t at = 0; at < places.size(); ++at)
      of[places[at]] = data[at];
    return Status::ok();
  }
  auto span = viewSpan(*view);
  if (!span || !shape)
    return span ? shape.status() : span.status();
  if (data.size() != span->second)
    return Status::error("internal error: " + std::to_string(data.size()) +
                         " elements for view " + inQuotes(name));
  std::vector<double> &of = values[view->of];
  of.resize(static_cast<size_t>(elementCount(*shape).value_or(0)));
  std::copy(data.begin(), data.end(), of.begin() + span->first);
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

/// The captures of an attention op (its last operands).
size_t numCaptures(const pkg::OpSpec &op) {
  return op.attention ? static_cast<size_t>(
                            std::max<int64_t>(op.attention->numCaptures, 0))
                      : 0;
}

/// Evaluates `op` by its kind, once the package's table of op kinds has
/// checked its counts and spec (pkg::verifyOpForm).
Status Evaluator::run(const pkg::OpSpec &op) {
  if (Status s = pkg::verifyOpForm(op); !s)
    return s;
  const std::string &kind = op.kind;
  if (kind == "attention")
    return runAttention(op);
  if (kind == "attention_grad_delta")
    return runGradDelta(op);
  if (kind == "attention_grad_kv")
    return runGradKV(op);
  if (kind == "attention_grad_q")
    return runGradQ(op);
  if (kind == "cast")
    return runCast(op);
  if (kind == "elementwise")
    return runElementwise(op);
  if (kind == "rms_norm" || kind == "layer_norm")
    return runNorm(op);
  if (kind == "rms_norm_grad" || kind == "layer_norm_grad")
    return runNormGrad(op);
  if (kind == "embedding" || kind == "embedding_grad")
    return runEmbedding(op);
  if (kind == "token_order")
    return runTokenOrder(op);
  if (kind == "cross_entropy_partial" || kind == "cross_entropy_combine")
    return runLossChunks(op);
  if (kind == "sum_rows" || kind == "sum_squares")
    return runSumRows(op);
  if (kind == "split_heads" || kind == "merge_heads")
    return runHeads(op, kind == "split_heads");
  if (kind == "matmul")
    return runMatmul(op);
  if (kind == "cross_entropy" || kind == "cross_entropy_grad" ||
      kind == "token_mean" || kind == "token_mean_grad")
    return runLoss(op);
  return Status::error("no reference for kind " + inQuotes(kind));
}

/// Fails with "shapes q [2, 4, 5, 8], ... -> o [...], _ do not fit
/// [B, Hq, Nq, D], ... -> [B, Hq, Nq, Dv], [B, Hq, Nq]" when they do not
/// fit ("_" is an unkept result).
StatusOr<AttnDims>
Evaluator::bindShapes(const pkg::OpSpec &op,
                      const std::vector<Pattern> &operandPatterns,
                      const std::vector<Pattern> &resultPatterns) const {
  AttnDims dims;
  dims.fill(-1);
  bool fits = true;
  std::string shapes, patterns;
  for (size_t i = 0; i < operandPatterns.size() + resultPatterns.size(); ++i) {
    const bool isResult = i >= operandPatterns.size();
    const std::string &name =
        isResult ? op.results[i - operandPatterns.size()] : op.operands[i];
    const Pattern &pattern = isResult
                                 ? resultPatterns[i - operandPatterns.size()]
                                 : operandPatterns[i];
    const char *separator = i == 0                        ? ""
                            : i == operandPatterns.size() ? " -> "
                                                          : ", ";
    shapes += separator;
    patterns += separator + patternText(pattern);
    if (name.empty()) {
      shapes += "_";
      continue;
    }
    auto shape = shapeOf(name);
    if (!shape)
      return shape.status();
    shapes += name + " " + shapeText(*shape);
    fits = fits && bind(pattern, *shape, dims);
  }
  if (!fits)
    return Status::error("shapes " + shapes + " do not fit " + patterns);
  return dims;
}

StatusOr<std::vector<CaptureView>>
Evaluator::captures(const pkg::OpSpec &op) const {
  std::vector<CaptureView> views;
  for (size_t i = op.operands.size() - numCaptures(op); i < op.operands.size();
       ++i) {
    const std::string &name = op.operands[i];
    auto shape = shapeOf(name);
    auto data = operand(name);
    if (!shape || !data)
      return !shape ? shape.status() : data.status();
    views.push_back({function.findValue(name)->dtype, *shape, (*data)->data()});
  }
  return views;
}

StatusOr<std::vector<const double *>>
Evaluator::operands(const pkg::OpSpec &op) const {
  std::vector<const double *> data;
  for (const std::string &name : op.operands) {
    auto values = operand(name);
    if (!values)
      return values.status();
    data.push_back((*values)->data());
  }
  return data;
}

/// Zeros for each of `patterns` at `dims` (unbound dims count 0), for the
/// reference to write the results into.
StatusOr<std::vector<std::vector<double>>>
resultBuffers(const std::vector<Pattern> &patterns, const AttnDims &dims) {
  std::vector<std::vector<double>> buffers;
  for (const Pattern &pattern : patterns) {
    std::vector<int64_t> shape;
    for (AttnDim dim : pattern)
      shape.push_back(std::max<int64_t>(dims[dim], 0));
    std::optional<int64_t> count = elementCount(shape);
    if (!count)
      return Status::error("the results are too large");
    buffers.emplace_back(static_cast<size_t>(*count), 0.0);
  }
  return buffers;
}

Status Evaluator::storeResults(const pkg::OpSpec &op,
                               std::vector<std::vector<double>> data) {
  for (size_t i = 0; i < op.results.size(); ++i)
    if (!op.results[i].empty())
      if (Status st = store(op.results[i], std::move(data[i])); !st)
        return st;
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// The ops
//===----------------------------------------------------------------------===//

template <typename Fn>
Status Evaluator::runOnShapes(const pkg::OpSpec &op,
                              const std::vector<Pattern> &operandPatterns,
                              const std::vector<Pattern> &resultPatterns,
                              Fn compute) {
  auto dims = bindShapes(op, operandPatterns, resultPatterns);
  if (!dims)
    return dims.status();
  auto in = operands(op);
  auto out = resultBuffers(resultPatterns, *dims);
  auto captured = captures(op);
  if (!in || !out || !captured)
    return !in ? in.status() : !out ? out.status() : captured.status();
  if (Status st = compute(*dims, *in, *out, *captured); !st)
    return st;
  return storeResults(op, std::move(*out));
}

using Inputs = std::vector<const double *>;
using Outputs = std::vector<std::vector<double>>;
using Captures = std::vector<CaptureView>;

Status Evaluator::runAttention(const pkg::OpSpec &op) {
  return runOnShapes(
      op, {kQ, kK, kV}, {kOut, kRows},
      [&](const AttnDims &dims, const Inputs &x, Outputs &out,
          const Captures &captured) {
        // An unkept output still needs room; an unkept lse is not computed.
        double *lse = op.results[1].empty() ? nullptr : out[1].data();
        return attentionForward(*op.attention, attentionShapeOf(dims), x[0],
                                x[1], x[2], out[0].data(), lse, captured);
      });
}

Status Evaluator::runGradDelta(const pkg::OpSpec &op) {
  return runOnShapes(op, {kOut, kOut}, {kRows, kQ},
                     [&](const AttnDims &dims, const Inputs &x, Outputs &out,
                         const Captures &) {
                       // No key/value heads take part: as many as query heads
                       // keep the shape valid. The accumulator stays zero.
                       AttentionShape shape = attentionShapeOf(dims);
                       shape.headsKV = shape.headsQ;
                       return attentionGradDelta(shape, x[0], x[1],
                                                 out[0].data());
                     });
}

Status Evaluator::runGradKV(const pkg::OpSpec &op) {
  const bool accumulates = op.operands.size() == 7 + numCaptures(op);
  std::vector<Pattern> operandPatterns = kGradOperands, results = {kK, kV};
  if (accumulates) {
    operandPatterns.push_back(kQ);
    results.push_back(kQ);
  }
  return runOnShapes(op, operandPatterns, results,
                     [&](const AttnDims &dims, const Inputs &x, Outputs &out,
                         const Captures &captured) {
                       return attentionGradKV(
                           *op.attention, attentionShapeOf(dims), x[0], x[1],
                           x[2], x[3], x[4], x[5], accumulates ? x[6] : nullptr,
                           out[0].data(), out[1].data(),
                           accumulates ? out[2].data() : nullptr, captured);
                     });
}

Status Evaluator::runGradQ(const pkg::OpSpec &op) {
  return runOnShapes(op, kGradOperands, {kQ},
                     [&](const AttnDims &dims, const Inputs &x, Outputs &out,
                         const Captures &captured) {
                       return attentionGradQ(
                           *op.attention, attentionShapeOf(dims), x[0], x[1],
                           x[2], x[3], x[4], x[5], out[0].data(), captured);
                     });
}

StatusOr<const std::vector<double> *>
Evaluator::operandShapedAs(const std::string &name,
                           const std::string &result) const {
  auto shape = shapeOf(name);
  if (!shape)
    return shape.status();
  auto resultShape = shapeOf(result);
  if (!resultShape)
    return resultShape.status();
  if (*shape != *resultShape)
    return Status::error("operand " + name + " has shape " + shapeText(*shape) +
                         ", result " + result + " has " +
                         shapeText(*resultShape));
  return operand(name);
}

Status Evaluator::runCast(const pkg::OpSpec &op) {
  const std::string &to = op.results[0];
  if (to.empty())
    return Status::ok();
  auto data = operandShapedAs(op.operands[0], to);
  if (!data)
    return data.status();
  std::vector<double> result = **data;
  for (double &x : result)
    x *= op.cast->scale;
  return store(to, std::move(result));
}

Status Evaluator::runElementwise(const pkg::OpSpec &op) {
  std::vector<std::vector<double>> results(op.results.size());
  for (size_t k = 0; k < op.results.size(); ++k) {
    const std::string &to = op.results[k];
    if (to.empty())
      continue;
    // A rank-0 operand beside a result of higher rank is broadcast.
    auto resultShape = shapeOf(to);
    if (!resultShape)
      return resultShape.status();
    std::vector<const std::vector<double> *> inputs;
    for (const std::string &name : op.operands) {
      auto shape = shapeOf(name);
      auto data =
          shape && shape->empty() ? operand(name) : operandShapedAs(name, to);
      if (!data)
        return data.status();
      inputs.push_back(*data);
    }
    std::string context = "body " + std::to_string(k);
    auto body = RegionEvaluator::createElementwise(op.elementwise->bodies[k]);
    if (!body)
      return body.status().withContext(context);
    if (!body->yieldsFloat())
      return Status::error(context + " yields " + body->yieldType() +
                           ", expected a float");
    std::vector<double> result(
        static_cast<size_t>(elementCount(*resultShape).value_or(0)));
    std::vector<double> elements(inputs.size());
    RegionArgs args;
    args.inputs = elements.data();
    for (size_t i = 0; i < result.size(); ++i) {
      for (size_t j = 0; j < inputs.size(); ++j)
        elements[j] = (*inputs[j])[inputs[j]->size() == result.size() ? i : 0];
      auto value = body->evaluate(args);
      if (!value)
        return value.status().withContext(context);
      result[i] = value->floatValue;
    }
    results[k] = std::move(result);
  }
  // Stored once all are computed: a program may write a result into the
  // buffer of an operand it reads, under the operand's name.
  return storeResults(op, std::move(results));
}

Status Evaluator::runMatmul(const pkg::OpSpec &op) {
  const std::string &to = op.results[0];
  if (to.empty())
    return Status::ok();
  auto a = shapeOf(op.operands[0]), b = shapeOf(op.operands[1]),
       out = shapeOf(to);
  if (!a || !b || !out)
    return !a ? a.status() : !b ? b.status() : out.status();
  auto shape = matmulShape(*op.matmul, *a, *b, *out);
  auto x = operand(op.operands[0]), y = operand(op.operands[1]);
  if (!shape || !x || !y)
    return !shape ? shape.status() : !x ? x.status() : y.status();
  std::vector<double> result(static_cast<size_t>(shape->m * shape->n));
  matmul(*op.matmul, *shape, (*x)->data(), (*y)->data(), result.data());
  if (op.bias())
    if (Status s = addBias(op, shape->n, result); !s)
      return s;
  if (const std::string *addend = op.addend())
    if (Status s = addAddend(*addend, *out, result); !s)
      return s;
  if (op.matmul->activation == "gelu_tanh")
    for (double &x : result)
      x = 0.5 * x *
          (1 + std::tanh(sem::kGeluTanhScale *
                         (x + sem::kGeluTanhCubic * x * x * x)));
  return store(to, std::move(result));
}

Status Evaluator::addBias(const pkg::OpSpec &op, int64_t n,
                          std::vector<double> &result) {
  auto biasShape = shapeOf(op.operands[2]);
  auto bias = operand(op.operands[2]);
  if (!biasShape || !bias)
    return !biasShape ? biasShape.status() : bias.status();
  if (op.matmul->transposeA || *biasShape != std::vector<int64_t>{n})
    return Status::error("bias " + op.operands[2] + " " +
                         shapeText(*biasShape) + " does not fit: expected [" +
                         std::to_string(n) +
                         "] (N) on a linear layer, none on a row contraction");
  for (size_t i = 0; i < result.size(); ++i)
    result[i] += (**bias)[i % n];
  return Status::ok();
}

Status Evaluator::addAddend(const std::string &name,
                            const std::vector<int64_t> &outShape,
                            std::vector<double> &result) {
  auto addendShape = shapeOf(name);
  auto addend = operand(name);
  if (!addendShape || !addend)
    return !addendShape ? addendShape.status() : addend.status();
  if (*addendShape != outShape)
    return Status::error("addend " + name + " " + shapeText(*addendShape) +
                         " does not fit: expected the result's shape " +
                         shapeText(outShape));
  for (size_t i = 0; i < result.size(); ++i)
    result[i] += (**addend)[i];
  return Status::ok();
}

StatusOr<std::map<char, int64_t>>
Evaluator::bindRows(const std::vector<std::string> &names,
                    const std::vector<std::string> &patterns) const {
  std::map<char, int64_t> dims;
  std::vector<int64_t> rows;
  bool rowsBound = false, fits = true;
  std::string shapes, expected;
  for (size_t i = 0; i < names.size(); ++i) {
    expected += (i ? ", " : "") + patterns[i];
    if (names[i].empty())
      continue;
    auto shape = shapeOf(names[i]);
    if (!shape)
      return shape.status();
    shapes += (shapes.empty() ? "" : ", ") + names[i] + " " + shapeText(*shape);
    const std::string &pattern = patterns[i];
    bool leading = !pattern.empty() && pattern[0] == 'R';
    size_t named = pattern.size() - leading;
    if (shape->size() < named) {
      fits = false;
      continue;
    }
    std::vector<int64_t> lead(shape->begin(), shape->end() - named);
    if (leading && rowsBound && lead != rows)
      fits = false;
    if (leading && !rowsBound)
      rows = lead, rowsBound = true;
    if (!leading && !lead.empty())
      fits = false;
    for (size_t d = 0; d < named; ++d) {
      char letter = pattern[leading + d];
      int64_t extent = (*shape)[lead.size() + d];
      auto [it, inserted] = dims.emplace(letter, extent);
      fits = fits && it->second == extent;
    }
  }
  if (!fits)
    return Status::error("shapes " + shapes + " do not fit " + expected +
                         " (R: the same leading dims)");
  int64_t count = 1;
  for (int64_t extent : rows)
    count *= extent;
  dims['R'] = count;
  return dims;
}

Status Evaluator::runNorm(const pkg::OpSpec &op) {
  std::vector<std::string> names = op.operands;
  names.insert(names.end(), op.results.begin(), op.results.end());
  std::vector<std::string> shapes = {"RD", "D", "RD", "R"};
  if (op.operands.size() == 3)
    shapes.insert(shapes.begin() + 2, "D");
  auto dims = bindRows(names, shapes);
  auto in = operands(op);
  if (!in || !dims)
    return !in ? in.status() : dims.status();
  int64_t rows = dims->at('R'), width = dims->at('D');
  std::vector<double> out(rows * width), rstd(rows);
  normRows({rows, width, op.kind == "layer_norm"}, op.norm->epsilon, (*in)[0],
           (*in)[1], in->size() > 2 ? (*in)[2] : nullptr, out.data(),
           rstd.data());
  if (!op.results[1].empty())
    if (Status s = store(op.results[1], std::move(rstd)); !s)
      return s;
  return op.results[0].empty() ? Status::ok()
                               : store(op.results[0], std::move(out));
}

Status Evaluator::runNormGrad(const pkg::OpSpec &op) {
  std::vector<std::string> names = op.operands;
  names.insert(names.end(), op.results.begin(), op.results.end());
  std::vector<std::string> shapes = {"RD", "D", "R", "RD", "RD", "PD"};
  if (op.operands.size() == 5)
    shapes.insert(shapes.begin() + 4, "RD");
  auto dims = bindRows(names, shapes);
  auto in = operands(op);
  if (!in || !dims)
    return !in ? in.status() : dims.status();
  if (!dims->count('P'))
    return Status::error("the partial sums are not kept: their rows are "
                         "unknown");
  int64_t rows = dims->at('R'), width = dims->at('D'), parts = dims->at('P');
  std::vector<double> dx(rows * width), partial(parts * width);
  normRowsGrad({rows, width, op.kind == "layer_norm_grad"}, parts, (*in)[0],
               (*in)[1], (*in)[2], (*in)[3], dx.data(), partial.data());
  if (in->size() == 5)
    for (size_t i = 0; i < dx.size(); ++i)
      dx[i] += (*in)[4][i];
  if (Status s = store(op.results[1], std::move(partial)); !s)
    return s;
  return op.results[0].empty() ? Status::ok()
                               : store(op.results[0], std::move(dx));
}

/// embedding [table, ids] -> [out] and embedding_grad [order, bounds,
/// dout] -> [dtable]: a table [V, D], ids and order of any shape [T...],
/// bounds [V + 1], rows [T..., D].
Status Evaluator::runEmbedding(const pkg::OpSpec &op) {
  bool grad = op.kind == "embedding_grad";
  const std::string &idsName = grad ? op.operands[0] : op.operands[1];
  const std::string &tableName = grad ? op.results[0] : op.operands[0];
  const std::string &rowsName = grad ? op.operands[2] : op.results[0];
  if (op.results[0].empty())
    return Status::ok();
  auto table = shapeOf(tableName), ids = shapeOf(idsName),
       rows = shapeOf(rowsName);
  if (!table || !ids || !rows)
    return !table ? table.status() : !ids ? ids.status() : rows.status();
  std::vector<int64_t> expected = *ids;
  expected.push_back(table->size() == 2 ? (*table)[1] : -1);
  if (table->size() != 2 || *rows != expected)
    return Status::error("shapes " + shapeText(*table) + ", " +
                         shapeText(*ids) + ", " + shapeText(*rows) +
                         " do not fit a table [V, D], ids [T...] and rows "
                         "[T..., D]");
  TableShape shape{(*table)[0], (*table)[1], elementCount(*ids).value_or(0)};
  if (grad)
    if (Status s = checkBounds(op.operands[1], shape.rows); !s)
      return s;
  auto in = operands(op);
  if (!in)
    return in.status();
  std::vector<double> out(grad ? shape.rows * shape.width
                               : shape.tokens * shape.width);
  if (grad)
    embeddingGrad(shape, (*in)[0], (*in)[1], (*in)[2], out.data());
  else
    embedding(shape, (*in)[0], (*in)[1], out.data());
  return store(op.results[0], std::move(out));
}

/// Bounds `name` of a table of `rows` rows: [rows + 1].
Status Evaluator::checkBounds(const std::string &name, int64_t rows) const {
  auto bounds = shapeOf(name);
  if (!bounds)
    return bounds.status();
  if (*bounds != std::vector<int64_t>{rows + 1})
    return Status::error("bounds " + name + " has shape " + shapeText(*bounds) +
                         ", not [" + std::to_string(rows + 1) + "]");
  return Status::ok();
}

/// token_order [ids] -> [order, bounds]: ids and order [T...], bounds
/// [V + 1].
Status Evaluator::runTokenOrder(const pkg::OpSpec &op) {
  auto ids = shapeOf(op.operands[0]), order = shapeOf(op.results[0]),
       bounds = shapeOf(op.results[1]);
  if (!ids || !order || !bounds)
    return !ids ? ids.status() : !order ? order.status() : bounds.status();
  if (*order != *ids || bounds->size() != 1 || (*bounds)[0] < 2)
    return Status::error("shapes " + shapeText(*ids) + ", " +
                         shapeText(*order) + ", " + shapeText(*bounds) +
                         " do not fit ids [T...], order [T...] and bounds "
                         "[V + 1]");
  TableShape shape{(*bounds)[0] - 1, 0, elementCount(*ids).value_or(0)};
  auto in = operands(op);
  if (!in)
    return in.status();
  std::vector<double> sorted(shape.tokens), starts(shape.rows + 1);
  tokenOrder(shape, (*in)[0], sorted.data(), starts.data());
  if (Status s = store(op.results[0], std::move(sorted)); !s)
    return s;
  return store(op.results[1], std::move(starts));
}

Status Evaluator::runLoss(const pkg::OpSpec &op) {
  bool cross = op.kind == "cross_entropy" || op.kind == "cross_entropy_grad";
  return cross ? runCrossEntropy(op) : runTokenMean(op);
}

/// cross_entropy and its gradient: logits [R, V], labels, lse, dlosses [R].
Status Evaluator::runCrossEntropy(const pkg::OpSpec &op) {
  bool grad = op.kind == "cross_entropy_grad";
  std::vector<std::string> names = op.operands;
  names.insert(names.end(), op.results.begin(), op.results.end());
  std::vector<std::string> patterns =
      grad ? std::vector<std::string>{"RV", "R", "R", "R", "RV"}
           : std::vector<std::string>{"RV", "R", "R", "R"};
  auto dims = bindRows(names, patterns);
  auto in = operands(op);
  if (!in || !dims)
    return !in ? in.status() : dims.status();
  LossShape shape{dims->at('R'), dims->at('V'), op.loss->ignoreIndex,
                  op.loss->vocabOffset};
  if (grad) {
    std::vector<double> dlogits(shape.rows * shape.classes);
    crossEntropyGrad(shape, (*in)[0], (*in)[1], (*in)[2], (*in)[3],
                     dlogits.data());
    return op.results[0].empty() ? Status::ok()
                                 : store(op.results[0], std::move(dlogits));
  }
  std::vector<double> losses(shape.rows), lse(shape.rows);
  crossEntropy(shape, (*in)[0], (*in)[1], losses.data(), lse.data());
  if (!op.results[1].empty())
    if (Status s = store(op.results[1], std::move(lse)); !s)
      return s;
  return op.results[0].empty() ? Status::ok()
                               : store(op.results[0], std::move(losses));
}

/// cross_entropy_partial [logits [r..., Vc], labels [r...]] -> [lse,
/// target [1, r...]] and cross_entropy_combine [lse_parts, targets [P,
/// r...], labels [r...]] -> [losses, lse [r...]].
Status Evaluator::runLossChunks(const pkg::OpSpec &op) {
  bool combine = op.kind == "cross_entropy_combine";
  const std::string &labelsName = op.operands[combine ? 2 : 1];
  auto labels = shapeOf(labelsName);
  auto first = shapeOf(op.operands[0]);
  if (!labels || !first)
    return labels ? first.status() : labels.status();
  std::vector<int64_t> part = *labels;
  part.insert(part.begin(), combine ? (first->empty() ? 0 : (*first)[0]) : 1);
  std::vector<int64_t> logitRows(first->begin(),
                                 first->end() - (first->empty() ? 0 : 1));
  auto hasShape = [&](const std::string &name,
                      const std::vector<int64_t> &shape) {
    auto actual = shapeOf(name);
    return actual && *actual == shape;
  };
  bool fits = combine ? *first == part && hasShape(op.operands[1], part)
                      : !first->empty() && logitRows == *labels;
  for (const std::string &result : op.results)
    fits =
        fits && (result.empty() || hasShape(result, combine ? *labels : part));
  if (!fits)
    return Status::error("shapes do not fit " +
                         std::string(combine
                                         ? "[P, R], [P, R], [R] -> [R], [R]"
                                         : "[R, V], [R] -> [1, R], [1, R]") +
                         " (R: the same rows)");
  auto in = operands(op);
  if (!in)
    return in.status();
  int64_t rows = 1;
  for (int64_t extent : *labels)
    rows *= extent;
  std::vector<double> a(static_cast<size_t>(rows)), c(a.size());
  if (combine) {
    LossShape shape{rows, op.loss->vocabSize.value_or(0), op.loss->ignoreIndex};
    crossEntropyCombine(shape, (*first)[0], (*in)[0], (*in)[1], (*in)[2],
                        a.data(), c.data());
  } else {
    LossShape shape{rows, first->back(), op.loss->ignoreIndex,
                    op.loss->vocabOffset};
    crossEntropyPartial(shape, (*in)[0], (*in)[1], a.data(), c.data());
  }
  // partial: [lse, target]; combine: [losses, lse].
  for (size_t i = 0; i < 2; ++i)
    if (!op.results[i].empty())
      if (Status s = store(op.results[i], std::move(i == 0 ? a : c)); !s)
        return s;
  return Status::ok();
}

/// token_mean [values, labels] -> [mean] and token_mean_grad [labels,
/// dmean] -> [dvalues]: tokens of any shape, the mean a 0-d tensor.
Status Evaluator::runTokenMean(const pkg::OpSpec &op) {
  bool grad = op.kind == "token_mean_grad";
  const std::string &tokens = grad ? op.operands[0] : op.operands[1];
  const std::string &scalar = grad ? op.operands[1] : op.results[0];
  const std::string &same = grad ? op.results[0] : op.operands[0];
  auto tokenShape = shapeOf(tokens), scalarShape = shapeOf(scalar),
       sameShape = same.empty() ? tokenShape : shapeOf(same);
  if (!tokenShape || !scalarShape || !sameShape)
    return !tokenShape    ? tokenShape.status()
           : !scalarShape ? scalarShape.status()
                          : sameShape.status();
  if (!scalarShape->empty() || *sameShape != *tokenShape)
    return Status::error("shapes " + shapeText(*tokenShape) + ", " +
                         shapeText(*sameShape) + ", " +
                         shapeText(*scalarShape) +
                         " do not fit labels and values of one shape and a "
                         "mean of shape []");
  int64_t count = 1;
  for (int64_t extent : *tokenShape)
    count *= extent;
  auto in = operands(op);
  if (!in)
    return in.status();
  int64_t ignore = op.loss->ignoreIndex;
  if (op.results[0].empty())
    return Status::ok();
  if (!grad)
    return store(op.results[0], {tokenMean(count, ignore, (*in)[0], (*in)[1])});
  std::vector<double> dvalues(count);
  tokenMeanGrad(count, ignore, (*in)[0], (*in)[1][0], dvalues.data());
  return store(op.results[0], std::move(dvalues));
}

Status Evaluator::runSumRows(const pkg::OpSpec &op) {
  if (op.results[0].empty())
    return Status::ok();
  // A rank-0 result is the sum of every element: rows of one column.
  auto outShape = shapeOf(op.results[0]);
  bool total = outShape && outShape->empty();
  auto dims = bindRows({op.operands[0], op.results[0]},
                       total ? std::vector<std::string>{"R", ""}
                             : std::vector<std::string>{"RD", "D"});
  auto in = operand(op.operands[0]);
  if (!dims || !in)
    return !dims ? dims.status() : in.status();
  int64_t width = total ? 1 : dims->at('D');
  std::vector<double> out(width);
  if (op.kind == "sum_squares") {
    std::vector<double> squares(**in);
    for (double &value : squares)
      value *= value;
    sumRows(dims->at('R'), width, squares.data(), out.data());
  } else {
    sumRows(dims->at('R'), width, (*in)->data(), out.data());
  }
  return store(op.results[0], std::move(out));
}

Status Evaluator::runHeads(const pkg::OpSpec &op, bool split) {
  const std::string &to = op.results[0];
  if (to.empty())
    return Status::ok();
  std::vector<std::string> names = op.operands;
  names.push_back(to);
  std::vector<std::vector<int64_t>> shapes;
  std::string shapesText;
  for (const std::string &name : names) {
    auto shape = shapeOf(name);
    if (!shape)
      return shape.status();
    shapesText +=
        (shapesText.empty() ? "" : ", ") + name + " " + shapeText(*shape);
    shapes.push_back(std::move(*shape));
  }
  const std::vector<int64_t> &flat = split ? shapes.front() : shapes.back();
  const std::vector<int64_t> &heads = split ? shapes.back() : shapes.front();
  HeadsShape shape;
  bool fits = flat.size() == 3 && heads.size() == 4;
  if (fits) {
    shape = {heads[0], heads[2], heads[1], heads[3], 0};
    fits = flat[0] == heads[0] && flat[1] == heads[2] &&
           flat[2] == heads[1] * heads[3];
  }
  if (fits && op.operands.size() == 3) {
    const std::vector<int64_t> &table = shapes[1];
    fits = table == shapes[2] && table.size() == 2 && table[0] == shape.seq &&
           2 * table[1] <= shape.headDim;
    shape.half = fits ? table[1] : 0;
  }
  if (!fits)
    return Status::error("shapes " + shapesText +
                         " do not fit [B, N, H * D] "
                         "and [B, H, N, D] with tables [N, R/2], R <= D");
  auto in = operands(op);
  if (!in)
    return in.status();
  std::vector<double> out(shape.batch * shape.seq * shape.heads *
                          shape.headDim);
  auto table = [&](size_t i) { return shape.half ? (*in)[i] : nullptr; };
  moveHeads(split, shape, (*in)[0], table(1), table(2), out.data());
  return store(to, std::move(out));
}

} // namespace

StatusOr<ValueData> evaluateProgram(const pkg::Function &function,
                                    const SymbolValues &symbols,
                                    ValueData inputs, Rounding rounding) {
  try {
    Evaluator evaluator(function, symbols, std::move(inputs), rounding);
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
