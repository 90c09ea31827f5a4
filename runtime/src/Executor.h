//===- Executor.h - Running a function's program ----------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The second half of Function::call: once the caller's tensors are checked,
// the function's steps run on them and on its buffers, which live in one
// workspace per call. Which kernel each step launches and where its
// arguments are is resolved once, when the package is loaded (a
// FunctionPlan), so that a call looks nothing up by name but the extents of
// its symbols.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_EXECUTOR_H
#define ATTNC_RUNTIME_EXECUTOR_H

#include "Device.h"

#include "attnc/package/Workspace.h"

#include <optional>

namespace attnc::rt::detail {

/// One step of a function, resolved for the device's target.
struct StepPlan {
  const DeviceKernel *kernel; // owned by FunctionPlan::kernels
  const pkg::Kernel *launch;  // its manifest record: name and grid
  /// The step's arguments as indices into the call's values.
  std::vector<size_t> args;
};

/// What a call of one function runs on one device. A call's values are
/// numbered: the inputs, then the outputs, then the buffers, in the order of
/// the signature.
struct FunctionPlan {
  const pkg::Function *function;
  FunctionKernels kernels; // keeps the steps' code loaded
  std::vector<StepPlan> steps;
  /// Per buffer, the steps it lives through (pkg::bufferLifetimes).
  std::vector<pkg::Lifetime> lifetimes;
  /// Per view, the index among a call's values of the value it views.
  std::vector<size_t> viewSources;
  /// The plan of the function's gradient function, or of the function it
  /// is the gradient of, in the same package: training calls alternate
  /// between the two, so each reserves the larger of both workspaces.
  const FunctionPlan *paired = nullptr;
};

/// A package and its code on one device: what Package and Function share.
struct LoadedPackage {
  std::shared_ptr<Device> device;
  std::string origin;
  pkg::Package manifest;
  /// Per function of the manifest, in order: its plan, or nothing where it
  /// does not run on the device (pkg::Function::runsOn).
  std::vector<std::optional<FunctionPlan>> plans;
};

/// Plans every function of `package.manifest` that `kernels` (from
/// Device::load) has code for. Errors name the function and the step; a
/// verified package has none.
Status planFunctions(LoadedPackage &package, KernelMap kernels);

/// Events of a stream between a call's steps: before the first step and
/// after each.
using StepMarks = std::vector<std::shared_ptr<const DeviceEvent>>;

/// Runs the steps of `plan` on `device`, in order on `stream`. `values`
/// holds the call's checked inputs and outputs and room for its buffers:
///  - the buffers get their shapes from `symbols` and are laid out dense and
///    row-major in one workspace by pkg::layoutWorkspace (by slot or by
///    lifetime, whichever is smaller; a zero-size buffer gets a null
///    pointer; no buffer bytes, no workspace);
///  - the workspace is as large as the paired function's would be for the
///    same symbols, where that is larger and `symbols` bind all its dims:
///    the device's memory pool then serves a training step's forward and
///    backward calls from one block instead of holding one block for each;
///  - each step launches its kernel on its values with its grid resolved
///    from `symbols`;
///  - the workspace is freed in stream order, also after a failed step,
///    whose error is returned: "step 1 (kernel 'cast'): ...".
///  - with `marks`, an event is recorded on `stream` before the first step
///    and after each step (Function::profile).
/// Steps before a failed one have run; the outputs are then unspecified.
Status runProgram(const Device &device, const FunctionPlan &plan,
                  const SymbolBindings &symbols, std::vector<KernelArg> &values,
                  void *stream, StepMarks *marks = nullptr);

} // namespace attnc::rt::detail

#endif // ATTNC_RUNTIME_EXECUTOR_H
