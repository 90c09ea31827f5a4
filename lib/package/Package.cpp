//===- Package.cpp - Package verification, JSON manifest and file format --===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// nlohmann/json reports errors by throwing; every public function here
// catches them, so callers built without exceptions only ever see a Status.
//
// Manifest conventions beyond the comments in Package.h:
//  - A field whose C++ member is std::optional may be omitted
//    ("window_left", "window_right", "mask", "score"), as may a region op's
//    "predicate" and "value" and a grid term's "ceildiv"; every other field
//    is required, and a field the schema does not know is an error (a typo in
//    an optional field would otherwise change the semantics silently).
//  - An op's spec has no object of its own: its fields sit in the op's
//    object, and the op's "kind" says which fields those are.
//  - A float ("scale", a float region op's "value") is a JSON number or one
//    of the strings "inf", "-inf", "nan", which JSON numbers cannot express.
//    An integer region op's "value" is a JSON integer (RegionOp::intValue),
//    so that 64-bit constants stay exact.
//
//===----------------------------------------------------------------------===//

#include "attnc/package/Package.h"
#include "attnc/package/Workspace.h"

#include "lib/semantics/RegionOps.h"
#include "lib/support/Extents.h"
#include "lib/support/Text.h"
#include "lib/support/WriteAll.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace attnc::pkg {

namespace {

using Json = nlohmann::ordered_json;

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

std::string fieldPath(const std::string &base, const std::string &key) {
  return base.empty() ? key : base + "." + key;
}

std::string indexPath(const std::string &base, size_t index) {
  return base + "[" + std::to_string(index) + "]";
}

/// An error about the field at `path` (none: the message alone).
Status fieldError(const std::string &path, const std::string &message) {
  return Status::error(path.empty() ? message : path + ": " + message);
}

std::string hex64(uint64_t value) {
  static const char digits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4)
    text[i] = digits[value & 0xf];
  return text;
}

std::optional<uint64_t> parseHex64(const std::string &text) {
  if (text.size() != 16)
    return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    int digit;
    if (c >= '0' && c <= '9')
      digit = c - '0';
    else if (c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      digit = c - 'A' + 10;
    else
      return std::nullopt;
    value = value << 4 | static_cast<uint64_t>(digit);
  }
  return value;
}

std::string errnoMessage(int error) {
  return std::generic_category().message(error);
}

