//===- attn-run.cpp - Run, check and time a package function --------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// attn-run PACKAGE --list | --info
// attn-run PACKAGE --fn NAME [--device DEV] [--shape SPEC]... [--seed S]
//          [--check] [--gradcheck] [--repeat N]
//          [--bench [--iters N] [--profile]]
//
// Inputs are fresh, approximately normal(0, 1) values (the same for a seed on
// every platform) rounded to each input's dtype, from a
// seed that is always printed, uploaded to buffers of the device; outputs are
// poisoned on the device before every run. --check evaluates the function's
// ops (its manifest semantics) in fp64 on the rounded inputs, downloads the
// outputs and compares each with its reference value; --gradcheck holds a
// gradient function's reference to finite differences of its forward
// function's (lib/reference/GradientCheck.h). A gradient function's saved
// inputs come from the forward function: its fp64 reference under --check
// and --gradcheck, else its run on the device. --bench times warm
// runs between two device events (a steady clock on the host); --profile
// also times each step of them (Function::profile).
//
//===----------------------------------------------------------------------===//

#include "attnc/package/SafeTensors.h"
#include "attnc/runtime/Runtime.h"
#include "attnc_runtime.h"
#include "lib/dtype/DType.h"
#include "lib/reference/GradientCheck.h"
#include "lib/reference/Program.h"
#include "lib/reference/Progress.h"
#include "lib/support/Extents.h"
#include "lib/support/Random.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <getopt.h>
#include <memory>
#include <mutex>
#include <new>
#include <random>
#include <set>
#include <system_error>
#include <thread>

using namespace attnc;

namespace {

const char *const kUsage =
    "usage: attn-run PACKAGE --list | --info\n"
    "       attn-run PACKAGE --fn NAME [--device DEV] [--shape SPEC]...\n"
    "                [--inputs FILE]... [--seed S] [--check] [--gradcheck]\n"
    "                [--repeat N] [--bench [--iters N] [--profile]]\n"
    "                [--save-outputs FILE]\n"
    "\n"
    "  --list          print the package's function names, one per line\n"
    "  --info          describe the package: per function its signature,\n"
    "                  ops, buffers and kernels (targets, launch, tiles,\n"
    "                  resources)\n"
    "  --fn NAME       run function NAME once on random inputs\n"
    "  --device DEV    host (default) or cuda:N\n"
    "  --shape SPEC    SYMBOL=VALUE binds a symbolic dim (N=1000);\n"
    "                  TENSOR=AxBxC gives a tensor's full shape "
    "(q=2x8x1000x64)\n"
    "  --inputs FILE   take the inputs a safetensors file names from it (its\n"
    "                  shapes bind their symbols); the others stay random\n"
    "  --save-outputs FILE\n"
    "                  write the outputs of the first run to a safetensors\n"
    "                  file\n"
    "  --seed S        seed of the random inputs, which it fixes on every "
    "platform\n"
    "                  (default: random; always printed)\n"
    "  --check         compare every output with the fp64 reference of the\n"
    "                  function's ops\n"
    "  --gradcheck     for a gradient function: compare a directional\n"
    "                  derivative of its fp64 reference with finite\n"
    "                  differences of its forward function's, in fp64\n"
    "  --progress S    while the fp64 reference runs, say every S seconds how\n"
    "                  many of its tasks are done (default 5; 0: never)\n"
    "  --repeat N      run N times on the same inputs and fail unless every\n"
    "                  run's outputs are bitwise identical to the first's\n"
    "  --bench         time warm runs; print the median and minimum\n"
    "  --iters N       timed runs of --bench (default 20)\n"
    "  --profile       with --bench: also time each step over the timed\n"
    "                  runs; print each step's median, its share of their\n"
    "                  sum, and the sum per kind of op\n"
    "  --version       print the version of attn-run's runtime\n"
    "  --help          print this help\n";

/// Runs before the timed ones, so that first-touch costs are not timed.
constexpr int kWarmupRuns = 2;

struct Options {
  std::string package;
  bool list = false;
  bool info = false;
  std::string function;
  std::string device = "host";
  std::vector<std::string> shapes;
  std::vector<std::string> inputFiles;
  std::optional<std::string> saveOutputs;
  std::optional<uint64_t> seed;
  bool check = false;
  bool gradcheck = false;
  bool bench = false;
  bool profile = false;
  std::optional<int64_t> iters;
  std::optional<int64_t> repeat;
  std::optional<int64_t> progress;
};

/// A non-negative decimal integer that fits `max`; `what` names it in errors.
StatusOr<uint64_t> parseUnsigned(const std::string &text,
                                 const std::string &what,
                                 uint64_t max = UINT64_MAX) {
  char *end = nullptr;
  errno = 0;
  unsigned long long value =
      text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))
          ? 0
          : std::strtoull(text.c_str(), &end, 10);
  if (!end || *end != '\0' || errno != 0 || value > max)
    return Status::error(what + " must be an integer in [0, " +
                         std::to_string(max) + "], got '" + text + "'");
  return static_cast<uint64_t>(value);
}

StatusOr<int64_t> parseExtent(const std::string &text,
                              const std::string &what) {
  auto value = parseUnsigned(text, what, INT64_MAX);
  if (!value)
    return value.status();
  return static_cast<int64_t>(*value);
}

/// The options of getopt_long: GNU conventions (--opt VALUE, --opt=VALUE,
/// unambiguous prefixes, options anywhere, `--` ends them) from glibc's
/// maintained parser, which the runtime side may use where llvm::cl is not.
enum OptionId : int {
  kHelp = 'h',
  kList = 256,
  kInfo,
  kFn,
  kDevice,
  kShape,
  kInputs,
  kSaveOutputs,
  kSeed,
  kCheck,
  kGradcheck,
  kProgress,
  kRepeat,
  kBench,
  kIters,
  kProfile,
  kVersion,
};

