//===- DeriveBackward.cpp - Reverse-mode differentiation of functions -----===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// For
//
//   func.func @f(%q, %k, %v) -> (out, lse) attributes {attn.backward} {
//     %o, %l = attn.attention %q, %k, %v ...
//     return %o, %l
//   }
//
// emits
//
//   func.func @f_bwd(%q, %k, %v, %o, %l, %do) -> (dq, dk, dv)
//       attributes {attn.gradient_of = @f} {
//     %dq, %dk, %dv = attn.attention_grad %q, %k, %v, %o, %l, %do ...
//     return %dq, %dk, %dv
//   }
//
// The forward body is cloned, the gradient rules (VJPOpInterface) of its
// ops are applied in reverse order, the values @f returns are replaced by
// the saved arguments, and forward ops nothing needs any more go.
//
//===----------------------------------------------------------------------===//

#include "compiler/Graph/DimSymbols.h"
#include "compiler/Passes.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cmath>
#include <map>
#include <tuple>

namespace attnc {
#define GEN_PASS_DEF_ATTNDERIVEBACKWARD
#include "compiler/Passes.h.inc"
} // namespace attnc

using namespace mlir;

namespace {

/// Whether `arg` is read only through operands that take no gradient
/// (attention's captures, rotary tables): such tensors have none.
bool takesNoGradient(BlockArgument arg) {
  if (arg.use_empty())
    return false;
  return llvm::all_of(arg.getUses(), [](OpOperand &use) {
    auto op = dyn_cast<attn::VJPOpInterface>(use.getOwner());
    return op && !op.isDifferentiableOperand(use.getOperandNumber());
  });
}

/// Whether result `index` of `value`'s definition takes a cotangent; an
/// argument returned as it is always does.
bool takesCotangent(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return true;
  auto vjp = dyn_cast<attn::VJPOpInterface>(result.getOwner());
  return !vjp || vjp.isDifferentiableResult(result.getResultNumber());
}

/// Which forward values the backward function reads from saved results of
/// the forward function instead of recomputing them (the pass's `remat`).
enum class SavePolicy {
  /// Every forward value a gradient rule reads: no recomputation.
  None,
  /// The out and lse of each attention, and the lse of a fused LM-head
  /// loss (each costs a pass over all keys or classes for a row's bytes);
  /// the rest is recomputed.
  Attention,
  /// What is costly to recompute (attention's out and lse, matmul
  /// results); what is bound by memory (norms, element-wise code, layout
  /// copies, losses) is recomputed.
  Selective,
  /// Nothing but what the forward function returns anyway.
  Full,
};

FailureOr<SavePolicy> parseSavePolicy(StringRef name) {
  if (name == "none")
    return SavePolicy::None;
  if (name == "attention")
    return SavePolicy::Attention;
  if (name == "selective")
    return SavePolicy::Selective;
  if (name == "full")
    return SavePolicy::Full;
  return failure();
}

/// Extents of symbolic dims for a save budget: "B" -> 4.
using SymbolExtents = std::map<std::string, int64_t>;

/// Parses the pass's `symbols` entries, NAME=EXTENT.
FailureOr<SymbolExtents> parseSymbolExtents(ArrayRef<std::string> entries,
                                            Operation *at) {
  SymbolExtents extents;
  for (const std::string &entry : entries) {
    auto parsed = attnc::parseSymbolExtent(entry);
    if (!parsed)
      return at->emitError()
             << "symbol extent '" << entry << "' is not NAME=EXTENT";
    extents[parsed->first] = parsed->second;
  }
  return extents;
}

/// What a saved value spares the backward per byte: attention's results
/// and a fused LM-head loss's first (O(N^2) or O(N V) work for O(N)
/// bytes), then matmul results by the flops of
/// an element (2K), then the rest, which cost only memory traffic to
/// recompute. Larger is costlier.
struct RecomputeCost {
  int rank = 0;
  double flopsPerElement = 0;

  bool operator>(const RecomputeCost &other) const {
    return std::tie(rank, flopsPerElement) >
           std::tie(other.rank, other.flopsPerElement);
  }
};

/// Sizes of a forward function's values at given symbol extents.
class ValueSizes {
public:
  ValueSizes(func::FuncOp forward, const SymbolExtents &extents)
      : symbols(forward), extents(extents) {}