void putLE(std::vector<uint8_t> &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

uint64_t getLE(const uint8_t *data, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= static_cast<uint64_t>(data[i]) << (8 * i);
  return value;
}

/// Runs status-returning steps in order and stops at the first error.
template <typename... Steps> Status all(Steps &&...steps) {
  Status result = Status::ok();
  ((result.isOk() ? (void)(result = steps()) : (void)0), ...);
  return result;
}

/// Runs `fn`, turning any exception into an error status with `context`.
template <typename Fn>
auto noThrow(const std::string &context, Fn &&fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::exception &e) {
    return Status::error(context + ": internal error: " + e.what());
  } catch (...) {
    return Status::error(context + ": internal error: unknown exception");
  }
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

/// Checks that `name` is non-empty and not yet in `seen`, then adds it.
/// `scope` ends the message about a duplicate (" for target \"host\"").
Status checkUniqueName(const std::string &name, const std::string &path,
                       const char *what, std::set<std::string> &seen,
                       const std::string &scope = "") {
  if (name.empty())
    return fieldError(path, std::string(what) + " name must not be empty");
  if (!seen.insert(name).second)
    return fieldError(path, "duplicate " + std::string(what) + " name " +
                                inQuotes(name) + scope);
  return Status::ok();
}

Status checkNonEmpty(const std::string &value, const std::string &path) {
  return value.empty() ? fieldError(path, "must not be empty") : Status::ok();
}

Status checkFinite(double value, const std::string &path) {
  return std::isfinite(value) ? Status::ok()
                              : fieldError(path, "must be finite");
}

/// The bit width of a region op's type when it is an integer type, whose
/// constants are `intValue`; nothing for float types, whose constants are
/// `value`. An unknown type counts as a float here; the evaluator rejects it.
std::optional<int> integerWidth(const RegionOp &op) {
  std::optional<sem::ScalarType> type = sem::parseScalarType(op.type);
  if (!type || sem::isFloat(*type))
    return std::nullopt;
  return sem::bitWidth(*type);
}

/// The manifest carries one of `value` and `intValue`, as "value", by the
/// op's type: the other must stay 0, or serializing would drop it. An
/// integer is its bits sign-extended from the type's width.
Status checkConstantField(const RegionOp &op, const std::string &path) {
  std::optional<int> width = integerWidth(op);
  // Both members are the JSON key "value", which paths name.
  if (!width && op.intValue != 0)
    return fieldError(fieldPath(path, "value"),
                      "intValue must be 0 for an op of type " + op.type +
                          " (float constants are in value)");
  if (!width)
    return Status::ok();
  if (op.value != 0)
    return fieldError(fieldPath(path, "value"),
                      "must be 0 for an op of type " + op.type +
                          " (integer constants are in intValue)");
  int64_t low = *width == 64 ? std::numeric_limits<int64_t>::min()
                             : -(int64_t(1) << (*width - 1));
  int64_t high = -(low + 1);
  if (op.intValue >= low && op.intValue <= high)
    return Status::ok();
  return fieldError(fieldPath(path, "value"),
                    std::to_string(op.intValue) + " is not an " + op.type +
                        " constant (its bits sign-extended, in [" +
                        std::to_string(low) + ", " + std::to_string(high) +
                        "])");
}

/// What a function's fields may refer to: its values (inputs, outputs and
/// buffers share one namespace) and the symbols its inputs and outputs bind.
struct Scope {
  std::set<std::string> values;
  std::set<std::string> symbols;
};

/// Checks a signature and adds its name to the scope. Inputs and outputs
/// define their symbols; a buffer may only use symbols defined already, since
/// nothing binds a buffer's shape but the call's tensors.
Status verifyTensor(const TensorSig &tensor, const std::string &path,
                    Scope &scope, bool definesSymbols) {
  if (Status s = checkUniqueName(tensor.name, fieldPath(path, "name"), "tensor",
                                 scope.values);
      !s)
    return s;
  for (size_t i = 0; i < tensor.shape.size(); ++i) {
    const Dim &dim = tensor.shape[i];
    std::string dimPath = indexPath(fieldPath(path, "shape"), i);
    if (dim.isStatic() && dim.extent < 0)
      return fieldError(dimPath, "static extent must be >= 0, got " +
                                     std::to_string(dim.extent));
    if (dim.isStatic() || scope.symbols.count(dim.symbol))
      continue;
    if (!definesSymbols)
      return fieldError(dimPath, "symbol " + inQuotes(dim.symbol) +
                                     " is not defined by any input or output "
                                     "of the function");
    scope.symbols.insert(dim.symbol);
  }
  if (tensor.indexBound &&
      (*tensor.indexBound < 1 ||
       (tensor.dtype != DType::I32 && tensor.dtype != DType::I64)))
    return fieldError(fieldPath(path, "index_bound"),
                      "expected a bound >= 1 on an i32 or i64 tensor");
  return Status::ok();
}

Status verifyBuffer(const Buffer &buffer, const std::string &path,
                    Scope &scope) {
  if (Status s = verifyTensor(buffer.tensor, path, scope,
                              /*definesSymbols=*/false);
      !s)
    return s;
  if (buffer.slot < 0)
    return fieldError(fieldPath(path, "slot"),
                      "must be >= 0, got " + std::to_string(buffer.slot));
  return Status::ok();
}

/// The end of a view's rows, begin + its row count (static once verified),
/// or INT64_MAX where that overflows.
int64_t rowsEnd(const View &view, size_t ofRank) {
  int64_t end;
  if (__builtin_add_overflow(view.begin, view.rowsOf(ofRank), &end))
    return std::numeric_limits<int64_t>::max();
  return end;
}

bool sameDim(const Dim &a, const Dim &b) {
  return a.extent == b.extent && a.symbol == b.symbol;
}

/// Whether a view's dtype and dims fit `of`: its dims after the first are
/// `of`'s, or `of` has rank 1 and every dim of the view is static.
bool viewFits(const std::vector<Dim> &shape, const TensorSig &of) {
  if (of.shape.size() == 1)
    return !shape.empty() &&
           std::all_of(shape.begin(), shape.end(),
                       [](const Dim &dim) { return dim.isStatic(); });
  return shape.size() == of.shape.size() && !shape.empty() &&
         std::equal(shape.begin() + 1, shape.end(), of.shape.begin() + 1,
                    sameDim);
}

/// A heads view against `of`: all of a rank-3 value [B, N, H * D] (H * D
/// static) of the view's dtype as [B, H, N, D], from row 0.
Status verifyHeadsView(const View &view, const TensorSig &of,
                       const std::string &path) {
  const std::vector<Dim> &shape = view.tensor.shape;
  if (view.heads < 0 || view.begin != 0)
    return fieldError(fieldPath(path, view.begin ? "begin" : "heads"),
                      "a heads view takes all of " + inQuotes(view.of) +
                          " from row 0 as a count of heads >= 1");
  bool fits = of.shape.size() == 3 && shape.size() == 4 &&
              view.tensor.dtype == of.dtype && of.shape[2].isStatic() &&
              of.shape[2].extent % view.heads == 0 &&
              sameDim(shape[0], of.shape[0]) &&
              sameDim(shape[1], Dim::fixed(view.heads)) &&
              sameDim(shape[2], of.shape[1]) &&
              sameDim(shape[3], Dim::fixed(of.shape[2].extent / view.heads));
  if (!fits)
    return fieldError(fieldPath(path, "shape"),
                      "a heads view of " + inQuotes(view.of) + " [B, N, " +
                          std::to_string(view.heads) +
                          " * D] has its dtype and the shape [B, " +
                          std::to_string(view.heads) + ", N, D]");
  return Status::ok();
}

/// A view's signature (defining no symbols), then its rows against `of`:
/// an input, output or buffer of the same dtype, the same rank and dims
/// after the first (or rank 1 and a view of static dims), and rows inside
/// its first dim when that is static.
Status verifyView(const Function &function, const View &view,
                  const std::string &path, Scope &scope) {
  if (Status s = verifyTensor(view.tensor, path, scope,
                              /*definesSymbols=*/false);
      !s)
    return s;
  const TensorSig *of = function.findValue(view.of);
  if (!of || function.findView(view.of))
    return fieldError(fieldPath(path, "of"),
                      "no input, output or buffer named " + inQuotes(view.of));
  if (view.heads)
    return verifyHeadsView(view, *of, path);
  const std::vector<Dim> &shape = view.tensor.shape;
  if (view.tensor.dtype != of->dtype || !viewFits(shape, *of))
    return fieldError(fieldPath(path, "shape"),
                      "a view has the dtype and dims of " + inQuotes(view.of) +
                          " but for its first (or, of a rank-1 value, "
                          "static dims)");
  if (!shape[0].isStatic() || shape[0].extent < 1)
    return fieldError(indexPath(fieldPath(path, "shape"), 0),
                      "a view's row count is a static extent >= 1");
  // The end must be an int64 for every reader of the view, even where
  // `of`'s rows are only known at a call.
  const Dim &rows = of->shape[0];
  int64_t end = rowsEnd(view, of->shape.size());
  if (view.begin < 0 || end == std::numeric_limits<int64_t>::max() ||
      (rows.isStatic() && end > rows.extent))
    return fieldError(fieldPath(path, "begin"),
                      "rows [" + std::to_string(view.begin) + ", " +
                          std::to_string(end) + ") are not rows of " +
                          inQuotes(view.of));
  return Status::ok();
}

Status verifyGridTerm(const GridTerm &term, const std::string &path,
                      const std::set<std::string> &symbols) {
  if (term.constant <= 0)
    return fieldError(term.symbols.empty() ? path : fieldPath(path, "const"),
                      "constant grid factor must be positive, got " +
                          std::to_string(term.constant));
  if (term.divisor <= 0)
    return fieldError(fieldPath(path, "ceildiv"),
                      "divisor must be positive, got " +
                          std::to_string(term.divisor));
  if (term.symbols.empty() && term.divisor != 1)
    return fieldError(fieldPath(path, "ceildiv"),
                      "a constant grid factor takes no divisor");
  for (const std::string &symbol : term.symbols)
    if (!symbols.count(symbol))
      return fieldError(fieldPath(path, "sym"),
                        "symbol " + inQuotes(symbol) +
                            " is not defined by any tensor of the function");
  return Status::ok();
}

Status verifyLaunch(const Kernel &kernel, const std::string &path,
                    const std::set<std::string> &symbols) {
  std::string gridPath = fieldPath(path, "grid");
  if (kernel.grid.size() > 3)
    return fieldError(gridPath, "at most 3 dimensions, got " +
                                    std::to_string(kernel.grid.size()));
  for (size_t d = 0; d < kernel.grid.size(); ++d)
    for (size_t t = 0; t < kernel.grid[d].size(); ++t)
      if (Status s = verifyGridTerm(
              kernel.grid[d][t], indexPath(indexPath(gridPath, d), t), symbols);
          !s)
        return s;
  for (size_t i = 0; i < 3; ++i)
    if (kernel.block[i] <= 0)
      return fieldError(indexPath(fieldPath(path, "block"), i),
                        "must be positive, got " +
                            std::to_string(kernel.block[i]));
  if (kernel.dynamicSharedMemoryBytes < 0)
    return fieldError(fieldPath(path, "dynamic_shared_memory_bytes"),
                      "must be >= 0, got " +
                          std::to_string(kernel.dynamicSharedMemoryBytes));
  return Status::ok();
}

/// Checks each entry of `items` with `check(item, path)`, where `path` is
/// `list`'s entry in `base`.
template <typename T, typename Check>
Status verifyEach(const std::vector<T> &items, const std::string &base,
                  const char *list, Check &&check) {
  for (size_t i = 0; i < items.size(); ++i)
    if (Status s = check(items[i], indexPath(fieldPath(base, list), i)); !s)
      return s;
  return Status::ok();
}

/// Checks what a tensor map says by itself (cuTensorMapEncodeTiled's
/// limits); verifyStep checks it against the argument it describes.
Status verifyTensorMap(const TensorMap &map, const std::string &path) {
  if (map.arg < 0)
    return fieldError(fieldPath(path, "arg"),
                      "must be >= 0, got " + std::to_string(map.arg));
  if (map.box.empty() || map.box.size() > 5)
    return fieldError(fieldPath(path, "box"),
                      "expected 1 to 5 extents, got " +
                          std::to_string(map.box.size()));
  for (size_t i = 0; i < map.box.size(); ++i)
    if (map.box[i] < 1 || map.box[i] > 256)
      return fieldError(indexPath(fieldPath(path, "box"), i),
                        "expected an extent in [1, 256], got " +
                            std::to_string(map.box[i]));
  if (map.swizzleBytes != 0 && map.swizzleBytes != 128)
    return fieldError(fieldPath(path, "swizzle_bytes"),
                      "expected 0 or 128, got " +
                          std::to_string(map.swizzleBytes));
  return Status::ok();
}

/// The argument a tensor map describes: a step argument of 2- or 4-byte
/// floats whose rank is the box's, the box's inner extent whole 16-byte
/// units within the swizzle.
Status verifyTensorMapArg(const Function &function, const Step &step,
                          const TensorMap &map, const std::string &path) {
  std::string at = "tensor map of kernel " + inQuotes(step.kernel) + ": ";
  if (static_cast<size_t>(map.arg) >= step.args.size())
    return fieldError(path, at + "argument " + std::to_string(map.arg) +
                                " of a step with " +
                                std::to_string(step.args.size()));
  const TensorSig *value = function.findValue(step.args[map.arg]);
  if (!value)
    return Status::ok(); // the step's own check names it
  if (value->shape.size() != map.box.size())
    return fieldError(path, at + "a box of " + std::to_string(map.box.size()) +
                                " extents for " + inQuotes(value->name) +
                                " of rank " +
                                std::to_string(value->shape.size()));
  if (value->dtype != DType::BF16 && value->dtype != DType::F16 &&
      value->dtype != DType::F32)
    return fieldError(path, at + inQuotes(value->name) +
                                " is not of bf16, f16 or f32");
  int64_t innerBytes =
      map.box.front() * static_cast<int64_t>(dtypeSize(value->dtype));
  if (innerBytes % 16 != 0 ||
      (map.swizzleBytes != 0 && innerBytes > map.swizzleBytes))
    return fieldError(path, at + "an inner box of " +
                                std::to_string(innerBytes) +
                                " bytes is not whole 16-byte units within "
                                "the swizzle");
  return Status::ok();
}

/// A library kernel: a known routine on a CUDA target, with no code or
/// launch shape of its own and the config its routine reads.
Status verifyLibraryKernel(const Kernel &kernel, const std::string &path) {
  if (*kernel.library != "cublaslt_matmul")
    return fieldError(fieldPath(path, "library"),
                      "unknown library routine " + inQuotes(*kernel.library) +
                          " (expected \"cublaslt_matmul\")");
  if (kernel.target == "host")
    return fieldError(fieldPath(path, "library"),
                      "host kernels have no library routines");
  if (!kernel.blob.empty() || !kernel.entry.empty() || !kernel.grid.empty() ||
      kernel.block[0] != 1 || kernel.block[1] != 1 || kernel.block[2] != 1 ||
      kernel.dynamicSharedMemoryBytes != 0 || !kernel.tensorMaps.empty())
    return fieldError(path, "a library kernel has an empty blob and entry, "
                            "no grid, block [1, 1, 1], no shared memory and "
                            "no tensor maps");
  // "bias", "addend" and "gelu_tanh" (epilogues) are optional: packages
  // before them had none.
  auto optional = [](const std::string &key) {
    return key == "bias" || key == "addend" || key == "gelu_tanh";
  };
  for (const char *key :
       {"transpose_a", "transpose_b", "bias", "addend", "gelu_tanh"}) {
    auto value = kernel.config.find(key);
    if ((value == kernel.config.end() && !optional(key)) ||
        (value != kernel.config.end() && value->second != 0 &&
         value->second != 1))
      return fieldError(fieldPath(fieldPath(path, "config"), key),
                        "expected 0 or 1 for routine \"cublaslt_matmul\"");
  }
  if (kernel.config.size() != 2 + kernel.config.count("bias") +
                                  kernel.config.count("addend") +
                                  kernel.config.count("gelu_tanh"))
    return fieldError(fieldPath(path, "config"),
                      "expected only transpose_a, transpose_b, bias, addend "
                      "and gelu_tanh");
  return Status::ok();
}

/// Checks one kernel; `names` holds the kernel names seen so far per target.
Status verifyKernel(const Kernel &kernel, const std::string &path,
                    const Package &package,
                    const std::set<std::string> &symbols,
                    std::map<std::string, std::set<std::string>> &names) {
  if (Status s = checkNonEmpty(kernel.target, fieldPath(path, "target")); !s)
    return s;
  if (Status s = checkUniqueName(kernel.name, fieldPath(path, "name"), "kernel",
                                 names[kernel.target],
                                 " for target " + inQuotes(kernel.target));
      !s)
    return s;
  if (kernel.library)
    return verifyLibraryKernel(kernel, path);
  if (!package.findBlob(kernel.blob))
    return fieldError(fieldPath(path, "blob"),
                      "no blob named " + inQuotes(kernel.blob));
  if (Status s = checkNonEmpty(kernel.entry, fieldPath(path, "entry")); !s)
    return s;
  if (kernel.target == "host" && !kernel.tensorMaps.empty())
    return fieldError(fieldPath(path, "tensor_maps"),
                      "host kernels take no tensor maps");
  if (Status s =
          verifyEach(kernel.tensorMaps, path, "tensor_maps", verifyTensorMap);
      !s)
    return s;
  return verifyLaunch(kernel, path, symbols);
}

/// Checks that `name` names a value of the function; `path` locates it.
Status checkValue(const Function &function, const std::string &name,
                  const std::string &path) {
  return function.findValue(name)
             ? Status::ok()
             : fieldError(path, "no value named " + inQuotes(name));
}

/// Every step names a kernel that each target of the function has, so that
/// a function runs on all of its targets or on none.
Status verifyStep(const Function &function, const Step &step,
                  const std::string &path,
                  const std::vector<std::string> &targets) {
  std::string kernelPath = fieldPath(path, "kernel");
  for (const std::string &target : targets)
    if (!function.findKernel(step.kernel, target))
      return fieldError(kernelPath,
                        "no kernel named " + inQuotes(step.kernel) +
                            " for target " + inQuotes(target) +
                            " (each target the function has kernels for "
                            "needs one for every step)");
  if (targets.empty())
    return fieldError(kernelPath, "no kernel named " + inQuotes(step.kernel));
  for (size_t i = 0; i < step.args.size(); ++i)
    if (Status s = checkValue(function, step.args[i],
                              indexPath(fieldPath(path, "args"), i));
        !s)
      return s;
  for (const std::string &target : targets)
    for (const TensorMap &map :
         function.findKernel(step.kernel, target)->tensorMaps)
      if (Status s = verifyTensorMapArg(function, step, map, kernelPath); !s)
        return s;
  return Status::ok();
}

/// The op each step computes, by the step's arguments (OpSpec::stepArgs).
/// Built once per function, so that the checks that need a step's op find
/// it without a search of all ops.
class StepOps {
public:
  explicit StepOps(const Function &function) {
    for (const OpSpec &op : function.ops)
      byArgs.emplace(op.stepArgs(), &op); // the first of equal ones
  }

  /// The op `step` computes, or null.
  const OpSpec *of(const Step &step) const {
    auto found = byArgs.find(step.args);
    return found == byArgs.end() ? nullptr : found->second;
  }

private:
  std::map<std::vector<std::string>, const OpSpec *> byArgs;
};

/// A library kernel computes, at each step that runs it, the matmul op of
/// the step's arguments, configured as the op says: a routine configured
/// otherwise (a package edited by hand, or written by another tool) would
/// compute something other than the host kernels and the reference do.
/// Functions without ops (schema 1) have nothing to check against.
Status verifyLibraryStep(const Function &function, const StepOps &stepOps,
                         size_t stepIndex, const Kernel &kernel,
                         const std::string &path) {
  if (function.ops.empty())
    return Status::ok();
  std::string step = "step " + std::to_string(stepIndex);
  const OpSpec *op = stepOps.of(function.steps[stepIndex]);
  if (!op || !op->matmul)
    return fieldError(path, "routine " + inQuotes(*kernel.library) + " at " +
                                step +
                                " computes no matmul op of the function "
                                "with the step's arguments");
  // verifyLibraryKernel checked the keys; an absent optional one is 0.
  for (auto [key, want] :
       cublasLtMatmulConfig(*op->matmul, op->bias() != nullptr)) {
    auto value = kernel.config.find(key);
    int64_t set = value == kernel.config.end() ? 0 : value->second;
    if (set != want)
      return fieldError(fieldPath(fieldPath(path, "config"), key),
                        "is " + std::to_string(set) + " but the matmul op of " +
                            step + " says " + std::to_string(want));
  }
  return Status::ok();
}

/// verifyLibraryStep for every library kernel and step that runs it, once
/// the kernels, steps and ops are verified.
Status verifyLibrarySteps(const Function &function, const StepOps &stepOps,
                          const std::string &path) {
  for (size_t k = 0; k < function.kernels.size(); ++k) {
    const Kernel &kernel = function.kernels[k];
    if (!kernel.library)
      continue;
    for (size_t i = 0; i < function.steps.size(); ++i)
      if (function.steps[i].kernel == kernel.name)
        if (Status s =
                verifyLibraryStep(function, stepOps, i, kernel,
                                  indexPath(fieldPath(path, "kernels"), k));
            !s)
          return s;
  }
  return Status::ok();
}

/// The rows [begin, end) of its storage that a step argument covers: a
/// view's rows, else all of them.
struct StorageRows {
  std::string_view storage;
  int64_t begin = 0, end = std::numeric_limits<int64_t>::max();

  static StorageRows of(const Function &function, const std::string &name) {
    const View *view = function.findView(name);
    if (!view)
      return {name};
    // verifyView checked the view's static row count.
    return {view->of, view->begin,
            rowsEnd(*view, function.findValue(view->of)->shape.size())};
  }

  bool overlaps(const StorageRows &other) const {
    return storage == other.storage && begin < other.end && other.begin < end;
  }
};

/// The argument of `other` whose rows a result of `writer` writes, or null.
const std::string *writtenUnder(const Function &function, const OpSpec &writer,
                                const Step &other) {
  for (const std::string &result : writer.results) {
    if (result.empty())
      continue;
    StorageRows written = StorageRows::of(function, result);
    for (const std::string &arg : other.args)
      if (written.overlaps(StorageRows::of(function, arg)))
        return &arg;
  }
  return nullptr;
}

/// A concurrent step and the step before it run at the same time, so each
/// must leave alone what the other reads and writes: what an op writes is
/// its results, and only the function's ops say which arguments those are.
Status verifyConcurrentStep(const Function &function, const StepOps &stepOps,
                            size_t index, const std::string &path) {
  std::string at = fieldPath(indexPath(path, index), "concurrent");
  if (index == 0)
    return fieldError(at, "the first step has no step before it to run beside");
  std::string before = "step " + std::to_string(index - 1);
  const Step &first = function.steps[index - 1];
  const Step &second = function.steps[index];
  if (first.concurrent)
    return fieldError(at, before + " already runs beside the step before "
                                   "it: a step runs beside one other at most");
  const OpSpec *firstOp = stepOps.of(first), *secondOp = stepOps.of(second);
  if (!firstOp || !secondOp)
    return fieldError(at, (firstOp ? "this step" : before) +
                              " computes no op of the function, so what it "
                              "writes is unknown");
  const std::string *clash = writtenUnder(function, *firstOp, second);
  if (!clash)
    clash = writtenUnder(function, *secondOp, first);
  if (clash)
    return fieldError(at, "this step and " + before + " both touch " +
                              inQuotes(*clash) +
                              ", which one of them writes: they cannot run "
                              "at the same time");
  return Status::ok();
}

/// The rows of `input` that `rows` of output `output` share memory with
/// when the output updates it in place; nothing otherwise.
std::optional<StorageRows> asInputRows(StorageRows rows,
                                       const std::string &output,
                                       const std::string &input) {
  if (rows.storage != output)
    return std::nullopt;
  rows.storage = input;
  return rows;
}

/// Checks that no step reads rows of `input` that a step before it, or the
/// step it runs beside, wrote through `output`. A step may read the rows it
/// writes only as an element kernel (elementwise, cast: each element read
/// before the thread that reads it writes it), the same rows read and
/// written.
Status verifyUpdate(const Function &function, const StepOps &stepOps,
                    const std::string &output, const std::string &input,
                    const std::string &at) {
  std::vector<StorageRows> written, readBefore;
  for (size_t s = 0; s < function.steps.size(); ++s) {
    const Step &step = function.steps[s];
    std::string stepName = "step " + std::to_string(s);
    const OpSpec *op = stepOps.of(step);
    if (!op) {
      for (const std::string &arg : step.args)
        if (function.storageOf(arg) == input ||
            function.storageOf(arg) == output)
          return fieldError(at, stepName + " computes no op of the function, "
                                           "so what it writes is unknown");
      continue;
    }
    if (!step.concurrent)
      readBefore.clear();
    std::vector<StorageRows> reads;
    for (const std::string &operand : op->operands) {
      StorageRows rows = StorageRows::of(function, operand);
      if (rows.storage != input)
        continue;
      for (const StorageRows &w : written)
        if (w.overlaps(rows))
          return fieldError(at, stepName + " reads rows of " + inQuotes(input) +
                                    " that an earlier step wrote through " +
                                    inQuotes(output));
      reads.push_back(rows);
    }
    bool elementwise = op->kind == "elementwise" || op->kind == "cast";
    for (const std::string &result : op->results) {
      std::optional<StorageRows> rows =
          result.empty()
              ? std::nullopt
              : asInputRows(StorageRows::of(function, result), output, input);
      if (!rows)
        continue;
      for (const StorageRows &r : reads)
        if (r.overlaps(*rows) &&
            !(elementwise && r.begin == rows->begin && r.end == rows->end))
          return fieldError(at, stepName + " writes rows of " +
                                    inQuotes(output) + " that it reads of " +
                                    inQuotes(input) +
                                    " other than element by element");
      for (const StorageRows &r : readBefore)
        if (r.overlaps(*rows))
          return fieldError(at, stepName + " writes rows of " +
                                    inQuotes(output) +
                                    " that the step it runs beside reads of " +
                                    inQuotes(input));
      written.push_back(*rows);
    }
    readBefore = std::move(reads);
  }
  return Status::ok();
}

bool sameSignature(const TensorSig &a, const TensorSig &b);

/// The tensor of `list` named `name`, or null.
const TensorSig *findIn(const std::vector<TensorSig> &list,
                        const std::string &name) {
  for (const TensorSig &tensor : list)
    if (tensor.name == name)
      return &tensor;
  return nullptr;
}

/// Each update pairs an output with an input of the same signature, and
/// the steps never read what the output overwrote (verifyUpdate).
Status verifyUpdates(const Function &function, const StepOps &stepOps,
                     const std::string &path) {
  for (const auto &[output, input] : function.updates) {
    std::string at = fieldPath(fieldPath(path, "updates"), output);
    const TensorSig *out = findIn(function.outputs, output);
    const TensorSig *in = findIn(function.inputs, input);
    if (!out || !in || !sameSignature(*out, *in))
      return fieldError(at, "expected an output updating an input of its "
                            "dtype and shape, got " +
                                inQuotes(output) + " and " + inQuotes(input));
    if (Status s = verifyUpdate(function, stepOps, output, input, at); !s)
      return s;
  }
  return Status::ok();
}

Status verifyConcurrentSteps(const Function &function, const StepOps &stepOps,
                             const std::string &path) {
  std::string steps = fieldPath(path, "steps");
  for (size_t i = 0; i < function.steps.size(); ++i)
    if (function.steps[i].concurrent)
      if (Status s = verifyConcurrentStep(function, stepOps, i, steps); !s)
        return s;
  return Status::ok();
}

/// Buffers of one slot share memory, so no two of them may be live at the
/// same time (a pair of concurrent steps counts as one time). Each slot's
/// buffers in order of their first step: each must start after every
/// earlier one ended.
Status verifyBufferSlots(const Function &function, const std::string &path) {
  std::vector<Lifetime> live = bufferLifetimes(function);
  std::map<int64_t, std::vector<size_t>> slots;
  for (size_t b = 0; b < function.buffers.size(); ++b)
    if (live[b].first <= live[b].second)
      slots[function.buffers[b].slot].push_back(b);
  for (auto &[slot, members] : slots) {
    std::stable_sort(members.begin(), members.end(), [&](size_t a, size_t b) {
      return live[a].first < live[b].first;
    });
    size_t lastToEnd = members[0];
    for (size_t b : members) {
      if (b != lastToEnd && live[b].first <= live[lastToEnd].second)
        return fieldError(
            fieldPath(indexPath(fieldPath(path, "buffers"), b), "slot"),
            "buffer " + inQuotes(function.buffers[b].tensor.name) +
                " shares slot " + std::to_string(slot) + " with buffer " +
                inQuotes(function.buffers[lastToEnd].tensor.name) +
                ", and both are live at step " + std::to_string(live[b].first));
      if (live[b].second > live[lastToEnd].second)
        lastToEnd = b;
    }
  }
  return Status::ok();
}

/// Every output is an argument of some step, itself or through a view:
/// nothing else writes it, and a call would return it unwritten (a
/// function without steps included).
Status verifyOutputsWritten(const Function &function, const std::string &path) {
  std::set<std::string, std::less<>> args;
  for (const Step &step : function.steps)
    for (const std::string &arg : step.args)
      args.emplace(function.storageOf(arg));
  for (size_t i = 0; i < function.outputs.size(); ++i)
    if (!args.count(function.outputs[i].name))
      return fieldError(indexPath(fieldPath(path, "outputs"), i),
                        "output " + inQuotes(function.outputs[i].name) +
                            " is not an argument of any step, so nothing "
                            "writes it");
  return Status::ok();
}

/// Checks one optional region of an attention spec: its arity, then its
/// structure.
Status verifyAttentionRegion(const std::optional<Region> &region,
                             const std::string &path, int64_t numArgs,
                             const char *args, int64_t numCaptures) {
  if (!region)
    return Status::ok();
  if (region->numCaptures != numCaptures)
    return fieldError(fieldPath(path, "num_captures"),
                      "expected the op's " + std::to_string(numCaptures) +
                          " captures, got " +
                          std::to_string(region->numCaptures));
  if (region->numArgs != numArgs + numCaptures)
    return fieldError(
        fieldPath(path, "num_args"),
        "expected " + std::to_string(numArgs + numCaptures) + " (" + args +
            (numCaptures ? " and " + std::to_string(numCaptures) + " captures"
                         : std::string()) +
            "), got " + std::to_string(region->numArgs));
  return verifyRegion(*region).withContext(path);
}

Status verifyAttention(const AttentionSpec &spec, const std::string &path) {
  if (Status s = checkFinite(spec.scale, fieldPath(path, "scale")); !s)
    return s;
  if (spec.numCaptures < 0)
    return fieldError(fieldPath(path, "captures"), "must not be negative");
  if (Status s = verifyAttentionRegion(spec.mask, fieldPath(path, "mask"), 4,
                                       "b, h, q_idx, k_idx", spec.numCaptures);
      !s)
    return s;
  return verifyAttentionRegion(spec.score, fieldPath(path, "score"), 5,
                               "s, b, h, q_idx, k_idx", spec.numCaptures);
}

/// Which spec an op kind carries.
enum class SpecKind { None, Attention, Cast, Elementwise, Matmul, Norm, Loss };

/// An op kind: its operand and result counts, and its spec.
struct OpKind {
  const char *name;
  size_t numOperands, numResults;
  /// Whether one more operand and one more result may come, together (the
  /// dq accumulator of attention_grad_kv).
  bool takesAccumulator;
  SpecKind spec;
  /// Whether numOperands and numResults are the least counts rather than
  /// the exact ones.
  bool variadic = false;
  /// Operands that come as a group or not at all (rotary tables).
  size_t optionalOperands = 0;
};

constexpr OpKind kOpKinds[] = {
    {"attention", 3, 2, false, SpecKind::Attention},
    {"attention_grad_delta", 2, 2, false, SpecKind::None},
    {"attention_grad_kv", 6, 2, true, SpecKind::Attention},
    {"attention_grad_q", 6, 1, false, SpecKind::Attention},
    {"cast", 1, 1, false, SpecKind::Cast},
    {"elementwise", 1, 1, false, SpecKind::Elementwise, /*variadic=*/true},
    {"matmul", 2, 1, false, SpecKind::Matmul, false, 1},
    {"rms_norm", 2, 2, false, SpecKind::Norm},
    {"rms_norm_grad", 4, 2, false, SpecKind::None, false, 1},
    {"layer_norm", 2, 2, false, SpecKind::Norm, false, 1},
    {"layer_norm_grad", 4, 2, false, SpecKind::None, false, 1},
    {"sum_rows", 1, 1, false, SpecKind::None},
    {"sum_squares", 1, 1, false, SpecKind::None},
    {"embedding", 2, 1, false, SpecKind::None},
    {"token_order", 1, 2, false, SpecKind::None},
    {"embedding_grad", 3, 1, false, SpecKind::None},
    {"cross_entropy", 2, 2, false, SpecKind::Loss},
    {"cross_entropy_grad", 4, 1, false, SpecKind::Loss},
    {"cross_entropy_partial", 2, 2, false, SpecKind::Loss},
    {"cross_entropy_combine", 3, 2, false, SpecKind::Loss},
    {"token_mean", 2, 1, false, SpecKind::Loss},
    {"token_mean_grad", 2, 1, false, SpecKind::Loss},
    {"split_heads", 1, 1, false, SpecKind::None, false, 2},
    {"merge_heads", 1, 1, false, SpecKind::None, false, 2},
};

const OpKind *findOpKind(const std::string &name) {
  for (const OpKind &kind : kOpKinds)
    if (name == kind.name)
      return &kind;
  return nullptr;
}

std::string unknownOpKind(const std::string &kind) {
  std::string known;
  const size_t count = std::size(kOpKinds);
  for (size_t i = 0; i < count; ++i)
    known += (i == 0           ? ""
              : i + 1 == count ? " or "
                               : ", ") +
             inQuotes(kOpKinds[i].name);
  return "unknown op kind " + inQuotes(kind) + " (expected " + known + ")";
}

/// Checks that an op of `kind` has `expected` operands or results (`names`,
/// at `path`), or one more with `orOneMore`, each naming a value of
/// `function` when given (or "" where `allowEmpty`).
Status verifyOpValues(const Function *function,
                      const std::vector<std::string> &names, size_t expected,
                      bool orOneMore, bool orMore, const std::string &kind,
                      const std::string &path, bool allowEmpty) {
  bool counted = names.size() == expected ||
                 (orOneMore && names.size() == expected + 1) ||
                 (orMore && names.size() > expected);
  if (!counted)
    return fieldError(path,
                      "expected " + std::to_string(expected) +
                          (orOneMore ? " or " + std::to_string(expected + 1)
                           : orMore  ? " or more"
                                     : "") +
                          " for an op of kind " + inQuotes(kind) + ", got " +
                          std::to_string(names.size()));
  for (size_t i = 0; function && i < names.size(); ++i)
    if (!(allowEmpty && names[i].empty()))
      if (Status s = checkValue(*function, names[i], indexPath(path, i)); !s)
        return s;
  return Status::ok();
}

/// Checks the counts of an op's operands and results, and their names when
/// `function` is given.
Status verifyOpArity(const Function *function, const OpSpec &op,
                     const OpKind &kind, const std::string &path) {
  // An attention's captures follow its other operands (a negative count is
  // reported by verifyAttention), as a matmul's addend does.
  size_t captures =
      op.attention
          ? static_cast<size_t>(std::max<int64_t>(op.attention->numCaptures, 0))
          : 0;
  if (op.matmul && op.matmul->addend)
    captures = 1;
  size_t numOperands = kind.numOperands + captures;
  if (kind.optionalOperands &&
      op.operands.size() == numOperands + kind.optionalOperands)
    numOperands += kind.optionalOperands;
  else if (kind.optionalOperands && op.operands.size() != numOperands)
    return fieldError(fieldPath(path, "operands"),
                      "expected " + std::to_string(numOperands) + " or " +
                          std::to_string(numOperands + kind.optionalOperands) +
                          " for an op of kind " + inQuotes(op.kind) + ", got " +
                          std::to_string(op.operands.size()));
  if (Status s = all(
          [&] {
            return verifyOpValues(function, op.operands, numOperands,
                                  kind.takesAccumulator, kind.variadic, op.kind,
                                  fieldPath(path, "operands"), false);
          },
          [&] {
            return verifyOpValues(function, op.results, kind.numResults,
                                  kind.takesAccumulator, kind.variadic, op.kind,
                                  fieldPath(path, "results"), true);
          });
      !s)
    return s;
  bool accumulates = op.operands.size() > kind.numOperands + captures;
  if (kind.takesAccumulator &&
      accumulates != (op.results.size() > kind.numResults))
    return fieldError(path, "an op of kind " + inQuotes(op.kind) +
                                " takes an accumulator as operand and result "
                                "together, got " +
                                std::to_string(op.operands.size()) +
                                " operands and " +
                                std::to_string(op.results.size()) + " results");
  return Status::ok();
}

/// One body per result, each taking one argument per operand.
Status verifyElementwise(const ElementwiseSpec &spec, const OpSpec &op,
                         const std::string &path) {
  std::string bodies = fieldPath(path, "bodies");
  if (spec.bodies.size() != op.results.size())
    return fieldError(bodies, "expected one body per result (" +
                                  std::to_string(op.results.size()) +
                                  "), got " +
                                  std::to_string(spec.bodies.size()));
  for (size_t k = 0; k < spec.bodies.size(); ++k) {
    std::string body = indexPath(bodies, k);
    if (spec.bodies[k].numArgs != static_cast<int64_t>(op.operands.size()))
      return fieldError(fieldPath(body, "num_args"),
                        "expected one argument per operand (" +
                            std::to_string(op.operands.size()) + "), got " +
                            std::to_string(spec.bodies[k].numArgs));
    if (Status s = verifyElementwiseBody(spec.bodies[k]); !s)
      return s.withContext(body);
  }
  return Status::ok();
}

/// A loss spec's vocabulary fields: an offset >= 0 on the ops of a
/// vocabulary chunk only, a size >= 1 on the combine and nowhere else.
Status verifyLoss(const LossSpec &loss, const std::string &kind,
                  const std::string &path) {
  bool chunked =
      kind == "cross_entropy_partial" || kind == "cross_entropy_grad";
  if (loss.vocabOffset < 0 || (loss.vocabOffset != 0 && !chunked))
    return fieldError(fieldPath(path, "vocab_offset"),
                      "expected an offset >= 0 on a vocabulary chunk's op, "
                      "got " +
                          std::to_string(loss.vocabOffset));
  bool combine = kind == "cross_entropy_combine";
  if (combine != loss.vocabSize.has_value() ||
      (loss.vocabSize && *loss.vocabSize < 1))
    return fieldError(fieldPath(path, "vocab_size"),
                      combine ? "expected a class count >= 1"
                              : "only cross_entropy_combine takes one");
  return Status::ok();
}

/// verifyOpForm, and that the op's operands and results name values of
/// `function` when given.
Status verifyOp(const Function *function, const OpSpec &op,
                const std::string &path) {
  const OpKind *kind = findOpKind(op.kind);
  if (!kind)
    return fieldError(fieldPath(path, "kind"), unknownOpKind(op.kind));
  if (Status s = verifyOpArity(function, op, *kind, path); !s)
    return s;
  if (op.attention.has_value() != (kind->spec == SpecKind::Attention) ||
      op.cast.has_value() != (kind->spec == SpecKind::Cast) ||
      op.elementwise.has_value() != (kind->spec == SpecKind::Elementwise) ||
      op.matmul.has_value() != (kind->spec == SpecKind::Matmul) ||
      op.norm.has_value() != (kind->spec == SpecKind::Norm) ||
      op.loss.has_value() != (kind->spec == SpecKind::Loss))
    return fieldError(path, "an op of kind " + inQuotes(op.kind) +
                                (kind->spec == SpecKind::None
                                     ? " takes no spec"
                                     : " needs the spec of its kind and no "
                                       "other"));
  if (op.attention)
    return verifyAttention(*op.attention, path);
  if (op.loss)
    return verifyLoss(*op.loss, op.kind, path);
  if (op.elementwise)
    return verifyElementwise(*op.elementwise, op, path);
  if (op.matmul && !op.matmul->activation.empty() &&
      (op.matmul->activation != "gelu_tanh" || op.matmul->addend ||
       op.matmul->transposeA))
    return fieldError(fieldPath(path, "activation"),
                      "expected \"gelu_tanh\" on a linear layer without an "
                      "addend, got " +
                          inQuotes(op.matmul->activation));
  if (op.norm && !(op.norm->epsilon >= 0))
    return fieldError(fieldPath(path, "epsilon"),
                      "must be >= 0, got " + std::to_string(op.norm->epsilon));
  if (op.norm)
    return checkFinite(op.norm->epsilon, fieldPath(path, "epsilon"));
  return op.cast ? checkFinite(op.cast->scale, fieldPath(path, "scale"))
                 : Status::ok();
}

/// A signature's dtype and shape, "bf16 [B, 16, N, 128]".
std::string describe(const TensorSig &tensor) {
  std::string text = std::string(dtypeName(tensor.dtype)) + " [";
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    text += (i ? ", " : "") + (tensor.shape[i].isStatic()
                                   ? std::to_string(tensor.shape[i].extent)
                                   : tensor.shape[i].symbol);
  return text + "]";
}

/// Same dtype and shape; symbols match by spelling.
bool sameSignature(const TensorSig &a, const TensorSig &b) {
  return a.dtype == b.dtype && a.shape.size() == b.shape.size() &&
         std::equal(a.shape.begin(), a.shape.end(), b.shape.begin(),
                    [](const Dim &x, const Dim &y) {
                      return x.isStatic() == y.isStatic() &&
                             (x.isStatic() ? x.extent == y.extent
                                           : x.symbol == y.symbol);
                    });
}

/// Checks a gradient function's map of `count` values (`valueAt(k)`) to
/// distinct values of `primal`, each of the same signature; an empty map
/// stands for 0, 1, 2, ...
template <typename ValueAt>
Status verifyGradientMap(const std::vector<int64_t> &map,
                         const std::string &path, size_t count,
                         const std::vector<TensorSig> &primal,
                         ValueAt valueAt) {
  if (!map.empty() && map.size() != count)
    return fieldError(path, "expected " + std::to_string(count) +
                                " entries, got " + std::to_string(map.size()));
  std::set<int64_t> seen;
  for (size_t k = 0; k < count; ++k) {
    int64_t index = map.empty() ? static_cast<int64_t>(k) : map[k];
    std::string entry = indexPath(path, k);
    if (index < 0 || static_cast<size_t>(index) >= primal.size() ||
        !seen.insert(index).second)
      return fieldError(entry, "expected a distinct index below " +
                                   std::to_string(primal.size()) + ", got " +
                                   std::to_string(index));
    const TensorSig &value = valueAt(k);
    if (value.dtype != primal[index].dtype ||
        value.shape.size() != primal[index].shape.size())
      return fieldError(entry, inQuotes(value.name) + " (" + describe(value) +
                                   ") does not stand for " +
                                   inQuotes(primal[index].name) + " (" +
                                   describe(primal[index]) + ")");
  }
  return Status::ok();
}

/// Checks a gradient function against the function it differentiates
/// (Function::gradientOf): the counts, then the inputs it shares with it.
Status verifyGradientOf(const Function &function, const std::string &path,
                        const Package &package) {
  if (!function.gradientOf)
    return Status::ok();
  const std::string &name = *function.gradientOf;
  if (name == function.name)
    return fieldError(fieldPath(path, "gradient_of"),
                      "a function cannot be the gradient of itself");
  const Function *primal = package.findFunction(name);
  if (!primal)
    return fieldError(fieldPath(path, "gradient_of"), "no function named " +
                                                          inQuotes(name) +
                                                          " in the package");
  const size_t numIn = primal->inputs.size(), numOut = primal->outputs.size();
  const size_t numInputs = function.inputs.size();
  if (numInputs < numIn + numOut || numInputs - numIn - numOut > numOut)
    return fieldError(fieldPath(path, "inputs"),
                      "the gradient of " + inQuotes(name) + " takes its " +
                          std::to_string(numIn) + " inputs, its " +
                          std::to_string(numOut) + " outputs, then at most " +
                          std::to_string(numOut) + " cotangents; got " +
                          std::to_string(numInputs) + " inputs");
  for (size_t i = 0; i < numIn + numOut; ++i) {
    const bool isInput = i < numIn;
    const TensorSig &expected =
        isInput ? primal->inputs[i] : primal->outputs[i - numIn];
    if (!sameSignature(function.inputs[i], expected))
      return fieldError(indexPath(fieldPath(path, "inputs"), i),
                        "must match " +
                            std::string(isInput ? "input " : "output ") +
                            std::to_string(isInput ? i : i - numIn) + " of " +
                            inQuotes(name) + " (" + describe(expected) +
                            "), got " + describe(function.inputs[i]));
  }
  if (function.outputs.size() > numIn)
    return fieldError(fieldPath(path, "outputs"),
                      "the gradient of " + inQuotes(name) +
                          " has at most one output per input of it (" +
                          std::to_string(numIn) + "), got " +
                          std::to_string(function.outputs.size()));
  return all(
      [&] {
        return verifyGradientMap(function.cotangentOf,
                                 fieldPath(path, "cotangent_of"),
                                 numInputs - numIn - numOut, primal->outputs,
                                 [&](size_t k) -> const TensorSig & {
                                   return function.inputs[numIn + numOut + k];
                                 });
      },
      [&] {
        return verifyGradientMap(
            function.gradientOfInputs, fieldPath(path, "gradient_of_inputs"),
            function.outputs.size(), primal->inputs,
            [&](size_t k) -> const TensorSig & { return function.outputs[k]; });
      });
}

/// Saved outputs name distinct outputs.
Status verifySavedOutputs(const Function &function, const std::string &path) {
  std::set<int64_t> seen;
  for (size_t k = 0; k < function.savedOutputs.size(); ++k) {
    int64_t index = function.savedOutputs[k];
    if (index < 0 || static_cast<size_t>(index) >= function.outputs.size() ||
        !seen.insert(index).second)
      return fieldError(indexPath(fieldPath(path, "saved_outputs"), k),
                        "expected a distinct output index below " +
                            std::to_string(function.outputs.size()) + ", got " +
                            std::to_string(index));
  }
  return Status::ok();
}

/// Flat values name distinct rank-1 inputs and outputs, each of its chunk's
/// static extent, which that chunk's segments fill in order.
Status verifyFlatValues(const Function &function, const std::string &path) {
  if (function.flatValues.empty() != function.segments.empty())
    return fieldError(fieldPath(path, function.flatValues.empty()
                                          ? "flat_values"
                                          : "segments"),
                      "flat_values and segments come together");
  if (!function.flatChunks.empty() &&
      function.flatChunks.size() != function.flatValues.size())
    return fieldError(fieldPath(path, "flat_chunks"),
                      "expected one chunk per flat value (" +
                          std::to_string(function.flatValues.size()) +
                          "), got " +
                          std::to_string(function.flatChunks.size()));
  std::vector<int64_t> ends; // per chunk, where its last segment ends
  std::set<std::string> names;
  for (size_t k = 0; k < function.segments.size(); ++k) {
    const Segment &segment = function.segments[k];
    std::string at = indexPath(fieldPath(path, "segments"), k);
    std::optional<int64_t> count = elementCount(segment.shape);
    if (segment.name.empty() || !names.insert(segment.name).second)
      return fieldError(fieldPath(at, "name"),
                        "expected a distinct, non-empty name");
    int64_t chunks = static_cast<int64_t>(ends.size());
    if (segment.chunk != chunks && segment.chunk != chunks - 1)
      return fieldError(fieldPath(at, "chunk"),
                        "expected the chunk of the segment before or the "
                        "next one (" +
                            std::to_string(std::max<int64_t>(chunks - 1, 0)) +
                            " or " + std::to_string(chunks) + "), got " +
                            std::to_string(segment.chunk));
    if (segment.chunk == chunks)
      ends.push_back(0);
    int64_t &end = ends[segment.chunk];
    if (!count || *count < 1 || segment.offset != end ||
        __builtin_add_overflow(end, *count, &end))
      return fieldError(at, "expected a shape of positive extents starting "
                            "at element " +
                                std::to_string(end) +
                                ", where the segment before ends");
  }
  std::set<std::string> seen;
  for (size_t k = 0; k < function.flatValues.size(); ++k) {
    const std::string &name = function.flatValues[k];
    int64_t chunk = function.flatChunks.empty() ? 0 : function.flatChunks[k];
    if (chunk < 0 || chunk >= static_cast<int64_t>(ends.size()))
      return fieldError(indexPath(fieldPath(path, "flat_chunks"), k),
                        "expected a chunk below " +
                            std::to_string(ends.size()) + ", got " +
                            std::to_string(chunk));
    const TensorSig *tensor = findIn(function.inputs, name);
    if (!tensor)
      tensor = findIn(function.outputs, name);
    int64_t end = ends[chunk];
    if (!tensor || !seen.insert(name).second || tensor->shape.size() != 1 ||
        !tensor->shape[0].isStatic() || tensor->shape[0].extent != end)
      return fieldError(indexPath(fieldPath(path, "flat_values"), k),
                        "expected a distinct input or output of shape [" +
                            std::to_string(end) + "], got " + inQuotes(name));
  }
  return Status::ok();
}

Status verifyFunction(const Function &function, const std::string &path,
                      const Package &package) {
  Scope scope;
  std::map<std::string, std::set<std::string>> kernelNames;
  std::vector<std::string> targets = function.targets();
  StepOps stepOps(function);
  auto signature = [&](const TensorSig &tensor, const std::string &at) {
    return verifyTensor(tensor, at, scope, /*definesSymbols=*/true);
  };
  return all(
      [&] { return verifyEach(function.inputs, path, "inputs", signature); },
      [&] { return verifyEach(function.outputs, path, "outputs", signature); },
      [&] { return verifyGradientOf(function, path, package); },
      [&] { return verifySavedOutputs(function, path); },
      [&] { return verifyFlatValues(function, path); },
      [&] {
        return verifyEach(function.buffers, path, "buffers",
                          [&](const Buffer &buffer, const std::string &at) {
                            return verifyBuffer(buffer, at, scope);
                          });
      },
      [&] {
        return verifyEach(function.views, path, "views",
                          [&](const View &view, const std::string &at) {
                            return verifyView(function, view, at, scope);
                          });
      },
      [&] {
        return verifyEach(function.kernels, path, "kernels",
                          [&](const Kernel &kernel, const std::string &at) {
                            return verifyKernel(kernel, at, package,
                                                scope.symbols, kernelNames);
                          });
      },
      [&] {
        return verifyEach(function.steps, path, "steps",
                          [&](const Step &step, const std::string &at) {
                            return verifyStep(function, step, at, targets);
                          });
      },
      [&] { return verifyOutputsWritten(function, path); },
      [&] {
        return verifyEach(function.ops, path, "ops",
                          [&](const OpSpec &op, const std::string &at) {
                            return verifyOp(&function, op, at);
                          });
      },
      [&] { return verifyLibrarySteps(function, stepOps, path); },
      [&] { return verifyConcurrentSteps(function, stepOps, path); },
      [&] { return verifyUpdates(function, stepOps, path); },
      [&] { return verifyBufferSlots(function, path); });
}

//===----------------------------------------------------------------------===//
// JSON encoding
//===----------------------------------------------------------------------===//

/// Integral values within int64 are written as integers; the rest as JSON
/// numbers, or as "inf" / "-inf" / "nan".
Json encodeNumber(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  if (value == std::trunc(value) && std::fabs(value) < 0x1p63)
    return static_cast<int64_t>(value);
  return value;
}

Json encode(const TensorSig &tensor) {
  Json shape = Json::array();
  for (const Dim &dim : tensor.shape)
    shape.push_back(dim.isStatic() ? Json(dim.extent) : Json(dim.symbol));
  Json json = {{"name", tensor.name},
               {"dtype", std::string(dtypeName(tensor.dtype))},
               {"shape", shape}};
  if (tensor.indexBound)
    json["index_bound"] = *tensor.indexBound;
  return json;
}

Json encode(const GridTerm &term) {
  if (term.symbols.empty())
    return term.constant;
  Json json = {{"sym", term.symbols.size() == 1 ? Json(term.symbols[0])
                                                : Json(term.symbols)}};
  if (term.constant != 1)
    json["const"] = term.constant;
  if (term.divisor != 1)
    json["ceildiv"] = term.divisor;
  return json;
}

Json encode(const Buffer &buffer) {
  Json json = encode(buffer.tensor);
  json["slot"] = buffer.slot;
  return json;
}

Json encode(const View &view) {
  Json json = encode(view.tensor);
  json["of"] = view.of;
  json["begin"] = view.begin;
  if (view.heads)
    json["heads"] = view.heads;
  return json;
}

Json encode(const Segment &segment) {
  Json json = {{"name", segment.name},
               {"shape", segment.shape},
               {"offset", segment.offset}};
  if (segment.chunk)
    json["chunk"] = segment.chunk;
  return json;
}

Json encode(const Step &step) {
  Json json = {{"kernel", step.kernel}, {"args", step.args}};
  if (step.concurrent)
    json["concurrent"] = true;
  return json;
}

Json encode(const TensorMap &map) {
  return {
      {"arg", map.arg}, {"box", map.box}, {"swizzle_bytes", map.swizzleBytes}};
}

Json encode(const Kernel &kernel);
Json encode(const OpSpec &op);
Json encode(const Function &function);

template <typename T> Json encodeAll(const std::vector<T> &items) {
  Json json = Json::array();
  for (const T &item : items)
    json.push_back(encode(item));
  return json;
}

Json encode(const Kernel &kernel) {
  Json grid = Json::array();
  for (const std::vector<GridTerm> &dim : kernel.grid) {
    Json terms = Json::array();
    for (const GridTerm &term : dim)
      terms.push_back(encode(term));
    grid.push_back(terms);
  }
  Json json = {{"name", kernel.name},
               {"target", kernel.target},
               {"blob", kernel.blob},
               {"entry", kernel.entry},
               {"grid", grid},
               {"block", {kernel.block[0], kernel.block[1], kernel.block[2]}},
               {"dynamic_shared_memory_bytes", kernel.dynamicSharedMemoryBytes},
               {"config", kernel.config},
               {"resources", kernel.resources}};
  if (!kernel.tensorMaps.empty())
    json["tensor_maps"] = encodeAll(kernel.tensorMaps);
  if (kernel.library)
    json["library"] = *kernel.library;
  return json;
}

Json encode(const Region &region) {
  Json ops = Json::array();
  for (const RegionOp &op : region.ops) {
    Json json = {
        {"name", op.name}, {"operands", op.operands}, {"type", op.type}};
    if (!op.predicate.empty())
      json["predicate"] = op.predicate;
    bool constant = op.name == "arith.constant", integer = !!integerWidth(op);
    if (integer && (op.intValue != 0 || constant))
      json["value"] = op.intValue;
    else if (!integer && (op.value != 0 || constant))
      json["value"] = encodeNumber(op.value);
    ops.push_back(json);
  }
  Json json = {
      {"num_args", region.numArgs}, {"ops", ops}, {"yield", region.yield}};
  if (region.numCaptures != 0)
    json["num_captures"] = region.numCaptures;
  return json;
}

/// Adds the fields of `spec` to the op object `json`.
void encodeInto(const AttentionSpec &spec, Json &json) {
  json["scale"] = encodeNumber(spec.scale);
  json["causal"] = spec.causal;
  if (spec.bottomRight)
    json["bottom_right"] = true;
  if (spec.windowLeft)
    json["window_left"] = *spec.windowLeft;
  if (spec.windowRight)
    json["window_right"] = *spec.windowRight;
  if (spec.mask)
    json["mask"] = encode(*spec.mask);
  if (spec.score)
    json["score"] = encode(*spec.score);
  if (spec.numCaptures != 0)
    json["captures"] = spec.numCaptures;
}

Json encode(const OpSpec &op) {
  Json json = {
      {"kind", op.kind}, {"operands", op.operands}, {"results", op.results}};
  if (op.attention)
    encodeInto(*op.attention, json);
  if (op.cast)
    json["scale"] = encodeNumber(op.cast->scale);
  if (op.elementwise) {
    Json bodies = Json::array();
    for (const Region &body : op.elementwise->bodies)
      bodies.push_back(encode(body));
    json["bodies"] = bodies;
  }
  if (op.matmul) {
    json["transpose_a"] = op.matmul->transposeA;
    json["transpose_b"] = op.matmul->transposeB;
    if (op.matmul->addend)
      json["addend"] = true;
    if (!op.matmul->activation.empty())
      json["activation"] = op.matmul->activation;
  }
  if (op.norm)
    json["epsilon"] = encodeNumber(op.norm->epsilon);
  if (op.loss) {
    json["ignore_index"] = op.loss->ignoreIndex;
    if (op.loss->vocabOffset != 0)
      json["vocab_offset"] = op.loss->vocabOffset;
    if (op.loss->vocabSize)
      json["vocab_size"] = *op.loss->vocabSize;
  }
  return json;
}

Json encode(const Function &function) {
  Json json = {{"name", function.name}};
  if (function.gradientOf)
    json["gradient_of"] = *function.gradientOf;
  if (!function.cotangentOf.empty())
    json["cotangent_of"] = function.cotangentOf;
  if (!function.gradientOfInputs.empty())
    json["gradient_of_inputs"] = function.gradientOfInputs;
  if (!function.savedOutputs.empty())
    json["saved_outputs"] = function.savedOutputs;
  if (!function.flatValues.empty())
    json["flat_values"] = function.flatValues;
  if (!function.flatChunks.empty())
    json["flat_chunks"] = function.flatChunks;
  if (!function.segments.empty())
    json["segments"] = encodeAll(function.segments);
  if (!function.updates.empty())
    json["updates"] = function.updates;
  json["inputs"] = encodeAll(function.inputs);
  json["outputs"] = encodeAll(function.outputs);
  json["buffers"] = encodeAll(function.buffers);
  if (!function.views.empty())
    json["views"] = encodeAll(function.views);
  json["steps"] = encodeAll(function.steps);
  json["kernels"] = encodeAll(function.kernels);
  json["ops"] = encodeAll(function.ops);
  return json;
}

/// The manifest of `package` with its blobs laid out back to back, in order,
/// from the start of the blob section.
Json encodeManifest(const Package &package) {
  Json blobs = Json::array();
  uint64_t offset = 0;
  for (const Blob &blob : package.blobs) {
    blobs.push_back(
        {{"name", blob.name},
         {"kind", blob.kind},
         {"offset", offset},
         {"size", blob.data.size()},
         {"fnv1a64", hex64(fnv1a64(blob.data.data(), blob.data.size()))}});
    offset += blob.data.size();
  }
  return {{"schema_version", package.schemaVersion},
          {"producer", package.producer},
          {"functions", encodeAll(package.functions)},
          {"blobs", blobs}};
}

std::string dumpManifest(const Package &package,
                         Json::error_handler_t onBadUtf8) {
  return encodeManifest(package).dump(2, ' ', false, onBadUtf8);
}

//===----------------------------------------------------------------------===//
// JSON decoding
//===----------------------------------------------------------------------===//

/// A blob as the manifest describes it, before its bytes are looked up.
struct BlobEntry {
  std::string name;
  std::string kind;
  int64_t offset = 0;
  int64_t size = 0;
  std::string checksum;
};

// Every decoder checks the JSON type of `json` and names `path` in its
// errors. They are declared up front so the container templates below can
// use them.
Status decode(const Json &json, const std::string &path, int64_t &out);
Status decode(const Json &json, const std::string &path, bool &out);
Status decode(const Json &json, const std::string &path, double &out);
Status decode(const Json &json, const std::string &path, std::string &out);
Status decode(const Json &json, const std::string &path, DType &out);
Status decode(const Json &json, const std::string &path, Dim &out);
Status decode(const Json &json, const std::string &path, TensorSig &out);
Status decode(const Json &json, const std::string &path, GridTerm &out);
Status decode(const Json &json, const std::string &path, TensorMap &out);
Status decode(const Json &json, const std::string &path, Kernel &out);
Status decode(const Json &json, const std::string &path, RegionOp &out);
Status decode(const Json &json, const std::string &path, Region &out);
Status decode(const Json &json, const std::string &path, Buffer &out);
Status decode(const Json &json, const std::string &path, View &out);
Status decode(const Json &json, const std::string &path, Segment &out);
Status decode(const Json &json, const std::string &path, Step &out);
Status decode(const Json &json, const std::string &path, OpSpec &out);
Status decode(const Json &json, const std::string &path, Function &out);
Status decode(const Json &json, const std::string &path, BlobEntry &out);

Status typeError(const Json &json, const std::string &path,
                 const char *expected) {
  return fieldError(path, std::string("expected ") + expected + ", got " +
                              json.type_name());
}

template <typename T>
Status decode(const Json &json, const std::string &path, std::vector<T> &out) {
  if (!json.is_array())
    return typeError(json, path, "an array");
  out.resize(json.size());
  for (size_t i = 0; i < json.size(); ++i)
    if (Status s = decode(json[i], indexPath(path, i), out[i]); !s)
      return s;
  return Status::ok();
}

template <typename T>
Status decode(const Json &json, const std::string &path,
              std::map<std::string, T> &out) {
  if (!json.is_object())
    return typeError(json, path, "an object");
  for (const auto &[key, value] : json.items())
    if (Status s = decode(value, fieldPath(path, key), out[key]); !s)
      return s;
  return Status::ok();
}

template <typename T>
Status decode(const Json &json, const std::string &path,
              std::optional<T> &out) {
  return decode(json, path, out.emplace());
}

/// Hands out the fields of one JSON object and rejects the ones nobody asked
/// for.
class ObjectReader {
public:
  ObjectReader(const Json &object, std::string path)
      : object(object), path(std::move(path)) {}

  template <typename T> Status required(const char *key, T &out) {
    const Json *value = take(key);
    if (!value)
      return fieldError(fieldPath(path, key), "missing required field");
    return decode(*value, fieldPath(path, key), out);
  }

  /// Leaves `out` as it is when the field is absent.
  template <typename T> Status optional(const char *key, T &out) {
    const Json *value = take(key);
    return value ? decode(*value, fieldPath(path, key), out) : Status::ok();
  }

  /// Fails on the first field no accessor consumed.
  Status finish() const {
    for (const auto &[key, value] : object.items())
      if (!consumed.count(key))
        return fieldError(fieldPath(path, key), "unknown field");
    return Status::ok();
  }

private:
  const Json *take(const char *key) {
    auto it = object.find(key);
    if (it == object.end())
      return nullptr;
    consumed.insert(key);
    return &*it;
  }

  const Json &object;
  std::string path;
  std::set<std::string> consumed;
};

/// Decodes an object field by field: `fields(reader)` reads them, then
/// unknown fields are rejected.
template <typename Fn>
Status decodeObject(const Json &json, const std::string &path, Fn &&fields) {
  if (!json.is_object())
    return typeError(json, path, "an object");
  ObjectReader reader(json, path);
  if (Status s = fields(reader); !s)
    return s;
  return reader.finish();
}

Status decode(const Json &json, const std::string &path, int64_t &out) {
  if (!json.is_number_integer())
    return typeError(json, path, "an integer");
  if (json.is_number_unsigned() &&
      json.get<uint64_t>() >
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return fieldError(path, "integer out of range");
  out = json.get<int64_t>();
  return Status::ok();
}

Status decode(const Json &json, const std::string &path, bool &out) {
  if (!json.is_boolean())
    return typeError(json, path, "a boolean");
  out = json.get<bool>();
  return Status::ok();
}

Status decode(const Json &json, const std::string &path, double &out) {
  if (json.is_number()) {
    out = json.get<double>();
    return Status::ok();
  }
  if (json.is_string()) {
    const std::string &text = json.get_ref<const std::string &>();
    if (text == "inf" || text == "-inf" || text == "nan") {
      out = text == "nan" ? std::numeric_limits<double>::quiet_NaN()
                          : (text == "inf" ? 1.0 : -1.0) *
                                std::numeric_limits<double>::infinity();
      return Status::ok();
    }
  }
  return typeError(json, path, "a number (or \"inf\", \"-inf\", \"nan\")");
}

Status decode(const Json &json, const std::string &path, std::string &out) {
  if (!json.is_string())
    return typeError(json, path, "a string");
  out = json.get<std::string>();
  return Status::ok();
}

Status decode(const Json &json, const std::string &path, DType &out) {
  std::string name;
  if (Status s = decode(json, path, name); !s)
    return s;
  std::optional<DType> type = parseDType(name);
  if (!type)
    return fieldError(path, "unknown dtype " + inQuotes(name));
  out = *type;
  return Status::ok();
}

Status decode(const Json &json, const std::string &path, Dim &out) {
  if (json.is_number_integer()) {
    out = Dim::fixed(0);
    return decode(json, path, out.extent);
  }
  if (!json.is_string())
    return typeError(json, path, "an integer or a symbol name");
  out = Dim::named(json.get<std::string>());
  return out.symbol.empty() ? fieldError(path, "symbol name must not be empty")
                            : Status::ok();
}

/// The fields of a signature, which a buffer's object shares.
Status decodeFields(ObjectReader &r, TensorSig &out) {
  return all([&] { return r.required("name", out.name); },
             [&] { return r.required("dtype", out.dtype); },
             [&] { return r.required("shape", out.shape); },
             [&] { return r.optional("index_bound", out.indexBound); });
}

Status decode(const Json &json, const std::string &path, TensorSig &out) {
  return decodeObject(json, path,
                      [&](ObjectReader &r) { return decodeFields(r, out); });
}

Status decode(const Json &json, const std::string &path, Buffer &out) {
  return decodeObject(json, path, [&](ObjectReader &r) {
    return all([&] { return decodeFields(r, out.tensor); },
               [&] { return r.required("slot", out.slot); });
  });
}

Status decode(const Json &json, const std::string &path, View &out) {
  return decodeObject(json, path, [&](ObjectReader &r) {
    return all([&] { return decodeFields(r, out.tensor); },
               [&] { return r.required("of", out.of); },
               [&] { return r.required("begin", out.begin); },
               [&] { return r.optional("heads", out.heads); });
  });
}

Status decode(const Json &json, const std::string &path, Segment &out) {
  return decodeObject(json, path, [&](ObjectReader &r) {
    return all([&] { return r.required("name", out.name); },
               [&] { return r.required("shape", out.shape); },
               [&] { return r.required("offset", out.offset); },
               [&] { return r.optional("chunk", out.chunk); });
  });
}

Status decode(const Json &json, const std::string &path, Step &out) {
  return decodeObject(json, path, [&](ObjectReader &r) {
    return all([&] { return r.required("kernel", out.kernel); },
               [&] { return r.required("args", out.args); },
               [&] { return r.optional("concurrent", out.concurrent); });
  });
}

Status decode(const Json &json, const std::string &path, GridTerm &out) {
  out = GridTerm();
  if (json.is_number_integer())
    return decode(json, path, out.constant);
  if (!json.is_object())
    return typeError(json, path,
                     "an integer or {\"sym\": ..., \"ceildiv\": ...}");
  return decodeObject(json, path, [&](ObjectReader &r) {
    return all(
        [&] {
          // One symbol as a string, several as an array of them.
          std::string one;
          if (json.contains("sym") && json.at("sym").is_string()) {
            Status s = r.required("sym", one);
            out.symbols = {one};
            return s;
          }
          Status s = r.required("sym", out.symbols);
          if (s && out.symbols.empty())
            return fieldError(fieldPath(path, "sym"),
                              "expected at least one symbol");
          return s;
        },
        [&] { return r.optional("const", out.constant); },
        [&] { return r.optional("ceildiv", out.divisor); });
  });
}

Status decode(const Json &json, const std::string &path, TensorMap &out) {
  return decodeObject(json, path, [&](ObjectReader &r) {
    return all([&] { return r.required("arg", out.arg); },
               [&] { return r.required("box", out.box); },
               [&] { return r.required("swizzle_bytes", out.swizzleBytes); });
  });
}

Status decode(const Json &json, const std::string &path, Kernel &out) {
  std::vector<int64_t> block;
  return decodeObject(json, path, [&](ObjectReader &r) {
    return all([&] { return r.required("name", out.name); },
               [&] { return r.required("target", out.target); },
               [&] { return r.required("blob", out.blob); },
               [&] { return r.required("entry", out.entry); },
               [&] { return r.required("grid", out.grid); },
               [&] { return r.required("block", block); },
               [&] {
                 if (block.size() != 3)
                   return fieldError(fieldPath(path, "block"),
                                     "expected 3 extents, got " +
                                         std::to_string(block.size()));
                 std::copy(block.begin(), block.end(), out.block);
                 return Status::ok();
               },
               [&] {
                 return r.required("dynamic_shared_memory_bytes",
                                   out.dynamicSharedMemoryBytes);
               },
               [&] { return r.required("config", out.config); },
               [&] { return r.required("resources", out.resources); },
               [&] { return r.optional("tensor_maps", out.tensorMaps); },
               [&] { return r.optional("library", out.library); });
  });
}

Status decode(const Json &json, const std::string &path, RegionOp &out) {
  return decodeObject(json, path, [&](ObjectReader &r) {
    return all([&] { return r.required("name", out.name); },
               [&] { return r.required("operands", out.operands); },
               [&] { return r.required("type", out.type); },
               [&] { return r.optional("predicate", out.predicate); },
               [&] {
                 return integerWidth(out) ? r.optional("value", out.intValue)
                                          : r.optional("value", out.value);
               });
  });
}

Status decode(const Json &json, const std::string &path, Region &out) {
  return decodeObject(json, path, [&](ObjectReader &r) {
    return all([&] { return r.required("num_args", out.numArgs); },
               [&] { return r.optional("num_captures", out.numCaptures); },
               [&] { return r.required("ops", out.ops); },
               [&] { return r.required("yield", out.yield); });
  });
}

/// The fields of an attention op's spec, which sit in the op's object.
Status decodeFields(ObjectReader &r, AttentionSpec &out) {
  return all([&] { return r.required("scale", out.scale); },
             [&] { return r.required("causal", out.causal); },
             [&] { return r.optional("bottom_right", out.bottomRight); },
             [&] { return r.optional("window_left", out.windowLeft); },
             [&] { return r.optional("window_right", out.windowRight); },
             [&] { return r.optional("mask", out.mask); },
             [&] { return r.optional("score", out.score); },
             [&] { return r.optional("captures", out.numCaptures); });
}

/// Reads the spec fields of the op's kind; unknown kinds have none to read.
Status decodeSpec(ObjectReader &r, const std::string &path, OpSpec &out) {
  const OpKind *kind = findOpKind(out.kind);
  if (!kind)
    return fieldError(fieldPath(path, "kind"), unknownOpKind(out.kind));
  switch (kind->spec) {
  case SpecKind::Attention:
    return decodeFields(r, out.attention.emplace());
  case SpecKind::Cast:
    return r.required("scale", out.cast.emplace().scale);
  case SpecKind::Elementwise:
    return r.required("bodies", out.elementwise.emplace().bodies);
  case SpecKind::Norm:
    return r.required("epsilon", out.norm.emplace().epsilon);
  case SpecKind::Loss: {
    LossSpec &spec = out.loss.emplace();
    return all([&] { return r.required("ignore_index", spec.ignoreIndex); },
               [&] { return r.optional("vocab_offset", spec.vocabOffset); },
               [&] { return r.optional("vocab_size", spec.vocabSize); });
  }
  case SpecKind::Matmul: {
    MatmulSpec &spec = out.matmul.emplace();
    return all([&] { return r.required("transpose_a", spec.transposeA); },
               [&] { return r.required("transpose_b", spec.transposeB); },
               [&] { return r.optional("addend", spec.addend); },
               [&] { return r.optional("activation", spec.activation); });
  }
  case SpecKind::None:
    break;
  }
  return Status::ok();
}

Status decode(const Json &json, const std::string &path, OpSpec &out) {
  return decodeObject(json, path, [&](ObjectReader &r) {
    return all([&] { return r.required("kind", out.kind); },
               [&] { return r.required("operands", out.operands); },
               [&] { return r.required("results", out.results); },
               [&] { return decodeSpec(r, path, out); });
  });
}

Status decode(const Json &json, const std::string &path, Function &out) {
  return decodeObject(json, path, [&](ObjectReader &r) {
    return all(
        [&] { return r.required("name", out.name); },
        [&] { return r.optional("gradient_of", out.gradientOf); },
        [&] { return r.optional("cotangent_of", out.cotangentOf); },
        [&] { return r.optional("gradient_of_inputs", out.gradientOfInputs); },
        [&] { return r.optional("saved_outputs", out.savedOutputs); },
        [&] { return r.optional("flat_values", out.flatValues); },
        [&] { return r.optional("flat_chunks", out.flatChunks); },
        [&] { return r.optional("segments", out.segments); },
        [&] { return r.optional("updates", out.updates); },
        [&] { return r.required("inputs", out.inputs); },
        [&] { return r.required("outputs", out.outputs); },
        [&] { return r.required("buffers", out.buffers); },
        [&] { return r.optional("views", out.views); },
        [&] { return r.required("steps", out.steps); },
        [&] { return r.required("kernels", out.kernels); },
        [&] { return r.required("ops", out.ops); });
  });
}

Status decode(const Json &json, const std::string &path, BlobEntry &out) {
  return decodeObject(json, path, [&](ObjectReader &r) {
    return all([&] { return r.required("name", out.name); },
               [&] { return r.required("kind", out.kind); },
               [&] { return r.required("offset", out.offset); },
               [&] { return r.required("size", out.size); },
               [&] { return r.required("fnv1a64", out.checksum); });
  });
}

const char *const kInvalidManifest = "invalid manifest";

Status manifestError(const std::string &path, const std::string &message) {
  return fieldError(path, message).withContext(kInvalidManifest);
}

/// Copies each blob's bytes out of the blob section after checking its range
/// and checksum. Range errors are manifest errors; a checksum mismatch means
/// the data is corrupted.
Status resolveBlobs(const std::vector<BlobEntry> &entries,
                    const uint8_t *section, uint64_t sectionSize,
                    std::vector<Blob> &blobs) {
  for (size_t i = 0; i < entries.size(); ++i) {
    const BlobEntry &entry = entries[i];
    std::string path = indexPath("blobs", i);
    std::optional<uint64_t> expected = parseHex64(entry.checksum);
    if (!expected)
      return manifestError(fieldPath(path, "fnv1a64"),
                           "expected 16 hex digits, got " +
                               inQuotes(entry.checksum));
    if (entry.offset < 0 || entry.size < 0)
      return manifestError(path, "offset and size must be >= 0");
    uint64_t offset = static_cast<uint64_t>(entry.offset),
             size = static_cast<uint64_t>(entry.size);
    if (offset > sectionSize || size > sectionSize - offset)
      return manifestError(path, "offset " + std::to_string(offset) +
                                     " + size " + std::to_string(size) +
                                     " lies outside the blob section (" +
                                     std::to_string(sectionSize) + " bytes)");
    uint64_t actual = fnv1a64(section + offset, size);
    if (actual != *expected)
      return Status::error("corrupted: blob " + inQuotes(entry.name) +
                           " checksum mismatch (manifest says " +
                           entry.checksum + ", data hashes to " +
                           hex64(actual) + ")");
    blobs.push_back(
        Blob{entry.name, entry.kind,
             std::vector<uint8_t>(section + offset, section + offset + size)});
  }
  return Status::ok();
}

/// Decodes the manifest text; the schema version is checked before anything
/// else, since another version may lay out every other field differently.
StatusOr<Package> decodeManifest(const uint8_t *text, size_t size,
                                 const uint8_t *section, uint64_t sectionSize) {
  Json json;
  try {
    json = Json::parse(text, text + size);
  } catch (const Json::parse_error &e) {
    return Status::error(std::string("manifest is not valid JSON: ") +
                         e.what());
  }
  if (!json.is_object())
    return Status::error(
        std::string("invalid manifest: expected a JSON object, got ") +
        json.type_name());
  Package package;
  std::vector<BlobEntry> blobs;
  Status status = decodeObject(json, "", [&](ObjectReader &r) {
    return all(
        [&] { return r.required("schema_version", package.schemaVersion); },
        [&] {
          if (package.schemaVersion == kSchemaVersion)
            return Status::ok();
          return fieldError("schema_version",
                            "manifest schema version " +
                                std::to_string(package.schemaVersion) +
                                " is not supported (this build reads version " +
                                std::to_string(kSchemaVersion) +
                                "); recompile the package with this attnc");
        },
        [&] { return r.required("producer", package.producer); },
        [&] { return r.required("functions", package.functions); },
        [&] { return r.required("blobs", blobs); });
  });
  status = status.withContext(kInvalidManifest);
  if (status)
    status = resolveBlobs(blobs, section, sectionSize, package.blobs);
  if (status)
    status = verify(package).withContext(kInvalidManifest);
  if (!status)
    return status;
  return package;
}

StatusOr<Package> parseBytes(const uint8_t *data, size_t size) {
  if (size > 0 &&
      std::memcmp(data, kMagic, std::min(size, sizeof(kMagic))) != 0)
    return Status::error("not an attnc package (bad magic)");
  if (size < kHeaderSize)
    return Status::error("truncated: header needs " +
                         std::to_string(kHeaderSize) + " bytes, file has " +
                         std::to_string(size));
  uint32_t version = static_cast<uint32_t>(getLE(data + 8, 4));
  if (version != kContainerVersion)
    return Status::error("unsupported container version " +
                         std::to_string(version) +
                         " (this build reads version " +
                         std::to_string(kContainerVersion) + ")");
  uint32_t headerSize = static_cast<uint32_t>(getLE(data + 12, 4));
  if (headerSize != kHeaderSize)
    return Status::error("unsupported header size " +
                         std::to_string(headerSize) + " (expected " +
                         std::to_string(kHeaderSize) + ")");
  uint64_t manifestSize = getLE(data + 16, 8),
           sectionSize = getLE(data + 24, 8);
  uint64_t available = size - kHeaderSize;
  if (manifestSize > available)
    return Status::error("truncated: manifest needs " +
                         std::to_string(manifestSize) + " bytes, file has " +
                         std::to_string(available) + " after the header");
  available -= manifestSize;
  if (sectionSize > available)
    return Status::error("truncated: blob section needs " +
                         std::to_string(sectionSize) + " bytes, file has " +
                         std::to_string(available) + " after the manifest");
  if (sectionSize < available)
    return Status::error(
        "corrupted: " + std::to_string(available - sectionSize) +
        " unexpected bytes after the blob section");
  const uint8_t *manifest = data + kHeaderSize;
  uint64_t expected = getLE(data + 32, 8);
  uint64_t actual = fnv1a64(manifest, manifestSize + sectionSize);
  if (actual != expected)
    return Status::error("corrupted: manifest checksum mismatch (header says " +
                         hex64(expected) + ", manifest and blobs hash to " +
                         hex64(actual) + ")");
  return decodeManifest(manifest, manifestSize, manifest + manifestSize,
                        sectionSize);
}

/// Writes the spans one after another to `fd`; false with errno set on
/// failure.
bool writeSpans(int fd, const std::vector<ByteSpan> &spans) {
  for (const ByteSpan &span : spans)
    if (!writeAll(fd, span.data, span.size))
      return false;
  return true;
}

/// Writes through to an existing destination that is not a plain file (a
/// FIFO, a device, a dangling symlink): replacing it by rename would
/// destroy it.
Status writeInPlace(const std::vector<ByteSpan> &spans,
                    const std::string &path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0)
    return Status::error("cannot open for writing: " + errnoMessage(errno));
  bool written = writeSpans(fd, spans);
  int error = errno;
  if (::close(fd) != 0 && written) {
    written = false;
    error = errno;
  }
  if (!written)
    return Status::error("cannot write: " + errnoMessage(error));
  return Status::ok();
}

/// Flushes the entries of the directory holding `path`, so that a rename
/// into it survives a power cut.
Status syncParentDirectory(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return syncDirectory(slash == std::string::npos ? "."
                       : slash == 0               ? "/"
                                                  : path.substr(0, slash));
}

} // namespace