const struct option kLongOptions[] = {
    {"help", no_argument, nullptr, kHelp},
    {"list", no_argument, nullptr, kList},
    {"info", no_argument, nullptr, kInfo},
    {"fn", required_argument, nullptr, kFn},
    {"device", required_argument, nullptr, kDevice},
    {"shape", required_argument, nullptr, kShape},
    {"inputs", required_argument, nullptr, kInputs},
    {"save-outputs", required_argument, nullptr, kSaveOutputs},
    {"seed", required_argument, nullptr, kSeed},
    {"check", no_argument, nullptr, kCheck},
    {"gradcheck", no_argument, nullptr, kGradcheck},
    {"progress", required_argument, nullptr, kProgress},
    {"repeat", required_argument, nullptr, kRepeat},
    {"bench", no_argument, nullptr, kBench},
    {"iters", required_argument, nullptr, kIters},
    {"profile", no_argument, nullptr, kProfile},
    {"version", no_argument, nullptr, kVersion},
    {nullptr, 0, nullptr, 0},
};

/// The entry of the option `id`, null if there is none.
const struct option *findOption(int id) {
  for (const struct option *o = kLongOptions; o->name; ++o)
    if (o->val == id)
      return o;
  return nullptr;
}

std::string optionName(int id) {
  return std::string("--") + findOption(id)->name;
}

/// Why getopt_long refused the argument before `optind` (`code` is what it
/// returned: ':' for a missing value, '?' otherwise).
Status optionError(int code, char **argv) {
  std::string arg = argv[optind - 1];
  if (code == ':')
    return Status::error(optionName(optopt) + " needs a value");
  if (findOption(optopt) && arg.rfind("--", 0) == 0)
    return Status::error(optionName(optopt) + " takes no value");
  if (optopt > 0 && optopt < 256)
    arg = "-" + std::string(1, char(optopt));
  return Status::error("unknown or ambiguous option '" + arg + "'");
}

/// Sets `count` to the option's whole-number value, at least `least`.
Status parseCount(int id, int64_t least, std::optional<int64_t> &count) {
  std::string name = optionName(id);
  auto value = parseExtent(optarg, name);
  if (!value)
    return value.status();
  if (*value < least)
    return Status::error(name + " must be at least " + std::to_string(least));
  count = *value;
  return Status::ok();
}

/// Records the option `id` (with getopt_long's optarg) in `options`.
Status applyOption(int id, Options &options) {
  switch (id) {
  case kList:
    options.list = true;
    return Status::ok();
  case kInfo:
    options.info = true;
    return Status::ok();
  case kCheck:
    options.check = true;
    return Status::ok();
  case kGradcheck:
    options.gradcheck = true;
    return Status::ok();
  case kBench:
    options.bench = true;
    return Status::ok();
  case kProfile:
    options.profile = true;
    return Status::ok();
  case kFn:
    options.function = optarg;
    return Status::ok();
  case kDevice:
    options.device = optarg;
    return Status::ok();
  case kShape:
    options.shapes.push_back(optarg);
    return Status::ok();
  case kInputs:
    options.inputFiles.push_back(optarg);
    return Status::ok();
  case kSaveOutputs:
    options.saveOutputs = optarg;
    return Status::ok();
  case kSeed: {
    auto seed = parseUnsigned(optarg, "--seed");
    if (seed)
      options.seed = *seed;
    return seed.status();
  }
  case kIters:
    return parseCount(id, 1, options.iters);
  case kRepeat:
    return parseCount(id, 2, options.repeat);
  case kProgress:
    return parseCount(id, 0, options.progress);
  }
  return Status::error("unhandled option " + optionName(id));
}

