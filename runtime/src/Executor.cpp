//===- Executor.cpp - Running a function's program ------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// One allocation per call, not one per buffer: which buffers may share
// memory follows from their lifetimes (and the compiler's slots), and a
// single stream-ordered
// allocation keeps a call's cost on CUDA to one allocation and one free
// that the device's memory pool serves without synchronizing.
//
// Everything a call does not need its tensors for is resolved at load
// (planFunctions): the kernel of each step and its argument indices. A call
// then only binds symbols, sizes the workspace and launches.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "lib/support/Extents.h"

#include <algorithm>
#include <utility>

using namespace attnc;
using namespace attnc::rt;
using namespace attnc::rt::detail;

namespace {

//===----------------------------------------------------------------------===//
// Planning, once per package
//===----------------------------------------------------------------------===//

std::string stepContext(size_t index, const std::string &kernel) {
  return "step " + std::to_string(index) + " (kernel '" + kernel + "')";
}

/// The index of each value of `function` in a call's values: inputs,
/// outputs, buffers, then views.
std::map<std::string, size_t> valueIndices(const pkg::Function &function) {
  std::map<std::string, size_t> indices;
  size_t next = 0;
  for (const auto *list : {&function.inputs, &function.outputs})
    for (const pkg::TensorSig &sig : *list)
      indices[sig.name] = next++;
  for (const pkg::Buffer &buffer : function.buffers)
    indices[buffer.tensor.name] = next++;
  for (const pkg::View &view : function.views)
    indices[view.tensor.name] = next++;
  return indices;
}

StatusOr<StepPlan> planStep(const pkg::Function &function,
                            const pkg::Step &step,
                            const FunctionKernels &kernels,
                            const std::map<std::string, size_t> &indices,
                            const std::string &target) {
  auto loaded = kernels.find(step.kernel);
  const pkg::Kernel *kernel = function.findKernel(step.kernel, target);
  if (loaded == kernels.end() || !kernel)
    return Status::error("no kernel of that name is loaded for target '" +
                         target + "'");
  StepPlan plan{loaded->second.get(), kernel, {}};
  std::vector<size_t> ranks;
  for (const std::string &name : step.args) {
    auto index = indices.find(name);
    if (index == indices.end())
      return Status::error("no value named '" + name + "'");
    plan.args.push_back(index->second);
    ranks.push_back(function.findValue(name)->shape.size());
  }
  if (Status s = plan.kernel->checkArgs(ranks); !s)
    return s;
  return plan;
}

StatusOr<FunctionPlan> planFunction(const pkg::Function &function,
                                    FunctionKernels kernels,
                                    const std::string &target) {
  FunctionPlan plan{&function, {}, {}, pkg::bufferLifetimes(function), {}};
  std::map<std::string, size_t> indices = valueIndices(function);
  for (const pkg::View &view : function.views)
    plan.viewSources.push_back(indices.at(view.of));
  for (size_t i = 0; i < function.steps.size(); ++i) {
    const pkg::Step &step = function.steps[i];
    auto planned = planStep(function, step, kernels, indices, target);
    if (!planned)
      return planned.status().withContext(stepContext(i, step.kernel));
    plan.steps.push_back(std::move(*planned));
  }
  // The steps point at the kernels, which the map's move keeps in place.
  plan.kernels = std::move(kernels);
  return plan;
}

//===----------------------------------------------------------------------===//
// Running, once per call
//===----------------------------------------------------------------------===//

/// Resolves every buffer's shape into `buffers` (dense, no data yet; null
/// to only size the workspace) and lays the buffers out in one workspace
/// (pkg::layoutWorkspace).
StatusOr<pkg::WorkspaceLayout> planWorkspace(const FunctionPlan &plan,
                                             const SymbolBindings &symbols,
                                             KernelArg *buffers) {
  const pkg::Function &function = *plan.function;
  std::vector<size_t> bufferBytes;
  for (size_t b = 0; b < function.buffers.size(); ++b) {
    const pkg::TensorSig &tensor = function.buffers[b].tensor;
    auto shape = symbols.resolve(tensor);
    if (!shape)
      return shape.status();
    auto bytes = denseBytes(*shape, pkg::dtypeSize(tensor.dtype));
    auto strides = denseStrides(*shape);
    if (!bytes || !strides)
      return Status::error("buffer " + tensor.name +
                           " is too large to address");
    bufferBytes.push_back(static_cast<size_t>(*bytes));
    if (buffers)
      buffers[b] = KernelArg{nullptr, std::move(*shape), std::move(*strides),
                             tensor.dtype};
  }
  return pkg::layoutWorkspace(function, bufferBytes, plan.lifetimes);
}

/// A heads view of `of` [B, N, H * D] (of any strides): [B, H, N, D], whose
/// head h starts at column h * D.
KernelArg headsView(const KernelArg &of, int64_t heads) {
  KernelArg arg = of;
  int64_t width = of.shape[2] / heads;
  arg.shape = {of.shape[0], heads, of.shape[1], width};
  arg.strides = {of.strides[0], width * of.strides[2], of.strides[1],
                 of.strides[2]};
  return arg;
}

/// Each view of the function as its rows of the value it views, which
/// `values` holds (inputs, outputs, buffers, then the views to fill); a view
/// of a rank-1 value in its own shape; a heads view of all of it.
Status resolveViews(const FunctionPlan &plan, std::vector<KernelArg> &values) {
  const pkg::Function &function = *plan.function;
  size_t first = values.size() - function.views.size();
  for (size_t v = 0; v < function.views.size(); ++v) {
    const pkg::View &view = function.views[v];
    const KernelArg &of = values[plan.viewSources[v]];
    if (view.heads) {
      // verifyView checked the ranks and that the heads divide of's columns.
      values[first + v] = headsView(of, view.heads);
      continue;
    }
    int64_t rows = view.rowsOf(of.shape.size());
    if (of.shape.empty() || of.shape[0] < view.begin + rows)
      return Status::error("view '" + view.tensor.name + "' takes rows [" +
                           std::to_string(view.begin) + ", " +
                           std::to_string(view.begin + rows) + ") of '" +
                           view.of + "', which has " +
                           std::to_string(of.shape.empty() ? 0 : of.shape[0]) +
                           " rows");
    KernelArg arg = of;
    arg.shape[0] = rows;
    if (of.shape.size() == 1) {
      // verifyView checked that every dim is static, and the element count
      // fits within `of`, so the strides do not overflow.
      arg.shape.clear();
      for (const pkg::Dim &dim : view.tensor.shape)
        arg.shape.push_back(dim.extent);
      arg.strides = *denseStrides(arg.shape);
      for (int64_t &stride : arg.strides)
        stride *= of.strides[0];
    }
    if (of.data)
      arg.data = static_cast<uint8_t *>(of.data) +
                 view.begin * of.strides[0] * pkg::dtypeSize(of.dtype);
    values[first + v] = std::move(arg);
  }
  return Status::ok();
}

/// One call's workspace, freed in stream order by release() or, should an
/// exception unwind the call, when it goes out of scope.
class Workspace {
public:
  Workspace(const Device &device, void *stream)
      : device_(device), stream_(stream) {}
  ~Workspace() { (void)release(); }
  Workspace(const Workspace &) = delete;
  Workspace &operator=(const Workspace &) = delete;

