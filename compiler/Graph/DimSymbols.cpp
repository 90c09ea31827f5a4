//===- DimSymbols.cpp - Symbolic dims of a function of kernel ops ---------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Graph/DimSymbols.h"

#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include <map>

using namespace mlir;

attnc::DimSymbols::DimSymbols(func::FuncOp func,
                              ArrayRef<ArrayAttr> argumentShapes)
    : ctx(func.getContext()) {
  auto add = [&](Value value) {
    auto type = dyn_cast<ShapedType>(value.getType());
    if (!type)
      return;
    values.push_back(value);
    for (int64_t d = 0; d < type.getRank(); ++d)
      classes.insert({value, d});
  };
  for (Value arg : func.getArguments())
    add(arg);
  for (Operation &op : func.getBody().front().without_terminator())
    for (Value result : op.getResults())
      add(result);
  for (Operation &op : func.getBody().front().without_terminator())
    relate(&op);
  std::map<std::string, Slot> firstWithSymbol;
  for (auto [arg, shape] : llvm::zip(func.getArguments(), argumentShapes))
    for (auto [d, dim] : llvm::enumerate(shape)) {
      auto symbol = dyn_cast<StringAttr>(dim);
      if (!symbol)
        continue;
      Slot slot{arg, static_cast<int64_t>(d)};
      auto [first, inserted] = firstWithSymbol.emplace(symbol.str(), slot);
      if (!inserted)
        classes.unionSets(first->second, slot);
    }
  nameClasses();
}

void attnc::DimSymbols::relate(Operation *op) {
  // Row slices and row concatenations keep every dim but the first.
  if (isa<tensor::ExtractSliceOp, tensor::ConcatOp>(op)) {
    Value result = op->getResult(0);
    for (Value operand : op->getOperands())
      for (int64_t d = 1; d < cast<ShapedType>(result.getType()).getRank(); ++d)
        classes.unionSets({operand, d}, {result, d});
    return;
  }
  auto kernelOp = dyn_cast<attn::KernelOpInterface>(op);
  if (!kernelOp)
    return;
  SmallVector<Value> opValues(op->getOperands());
  llvm::append_range(opValues, op->getResults());
  std::map<int64_t, Slot> firstOfClass;
  std::map<int64_t, std::string> classNames;
  for (auto [value, dims] : llvm::zip(opValues, kernelOp.getDimClasses()))
    for (auto [d, dimClass] : llvm::enumerate(dims)) {
      if (dimClass < 0)
        continue;
      Slot slot{value, static_cast<int64_t>(d)};
      auto [first, inserted] = firstOfClass.emplace(dimClass, slot);
      if (!inserted)
        classes.unionSets(first->second, slot);
      if (StringRef name = kernelOp.getDimClassName(dimClass); !name.empty())
        classNames[dimClass] = name.str();
    }
  for (auto [dimClass, name] : classNames)
    roles[firstOfClass[dimClass]].insert(name);
}

/// The name of a class without a static extent: its roles ("N" where query
/// and key lengths are one dim), or where its first dim sits.
std::string attnc::DimSymbols::baseName(const Slot &leader) const {
  std::set<std::string> all;
  for (auto member = classes.findLeader(leader);
       member != classes.member_end(); ++member)
    if (auto it = roles.find(*member); it != roles.end())
      all.insert(it->second.begin(), it->second.end());
  if (all.count("Nq") && all.count("Nk"))
    return "N";
  if (!all.empty())
    return *all.begin();
  for (auto [index, value] : llvm::enumerate(values))
    for (int64_t d = 0; d < cast<ShapedType>(value.getType()).getRank(); ++d)
      if (classes.isEquivalent({value, d}, leader))
        return "d" + std::to_string(index) + "_" + std::to_string(d);
  return "d";
}

void attnc::DimSymbols::nameClasses() {
  Builder b(ctx);
  std::set<std::string> taken;
  for (Value value : values) {
    auto type = cast<ShapedType>(value.getType());
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Slot leader = classes.getLeaderValue({value, d});
      if (names.count(leader))
        continue;
      std::optional<int64_t> extent;
      for (auto member = classes.findLeader(leader);
           member != classes.member_end(); ++member) {
        int64_t size =
            cast<ShapedType>(member->first.getType()).getDimSize(member->second);
        if (!ShapedType::isDynamic(size))
          extent = size;
      }
      if (extent) {
        names[leader] = b.getI64IntegerAttr(*extent);
        continue;
      }
      // Two classes with one role ("Nk" of two attentions) count up.
      std::string name = baseName(leader), unique = name;
      for (int suffix = 1; taken.count(unique); ++suffix)
        unique = name + std::to_string(suffix);
      taken.insert(unique);
      names[leader] = b.getStringAttr(unique);
    }
  }
}

ArrayAttr attnc::DimSymbols::shapeOf(Value value) const {
  SmallVector<Attribute> dims;
  for (int64_t d = 0; d < cast<ShapedType>(value.getType()).getRank(); ++d)
    dims.push_back(names.lookup(classes.getLeaderValue({value, d})));
  return ArrayAttr::get(ctx, dims);
}

std::optional<std::pair<std::string, int64_t>>
attnc::parseSymbolExtent(llvm::StringRef entry) {
  auto [name, text] = entry.split('=');
  int64_t extent;
  if (name.empty() || text.getAsInteger(10, extent) || extent < 0)
    return std::nullopt;
  return std::make_pair(name.str(), extent);
}