  /// The elements of `value`; an error at it when a symbol has no extent.
  FailureOr<double> elements(Value value) const {
    double count = 1;
    for (Attribute dim : symbols.shapeOf(value)) {
      if (auto extent = dyn_cast<IntegerAttr>(dim)) {
        count *= static_cast<double>(extent.getInt());
        continue;
      }
      StringRef name = cast<StringAttr>(dim).getValue();
      auto found = extents.find(name.str());
      if (found == extents.end())
        return emitError(value.getLoc())
               << "the remat budget needs this value's size: give symbol '"
               << name << "' an extent (symbols=" << name << "=EXTENT)";
      count *= static_cast<double>(found->second);
    }
    return count;
  }

  FailureOr<double> bytes(Value value) const {
    FailureOr<double> count = elements(value);
    Type element = cast<ShapedType>(value.getType()).getElementType();
    if (failed(count))
      return failure();
    return *count * llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  }

  /// The cost of recomputing `op`'s results, per element.
  FailureOr<RecomputeCost> recomputeCost(Operation *op) const {
    if (isa<attn::AttentionOp, attn::LinearCrossEntropyOp>(op))
      return RecomputeCost{2, 0};
    auto matmul = dyn_cast<attn::MatmulOp>(op);
    if (!matmul)
      return RecomputeCost{0, 0};
    // a: M x K, b: K x N, out: M x N whatever the transposes, so
    // K = sqrt(|a| |b| / |out|).
    FailureOr<double> a = elements(matmul.getA()), b = elements(matmul.getB()),
                      out = elements(matmul.getResult());
    if (failed(a) || failed(b) || failed(out))
      return failure();
    return RecomputeCost{1, *out ? 2 * std::sqrt(*a * *b / *out) : 0};
  }

private:
  attnc::DimSymbols symbols;
  const SymbolExtents &extents;
};

class BackwardBuilder {
public:
  BackwardBuilder(func::FuncOp forward, bool deterministic, SavePolicy policy,
                  int64_t budget, const SymbolExtents &extents)
      : forward(forward), deterministic(deterministic), policy(policy),
        budget(budget), extents(extents),
        returned(forward.getBody().front().getTerminator()->getOperands()) {}

  FailureOr<func::FuncOp> build();

private:
  func::FuncOp createFunction();
  LogicalResult addCotangent(Value value, Value cotangent, Location loc);
  LogicalResult differentiate(Operation *op);
  LogicalResult finish();
  void eraseDeadClones();
  void sinkOps();
  LogicalResult chooseUnderBudget();
  bool isReadByGradient(OpResult clone) const;
  bool isSaved(OpResult clone) const;
  void save(Value clone);