  /// Nothing is allocated for zero bytes.
  Status acquire(size_t bytes) {
    if (bytes == 0)
      return Status::ok();
    auto data = device_.allocateWorkspace(bytes, stream_);
    if (!data)
      return data.status();
    data_ = static_cast<uint8_t *>(*data);
    return Status::ok();
  }
  uint8_t *data() const { return data_; }
  Status release() {
    uint8_t *data = std::exchange(data_, nullptr);
    return data ? device_.freeWorkspace(data, stream_) : Status::ok();
  }

private:
  const Device &device_;
  void *stream_;
  uint8_t *data_ = nullptr;
};

/// The grid of `kernel` with its symbols replaced by their bound extents.
StatusOr<GridExtents> resolveGrid(const pkg::Kernel &kernel,
                                  const SymbolBindings &symbols) {
  if (kernel.grid.size() > 3)
    return Status::error("kernel grid has " +
                         std::to_string(kernel.grid.size()) +
                         " dimensions, at most 3 allowed");
  GridExtents grid = {1, 1, 1};
  int64_t total = 1;
  for (size_t d = 0; d < kernel.grid.size(); ++d) {
    for (const pkg::GridTerm &term : kernel.grid[d]) {
      int64_t factor = term.constant;
      for (const std::string &symbol : term.symbols) {
        std::optional<int64_t> extent = symbols.lookup(symbol);
        if (!extent)
          return Status::error("kernel grid uses symbol " + symbol +
                               ", which no tensor binds");
        if (!checkedMul(factor, *extent))
          return Status::error("kernel grid dim " + std::to_string(d) +
                               " overflows");
      }
      if (term.divisor <= 0)
        return Status::error("kernel grid dim " + std::to_string(d) +
                             " divides by " + std::to_string(term.divisor));
      factor = factor / term.divisor + (factor % term.divisor != 0);
      if (factor < 0 || !checkedMul(grid[d], factor))
        return Status::error("kernel grid dim " + std::to_string(d) +
                             " is negative or overflows");
    }
    if (!checkedMul(total, grid[d]))
      return Status::error("kernel grid has more than 2^63 blocks");
  }
  return grid;
}

/// Launches `step`'s kernel on its values; `args` is scratch space that
/// the steps of a call share.
Status runStep(const StepPlan &step, const SymbolBindings &symbols,
               const std::vector<KernelArg> &values,
               std::vector<const KernelArg *> &args, void *stream) {
  auto grid = resolveGrid(*step.launch, symbols);
  if (!grid)
    return grid.status();
  args.clear();
  for (size_t index : step.args)
    args.push_back(&values[index]);
  // A manifest edited consistently must not launch blocks the code does not
  // bound (or leave some out).
  auto recorded = step.kernel->gridRecord().evaluate(args);
  if (!recorded)
    return recorded.status();
  if (*recorded != *grid)
    return Status::error(
        "the manifest's grid " +
        describeTriple((*grid)[0], (*grid)[1], (*grid)[2]) +
        " is not the grid the kernel's code records for these arguments, " +
        describeTriple((*recorded)[0], (*recorded)[1], (*recorded)[2]));
  return step.kernel->launch(args, *grid, stream);
}

/// Appends an event of `stream`'s current point to `marks`, if any.
Status mark(const Device &device, void *stream, StepMarks *marks) {
  if (!marks)
    return Status::ok();
  auto event = device.record(stream);
  if (!event)
    return event.status();
  marks->push_back(std::move(*event));
  return Status::ok();
}

/// Runs steps `first` and `first + 1`, which is concurrent, at the same
/// time: the second on a stream forked from `stream`, then joined back.
/// Marks each as runSteps does; the second's mark follows the join.
Status runPair(const Device &device, const FunctionPlan &plan, size_t first,
               const SymbolBindings &symbols,
               const std::vector<KernelArg> &values,
               std::vector<const KernelArg *> &args, void *stream,
               StepMarks *marks) {
  const StepPlan &one = plan.steps[first], &other = plan.steps[first + 1];
  auto side = device.fork(stream);
  if (!side)
    return side.status().withContext(
        stepContext(first + 1, other.launch->name));
  Status result = runStep(one, symbols, values, args, stream);
  if (!result)
    result = result.withContext(stepContext(first, one.launch->name));
  else if (result = mark(device, stream, marks); result) {
    result = runStep(other, symbols, values, args, *side);
    if (!result)
      result = result.withContext(stepContext(first + 1, other.launch->name));
  }
  // Joined after a failure too: freeing the workspace must wait for
  // whatever the side stream took.
  Status joined = device.join(*side, stream);
  if (!result)
    return result;
  if (!joined)
    return joined;
  return mark(device, stream, marks);
}

/// Runs the steps in order up to the first that fails, whose error the
/// step's context is added to then (and only then).
Status runSteps(const Device &device, const FunctionPlan &plan,
                const SymbolBindings &symbols,
                const std::vector<KernelArg> &values, void *stream,
                StepMarks *marks) {
  std::vector<const KernelArg *> args;
  if (Status s = mark(device, stream, marks); !s)
    return s;
  const std::vector<pkg::Step> &steps = plan.function->steps;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (i + 1 < steps.size() && steps[i + 1].concurrent) {
      if (Status s =
              runPair(device, plan, i, symbols, values, args, stream, marks);
          !s)
        return s;
      ++i;
      continue;
    }
    const StepPlan &step = plan.steps[i];
    if (Status s = runStep(step, symbols, values, args, stream); !s)
      return s.withContext(stepContext(i, step.launch->name));
    if (Status s = mark(device, stream, marks); !s)
      return s;
  }
  return Status::ok();
}

