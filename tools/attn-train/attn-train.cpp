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

#include "attnc/runtime/Runtime.h"
#include "attnc/runtime/TokenData.h"
#include "attnc/train/Checkpoint.h"
#include "attnc/train/LossScaler.h"
#include "attnc/train/Schedule.h"
#include "attnc_runtime.h"

#include <getopt.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iomanip>
#include <optional>
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
  --micro-batches M    micro-batches per step (only 1 yet)
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
  --metrics FILE       one JSON line per step (step, loss, lr, ...)
  --peak-tflops X      the device's peak, for MFU (default: 989 on cuda,
                       none on the host)
  --exit-after N       stop at once after step N without a checkpoint, as
                       a kill would (for testing resume)
  --help               print this help
)";

struct Options {
  std::string package, function, data, device = "host", init, metrics;
  std::string checkpointDir, lossScale = "none";
  int64_t steps = 0, batch = 0, seq = 0, microBatches = 1, warmup = 0;
  int64_t checkpointEvery = 0, keepCheckpoints = 3, logEvery = 10;
  int64_t growthInterval = 2000, exitAfter = -1;
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
      real("peak-tflops", &Options::peakTflops),
      integer("exit-after", &Options::exitAfter, 0),
  };
  return specs;
}

Status checkOptions(Options &o) {
  if (o.data.empty() || !o.steps || !o.batch || !o.seq)
    return Status::error("--data, --steps, --batch and --seq are required");
  if (o.microBatches != 1)
    return Status::error("--micro-batches " + std::to_string(o.microBatches) +
                         ": gradient accumulation is not implemented yet");
  if (o.lossScale != "none" && o.lossScale != "dynamic")
    return Status::error("--loss-scale must be none or dynamic, got '" +
                         o.lossScale + "'");
  if (o.resume && o.checkpointDir.empty())
    return Status::error("--resume needs --checkpoint-dir");
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
// The step function's signature
//===----------------------------------------------------------------------===//

/// Where each input and output of the step function is, by role.
struct StepLayout {
  int ids = -1, labels = -1, lr = -1, step = -1, lossScale = -1;
  int loss = -1, gradNorm = -1;
  /// Per parameter: its inputs (master, m, v) and outputs (new ones).
  std::vector<std::string> params;
  std::vector<std::array<int, 3>> stateInputs, stateOutputs;
};

int indexOf(const std::vector<pkg::TensorSig> &sigs, const std::string &name) {
  for (size_t i = 0; i < sigs.size(); ++i)
    if (sigs[i].name == name)
      return static_cast<int>(i);
  return -1;
}

/// Reads the roles off the names attn-derive-train-step gives.
StatusOr<StepLayout> layoutOf(const pkg::Function &fn) {
  StepLayout layout;
  const auto &in = fn.inputs, &out = fn.outputs;
  layout.ids = indexOf(in, "ids");
  layout.labels = indexOf(in, "labels");
  layout.lr = indexOf(in, "lr");
  layout.step = indexOf(in, "step");
  layout.lossScale = indexOf(in, "loss_scale");
  layout.loss = indexOf(out, "loss");
  layout.gradNorm = indexOf(out, "grad_norm");
  if (std::min({layout.ids, layout.labels, layout.lr, layout.step,
                layout.lossScale, layout.loss, layout.gradNorm}) < 0)
    return Status::error("function '" + fn.name +
                         "' is not a training step: it needs inputs ids, "
                         "labels, lr, step, loss_scale and outputs loss, "
                         "grad_norm (attn-derive-train-step)");
  for (const pkg::TensorSig &sig : in) {
    int m = indexOf(in, "m_" + sig.name), v = indexOf(in, "v_" + sig.name);
    if (m < 0 || v < 0)
      continue;
    std::array<int, 3> outs = {indexOf(out, "new_" + sig.name),
                               indexOf(out, "new_m_" + sig.name),
                               indexOf(out, "new_v_" + sig.name)};
    if (std::min({outs[0], outs[1], outs[2]}) < 0)
      return Status::error("parameter '" + sig.name + "' has no new_" +
                           sig.name + ", new_m_ or new_v_ output");
    layout.params.push_back(sig.name);
    layout.stateInputs.push_back({indexOf(in, sig.name), m, v});
    layout.stateOutputs.push_back(outs);
  }
  size_t roles = 5 + 3 * layout.params.size();
  if (roles != in.size())
    return Status::error("function '" + fn.name +
                         "' has inputs that are "
                         "neither data, parameters nor step scalars; "
                         "attn-train fills only ids and labels");
  return layout;
}

StatusOr<rt::Function> findStep(const rt::Package &package,
                                const std::string &name) {
  if (!name.empty())
    return package.function(name);
  std::vector<std::string> steps;
  for (const std::string &fn : package.functionNames())
    if (fn.size() > 5 && fn.compare(fn.size() - 5, 5, "_step") == 0)
      steps.push_back(fn);
  if (steps.size() != 1)
    return Status::error(std::to_string(steps.size()) +
                         " functions end in _step; choose one with --fn");
  return package.function(steps[0]);
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

Status upload(const rt::Runtime &rt, DeviceTensor &t,
              const std::vector<float> &values) {
  return rt.copy(t.data.get(), values.data(), values.size() * 4,
                 rt::CopyKind::HostToDevice);
}

StatusOr<std::vector<float>> download(const rt::Runtime &rt,
                                      const DeviceTensor &t) {
  std::vector<float> values(t.elements);
  if (Status s = rt.copy(values.data(), t.data.get(), values.size() * 4,
                         rt::CopyKind::DeviceToHost);
      !s)
    return s;
  return values;
}

/// splitmix64: the initial weights are the same on every platform.
uint64_t splitmix(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// N(0, std^2) by Box-Muller for a weight of rank >= 2, ones otherwise; the
/// stream of parameter `index` depends only on the seed and the index.
std::vector<float> initialValues(const DeviceTensor &t, uint64_t seed,
                                 uint64_t index, double std) {
  std::vector<float> values(t.elements, 1.0f);
  if (t.shape.size() < 2)
    return values;
  uint64_t state = seed ^ (0x5851f42d4c957f2dULL * (index + 1));
  for (int64_t i = 0; i < t.elements; i += 2) {
    double u1 = (double(splitmix(state) >> 11) + 1) * 0x1.0p-53;
    double u2 = double(splitmix(state) >> 11) * 0x1.0p-53;
    double r = std::sqrt(-2 * std::log(u1)) * std;
    values[i] = float(r * std::cos(2 * M_PI * u2));
    if (i + 1 < t.elements)
      values[i + 1] = float(r * std::sin(2 * M_PI * u2));
  }
  return values;
}

/// Weights from a safetensors file, widened to f32.
StatusOr<std::vector<float>> valuesFromFile(const safetensors::File &file,
                                            const std::string &name,
                                            const DeviceTensor &t) {
  const safetensors::Tensor *given = file.find(name);
  if (!given)
    return Status::error("--init file has no tensor '" + name + "'");
  if (given->shape != t.shape || given->dtype != pkg::DType::F32)
    return Status::error("--init tensor '" + name +
                         "' must be f32 of the parameter's shape");
  std::vector<float> values(t.elements);
  std::memcpy(values.data(), given->data.data(), values.size() * 4);
  return values;
}

/// The step's state: masters and moments in two sets, read from one and
/// written to the other, which then swap.
class TrainState {
public:
  TrainState(rt::Runtime rt, const pkg::Function &fn, const StepLayout &layout)
      : rt(std::move(rt)), fn(fn), layout(layout) {}

  Status allocate();
  Status initialize(const Options &o);
  Status restore(const std::vector<safetensors::Tensor> &tensors);
  StatusOr<std::vector<safetensors::Tensor>> snapshot() const;
  void addInputs(std::vector<rt::TensorRef> &inputs) const;
  void addOutputs(std::vector<rt::TensorRef> &outputs) const;
  void swap() { current ^= 1; }
  int64_t bytes() const;

private:
  static constexpr const char *kPrefixes[3] = {"", "m_", "v_"};
  rt::Runtime rt;
  const pkg::Function &fn;
  const StepLayout &layout;
  /// sets[s][p][k]: set s, parameter p, k = master, m, v.
  std::vector<std::array<DeviceTensor, 3>> sets[2];
  int current = 0;
};

Status TrainState::allocate() {
  for (auto &set : sets)
    for (size_t p = 0; p < layout.params.size(); ++p) {
      std::array<DeviceTensor, 3> tensors;
      for (int k = 0; k < 3; ++k) {
        const pkg::TensorSig &sig = fn.inputs[layout.stateInputs[p][k]];
        std::vector<int64_t> shape;
        for (const pkg::Dim &d : sig.shape)
          shape.push_back(d.extent);
        auto t = allocateF32(rt, shape);
        if (!t)
          return t.status();
        tensors[k] = *t;
      }
      set.push_back(tensors);
    }
  return Status::ok();
}

Status TrainState::initialize(const Options &o) {
  std::optional<safetensors::File> file;
  if (!o.init.empty()) {
    auto read = safetensors::readFile(o.init);
    if (!read)
      return read.status();
    file = std::move(*read);
  }
  for (size_t p = 0; p < layout.params.size(); ++p) {
    auto &[master, m, v] = sets[current][p];
    auto values = file ? valuesFromFile(*file, layout.params[p], master)
                       : initialValues(master, o.seed, p, o.initStd);
    if (!values)
      return values.status();
    std::vector<float> zeros(m.elements, 0.0f);
    for (auto [t, data] :
         {std::pair{&master, &*values}, {&m, &zeros}, {&v, &zeros}})
      if (Status s = upload(rt, *t, *data); !s)
        return s;
  }
  return Status::ok();
}

Status TrainState::restore(const std::vector<safetensors::Tensor> &tensors) {
  safetensors::File file;
  file.tensors = tensors;
  for (size_t p = 0; p < layout.params.size(); ++p)
    for (int k = 0; k < 3; ++k) {
      DeviceTensor &t = sets[current][p][k];
      auto values = valuesFromFile(file, kPrefixes[k] + layout.params[p], t);
      if (!values)
        return Status::error("checkpoint: " + values.status().message());
      if (Status s = upload(rt, t, *values); !s)
        return s;
    }
  return Status::ok();
}

StatusOr<std::vector<safetensors::Tensor>> TrainState::snapshot() const {
  std::vector<safetensors::Tensor> tensors;
  for (int k = 0; k < 3; ++k)
    for (size_t p = 0; p < layout.params.size(); ++p) {
      const DeviceTensor &t = sets[current][p][k];
      auto values = download(rt, t);
      if (!values)
        return values.status();
      safetensors::Tensor out{
          kPrefixes[k] + layout.params[p], pkg::DType::F32, t.shape, {}};
      out.data.resize(values->size() * 4);
      std::memcpy(out.data.data(), values->data(), out.data.size());
      tensors.push_back(std::move(out));
    }
  return tensors;
}

void TrainState::addInputs(std::vector<rt::TensorRef> &inputs) const {
  for (size_t p = 0; p < layout.params.size(); ++p)
    for (int k = 0; k < 3; ++k)
      inputs[layout.stateInputs[p][k]] = sets[current][p][k].ref();
}

void TrainState::addOutputs(std::vector<rt::TensorRef> &outputs) const {
  for (size_t p = 0; p < layout.params.size(); ++p)
    for (int k = 0; k < 3; ++k)
      outputs[layout.stateOutputs[p][k]] = sets[current ^ 1][p][k].ref();
}

int64_t TrainState::bytes() const {
  int64_t total = 0;
  for (const auto &set : sets)
    for (const auto &tensors : set)
      for (const DeviceTensor &t : tensors)
        total += t.elements * 4;
  return total;
}

//===----------------------------------------------------------------------===//
// The loop
//===----------------------------------------------------------------------===//

/// What one step reports.
struct StepReport {
  int64_t step;
  double loss, gradNorm, lr, lossScale, seconds;
  bool skipped;
};

class Trainer {
public:
  Trainer(const Options &o, rt::Runtime rt, rt::Function step,
          StepLayout layout)
      : o(o), rt(rt), step(std::move(step)), layout(std::move(layout)),
        state(rt, this->step.signature(), this->layout) {}

  Status run();

private:
  Status setUp();
  Status resume();
  StatusOr<StepReport> runStep(int64_t index);
  Status checkpoint(int64_t stepsDone);
  void report(const StepReport &r, double elapsed);
  std::map<std::string, std::string> config() const;

  const Options &o;
  rt::Runtime rt;
  rt::Function step;
  StepLayout layout;
  TrainState state;
  train::LrSchedule schedule;
  train::LossScaler scaler = train::LossScaler::disabled();
  std::unique_ptr<rt::TokenLoader> loader;
  DeviceTensor scalars[3], loss, gradNorm;
  int64_t firstStep = 0, startPosition = 0, parameters = 0;
  std::ofstream metrics;
};

std::map<std::string, std::string> Trainer::config() const {
  return {{"package", o.package},
          {"function", step.name()},
          {"batch", std::to_string(o.batch)},
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
  if (Status s = state.allocate(); !s)
    return s;
  for (DeviceTensor *t :
       {&scalars[0], &scalars[1], &scalars[2], &loss, &gradNorm}) {
    auto allocated = allocateF32(rt, {});
    if (!allocated)
      return allocated.status();
    *t = *allocated;
  }
  for (const std::string &name : layout.params) {
    const pkg::TensorSig &sig =
        step.signature().inputs[indexOf(step.signature().inputs, name)];
    int64_t count = 1;
    for (const pkg::Dim &d : sig.shape)
      count *= d.extent;
    parameters += count;
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
    if (found == loaded->state.config.end() || found->second != value)
      return Status::error(
          loaded->path + ": checkpoint was written with " + key + " = '" +
          (found == loaded->state.config.end() ? std::string("?")
                                               : found->second) +
          "', this run has '" + value + "'");
  }
  if (Status s = scaler.restore(loaded->state.lossScale); !s)
    return s;
  firstStep = loaded->state.step;
  startPosition = loaded->state.samples;
  std::printf("resumed from %s at step %lld\n", loaded->path.c_str(),
              static_cast<long long>(firstStep));
  return state.restore(loaded->tensors);
}

StatusOr<StepReport> Trainer::runStep(int64_t index) {
  auto start = std::chrono::steady_clock::now();
  auto batch = loader->next(nullptr);
  if (!batch)
    return batch.status();
  StepReport r{index, 0, 0, schedule.at(index), scaler.scale(), 0, false};
  std::vector<float> values = {float(r.lr), float(index + 1),
                               float(r.lossScale)};
  for (int k = 0; k < 3; ++k)
    if (Status s = upload(rt, scalars[k], {values[k]}); !s)
      return s;
  std::vector<rt::TensorRef> inputs(step.signature().inputs.size());
  std::vector<rt::TensorRef> outputs(step.signature().outputs.size());
  inputs[layout.ids] = batch->ids;
  inputs[layout.labels] = batch->labels;
  inputs[layout.lr] = scalars[0].ref();
  inputs[layout.step] = scalars[1].ref();
  inputs[layout.lossScale] = scalars[2].ref();
  outputs[layout.loss] = loss.ref();
  outputs[layout.gradNorm] = gradNorm.ref();
  state.addInputs(inputs);
  state.addOutputs(outputs);
  if (Status s = step.call(inputs, outputs); !s)
    return s;
  auto lossValue = download(rt, loss), norm = download(rt, gradNorm);
  if (!lossValue || !norm)
    return !lossValue ? lossValue.status() : norm.status();
  r.loss = (*lossValue)[0];
  r.gradNorm = (*norm)[0];
  // The step kernel kept the old state when the norm is not finite.
  r.skipped = !std::isfinite(r.gradNorm);
  scaler.update(!r.skipped);
  state.swap();
  r.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return r;
}

Status Trainer::checkpoint(int64_t stepsDone) {
  auto tensors = state.snapshot();
  if (!tensors)
    return tensors.status();
  train::TrainState saved;
  saved.step = stepsDone;
  saved.samples = startPosition + (stepsDone - firstStep) * o.batch;
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
  double tokens = double(o.batch) * o.seq;
  double tokensPerSecond = tokens / r.seconds;
  double mfu = o.peakTflops > 0
                   ? 6.0 * parameters * tokensPerSecond / (o.peakTflops * 1e12)
                   : 0;
  // 9 significant digits: an f32 reads back as the same number.
  if (metrics.is_open())
    metrics << std::setprecision(9) << "{\"step\": " << r.step + 1
            << ", \"loss\": " << r.loss << ", \"lr\": " << r.lr
            << ", \"grad_norm\": " << jsonNumber(r.gradNorm)
            << ", \"loss_scale\": " << r.lossScale
            << ", \"skipped\": " << (r.skipped ? "true" : "false")
            << ", \"tokens_per_s\": " << tokensPerSecond << ", \"mfu\": " << mfu
            << ", \"seconds\": " << elapsed << "}\n";
  bool last = r.step + 1 == o.steps;
  if ((r.step + 1) % o.logEvery && !last && !r.skipped)
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
  std::printf(" | state %.1f MiB | eta %.0f s\n", state.bytes() / 1048576.0,
              eta);
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

Status Trainer::run() {
  if (Status s = setUp(); !s)
    return s;
  auto file = rt::TokenFile::open(o.data);
  if (!file)
    return file.status();
  rt::LoaderOptions loading;
  loading.batch = o.batch;
  loading.sequence = o.seq;
  loading.shuffle = !o.sequential;
  loading.seed = o.seed;
  loading.position = startPosition;
  auto created = rt::TokenLoader::create(rt, *file, loading);
  if (!created)
    return created.status();
  loader = std::move(*created);
  if (!o.metrics.empty()) {
    std::vector<std::string> kept = o.resume ? metricsUpTo(o.metrics, firstStep)
                                             : std::vector<std::string>();
    metrics.open(o.metrics, std::ios::trunc);
    for (const std::string &line : kept)
      metrics << line << "\n";
    if (!metrics)
      return Status::error(o.metrics + ": cannot write the metrics");
  }
  std::printf("%s: %lld parameters, %lld steps of %lld x %lld tokens on %s\n",
              step.name().c_str(), static_cast<long long>(parameters),
              static_cast<long long>(o.steps), static_cast<long long>(o.batch),
              static_cast<long long>(o.seq), rt.device().c_str());
  auto start = std::chrono::steady_clock::now();
  for (int64_t i = firstStep; i < o.steps; ++i) {
    auto r = runStep(i);
    if (!r)
      return r.status().withContext("step " + std::to_string(i + 1));
    report(*r, std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             start)
                   .count());
    if (o.exitAfter == i + 1) {
      metrics.flush();
      std::fflush(stdout);
      std::_Exit(3);
    }
    bool due = o.checkpointEvery && (i + 1) % o.checkpointEvery == 0;
    if (!o.checkpointDir.empty() && (due || i + 1 == o.steps))
      if (Status s = checkpoint(i + 1); !s)
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
  auto step = findStep(*package, o.function);
  if (!step)
    return step.status();
  auto layout = layoutOf(step->signature());
  if (!layout)
    return layout.status();
  return Trainer(o, *rt, *step, *layout).run();
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
  if (Status s = trainModel(**options); !s) {
    std::fprintf(stderr, "attn-train: error: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}
