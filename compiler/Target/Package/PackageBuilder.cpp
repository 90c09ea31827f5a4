//===- PackageBuilder.cpp - Describe compiled functions for a package -----===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Target/Package/PackageBuilder.h"

#include "compiler/Conversion/AttnToGPU/AttnToGPU.h"
#include "compiler/Conversion/AttnToTiled/AttnToTiled.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/EquivalenceClasses.h"

#include <map>
#include <set>
#include <tuple>

using namespace mlir;
namespace pkg = attnc::pkg;

namespace {

/// One dim of one signature tensor: (1 for outputs, 0 for inputs, tensor
/// index, dim).
using DimSlot = std::tuple<unsigned, unsigned, unsigned>;

std::optional<pkg::DType> toDType(Type type) {
  if (type.isF32())
    return pkg::DType::F32;
  if (type.isF16())
    return pkg::DType::F16;
  if (type.isBF16())
    return pkg::DType::BF16;
  return std::nullopt;
}

/// Manifest spelling of a scalar type in a region, or empty if unsupported.
std::string regionTypeName(Type type) {
  if (type.isIndex())
    return "index";
  if (auto i = dyn_cast<IntegerType>(type))
    return "i" + std::to_string(i.getWidth());
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  return "";
}

/// Describes a mask or score region as straight-line SSA, or says why not.
FailureOr<pkg::Region> describeRegion(Region &region, std::string &why) {
  pkg::Region result;
  Block &block = region.front();
  llvm::DenseMap<Value, int64_t> numbers;
  for (BlockArgument arg : block.getArguments())
    numbers[arg] = numbers.size();
  result.numArgs = block.getNumArguments();
  for (Operation &op : block.without_terminator()) {
    if (op.getNumResults() != 1 || op.getNumRegions() != 0) {
      why = "op '" + op.getName().getStringRef().str() +
            "' is not a single-result op without regions";
      return failure();
    }
    pkg::RegionOp desc;
    desc.name = op.getName().getStringRef().str();
    desc.type = regionTypeName(op.getResult(0).getType());
    if (desc.type.empty()) {
      why = "op '" + desc.name +
            "' has a result type the reference cannot evaluate";
      return failure();
    }
    for (Value operand : op.getOperands())
      desc.operands.push_back(numbers.lookup(operand));
    if (auto cmp = dyn_cast<arith::CmpIOp>(op))
      desc.predicate = arith::stringifyCmpIPredicate(cmp.getPredicate()).str();
    if (auto cmp = dyn_cast<arith::CmpFOp>(op))
      desc.predicate = arith::stringifyCmpFPredicate(cmp.getPredicate()).str();
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto i = dyn_cast<IntegerAttr>(constant.getValue()))
        desc.value = i.getType().isInteger(1)
                         ? static_cast<double>(i.getValue().getZExtValue())
                         : static_cast<double>(i.getValue().getSExtValue());
      else if (auto f = dyn_cast<FloatAttr>(constant.getValue()))
        desc.value = f.getValue().convertToDouble();
      else {
        why = "a constant is neither an integer nor a float";
        return failure();
      }
    }
    numbers[op.getResult(0)] = numbers.size();
    result.ops.push_back(std::move(desc));
  }
  result.yield = numbers.lookup(block.getTerminator()->getOperand(0));
  return result;
}

/// Describes the semantics of `op`; warns and returns nothing when a region
/// cannot be described.
std::optional<pkg::AttentionSpec> describeAttention(attn::AttentionOp op,
                                                    func::FuncOp func) {
  pkg::AttentionSpec spec;
  spec.scale = op.getEffectiveScale();
  spec.causal = op.getCausal();
  spec.windowLeft = op.getWindowLeft();
  spec.windowRight = op.getWindowRight();
  for (auto [region, slot, name] :
       {std::tuple<Region *, std::optional<pkg::Region> *, StringRef>{
            &op.getMask(), &spec.mask, "mask"},
        {&op.getScore(), &spec.score, "score"}}) {
    if (region->empty())
      continue;
    std::string why;
    FailureOr<pkg::Region> described = describeRegion(*region, why);
    if (failed(described)) {
      op.emitWarning() << "function '" << func.getName()
                       << "' cannot be checked by attn-run: its " << name
                       << " region is not expressible for the reference ("
                       << why << ")";
      return std::nullopt;
    }
    *slot = std::move(*described);
  }
  return spec;
}

