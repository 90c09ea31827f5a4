//===- Device.cpp - Opening a device by name ------------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "HostDevice.h"
#include "lib/support/Extents.h"
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

std::string attnc::rt::detail::describeTriple(int64_t x, int64_t y, int64_t z) {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " +
         std::to_string(z) + ")";
}

StatusOr<GridRecord> GridRecord::parse(const int64_t *words, size_t available) {
  // {words, extents, then per extent: constant, divisor, n, n (arg, dim)}.
  // Three extents of up to 16 factors each are far more than any kernel.
  const size_t maxWords = 2 + 3 * (3 + 2 * 16);
  size_t count = available ? static_cast<size_t>(words[0]) : 0;
  if (available < 2 || words[0] < 2 || count > available || count > maxWords ||
      words[1] < 0 || words[1] > 3)
    return Status::error("the grid record is malformed");
  GridRecord record;
  size_t at = 2;
  for (int64_t e = 0; e < words[1]; ++e) {
    if (at + 3 > count || words[at] < 0 || words[at + 1] < 1 ||
        words[at + 2] < 0 || words[at + 2] > 16 ||
        at + 3 + 2 * static_cast<size_t>(words[at + 2]) > count)
      return Status::error("the grid record is malformed");
    Extent extent{words[at], words[at + 1], {}};
    size_t factors = static_cast<size_t>(words[at + 2]);
    at += 3;
    for (size_t f = 0; f < factors; ++f, at += 2) {
      if (words[at] < 0 || words[at + 1] < 0)
        return Status::error("the grid record is malformed");
      extent.dims.emplace_back(words[at], words[at + 1]);
    }
    record.extents_.push_back(std::move(extent));
  }
  if (at != count)
    return Status::error("the grid record is malformed");
  return record;
}

StatusOr<GridExtents>
GridRecord::evaluate(const std::vector<const KernelArg *> &args) const {
  GridExtents grid = {1, 1, 1};
  for (size_t d = 0; d < extents_.size(); ++d) {
    int64_t product = extents_[d].constant;
    for (auto [arg, dim] : extents_[d].dims) {
      if (arg >= args.size() || dim >= args[arg]->shape.size())
        return Status::error("the grid record reads dim " +
                             std::to_string(dim) + " of argument " +
                             std::to_string(arg) + ", which the step lacks");
      if (!checkedMul(product, args[arg]->shape[dim]))
        return Status::error("the grid the code records overflows");
    }
    int64_t divisor = extents_[d].divisor;
    grid[d] = product / divisor + (product % divisor != 0);
  }
  return grid;
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