/// Pairs the plan of each gradient function with its forward function's.
void pairGradientPlans(LoadedPackage &package) {
  const std::vector<pkg::Function> &functions = package.manifest.functions;
  for (size_t g = 0; g < functions.size(); ++g) {
    const std::optional<std::string> &forward = functions[g].gradientOf;
    for (size_t f = 0; forward && f < functions.size(); ++f) {
      std::optional<FunctionPlan> &gradient = package.plans[g];
      std::optional<FunctionPlan> &primal = package.plans[f];
      if (functions[f].name != *forward || !gradient || !primal)
        continue;
      gradient->paired = &*primal;
      primal->paired = &*gradient;
    }
  }
}

} // namespace

Status attnc::rt::detail::planFunctions(LoadedPackage &package,
                                        KernelMap kernels) {
  const std::string &target = package.device->target();
  package.plans.clear();
  for (const pkg::Function &function : package.manifest.functions) {
    auto found = kernels.find(function.name);
    if (found == kernels.end()) {
      package.plans.emplace_back();
      continue;
    }
    auto plan = planFunction(function, std::move(found->second), target);
    if (!plan)
      return plan.status().withContext("function '" + function.name + "'");
    package.plans.emplace_back(std::move(*plan));
  }
  pairGradientPlans(package);
  return Status::ok();
}