/// Parses the command line; nullopt means --help or --version was printed.
StatusOr<std::optional<Options>> parseArgs(int argc, char **argv) {
  Options options;
  opterr = 0;
  optind = 1;
  for (int id;
       (id = getopt_long(argc, argv, ":h", kLongOptions, nullptr)) != -1;) {
    if (id == '?' || id == ':')
      return optionError(id, argv);
    if (id == kHelp) {
      std::fputs(kUsage, stdout);
      return std::optional<Options>();
    }
    if (id == kVersion) {
      std::printf("attn-run %s\n", attnc_version());
      return std::optional<Options>();
    }
    if (Status status = applyOption(id, options); !status)
      return status;
  }
  if (optind == argc)
    return Status::error("no package given");
  if (optind + 1 < argc)
    return Status::error("unexpected argument '" +
                         std::string(argv[optind + 1]) + "'");
  options.package = argv[optind];
  if (int(options.list) + int(options.info) + int(!options.function.empty()) !=
      1)
    return Status::error("give exactly one of --list, --info and --fn NAME");
  if (options.iters && !options.bench)
    return Status::error("--iters needs --bench");
  if (options.profile && !options.bench)
    return Status::error("--profile needs --bench");
  if (options.function.empty() &&
      (!options.inputFiles.empty() || options.saveOutputs))
    return Status::error("--inputs and --save-outputs need --fn NAME");
  return std::optional<Options>(options);
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

/// One dense tensor of the signature: device memory for the kernel, and a
/// host copy where inputs are generated and outputs downloaded to.
struct Tensor {
  const pkg::TensorSig *sig;
  std::vector<int64_t> shape;
  int64_t numElements;
  std::vector<uint8_t> host;
  std::unique_ptr<void, std::function<void(void *)>> device;

  size_t byteSize() const { return host.size(); }
  rt::TensorRef ref() const { return {device.get(), sig->dtype, shape, {}}; }
  double at(int64_t i) const {
    return loadElementAsDouble(host.data(), sig->dtype, i);
  }
};

StatusOr<Tensor> allocate(const rt::Runtime &runtime, const pkg::TensorSig &sig,
                          std::vector<int64_t> shape) {
  std::optional<int64_t> count = elementCount(shape),
                         bytes = denseBytes(shape, pkg::dtypeSize(sig.dtype));
  if (!count || !bytes)
    return Status::error(sig.name + " is too large");
  Tensor tensor{&sig, std::move(shape), *count, {}, {}};
  auto data = runtime.allocate(static_cast<size_t>(*bytes));
  if (!data)
    return data.status().withContext(sig.name);
  tensor.device = {*data, [runtime](void *p) { (void)runtime.free(p); }};
  tensor.host.resize(static_cast<size_t>(*bytes));
  return tensor;
}

/// An input taken from a --inputs file, and the file.
struct GivenInput {
  const safetensors::Tensor *tensor;
  std::string path;
};
using GivenInputs = std::map<std::string, GivenInput>;

/// Binds the --shape specs and the shapes of the inputs --inputs gives,
/// and checks that they bind every symbol.
StatusOr<rt::SymbolBindings> bindShapes(const pkg::Function &fn,
                                        const std::vector<std::string> &specs,
                                        const GivenInputs &given) {
  std::vector<const pkg::TensorSig *> sigs;
  std::set<std::string> symbols;
  for (const auto *list : {&fn.inputs, &fn.outputs})
    for (const pkg::TensorSig &sig : *list) {
      sigs.push_back(&sig);
      for (const pkg::Dim &dim : sig.shape)
        if (!dim.isStatic())
          symbols.insert(dim.symbol);
    }

  rt::SymbolBindings bindings;
  for (const std::string &spec : specs) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos)
      return Status::error("--shape " + spec +
                           ": expected SYMBOL=VALUE or TENSOR=AxBxC");
    std::string name = spec.substr(0, eq), value = spec.substr(eq + 1);
    auto sig = std::find_if(sigs.begin(), sigs.end(),
                            [&](auto *s) { return s->name == name; });
    Status status = Status::ok();
    if (sig != sigs.end()) {
      std::vector<int64_t> shape;
      for (size_t begin = 0; !value.empty() && begin <= value.size();) {
        size_t end = std::min(value.find('x', begin), value.size());
        auto extent = parseExtent(value.substr(begin, end - begin),
                                  "a dim of --shape " + spec);
        if (!extent)
          return extent.status();
        shape.push_back(*extent);
        begin = end + 1;
      }
      status = bindings.bindShape(**sig, shape, "--shape " + spec);
    } else if (symbols.count(name)) {
      auto extent = parseExtent(value, "--shape " + spec);
      if (!extent)
        return extent.status();
      status = bindings.bind(name, *extent, "--shape " + spec);
    } else {
      return Status::error("--shape " + spec + ": '" + name +
                           "' is neither a tensor nor a symbol of function '" +
                           fn.name + "'");
    }
    if (!status)
      return status;
  }
  for (const pkg::TensorSig &input : fn.inputs)
    if (auto found = given.find(input.name); found != given.end())
      if (Status s = bindings.bindShape(input, found->second.tensor->shape,
                                        "--inputs " + found->second.path);
          !s)
        return s;

  std::string unbound;
  for (const std::string &symbol : symbols)
    if (!bindings.lookup(symbol))
      unbound += (unbound.empty() ? "" : ", ") + symbol;
  if (!unbound.empty())
    return Status::error("unbound symbols " + unbound +
                         ": bind each with --shape SYMBOL=VALUE, or give "
                         "tensor shapes with --shape TENSOR=AxBxC");
  return bindings;
}

StatusOr<std::vector<Tensor>>
allocateAll(const rt::Runtime &runtime, const std::vector<pkg::TensorSig> &sigs,
            const rt::SymbolBindings &bindings) {
  std::vector<Tensor> tensors;
  for (const pkg::TensorSig &sig : sigs) {
    auto shape = bindings.resolve(sig);
    if (!shape)
      return shape.status();
    auto tensor = allocate(runtime, sig, std::move(*shape));
    if (!tensor)
      return tensor.status();
    tensors.push_back(std::move(*tensor));
  }
  return tensors;
}

std::vector<rt::TensorRef> refs(const std::vector<Tensor> &tensors) {
  std::vector<rt::TensorRef> result;
  for (const Tensor &tensor : tensors)
    result.push_back(tensor.ref());
  return result;
}

/// Copies each tensor's host data to the device, or back with `toHost`.
Status transfer(const rt::Runtime &runtime, std::vector<Tensor> &tensors,
                bool toHost) {
  for (Tensor &t : tensors) {
    Status s = toHost ? runtime.copy(t.host.data(), t.device.get(),
                                     t.byteSize(), rt::CopyKind::DeviceToHost)
                      : runtime.copy(t.device.get(), t.host.data(),
                                     t.byteSize(), rt::CopyKind::HostToDevice);
    if (!s)
      return s.withContext(t.sig->name);
  }
  return Status::ok();
}