Status writeFileAtomically(const std::vector<uint8_t> &bytes,
                           const std::string &path) {
  return writeFileAtomically({{bytes.data(), bytes.size()}}, path);
}

Status writeFileAtomically(const std::vector<ByteSpan> &spans,
                           const std::string &path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) {
    // Replace the file the link leads to; the link stays.
    if (char *resolved = ::realpath(path.c_str(), nullptr)) {
      std::string target = resolved;
      ::free(resolved);
      return writeFileAtomically(spans, target);
    }
    return writeInPlace(spans, path);
  }
  if (::lstat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
    return writeInPlace(spans, path);
  static std::atomic<uint64_t> counter{0};
  std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." +
                     std::to_string(counter.fetch_add(1));
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    return Status::error("cannot create a file next to it: " +
                         errnoMessage(errno));
  auto fail = [&](const std::string &what) {
    int error = errno;
    if (fd >= 0)
      ::close(fd);
    ::unlink(temp.c_str());
    return Status::error(what + ": " + errnoMessage(error));
  };
  if (!writeSpans(fd, spans))
    return fail("cannot write " + temp);
  if (::fsync(fd) != 0)
    return fail("cannot flush " + temp);
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0)
    return fail("cannot close " + temp);
  if (::rename(temp.c_str(), path.c_str()) != 0)
    return fail("cannot rename " + temp + " to " + path);
  return syncParentDirectory(path);
}

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

