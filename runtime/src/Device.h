//===- Device.h - The device layer under the runtime's handles --*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A Device loads a package's code for its target and launches kernels on
// tensors that Function::call has already validated. Everything
// device-specific lives behind this interface: the host device (a shared
// library run on a thread pool) now, a CUDA device (driver API) later.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_DEVICE_H
#define ATTNC_RUNTIME_DEVICE_H

#include "lib/package/Package.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attnc::rt::detail {

/// A kernel argument after validation: shape and strides (in elements) are
/// both explicit, whatever the caller passed.
struct KernelArg {
  void *data;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

/// Grid extents (x, y, z) of one launch, each >= 0.
using GridExtents = std::array<int64_t, 3>;

/// One kernel's code, loaded onto a device.
class DeviceKernel {
public:
  virtual ~DeviceKernel() = default;
  /// Runs every block of `grid` on `args` (the function's inputs, then its
  /// outputs), in the stream `stream` where the device has streams.
  virtual Status launch(const std::vector<KernelArg> &args,
                        const GridExtents &grid, void *stream) const = 0;
};

/// Function name -> its kernel for the device's target.
using KernelMap = std::map<std::string, std::shared_ptr<const DeviceKernel>>;

class Device {
public:
  virtual ~Device() = default;
  /// The string it was opened with ("host", "cuda:0").
  virtual const std::string &name() const = 0;
  /// The kernel target it runs ("host", or a chip such as "sm_90a").
  virtual const std::string &target() const = 0;
  /// Loads the code of every kernel of `package` for target(). Functions
  /// without such a kernel are left out (calling them is an error).
  virtual StatusOr<KernelMap> load(const pkg::Package &package) = 0;
};

/// Opens "host" or "cuda:N"; anything else is an error naming those forms.
StatusOr<std::shared_ptr<Device>> openDevice(const std::string &spec);

/// A package and its code on one device: what Package and Function share.
struct LoadedPackage {
  std::shared_ptr<Device> device;
  std::string origin;
  pkg::Package manifest;
  KernelMap kernels;
};

} // namespace attnc::rt::detail

#endif // ATTNC_RUNTIME_DEVICE_H
