//===- CublasLt.h - Library kernels run by cuBLASLt -------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The "cublaslt_matmul" library kernel of a package (pkg::Kernel::library)
// on the cuda:N device. libcublasLt is opened when the first package that
// has one is loaded, as libcuda is when a device opens, so that libattnrt
// links neither and packages without GEMMs never need it.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_CUBLASLT_H
#define ATTNC_RUNTIME_CUBLASLT_H

#include "CudaDriver.h"
#include "Device.h"

#include <functional>
#include <memory>

namespace attnc::rt::detail {

class CublasLt;

/// One cuBLASLt handle for one device's context.
class CublasLtHandle {
public:
  static StatusOr<std::shared_ptr<const CublasLtHandle>>
  create(std::shared_ptr<const CudaContext> context);
  ~CublasLtHandle();
  CublasLtHandle(const CublasLtHandle &) = delete;
  CublasLtHandle &operator=(const CublasLtHandle &) = delete;

  const CublasLt &api() const { return api_; }
  const CudaContext &context() const { return *context_; }
  void *get() const { return handle_; }

private:
  CublasLtHandle(const CublasLt &api,
                 std::shared_ptr<const CudaContext> context, void *handle)
      : api_(api), context_(std::move(context)), handle_(handle) {}

  const CublasLt &api_;
  std::shared_ptr<const CudaContext> context_;
  void *handle_;
};

/// How a library kernel gets stream-ordered scratch memory (the device's
/// call workspaces).
struct ScratchMemory {
  std::function<StatusOr<void *>(size_t bytes, void *stream)> allocate;
  std::function<Status(void *data, void *stream)> free;
};

/// The kernel of a "cublaslt_matmul" step (see pkg::Kernel): out = A B on
/// the matrix views of its three arguments, accumulated in f32.
StatusOr<std::shared_ptr<const DeviceKernel>>
makeCublasLtMatmul(std::shared_ptr<const CublasLtHandle> handle,
                   const pkg::Kernel &kernel, ScratchMemory scratch);

} // namespace attnc::rt::detail

#endif // ATTNC_RUNTIME_CUBLASLT_H
