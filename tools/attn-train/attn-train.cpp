//===- attn-train.cpp - Train a model with its compiled step function -----===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
//   attn-train MODEL.attnpkg --data tokens.bin --steps 50 --batch 8 --seq 64
//
// runs a package's training step (attn-derive-train-step's `<f>_step`) on
// batches from a token file: it keeps the f32 master weights and AdamW's
// moments on the device, feeds the learning rate of a warmup + cosine
// schedule and the loss scale of a GradScaler-style scaler as step inputs,
// prints a progress line per interval, writes a metrics JSONL line per step
// and writes checkpoints it can resume from bitwise.
//
//===----------------------------------------------------------------------===//

#include "attnc/package/Workspace.h"
#include "attnc/runtime/Runtime.h"
#include "attnc/runtime/TokenData.h"
#include "attnc/train/Checkpoint.h"
#include "attnc/train/LossScaler.h"
#include "attnc/train/Schedule.h"
#include "attnc_runtime.h"
#include "lib/reference/Progress.h"

#include <getopt.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <iomanip>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace attnc;

namespace {

const char *const kUsage =
    R"(usage: attn-train PACKAGE --data FILE --steps N --batch B --seq N [options]

  --fn NAME            the step function (default: the package's one
                       function whose name ends in _step)
  --data FILE          token file (docs/runtime.md: header or .json sidecar)
  --steps N            optimizer steps of the whole run
  --batch B            sequences per step
  --seq N              tokens per sequence
  --micro-batches M    micro-batches of --batch sequences per step, their
                       gradients summed (<f>_accumulate, then <f>_apply)
  --sequential         read windows in file order (default: a seeded
                       permutation per epoch)
  --lr X               peak learning rate (default 3e-4)
  --min-lr X           learning rate at the end of the cosine (default lr/10)
  --warmup N           linear warmup steps (default 0)
  --device DEV         host (default) or cuda:N
  --seed S             seed of the initial weights and the data order
                       (default 1)
  --init-std X         initial weights of rank >= 2 are N(0, X^2) (default
                       0.02); rank-1 weights (norm gains) start at 1
  --init FILE          take initial weights from a safetensors file instead
  --loss-scale KIND    none (default) or dynamic: GradScaler's scale
                       (init 65536, x2 after 2000 clean steps, x0.5 and a
                       skipped step on an overflow)
  --loss-scale-init X  initial dynamic loss scale
  --growth-interval N  clean steps before the dynamic scale grows
  --checkpoint-dir D   write checkpoints to D
  --checkpoint-every N steps between checkpoints (default: only the last)
  --keep-checkpoints N newest checkpoints kept (default 3; 0: all)
  --resume             continue from D's latest checkpoint
  --log-every N        steps between progress lines (default 10)
  --val-data FILE      a validation token file: every --eval-every steps
                       the mean loss of its first --eval-batches batches
                       at the current weights (<f>_eval), printed and in
                       the metrics as val_loss
  --eval-every N       steps between validations (default: --log-every)
  --eval-batches K     batches of --batch x --seq tokens a validation
                       reads from the start of the file (default 8)
  --metrics FILE       one JSON line per step (step, loss, lr, ...)
  --peak-tflops X      the device's peak, for MFU (default: 989 on cuda,
                       none on the host)
  --exit-after N       stop at once after step N without a checkpoint, as
                       a kill would (for testing resume)
  --overlap WHEN       queue each step before the step before it is done,
                       so that the device does not wait for the host
                       between steps: auto (default: on a cuda device
                       without a dynamic loss scale, whose next scale
                       depends on the step before), on or off

SIGINT or SIGTERM stops the run after the steps in flight, with a checkpoint
when --checkpoint-dir is given; the exit status is then 2.
  --help               print this help
)";

struct Options {
  std::string package, function, data, valData, device = "host", init, metrics;
  std::string checkpointDir, lossScale = "none", overlap = "auto";
  int64_t steps = 0, batch = 0, seq = 0, microBatches = 1, warmup = 0;
  int64_t checkpointEvery = 0, keepCheckpoints = 3, logEvery = 10;
  int64_t growthInterval = 2000, exitAfter = -1, evalEvery = 0, evalBatches = 8;
  uint64_t seed = 1;
  double lr = 3e-4, minLr = -1, initStd = 0.02, lossScaleInit = 65536;
  double peakTflops = -1;
  bool sequential = false, resume = false;
};

/// One command-line option: its name and where its value goes.
struct OptionSpec {
  const char *name;
  std::function<Status(Options &, const char *)> apply;
};

Status parseInteger(const char *text, const char *name, int64_t least,
                    int64_t &out) {
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text, &end, 10);
  if (!*text || *end || errno || value < least)
    return Status::error(std::string("--") + name + " must be an integer >= " +
                         std::to_string(least) + ", got '" + text + "'");
  out = value;
  return Status::ok();
}

Status parseReal(const char *text, const char *name, double &out) {
  char *end = nullptr;
  double value = std::strtod(text, &end);
  if (!*text || *end || !std::isfinite(value) || value < 0)
    return Status::error(std::string("--") + name +
                         " must be a finite number >= 0, got '" + text + "'");
  out = value;
  return Status::ok();
}

template <typename T>
OptionSpec integer(const char *name, T Options::*field, int64_t least) {
  return {name, [=](Options &o, const char *v) {
            int64_t value = 0;
            Status s = parseInteger(v, name, least, value);
            o.*field = static_cast<T>(value);
            return s;
          }};
}
OptionSpec real(const char *name, double Options::*field) {
  return {name, [=](Options &o, const char *v) {
            return parseReal(v, name, o.*field);
          }};
}
OptionSpec text(const char *name, std::string Options::*field) {
  return {name, [=](Options &o, const char *v) {
            o.*field = v;
            return Status::ok();
          }};
}
OptionSpec flag(const char *name, bool Options::*field) {
  return {name, [=](Options &o, const char *) {
            o.*field = true;
            return Status::ok();
          }};
}

