//===- Runtime.cpp - Runtime, Package and Function handles ----------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The device-independent half of a call: tensors are checked against the
// signature here, and the program runs on them (Executor.h) with grids and
// buffer shapes resolved from the bound symbols, so that a device only ever
// sees arguments that match its kernels.
//
//===----------------------------------------------------------------------===//

#include "attnc/runtime/Runtime.h"

#include "Device.h"
#include "Executor.h"

#include "lib/support/Extents.h"

#include <algorithm>
#include <limits>

using namespace attnc;
using namespace attnc::rt;
using detail::KernelArg;

static std::string joined(const std::vector<std::string> &items) {
  std::string text;
  for (const std::string &item : items)
    text += (text.empty() ? "" : ", ") + item;
  return text;
}

//===----------------------------------------------------------------------===//
// SymbolBindings
//===----------------------------------------------------------------------===//

Status SymbolBindings::bind(const std::string &symbol, int64_t extent,
                            const std::string &origin) {
  auto [it, inserted] = bindings_.emplace(symbol, Binding{extent, origin});
  if (inserted || it->second.extent == extent)
    return Status::ok();
  return Status::error("symbol " + symbol + " bound to " +
                       std::to_string(it->second.extent) + " by " +
                       it->second.origin + " but " + origin + " is " +
                       std::to_string(extent));
}

Status SymbolBindings::bindShape(const pkg::TensorSig &sig,
                                 const std::vector<int64_t> &shape,
                                 const std::string &role) {
  if (shape.size() != sig.shape.size())
    return Status::error(role + " has rank " + std::to_string(shape.size()) +
                         ", expected " + std::to_string(sig.shape.size()));
  for (size_t i = 0; i < shape.size(); ++i) {
    std::string dim = " dim " + std::to_string(i);
    const pkg::Dim &expected = sig.shape[i];
    if (shape[i] < 0)
      return Status::error(role + dim + " has negative extent " +
                           std::to_string(shape[i]));
    if (shape[i] > kMaxExtent)
      return Status::error(role + dim + " is " + std::to_string(shape[i]) +
                           ", above the largest extent " +
                           std::to_string(kMaxExtent));
    if (expected.isStatic() && shape[i] != expected.extent)
      return Status::error(role + dim + " is " + std::to_string(shape[i]) +
                           ", expected " + std::to_string(expected.extent));
    if (!expected.isStatic())
      if (Status s = bind(expected.symbol, shape[i], sig.name + dim); !s)
        return s;
  }
  return Status::ok();
}

std::optional<int64_t> SymbolBindings::lookup(const std::string &symbol) const {
  auto it = bindings_.find(symbol);
  if (it == bindings_.end())
    return std::nullopt;
  return it->second.extent;
}

StatusOr<std::vector<int64_t>>
SymbolBindings::resolve(const pkg::TensorSig &sig) const {
  std::vector<int64_t> shape;
  std::vector<std::string> unbound;
  for (const pkg::Dim &dim : sig.shape) {
    std::optional<int64_t> extent =
        dim.isStatic() ? dim.extent : lookup(dim.symbol);
    if (extent)
      shape.push_back(*extent);
    else if (std::find(unbound.begin(), unbound.end(), dim.symbol) ==
             unbound.end())
      unbound.push_back(dim.symbol);
  }
  if (!unbound.empty())
    return Status::error("unbound symbols in the shape of " + sig.name + ": " +
                         joined(unbound));
  return shape;
}

std::map<std::string, int64_t> SymbolBindings::values() const {
  std::map<std::string, int64_t> result;
  for (const auto &[symbol, binding] : bindings_)
    result[symbol] = binding.extent;
  return result;
}

//===----------------------------------------------------------------------===//
// Function
//===----------------------------------------------------------------------===//

/// Bytes from the first to one past the last element of a non-empty tensor
/// of `elementSize`-byte elements; nullopt if that overflows.
static std::optional<int64_t> spanBytes(const KernelArg &arg,
                                        size_t elementSize) {
  int64_t lastElement = 0;
  for (size_t i = 0; i < arg.shape.size(); ++i) {
    int64_t offset = arg.shape[i] - 1;
    if (!checkedMul(offset, arg.strides[i]) ||
        __builtin_add_overflow(lastElement, offset, &lastElement))
      return std::nullopt;
  }
  int64_t bytes = lastElement + 1;
  if (!checkedMul(bytes, static_cast<int64_t>(elementSize)))
    return std::nullopt;
  return bytes;
}

