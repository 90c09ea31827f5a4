//===- CApi.cpp - C API of libattnrt --------------------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Thin wrappers over the C++ handles. Each entry point runs its body under
// `guarded`, so that no exception (std::bad_alloc included) crosses into C.
//
//===----------------------------------------------------------------------===//

#include "attnc_runtime.h"

#include "attnc/runtime/Runtime.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <functional>
#include <new>

using namespace attnc;
using namespace attnc::rt;

struct attnc_status_impl {
  std::string message;
};

struct attnc_runtime {
  Runtime runtime;
};

struct attnc_package {
  Package package;
  std::vector<std::string> names;
  std::string manifestJson;
};

struct attnc_function {
  Function function;
};

struct attnc_event {
  Event event;
};

#define ATTNC_CHECK_DTYPE(NAME)                                                \
  static_assert(ATTNC_DTYPE_##NAME == static_cast<int>(pkg::DType::NAME),      \
                "attnc_tensor dtype codes follow pkg::DType")
ATTNC_CHECK_DTYPE(F32);
ATTNC_CHECK_DTYPE(F16);
ATTNC_CHECK_DTYPE(BF16);
ATTNC_CHECK_DTYPE(F64);
ATTNC_CHECK_DTYPE(I1);
ATTNC_CHECK_DTYPE(I32);
ATTNC_CHECK_DTYPE(I64);
ATTNC_CHECK_DTYPE(F8E4M3FN);
ATTNC_CHECK_DTYPE(F8E5M2);
#undef ATTNC_CHECK_DTYPE

