//===- Runtime.h - Load attnc packages and call their functions -*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The C++ API of libattnrt:
//
//   auto rt = attnc::rt::Runtime::open("host");
//   auto package = rt->load("block.attnpkg");
//   auto fn = package->function("attention_fwd");
//   Status s = fn->call({q, k, v}, {out, lse});
//
// Every fallible call returns a Status or StatusOr; nothing prints. Handles
// are cheap to copy and share what they refer to: a Function keeps its
// package's loaded code and its device alive, so the Runtime and Package
// handles it came from may be dropped first.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_RUNTIME_H
#define ATTNC_RUNTIME_RUNTIME_H

#include "attnc/runtime/Export.h"
#include "lib/package/Package.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnc::rt {

namespace detail {
class Device;
class DeviceKernel;
struct LoadedPackage;
} // namespace detail

/// A caller-owned tensor: a pointer the device can read or write, its element
/// type and its layout. Strides are in elements; empty means contiguous
/// row-major.
struct TensorRef {
  void *data = nullptr;
  pkg::DType dtype = pkg::DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

/// Extents bound to the symbolic dims of one function, each remembering where
/// it came from so that a conflict names both sides.
class ATTNC_RT_EXPORT SymbolBindings {
public:
  /// Binds `symbol` to `extent`, or checks it against an earlier binding.
  /// `origin` says where the extent came from, e.g. "q dim 2".
  Status bind(const std::string &symbol, int64_t extent,
              const std::string &origin);
  /// Checks `shape` against `sig` (rank, extents >= 0, static extents) and
  /// binds its symbols. Messages call the tensor `role`, e.g. "input q".
  Status bindShape(const pkg::TensorSig &sig, const std::vector<int64_t> &shape,
                   const std::string &role);

  std::optional<int64_t> lookup(const std::string &symbol) const;
  /// `sig`'s shape with every symbol replaced by its extent; the error names
  /// the unbound symbols.
  StatusOr<std::vector<int64_t>> resolve(const pkg::TensorSig &sig) const;
  /// Symbol -> extent, sorted by symbol.
  std::map<std::string, int64_t> values() const;

private:
  struct Binding {
    int64_t extent;
    std::string origin;
  };
  std::map<std::string, Binding> bindings_;
};

/// One function of a loaded package.
class ATTNC_RT_EXPORT Function {
public:
  const std::string &name() const;
  /// Inputs, outputs, kernels and semantics, as the manifest states them.
  const pkg::Function &signature() const;

  /// Checks every tensor against the signature (count, dtype, rank, static
  /// extents, consistent symbols, layout), resolves the launch grid and runs
  /// the kernel for this device. Inputs then outputs are the kernel's
  /// arguments. `stream` is the device's stream (CUDA); it must be null on the
  /// host, where the call returns when the kernel is done.
  Status call(const std::vector<TensorRef> &inputs,
              const std::vector<TensorRef> &outputs,
              void *stream = nullptr) const;

private:
  friend class Package;
  Function(std::shared_ptr<const detail::LoadedPackage> package,
           const pkg::Function *function);

  std::shared_ptr<const detail::LoadedPackage> package_;
  const pkg::Function *function_;
};

/// A package verified and loaded onto one device.
class ATTNC_RT_EXPORT Package {
public:
  /// Where it was loaded from: a path, or "<memory>".
  const std::string &origin() const;
  /// The manifest (and blobs) as read from the file.
  const pkg::Package &manifest() const;
  std::vector<std::string> functionNames() const;
  /// The error for an unknown name lists the available functions.
  StatusOr<Function> function(const std::string &name) const;

private:
  friend class Runtime;
  explicit Package(std::shared_ptr<const detail::LoadedPackage> impl);

  std::shared_ptr<const detail::LoadedPackage> impl_;
};

/// A device to load packages onto.
class ATTNC_RT_EXPORT Runtime {
public:
  /// `device` is "host" (the CPU; a thread pool of hardware_concurrency
  /// threads, or ATTNC_NUM_THREADS) or "cuda:N".
  static StatusOr<Runtime> open(const std::string &device);

  /// The device string it was opened with.
  const std::string &device() const;

  /// Reads and verifies a package, then loads the code of every kernel for
  /// this device.
  StatusOr<Package> load(const std::string &path) const;
  StatusOr<Package> loadFromMemory(const void *data, size_t size) const;

private:
  explicit Runtime(std::shared_ptr<detail::Device> device);
  StatusOr<Package> loadParsed(StatusOr<pkg::Package> parsed,
                               const std::string &origin) const;

  std::shared_ptr<detail::Device> device_;
};

} // namespace attnc::rt

#endif // ATTNC_RUNTIME_RUNTIME_H