const Kernel *Function::findKernel(std::string_view name,
                                   std::string_view target) const {
  for (const Kernel &kernel : kernels)
    if (kernel.name == name && kernel.target == target)
      return &kernel;
  return nullptr;
}

bool Function::runsOn(std::string_view target) const {
  for (const Step &step : steps)
    if (!findKernel(step.kernel, target))
      return false;
  return true;
}

std::vector<std::string> Function::targets() const {
  std::set<std::string> unique;
  for (const Kernel &kernel : kernels)
    unique.insert(kernel.target);
  return std::vector<std::string>(unique.begin(), unique.end());
}

const TensorSig *Function::findValue(std::string_view name) const {
  for (const std::vector<TensorSig> *list : {&inputs, &outputs})
    for (const TensorSig &tensor : *list)
      if (tensor.name == name)
        return &tensor;
  for (const Buffer &buffer : buffers)
    if (buffer.tensor.name == name)
      return &buffer.tensor;
  const View *view = findView(name);
  return view ? &view->tensor : nullptr;
}

std::string flatStateName(const std::string &kind, int64_t chunk) {
  return chunk == 0 ? kind : kind + "_" + std::to_string(chunk);
}

int64_t View::rowsOf(size_t ofRank) const {
  if (heads)
    return std::numeric_limits<int64_t>::max();
  if (ofRank != 1)
    return tensor.shape.empty() ? 0 : tensor.shape[0].extent;
  int64_t count = 1;
  for (const Dim &dim : tensor.shape)
    if (dim.extent < 0 || __builtin_mul_overflow(count, dim.extent, &count))
      return std::numeric_limits<int64_t>::max();
  return count;
}