namespace {

/// Returned when an error cannot even be allocated; never freed.
attnc_status_impl outOfMemory{"out of memory"};

attnc_status toCStatus(const Status &status) noexcept {
  if (status.isOk())
    return nullptr;
  try {
    return new attnc_status_impl{status.message()};
  } catch (...) {
    return &outOfMemory;
  }
}

/// Runs `body` (which returns a Status) and turns any exception that escapes
/// it into an error status.
template <typename Body> attnc_status guarded(Body &&body) noexcept {
  try {
    return toCStatus(body());
  } catch (const std::bad_alloc &) {
    return &outOfMemory;
  } catch (const std::exception &e) {
    try {
      return toCStatus(
          Status::error(std::string("internal error: ") + e.what()));
    } catch (...) {
      return &outOfMemory;
    }
  } catch (...) {
    return &outOfMemory;
  }
}

/// The error for a null pointer argument of a C entry point.
Status nullArgument(const char *function, const char *argument) {
  return Status::error(std::string(function) + ": " + argument + " is null");
}

/// kDLBool (DLPack >= 0.8): Debian's dlpack.h may predate it.
constexpr uint8_t kDLPackBoolCode = 6;

StatusOr<pkg::DType> fromDLPackDType(DLDataType type) {
  if (type.lanes == 1) {
    switch (type.code) {
    case kDLFloat:
      if (type.bits == 16)
        return pkg::DType::F16;
      if (type.bits == 32)
        return pkg::DType::F32;
      if (type.bits == 64)
        return pkg::DType::F64;
      break;
    case kDLBfloat:
      if (type.bits == 16)
        return pkg::DType::BF16;
      break;
    case kDLInt:
      if (type.bits == 32)
        return pkg::DType::I32;
      if (type.bits == 64)
        return pkg::DType::I64;
      break;
    case kDLPackBoolCode:
      if (type.bits == 8)
        return pkg::DType::I1;
      break;
    default:
      break;
    }
  }
  return Status::error("unsupported dlpack dtype (code " +
                       std::to_string(type.code) + ", bits " +
                       std::to_string(type.bits) + ", lanes " +
                       std::to_string(type.lanes) + ")");
}

Status fromDLPack(const DLTensor *tensor, attnc_tensor *out) {
  if (!tensor)
    return Status::error("dlpack tensor is null");
  if (tensor->device.device_type != kDLCPU &&
      tensor->device.device_type != kDLCUDA)
    return Status::error("dlpack tensor is on device type " +
                         std::to_string(tensor->device.device_type) +
                         ", expected cpu (" + std::to_string(kDLCPU) +
                         ") or cuda (" + std::to_string(kDLCUDA) + ")");
  auto dtype = fromDLPackDType(tensor->dtype);
  if (!dtype)
    return dtype.status();
  if (tensor->ndim < 0 || (tensor->ndim > 0 && !tensor->shape))
    return Status::error("dlpack tensor has rank " +
                         std::to_string(tensor->ndim) +
                         (tensor->shape ? "" : " and a null shape"));
  out->data = tensor->data
                  ? static_cast<char *>(tensor->data) + tensor->byte_offset
                  : nullptr;
  out->dtype = static_cast<int32_t>(*dtype);
  out->rank = tensor->ndim;
  out->shape = tensor->shape;
  out->strides = tensor->strides;
  return Status::ok();
}

/// `tensor` as a TensorRef. Its rank is checked against the signature's
/// `expectedRank` before its shape and strides are read: C gives no other
/// bound on those arrays. `role` ("inputs[0]") and `name` ("input q") name
/// it in messages.
StatusOr<TensorRef> toTensorRef(const attnc_tensor &tensor,
                                const std::string &role,
                                const std::string &name,
                                size_t expectedRank) {
  if (tensor.dtype < ATTNC_DTYPE_F32 || tensor.dtype > ATTNC_DTYPE_F8E5M2)
    return Status::error(role + " has unknown dtype code " +
                         std::to_string(tensor.dtype));
  if (tensor.rank < 0)
    return Status::error(role + " has negative rank " +
                         std::to_string(tensor.rank));
  if (static_cast<size_t>(tensor.rank) != expectedRank)
    return Status::error(name + " has rank " + std::to_string(tensor.rank) +
                         ", expected " + std::to_string(expectedRank));
  if (tensor.rank > 0 && !tensor.shape)
    return Status::error(role + " has a null shape");
  TensorRef ref;
  ref.data = tensor.data;
  ref.dtype = static_cast<pkg::DType>(tensor.dtype);
  ref.shape.assign(tensor.shape, tensor.shape + tensor.rank);
  if (tensor.strides)
    ref.strides.assign(tensor.strides, tensor.strides + tensor.rank);
  return ref;
}

/// Converts `count` C tensors for `sigs`, naming them `role[i]` (inputs,
/// outputs) in messages. A count that differs from the signature's is left
/// to Function::call to report, and no tensor is read past the signature.
StatusOr<std::vector<TensorRef>>
toTensorRefs(const attnc_tensor *tensors, size_t count, const char *role,
             const std::vector<pkg::TensorSig> &sigs) {
  if (count != 0 && !tensors)
    return Status::error(std::string(role) + " is null but its count is " +
                         std::to_string(count));
  std::vector<TensorRef> refs;
  std::string singular(role, std::strlen(role) - 1); // "input", "output"
  for (size_t i = 0; i < std::min(count, sigs.size()); ++i) {
    auto ref = toTensorRef(tensors[i],
                           std::string(role) + "[" + std::to_string(i) + "]",
                           singular + " " + sigs[i].name,
                           sigs[i].shape.size());
    if (!ref)
      return ref.status();
    refs.push_back(std::move(*ref));
  }
  return refs;
}

/// Checks that a DLPack tensor lives on `device` ("host", "cuda:N").
Status checkDLPackDevice(const DLTensor &tensor, const std::string &device) {
  std::string actual = tensor.device.device_type == kDLCPU
                           ? "host"
                           : "cuda:" + std::to_string(tensor.device.device_id);
  if (actual == device)
    return Status::ok();
  return Status::error("dlpack tensor is on " + actual +
                       ", but the function runs on " + device);
}

/// Converts `count` DLPack tensors that must live on `device`, naming them
/// `role[i]` in messages.
StatusOr<std::vector<attnc_tensor>>
fromDLPackArray(const DLTensor *const *tensors, size_t count, const char *role,
                const std::string &device) {
  if (count != 0 && !tensors)
    return Status::error(std::string(role) + " is null but its count is " +
                         std::to_string(count));
  std::vector<attnc_tensor> result(count);
  for (size_t i = 0; i < count; ++i) {
    Status s = fromDLPack(tensors[i], &result[i]);
    if (s)
      s = checkDLPackDevice(*tensors[i], device);
    if (!s)
      return s.withContext(std::string(role) + "[" + std::to_string(i) + "]");
  }
  return result;
}

/// `run(inputs, outputs)` on the TensorRefs of a call's attnc_tensors;
/// `api` names the entry point in errors.
Status withTensorRefs(
    const char *api, const attnc_function *function, const attnc_tensor *inputs,
    size_t nInputs, const attnc_tensor *outputs, size_t nOutputs,
    const std::function<Status(const std::vector<TensorRef> &,
                               const std::vector<TensorRef> &)> &run) {
  if (!function)
    return nullArgument(api, "function");
  const pkg::Function &signature = function->function.signature();
  auto in = toTensorRefs(inputs, nInputs, "inputs", signature.inputs);
  if (!in)
    return in.status();
  auto out = toTensorRefs(outputs, nOutputs, "outputs", signature.outputs);
  if (!out)
    return out.status();
  // Tensors past the signature were not read; their count is the error.
  in->resize(nInputs);
  out->resize(nOutputs);
  return run(*in, *out);
}

Status callFunction(const attnc_function *function, const attnc_tensor *inputs,
                    size_t nInputs, const attnc_tensor *outputs,
                    size_t nOutputs, void *stream) {
  return withTensorRefs(
      "attnc_function_call", function, inputs, nInputs, outputs, nOutputs,
      [&](const std::vector<TensorRef> &in, const std::vector<TensorRef> &out) {
        return function->function.call(in, out, stream);
      });
}

Status profileFunction(const attnc_function *function,
                       const attnc_tensor *inputs, size_t nInputs,
                       const attnc_tensor *outputs, size_t nOutputs,
                       void *stream, double *stepMs, size_t nSteps) {
  return withTensorRefs(
      "attnc_function_profile", function, inputs, nInputs, outputs, nOutputs,
      [&](const std::vector<TensorRef> &in,
          const std::vector<TensorRef> &out) -> Status {
        size_t steps = function->function.signature().steps.size();
        if (nSteps != steps)
          return Status::error("attnc_function_profile: function '" +
                               function->function.name() + "' has " +
                               std::to_string(steps) + " steps, n_steps is " +
                               std::to_string(nSteps));
        if (steps && !stepMs)
          return nullArgument("attnc_function_profile", "step_ms");
        auto millis = function->function.profile(in, out, stream);
        if (!millis)
          return millis.status();
        std::copy(millis->begin(), millis->end(), stepMs);
        return Status::ok();
      });
}

Status wrapPackage(StatusOr<Package> loaded, attnc_package **out) {
  if (!loaded)
    return loaded.status();
  auto handle = std::make_unique<attnc_package>(attnc_package{
      *loaded, loaded->functionNames(), pkg::manifestJson(loaded->manifest())});
  *out = handle.release();
  return Status::ok();
}

} // namespace

