//===- Device.cpp - Opening a device by name ------------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "HostDevice.h"

#include <cctype>

using namespace attnc;
using namespace attnc::rt::detail;

/// True for "cuda:N" with N a decimal ordinal.
static bool isCudaSpec(const std::string &spec) {
  const std::string prefix = "cuda:";
  if (spec.size() <= prefix.size() || spec.compare(0, prefix.size(), prefix))
    return false;
  for (size_t i = prefix.size(); i < spec.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(spec[i])))
      return false;
  return true;
}

StatusOr<std::shared_ptr<Device>>
attnc::rt::detail::openDevice(const std::string &spec) {
  if (spec == "host")
    return openHostDevice();
  if (isCudaSpec(spec))
    return Status::error("cannot open device '" + spec +
                         "': cuda support is not built into this runtime yet");
  return Status::error("unknown device '" + spec +
                       "'; expected 'host' or 'cuda:N' (N a device ordinal)");
}