  func::FuncOp forward;
  bool deterministic;
  SavePolicy policy;
  /// Bytes the saved values may take at `extents`; 0 for no budget.
  int64_t budget;
  const SymbolExtents &extents;
  /// With a budget: the forward ops (clones) whose results it saves.
  llvm::DenseSet<Operation *> savedUnderBudget;
  SmallVector<Value> returned;
  func::FuncOp backward;
  IRMapping forwardToBackward;
  /// The forward value of each value the cloned forward ops define.
  llvm::DenseMap<Value, Value> cloneToForward;
  /// The cotangent of each value of the backward function's forward part.
  llvm::DenseMap<Value, Value> cotangents;
  SmallVector<Operation *> clonedOps;
  /// clonedOps as a set, for membership tests (eraseDeadClones renews it).
  llvm::SmallPtrSet<Operation *, 32> clonedSet;
};

/// @f_bwd's signature: @f's arguments, its results, then a cotangent per
/// differentiable result; it returns one gradient per argument that takes
/// one (takesNoGradient), each marked with the argument's index where some
/// are.
func::FuncOp BackwardBuilder::createFunction() {
  SmallVector<Type> inputs(forward.getArgumentTypes());
  llvm::append_range(inputs, forward.getResultTypes());
  for (Value value : returned)
    if (takesCotangent(value))
      inputs.push_back(value.getType());
  SmallVector<Type> results;
  for (BlockArgument arg : forward.getArguments())
    if (!takesNoGradient(arg))
      results.push_back(arg.getType());
  OpBuilder b(forward);
  b.setInsertionPointAfter(forward);
  auto type = FunctionType::get(forward.getContext(), inputs, results);
  auto func = func::FuncOp::create(b, forward.getLoc(),
                                   (forward.getName() + "_bwd").str(), type);
  func->setAttr(attn::kGradientOfAttrName, FlatSymbolRefAttr::get(forward));
  unsigned cotangent = forward.getNumArguments() + forward.getNumResults();
  for (auto [i, value] : llvm::enumerate(returned))
    if (takesCotangent(value))
      func.setArgAttr(cotangent++, attn::kCotangentOfResultAttrName,
                      b.getI64IntegerAttr(i));
  unsigned result = 0;
  if (results.size() != forward.getNumArguments())
    for (BlockArgument arg : forward.getArguments())
      if (!takesNoGradient(arg))
        func.setResultAttr(result++, attn::kGradientOfArgumentAttrName,
                           b.getI64IntegerAttr(arg.getArgNumber()));
  func.addEntryBlock();
  return func;
}

LogicalResult BackwardBuilder::addCotangent(Value value, Value cotangent,
                                            Location loc) {
  if (!cotangent)
    return success();
  auto [it, inserted] = cotangents.try_emplace(value, cotangent);
  if (inserted)
    return success();
  // Gradient rules give each operand a cotangent of its type. A value with
  // several differentiated uses gets the sum of their gradients.
  OpBuilder b = OpBuilder::atBlockEnd(&backward.getBody().front());
  it->second = attn::buildElementwiseSum(b, loc, it->second, cotangent);
  return success();
}

/// Applies the gradient rule of (the clone of) `op` if any of its results
/// has a cotangent, inserting at the end of the backward function.
LogicalResult BackwardBuilder::differentiate(Operation *op) {
  SmallVector<Value> resultCotangents;
  for (Value result : op->getResults())
    resultCotangents.push_back(cotangents.lookup(result));
  if (llvm::all_of(resultCotangents, [](Value v) { return !v; }))
    return success();
  auto vjp = dyn_cast<attn::VJPOpInterface>(op);
  if (!vjp)
    return op->emitError() << "cannot differentiate " << op->getName()
                           << ": it has no gradient rule (VJPOpInterface)";
  OpBuilder b = OpBuilder::atBlockEnd(&backward.getBody().front());
  FailureOr<SmallVector<Value>> operandCotangents =
      vjp.buildVJP(b, resultCotangents);
  if (failed(operandCotangents))
    return failure();
  for (auto [operand, cotangent] :
       llvm::zip(op->getOperands(), *operandCotangents))
    if (failed(addCotangent(operand, cotangent, op->getLoc())))
      return failure();
  return success();
}

/// Returns the gradients, marks the attention gradients deterministic when
/// asked, replaces returned forward values by the saved arguments and drops
/// forward ops nothing reads.
LogicalResult BackwardBuilder::finish() {
  Block &body = backward.getBody().front();
  SmallVector<Value> gradients;
  for (BlockArgument arg : forward.getArguments()) {
    if (takesNoGradient(arg))
      continue;
    Value gradient = cotangents.lookup(body.getArgument(arg.getArgNumber()));
    if (!gradient)
      return emitError(arg.getLoc())
             << "argument " << arg.getArgNumber() << " of '"
             << forward.getName()
             << "' reaches no differentiable result; it has no gradient";
    gradients.push_back(gradient);
  }
  OpBuilder b = OpBuilder::atBlockEnd(&body);
  func::ReturnOp::create(b, forward.getLoc(), gradients);
  if (deterministic)
    backward.walk(
        [&](attn::AttentionGradOp grad) { grad.setDeterministic(true); });
  unsigned numArgs = forward.getNumArguments();
  for (auto [i, value] : llvm::enumerate(returned))
    if (isa<OpResult>(value))
      forwardToBackward.lookup(value).replaceAllUsesWith(
          body.getArgument(numArgs + i));
  eraseDeadClones();
  if (budget > 0 && failed(chooseUnderBudget()))
    return failure();
  SmallVector<Value> saved;
  for (Operation *op : clonedOps)
    for (OpResult result : op->getResults())
      if (isSaved(result))
        saved.push_back(result);
  llvm::for_each(saved, [&](Value clone) { save(clone); });
  eraseDeadClones();
  for (Operation *op : clonedOps)
    op->setAttr(attn::kRecomputeAttrName, UnitAttr::get(op->getContext()));
  sinkOps();
  return success();
}

/// The op of `body` that holds `user`, or null.
static Operation *readerIn(Block &body, Operation *user) {
  return body.findAncestorOpInBlock(*user);
}

/// Moves ops to just before their first reader, the last one first so that
/// chains move together, so that values live only from where the gradient
/// needs them: in a block, the attention sublayer is recomputed after the
/// MLP's gradient instead of being held through it. A recomputed forward op
/// reads only arguments and other recomputed values, so it always moves;
/// another op moves only where that keeps no operand alive for longer.
void BackwardBuilder::sinkOps() {
  Block &body = backward.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops)) {
    Operation *first = nullptr;
    for (Operation *user : op->getUsers())
      if (Operation *reader = readerIn(body, user))
        if (!first || reader->isBeforeInBlock(first))
          first = reader;
    // Gradients the function returns stay in the order they were derived.
    if (!first || first->hasTrait<OpTrait::IsTerminator>() || !isPure(op))
      continue;
    auto readAtOrAfter = [&](Value operand) {
      return isa<BlockArgument>(operand) ||
             llvm::any_of(operand.getUsers(), [&](Operation *user) {
               Operation *reader = readerIn(body, user);
               return reader == first || first->isBeforeInBlock(reader);
             });
    };
    if (clonedSet.contains(op) ||
        llvm::all_of(op->getOperands(), readAtOrAfter))
      op->moveBefore(first);
  }
}