const View *Function::findView(std::string_view name) const {
  for (const View &view : views)
    if (view.tensor.name == name)
      return &view;
  return nullptr;
}

std::string_view Function::storageOf(std::string_view name) const {
  const View *view = findView(name);
  return view ? std::string_view(view->of) : name;
}

const Function *Package::findFunction(std::string_view name) const {
  for (const Function &function : functions)
    if (function.name == name)
      return &function;
  return nullptr;
}

const Blob *Package::findBlob(std::string_view name) const {
  for (const Blob &blob : blobs)
    if (blob.name == name)
      return &blob;
  return nullptr;
}

uint64_t fnv1a64(const uint8_t *data, size_t size, uint64_t seed) {
  uint64_t hash = seed;
  for (size_t i = 0; i < size; ++i) {
    hash ^= data[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

Status verifyOpForm(const OpSpec &op) { return verifyOp(nullptr, op, ""); }

/// Checks that every operand names an argument or an earlier op and that
/// `yield` names a value.
static Status verifyRegionValues(const Region &region);

Status verifyRegion(const Region &region) {
  if (region.numCaptures < 0 || region.numCaptures > region.numArgs)
    return fieldError("num_captures", "must be in [0, num_args], got " +
                                          std::to_string(region.numCaptures));
  int64_t ownArgs = region.numArgs - region.numCaptures;
  if (ownArgs != 4 && ownArgs != 5)
    return fieldError("num_args",
                      std::string("must be 4 (mask) or 5 (score)") +
                          (region.numCaptures ? " besides the captures" : "") +
                          ", got " + std::to_string(ownArgs));
  return verifyRegionValues(region);
}

Status verifyElementwiseBody(const Region &region) {
  if (region.numCaptures != 0)
    return fieldError("num_captures", "an elementwise body has no captures, "
                                      "got " +
                                          std::to_string(region.numCaptures));
  if (region.numArgs < 1)
    return fieldError("num_args", "must be at least 1, got " +
                                      std::to_string(region.numArgs));
  return verifyRegionValues(region);
}

static Status verifyRegionValues(const Region &region) {
  const int64_t numValues =
      region.numArgs + static_cast<int64_t>(region.ops.size());
  auto checkInRange = [&](int64_t value, const std::string &path) {
    if (value < 0 || value >= numValues)
      return fieldError(path, "value " + std::to_string(value) +
                                  " out of range [0, " +
                                  std::to_string(numValues) + ")");
    return Status::ok();
  };
  for (size_t i = 0; i < region.ops.size(); ++i) {
    const RegionOp &op = region.ops[i];
    std::string path = indexPath("ops", i);
    if (Status s =
            all([&] { return checkNonEmpty(op.name, fieldPath(path, "name")); },
                [&] { return checkNonEmpty(op.type, fieldPath(path, "type")); },
                [&] { return checkConstantField(op, path); });
        !s)
      return s;
    const int64_t defined = region.numArgs + static_cast<int64_t>(i);
    for (size_t j = 0; j < op.operands.size(); ++j) {
      std::string operandPath = indexPath(fieldPath(path, "operands"), j);
      if (Status s = checkInRange(op.operands[j], operandPath); !s)
        return s;
      if (op.operands[j] >= defined)
        return fieldError(operandPath,
                          "value " + std::to_string(op.operands[j]) +
                              " is not defined before use (op " +
                              std::to_string(i) + " defines value " +
                              std::to_string(defined) + ")");
    }
  }
  return checkInRange(region.yield, "yield");
}

Status verify(const Package &package) {
  if (package.schemaVersion != kSchemaVersion)
    return fieldError("schema_version",
                      "version " + std::to_string(package.schemaVersion) +
                          " is not supported (this build writes version " +
                          std::to_string(kSchemaVersion) + ")");
  std::set<std::string> blobNames;
  for (size_t i = 0; i < package.blobs.size(); ++i) {
    std::string path = indexPath("blobs", i);
    if (Status s = all(
            [&] {
              return checkUniqueName(package.blobs[i].name,
                                     fieldPath(path, "name"), "blob",
                                     blobNames);
            },
            [&] {
              return checkNonEmpty(package.blobs[i].kind,
                                   fieldPath(path, "kind"));
            });
        !s)
      return s;
  }
  std::set<std::string> functionNames;
  for (size_t i = 0; i < package.functions.size(); ++i) {
    std::string path = indexPath("functions", i);
    if (Status s = all(
            [&] {
              return checkUniqueName(package.functions[i].name,
                                     fieldPath(path, "name"), "function",
                                     functionNames);
            },
            [&] {
              return verifyFunction(package.functions[i], path, package);
            });
        !s)
      return s;
  }
  return Status::ok();
}

std::string manifestJson(const Package &package) {
  try {
    return dumpManifest(package, Json::error_handler_t::replace);
  } catch (...) {
    // Only reachable when out of memory; this signature has no error channel.
    return std::string();
  }
}

StatusOr<std::vector<uint8_t>> serialize(const Package &package) {
  return noThrow("cannot serialize", [&]() -> StatusOr<std::vector<uint8_t>> {
    if (Status s = verify(package); !s)
      return s.withContext("cannot serialize: invalid package");
    std::string manifest;
    try {
      manifest = dumpManifest(package, Json::error_handler_t::strict);
    } catch (const Json::type_error &e) {
      return Status::error(std::string("cannot serialize: ") + e.what());
    }
    uint64_t sectionSize = 0;
    for (const Blob &blob : package.blobs)
      sectionSize += blob.data.size();
    std::vector<uint8_t> bytes(kMagic, kMagic + sizeof(kMagic));
    bytes.reserve(kHeaderSize + manifest.size() + sectionSize);
    putLE(bytes, kContainerVersion, 4);
    putLE(bytes, kHeaderSize, 4);
    putLE(bytes, manifest.size(), 8);
    putLE(bytes, sectionSize, 8);
    putLE(bytes, 0, 8); // checksum, filled in below
    bytes.insert(bytes.end(), manifest.begin(), manifest.end());
    for (const Blob &blob : package.blobs)
      bytes.insert(bytes.end(), blob.data.begin(), blob.data.end());
    uint64_t checksum =
        fnv1a64(bytes.data() + kHeaderSize, bytes.size() - kHeaderSize);
    for (int i = 0; i < 8; ++i)
      bytes[32 + i] = static_cast<uint8_t>(checksum >> (8 * i));
    return bytes;
  });
}

Status writeFile(const Package &package, const std::string &path) {
  return noThrow(path, [&]() -> Status {
    StatusOr<std::vector<uint8_t>> bytes = serialize(package);
    if (!bytes)
      return bytes.status().withContext(path);
    return writeFileAtomically(*bytes, path).withContext(path);
  });
}

/// The bytes of the regular file `path`. Anything else is refused before
/// a byte is read: a FIFO would block (hence O_NONBLOCK, which a regular
/// file ignores) and a device such as /dev/zero would never end.
StatusOr<std::vector<uint8_t>> readRegularFile(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return Status::error("cannot open: " + errnoMessage(errno));
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    int error = errno;
    ::close(fd);
    return Status::error("cannot stat: " + errnoMessage(error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return Status::error("not a regular file");
  }
  std::vector<uint8_t> bytes;
  uint8_t buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      return Status::error("cannot read: " + errnoMessage(error));
    }
    if (n == 0)
      break;
    bytes.insert(bytes.end(), buffer, buffer + n);
  }
  ::close(fd);
  return bytes;
}

StatusOr<Package> parse(const uint8_t *data, size_t size,
                        const std::string &origin) {
  return noThrow(origin, [&]() -> StatusOr<Package> {
    StatusOr<Package> package = parseBytes(data, size);
    if (!package)
      return package.status().withContext(origin);
    return package;
  });
}

StatusOr<Package> readFile(const std::string &path) {
  return noThrow(path, [&]() -> StatusOr<Package> {
    StatusOr<std::vector<uint8_t>> bytes = readRegularFile(path);
    if (!bytes)
      return bytes.status().withContext(path);
    return parse(bytes->data(), bytes->size(), path);
  });
}

std::map<std::string, int64_t> cublasLtMatmulConfig(const MatmulSpec &spec,
                                                    bool bias) {
  return {{"transpose_a", spec.transposeA},
          {"transpose_b", spec.transposeB},
          {"bias", bias},
          {"addend", spec.addend},
          {"gelu_tanh", spec.activation == "gelu_tanh"}};
}

const std::string *OpSpec::bias() const {
  size_t withBias = matmul && matmul->addend ? 4 : 3;
  return matmul && operands.size() == withBias ? &operands[2] : nullptr;
}

std::vector<std::string> OpSpec::stepArgs() const {
  std::vector<std::string> args = operands;
  for (const std::string &result : results)
    if (!result.empty())
      args.push_back(result);
  return args;
}

const std::string *OpSpec::addend() const {
  bool normGrad = kind == "rms_norm_grad" || kind == "layer_norm_grad";
  bool has = (matmul && matmul->addend) || (normGrad && operands.size() == 5);
  return has ? &operands.back() : nullptr;
}

Status syncDirectory(const std::string &dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return Status::error("cannot open directory " + dir + ": " +
                         errnoMessage(errno));
  int synced = ::fsync(fd);
  int error = errno;
  ::close(fd);
  if (synced != 0)
    return Status::error("cannot flush directory " + dir + ": " +
                         errnoMessage(error));
  return Status::ok();
}

} // namespace attnc::pkg
