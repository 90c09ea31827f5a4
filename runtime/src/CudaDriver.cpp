//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <dlfcn.h>

using namespace attnc;
using namespace attnc::rt::detail;

#define ATTNC_STRINGIFY(x) #x

/// Opens libcuda.so.1 and resolves every function of CudaDriver.def, each
/// required: the first one missing is the error.
static StatusOr<CudaDriver> loadDriver() {
  const std::string unavailable =
      "the CUDA driver (libcuda.so.1) is not available: ";
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return Status::error(unavailable + dlerror());
  CudaDriver driver;
  // The argument is already macro-expanded here, so the string is the
  // versioned symbol (cuMemAlloc_v2).
#define ATTNC_CUDA_SYMBOL(name)                                                \
  driver.name = reinterpret_cast<decltype(driver.name)>(                       \
      dlsym(library, ATTNC_STRINGIFY(name)));                                  \
  if (!driver.name)                                                            \
    return Status::error(unavailable + dlerror());
#include "CudaDriver.def"
#undef ATTNC_CUDA_SYMBOL
  return driver;
}

StatusOr<const CudaDriver *> CudaDriver::get() {
  // Loaded once; the library stays mapped for the life of the process.
  static const StatusOr<CudaDriver> driver = loadDriver();
  if (!driver)
    return driver.status();
  return &*driver;
}

Status CudaDriver::check(CUresult result, const char *call) const {
  if (result == CUDA_SUCCESS)
    return Status::ok();
  const char *name = nullptr, *description = nullptr;
  // Unknown codes leave both null.
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &description);
  std::string text = name ? name : "CUresult " + std::to_string(result);
  if (description)
    text += std::string(" (") + description + ")";
  return Status::error(std::string(call) + ": " + text);
}

//===----------------------------------------------------------------------===//
// CudaContext
//===----------------------------------------------------------------------===//

StatusOr<std::shared_ptr<const CudaContext>>
CudaContext::retain(const CudaDriver &driver, CUdevice device,
                    std::string name) {
  CUcontext context = nullptr;
  if (Status s =
          ATTNC_CUDA_CALL(driver, cuDevicePrimaryCtxRetain, &context, device);
      !s)
    return s;
  return std::shared_ptr<const CudaContext>(
      new CudaContext(driver, device, context, std::move(name)));
}

CudaContext::~CudaContext() {
  // Nothing to report to; the driver frees the context with its last user.
  (void)driver_.cuDevicePrimaryCtxRelease(device_);
}

CudaContext::Current::Current(const CudaContext &context)
    : context_(context),
      status_(ATTNC_CUDA_CALL(context.driver_, cuCtxPushCurrent,
                              context.context_)) {}

CudaContext::Current::~Current() {
  CUcontext popped = nullptr;
  if (status_)
    (void)context_.driver_.cuCtxPopCurrent(&popped);
}
