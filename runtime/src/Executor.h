//===- Executor.h - Running a function's program ----------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The second half of Function::call: once the caller's tensors are checked,
// the function's steps run on them and on its buffers, which live in one
// workspace per call.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_EXECUTOR_H
#define ATTNC_RUNTIME_EXECUTOR_H

#include "Device.h"

namespace attnc::rt::detail {

/// Multiplies into `product`; false on int64 overflow.
inline bool checkedMul(int64_t &product, int64_t factor) {
  return !__builtin_mul_overflow(product, factor, &product);
}

/// The tensors of a call by value name.
using ValueTable = std::map<std::string, KernelArg>;

/// Runs the steps of `function` on `device`, in order on `stream`:
///  - the buffers get their shapes from `symbols` and are laid out dense and
///    row-major in one workspace, each slot as large as its largest buffer,
///    at 256-byte aligned offsets (a zero-size buffer gets a null pointer;
///    no buffer bytes, no workspace);
///  - each step launches its kernel from `kernels` on its args, looked up in
///    `values` (the caller's inputs and outputs, as checked) and the
///    buffers, with its grid resolved from `symbols`;
///  - the workspace is freed in stream order, also after a failed step,
///    whose error is returned: "step 1 (kernel 'cast'): ...".
/// Steps before a failed one have run; the outputs are then unspecified.
Status runProgram(const Device &device, const pkg::Function &function,
                  const FunctionKernels &kernels, const SymbolBindings &symbols,
                  ValueTable values, void *stream);

} // namespace attnc::rt::detail

#endif // ATTNC_RUNTIME_EXECUTOR_H