Status attnc::rt::detail::runProgram(const Device &device,
                                     const FunctionPlan &plan,
                                     const SymbolBindings &symbols,
                                     std::vector<KernelArg> &values,
                                     void *stream, StepMarks *marks) {
  const pkg::Function &function = *plan.function;
  size_t firstBuffer = function.inputs.size() + function.outputs.size();
  if (values.size() !=
      firstBuffer + function.buffers.size() + function.views.size())
    return Status::error("internal error: a call of '" + function.name +
                         "' has " + std::to_string(values.size()) + " values");
  KernelArg *buffers = values.data() + firstBuffer;
  auto layout = planWorkspace(plan, symbols, buffers);
  if (!layout)
    return layout.status();
  size_t bytes = layout->bytes;
  if (plan.paired)
    if (auto paired = planWorkspace(*plan.paired, symbols, nullptr))
      bytes = std::max(bytes, paired->bytes);
  Workspace workspace(device, stream);
  if (Status s = workspace.acquire(bytes); !s)
    return s;
  for (size_t b = 0; b < layout->offsets.size(); ++b)
    if (layout->offsets[b] != SIZE_MAX)
      buffers[b].data = workspace.data() + layout->offsets[b];
  if (Status s = resolveViews(plan, values); !s)
    return s;
  Status result = runSteps(device, plan, symbols, values, stream, marks);
  // The first error wins; the workspace is freed either way.
  Status released = workspace.release();
  return result ? released : result;
}
