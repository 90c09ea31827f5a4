//===- Device.cpp - Opening a device by name ------------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "HostDevice.h"
#if ATTNC_RT_HAVE_CUDA
#include "CudaDevice.h"
#endif

#include <algorithm>
#include <cctype>
#include <climits>

using namespace attnc;
using namespace attnc::rt::detail;

std::vector<int64_t> attnc::rt::detail::memrefDescriptor(const KernelArg &arg) {
  static_assert(sizeof(void *) == sizeof(int64_t),
                "the kernel ABI assumes 64-bit pointers");
  auto pointer = static_cast<int64_t>(reinterpret_cast<intptr_t>(arg.data));
  std::vector<int64_t> words = {pointer, pointer, 0};
  words.insert(words.end(), arg.shape.begin(), arg.shape.end());
  words.insert(words.end(), arg.strides.begin(), arg.strides.end());
  return words;
}

size_t attnc::rt::detail::descriptorWords(const std::vector<size_t> &ranks) {
  size_t words = 0;
  for (size_t rank : ranks)
    words += 3 + 2 * rank;
  return words;
}

std::string attnc::rt::detail::describeRanks(const std::vector<size_t> &ranks) {
  std::string text = "ranks [";
  for (size_t i = 0; i < ranks.size(); ++i)
    text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text + "]";
}

/// The N of "cuda:N" (saturated at INT_MAX, which no machine reaches), or -1
/// when `spec` has another form.
static int cudaOrdinal(const std::string &spec) {
  const std::string prefix = "cuda:";
  if (spec.size() <= prefix.size() || spec.compare(0, prefix.size(), prefix))
    return -1;
  long long ordinal = 0;
  for (size_t i = prefix.size(); i < spec.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(spec[i])))
      return -1;
    ordinal = std::min<long long>(ordinal * 10 + (spec[i] - '0'), INT_MAX);
  }
  return static_cast<int>(ordinal);
}

StatusOr<std::shared_ptr<Device>>
attnc::rt::detail::openDevice(const std::string &spec) {
  if (spec == "host")
    return openHostDevice();
  int ordinal = cudaOrdinal(spec);
  if (ordinal < 0)
    return Status::error("unknown device '" + spec +
                         "'; expected 'host' or 'cuda:N' (N a device ordinal)");
#if ATTNC_RT_HAVE_CUDA
  return openCudaDevice(spec, ordinal);
#else
  return Status::error("cannot open device '" + spec +
                       "': this runtime was built without CUDA headers "
                       "(cuda.h)");
#endif
}