/// Checks one tensor against its signature and `device`, binding its
/// symbols, and returns it with explicit strides. `role` names it in
/// messages ("input q").
static StatusOr<KernelArg> checkTensor(const TensorRef &tensor,
                                       const pkg::TensorSig &sig,
                                       const std::string &role,
                                       const detail::Device &device,
                                       SymbolBindings &symbols) {
  if (tensor.dtype != sig.dtype)
    return Status::error(
        role + " has dtype " + std::string(pkg::dtypeName(tensor.dtype)) +
        ", expected " + std::string(pkg::dtypeName(sig.dtype)));
  if (Status s = symbols.bindShape(sig, tensor.shape, role); !s)
    return s;

  size_t rank = tensor.shape.size();
  KernelArg arg{tensor.data, tensor.shape, tensor.strides, tensor.dtype};
  if (arg.strides.empty()) {
    auto strides = denseStrides(tensor.shape);
    if (!strides)
      return Status::error(role + " is too large to address");
    arg.strides = std::move(*strides);
  } else if (arg.strides.size() != rank) {
    return Status::error(role + " has " + std::to_string(arg.strides.size()) +
                         " strides for rank " + std::to_string(rank));
  }
  for (size_t i = 0; i < rank; ++i)
    if (arg.strides[i] < 0)
      return Status::error(role + " dim " + std::to_string(i) +
                           " has negative stride " +
                           std::to_string(arg.strides[i]));
  std::optional<int64_t> numElements = elementCount(tensor.shape);
  if (!numElements)
    return Status::error(role + " is too large to address");
  // An empty tensor is never dereferenced (frameworks give it null data).
  if (*numElements == 0)
    return arg;
  if (!tensor.data)
    return Status::error(role + " has null data");
  std::optional<int64_t> bytes = spanBytes(arg, pkg::dtypeSize(sig.dtype));
  if (!bytes)
    return Status::error(role + " is too large to address");
  if (Status s = device.checkAccess(tensor.data, static_cast<size_t>(*bytes));
      !s)
    return s.withContext(role);
  return arg;
}

/// Checks `tensors` against `sigs` into `args`; messages call each tensor
/// `kind` and its name ("input q").
static Status checkTensors(const std::vector<TensorRef> &tensors,
                           const std::vector<pkg::TensorSig> &sigs,
                           const char *kind, const detail::Device &device,
                           SymbolBindings &symbols, KernelArg *args) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    auto arg = checkTensor(tensors[i], sigs[i], kind + (" " + sigs[i].name),
                           device, symbols);
    if (!arg)
      return arg.status();
    args[i] = std::move(*arg);
  }
  return Status::ok();
}

/// Whether distinct indices of `arg` may address the same element: dims of
/// more than one element, by increasing stride, must each step past the
/// whole extent of the ones before (a stride of 0 never does).
static bool selfOverlapping(const KernelArg &arg) {
  std::vector<std::pair<int64_t, int64_t>> dims; // (stride, extent)
  for (size_t i = 0; i < arg.shape.size(); ++i)
    if (arg.shape[i] > 1)
      dims.push_back({arg.strides[i], arg.shape[i]});
  std::sort(dims.begin(), dims.end());
  int64_t covered = 1; // elements one step of the next dim must clear
  for (auto [stride, extent] : dims) {
    if (stride < covered)
      return true;
    if (__builtin_mul_overflow(stride, extent, &covered))
      covered = std::numeric_limits<int64_t>::max();
  }
  return false;
}

/// Whether output `o` is exactly input `i` (the same data, shape and
/// strides) where the function says that output updates that input.
static bool updatesInPlace(const pkg::Function &fn,
                           const std::vector<KernelArg> &values, size_t o,
                           size_t i) {
  size_t first = fn.inputs.size();
  auto found = fn.updates.find(fn.outputs[o - first].name);
  return i < first && found != fn.updates.end() &&
         found->second == fn.inputs[i].name &&
         values[o].data == values[i].data &&
         values[o].shape == values[i].shape &&
         values[o].strides == values[i].strides;
}

/// Outputs are written, so each must address every element once and none
/// may share memory with another output or an input (kernels read inputs
/// while writing outputs), unless it is the very input it updates in place
/// (pkg::Function::updates). `values` holds the checked inputs, then
/// outputs.
static Status checkOutputsDisjoint(const pkg::Function &fn,
                                   const std::vector<KernelArg> &values) {
  size_t first = fn.inputs.size(), end = first + fn.outputs.size();
  // Each tensor's bytes [begin, finish), once; empty for empty tensors.
  std::vector<std::pair<uintptr_t, uintptr_t>> bytes(end, {0, 0});
  for (size_t i = 0; i < end; ++i) {
    const pkg::TensorSig &sig =
        i < first ? fn.inputs[i] : fn.outputs[i - first];
    std::optional<int64_t> count = elementCount(values[i].shape);
    if (!count || *count == 0 || !values[i].data)
      continue;
    auto begin = reinterpret_cast<uintptr_t>(values[i].data);
    bytes[i] = {begin, begin + static_cast<uintptr_t>(*spanBytes(
                                   values[i], pkg::dtypeSize(sig.dtype)))};
  }
  auto nameOf = [&](size_t i) {
    return i < first ? "input " + fn.inputs[i].name
                     : "output " + fn.outputs[i - first].name;
  };
  for (size_t o = first; o < end; ++o) {
    auto [begin, finish] = bytes[o];
    if (begin == finish)
      continue;
    if (selfOverlapping(values[o]))
      return Status::error(nameOf(o) +
                           " has strides that address an element more than "
                           "once (a stride of 0, or overlapping dims)");
    for (size_t other = 0; other < o; ++other) // inputs, earlier outputs
      if (begin < bytes[other].second && bytes[other].first < finish &&
          !updatesInPlace(fn, values, o, other))
        return Status::error(nameOf(o) + " overlaps " + nameOf(other) +
                             " in memory");
  }
  return Status::ok();
}

