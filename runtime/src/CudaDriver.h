//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// libattnrt never links libcuda: the driver functions it calls
// (CudaDriver.def) are looked up in libcuda.so.1 when the first cuda device
// is opened, so the runtime builds with only cuda.h and runs, host device
// included, on machines without a GPU or a driver.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_CUDADRIVER_H
#define ATTNC_RUNTIME_CUDADRIVER_H

#include "attnc/Status.h"

#include <cuda.h>

#include <memory>
#include <string>

namespace attnc::rt::detail {

/// The driver's entry points, one member per line of CudaDriver.def.
struct CudaDriver {
#define ATTNC_CUDA_SYMBOL(name) decltype(&::name) name = nullptr;
#include "CudaDriver.def"
#undef ATTNC_CUDA_SYMBOL

  /// The process's driver, loaded on first use and never unloaded (libcuda
  /// does not support that). Every function of CudaDriver.def is required:
  /// if libcuda.so.1 or any one of them is missing, every call gives the
  /// same error, which quotes dlerror; no member is ever null after that.
  static StatusOr<const CudaDriver *> get();

  /// Ok for CUDA_SUCCESS; otherwise an error naming `call` and the result,
  /// e.g. "cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is
  /// detected)".
  Status check(CUresult result, const char *call) const;
};

/// Calls driver function `fn` with the arguments that follow and returns its
/// result as a Status that names `fn` as written (cuMemAlloc, not
/// cuMemAlloc_v2).
#define ATTNC_CUDA_CALL(driver, fn, ...)                                       \
  (driver).check((driver).fn(__VA_ARGS__), #fn)

/// The primary context of one device, retained while this lives. Driver
/// calls on the device go through run(), which makes the context current
/// around them and then restores the caller's current context, so that
/// callers mixing attnc with other CUDA code keep their own.
class CudaContext {
public:
  /// Retains the primary context of `device`, which `name` ("cuda:0") names
  /// in messages.
  static StatusOr<std::shared_ptr<const CudaContext>>
  retain(const CudaDriver &driver, CUdevice device, std::string name);
  ~CudaContext();
  CudaContext(const CudaContext &) = delete;
  CudaContext &operator=(const CudaContext &) = delete;

  const CudaDriver &driver() const { return driver_; }
  const std::string &name() const { return name_; }

  /// Runs `body` (which returns a Status or a StatusOr) with this context
  /// current; a failure to make it current is returned instead.
  template <typename Body> auto run(Body &&body) const -> decltype(body()) {
    Current current(*this);
    if (!current.status())
      return current.status();
    return body();
  }

private:
  /// Pushes the context for its lifetime.
  class Current {
  public:
    explicit Current(const CudaContext &context);
    ~Current();
    Current(const Current &) = delete;
    Current &operator=(const Current &) = delete;
    const Status &status() const { return status_; }

  private:
    const CudaContext &context_;
    Status status_;
  };

  CudaContext(const CudaDriver &driver, CUdevice device, CUcontext context,
              std::string name)
      : driver_(driver), device_(device), context_(context),
        name_(std::move(name)) {}

  const CudaDriver &driver_;
  CUdevice device_;
  CUcontext context_;
  std::string name_;
};

} // namespace attnc::rt::detail

#endif // ATTNC_RUNTIME_CUDADRIVER_H
