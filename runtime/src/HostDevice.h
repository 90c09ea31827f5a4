//===- HostDevice.h - The host CPU as a device ------------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_HOSTDEVICE_H
#define ATTNC_RUNTIME_HOSTDEVICE_H

#include "Device.h"

namespace attnc::rt::detail {

/// The host device: kernels of target "host" come as ELF shared libraries
/// (blob kind "host-so") and run their blocks on a thread pool of
/// hardware_concurrency threads, or ATTNC_NUM_THREADS when set.
StatusOr<std::shared_ptr<Device>> openHostDevice();

} // namespace attnc::rt::detail

#endif // ATTNC_RUNTIME_HOSTDEVICE_H