Function::Function(std::shared_ptr<const detail::LoadedPackage> package,
                   const pkg::Function *function,
                   const detail::FunctionPlan *plan)
    : package_(std::move(package)), function_(function), plan_(plan) {}

const std::string &Function::name() const { return function_->name; }

const pkg::Function &Function::signature() const { return *function_; }

const std::string &Function::device() const { return package_->device->name(); }

/// Why `fn` cannot run on `target`, for a function that does not.
static Status cannotRun(const pkg::Function &fn, const std::string &target) {
  std::vector<std::string> targets = fn.targets();
  return Status::error("function '" + fn.name +
                       "' has no kernels for target '" + target + "' (" +
                       (targets.empty()
                            ? "it has no kernels"
                            : "it has kernels for " + joined(targets)) +
                       ")");
}

Status Function::call(const std::vector<TensorRef> &inputs,
                      const std::vector<TensorRef> &outputs,
                      void *stream) const {
  return run(inputs, outputs, stream, nullptr);
}

StatusOr<std::vector<double>>
Function::profile(const std::vector<TensorRef> &inputs,
                  const std::vector<TensorRef> &outputs, void *stream) const {
  detail::StepMarks marks;
  if (Status s = run(inputs, outputs, stream, &marks); !s)
    return s;
  const detail::Device &device = *package_->device;
  std::vector<double> millis;
  for (size_t i = 1; i < marks.size(); ++i) {
    auto elapsed = device.elapsedMilliseconds(*marks[i - 1], *marks[i]);
    if (!elapsed)
      return elapsed.status();
    millis.push_back(*elapsed);
  }
  return millis;
}

Status Function::run(const std::vector<TensorRef> &inputs,
                     const std::vector<TensorRef> &outputs, void *stream,
                     detail::StepMarks *marks) const {
  const pkg::Function &fn = *function_;
  const detail::Device &device = *package_->device;
  if (!plan_)
    return cannotRun(fn, device.target());
  if (inputs.size() != fn.inputs.size())
    return Status::error("function '" + fn.name + "' takes " +
                         std::to_string(fn.inputs.size()) + " inputs, got " +
                         std::to_string(inputs.size()));
  if (outputs.size() != fn.outputs.size())
    return Status::error("function '" + fn.name + "' takes " +
                         std::to_string(fn.outputs.size()) + " outputs, got " +
                         std::to_string(outputs.size()));

  // The plan's numbering: inputs, outputs, then the buffers and views
  // runProgram adds.
  SymbolBindings symbols;
  std::vector<KernelArg> values(fn.inputs.size() + fn.outputs.size() +
                                fn.buffers.size() + fn.views.size());
  if (Status s = checkTensors(inputs, fn.inputs, "input", device, symbols,
                              values.data());
      !s)
    return s;
  if (Status s = checkTensors(outputs, fn.outputs, "output", device, symbols,
                              values.data() + fn.inputs.size());
      !s)
    return s;
  if (Status s = checkOutputsDisjoint(fn, values); !s)
    return s;
  if (Status s = device.checkStream(stream); !s)
    return s;
  return detail::runProgram(device, *plan_, symbols, values, stream, marks);
}

//===----------------------------------------------------------------------===//
// Package
//===----------------------------------------------------------------------===//

Package::Package(std::shared_ptr<const detail::LoadedPackage> impl)
    : impl_(std::move(impl)) {}

const std::string &Package::origin() const { return impl_->origin; }

const pkg::Package &Package::manifest() const { return impl_->manifest; }

std::vector<std::string> Package::functionNames() const {
  std::vector<std::string> names;
  for (const pkg::Function &fn : impl_->manifest.functions)
    names.push_back(fn.name);
  return names;
}

