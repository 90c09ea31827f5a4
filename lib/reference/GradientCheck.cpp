//===- GradientCheck.cpp - Gradients against finite differences -----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/reference/GradientCheck.h"

#include "lib/support/Random.h"
#include "lib/support/Text.h"

#include <algorithm>
#include <cmath>

namespace attnc::ref {
namespace {

/// Entry `k` of a gradient map (pkg::Function::cotangentOf,
/// gradientOfInputs); an empty map is the identity.
size_t mapped(const std::vector<int64_t> &map, size_t k) {
  return map.empty() ? k : static_cast<size_t>(map[k]);
}

/// sum_e a_e b_e, and the sum of its terms' squares.
struct Dot {
  double sum = 0, squares = 0;
};

Dot dotWithSquares(const std::vector<double> &a, const std::vector<double> &b) {
  Dot dot;
  for (size_t e = 0; e < a.size() && e < b.size(); ++e) {
    double term = a[e] * b[e];
    dot.sum += term;
    dot.squares += term * term;
  }
  return dot;
}

double dot(const std::vector<double> &a, const std::vector<double> &b) {
  return dotWithSquares(a, b).sum;
}

StatusOr<const std::vector<double> *> find(const ValueData &values,
                                           const std::string &name) {
  auto it = values.find(name);
  if (it == values.end())
    return Status::error("no data for " + inQuotes(name));
  return &it->second;
}

/// The cotangent-weighted sum of the forward outputs.
struct WeightedOutputs {
  const pkg::Function &forward;
  const SymbolValues &symbols;
  /// Per weighted output: its name in `forward` and its cotangent.
  std::vector<std::pair<std::string, const std::vector<double> *>> weights;

  StatusOr<double> at(ValueData primal) const {
    auto values =
        evaluateProgram(forward, symbols, std::move(primal), Rounding::None);
    if (!values)
      return values.status();
    double sum = 0;
    for (const auto &[name, cotangent] : weights)
      sum += dot(values->at(name), *cotangent);
    return sum;
  }
};

} // namespace

StatusOr<DirectionalDerivatives> checkDirectionalDerivative(
    const pkg::Function &forward, const pkg::Function &backward,
    const SymbolValues &symbols, const ValueData &backwardInputs, uint64_t seed,
    double step) {
  if (backward.gradientOf != forward.name)
    return Status::error(inQuotes(backward.name) + " is not the gradient of " +
                         inQuotes(forward.name));
  const size_t numIn = forward.inputs.size(), numOut = forward.outputs.size();
  ValueData primal, given;
  WeightedOutputs loss{forward, symbols, {}};
  for (size_t i = 0; i < backward.inputs.size(); ++i) {
    const std::string &name = backward.inputs[i].name;
    if (i >= numIn && i < numIn + numOut)
      continue; // saved outputs: recomputed below
    auto data = find(backwardInputs, name);
    if (!data)
      return data.status();
    given[name] = **data;
    if (i < numIn)
      primal[forward.inputs[i].name] = **data;
    else
      loss.weights.emplace_back(
          forward.outputs[mapped(backward.cotangentOf, i - numIn - numOut)]
              .name,
          &given[name]);
  }
  auto saved = evaluateProgram(forward, symbols, primal, Rounding::None);
  if (!saved)
    return saved.status().withContext("reference of " + inQuotes(forward.name));
  for (size_t j = 0; j < numOut; ++j)
    given[backward.inputs[numIn + j].name] = saved->at(forward.outputs[j].name);
  auto gradients = evaluateProgram(backward, symbols, given, Rounding::None);
  if (!gradients)
    return gradients.status().withContext("reference of " +
                                          inQuotes(backward.name));
  // A random direction over the inputs with a gradient, each scaled to its
  // input's magnitude.
  PortableNormal normal(seed);
  DirectionalDerivatives result;
  double squares = 0;
  ValueData direction;
  for (size_t o = 0; o < backward.outputs.size(); ++o) {
    const std::string &input =
        forward.inputs[mapped(backward.gradientOfInputs, o)].name;
    const std::vector<double> &x = primal.at(input);
    double scale = 0;
    for (double e : x)
      scale = std::max(scale, std::fabs(e));
    std::vector<double> u(x.size());
    for (double &e : u)
      e = normal.next() * (scale > 0 ? scale : 1.0);
    Dot along = dotWithSquares(gradients->at(backward.outputs[o].name), u);
    result.gradients += along.sum;
    squares += along.squares;
    direction[input] = std::move(u);
  }
  // The five-point stencil, (f(-2h) - 8 f(-h) + 8 f(h) - f(2h)) / 12h: its
  // error is O(h^4), where central differences' O(h^2) leaves 1e-6 on a
  // saturating softmax.
  double weighted = 0;
  for (auto [multiple, weight] :
       {std::pair{-2.0, 1.0}, {-1.0, -8.0}, {1.0, 8.0}, {2.0, -1.0}}) {
    ValueData at = primal;
    for (const auto &[input, u] : direction)
      for (size_t e = 0; e < u.size(); ++e)
        at[input][e] += multiple * step * u[e];
    auto value = loss.at(std::move(at));
    if (!value)
      return value.status();
    weighted += weight * *value;
  }
  result.differences = weighted / (12 * step);
  // Relative to the size a sum of such terms has along a random direction
  // (their root sum of squares) where the sum is smaller: along a direction
  // where the terms cancel, it keeps fewer correct digits than they have.
  double magnitude =
      std::max({std::fabs(result.differences), std::fabs(result.gradients),
                std::sqrt(squares)});
  result.relativeError =
      magnitude > 0
          ? std::fabs(result.differences - result.gradients) / magnitude
          : 0;
  return result;
}

} // namespace attnc::ref
