//===- CudaDevice.h - A CUDA GPU as a device --------------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_CUDADEVICE_H
#define ATTNC_RUNTIME_CUDADEVICE_H

#include "Device.h"

namespace attnc::rt::detail {

/// Opens CUDA device `ordinal`, which `spec` ("cuda:N") names, through the
/// driver API: its kernels are those of target "sm_XY" (compute capability
/// X.Y; "sm_90a" for 9.0) in blobs of kind "cubin" or "ptx", launched as
/// pkg::Kernel describes. Errors start with "cannot open device 'SPEC'".
StatusOr<std::shared_ptr<Device>> openCudaDevice(const std::string &spec,
                                                 int ordinal);

} // namespace attnc::rt::detail

#endif // ATTNC_RUNTIME_CUDADEVICE_H