const std::vector<OptionSpec> &optionSpecs() {
  static const std::vector<OptionSpec> specs = {
      text("fn", &Options::function),
      text("data", &Options::data),
      integer("steps", &Options::steps, 1),
      integer("batch", &Options::batch, 1),
      integer("seq", &Options::seq, 1),
      integer("micro-batches", &Options::microBatches, 1),
      flag("sequential", &Options::sequential),
      real("lr", &Options::lr),
      real("min-lr", &Options::minLr),
      integer("warmup", &Options::warmup, 0),
      text("device", &Options::device),
      integer("seed", &Options::seed, 0),
      real("init-std", &Options::initStd),
      text("init", &Options::init),
      text("loss-scale", &Options::lossScale),
      real("loss-scale-init", &Options::lossScaleInit),
      integer("growth-interval", &Options::growthInterval, 1),
      text("checkpoint-dir", &Options::checkpointDir),
      integer("checkpoint-every", &Options::checkpointEvery, 0),
      integer("keep-checkpoints", &Options::keepCheckpoints, 0),
      flag("resume", &Options::resume),
      integer("log-every", &Options::logEvery, 1),
      text("metrics", &Options::metrics),
      text("val-data", &Options::valData),
      integer("eval-every", &Options::evalEvery, 1),
      integer("eval-batches", &Options::evalBatches, 1),
      real("peak-tflops", &Options::peakTflops),
      integer("exit-after", &Options::exitAfter, 0),
      text("overlap", &Options::overlap),
  };
  return specs;
}

Status checkOptions(Options &o) {
  if (o.data.empty() || !o.steps || !o.batch || !o.seq)
    return Status::error("--data, --steps, --batch and --seq are required");
  if (o.lossScale != "none" && o.lossScale != "dynamic")
    return Status::error("--loss-scale must be none or dynamic, got '" +
                         o.lossScale + "'");
  if (o.resume && o.checkpointDir.empty())
    return Status::error("--resume needs --checkpoint-dir");
  if (o.valData.empty() && o.evalEvery)
    return Status::error("--eval-every needs --val-data");
  if (!o.evalEvery)
    o.evalEvery = o.logEvery;
  if (o.overlap != "auto" && o.overlap != "on" && o.overlap != "off")
    return Status::error("--overlap must be auto, on or off, got '" +
                         o.overlap + "'");
  if (o.overlap == "on" && o.lossScale == "dynamic")
    return Status::error("--overlap on needs a static loss scale: a dynamic "
                         "scale for a step depends on the step before");
  if (o.overlap == "auto")
    o.overlap = o.device != "host" && o.lossScale != "dynamic" ? "on" : "off";
  if (o.minLr < 0)
    o.minLr = o.lr / 10;
  if (o.peakTflops < 0)
    o.peakTflops = o.device == "host" ? 0 : 989;
  return Status::ok();
}

/// Parses the command line; nullopt means --help was printed.
StatusOr<std::optional<Options>> parseArgs(int argc, char **argv) {
  const std::vector<OptionSpec> &specs = optionSpecs();
  std::vector<struct option> longOptions;
  for (size_t i = 0; i < specs.size(); ++i) {
    bool isFlag = !std::strcmp(specs[i].name, "sequential") ||
                  !std::strcmp(specs[i].name, "resume");
    longOptions.push_back({specs[i].name,
                           isFlag ? no_argument : required_argument, nullptr,
                           static_cast<int>(256 + i)});
  }
  longOptions.push_back({"help", no_argument, nullptr, 'h'});
  longOptions.push_back({nullptr, 0, nullptr, 0});
  Options options;
  opterr = 0;
  for (int id; (id = getopt_long(argc, argv, ":h", longOptions.data(),
                                 nullptr)) != -1;) {
    if (id == 'h') {
      std::fputs(kUsage, stdout);
      return std::optional<Options>();
    }
    if (id == '?' || id == ':')
      return Status::error(
          std::string(id == ':' ? "missing value for " : "unknown option ") +
          argv[optind - 1]);
    if (Status s = specs[id - 256].apply(options, optarg); !s)
      return s;
  }
  if (optind + 1 != argc)
    return Status::error(optind == argc ? "no package given"
                                        : "more than one package given");
  options.package = argv[optind];
  if (Status s = checkOptions(options); !s)
    return s;
  return std::optional<Options>(options);
}

//===----------------------------------------------------------------------===//
// The training functions
//===----------------------------------------------------------------------===//

/// Tensors by the names of a function's inputs and outputs.
using NamedRefs = std::map<std::string, rt::TensorRef>;

/// Calls `fn` with the tensor of each input and output name; every name
/// of its signature must be in the maps.
Status callByName(const rt::Function &fn, const NamedRefs &in,
                  const NamedRefs &out) {
  auto gather = [&](const std::vector<pkg::TensorSig> &sigs,
                    const NamedRefs &refs,
                    const char *what) -> StatusOr<std::vector<rt::TensorRef>> {
    std::vector<rt::TensorRef> ordered;
    for (const pkg::TensorSig &sig : sigs) {
      auto found = refs.find(sig.name);
      if (found == refs.end())
        return Status::error("function '" + fn.name() + "' has " + what + " '" +
                             sig.name +
                             "', which attn-train does not "
                             "provide (attn-derive-train-step names them)");
      ordered.push_back(found->second);
    }
    return ordered;
  };
  auto inputs = gather(fn.signature().inputs, in, "input");
  auto outputs = gather(fn.signature().outputs, out, "output");
  if (!inputs || !outputs)
    return !inputs ? inputs.status() : outputs.status();
  return fn.call(*inputs, *outputs);
}

/// The functions attn-derive-train-step emits for one model: <f>_step,
/// <f>_accumulate and <f>_apply for micro-batches, <f>_eval for validation.
struct TrainFunctions {
  rt::Function step;
  std::optional<rt::Function> accumulate, apply, eval;
};

StatusOr<TrainFunctions> findFunctions(const rt::Package &package,
                                       std::string name, bool microBatches,
                                       bool evaluates) {
  if (name.empty()) {
    std::vector<std::string> steps;
    for (const std::string &fn : package.functionNames())
      if (fn.size() > 5 && fn.compare(fn.size() - 5, 5, "_step") == 0)
        steps.push_back(fn);
    if (steps.size() != 1)
      return Status::error(std::to_string(steps.size()) +
                           " functions end in _step; choose one with --fn");
    name = steps[0];
  }
  auto step = package.function(name);
  if (!step)
    return step.status();
  TrainFunctions functions{*step, {}, {}, {}};
  std::string base = name.substr(0, name.size() - 5);
  if (evaluates) {
    auto eval = package.function(base + "_eval");
    if (!eval)
      return eval.status().withContext(
          "--val-data (a package from an attnc before " + base +
          "_eval: compile it again)");
    functions.eval = *eval;
  }
  if (!microBatches)
    return functions;
  auto accumulate = package.function(base + "_accumulate");
  auto apply = package.function(base + "_apply");
  if (!accumulate || !apply)
    return (!accumulate ? accumulate.status() : apply.status())
        .withContext("--micro-batches");
  functions.accumulate = *accumulate;
  functions.apply = *apply;
  return functions;
}