/// Erases the forward ops the backward no longer reads.
void BackwardBuilder::eraseDeadClones() {
  SmallVector<Operation *> live;
  for (Operation *op : llvm::reverse(clonedOps)) {
    if (op->use_empty() && isPure(op))
      op->erase();
    else
      live.push_back(op);
  }
  clonedOps.assign(live.rbegin(), live.rend());
  clonedSet.clear();
  clonedSet.insert(clonedOps.begin(), clonedOps.end());
}

/// Saves, of the forward values the gradient rules read, those costliest to
/// recompute per byte (RecomputeCost; the smaller first among equals) while
/// their bytes fit the budget. The unit is an op: its results the rules
/// read are saved together.
LogicalResult BackwardBuilder::chooseUnderBudget() {
  ValueSizes sizes(forward, extents);
  struct Candidate {
    Operation *clone;
    RecomputeCost cost;
    double bytes;
  };
  SmallVector<Candidate> candidates;
  for (Operation *op : clonedOps) {
    Candidate candidate{op, {}, 0};
    for (OpResult result : op->getResults()) {
      if (!isReadByGradient(result))
        continue;
      FailureOr<double> bytes = sizes.bytes(cloneToForward.lookup(result));
      if (failed(bytes))
        return failure();
      candidate.bytes += *bytes;
    }
    FailureOr<RecomputeCost> cost = sizes.recomputeCost(
        cloneToForward.lookup(op->getResult(0)).getDefiningOp());
    if (failed(cost))
      return failure();
    candidate.cost = *cost;
    if (candidate.bytes > 0)
      candidates.push_back(candidate);
  }
  llvm::stable_sort(candidates, [](const Candidate &a, const Candidate &b) {
    return a.cost > b.cost || (!(b.cost > a.cost) && a.bytes < b.bytes);
  });
  double left = static_cast<double>(budget);
  for (const Candidate &candidate : candidates)
    if (candidate.bytes <= left) {
      left -= candidate.bytes;
      savedUnderBudget.insert(candidate.clone);
    }
  return success();
}

/// Whether a gradient rule (an op that is no forward clone) reads `clone`.
bool BackwardBuilder::isReadByGradient(OpResult clone) const {
  return llvm::any_of(clone.getUsers(), [&](Operation *user) {
    return !clonedSet.contains(user);
  });
}