FailureOr<pkg::Function>
describeFunction(func::FuncOp func, const attnc::AttentionKernelForm &form,
                 StringRef target, StringRef blob) {
  attn::AttentionOp op = form.op;
  auto inputOf = [&](Value v) { return cast<BlockArgument>(v).getArgNumber(); };
  auto outputOf = [&](bool isOut) {
    return static_cast<unsigned>(llvm::find(form.resultIsOut, isOut) -
                                 form.resultIsOut.begin());
  };
  bool hasOut = llvm::is_contained(form.resultIsOut, true);
  bool hasLse = llvm::is_contained(form.resultIsOut, false);

  // Dims the op forces equal share one symbol (or one static extent).
  llvm::EquivalenceClasses<DimSlot> classes;
  std::map<DimSlot, std::set<std::string>> roleNames;
  auto group = [&](StringRef name, SmallVector<DimSlot> slots) {
    for (const DimSlot &slot : slots) {
      classes.unionSets(slots.front(), slot);
      roleNames[slot].insert(name.str());
    }
  };
  SmallVector<DimSlot> batch = {{0, inputOf(op.getQ()), 0},
                                {0, inputOf(op.getK()), 0},
                                {0, inputOf(op.getV()), 0}};
  SmallVector<DimSlot> querySeq = {{0, inputOf(op.getQ()), 2}};
  SmallVector<DimSlot> keySeq = {{0, inputOf(op.getK()), 2},
                                 {0, inputOf(op.getV()), 2}};
  if (hasOut) {
    batch.push_back({1, outputOf(true), 0});
    querySeq.push_back({1, outputOf(true), 2});
  }
  if (hasLse) {
    batch.push_back({1, outputOf(false), 0});
    querySeq.push_back({1, outputOf(false), 2});
  }
  group("B", batch);
  group("Nq", querySeq);
  group("Nk", keySeq);

  auto typeOf = [&](const DimSlot &slot) {
    auto [isOutput, index, dim] = slot;
    Type t = isOutput ? func.getResultTypes()[index]
                      : func.getArgumentTypes()[index];
    return cast<RankedTensorType>(t);
  };
  // Per class: the static extent of any member, else a symbol named after
  // its role ("N" when query and key lengths are the same dim).
  auto dimOf = [&](const DimSlot &slot) -> pkg::Dim {
    int64_t extent = typeOf(slot).getDimSize(std::get<2>(slot));
    if (!ShapedType::isDynamic(extent))
      return pkg::Dim::fixed(extent);
    if (!classes.contains(slot))
      return pkg::Dim::named("d" + std::to_string(std::get<1>(slot)) + "_" +
                             std::to_string(std::get<2>(slot)));
    std::set<std::string> roles;
    for (auto it = classes.findLeader(slot); it != classes.member_end(); ++it) {
      int64_t member = typeOf(*it).getDimSize(std::get<2>(*it));
      if (!ShapedType::isDynamic(member))
        return pkg::Dim::fixed(member);
      roles.insert(roleNames[*it].begin(), roleNames[*it].end());
    }
    if (roles.count("Nq") && roles.count("Nk"))
      return pkg::Dim::named("N");
    return pkg::Dim::named(*roles.begin());
  };
  auto signature = [&](unsigned isOutput, unsigned index,
                       std::string name) -> FailureOr<pkg::TensorSig> {
    RankedTensorType type = typeOf({isOutput, index, 0});
    std::optional<pkg::DType> dtype = toDType(type.getElementType());
    if (!dtype)
      return func.emitError() << "element type " << type.getElementType()
                              << " cannot be passed to a package function";
    pkg::TensorSig sig{std::move(name), *dtype, {}};
    for (unsigned d = 0; d < type.getRank(); ++d)
      sig.shape.push_back(dimOf({isOutput, index, d}));
    return sig;
  };

  pkg::Function fn;
  fn.name = func.getName().str();
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    Value arg = func.getArgument(i);
    std::string name = arg == op.getQ()   ? "q"
                       : arg == op.getK() ? "k"
                       : arg == op.getV() ? "v"
                                          : "arg" + std::to_string(i);
    FailureOr<pkg::TensorSig> sig = signature(0, i, name);
    if (failed(sig))
      return failure();
    fn.inputs.push_back(std::move(*sig));
  }
  for (auto [i, isOut] : llvm::enumerate(form.resultIsOut)) {
    FailureOr<pkg::TensorSig> sig = signature(1, i, isOut ? "out" : "lse");
    if (failed(sig))
      return failure();
    fn.outputs.push_back(std::move(*sig));
  }

  attn::TilesAttr tiles = *op.getTiles();
  pkg::Kernel kernel;
  kernel.target = target.str();
  kernel.blob = blob.str();
  if (target == "host") {
    kernel.entry = attnc::hostEntryName(func.getName());
  } else {
    attnc::GpuLaunch launch = attnc::getGpuLaunch(op);
    kernel.entry = func.getName().str();
    kernel.block[0] = launch.threads;
    kernel.dynamicSharedMemoryBytes = launch.sharedBytes;
  }
  // Grid (x fastest): query blocks, query heads, batch; see AttnToTiled.
  pkg::Dim seqQ = dimOf({0, inputOf(op.getQ()), 2});
  pkg::Dim batchDim = dimOf({0, inputOf(op.getQ()), 0});
  int64_t blockM = tiles.getBlockM();
  pkg::GridTerm queryBlocks =
      seqQ.isStatic()
          ? pkg::GridTerm{(seqQ.extent + blockM - 1) / blockM, "", 1}
          : pkg::GridTerm{1, seqQ.symbol, blockM};
  pkg::GridTerm batchTerm = batchDim.isStatic()
                                ? pkg::GridTerm{batchDim.extent, "", 1}
                                : pkg::GridTerm{1, batchDim.symbol, 1};
  kernel.grid = {{queryBlocks},
                 {pkg::GridTerm{op.getQ().getType().getDimSize(1), "", 1}},
                 {batchTerm}};
  kernel.config = {{"block_m", blockM}, {"block_n", tiles.getBlockN()}};
  fn.kernels.push_back(std::move(kernel));
  fn.attention = describeAttention(op, func);
  return fn;
}

} // namespace

FailureOr<std::vector<pkg::Function>>
attnc::describePackageFunctions(ModuleOp module, StringRef target,
                                StringRef blob) {
  std::vector<pkg::Function> functions;
  bool failedAny = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic())
      continue;
    FailureOr<AttentionKernelForm> form = matchAttentionKernel(func);
    FailureOr<pkg::Function> fn =
        succeeded(form) ? describeFunction(func, *form, target, blob)
                        : FailureOr<pkg::Function>(failure());
    if (failed(fn)) {
      failedAny = true;
      continue;
    }
    functions.push_back(std::move(*fn));
  }
  if (failedAny)
    return failure();
  if (functions.empty())
    return module.emitError() << "the module has no public function to compile";
  return functions;
}