/// The parameters a training step holds in its flat inputs params, m and
/// v (attn-derive-train-step).
StatusOr<std::vector<pkg::Segment>> parametersOf(const pkg::Function &step) {
  auto flat = [&](const char *name) {
    return std::find(step.flatValues.begin(), step.flatValues.end(), name) !=
           step.flatValues.end();
  };
  if (!flat("params") || !flat("m") || !flat("v"))
    return Status::error("function '" + step.name +
                         "' is not a training step: it has no flat inputs "
                         "params, m and v (attn-derive-train-step)");
  return step.segments;
}

//===----------------------------------------------------------------------===//
// Device state
//===----------------------------------------------------------------------===//

/// An f32 tensor in device memory.
struct DeviceTensor {
  std::shared_ptr<void> data;
  std::vector<int64_t> shape;
  int64_t elements = 0;

  rt::TensorRef ref() const { return {data.get(), pkg::DType::F32, shape, {}}; }
  /// Element `k` as a tensor<f32>.
  rt::TensorRef scalar(int64_t k) const {
    return {static_cast<float *>(data.get()) + k, pkg::DType::F32, {}, {}};
  }
};

StatusOr<DeviceTensor> allocateF32(const rt::Runtime &rt,
                                   std::vector<int64_t> shape) {
  DeviceTensor t;
  t.shape = std::move(shape);
  t.elements = 1;
  for (int64_t d : t.shape)
    t.elements *= d;
  auto data = rt.allocate(std::max<int64_t>(t.elements, 1) * 4);
  if (!data)
    return data.status();
  t.data = std::shared_ptr<void>(*data, [rt](void *p) { (void)rt.free(p); });
  return t;
}

/// Copies `t`'s elements from `values` (host memory) to the device.
Status upload(const rt::Runtime &rt, DeviceTensor &t, const float *values) {
  return rt.copy(t.data.get(), values, t.elements * 4,
                 rt::CopyKind::HostToDevice);
}

/// Copies `t`'s elements to `values` (host memory).
Status download(const rt::Runtime &rt, const DeviceTensor &t, float *values) {
  return rt.copy(values, t.data.get(), t.elements * 4,
                 rt::CopyKind::DeviceToHost);
}

/// `count` floats of host memory that copyAsync reads and writes.
StatusOr<std::shared_ptr<float>> allocateHostF32(const rt::Runtime &rt,
                                                 int64_t count) {
  auto data = rt.allocateHost(static_cast<size_t>(count) * 4);
  if (!data)
    return data.status();
  return std::shared_ptr<float>(static_cast<float *>(*data),
                                [rt](float *p) { (void)rt.freeHost(p); });
}