//===----------------------------------------------------------------------===//
// Version and status
//===----------------------------------------------------------------------===//

const char *attnc_version(void) { return ATTNC_VERSION_STRING; }

const char *attnc_status_message(attnc_status status) {
  return status ? status->message.c_str() : "ok";
}

void attnc_status_free(attnc_status status) {
  if (status != &outOfMemory)
    delete status;
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

attnc_status attnc_tensor_from_dlpack(const DLTensor *tensor,
                                      attnc_tensor *out) {
  return guarded([&] {
    if (!out)
      return nullArgument("attnc_tensor_from_dlpack", "out");
    return fromDLPack(tensor, out);
  });
}

//===----------------------------------------------------------------------===//
// Runtime, packages, functions
//===----------------------------------------------------------------------===//

attnc_status attnc_runtime_open(const char *device, attnc_runtime **out) {
  return guarded([&] {
    if (!device)
      return nullArgument("attnc_runtime_open", "device");
    if (!out)
      return nullArgument("attnc_runtime_open", "out");
    auto runtime = Runtime::open(device);
    if (!runtime)
      return runtime.status();
    *out = new attnc_runtime{std::move(*runtime)};
    return Status::ok();
  });
}

void attnc_runtime_destroy(attnc_runtime *runtime) { delete runtime; }

attnc_status attnc_package_load(const attnc_runtime *runtime, const char *path,
                                attnc_package **out) {
  return guarded([&] {
    if (!runtime || !path || !out)
      return nullArgument("attnc_package_load", !runtime ? "runtime"
                                                : !path  ? "path"
                                                         : "out");
    return wrapPackage(runtime->runtime.load(path), out);
  });
}

attnc_status attnc_package_load_memory(const attnc_runtime *runtime,
                                       const void *data, size_t size,
                                       attnc_package **out) {
  return guarded([&] {
    if (!runtime || !out)
      return nullArgument("attnc_package_load_memory",
                          !runtime ? "runtime" : "out");
    return wrapPackage(runtime->runtime.loadFromMemory(data, size), out);
  });
}

void attnc_package_destroy(attnc_package *package) { delete package; }

size_t attnc_package_function_count(const attnc_package *package) {
  return package ? package->names.size() : 0;
}

const char *attnc_package_function_name(const attnc_package *package,
                                        size_t index) {
  if (!package || index >= package->names.size())
    return nullptr;
  return package->names[index].c_str();
}

const char *attnc_package_manifest_json(const attnc_package *package) {
  return package ? package->manifestJson.c_str() : nullptr;
}

attnc_status attnc_package_function(const attnc_package *package,
                                    const char *name, attnc_function **out) {
  return guarded([&] {
    if (!package || !name || !out)
      return nullArgument("attnc_package_function", !package ? "package"
                                                    : !name  ? "name"
                                                             : "out");
    auto function = package->package.function(name);
    if (!function)
      return function.status();
    *out = new attnc_function{std::move(*function)};
    return Status::ok();
  });
}

void attnc_function_destroy(attnc_function *function) { delete function; }

attnc_status attnc_function_call(const attnc_function *function,
                                 const attnc_tensor *inputs, size_t n_inputs,
                                 const attnc_tensor *outputs, size_t n_outputs,
                                 void *stream) {
  return guarded([&] {
    return callFunction(function, inputs, n_inputs, outputs, n_outputs, stream);
  });
}

size_t attnc_function_step_count(const attnc_function *function) {
  return function ? function->function.signature().steps.size() : 0;
}

attnc_status attnc_function_profile(const attnc_function *function,
                                    const attnc_tensor *inputs, size_t n_inputs,
                                    const attnc_tensor *outputs,
                                    size_t n_outputs, void *stream,
                                    double *step_ms, size_t n_steps) {
  return guarded([&] {
    return profileFunction(function, inputs, n_inputs, outputs, n_outputs,
                           stream, step_ms, n_steps);
  });
}

attnc_status attnc_function_call_dlpack(const attnc_function *function,
                                        const DLTensor *const *inputs,
                                        size_t n_inputs,
                                        const DLTensor *const *outputs,
                                        size_t n_outputs, void *stream) {
  return guarded([&]() -> Status {
    if (!function)
      return nullArgument("attnc_function_call_dlpack", "function");
    const std::string &device = function->function.device();
    auto in = fromDLPackArray(inputs, n_inputs, "inputs", device);
    if (!in)
      return in.status();
    auto out = fromDLPackArray(outputs, n_outputs, "outputs", device);
    if (!out)
      return out.status();
    return callFunction(function, in->data(), in->size(), out->data(),
                        out->size(), stream);
  });
}

//===----------------------------------------------------------------------===//
// Device memory, synchronization and timing
//===----------------------------------------------------------------------===//

/// The allocation of C API function `name`: `bytes` bytes from
/// `allocate(runtime, bytes)` into `*out`.
template <typename Allocate>
static attnc_status allocateInto(const char *name, const attnc_runtime *runtime,
                                 size_t bytes, void **out, Allocate allocate) {
  return guarded([&]() -> Status {
    if (!runtime || !out)
      return nullArgument(name, !runtime ? "runtime" : "out");
    StatusOr<void *> data = allocate(runtime->runtime, bytes);
    if (!data)
      return data.status();
    *out = *data;
    return Status::ok();
  });
}

/// The release of C API function `name`: `data` by `release(runtime,
/// data)`.
template <typename Release>
static attnc_status releaseWith(const char *name, const attnc_runtime *runtime,
                                void *data, Release release) {
  return guarded([&] {
    if (!runtime)
      return nullArgument(name, "runtime");
    return release(runtime->runtime, data);
  });
}

attnc_status attnc_runtime_allocate(const attnc_runtime *runtime, size_t bytes,
                                    void **out) {
  return allocateInto(
      "attnc_runtime_allocate", runtime, bytes, out,
      [](const Runtime &rt, size_t n) { return rt.allocate(n); });
}

attnc_status attnc_runtime_free(const attnc_runtime *runtime, void *data) {
  return releaseWith("attnc_runtime_free", runtime, data,
                     [](const Runtime &rt, void *p) { return rt.free(p); });
}

/// The error of function `name` for a null runtime or a `kind` that is no
/// ATTNC_COPY_*.
static Status checkCopyCall(const char *name, const attnc_runtime *runtime,
                            int32_t kind) {
  static_assert(ATTNC_COPY_HOST_TO_DEVICE ==
                        static_cast<int>(CopyKind::HostToDevice) &&
                    ATTNC_COPY_DEVICE_TO_HOST ==
                        static_cast<int>(CopyKind::DeviceToHost) &&
                    ATTNC_COPY_DEVICE_TO_DEVICE ==
                        static_cast<int>(CopyKind::DeviceToDevice),
                "ATTNC_COPY_* follow CopyKind");
  if (!runtime)
    return nullArgument(name, "runtime");
  if (kind < ATTNC_COPY_HOST_TO_DEVICE || kind > ATTNC_COPY_DEVICE_TO_DEVICE)
    return Status::error(std::string(name) + ": unknown copy kind " +
                         std::to_string(kind));
  return Status::ok();
}

attnc_status attnc_runtime_copy(const attnc_runtime *runtime, void *dst,
                                const void *src, size_t bytes, int32_t kind) {
  return guarded([&] {
    if (Status s = checkCopyCall("attnc_runtime_copy", runtime, kind); !s)
      return s;
    return runtime->runtime.copy(dst, src, bytes, static_cast<CopyKind>(kind));
  });
}

attnc_status attnc_runtime_allocate_host(const attnc_runtime *runtime,
                                         size_t bytes, void **out) {
  return allocateInto(
      "attnc_runtime_allocate_host", runtime, bytes, out,
      [](const Runtime &rt, size_t n) { return rt.allocateHost(n); });
}

attnc_status attnc_runtime_free_host(const attnc_runtime *runtime, void *data) {
  return releaseWith("attnc_runtime_free_host", runtime, data,
                     [](const Runtime &rt, void *p) { return rt.freeHost(p); });
}

attnc_status attnc_runtime_copy_async(const attnc_runtime *runtime, void *dst,
                                      const void *src, size_t bytes,
                                      int32_t kind, void *stream) {
  return guarded([&] {
    if (Status s = checkCopyCall("attnc_runtime_copy_async", runtime, kind); !s)
      return s;
    return runtime->runtime.copyAsync(dst, src, bytes,
                                      static_cast<CopyKind>(kind), stream);
  });
}

attnc_status attnc_runtime_fill(const attnc_runtime *runtime, void *data,
                                uint8_t value, size_t bytes) {
  return guarded([&] {
    if (!runtime)
      return nullArgument("attnc_runtime_fill", "runtime");
    return runtime->runtime.fill(data, value, bytes);
  });
}

attnc_status attnc_runtime_synchronize(const attnc_runtime *runtime,
                                       void *stream) {
  return guarded([&] {
    if (!runtime)
      return nullArgument("attnc_runtime_synchronize", "runtime");
    return runtime->runtime.synchronize(stream);
  });
}

attnc_status attnc_event_record(const attnc_runtime *runtime, void *stream,
                                attnc_event **out) {
  return guarded([&]() -> Status {
    if (!runtime || !out)
      return nullArgument("attnc_event_record", !runtime ? "runtime" : "out");
    auto event = runtime->runtime.record(stream);
    if (!event)
      return event.status();
    *out = new attnc_event{std::move(*event)};
    return Status::ok();
  });
}

attnc_status attnc_event_elapsed_ms(const attnc_event *start,
                                    const attnc_event *end, double *out) {
  return guarded([&]() -> Status {
    if (!start || !end || !out)
      return nullArgument("attnc_event_elapsed_ms", !start ? "start"
                                                    : !end ? "end"
                                                           : "out");
    auto milliseconds = end->event.millisecondsSince(start->event);
    if (!milliseconds)
      return milliseconds.status();
    *out = *milliseconds;
    return Status::ok();
  });
}

attnc_status attnc_event_wait(const attnc_event *event) {
  return guarded([&] {
    if (!event)
      return nullArgument("attnc_event_wait", "event");
    return event->event.wait();
  });
}

void attnc_event_destroy(attnc_event *event) { delete event; }
