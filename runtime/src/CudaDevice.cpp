//===- CudaDevice.cpp - A CUDA GPU as a device ----------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Every blob a package's kernels for this device use becomes one CUmodule of
// the device's primary context, and each kernel is checked against the
// device's limits (block size, shared memory) when it is loaded, so that a
// launch can only fail for reasons of the call. Before a launch, the driver's
// pointer attributes confirm that each tensor is memory of this device: a
// host pointer or another device's memory would fault inside the kernel and
// leave the context unusable. Kernels that take TMA tensor maps get them
// encoded at each launch from their arguments (pkg::Kernel::tensorMaps).
//
// The workspaces of calls come from a memory pool of the device's own,
// created when it opens, whose memory stays mapped between calls: a call
// then costs one stream-ordered allocation and free that never reach the
// OS. A device without memory pools falls back to cuMemAlloc and cuMemFree
// after synchronizing the call's stream.
//
//===----------------------------------------------------------------------===//

#include "CudaDevice.h"
#include "CublasLt.h"
#include "CudaDriver.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <mutex>

using namespace attnc;
using namespace attnc::rt;
using namespace attnc::rt::detail;

namespace {

constexpr const char *kCubinKind = "cubin";
constexpr const char *kPtxKind = "ptx";
/// Shared memory a block may use without opting in.
constexpr int64_t kDefaultSharedBytes = 48 * 1024;
/// Capacity of each of the JIT's error and info logs.
constexpr size_t kJitLogBytes = 16 * 1024;

std::string address(uintptr_t value) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIxPTR, value);
  return text;
}

CUdeviceptr devicePointer(const void *data) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(data));
}

/// "; LABEL: TEXT" for a JIT log buffer that holds text, else "".
std::string logText(const char *label, const std::string &buffer) {
  std::string text = buffer.c_str();
  text.erase(text.find_last_not_of(" \t\r\n") + 1);
  return text.empty() ? "" : std::string("; ") + label + ": " + text;
}

/// What kernels are checked against, and what the device supports.
struct CudaLimits {
  int block[3];
  int threadsPerBlock;
  int grid[3];
  int sharedBytesOptIn;
  /// Memory pools and stream-ordered allocation are supported
  /// (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED).
  int memoryPools;
};

/// A driver object (module, event, memory pool) destroyed with its context
/// current when its last user is gone.
template <typename Handle> class CudaObject {
public:
  using Destroy = CUresult (*)(Handle);
  CudaObject(std::shared_ptr<const CudaContext> context, Handle handle,
             Destroy destroy)
      : context_(std::move(context)), handle_(handle), destroy_(destroy) {}
  ~CudaObject() {
    // Nothing to report to; a failure here leaks the object at worst.
    (void)context_->run([&] {
      destroy_(handle_);
      return Status::ok();
    });
  }
  CudaObject(const CudaObject &) = delete;
  CudaObject &operator=(const CudaObject &) = delete;

  const CudaContext &context() const { return *context_; }
  Handle get() const { return handle_; }

private:
  std::shared_ptr<const CudaContext> context_;
  Handle handle_;
  Destroy destroy_;
};

using CudaModule = CudaObject<CUmodule>;
/// Destroying a pool whose memory is still in use (a workspace whose free is
/// still queued) is allowed: the driver releases it once that memory is
/// freed.
using CudaPool = CudaObject<CUmemoryPool>;

struct CudaEvent final : DeviceEvent {
  CudaEvent(std::shared_ptr<const CudaContext> context, CUevent handle,
            CudaObject<CUevent>::Destroy destroy)
      : event(std::move(context), handle, destroy) {}
  CudaObject<CUevent> event;
};

/// The sizes of kernel parameters, "3 parameters of 8, 8 and 128 bytes".
std::string describeSizes(const std::vector<size_t> &sizes) {
  std::string text = std::to_string(sizes.size()) + " parameters";
  if (sizes.empty())
    return text;
  text += " of ";
  for (size_t i = 0; i < sizes.size(); ++i)
    text += (i == 0                  ? ""
             : i + 1 == sizes.size() ? " and "
                                     : ", ") +
            std::to_string(sizes[i]);
  return text + " bytes";
}

/// The tensor map data type of `dtype` (pkg::Package verified it is one).
CUtensorMapDataType tensorMapType(pkg::DType dtype) {
  switch (dtype) {
  case pkg::DType::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case pkg::DType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  default:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  }
}