/// splitmix64: the initial weights are the same on every platform.
uint64_t splitmix(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Writes a parameter's initial weights to `to`: N(0, std^2) by Box-Muller
/// for a weight of rank >= 2, ones otherwise; the stream of parameter
/// `index` depends only on the seed and the index.
void fillInitialValues(const std::vector<int64_t> &shape, int64_t elements,
                       uint64_t seed, uint64_t index, double std, float *to) {
  if (shape.size() < 2) {
    std::fill(to, to + elements, 1.0f);
    return;
  }
  uint64_t state = seed ^ (0x5851f42d4c957f2dULL * (index + 1));
  for (int64_t i = 0; i < elements; i += 2) {
    double u1 = (double(splitmix(state) >> 11) + 1) * 0x1.0p-53;
    double u2 = double(splitmix(state) >> 11) * 0x1.0p-53;
    double r = std::sqrt(-2 * std::log(u1)) * std;
    to[i] = float(r * std::cos(2 * M_PI * u2));
    if (i + 1 < elements)
      to[i + 1] = float(r * std::sin(2 * M_PI * u2));
  }
}

/// Copies a parameter's weights from `file` (tensor `name`, f32 of
/// `shape`) to `to`.
Status copyFromFile(const safetensors::File &file, const std::string &name,
                    const std::vector<int64_t> &shape, float *to) {
  const safetensors::Tensor *given = file.find(name);
  if (!given)
    return Status::error("no tensor '" + name + "'");
  if (given->shape != shape || given->dtype != pkg::DType::F32)
    return Status::error("tensor '" + name +
                         "' must be f32 of the parameter's shape");
  std::memcpy(to, given->data.data(), given->data.size());
  return Status::ok();
}

/// The training state on the device, flat (each parameter's elements at
/// its segment of its chunk): masters and moments in two sets, read from
/// one and written to the other, which then swap; and, with micro-batches,
/// two f32 gradient sums. On the host the chunks lie one after another.
/// Checkpoints hold a tensor per parameter and kind.
class DeviceState {
public:
  DeviceState(rt::Runtime rt, std::vector<pkg::Segment> params)
      : rt(std::move(rt)), params(std::move(params)) {
    for (const pkg::Segment &segment : this->params) {
      if (segment.chunk == static_cast<int64_t>(chunkBegin.size()))
        chunkBegin.push_back(total);
      total = chunkBegin[segment.chunk] + segment.offset + elementsOf(segment);
    }
  }

  /// The masters and moments in two sets, or one where the functions
  /// update them in place (pkg::Function::updates); the gradient sums
  /// alike.
  Status allocate(bool gradientSums, bool inPlace, bool sumsInPlace);
  Status initialize(const Options &o);
  Status restore(const std::vector<safetensors::Tensor> &tensors);
  StatusOr<std::vector<safetensors::Tensor>> snapshot() const;
  Status zeroSums();
  /// Adds the state a function reads to `in` and what it writes to `out`:
  /// the masters (params), the moments (m, v, new_*) and the gradient sums
  /// (grad, new_grad), each chunk's by its name.
  void bind(NamedRefs &in, NamedRefs &out, bool moments, bool sums) const;
  void swapMoments() { current ^= 1; }
  void swapSums() { currentSums ^= 1; }
  int64_t parameters() const { return total; }
  int64_t bytes() const;
  /// The names of `kinds`' chunks.
  std::vector<std::string>
  names(std::initializer_list<const char *> kinds) const {
    std::vector<std::string> all;
    for (const char *kind : kinds)
      for (size_t c = 0; c < chunks(); ++c)
        all.push_back(pkg::flatStateName(kind, c));
    return all;
  }

private:
  /// Checkpoint names: masters "X", moments "m_X" and "v_X".
  static constexpr const char *kPrefixes[3] = {"", "m_", "v_"};
  static int64_t elementsOf(const pkg::Segment &segment) {
    int64_t count = 1;
    for (int64_t extent : segment.shape)
      count *= extent;
    return count;
  }
  size_t chunks() const { return chunkBegin.size(); }
  int64_t chunkElements(size_t chunk) const {
    return (chunk + 1 < chunks() ? chunkBegin[chunk + 1] : total) -
           chunkBegin[chunk];
  }
  /// Where `segment` starts in the host's copy of a kind of state.
  int64_t hostOffset(const pkg::Segment &segment) const {
    return chunkBegin[segment.chunk] + segment.offset;
  }
  Status uploadSet(const std::vector<float> (&values)[3]);

  rt::Runtime rt;
  std::vector<pkg::Segment> params;
  /// Where each chunk starts in the host's copy, and the elements in all.
  std::vector<int64_t> chunkBegin;
  int64_t total = 0;
  /// sets[s][k * chunks() + c]: k = masters, m, v; sums[s][c].
  std::vector<DeviceTensor> sets[2], sums[2];
  int current = 0, currentSums = 0;
};

Status DeviceState::allocate(bool gradientSums, bool inPlace,
                             bool sumsInPlace) {
  for (int s = 0; s < 2; ++s)
    for (int k = 0; k < (gradientSums ? 4 : 3); ++k)
      for (size_t c = 0; c < chunks(); ++c) {
        std::vector<DeviceTensor> &set = k < 3 ? sets[s] : sums[s];
        // Updated in place, the second set is the first.
        if (s == 1 && (k < 3 ? inPlace : sumsInPlace)) {
          set.push_back(k < 3 ? sets[0][k * chunks() + c] : sums[0][c]);
          continue;
        }
        auto t = allocateF32(rt, {chunkElements(c)});
        if (!t)
          return t.status();
        set.push_back(*t);
      }
  return Status::ok();
}

Status DeviceState::uploadSet(const std::vector<float> (&values)[3]) {
  for (int k = 0; k < 3; ++k)
    for (size_t c = 0; c < chunks(); ++c)
      if (Status s = upload(rt, sets[current][k * chunks() + c],
                            values[k].data() + chunkBegin[c]);
          !s)
        return s;
  return Status::ok();
}

Status DeviceState::initialize(const Options &o) {
  std::optional<safetensors::File> file;
  if (!o.init.empty()) {
    auto read = safetensors::readFile(o.init);
    if (!read)
      return read.status();
    file = std::move(*read);
  }
  std::vector<float> values[3] = {std::vector<float>(total),
                                  std::vector<float>(total, 0.0f),
                                  std::vector<float>(total, 0.0f)};
  if (file) {
    for (const pkg::Segment &segment : params)
      if (Status s = copyFromFile(*file, segment.name, segment.shape,
                                  values[0].data() + hostOffset(segment));
          !s)
        return s.withContext("--init " + o.init);
    return uploadSet(values);
  }
  // A parameter a thread: Box-Muller on one core makes ~57M values a
  // second, 46 s for a 2.6B-parameter model.
  Status filled =
      ref::parallelFor(static_cast<int64_t>(params.size()), [&](int64_t p) {
        const pkg::Segment &segment = params[p];
        fillInitialValues(segment.shape, elementsOf(segment), o.seed, p,
                          o.initStd, values[0].data() + hostOffset(segment));
        return Status::ok();
      });
  if (!filled)
    return filled;
  return uploadSet(values);
}

Status DeviceState::restore(const std::vector<safetensors::Tensor> &tensors) {
  safetensors::File file;
  file.tensors = tensors;
  std::vector<float> values[3];
  for (int k = 0; k < 3; ++k) {
    values[k].resize(total);
    for (const pkg::Segment &segment : params)
      if (Status s =
              copyFromFile(file, kPrefixes[k] + segment.name, segment.shape,
                           values[k].data() + hostOffset(segment));
          !s)
        return s.withContext("checkpoint");
  }
  return uploadSet(values);
}

StatusOr<std::vector<safetensors::Tensor>> DeviceState::snapshot() const {
  std::vector<safetensors::Tensor> tensors;
  std::vector<float> values(total);
  for (int k = 0; k < 3; ++k) {
    for (size_t c = 0; c < chunks(); ++c)
      if (Status s = download(rt, sets[current][k * chunks() + c],
                              values.data() + chunkBegin[c]);
          !s)
        return s;
    for (const pkg::Segment &segment : params) {
      safetensors::Tensor out{
          kPrefixes[k] + segment.name, pkg::DType::F32, segment.shape, {}};
      out.data.resize(elementsOf(segment) * 4);
      std::memcpy(out.data.data(), values.data() + hostOffset(segment),
                  out.data.size());
      tensors.push_back(std::move(out));
    }
  }
  return tensors;
}

Status DeviceState::zeroSums() {
  for (const DeviceTensor &t : sums[currentSums])
    if (Status s = rt.fill(t.data.get(), 0, t.elements * 4); !s)
      return s;
  return Status::ok();
}

void DeviceState::bind(NamedRefs &in, NamedRefs &out, bool moments,
                       bool sums) const {
  const char *kinds[3] = {"params", "m", "v"};
  for (int k = 0; k < (moments ? 3 : 1); ++k)
    for (size_t c = 0; c < chunks(); ++c) {
      std::string name = pkg::flatStateName(kinds[k], c);
      in[name] = sets[current][k * chunks() + c].ref();
      if (moments)
        out["new_" + name] = sets[current ^ 1][k * chunks() + c].ref();
    }
  for (size_t c = 0; sums && c < chunks(); ++c) {
    std::string name = pkg::flatStateName("grad", c);
    in[name] = this->sums[currentSums][c].ref();
    out["new_" + name] = this->sums[currentSums ^ 1][c].ref();
  }
}

int64_t DeviceState::bytes() const {
  std::set<const void *> counted;
  int64_t bytes = 0;
  for (const auto *group : {&sets[0], &sets[1], &sums[0], &sums[1]})
    for (const DeviceTensor &t : *group)
      if (counted.insert(t.data.get()).second)
        bytes += t.elements * 4;
  return bytes;
}

//===----------------------------------------------------------------------===//
// The loop
//===----------------------------------------------------------------------===//

/// The workspace of one call of `fn` on batches of `batch` x `seq` tokens:
/// its ids' dims at those extents.
StatusOr<size_t> workspaceOf(const pkg::Function &fn, int64_t batch,
                             int64_t seq) {
  std::map<std::string, int64_t> extents;
  for (const pkg::TensorSig &input : fn.inputs)
    if (input.name == "ids" && input.shape.size() == 2)
      for (size_t d = 0; d < 2; ++d)
        extents[input.shape[d].symbol] = d == 0 ? batch : seq;
  return pkg::workspaceBytesAt(fn, extents);
}

/// What one step reports.
/// Wall-clock seconds from `start` to now.
double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

struct StepReport {
  int64_t step;
  double loss, gradNorm, lr, lossScale, seconds;
  bool skipped;
  /// The part of `seconds` before the host waits for the step's results:
  /// its inputs set and its kernels enqueued (a GPU runs them meanwhile),
  /// so that a host-bound step shows as enqueueSeconds close to seconds.
  double enqueueSeconds = 0;
  /// The validation loss after the step, where one was computed.
  std::optional<double> valLoss = std::nullopt;
};

/// What a step in flight uses: its scalars (lr, step, loss_scale and the
/// micro-batches' loss scale) and results (each micro-batch's loss, then
/// the gradient norm) on the device and their host copies, which the
/// copies at the step's ends read and write.
struct StepSlot {
  DeviceTensor scalars, results;
  std::shared_ptr<float> hostScalars, hostResults;
};

/// A step queued on the device: its report so far, when its enqueue
/// began, and the point after the copy of its results to the host.
struct QueuedStep {
  StepReport report;
  std::chrono::steady_clock::time_point start;
  rt::Event done;
};

class Trainer {
public:
  Trainer(const Options &o, rt::Runtime rt, TrainFunctions functions,
          std::vector<pkg::Segment> params)
      : o(o), rt(rt), functions(std::move(functions)),
        state(rt, std::move(params)) {}

  Status run();

private:
  Status setUp();
  Status resume();
  Status openMetrics();
  Status openValidation();
  /// Queues step `index` (its scalars up, its kernels, its results down).
  StatusOr<QueuedStep> enqueueStep(int64_t index);
  /// Waits for a queued step's results; `previousEnd` is when the step
  /// before it was finished, where its time starts if it was queued before.
  StatusOr<StepReport>
  finishStep(QueuedStep &queued,
             std::chrono::steady_clock::time_point previousEnd);
  Status fusedStep(const StepSlot &slot, NamedRefs &in, NamedRefs &out);
  Status accumulatedStep(const StepSlot &slot, NamedRefs &in, NamedRefs &out);
  /// Whether the run stops to checkpoint, validate or exit once
  /// `stepsDone` steps are done, which no later step may be queued before.
  bool settlesAfter(int64_t stepsDone) const;
  bool validatesAfter(int64_t stepsDone) const;
  /// The mean loss of --eval-batches validation batches at the masters.
  StatusOr<double> validate();
  /// Batches of --batch x --seq tokens, the file's first in order (what
  /// validation reads; training then sets its order and position).
  rt::LoaderOptions firstBatches() const {
    rt::LoaderOptions loading;
    loading.batch = o.batch;
    loading.sequence = o.seq;
    return loading;
  }
  Status checkpoint(int64_t stepsDone);
  /// The end of a run that `signal` stopped after `stepsDone` steps, none
  /// in flight: a checkpoint where --checkpoint-dir asks for one.
  Status stop(int signal, int64_t stepsDone);
  void report(const StepReport &r, double elapsed);
  std::map<std::string, std::string> config() const;

  const Options &o;
  rt::Runtime rt;
  TrainFunctions functions;
  DeviceState state;
  train::LrSchedule schedule;
  train::LossScaler scaler = train::LossScaler::disabled();
  std::unique_ptr<rt::TokenLoader> loader;
  /// The validation file, and its batches' losses on the device and host.
  std::optional<rt::TokenFile> valFile;
  DeviceTensor valLosses;
  std::shared_ptr<float> hostValLosses;
  /// One slot per step in flight (two with --overlap on): two copies a
  /// step, one at each end.
  std::vector<StepSlot> slots;
  int64_t firstStep = 0, startPosition = 0;
  /// The workspace of the largest call a step makes.
  size_t workspaceBytes = 0;
  std::ofstream metrics;
};

std::map<std::string, std::string> Trainer::config() const {
  return {{"package", o.package},
          {"function", functions.step.name()},
          {"batch", std::to_string(o.batch)},
          {"micro_batches", std::to_string(o.microBatches)},
          {"seq", std::to_string(o.seq)},
          {"seed", std::to_string(o.seed)},
          {"order", o.sequential ? "sequential" : "shuffled"},
          {"loss_scale", o.lossScale}};
}

Status Trainer::setUp() {
  schedule = {o.lr, o.minLr, o.warmup, o.steps};
  if (Status s = schedule.verify(); !s)
    return s;
  if (o.lossScale == "dynamic") {
    train::LossScalerOptions options;
    options.initScale = o.lossScaleInit;
    options.growthInterval = o.growthInterval;
    auto created = train::LossScaler::create(options);
    if (!created)
      return created.status();
    scaler = *created;
  }
  // Each function's new state may be its state (in place).
  auto updates = [&](const rt::Function &fn,
                     std::initializer_list<const char *> kinds) {
    const std::map<std::string, std::string> &pairs = fn.signature().updates;
    std::vector<std::string> names = state.names(kinds);
    return std::all_of(names.begin(), names.end(),
                       [&](const std::string &name) {
                         auto found = pairs.find("new_" + name);
                         return found != pairs.end() && found->second == name;
                       });
  };
  bool accumulating = o.microBatches > 1;
  bool inPlace = accumulating ? updates(*functions.apply, {"params", "m", "v"})
                              : updates(functions.step, {"params", "m", "v"});
  bool sumsInPlace = accumulating && updates(*functions.accumulate, {"grad"});
  if (Status s = state.allocate(accumulating, inPlace, sumsInPlace); !s)
    return s;
  std::vector<const rt::Function *> called = {&functions.step};
  if (accumulating)
    called = {&*functions.accumulate, &*functions.apply};
  if (functions.eval)
    called.push_back(&*functions.eval);
  for (const rt::Function *fn : called) {
    auto bytes = workspaceOf(fn->signature(), o.batch, o.seq);
    if (!bytes)
      return bytes.status();
    workspaceBytes = std::max(workspaceBytes, *bytes);
  }
  slots.resize(o.overlap == "on" ? 2 : 1);
  for (StepSlot &slot : slots) {
    auto scalars = allocateF32(rt, {4});
    auto results = allocateF32(rt, {o.microBatches + 1});
    auto hostScalars = allocateHostF32(rt, 4);
    auto hostResults = allocateHostF32(rt, o.microBatches + 1);
    if (!scalars || !results)
      return (!scalars ? scalars : results).status();
    if (!hostScalars || !hostResults)
      return (!hostScalars ? hostScalars : hostResults).status();
    slot = {*scalars, *results, *hostScalars, *hostResults};
  }
  if (functions.eval) {
    auto losses = allocateF32(rt, {o.evalBatches});
    auto hostLosses = allocateHostF32(rt, o.evalBatches);
    if (!losses || !hostLosses)
      return !losses ? losses.status() : hostLosses.status();
    valLosses = *losses;
    hostValLosses = *hostLosses;
  }
  return o.resume ? resume() : state.initialize(o);
}

Status Trainer::resume() {
  auto loaded = train::loadLatestCheckpoint(o.checkpointDir);
  if (!loaded)
    return loaded.status();
  if (!loaded->warning.empty())
    std::fprintf(stderr, "attn-train: warning: %s\n", loaded->warning.c_str());
  for (const auto &[key, value] : config()) {
    auto found = loaded->state.config.find(key);
    std::string saved =
        found == loaded->state.config.end() ? "?" : found->second;
    if (saved != value)
      return Status::error(loaded->path + ": checkpoint was written with " +
                           key + " = '" + saved + "', this run has '" + value +
                           "'");
  }
  if (Status s = scaler.restore(loaded->state.lossScale); !s)
    return s;
  firstStep = loaded->state.step;
  startPosition = loaded->state.samples;
  std::printf("resumed from %s at step %lld\n", loaded->path.c_str(),
              static_cast<long long>(firstStep));
  return state.restore(loaded->tensors);
}

/// One batch through <f>_step.
Status Trainer::fusedStep(const StepSlot &slot, NamedRefs &in, NamedRefs &out) {
  auto batch = loader->next(nullptr);
  if (!batch)
    return batch.status();
  in["ids"] = batch->ids;
  in["labels"] = batch->labels;
  state.bind(in, out, /*moments=*/true, /*sums=*/false);
  out["loss"] = slot.results.scalar(0);
  return callByName(functions.step, in, out);
}

/// --micro-batches batches through <f>_accumulate, then <f>_apply.
Status Trainer::accumulatedStep(const StepSlot &slot, NamedRefs &in,
                                NamedRefs &out) {
  if (Status s = state.zeroSums(); !s)
    return s;
  for (int64_t m = 0; m < o.microBatches; ++m) {
    auto batch = loader->next(nullptr);
    if (!batch)
      return batch.status();
    NamedRefs microIn = {{"ids", batch->ids},
                         {"labels", batch->labels},
                         {"loss_scale", slot.scalars.scalar(3)}};
    NamedRefs microOut = {{"loss", slot.results.scalar(m)}};
    state.bind(microIn, microOut, /*moments=*/false, /*sums=*/true);
    if (Status s = callByName(*functions.accumulate, microIn, microOut); !s)
      return s.withContext("micro-batch " + std::to_string(m + 1));
    state.swapSums();
  }
  state.bind(in, out, /*moments=*/true, /*sums=*/true);
  return callByName(*functions.apply, in, out);
}

StatusOr<QueuedStep> Trainer::enqueueStep(int64_t index) {
  auto start = std::chrono::steady_clock::now();
  const StepSlot &slot = slots[static_cast<size_t>(index) % slots.size()];
  StepReport r{index, 0, 0, schedule.at(index), scaler.scale(), 0, false};
  // The slot's host scalars are free: the step that used them last is done.
  float *scalars = slot.hostScalars.get();
  scalars[0] = float(r.lr);
  scalars[1] = float(index + 1);
  scalars[2] = float(r.lossScale);
  scalars[3] = float(r.lossScale / o.microBatches);
  if (Status s = rt.copyAsync(slot.scalars.data.get(), scalars, 16,
                              rt::CopyKind::HostToDevice);
      !s)
    return s;
  NamedRefs in = {{"lr", slot.scalars.scalar(0)},
                  {"step", slot.scalars.scalar(1)},
                  {"loss_scale", slot.scalars.scalar(2)}};
  NamedRefs out = {{"grad_norm", slot.results.scalar(o.microBatches)}};
  Status s = o.microBatches > 1 ? accumulatedStep(slot, in, out)
                                : fusedStep(slot, in, out);
  if (s)
    s = rt.copyAsync(slot.hostResults.get(), slot.results.data.get(),
                     slot.results.elements * 4, rt::CopyKind::DeviceToHost);
  auto done = s ? rt.record() : StatusOr<rt::Event>(s);
  if (!done)
    return done.status();
  // The next step reads what this one writes.
  state.swapMoments();
  r.enqueueSeconds = secondsSince(start);
  return QueuedStep{r, start, *done};
}

StatusOr<StepReport>
Trainer::finishStep(QueuedStep &queued,
                    std::chrono::steady_clock::time_point previousEnd) {
  if (Status s = queued.done.wait(); !s)
    return s;
  StepReport r = queued.report;
  const float *values =
      slots[static_cast<size_t>(r.step) % slots.size()].hostResults.get();
  // The mean of the micro-batches' losses (one for a fused step).
  for (int64_t m = 0; m < o.microBatches; ++m)
    r.loss += values[m];
  r.loss /= double(o.microBatches);
  r.gradNorm = values[o.microBatches];
  // The step's kernels kept the old state when the norm is not finite.
  r.skipped = !std::isfinite(r.gradNorm);
  scaler.update(!r.skipped);
  // A step queued while the one before ran takes the time from that one's
  // end: the steps' times add up to the run's.
  r.seconds = secondsSince(std::max(queued.start, previousEnd));
  return r;
}

bool Trainer::settlesAfter(int64_t stepsDone) const {
  bool checkpoints =
      !o.checkpointDir.empty() &&
      ((o.checkpointEvery && stepsDone % o.checkpointEvery == 0) ||
       stepsDone == o.steps);
  return checkpoints || validatesAfter(stepsDone) || o.exitAfter == stepsDone;
}

bool Trainer::validatesAfter(int64_t stepsDone) const {
  return valFile && (stepsDone % o.evalEvery == 0 || stepsDone == o.steps);
}

/// The same batches every time (the file's first, in order), so that the
/// losses of a run compare.
StatusOr<double> Trainer::validate() {
  auto batches = rt::TokenLoader::create(rt, *valFile, firstBatches());
  if (!batches)
    return batches.status();
  for (int64_t k = 0; k < o.evalBatches; ++k) {
    auto batch = (*batches)->next(nullptr);
    if (!batch)
      return batch.status();
    NamedRefs in = {{"ids", batch->ids}, {"labels", batch->labels}};
    NamedRefs out = {{"loss", valLosses.scalar(k)}};
    state.bind(in, out, /*moments=*/false, /*sums=*/false);
    if (Status s = callByName(*functions.eval, in, out); !s)
      return s.withContext("validation batch " + std::to_string(k + 1));
  }
  if (Status s =
          rt.copyAsync(hostValLosses.get(), valLosses.data.get(),
                       valLosses.elements * 4, rt::CopyKind::DeviceToHost);
      !s)
    return s;
  auto done = rt.record();
  if (!done)
    return done.status();
  if (Status s = done->wait(); !s)
    return s;
  double sum = 0;
  for (int64_t k = 0; k < o.evalBatches; ++k)
    sum += hostValLosses.get()[k];
  return sum / double(o.evalBatches);
}

Status Trainer::checkpoint(int64_t stepsDone) {
  auto tensors = state.snapshot();
  if (!tensors)
    return tensors.status();
  train::TrainState saved;
  saved.step = stepsDone;
  saved.samples =
      startPosition + (stepsDone - firstStep) * o.batch * o.microBatches;
  saved.rng = {o.seed, 0};
  saved.lossScale = scaler.state();
  saved.config = config();
  return train::saveCheckpoint(o.checkpointDir, saved, *tensors,
                               static_cast<int>(o.keepCheckpoints));
}

/// `value` as JSON, which has no NaN or infinity: null for those.
std::string jsonNumber(double value) {
  if (!std::isfinite(value))
    return "null";
  std::ostringstream out;
  out << std::setprecision(9) << value;
  return out.str();
}

void Trainer::report(const StepReport &r, double elapsed) {
  double tokens = double(o.batch) * o.microBatches * o.seq;
  double tokensPerSecond = tokens / r.seconds;
  double mfu = o.peakTflops > 0 ? 6.0 * state.parameters() * tokensPerSecond /
                                      (o.peakTflops * 1e12)
                                : 0;
  // 9 significant digits: an f32 reads back as the same number.
  if (metrics.is_open()) {
    metrics << std::setprecision(9) << "{\"step\": " << r.step + 1
            << ", \"loss\": " << jsonNumber(r.loss) << ", \"lr\": " << r.lr
            << ", \"grad_norm\": " << jsonNumber(r.gradNorm)
            << ", \"loss_scale\": " << r.lossScale
            << ", \"skipped\": " << (r.skipped ? "true" : "false")
            << ", \"tokens_per_s\": " << tokensPerSecond << ", \"mfu\": " << mfu
            << ", \"step_seconds\": " << r.seconds
            << ", \"enqueue_seconds\": " << r.enqueueSeconds
            << ", \"seconds\": " << elapsed;
    if (r.valLoss)
      metrics << ", \"val_loss\": " << jsonNumber(*r.valLoss);
    metrics << "}\n";
  }
  bool last = r.step + 1 == o.steps;
  if ((r.step + 1) % o.logEvery && !last && !r.skipped && !r.valLoss)
    return;
  double done = double(r.step + 1 - firstStep);
  double eta = elapsed / done * double(o.steps - r.step - 1);
  std::printf("step %lld/%lld | loss %.4f | lr %.3g | grad norm %.3g%s | "
              "%.0f tok/s",
              static_cast<long long>(r.step + 1),
              static_cast<long long>(o.steps), r.loss, r.lr, r.gradNorm,
              r.skipped ? " (skipped)" : "", tokensPerSecond);
  if (mfu > 0)
    std::printf(" | mfu %.1f%%", 100 * mfu);
  if (scaler.enabled())
    std::printf(" | scale %g", double(scaler.scale()));
  if (r.valLoss)
    std::printf(" | val loss %.4f", *r.valLoss);
  std::printf(" | state %.1f MiB | workspace %.1f MiB | eta %.0f s\n",
              state.bytes() / 1048576.0, workspaceBytes / 1048576.0, eta);
  std::fflush(stdout);
}

/// The lines of a metrics file up to step `last`: what a resumed run keeps
/// of the run it continues (the steps after its checkpoint run again).
std::vector<std::string> metricsUpTo(const std::string &path, int64_t last) {
  std::ifstream in(path);
  std::vector<std::string> kept;
  const std::string prefix = "{\"step\": ";
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0 &&
        std::strtoll(line.c_str() + prefix.size(), nullptr, 10) <= last)
      kept.push_back(line);
  return kept;
}

