//===- Executor.cpp - Running a function's program ------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// One allocation per call, not one per buffer: the compiler already decided
// which buffers may share memory (their slot), and a single stream-ordered
// allocation keeps a call's cost on CUDA to one allocation and one free
// that the driver's pool serves without synchronizing.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include <algorithm>
#include <utility>

using namespace attnc;
using namespace attnc::rt;
using namespace attnc::rt::detail;

namespace {

/// Alignment of every slot's offset in the workspace: what the widest vector
/// accesses (and TMA) of any kernel want.
constexpr size_t kSlotAlignment = 256;

/// Where one buffer lives in a call's workspace.
struct Placement {
  const pkg::Buffer *buffer;
  std::vector<int64_t> shape;
  size_t bytes;
  size_t offset = 0;
};

struct Layout {
  size_t bytes = 0;
  std::vector<Placement> buffers;
};

/// The bytes of a dense tensor of `shape` and `dtype`, if they fit.
std::optional<size_t> denseBytes(const std::vector<int64_t> &shape,
                                 pkg::DType dtype) {
  int64_t bytes = static_cast<int64_t>(pkg::dtypeSize(dtype));
  for (int64_t extent : shape)
    if (!checkedMul(bytes, extent))
      return std::nullopt;
  return static_cast<size_t>(bytes);
}

/// Row-major strides of `shape`, whose element count fits in int64.
std::vector<int64_t> denseStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * shape[i];
  return strides;
}

/// Resolves every buffer's shape and places each slot after the previous
/// one; buffers of one slot share its offset.
StatusOr<Layout> planWorkspace(const pkg::Function &function,
                               const SymbolBindings &symbols) {
  Layout layout;
  std::map<int64_t, size_t> slotBytes;
  for (const pkg::Buffer &buffer : function.buffers) {
    auto shape = symbols.resolve(buffer.tensor);
    if (!shape)
      return shape.status();
    std::optional<size_t> bytes = denseBytes(*shape, buffer.tensor.dtype);
    if (!bytes)
      return Status::error("buffer " + buffer.tensor.name +
                           " is too large to address");
    size_t &slot = slotBytes[buffer.slot];
    slot = std::max(slot, *bytes);
    layout.buffers.push_back(Placement{&buffer, std::move(*shape), *bytes});
  }
  std::map<int64_t, size_t> slotOffsets;
  for (const auto &[slot, bytes] : slotBytes) {
    if (bytes == 0)
      continue;
    size_t offset =
        (layout.bytes + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment;
    if (offset < layout.bytes ||
        __builtin_add_overflow(offset, bytes, &layout.bytes))
      return Status::error("the buffers of function '" + function.name +
                           "' are too large to address");
    slotOffsets[slot] = offset;
  }
  for (Placement &placement : layout.buffers)
    placement.offset = slotOffsets[placement.buffer->slot];
  return layout;
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

/// Launches the kernel of `step` for `device`'s target on its values.
Status runStep(const Device &device, const pkg::Function &function,
               const pkg::Step &step, const FunctionKernels &kernels,
               const SymbolBindings &symbols, const ValueTable &values,
               void *stream) {
  auto loaded = kernels.find(step.kernel);
  const pkg::Kernel *kernel = function.findKernel(step.kernel, device.target());
  if (loaded == kernels.end() || !kernel)
    return Status::error("no kernel of that name is loaded for target '" +
                         device.target() + "'");
  std::vector<KernelArg> args;
  for (const std::string &name : step.args) {
    auto value = values.find(name);
    if (value == values.end())
      return Status::error("no value named '" + name + "'");
    args.push_back(value->second);
  }
  auto grid = resolveGrid(*kernel, symbols);
  if (!grid)
    return grid.status();
  return loaded->second->launch(args, *grid, stream);
}

} // namespace

Status attnc::rt::detail::runProgram(const Device &device,
                                     const pkg::Function &function,
                                     const FunctionKernels &kernels,
                                     const SymbolBindings &symbols,
                                     ValueTable values, void *stream) {
  auto layout = planWorkspace(function, symbols);
  if (!layout)
    return layout.status();
  Workspace workspace(device, stream);
  if (Status s = workspace.acquire(layout->bytes); !s)
    return s;
  for (const Placement &placement : layout->buffers)
    values[placement.buffer->tensor.name] = KernelArg{
        placement.bytes ? workspace.data() + placement.offset : nullptr,
        placement.shape, denseStrides(placement.shape)};

  Status result = Status::ok();
  for (size_t i = 0; i < function.steps.size() && result; ++i) {
    const pkg::Step &step = function.steps[i];
    result = runStep(device, function, step, kernels, symbols, values, stream)
                 .withContext("step " + std::to_string(i) + " (kernel '" +
                              step.kernel + "')");
  }
  // The first error wins; the workspace is freed either way.
  Status released = workspace.release();
  return result ? released : result;
}