/// Encodes the map of `arg` into `out` (the device's context current);
/// false where TMA cannot describe the tensor (an unaligned base, a non-unit
/// inner stride, other strides that are not multiples of 16 bytes), which
/// the kernel then copies another way.
bool encodeTensorMap(const CudaDriver &driver, const pkg::TensorMap &map,
                     const KernelArg &arg, CUtensorMap &out) {
  size_t rank = arg.shape.size();
  uint64_t element = pkg::dtypeSize(arg.dtype);
  if (rank != map.box.size() || rank == 0 || arg.strides[rank - 1] != 1 ||
      reinterpret_cast<uintptr_t>(arg.data) % 16 != 0)
    return false;
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], elementStrides[5];
  for (size_t d = 0; d < rank; ++d) {
    size_t dim = rank - 1 - d; // innermost first
    dims[d] = static_cast<cuuint64_t>(arg.shape[dim]);
    box[d] = static_cast<cuuint32_t>(map.box[d]);
    elementStrides[d] = 1;
    if (d == 0)
      continue;
    uint64_t bytes = static_cast<uint64_t>(arg.strides[dim]) * element;
    if (arg.strides[dim] <= 0 || bytes % 16 != 0)
      return false;
    strides[d - 1] = bytes;
  }
  CUtensorMapSwizzle swizzle = map.swizzleBytes == 128
                                   ? CU_TENSOR_MAP_SWIZZLE_128B
                                   : CU_TENSOR_MAP_SWIZZLE_NONE;
  return driver.cuTensorMapEncodeTiled(
             &out, tensorMapType(arg.dtype), static_cast<cuuint32_t>(rank),
             arg.data, dims, strides, box, elementStrides,
             CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
             CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

class CudaKernel final : public DeviceKernel {
public:
  CudaKernel(std::shared_ptr<const CudaModule> module, CUfunction function,
             const pkg::Kernel &kernel, const CudaLimits &limits,
             std::vector<size_t> paramSizes, GridRecord grid)
      : DeviceKernel(std::move(grid)), module_(std::move(module)),
        function_(function), entry_(kernel.entry),
        sharedBytes_(static_cast<unsigned>(kernel.dynamicSharedMemoryBytes)),
        tensorMaps_(kernel.tensorMaps), paramSizes_(std::move(paramSizes)) {
    for (int d = 0; d < 3; ++d) {
      block_[d] = static_cast<unsigned>(kernel.block[d]);
      gridLimits_[d] = limits.grid[d];
    }
  }

  Status launch(const std::vector<const KernelArg *> &args,
                const GridExtents &grid, void *stream) const override;
  /// Each memref is 3 + 2 * rank parameters of 8 bytes; tensor maps add one
  /// of 128 bytes each and one of 8 for their valid bits.
  Status checkArgs(const std::vector<size_t> &ranks) const override {
    std::vector<size_t> expected(descriptorWords(ranks), 8);
    if (!tensorMaps_.empty()) {
      expected.insert(expected.end(), tensorMaps_.size(), sizeof(CUtensorMap));
      expected.push_back(8);
    }
    if (paramSizes_ == expected)
      return Status::ok();
    return Status::error("the step passes " + std::to_string(ranks.size()) +
                         " memrefs of " + describeRanks(ranks) + " and " +
                         std::to_string(tensorMaps_.size()) + " tensor maps (" +
                         describeSizes(expected) + "), '" + entry_ +
                         "' takes " + describeSizes(paramSizes_));
  }

private:
  /// Encodes the maps of `args` into `maps`; bit i of the result says
  /// whether map i could be made.
  int64_t encodeTensorMaps(const std::vector<const KernelArg *> &args,
                           std::vector<CUtensorMap> &maps) const;

  std::shared_ptr<const CudaModule> module_; // keeps function_ loaded
  CUfunction function_;
  std::string entry_;
  unsigned block_[3];
  unsigned sharedBytes_;
  int64_t gridLimits_[3];
  std::vector<pkg::TensorMap> tensorMaps_;
  std::vector<size_t> paramSizes_; // the cubin's, in order
};

int64_t CudaKernel::encodeTensorMaps(const std::vector<const KernelArg *> &args,
                                     std::vector<CUtensorMap> &maps) const {
  int64_t valid = 0;
  for (size_t i = 0; i < maps.size(); ++i) {
    if (encodeTensorMap(module_->context().driver(), tensorMaps_[i],
                        *args.at(static_cast<size_t>(tensorMaps_[i].arg)),
                        maps[i]))
      valid |= int64_t{1} << i;
    else
      maps[i] = CUtensorMap{}; // whatever a failed encode left: zeros
  }
  return valid;
}

Status CudaKernel::launch(const std::vector<const KernelArg *> &args,
                          const GridExtents &grid, void *stream) const {
  const CudaContext &context = module_->context();
  for (int d = 0; d < 3; ++d)
    if (grid[d] > gridLimits_[d])
      return Status::error(
          "grid " + describeTriple(grid[0], grid[1], grid[2]) + " of '" +
          entry_ + "' exceeds the limits of " + context.name() + ": at most " +
          describeTriple(gridLimits_[0], gridLimits_[1], gridLimits_[2]));
  // CUDA rejects empty grids; there is nothing to run.
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return Status::ok();

  // One word per memref parameter, then the tensor maps and their valid
  // bits; params[i] points at parameter i.
  std::vector<int64_t> words;
  for (const KernelArg *arg : args) {
    std::vector<int64_t> descriptor = memrefDescriptor(*arg);
    words.insert(words.end(), descriptor.begin(), descriptor.end());
  }
  std::vector<CUtensorMap> maps(tensorMaps_.size());
  int64_t validMaps = 0;
  std::vector<void *> params;
  for (int64_t &word : words)
    params.push_back(&word);
  for (CUtensorMap &map : maps)
    params.push_back(&map);
  if (!maps.empty())
    params.push_back(&validMaps);
  return context
      .run([&] {
        // Like every driver call on the device, the encoding runs with the
        // device's context current.
        validMaps = encodeTensorMaps(args, maps);
        return ATTNC_CUDA_CALL(
            context.driver(), cuLaunchKernel, function_,
            static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
            static_cast<unsigned>(grid[2]), block_[0], block_[1], block_[2],
            sharedBytes_, static_cast<CUstream>(stream), params.data(),
            nullptr);
      })
      .withContext("cannot launch '" + entry_ + "'");
}

class CudaDevice final : public Device {
public:
  /// `pool` holds the workspaces of calls; null on a device without memory
  /// pools.
  CudaDevice(std::shared_ptr<const CudaContext> context, int ordinal,
             std::string target, const CudaLimits &limits,
             std::unique_ptr<const CudaPool> pool)
      : context_(std::move(context)), ordinal_(ordinal),
        target_(std::move(target)), limits_(limits), pool_(std::move(pool)) {}

  const std::string &name() const override { return context_->name(); }
  const std::string &target() const override { return target_; }
  StatusOr<KernelMap> load(const pkg::Package &package) override;

  /// A CUstream cannot be checked without using it; the driver reports a
  /// bad one when work is queued on it.
  Status checkStream(void *) const override { return Status::ok(); }
  Status checkAccess(const void *data, size_t bytes) const override;

  StatusOr<void *> allocate(size_t bytes) const override;
  Status free(void *data) const override;
  StatusOr<void *> allocateWorkspace(size_t bytes, void *stream) const override;
  Status freeWorkspace(void *data, void *stream) const override;
  Status copy(void *dst, const void *src, size_t bytes,
              CopyKind kind) const override;
  StatusOr<void *> allocatePinned(size_t bytes) const override;
  Status freePinned(void *data) const override;
  StatusOr<void *> createStream() const override;
  Status destroyStream(void *stream) const override;
  Status copyAsync(void *dst, const void *src, size_t bytes, CopyKind kind,
                   void *stream) const override;
  Status fill(void *data, uint8_t value, size_t bytes) const override;
  Status synchronize(void *stream) const override;
  StatusOr<void *> fork(void *stream) const override;
  Status join(void *side, void *stream) const override;
  StatusOr<std::shared_ptr<const DeviceEvent>>
  record(void *stream) const override;
  Status wait(const DeviceEvent &event, void *stream) const override;
  Status synchronize(const DeviceEvent &event) const override;
  StatusOr<double> elapsedMilliseconds(const DeviceEvent &start,
                                       const DeviceEvent &end) const override;

private:
  const CudaDriver &driver() const { return context_->driver(); }
  /// Creates the side stream and its two events on first use; sideMutex_
  /// held.
  Status createSide() const;
  /// Makes `waiting` wait for the work queued on `done` so far, through
  /// `event` (recorded and waited for under sideMutex_, so that no other
  /// call records it in between).
  Status follow(CUstream waiting, CUstream done, CUevent event) const;
  StatusOr<std::shared_ptr<const CudaModule>>
  loadModule(const pkg::Blob &blob) const;
  StatusOr<std::shared_ptr<const DeviceKernel>>
  loadKernel(std::shared_ptr<const CudaModule> module,
             const pkg::Kernel &kernel) const;
  /// A library kernel (pkg::Kernel::library), on the device's one cuBLASLt
  /// handle.
  StatusOr<std::shared_ptr<const DeviceKernel>>
  loadLibraryKernel(const pkg::Kernel &kernel) const;
  /// Checks `kernel`'s launch configuration against the device and
  /// `function`, and opts in to the shared memory it needs.
  Status configure(CUfunction function, const pkg::Kernel &kernel) const;
  /// The grid record `<entry>_grid` of `module`, a global the code holds.
  StatusOr<GridRecord> gridRecord(const CudaModule &module,
                                  const std::string &entry) const;

  std::shared_ptr<const CudaContext> context_;
  int ordinal_;
  std::string target_;
  CudaLimits limits_;
  std::unique_ptr<const CudaPool> pool_;
  /// The one stream every call forks its concurrent steps onto, and the
  /// events that fork and join it (Device::fork): created on first use,
  /// shared by the calls on the device.
  mutable std::mutex sideMutex_;
  mutable std::unique_ptr<const CudaObject<CUstream>> side_;
  mutable std::unique_ptr<const CudaObject<CUevent>> forked_, joined_;
  mutable std::mutex blasMutex_; // guards blas_
  /// Made when the first library kernel loads: packages without one never
  /// open cuBLASLt.
  mutable std::shared_ptr<const CublasLtHandle> blas_;
};

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

StatusOr<KernelMap> CudaDevice::load(const pkg::Package &package) {
  return loadKernels<CudaModule>(
      package, target_, [&](const pkg::Blob &blob) { return loadModule(blob); },
      [&](std::shared_ptr<const CudaModule> module, const pkg::Kernel &kernel) {
        return loadKernel(std::move(module), kernel);
      });
}

StatusOr<std::shared_ptr<const CudaModule>>
CudaDevice::loadModule(const pkg::Blob &blob) const {
  static const uint8_t elfMagic[4] = {0x7f, 'E', 'L', 'F'};
  if (blob.kind == kCubinKind) {
    if (blob.data.size() < sizeof(elfMagic) ||
        !std::equal(elfMagic, elfMagic + sizeof(elfMagic), blob.data.begin()))
      return Status::error("cubin blob '" + blob.name +
                           "' is not an ELF image");
  } else if (blob.kind == kPtxKind) {
    if (std::find(blob.data.begin(), blob.data.end(), 0) != blob.data.end())
      return Status::error("ptx blob '" + blob.name + "' holds a NUL byte");
  } else {
    return Status::error("cuda kernel blob '" + blob.name + "' has kind '" +
                         blob.kind + "', expected '" + kCubinKind + "' or '" +
                         kPtxKind + "'");
  }

  // The driver reads PTX up to its NUL; a cubin ignores the extra byte.
  std::string image(blob.data.begin(), blob.data.end());
  std::string errorLog(kJitLogBytes, '\0'), infoLog(kJitLogBytes, '\0');
  CUjit_option options[] = {
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errorLog.data(), reinterpret_cast<void *>(kJitLogBytes),
                    infoLog.data(), reinterpret_cast<void *>(kJitLogBytes)};
  return context_->run([&]() -> StatusOr<std::shared_ptr<const CudaModule>> {
    CUmodule module = nullptr;
    Status s =
        ATTNC_CUDA_CALL(driver(), cuModuleLoadDataEx, &module, image.c_str(),
                        std::size(options), options, values);
    if (!s)
      return Status::error("cannot load blob '" + blob.name + "' (" +
                           blob.kind + "): " + s.message() +
                           logText("jit error log", errorLog) +
                           logText("jit info log", infoLog));
    return std::make_shared<const CudaModule>(context_, module,
                                              driver().cuModuleUnload);
  });
}

StatusOr<std::shared_ptr<const DeviceKernel>>
CudaDevice::loadLibraryKernel(const pkg::Kernel &kernel) const {
  std::lock_guard<std::mutex> lock(blasMutex_);
  if (!blas_) {
    auto handle = CublasLtHandle::create(context_);
    if (!handle)
      return handle.status();
    blas_ = std::move(*handle);
  }
  ScratchMemory scratch{
      [this](size_t bytes, void *stream) {
        return allocateWorkspace(bytes, stream);
      },
      [this](void *data, void *stream) { return freeWorkspace(data, stream); }};
  return makeCublasLtMatmul(blas_, kernel, std::move(scratch));
}

StatusOr<std::shared_ptr<const DeviceKernel>>
CudaDevice::loadKernel(std::shared_ptr<const CudaModule> module,
                       const pkg::Kernel &kernel) const {
  if (kernel.library)
    return loadLibraryKernel(kernel);
  return context_->run([&]() -> StatusOr<std::shared_ptr<const DeviceKernel>> {
    CUfunction function = nullptr;
    if (Status s = ATTNC_CUDA_CALL(driver(), cuModuleGetFunction, &function,
                                   module->get(), kernel.entry.c_str());
        !s)
      return s.withContext("blob '" + kernel.blob + "' has no entry '" +
                           kernel.entry + "'");
    if (Status s = configure(function, kernel); !s)
      return s.withContext("entry '" + kernel.entry + "'");
    // The driver answers CUDA_ERROR_INVALID_VALUE past the last parameter.
    std::vector<size_t> paramSizes;
    size_t offset = 0, size = 0;
    while (driver().cuFuncGetParamInfo(function, paramSizes.size(), &offset,
                                       &size) == CUDA_SUCCESS)
      paramSizes.push_back(size);
    auto grid = gridRecord(*module, kernel.entry);
    if (!grid)
      return grid.status();
    return std::shared_ptr<const DeviceKernel>(std::make_shared<CudaKernel>(
        std::move(module), function, kernel, limits_, std::move(paramSizes),
        std::move(*grid)));
  });
}

StatusOr<GridRecord> CudaDevice::gridRecord(const CudaModule &module,
                                            const std::string &entry) const {
  std::string name = entry + "_grid";
  CUdeviceptr global = 0;
  size_t bytes = 0;
  // Blobs of attnc before the grid records lack the global: recompile them.
  if (Status s = ATTNC_CUDA_CALL(driver(), cuModuleGetGlobal, &global, &bytes,
                                 module.get(), name.c_str());
      !s)
    return s.withContext("entry '" + entry + "' has no grid record '" + name +
                         "' (compiled by an older attnc? recompile it)");
  std::vector<int64_t> words(std::min<size_t>(bytes / sizeof(int64_t), 256));
  if (!words.empty())
    if (Status s = ATTNC_CUDA_CALL(driver(), cuMemcpyDtoH, words.data(), global,
                                   words.size() * sizeof(int64_t));
        !s)
      return s;
  auto record = GridRecord::parse(words.data(), words.size());
  if (!record)
    return record.status().withContext("entry '" + entry + "'");
  return record;
}

Status CudaDevice::configure(CUfunction function,
                             const pkg::Kernel &kernel) const {
  const int64_t *block = kernel.block;
  bool fits = block[0] <= limits_.block[0] && block[1] <= limits_.block[1] &&
              block[2] <= limits_.block[2];
  int64_t threads = fits ? block[0] * block[1] * block[2] : 0;
  if (!fits || threads > limits_.threadsPerBlock)
    return Status::error(
        "block " + describeTriple(block[0], block[1], block[2]) +
        " exceeds the limits of " + name() + ": at most " +
        describeTriple(limits_.block[0], limits_.block[1], limits_.block[2]) +
        " and " + std::to_string(limits_.threadsPerBlock) + " threads");

  int maxThreads = 0, staticBytes = 0;
  Status s = ATTNC_CUDA_CALL(driver(), cuFuncGetAttribute, &maxThreads,
                             CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function);
  if (s)
    s = ATTNC_CUDA_CALL(driver(), cuFuncGetAttribute, &staticBytes,
                        CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function);
  if (!s)
    return s;
  // Registers per thread can lower the limit below the device's.
  if (threads > maxThreads)
    return Status::error("runs at most " + std::to_string(maxThreads) +
                         " threads per block, but its block has " +
                         std::to_string(threads));

  int64_t dynamicBytes = kernel.dynamicSharedMemoryBytes;
  if (dynamicBytes > limits_.sharedBytesOptIn - staticBytes)
    return Status::error(
        "needs " + std::to_string(dynamicBytes) + " bytes of dynamic and " +
        std::to_string(staticBytes) +
        " bytes of static shared memory per block, but " + name() +
        " allows at most " + std::to_string(limits_.sharedBytesOptIn) +
        " bytes in all");
  // Beyond the default, a kernel must opt in to its dynamic shared memory.
  if (dynamicBytes + staticBytes > kDefaultSharedBytes)
    return ATTNC_CUDA_CALL(driver(), cuFuncSetAttribute, function,
                           CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           static_cast<int>(dynamicBytes));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Status CudaDevice::checkAccess(const void *data, size_t bytes) const {
  // cuPointerGetAttributes, unlike cuPointerGetAttribute, succeeds on
  // memory CUDA does not know and leaves the values zero.
  unsigned memoryType = 0;
  int ordinal = -1;
  uint64_t managed = 0; // a bool: wide enough whatever size the driver writes
  CUpointer_attribute kinds[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 CU_POINTER_ATTRIBUTE_IS_MANAGED};
  void *kindValues[] = {&memoryType, &ordinal, &managed};
  Status s = context_->run([&] {
    return ATTNC_CUDA_CALL(driver(), cuPointerGetAttributes, std::size(kinds),
                           kinds, kindValues, devicePointer(data));
  });
  if (!s)
    return s;

  uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  if (!managed && memoryType != CU_MEMORYTYPE_DEVICE)
    return Status::error(address(begin) + " is not device memory of " + name() +
                         (memoryType == CU_MEMORYTYPE_HOST
                              ? " but page-locked host memory"
                              : " (nor any CUDA allocation; a host pointer?)"));
  // Managed memory migrates to whichever device touches it.
  if (!managed && ordinal != ordinal_)
    return Status::error(address(begin) + " is memory of cuda:" +
                         std::to_string(ordinal) + ", not of " + name());

  // The bounds of its allocation, which only device memory has.
  CUdeviceptr rangeStart = 0;
  size_t rangeSize = 0;
  CUpointer_attribute ranges[] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                  CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  void *rangeValues[] = {&rangeStart, &rangeSize};
  s = context_->run([&] {
    return ATTNC_CUDA_CALL(driver(), cuPointerGetAttributes, std::size(ranges),
                           ranges, rangeValues, devicePointer(data));
  });
  if (!s)
    return s;
  uintptr_t rangeEnd = static_cast<uintptr_t>(rangeStart) + rangeSize;
  if (rangeSize != 0 && (begin < rangeStart || bytes > rangeEnd - begin))
    return Status::error(
        "its " + std::to_string(bytes) + " bytes at " + address(begin) +
        " run past the end of their allocation (" + std::to_string(rangeSize) +
        " bytes at " + address(rangeStart) + ")");
  return Status::ok();
}

StatusOr<void *> CudaDevice::allocate(size_t bytes) const {
  return context_->run([&]() -> StatusOr<void *> {
    CUdeviceptr pointer = 0;
    if (Status s = ATTNC_CUDA_CALL(driver(), cuMemAlloc, &pointer, bytes); !s)
      return s.withContext("cannot allocate " + std::to_string(bytes) +
                           " bytes on " + name());
    return reinterpret_cast<void *>(static_cast<uintptr_t>(pointer));
  });
}

Status CudaDevice::free(void *data) const {
  return context_->run([&] {
    return ATTNC_CUDA_CALL(driver(), cuMemFree, devicePointer(data));
  });
}

StatusOr<void *> CudaDevice::allocateWorkspace(size_t bytes,
                                               void *stream) const {
  return context_->run([&]() -> StatusOr<void *> {
    CUdeviceptr pointer = 0;
    // Stream-ordered memory is reused between calls without synchronizing;
    // cuMemAlloc memory is usable by every stream at once.
    Status s = pool_ ? ATTNC_CUDA_CALL(driver(), cuMemAllocFromPoolAsync,
                                       &pointer, bytes, pool_->get(),
                                       static_cast<CUstream>(stream))
                     : ATTNC_CUDA_CALL(driver(), cuMemAlloc, &pointer, bytes);
    if (!s)
      return s.withContext("cannot allocate a workspace of " +
                           std::to_string(bytes) + " bytes on " + name());
    return reinterpret_cast<void *>(static_cast<uintptr_t>(pointer));
  });
}

Status CudaDevice::freeWorkspace(void *data, void *stream) const {
  return context_->run([&] {
    CUstream handle = static_cast<CUstream>(stream);
    if (pool_)
      return ATTNC_CUDA_CALL(driver(), cuMemFreeAsync, devicePointer(data),
                             handle);
    // cuMemFree does not wait for the kernels still using the memory, so the
    // call waits for its stream here. If the stream reports an error, the
    // memory is freed all the same.
    Status waited = ATTNC_CUDA_CALL(driver(), cuStreamSynchronize, handle);
    Status freed = ATTNC_CUDA_CALL(driver(), cuMemFree, devicePointer(data));
    return waited ? freed : waited;
  });
}

Status CudaDevice::copy(void *dst, const void *src, size_t bytes,
                        CopyKind kind) const {
  return context_->run([&] {
    switch (kind) {
    case CopyKind::HostToDevice:
      return ATTNC_CUDA_CALL(driver(), cuMemcpyHtoD, devicePointer(dst), src,
                             bytes);
    case CopyKind::DeviceToHost:
      return ATTNC_CUDA_CALL(driver(), cuMemcpyDtoH, dst, devicePointer(src),
                             bytes);
    case CopyKind::DeviceToDevice:
      return ATTNC_CUDA_CALL(driver(), cuMemcpyDtoD, devicePointer(dst),
                             devicePointer(src), bytes);
    }
    return Status::error("unknown copy kind " +
                         std::to_string(static_cast<int>(kind)));
  });
}

StatusOr<void *> CudaDevice::allocatePinned(size_t bytes) const {
  return context_->run([&]() -> StatusOr<void *> {
    void *data = nullptr;
    if (Status s = ATTNC_CUDA_CALL(driver(), cuMemHostAlloc, &data, bytes, 0);
        !s)
      return s.withContext("cannot allocate " + std::to_string(bytes) +
                           " bytes of page-locked host memory for " + name());
    return data;
  });
}

Status CudaDevice::freePinned(void *data) const {
  return context_->run(
      [&] { return ATTNC_CUDA_CALL(driver(), cuMemFreeHost, data); });
}

StatusOr<void *> CudaDevice::createStream() const {
  return context_->run([&]() -> StatusOr<void *> {
    CUstream stream = nullptr;
    // Non-blocking: events alone order it against the caller's streams, so
    // the legacy default stream does not serialize it with their work.
    if (Status s = ATTNC_CUDA_CALL(driver(), cuStreamCreate, &stream,
                                   CU_STREAM_NON_BLOCKING);
        !s)
      return s.withContext("cannot create a stream on " + name());
    return static_cast<void *>(stream);
  });
}

Status CudaDevice::destroyStream(void *stream) const {
  return context_->run([&] {
    return ATTNC_CUDA_CALL(driver(), cuStreamDestroy,
                           static_cast<CUstream>(stream));
  });
}

Status CudaDevice::copyAsync(void *dst, const void *src, size_t bytes,
                             CopyKind kind, void *stream) const {
  auto queue = static_cast<CUstream>(stream);
  return context_->run([&] {
    switch (kind) {
    case CopyKind::HostToDevice:
      return ATTNC_CUDA_CALL(driver(), cuMemcpyHtoDAsync, devicePointer(dst),
                             src, bytes, queue);
    case CopyKind::DeviceToHost:
      return ATTNC_CUDA_CALL(driver(), cuMemcpyDtoHAsync, dst,
                             devicePointer(src), bytes, queue);
    case CopyKind::DeviceToDevice:
      return ATTNC_CUDA_CALL(driver(), cuMemcpyDtoDAsync, devicePointer(dst),
                             devicePointer(src), bytes, queue);
    }
    return Status::error("unknown copy kind " +
                         std::to_string(static_cast<int>(kind)));
  });
}

Status CudaDevice::fill(void *data, uint8_t value, size_t bytes) const {
  return context_->run([&] {
    return ATTNC_CUDA_CALL(driver(), cuMemsetD8, devicePointer(data), value,
                           bytes);
  });
}

Status CudaDevice::synchronize(void *stream) const {
  return context_->run([&] {
    return stream ? ATTNC_CUDA_CALL(driver(), cuStreamSynchronize,
                                    static_cast<CUstream>(stream))
                  : driver().check(driver().cuCtxSynchronize(),
                                   "cuCtxSynchronize");
  });
}

//===----------------------------------------------------------------------===//
// A second stream
//===----------------------------------------------------------------------===//

Status CudaDevice::createSide() const {
  if (side_)
    return Status::ok();
  CUstream stream = nullptr;
  // Non-blocking: only the fork and join events order it against the
  // caller's stream, even the legacy default one.
  if (Status s = ATTNC_CUDA_CALL(driver(), cuStreamCreate, &stream,
                                 CU_STREAM_NON_BLOCKING);
      !s)
    return s;
  auto side = std::make_unique<const CudaObject<CUstream>>(
      context_, stream, driver().cuStreamDestroy);
  // Each object owns its handle at once, so a failure destroys the others.
  std::unique_ptr<const CudaObject<CUevent>> events[2];
  for (auto &event : events) {
    CUevent handle = nullptr;
    if (Status s = ATTNC_CUDA_CALL(driver(), cuEventCreate, &handle,
                                   CU_EVENT_DISABLE_TIMING);
        !s)
      return s;
    event = std::make_unique<const CudaObject<CUevent>>(
        context_, handle, driver().cuEventDestroy);
  }
  forked_ = std::move(events[0]);
  joined_ = std::move(events[1]);
  side_ = std::move(side);
  return Status::ok();
}

Status CudaDevice::follow(CUstream waiting, CUstream done,
                          CUevent event) const {
  if (Status s = ATTNC_CUDA_CALL(driver(), cuEventRecord, event, done); !s)
    return s;
  return ATTNC_CUDA_CALL(driver(), cuStreamWaitEvent, waiting, event, 0);
}

StatusOr<void *> CudaDevice::fork(void *stream) const {
  return context_->run([&]() -> StatusOr<void *> {
    std::lock_guard<std::mutex> lock(sideMutex_);
    if (Status s = createSide(); !s)
      return s.withContext("cannot make a second stream on " + name());
    if (Status s =
            follow(side_->get(), static_cast<CUstream>(stream), forked_->get());
        !s)
      return s;
    return static_cast<void *>(side_->get());
  });
}

Status CudaDevice::join(void *side, void *stream) const {
  return context_->run([&] {
    std::lock_guard<std::mutex> lock(sideMutex_);
    return follow(static_cast<CUstream>(stream), static_cast<CUstream>(side),
                  joined_->get());
  });
}

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

StatusOr<std::shared_ptr<const DeviceEvent>>
CudaDevice::record(void *stream) const {
  return context_->run([&]() -> StatusOr<std::shared_ptr<const DeviceEvent>> {
    CUevent handle = nullptr;
    if (Status s =
            ATTNC_CUDA_CALL(driver(), cuEventCreate, &handle, CU_EVENT_DEFAULT);
        !s)
      return s;
    auto event = std::make_shared<const CudaEvent>(context_, handle,
                                                   driver().cuEventDestroy);
    if (Status s = ATTNC_CUDA_CALL(driver(), cuEventRecord, handle,
                                   static_cast<CUstream>(stream));
        !s)
      return s;
    return std::shared_ptr<const DeviceEvent>(std::move(event));
  });
}

Status CudaDevice::wait(const DeviceEvent &event, void *stream) const {
  CUevent handle = static_cast<const CudaEvent &>(event).event.get();
  return context_->run([&] {
    return ATTNC_CUDA_CALL(driver(), cuStreamWaitEvent,
                           static_cast<CUstream>(stream), handle, 0);
  });
}

Status CudaDevice::synchronize(const DeviceEvent &event) const {
  CUevent handle = static_cast<const CudaEvent &>(event).event.get();
  return context_->run(
      [&] { return ATTNC_CUDA_CALL(driver(), cuEventSynchronize, handle); });
}

StatusOr<double> CudaDevice::elapsedMilliseconds(const DeviceEvent &start,
                                                 const DeviceEvent &end) const {
  CUevent from = static_cast<const CudaEvent &>(start).event.get();
  CUevent to = static_cast<const CudaEvent &>(end).event.get();
  return context_->run([&]() -> StatusOr<double> {
    float milliseconds = 0;
    Status s = ATTNC_CUDA_CALL(driver(), cuEventSynchronize, to);
    if (s)
      s = ATTNC_CUDA_CALL(driver(), cuEventElapsedTime, &milliseconds, from,
                          to);
    if (!s)
      return s;
    return static_cast<double>(milliseconds);
  });
}

//===----------------------------------------------------------------------===//
// Opening
//===----------------------------------------------------------------------===//

/// A memory pool on device `ordinal` that keeps the memory it has
/// allocated (release threshold UINT64_MAX). The device's default pool has
/// threshold 0: every synchronization would hand a call's workspace back to
/// the OS, and the next call would map it again.
StatusOr<std::unique_ptr<const CudaPool>>
createWorkspacePool(const std::shared_ptr<const CudaContext> &context,
                    int ordinal) {
  const CudaDriver &driver = context->driver();
  return context->run([&]() -> StatusOr<std::unique_ptr<const CudaPool>> {
    CUmemPoolProps props = {};
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = ordinal;
    CUmemoryPool handle = nullptr;
    if (Status s = ATTNC_CUDA_CALL(driver, cuMemPoolCreate, &handle, &props);
        !s)
      return s;
    auto pool = std::make_unique<const CudaPool>(context, handle,
                                                 driver.cuMemPoolDestroy);
    cuuint64_t keepAll = UINT64_MAX;
    if (Status s = ATTNC_CUDA_CALL(driver, cuMemPoolSetAttribute, handle,
                                   CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keepAll);
        !s)
      return s;
    return pool;
  });
}

StatusOr<std::shared_ptr<Device>> openOrdinal(const std::string &spec,
                                              int ordinal) {
  auto loaded = CudaDriver::get();
  if (!loaded)
    return loaded.status();
  const CudaDriver &driver = **loaded;
  int count = 0;
  Status s = ATTNC_CUDA_CALL(driver, cuInit, 0);
  if (s)
    s = ATTNC_CUDA_CALL(driver, cuDeviceGetCount, &count);
  if (!s)
    return s;
  if (ordinal >= count)
    return Status::error(count == 0 ? std::string("there are no CUDA devices")
                         : count == 1
                             ? std::string("there is 1 CUDA device (cuda:0)")
                             : "there are " + std::to_string(count) +
                                   " CUDA devices (cuda:0 to cuda:" +
                                   std::to_string(count - 1) + ")");

  CUdevice device = 0;
  int major = 0, minor = 0;
  CudaLimits limits = {};
  const std::pair<CUdevice_attribute, int *> queries[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &limits.block[0]},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &limits.block[1]},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &limits.block[2]},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &limits.threadsPerBlock},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &limits.grid[0]},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &limits.grid[1]},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &limits.grid[2]},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       &limits.sharedBytesOptIn},
      {CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, &limits.memoryPools}};
  s = ATTNC_CUDA_CALL(driver, cuDeviceGet, &device, ordinal);
  for (const auto &[attribute, value] : queries)
    if (s)
      s = ATTNC_CUDA_CALL(driver, cuDeviceGetAttribute, value, attribute,
                          device);
  if (!s)
    return s;

  auto context = CudaContext::retain(driver, device, spec);
  if (!context)
    return context.status();
  std::unique_ptr<const CudaPool> pool;
  if (limits.memoryPools) {
    auto created = createWorkspacePool(*context, ordinal);
    if (!created)
      return created.status().withContext("cannot create a memory pool");
    pool = std::move(*created);
  }
  // Hopper's wgmma and TMA exist only in the architecture-specific sm_90a.
  std::string target = "sm_" + std::to_string(major) + std::to_string(minor) +
                       (major == 9 && minor == 0 ? "a" : "");
  return std::shared_ptr<Device>(
      std::make_shared<CudaDevice>(std::move(*context), ordinal,
                                   std::move(target), limits, std::move(pool)));
}

} // namespace

StatusOr<std::shared_ptr<Device>>
attnc::rt::detail::openCudaDevice(const std::string &spec, int ordinal) {
  auto device = openOrdinal(spec, ordinal);
  if (!device)
    return device.status().withContext("cannot open device '" + spec + "'");
  return device;
}