Status Trainer::openMetrics() {
  if (o.metrics.empty())
    return Status::ok();
  std::vector<std::string> kept =
      o.resume ? metricsUpTo(o.metrics, firstStep) : std::vector<std::string>();
  metrics.open(o.metrics, std::ios::trunc);
  for (const std::string &line : kept)
    metrics << line << "\n";
  if (!metrics)
    return Status::error(o.metrics + ": cannot write the metrics");
  return Status::ok();
}

/// The signal that asked the run to stop (SIGINT, SIGTERM), 0 while none
/// has: the steps in flight finish and are checkpointed first.
volatile std::sig_atomic_t gStopSignal = 0;

/// A second signal of the kind kills at once.
void requestStop(int signal) {
  gStopSignal = signal;
  std::signal(signal, SIG_DFL);
}

/// The error a run stopped by `signal` after `steps` steps ends with.
Status stoppedBy(int signal, int64_t steps) {
  return Status::error(std::string("by ") + strsignal(signal) + " after step " +
                       std::to_string(steps) +
                       " (checkpointed if --checkpoint-dir was given; "
                       "--resume continues)");
}

/// The file's tokens must be ids the model has rows for: a token past the
/// embedding table would be read out of its bounds.
/// The token file at `path`, whose tokens the model (`step`'s ids and
/// labels) must have rows for.
StatusOr<rt::TokenFile> openTokens(const std::string &path,
                                   const pkg::Function &step) {
  auto file = rt::TokenFile::open(path);
  if (!file)
    return file.status();
  for (const pkg::TensorSig &sig : step.inputs)
    if ((sig.name == "ids" || sig.name == "labels") && sig.indexBound &&
        file->vocabSize() > *sig.indexBound)
      return Status::error(file->path() + ": its vocabulary of " +
                           std::to_string(file->vocabSize()) +
                           " tokens is larger than the model's " +
                           std::to_string(*sig.indexBound) + " (input '" +
                           sig.name + "' of " + step.name + ")");
  return file;
}