/// Whether the policy saves `clone`, a result of a forward op the backward
/// would recompute.
bool BackwardBuilder::isSaved(OpResult clone) const {
  switch (policy) {
  case SavePolicy::None:
    return isReadByGradient(clone);
  case SavePolicy::Attention:
    return !clone.use_empty() &&
           isa<attn::AttentionOp, attn::LinearCrossEntropyOp>(clone.getOwner());
  case SavePolicy::Selective:
    if (budget > 0)
      return savedUnderBudget.contains(clone.getOwner()) &&
             isReadByGradient(clone);
    return !clone.use_empty() &&
           isa<attn::AttentionOp, attn::MatmulOp>(clone.getOwner());
  case SavePolicy::Full:
    return false;
  }
  return false;
}

/// Makes the forward value `clone` recomputes a result of @f (after its
/// other results) and an argument of @f_bwd (after @f's other results,
/// before the cotangents) that replaces `clone`.
void BackwardBuilder::save(Value clone) {
  Value value = cloneToForward.lookup(clone);
  unsigned index = forward.getNumResults();
  OpBuilder b(forward);
  (void)forward.insertResult(index, value.getType(),
                             b.getDictionaryAttr(b.getNamedAttr(
                                 attn::kSavedAttrName, b.getUnitAttr())));
  forward.getBody().front().getTerminator()->insertOperands(index, value);
  unsigned position = forward.getNumArguments() + index;
  (void)backward.insertArgument(position, value.getType(), DictionaryAttr(),
                                value.getLoc());
  clone.replaceAllUsesWith(backward.getArgument(position));
}

FailureOr<func::FuncOp> BackwardBuilder::build() {
  backward = createFunction();
  Block &body = backward.getBody().front();
  forwardToBackward.map(forward.getArguments(), body.getArguments().take_front(
                                                    forward.getNumArguments()));
  OpBuilder b = OpBuilder::atBlockEnd(&body);
  for (Operation &op : forward.getBody().front().without_terminator()) {
    clonedOps.push_back(b.clone(op, forwardToBackward));
    for (auto [original, clone] :
         llvm::zip(op.getResults(), clonedOps.back()->getResults()))
      cloneToForward[clone] = original;
  }
  unsigned next = forward.getNumArguments() + forward.getNumResults();
  for (Value value : returned)
    if (takesCotangent(value) &&
        failed(addCotangent(forwardToBackward.lookupOrDefault(value),
                            body.getArgument(next++), forward.getLoc())))
      return failure();
  for (Operation *op : llvm::reverse(clonedOps))
    if (failed(differentiate(op)))
      return failure();
  if (failed(finish()))
    return failure();
  return backward;
}

struct AttnDeriveBackwardPass
    : attnc::impl::AttnDeriveBackwardBase<AttnDeriveBackwardPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<func::FuncOp> marked;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func.isPublic() &&
          (allFunctions || func->hasAttr(attn::kBackwardAttrName)))
        marked.push_back(func);
    FailureOr<SavePolicy> policy = parseSavePolicy(remat);
    if (failed(policy)) {
      getOperation().emitError()
          << "unknown remat policy '" << remat
          << "' (expected none, attention, selective or full)";
      return signalPassFailure();
    }
    if (rematBudget > 0 && *policy != SavePolicy::Selective) {
      getOperation().emitError() << "a remat budget needs remat=selective";
      return signalPassFailure();
    }
    FailureOr<SymbolExtents> extents =
        parseSymbolExtents(symbols, getOperation());
    if (failed(extents))
      return signalPassFailure();
    SymbolTable symbolTable(getOperation());
    for (func::FuncOp func : marked) {
      func->removeAttr(attn::kBackwardAttrName);
      std::string name = (func.getName() + "_bwd").str();
      if (symbolTable.lookup(name)) {
        func.emitError() << "cannot derive '" << name
                         << "': the module already has a symbol of that name";
        return signalPassFailure();
      }
      FailureOr<func::FuncOp> backward =
          BackwardBuilder(func, deterministic, *policy, rematBudget, *extents)
              .build();
      if (failed(backward))
        return signalPassFailure();
      symbolTable.insert(*backward);
    }
  }
};

} // namespace