StatusOr<Function> Package::function(const std::string &name) const {
  const std::vector<pkg::Function> &functions = impl_->manifest.functions;
  for (size_t i = 0; i < functions.size(); ++i)
    if (functions[i].name == name) {
      const std::optional<detail::FunctionPlan> &plan = impl_->plans[i];
      return Function(impl_, &functions[i], plan ? &*plan : nullptr);
    }
  std::vector<std::string> names = functionNames();
  return Status::error("no function '" + name + "' in " + impl_->origin +
                       (names.empty() ? " (it has no functions)"
                                      : "; available: " + joined(names)));
}

//===----------------------------------------------------------------------===//
// Event
//===----------------------------------------------------------------------===//

Event::Event(std::shared_ptr<detail::Device> device,
             std::shared_ptr<const detail::DeviceEvent> event)
    : device_(std::move(device)), event_(std::move(event)) {}

StatusOr<double> Event::millisecondsSince(const Event &start) const {
  // Devices of one name are one implementation sharing one device.
  if (start.device_->name() != device_->name())
    return Status::error("events recorded on " + start.device_->name() +
                         " and " + device_->name() + " cannot be compared");
  return device_->elapsedMilliseconds(*start.event_, *event_);
}

Status Event::wait() const { return device_->synchronize(*event_); }

//===----------------------------------------------------------------------===//
// Runtime
//===----------------------------------------------------------------------===//

Runtime::Runtime(std::shared_ptr<detail::Device> device)
    : device_(std::move(device)) {}

StatusOr<Runtime> Runtime::open(const std::string &device) {
  auto opened = detail::openDevice(device);
  if (!opened)
    return opened.status();
  return Runtime(std::move(*opened));
}

const std::string &Runtime::device() const { return device_->name(); }

StatusOr<Package> Runtime::load(const std::string &path) const {
  return loadParsed(pkg::readFile(path), path);
}

StatusOr<Package> Runtime::loadFromMemory(const void *data, size_t size) const {
  const std::string origin = "<memory>";
  if (!data && size != 0)
    return Status::error(origin + ": null data of size " +
                         std::to_string(size));
  return loadParsed(
      pkg::parse(static_cast<const uint8_t *>(data), size, origin), origin);
}

StatusOr<Package> Runtime::loadParsed(StatusOr<pkg::Package> parsed,
                                      const std::string &origin) const {
  if (!parsed)
    return parsed.status();
  auto kernels = device_->load(*parsed);
  if (!kernels)
    return kernels.status().withContext(origin);
  auto loaded = std::make_shared<detail::LoadedPackage>(
      detail::LoadedPackage{device_, origin, std::move(*parsed), {}});
  // The plans point into the manifest, which stays in place from here on.
  if (Status s = detail::planFunctions(*loaded, std::move(*kernels)); !s)
    return s.withContext(origin);
  return Package(std::move(loaded));
}

StatusOr<void *> Runtime::allocate(size_t bytes) const {
  if (bytes == 0)
    return static_cast<void *>(nullptr);
  return device_->allocate(bytes);
}

Status Runtime::free(void *data) const {
  return data ? device_->free(data) : Status::ok();
}

/// The error of a copy of `bytes` bytes from or to a null pointer.
static Status checkCopy(void *dst, const void *src, size_t bytes) {
  if (bytes && (!dst || !src))
    return Status::error(std::string("copy of ") + std::to_string(bytes) +
                         " bytes " + (dst ? "from" : "to") + " a null pointer");
  return Status::ok();
}

Status Runtime::copy(void *dst, const void *src, size_t bytes,
                     CopyKind kind) const {
  if (Status s = checkCopy(dst, src, bytes); !s || bytes == 0)
    return s;
  return device_->copy(dst, src, bytes, kind);
}

StatusOr<void *> Runtime::allocateHost(size_t bytes) const {
  if (bytes == 0)
    return static_cast<void *>(nullptr);
  return device_->allocatePinned(bytes);
}

Status Runtime::freeHost(void *data) const {
  return data ? device_->freePinned(data) : Status::ok();
}

Status Runtime::copyAsync(void *dst, const void *src, size_t bytes,
                          CopyKind kind, void *stream) const {
  if (Status s = checkCopy(dst, src, bytes); !s || bytes == 0)
    return s;
  if (Status s = device_->checkStream(stream); !s)
    return s;
  return device_->copyAsync(dst, src, bytes, kind, stream);
}

Status Runtime::fill(void *data, uint8_t value, size_t bytes) const {
  if (bytes == 0)
    return Status::ok();
  if (!data)
    return Status::error("fill of " + std::to_string(bytes) +
                         " bytes at a null pointer");
  return device_->fill(data, value, bytes);
}

Status Runtime::synchronize(void *stream) const {
  return device_->synchronize(stream);
}

StatusOr<Event> Runtime::record(void *stream) const {
  auto event = device_->record(stream);
  if (!event)
    return event.status();
  return Event(device_, std::move(*event));
}