Status Trainer::stop(int signal, int64_t stepsDone) {
  if (!o.checkpointDir.empty())
    if (Status s = checkpoint(stepsDone); !s)
      return s;
  return stoppedBy(signal, stepsDone);
}

/// --val-data's file.
Status Trainer::openValidation() {
  if (o.valData.empty())
    return Status::ok();
  auto opened = openTokens(o.valData, functions.step.signature());
  if (!opened)
    return opened.status();
  // A file too short for a batch fails now, not after the first steps.
  if (auto probe = rt::TokenLoader::create(rt, *opened, firstBatches()); !probe)
    return probe.status();
  valFile = *opened;
  return Status::ok();
}

Status Trainer::run() {
  if (Status s = setUp(); !s)
    return s;
  auto file = openTokens(o.data, functions.step.signature());
  if (!file)
    return file.status();
  if (Status s = openValidation(); !s)
    return s.withContext("--val-data");
  rt::LoaderOptions loading = firstBatches();
  loading.shuffle = !o.sequential;
  loading.seed = o.seed;
  loading.position = startPosition;
  auto created = rt::TokenLoader::create(rt, *file, loading);
  if (!created)
    return created.status();
  loader = std::move(*created);
  if (Status s = openMetrics(); !s)
    return s;
  std::printf(
      "%s: %lld parameters, %lld steps of %lld x %lld x %lld tokens "
      "on %s\n",
      functions.step.name().c_str(), static_cast<long long>(state.parameters()),
      static_cast<long long>(o.steps), static_cast<long long>(o.microBatches),
      static_cast<long long>(o.batch), static_cast<long long>(o.seq),
      rt.device().c_str());
  std::fflush(stdout);
  auto start = std::chrono::steady_clock::now();
  auto previousEnd = start;
  std::deque<QueuedStep> queued;
  int64_t next = firstStep;
  while (!queued.empty() || next < o.steps) {
    // With --overlap on the next step is queued before the one in flight
    // is done, unless the run stops after that one.
    while (next < o.steps && !gStopSignal && queued.size() < slots.size() &&
           (queued.empty() || !settlesAfter(next))) {
      auto step = enqueueStep(next);
      if (!step)
        return step.status().withContext("step " + std::to_string(next + 1));
      queued.push_back(*step);
      ++next;
    }
    // A signal before the next step was queued: nothing is in flight.
    if (queued.empty())
      return stop(gStopSignal, next);
    int64_t number = queued.front().report.step + 1;
    auto r = finishStep(queued.front(), previousEnd);
    queued.pop_front();
    if (!r)
      return r.status().withContext("step " + std::to_string(number));
    previousEnd = std::chrono::steady_clock::now();
    // Nothing is in flight after a step the run validates after.
    if (queued.empty() && validatesAfter(number)) {
      auto loss = validate();
      if (!loss)
        return loss.status().withContext("validation after step " +
                                         std::to_string(number));
      r->valLoss = *loss;
    }
    report(*r, secondsSince(start));
    if (o.exitAfter == number) {
      metrics.flush();
      std::fflush(stdout);
      std::_Exit(3);
    }
    // A signal stops the run once the steps in flight are done.
    if (!queued.empty())
      continue;
    if (int signal = gStopSignal)
      return stop(signal, number);
    if (settlesAfter(number) && !o.checkpointDir.empty())
      if (Status s = checkpoint(number); !s)
        return s;
  }
  return Status::ok();
}

Status trainModel(const Options &o) {
  auto rt = rt::Runtime::open(o.device);
  if (!rt)
    return rt.status();
  auto package = rt->load(o.package);
  if (!package)
    return package.status();
  auto functions = findFunctions(*package, o.function, o.microBatches > 1,
                                 !o.valData.empty());
  if (!functions)
    return functions.status();
  auto params = parametersOf(functions->step.signature());
  if (!params)
    return params.status();
  return Trainer(o, *rt, *functions, *params).run();
}

} // namespace

int main(int argc, char **argv) {
  auto options = parseArgs(argc, argv);
  if (!options) {
    std::fprintf(stderr, "attn-train: error: %s\n",
                 options.status().message().c_str());
    return 1;
  }
  if (!*options)
    return 0;
  // From the start: a signal during set-up stops the run after its first
  // step, which is then checkpointed, rather than killing it.
  std::signal(SIGINT, requestStop);
  std::signal(SIGTERM, requestStop);
  if (Status s = trainModel(**options); !s) {
    std::fprintf(stderr, "attn-train: %s %s\n",
                 gStopSignal ? "stopped" : "error:", s.message().c_str());
    return gStopSignal ? 2 : 1;
  }
  return 0;
}