/// 0xFF bytes are NaN in every float dtype and -1 in every integer one.
Status poison(const rt::Runtime &runtime, const std::vector<Tensor> &outputs) {
  for (const Tensor &t : outputs)
    if (Status s = runtime.fill(t.device.get(), 0xFF, t.byteSize()); !s)
      return s.withContext(t.sig->name);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// --check
//===----------------------------------------------------------------------===//

/// Tolerance of ||out - ref|| / ||ref|| for an output of `type`.
double tolerance(pkg::DType type) {
  switch (type) {
  case pkg::DType::F64:
    return 1e-12;
  case pkg::DType::F32:
    return 1e-5;
  case pkg::DType::F16:
  case pkg::DType::BF16:
    return 2e-2;
  case pkg::DType::F8E4M3FN:
  case pkg::DType::F8E5M2:
    return 1e-1;
  default:
    return 0; // integer outputs must be exact
  }
}

/// Compares `output` with `ref` and prints one line; true when within `tol`.
/// Where the reference is infinite (lse of a fully masked row) the output
/// must match exactly; a NaN output always fails.
bool compare(const Tensor &output, const std::vector<double> &ref, double tol) {
  double diff2 = 0, ref2 = 0;
  int64_t nans = 0, infMismatches = 0;
  for (int64_t i = 0; i < output.numElements; ++i) {
    double out = output.at(i), expected = ref[i];
    if (std::isnan(out))
      ++nans;
    else if (!std::isfinite(expected))
      infMismatches += out != expected;
    else {
      diff2 += (out - expected) * (out - expected);
      ref2 += expected * expected;
    }
  }
  // A reference whose RMS is below kZeroRms counts as zero and leaves the
  // absolute RMS error: inputs are N(0, 1), so real outputs are orders
  // above it, while a value that is zero in exact arithmetic (no keys at
  // all; dq and dk with a single key, where dS = P (dP - D) = 0) is only
  // roundoff in fp64 and relative error against it would be noise.
  constexpr double kZeroRms = 1e-3;
  double count = std::max<double>(1, output.numElements);
  double err = std::sqrt(diff2 / std::max(ref2, kZeroRms * kZeroRms * count));
  bool ok = nans == 0 && infMismatches == 0 && err <= tol;
  std::printf("%s: rel_err %.2g (tol %.2g) %s", output.sig->name.c_str(), err,
              tol, ok ? "ok" : "FAILED");
  if (nans)
    std::printf(", %lld NaN entries", static_cast<long long>(nans));
  if (infMismatches)
    std::printf(", %lld entries differ where the reference is infinite",
                static_cast<long long>(infMismatches));
  std::printf("\n");
  return ok;
}

/// Says on stderr how far the fp64 reference is, every `interval` while it
/// runs, so that a long --check shows it is alive. Without a thread (none
/// could be started) it stays silent.
class ProgressPrinter {
public:
  ProgressPrinter(const ref::Progress &progress, const std::string &what,
                  std::chrono::seconds interval) {
    if (interval.count() == 0)
      return;
    try {
      thread_.emplace([=, &progress] { run(progress, what, interval); });
    } catch (const std::system_error &) {
    }
  }
  ~ProgressPrinter() {
    if (!thread_)
      return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    wake_.notify_one();
    thread_->join();
  }
  ProgressPrinter(const ProgressPrinter &) = delete;
  ProgressPrinter &operator=(const ProgressPrinter &) = delete;

private:
  void run(const ref::Progress &progress, const std::string &what,
           std::chrono::seconds interval) {
    auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, interval, [&] { return stopped_; })) {
      int64_t total = progress.total, done = progress.done;
      auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
          std::chrono::steady_clock::now() - start);
      std::fprintf(stderr, "attn-run: %s: %lld of %lld tasks (%lld s)\n",
                   what.c_str(), static_cast<long long>(done),
                   static_cast<long long>(total),
                   static_cast<long long>(seconds.count()));
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopped_ = false;
  std::optional<std::thread> thread_;
};

/// ref::evaluateProgram, saying every `interval` how far it is.
StatusOr<ref::ValueData>
evaluateWithProgress(const pkg::Function &fn,
                     const rt::SymbolBindings &bindings, ref::ValueData inputs,
                     std::chrono::seconds interval) {
  ref::Progress progress;
  ref::ProgressScope scope(progress);
  ProgressPrinter printer(progress, "fp64 reference of '" + fn.name + "'",
                          interval);
  return ref::evaluateProgram(fn, bindings.values(), std::move(inputs));
}

/// The fp64 reference of every value of `fn` (its ops on the rounded
/// inputs), computed before anything runs, so that a function that cannot
/// be checked fails first.
StatusOr<ref::ValueData> reference(const pkg::Function &fn,
                                   const std::vector<Tensor> &inputs,
                                   const rt::SymbolBindings &bindings,
                                   std::chrono::seconds progress) {
  if (fn.ops.empty())
    return Status::error("--check: function '" + fn.name +
                         "' has no ops in its manifest to check against");
  ref::ValueData data;
  for (const Tensor &input : inputs) {
    std::vector<double> &elements = data[input.sig->name];
    for (int64_t i = 0; i < input.numElements; ++i)
      elements.push_back(input.at(i));
  }
  auto computed = evaluateWithProgress(fn, bindings, std::move(data), progress);
  if (!computed)
    return computed.status().withContext("--check: reference");
  return computed;
}

/// The loosest tolerance among `name` and the computed values it is
/// computed from: a kernel's arithmetic may round a 16-bit intermediate to
/// the neighbouring value of the reference's, and what follows inherits
/// that step, even in an f32 output (an lse after a bf16 projection).
/// Inputs are the same bits on both sides and add nothing. A name that
/// several ops write (a result that took over its operand's buffer, or
/// views of its rows) takes the loosest of them all.
double toleranceOf(const pkg::Function &fn, const std::string &name,
                   std::set<std::string> &seen) {
  if (!seen.insert(name).second)
    return 0;
  double tol = 0;
  for (const pkg::OpSpec &op : fn.ops)
    if (std::any_of(op.results.begin(), op.results.end(),
                    [&](const std::string &result) {
                      return fn.storageOf(result) == name;
                    })) {
      tol = std::max(tol, tolerance(fn.findValue(name)->dtype));
      for (const std::string &operand : op.operands)
        tol = std::max(
            tol, toleranceOf(fn, std::string(fn.storageOf(operand)), seen));
    }
  return tol;
}

/// Compares every output with its reference value, printing one line each.
/// The reference sees the same rounded inputs and rounds each value as the
/// program stores it, so only the kernels' arithmetic remains: each output
/// is held to the tolerance of the narrowest element type it is computed
/// through (toleranceOf).
Status check(const pkg::Function &fn, const std::vector<Tensor> &outputs,
             const ref::ValueData &expected) {
  bool ok = true;
  for (const Tensor &output : outputs) {
    std::set<std::string> seen;
    ok = compare(output, expected.at(output.sig->name),
                 toleranceOf(fn, output.sig->name, seen)) &&
         ok;
  }
  if (!ok)
    return Status::error("--check: outputs differ from the reference");
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// "bf16 [B, 16, Nq, 128]".
std::string describeTensor(const pkg::TensorSig &sig) {
  std::string text = std::string(pkg::dtypeName(sig.dtype)) + " [";
  for (size_t i = 0; i < sig.shape.size(); ++i)
    text += (i ? ", " : "") + (sig.shape[i].isStatic()
                                   ? std::to_string(sig.shape[i].extent)
                                   : sig.shape[i].symbol);
  text += "]";
  if (sig.indexBound)
    text += ", values in [0, " + std::to_string(*sig.indexBound) + ")";
  return text;
}

/// "key=value ..." of a kernel's tiles or resources.
std::string describeMap(const std::map<std::string, int64_t> &map) {
  std::string text;
  for (const auto &[key, value] : map)
    text += " " + key + "=" + std::to_string(value);
  return text.empty() ? " -" : text;
}

void describeFunction(const pkg::Function &fn) {
  std::printf("function %s\n", fn.name.c_str());
  if (fn.gradientOf)
    std::printf("  gradient of: %s\n", fn.gradientOf->c_str());
  for (const pkg::TensorSig &in : fn.inputs)
    std::printf("  input %s: %s\n", in.name.c_str(),
                describeTensor(in).c_str());
  for (const pkg::TensorSig &out : fn.outputs)
    std::printf("  output %s: %s\n", out.name.c_str(),
                describeTensor(out).c_str());
  for (const pkg::Buffer &buffer : fn.buffers)
    std::printf("  buffer %s: %s, slot %lld\n", buffer.tensor.name.c_str(),
                describeTensor(buffer.tensor).c_str(),
                static_cast<long long>(buffer.slot));
  for (const pkg::View &view : fn.views)
    std::printf(
        "  view %s: rows [%lld, %lld) of %s\n", view.tensor.name.c_str(),
        static_cast<long long>(view.begin),
        static_cast<long long>(view.begin + view.tensor.shape[0].extent),
        view.of.c_str());
  for (const pkg::OpSpec &op : fn.ops) {
    std::string attrs;
    if (op.attention) {
      const pkg::AttentionSpec &a = *op.attention;
      attrs = " scale=" + std::to_string(a.scale);
      attrs += a.causal ? " causal" : "";
      attrs += a.bottomRight ? " bottom_right" : "";
      attrs +=
          a.windowLeft ? " window_left=" + std::to_string(*a.windowLeft) : "";
      attrs += a.windowRight ? " window_right=" + std::to_string(*a.windowRight)
                             : "";
      attrs += a.mask ? " mask-region" : "";
      attrs += a.score ? " score-region" : "";
    }
    if (op.loss)
      attrs = " ignore_index=" + std::to_string(op.loss->ignoreIndex);
    if (op.loss && op.loss->vocabOffset)
      attrs += " vocab_offset=" + std::to_string(op.loss->vocabOffset);
    if (op.loss && op.loss->vocabSize)
      attrs += " vocab_size=" + std::to_string(*op.loss->vocabSize);
    std::printf("  op %s%s\n", op.kind.c_str(), attrs.c_str());
  }
  for (const pkg::Kernel &k : fn.kernels) {
    std::printf(
        "  kernel %s (%s): block %lldx%lldx%lld, dynamic shared "
        "memory %lld bytes; tiles%s; resources%s\n",
        k.name.c_str(), k.target.c_str(), static_cast<long long>(k.block[0]),
        static_cast<long long>(k.block[1]), static_cast<long long>(k.block[2]),
        static_cast<long long>(k.dynamicSharedMemoryBytes),
        describeMap(k.config).c_str(), describeMap(k.resources).c_str());
    for (const pkg::TensorMap &map : k.tensorMaps) {
      std::string box;
      for (int64_t extent : map.box)
        box += (box.empty() ? "" : "x") + std::to_string(extent);
      std::printf("    tensor map of argument %lld: box %s, swizzle %lld\n",
                  static_cast<long long>(map.arg), box.c_str(),
                  static_cast<long long>(map.swizzleBytes));
    }
  }
}

/// What --info prints: the package's producer and targets, then each
/// function.
Status describePackage(const std::string &path) {
  auto package = pkg::readFile(path);
  if (!package)
    return package.status();
  std::set<std::string> targets;
  for (const pkg::Function &fn : package->functions)
    for (const std::string &target : fn.targets())
      targets.insert(target);
  std::string targetText;
  for (const std::string &target : targets)
    targetText += (targetText.empty() ? "" : ", ") + target;
  std::printf("package %s (%s, schema %lld): %zu functions, targets %s\n",
              path.c_str(), package->producer.c_str(),
              static_cast<long long>(package->schemaVersion),
              package->functions.size(), targetText.c_str());
  for (const pkg::Function &fn : package->functions)
    describeFunction(fn);
  return Status::ok();
}

Status listFunctions(const std::string &path) {
  auto package = pkg::readFile(path);
  if (!package)
    return package.status();
  for (const pkg::Function &fn : package->functions)
    std::printf("%s\n", fn.name.c_str());
  return Status::ok();
}

/// Fills elements [0, n) of `tensor` with the normal values of `seed`'s
/// sequence from value `first` on, in chunks on all cores (each chunk's
/// generator skips to its place), so the values are those of one serial
/// draw; large inputs took seconds per call on one core.
void fillNormal(Tensor &tensor, uint64_t seed, uint64_t first) {
  constexpr int64_t kChunk = int64_t(1) << 20;
  int64_t n = tensor.numElements;
  Status filled = ref::parallelFor((n + kChunk - 1) / kChunk, [&](int64_t c) {
    int64_t begin = c * kChunk, end = std::min(n, begin + kChunk);
    PortableNormal normal(seed);
    normal.skip(first + static_cast<uint64_t>(begin));
    for (int64_t i = begin; i < end; ++i)
      storeElementFromDouble(tensor.host.data(), tensor.sig->dtype, i,
                             normal.next());
    return Status::ok();
  });
  (void)filled; // the chunks cannot fail
}

/// Prints the seed (`seed`, or a random one) and the bound symbols, then
/// fills the inputs with approximately normal(0, 1) values from that seed
/// (PortableNormal: the same on every platform), rounded to their dtypes,
/// and inputs with an index bound (a loss's labels) with uniform integers
/// below it; returns the seed.
uint64_t fillInputs(std::vector<Tensor> &inputs, std::optional<uint64_t> seed,
                    const rt::SymbolBindings &bindings) {
  if (!seed)
    seed = (uint64_t(std::random_device()()) << 32) ^ std::random_device()();
  std::printf("seed: %llu\n", static_cast<unsigned long long>(*seed));
  std::string symbolText;
  for (const auto &[symbol, extent] : bindings.values())
    symbolText += " " + symbol + "=" + std::to_string(extent);
  if (!symbolText.empty())
    std::printf("symbols:%s\n", symbolText.c_str());
  uint64_t normalsDrawn = 0;
  SplitMix64 indices(*seed ^ 0x1d1ceULL);
  for (Tensor &tensor : inputs) {
    std::optional<int64_t> bound = tensor.sig->indexBound;
    if (!bound) {
      fillNormal(tensor, *seed, normalsDrawn);
      normalsDrawn += static_cast<uint64_t>(tensor.numElements);
      continue;
    }
    for (int64_t i = 0; i < tensor.numElements; ++i)
      storeElementFromDouble(tensor.host.data(), tensor.sig->dtype, i,
                             static_cast<double>(indices.next() % *bound));
  }
  return *seed;
}

/// The --inputs files' tensors that `fn` takes, by input name. A tensor must
/// have its input's dtype, and no input may come from two files; tensors of
/// other names are left out (a forward's outputs file serves its gradient
/// function, which takes them as inputs).
StatusOr<GivenInputs> loadInputFiles(const pkg::Function &fn,
                                     const std::vector<std::string> &paths,
                                     std::vector<safetensors::File> &files) {
  GivenInputs given;
  files.reserve(paths.size());
  for (const std::string &path : paths) {
    auto file = safetensors::readFile(path);
    if (!file)
      return file.status().withContext("--inputs");
    files.push_back(std::move(*file));
    size_t taken = 0;
    for (const safetensors::Tensor &tensor : files.back().tensors) {
      const pkg::TensorSig *input = nullptr;
      for (const pkg::TensorSig &sig : fn.inputs)
        if (sig.name == tensor.name)
          input = &sig;
      if (!input)
        continue;
      if (input->dtype != tensor.dtype)
        return Status::error(
            "--inputs " + path + ": tensor " + tensor.name + " is " +
            std::string(pkg::dtypeName(tensor.dtype)) + ", input " +
            tensor.name + " of " + fn.name + " is " +
            std::string(pkg::dtypeName(input->dtype)));
      auto [at, inserted] =
          given.emplace(tensor.name, GivenInput{&tensor, path});
      if (!inserted)
        return Status::error("--inputs: input " + tensor.name + " is in " +
                             at->second.path + " and in " + path);
      ++taken;
    }
    if (taken == 0)
      return Status::error("--inputs " + path +
                           ": names none of the inputs of " + fn.name);
  }
  return given;
}

/// Copies the given inputs' bytes over their random values and says which
/// came from where.
void takeGivenInputs(std::vector<Tensor> &inputs, const GivenInputs &given) {
  std::map<std::string, std::string> byFile;
  for (Tensor &input : inputs)
    if (auto found = given.find(input.sig->name); found != given.end()) {
      input.host = found->second.tensor->data;
      std::string &names = byFile[found->second.path];
      names += (names.empty() ? "" : " ") + input.sig->name;
    }
  for (const auto &[path, names] : byFile)
    std::printf("inputs from %s: %s\n", path.c_str(), names.c_str());
}

/// --save-outputs: the outputs of the first run (downloaded), by name.
Status saveOutputs(const rt::Runtime &runtime, std::vector<Tensor> &outputs,
                   const std::string &path) {
  if (Status s = transfer(runtime, outputs, /*toHost=*/true); !s)
    return s;
  safetensors::File file;
  for (const Tensor &output : outputs)
    file.tensors.push_back(
        {output.sig->name, output.sig->dtype, output.shape, output.host});
  return safetensors::writeFile(file, path).withContext("--save-outputs");
}

/// For a gradient function (pkg::Function::gradientOf), replaces the random
/// values of the inputs that stand for the forward function's outputs (the
/// saved out and lse of attention) by the fp64 reference of the forward
/// function on the same primal inputs, rounded to their dtypes, so that the
/// gradient is taken where the forward pass really was. The cotangents stay
/// random; saved values --inputs gives stay as given.
Status fillSavedValues(const rt::Package &package, const pkg::Function &fn,
                       std::vector<Tensor> &inputs,
                       const rt::SymbolBindings &bindings,
                       std::chrono::seconds progress,
                       const GivenInputs &given) {
  if (!fn.gradientOf)
    return Status::ok();
  // The package verifier checked that the forward function exists and that
  // these inputs start with its inputs and outputs.
  const pkg::Function &f = *package.manifest().findFunction(*fn.gradientOf);
  if (std::all_of(f.outputs.begin(), f.outputs.end(),
                  [&](const pkg::TensorSig &out) {
                    return given.count(out.name) != 0;
                  }))
    return Status::ok();
  ref::ValueData primal;
  for (size_t i = 0; i < f.inputs.size(); ++i)
    for (int64_t e = 0; e < inputs[i].numElements; ++e)
      primal[f.inputs[i].name].push_back(inputs[i].at(e));
  auto computed =
      evaluateWithProgress(f, bindings, std::move(primal), progress);
  if (!computed)
    return computed.status().withContext("reference of '" + f.name + "'");
  for (size_t j = 0; j < f.outputs.size(); ++j) {
    Tensor &saved = inputs[f.inputs.size() + j];
    if (given.count(saved.sig->name))
      continue;
    const std::vector<double> &values = computed->at(f.outputs[j].name);
    for (int64_t e = 0; e < saved.numElements; ++e)
      storeElementFromDouble(saved.host.data(), saved.sig->dtype, e, values[e]);
  }
  std::printf("saved values: the fp64 reference of %s\n", f.name.c_str());
  return Status::ok();
}

/// Whether `fn`'s saved values are best computed by its forward function on
/// the device: when nothing compares them with the fp64 reference and none
/// is given, the device is far faster (the reference of a block at
/// benchmark size takes minutes).
bool savesOnDevice(const rt::Package &package, const pkg::Function &fn,
                   const Options &options, const GivenInputs &given) {
  if (!fn.gradientOf || options.check || options.gradcheck)
    return false;
  const pkg::Function &f = *package.manifest().findFunction(*fn.gradientOf);
  return std::none_of(
      f.outputs.begin(), f.outputs.end(),
      [&](const pkg::TensorSig &out) { return given.count(out.name) != 0; });
}

/// Runs `fn`'s forward function on the device on `inputs` (uploaded),
/// writing its outputs into the inputs that stand for them.
Status runForwardOnDevice(const rt::Package &package, const pkg::Function &fn,
                          const std::vector<Tensor> &inputs,
                          const std::string &device) {
  auto forward = package.function(*fn.gradientOf);
  if (!forward)
    return forward.status();
  size_t primal = forward->signature().inputs.size();
  size_t saved = forward->signature().outputs.size();
  std::vector<rt::TensorRef> in, out;
  for (size_t i = 0; i < primal + saved; ++i)
    (i < primal ? in : out).push_back(inputs[i].ref());
  if (Status s = forward->call(in, out); !s)
    return s.withContext("saved values");
  std::printf("saved values: %s on %s\n", forward->name().c_str(),
              device.c_str());
  return Status::ok();
}

/// Below this relative error, the gradient function's reference and the
/// forward function's finite differences agree (both in fp64: a central
/// difference at step 1e-5 is good to about 1e-9, roundoff to less).
constexpr double kGradcheckTolerance = 1e-6;

/// --gradcheck: the directional derivative of `fn`'s forward function
/// along a random direction, by finite differences, against `fn`'s
/// reference gradients, at `inputs` (their rounded primal values and
/// cotangents).
Status gradcheck(const rt::Package &package, const pkg::Function &fn,
                 const std::vector<Tensor> &inputs,
                 const rt::SymbolBindings &bindings, uint64_t seed) {
  if (!fn.gradientOf)
    return Status::error("--gradcheck: '" + fn.name +
                         "' is not a gradient function");
  const pkg::Function &forward =
      *package.manifest().findFunction(*fn.gradientOf);
  ref::ValueData data;
  for (const Tensor &input : inputs) {
    std::vector<double> &elements = data[input.sig->name];
    for (int64_t i = 0; i < input.numElements; ++i)
      elements.push_back(input.at(i));
  }
  auto result = ref::checkDirectionalDerivative(forward, fn, bindings.values(),
                                                data, seed);
  if (!result)
    return result.status().withContext("--gradcheck");
  bool ok = result->relativeError <= kGradcheckTolerance;
  std::printf("gradcheck: finite differences %.9g, gradients %.9g: rel_err "
              "%.1e (tol %.0e) %s\n",
              result->differences, result->gradients, result->relativeError,
              kGradcheckTolerance, ok ? "ok" : "FAILED");
  return ok ? Status::ok()
            : Status::error("--gradcheck: the gradients differ from finite "
                            "differences of '" +
                            forward.name + "'");
}

/// Runs `runOnce` `runs - 1` more times after the first run, whose outputs
/// `outputs` hold, and fails unless each run writes the same bytes:
/// deterministic kernels (attnc --deterministic-grad) must.
Status checkRepeatable(const rt::Runtime &runtime,
                       const std::function<StatusOr<double>()> &runOnce,
                       std::vector<Tensor> &outputs, int64_t runs) {
  if (Status s = transfer(runtime, outputs, /*toHost=*/true); !s)
    return s;
  std::vector<std::vector<uint8_t>> first;
  for (const Tensor &output : outputs)
    first.push_back(output.host);
  for (int64_t run = 1; run < runs; ++run) {
    if (auto ran = runOnce(); !ran)
      return ran.status();
    if (Status s = transfer(runtime, outputs, /*toHost=*/true); !s)
      return s;
    for (size_t i = 0; i < outputs.size(); ++i)
      if (outputs[i].host != first[i])
        return Status::error("--repeat: output " + outputs[i].sig->name +
                             " of run " + std::to_string(run + 1) +
                             " differs from run 1");
  }
  std::printf("repeat: outputs bitwise identical over %lld runs\n",
              static_cast<long long>(runs));
  return Status::ok();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

/// Times `iters` warm runs of `runOnce` and prints their median and minimum.
Status bench(const std::function<StatusOr<double>()> &runOnce, int64_t iters) {
  for (int i = 0; i < kWarmupRuns; ++i)
    if (auto run = runOnce(); !run)
      return run.status();
  std::vector<double> times;
  for (int64_t i = 0; i < iters; ++i) {
    auto run = runOnce();
    if (!run)
      return run.status();
    times.push_back(*run);
  }
  std::printf("median: %.3f ms, min: %.3f ms (%zu runs)\n", median(times),
              *std::min_element(times.begin(), times.end()), times.size());
  return Status::ok();
}

/// The op kind a kernel's name ends in, before its step number
/// ("llama_block_matmul12" -> "matmul"), per the manifest's kernel names.
std::string opKindOf(const pkg::Function &sig, const std::string &kernel) {
  std::string tail =
      kernel.substr(std::min(kernel.size(), sig.name.size() + 1));
  size_t digits = tail.find_last_not_of("0123456789");
  return digits == std::string::npos ? tail : tail.substr(0, digits + 1);
}

/// Prints each step's median over `runs` (one vector of step times each),
/// its share of the medians' sum, then the sum per op kind. A concurrent
/// step says which step it ran beside.
void printProfile(const pkg::Function &sig,
                  const std::vector<std::vector<double>> &runs) {
  std::vector<double> medians;
  double sum = 0;
  for (size_t step = 0; step < sig.steps.size(); ++step) {
    std::vector<double> times;
    for (const std::vector<double> &run : runs)
      times.push_back(run[step]);
    medians.push_back(median(times));
    sum += medians.back();
  }
  std::map<std::string, std::pair<double, int>> perKind;
  std::printf("profile: %zu steps, median per step over %zu runs\n",
              medians.size(), runs.size());
  for (size_t step = 0; step < medians.size(); ++step) {
    const std::string &kernel = sig.steps[step].kernel;
    std::printf("  step %3zu %-40s %8.3f ms %5.1f%%", step, kernel.c_str(),
                medians[step], sum > 0 ? 100 * medians[step] / sum : 0.0);
    // Its time is what it took beyond the step it ran beside.
    if (sig.steps[step].concurrent)
      std::printf("  beside step %zu", step - 1);
    std::printf("\n");
    auto &kind = perKind[opKindOf(sig, kernel)];
    kind.first += medians[step];
    ++kind.second;
  }
  std::printf("profile: %.3f ms in all; per kind of op:\n", sum);
  for (const auto &[kind, total] : perKind)
    std::printf("  %-20s %3d steps %8.3f ms %5.1f%%\n", kind.c_str(),
                total.second, total.first,
                sum > 0 ? 100 * total.first / sum : 0.0);
}

/// Profiles `iters` calls of `fn` (after bench()'s warm runs) and prints
/// the steps' times.
Status profile(const rt::Function &fn, const std::vector<rt::TensorRef> &inputs,
               const std::vector<rt::TensorRef> &outputs, int64_t iters) {
  std::vector<std::vector<double>> runs;
  for (int64_t i = 0; i < iters; ++i) {
    auto steps = fn.profile(inputs, outputs);
    if (!steps)
      return steps.status();
    runs.push_back(std::move(*steps));
  }
  printProfile(fn.signature(), runs);
  return Status::ok();
}

Status runFunction(const Options &options) {
  auto runtime = rt::Runtime::open(options.device);
  if (!runtime)
    return runtime.status();
  auto package = runtime->load(options.package);
  if (!package)
    return package.status();
  auto fn = package->function(options.function);
  if (!fn)
    return fn.status();
  const pkg::Function &sig = fn->signature();

  std::vector<safetensors::File> files;
  auto given = loadInputFiles(sig, options.inputFiles, files);
  if (!given)
    return given.status();
  auto bindings = bindShapes(sig, options.shapes, *given);
  if (!bindings)
    return bindings.status();
  auto inputs = allocateAll(*runtime, sig.inputs, *bindings);
  if (!inputs)
    return inputs.status();
  auto outputs = allocateAll(*runtime, sig.outputs, *bindings);
  if (!outputs)
    return outputs.status();
  uint64_t seed = fillInputs(*inputs, options.seed, *bindings);
  takeGivenInputs(*inputs, *given);
  std::chrono::seconds progress(options.progress.value_or(5));
  bool savesHere = savesOnDevice(*package, sig, options, *given);
  if (!savesHere)
    if (Status s = fillSavedValues(*package, sig, *inputs, *bindings, progress,
                                   *given);
        !s)
      return s;
  if (Status s = transfer(*runtime, *inputs, /*toHost=*/false); !s)
    return s;
  if (savesHere)
    if (Status s = runForwardOnDevice(*package, sig, *inputs, options.device);
        !s)
      return s;
  if (options.gradcheck)
    // The direction is the next seed's, so the printed seed repeats it.
    if (Status s = gradcheck(*package, sig, *inputs, *bindings, seed + 1); !s)
      return s;
  std::optional<ref::ValueData> expected;
  if (options.check) {
    auto values = reference(sig, *inputs, *bindings, progress);
    if (!values)
      return values.status();
    expected = std::move(*values);
  }

  std::vector<rt::TensorRef> inputRefs = refs(*inputs),
                             outputRefs = refs(*outputs);
  auto runOnce = [&]() -> StatusOr<double> {
    if (Status s = poison(*runtime, *outputs); !s)
      return s;
    auto start = runtime->record();
    if (!start)
      return start.status();
    if (Status s = fn->call(inputRefs, outputRefs); !s)
      return s;
    auto end = runtime->record();
    if (!end)
      return end.status();
    return end->millisecondsSince(*start);
  };

  auto first = runOnce();
  if (!first)
    return first.status();
  if (options.saveOutputs)
    if (Status s = saveOutputs(*runtime, *outputs, *options.saveOutputs); !s)
      return s;
  if (expected) {
    if (Status s = transfer(*runtime, *outputs, /*toHost=*/true); !s)
      return s;
    if (Status s = check(sig, *outputs, *expected); !s)
      return s;
  }
  if (options.repeat)
    if (Status s =
            checkRepeatable(*runtime, runOnce, *outputs, *options.repeat);
        !s)
      return s;
  if (!options.bench) {
    if (!options.check && !options.gradcheck && !options.repeat)
      std::printf("%s: ran in %.3f ms\n", sig.name.c_str(), *first);
    return Status::ok();
  }

  int64_t iters = options.iters.value_or(20);
  if (Status s = bench(runOnce, iters); !s || !options.profile)
    return s;
  return profile(*fn, inputRefs, outputRefs, iters);
}

} // namespace

int main(int argc, char **argv) {
  auto options = parseArgs(argc, argv);
  if (!options) {
    std::fprintf(stderr, "attn-run: error: %s\n%s",
                 options.status().message().c_str(), kUsage);
    return 1;
  }
  if (!*options)
    return 0;
  const Options &opts = **options;
  // Host allocations of inputs, outputs and the fp64 reference may fail;
  // say so instead of aborting.
  Status status = [&] {
    try {
      return opts.list   ? listFunctions(opts.package)
             : opts.info ? describePackage(opts.package)
                         : runFunction(opts);
    } catch (const std::bad_alloc &) {
      return Status::error("out of host memory");
    }
  }();
  if (!status) {
    std::fprintf(stderr, "attn-run: error: %s\n", status.message().c_str());
    return 1;
  }
  return 0;
}
