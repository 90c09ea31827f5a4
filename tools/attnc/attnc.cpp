//===- attnc.cpp - The attnc compiler driver ------------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// attnc INPUT.mlir -o OUTPUT [--target=host|sm_90a]
//       [--emit=package|mlir|tiled|llvm|ptx|cubin] [--explain]
//
// Every failure is a located diagnostic (or `attnc: error: ...` for I/O) and
// exit code 1; the output file is written only once everything succeeded.
//
//===----------------------------------------------------------------------===//

#include "attnc/Version.h"
#include "attnc/package/Package.h"
#include "attnc/package/Workspace.h"
#include "compiler/Graph/DimSymbols.h"
#include "compiler/Pipelines/Pipelines.h"
#include "compiler/Target/CUDA/CudaBinary.h"
#include "compiler/Target/Host/HostLibrary.h"
#include "compiler/Target/Package/PackageBuilder.h"
#include "dialects/attn/AttnOps.h"
#include "dialects/attnrt/AttnRTOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
#include <map>
#include <set>

using namespace mlir;
namespace pkg = attnc::pkg;

namespace {

enum class Emit { Package, Mlir, Tiled, Llvm, Ptx, Cubin };
enum class Target { Host, Sm90a };

llvm::cl::OptionCategory attncCategory("attnc options");

llvm::cl::opt<std::string>
    inputPath(llvm::cl::Positional,
              llvm::cl::desc("<input .mlir, or - for stdin>"),
              llvm::cl::init("-"), llvm::cl::cat(attncCategory));

llvm::cl::opt<std::string>
    outputPath("o", llvm::cl::desc("Output file (- for stdout)"),
               llvm::cl::value_desc("path"), llvm::cl::init("-"),
               llvm::cl::cat(attncCategory));

llvm::cl::list<Target> targets(
    "target",
    llvm::cl::desc("Code generation targets, comma separated (default: "
                   "host); a package may hold several, and the runtime runs "
                   "the kernels of the device it opens"),
    llvm::cl::values(clEnumValN(Target::Host, "host", "the host CPU"),
                     clEnumValN(Target::Sm90a, "sm_90a",
                                "NVIDIA Hopper (H100, H200)")),
    llvm::cl::CommaSeparated, llvm::cl::cat(attncCategory));

enum class TensorCores { Auto, MmaSync };

llvm::cl::opt<TensorCores> tensorCores(
    "tensor-cores",
    llvm::cl::desc("sm_90a tensor-core kernel for 16-bit inputs"),
    llvm::cl::values(
        clEnumValN(TensorCores::Auto, "auto",
                   "wgmma for head dims that are multiples of 16 up to 256, "
                   "mma.sync for short static query lengths (the default)"),
        clEnumValN(TensorCores::MmaSync, "mma-sync",
                   "mma.sync wherever tensor cores apply")),
    llvm::cl::init(TensorCores::Auto), llvm::cl::cat(attncCategory));

llvm::cl::list<std::string> kernelSchedule(
    "kernel-schedule",
    llvm::cl::desc("sm_90a wgmma kernel options for every kernel they "
                   "apply to, comma separated: ping-pong (the warpgroups "
                   "of a forward or gradient kernel take turns on the "
                   "tensor cores; by default only causal forward kernels "
                   "up to head dim 128 do)"),
    llvm::cl::CommaSeparated, llvm::cl::cat(attncCategory));

llvm::cl::opt<Emit> emit(
    "emit", llvm::cl::desc("What to write"),
    llvm::cl::values(
        clEnumValN(Emit::Package, "package",
                   "a package the runtime loads (.attnpkg, the default)"),
        clEnumValN(Emit::Mlir, "mlir",
                   "the verified, canonicalized attn module"),
        clEnumValN(Emit::Tiled, "tiled", "the tiled kernels (scf/memref)"),
        clEnumValN(Emit::Llvm, "llvm", "the optimized LLVM IR of host kernels"),
        clEnumValN(Emit::Ptx, "ptx", "the PTX of GPU kernels"),
        clEnumValN(Emit::Cubin, "cubin", "the cubin of GPU kernels")),
    llvm::cl::init(Emit::Package), llvm::cl::cat(attncCategory));

llvm::cl::opt<bool> explain(
    "explain",
    llvm::cl::desc("Print each function's buffers and kernels (tiles, "
                   "launch), each GPU kernel's resource report (registers, "
                   "spills, wgmma serialization warnings) and the time each "
                   "compilation phase took; with --emit=package"),
    llvm::cl::init(false), llvm::cl::cat(attncCategory));

llvm::cl::opt<bool> backward(
    "backward",
    llvm::cl::desc("Also compile @f_bwd, the gradient of every public "
                   "function @f (functions marked `attn.backward` get one "
                   "without this flag)"),
    llvm::cl::init(false), llvm::cl::cat(attncCategory));

llvm::cl::opt<bool> deterministicGrad(
    "deterministic-grad",
    llvm::cl::desc("Bitwise-reproducible gradients: attention's dq from a "
                   "kernel per query block instead of atomic f32 sums"),
    llvm::cl::init(false), llvm::cl::cat(attncCategory));

llvm::cl::opt<std::string>
    remat("remat",
          llvm::cl::desc("Which forward values a backward function reads saved "
                         "(extra results of the forward function) rather than "
                         "recomputing them: none (all it needs), attention "
                         "(attention's out and lse, a fused LM-head loss's "
                         "lse; the default), selective (those and matmul "
                         "results) or full (only the forward's own results)"),
          llvm::cl::init("attention"), llvm::cl::cat(attncCategory));

llvm::cl::opt<std::string> rematBudget(
    "remat-budget",
    llvm::cl::desc("With --remat=selective: the most memory the saved values "
                   "may take at the --symbol extents, in bytes or with a "
                   "suffix (512MiB, 1.5GiB); values costliest to recompute "
                   "per byte are saved first"),
    llvm::cl::value_desc("size"), llvm::cl::cat(attncCategory));

llvm::cl::opt<int64_t> maxFlatElements(
    "max-flat-elements",
    llvm::cl::desc("The most elements of one tensor of a training step's flat "
                   "state (masters, moments, gradient sums); a larger state "
                   "is split into chunks of whole parameters (default and "
                   "largest: 2^31 - 1)"),
    llvm::cl::init(2147483647), llvm::cl::cat(attncCategory));

llvm::cl::list<std::string> symbolExtents(
    "symbol",
    llvm::cl::desc("NAME=EXTENT: an extent of a symbolic dim (B=4), at which "
                   "--remat-budget and --explain count bytes"),
    llvm::cl::value_desc("name=extent"), llvm::cl::cat(attncCategory));

llvm::cl::opt<int64_t> keyRanges(
    "key-ranges",
    llvm::cl::desc("Split attention's keys into N ranges attended by separate "
                   "blocks and merged by their lse (flash-decoding): 0 lets "
                   "attnc choose (on a GPU, 16 or 32 for static query "
                   "lengths up to 64), 1 never splits"),
    llvm::cl::init(0), llvm::cl::cat(attncCategory));

llvm::cl::opt<int64_t> vocabChunk(
    "vocab-chunk",
    llvm::cl::desc("Classes per chunk of a fused LM-head loss (an LM head's "
                   "matmul and the cross-entropy of its logits): a step "
                   "holds one chunk of logits, not all"),
    llvm::cl::init(8192), llvm::cl::cat(attncCategory));

llvm::cl::opt<bool> overlapSteps(
    "overlap-steps",
    llvm::cl::desc("Let independent neighbouring steps of a program shaped "
                   "for a GPU run at the same time, on two streams"),
    llvm::cl::init(true), llvm::cl::cat(attncCategory));

llvm::cl::opt<std::string>
    hostCpu("host-cpu", llvm::cl::desc("CPU host kernels are compiled for"),
            llvm::cl::init(attnc::HostLibraryOptions().cpu),
            llvm::cl::cat(attncCategory));

/// "1.5GiB" as bytes; "" is 0. Nothing for text that is no size.
std::optional<int64_t> parseBytes(StringRef text) {
  static const std::pair<StringRef, double> units[] = {
      {"GiB", 1024.0 * 1024 * 1024},
      {"MiB", 1024.0 * 1024},
      {"KiB", 1024.0},
      {"GB", 1e9},
      {"MB", 1e6},
      {"KB", 1e3},
      {"B", 1}};
  double scale = 1;
  for (auto [suffix, factor] : units)
    if (text.consume_back(suffix)) {
      scale = factor;
      break;
    }
  double number = 0;
  if (!text.empty() &&
      (text.trim().getAsDouble(number) || number < 0 || number * scale > 9e18))
    return std::nullopt;
  return static_cast<int64_t>(number * scale);
}

int reportIoError(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "attnc") << message << "\n";
  return 1;
}

/// Runs the pipeline `build` makes, with the MLIR pass-manager options of
/// the command line (--mlir-print-ir-after-all, --mlir-timing, ...).
LogicalResult runPipeline(ModuleOp module,
                          function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  build(pm);
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  return pm.run(module);
}

/// What compilation writes: text (MLIR, LLVM IR, PTX), bytes (cubin) or
/// a package.
struct Output {
  std::string text;
  std::vector<uint8_t> bytes;
  std::optional<pkg::Package> package;
};

/// How a backward function gets attention's dq, if it has one.
void explainGradientMode(const pkg::Function &fn) {
  auto has = [&](std::string_view kind) {
    return llvm::any_of(fn.ops,
                        [&](const pkg::OpSpec &op) { return op.kind == kind; });
  };
  if (has("attention_grad_q"))
    llvm::errs() << fn.name << ": dq by its own kernel (deterministic)\n";
  else if (has("attention_grad_kv"))
    llvm::errs() << fn.name << ": dq by atomic f32 accumulation\n";
}

/// `tensor`'s dtype and shape, "bf16 [B, 16, N, 128]".
void printSignature(const pkg::TensorSig &tensor) {
  llvm::errs() << pkg::dtypeName(tensor.dtype) << " [";
  llvm::interleaveComma(tensor.shape, llvm::errs(), [](const pkg::Dim &dim) {
    if (dim.isStatic())
      llvm::errs() << dim.extent;
    else
      llvm::errs() << dim.symbol;
  });
  llvm::errs() << "]";
}

/// A gradient function's saved values: the forward outputs it reads that
/// take no cotangent, with their bytes as a product of the symbols.
void explainSavedValues(const pkg::Function &fn,
                        const std::vector<pkg::Function> &functions) {
  auto forward = llvm::find_if(functions, [&](const pkg::Function &f) {
    return fn.gradientOf && f.name == *fn.gradientOf;
  });
  if (forward == functions.end())
    return;
  size_t numCotangents =
      fn.inputs.size() - forward->inputs.size() - forward->outputs.size();
  for (size_t j = 0; j < forward->outputs.size(); ++j) {
    bool hasCotangent = fn.cotangentOf.empty()
                            ? j < numCotangents
                            : llvm::is_contained(fn.cotangentOf, j);
    if (hasCotangent)
      continue;
    const pkg::TensorSig &saved = forward->outputs[j];
    int64_t bytes = pkg::dtypeSize(saved.dtype);
    std::string symbols;
    for (const pkg::Dim &dim : saved.shape) {
      if (dim.isStatic())
        bytes *= dim.extent;
      else
        symbols += " * " + dim.symbol;
    }
    llvm::errs() << fn.name << ": reads " << saved.name << " ";
    printSignature(saved);
    llvm::errs() << " saved by " << forward->name << ", " << bytes << symbols
                 << " bytes\n";
  }
}

/// `bytes` in the largest unit it fills: "880.0 MiB", "5.2 KiB", "96 B".
std::string formatBytes(double bytes) {
  static const std::pair<const char *, double> units[] = {
      {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}};
  for (auto [unit, size] : units)
    if (bytes >= size)
      return llvm::formatv("{0:F1} {1}", bytes / size, unit).str();
  return llvm::formatv("{0} B", static_cast<int64_t>(bytes)).str();
}

/// The most bytes of `fn`'s buffers that one step has live.
size_t peakLiveBytes(const pkg::Function &fn,
                     const std::vector<size_t> &bufferBytes,
                     const std::vector<pkg::Lifetime> &live) {
  size_t peak = 0;
  for (size_t s = 0; s < fn.steps.size(); ++s) {
    size_t bytes = 0;
    for (size_t b = 0; b < fn.buffers.size(); ++b)
      if (live[b].first <= s && s <= live[b].second)
        bytes += bufferBytes[b];
    peak = std::max(peak, bytes);
  }
  return peak;
}

/// The --symbol extents; nothing, after an error, for a malformed one.
std::optional<std::map<std::string, int64_t>> parseSymbolExtents() {
  std::map<std::string, int64_t> extents;
  for (StringRef entry : symbolExtents) {
    auto parsed = attnc::parseSymbolExtent(entry);
    if (!parsed) {
      reportIoError("--symbol: '" + entry + "' is not NAME=EXTENT");
      return std::nullopt;
    }
    extents[parsed->first] = parsed->second;
  }
  return extents;
}

/// At the --symbol extents: the workspace a call of `fn` allocates, the
/// most bytes of its buffers live at once, and its outputs (saved values
/// among them): what a call holds besides its inputs.
void explainMemory(const pkg::Function &fn,
                   const std::map<std::string, int64_t> &extents) {
  std::string missing;
  std::vector<size_t> bufferBytes;
  for (const pkg::Buffer &buffer : fn.buffers)
    if (auto bytes = pkg::bytesAtExtents(buffer.tensor, extents, missing))
      bufferBytes.push_back(*bytes);
  size_t outputs = 0, saved = 0;
  for (auto [k, output] : llvm::enumerate(fn.outputs)) {
    std::optional<size_t> bytes = pkg::bytesAtExtents(output, extents, missing);
    outputs += bytes.value_or(0);
    if (llvm::is_contained(fn.savedOutputs, static_cast<int64_t>(k)))
      saved += bytes.value_or(0);
  }
  if (!missing.empty()) {
    llvm::errs() << fn.name << ": memory: give symbol " << missing
                 << " an extent (--symbol " << missing << "=EXTENT)\n";
    return;
  }
  std::vector<pkg::Lifetime> lifetimes = pkg::bufferLifetimes(fn);
  auto layout = pkg::layoutWorkspace(fn, bufferBytes, lifetimes);
  if (!layout)
    return;
  llvm::errs() << fn.name << ": memory: workspace "
               << formatBytes(layout->bytes) << " (buffers live at once: at "
               << "most "
               << formatBytes(peakLiveBytes(fn, bufferBytes, lifetimes))
               << "), outputs " << formatBytes(outputs) << " (saved values "
               << formatBytes(saved) << "); working set "
               << formatBytes(layout->bytes + outputs) << "\n";
}

/// The op that the steps of `kernel` compute: the one whose operands and
/// kept results are a step's arguments.
const pkg::OpSpec *opOfKernel(const pkg::Function &fn,
                              const std::string &kernel) {
  for (const pkg::Step &step : fn.steps) {
    if (step.kernel != kernel)
      continue;
    for (const pkg::OpSpec &op : fn.ops)
      if (op.stepArgs() == step.args)
        return &op;
  }
  return nullptr;
}

/// The step that the step of `kernel` runs beside, where it is concurrent.
const pkg::Step *concurrentWith(const pkg::Function &fn,
                                const std::string &kernel) {
  for (size_t s = 1; s < fn.steps.size(); ++s)
    if (fn.steps[s].kernel == kernel && fn.steps[s].concurrent)
      return &fn.steps[s - 1];
  return nullptr;
}

/// What a kernel computes, with what was fused into it: a matmul's bias,
/// activation and addend, the kinds of op of an element-wise body ("negf
/// exp addf divf mulf"; its roundings and constants are not work).
std::string describeWork(const pkg::OpSpec &op) {
  std::string text = op.kind;
  if (const std::string *bias = op.bias())
    text += " + bias " + *bias;
  if (op.matmul && !op.matmul->activation.empty())
    text += ", " + op.matmul->activation;
  if (const std::string *addend = op.addend())
    text += " + addend " + *addend;
  if ((op.kind == "split_heads" || op.kind == "merge_heads") &&
      op.operands.size() == 3)
    text += " + rotary " + op.operands[1] + ", " + op.operands[2];
  if (op.elementwise) {
    text += ":";
    std::set<std::string> seen = {"arith.constant", "arith.truncf",
                                  "arith.extf"};
    for (const pkg::Region &body : op.elementwise->bodies)
      for (const pkg::RegionOp &bodyOp : body.ops)
        if (seen.insert(bodyOp.name).second)
          text += " " + bodyOp.name.substr(bodyOp.name.find('.') + 1);
  }
  return text;
}

/// Per function: how a gradient is summed, the values a gradient function
/// reads saved, its memory at the --symbol extents, its buffers, then each
/// kernel with its launch and tiles, and what it computes.
void explainPrograms(const std::vector<pkg::Function> &functions) {
  for (const pkg::Function &fn : functions) {
    explainGradientMode(fn);
    explainSavedValues(fn, functions);
    if (auto extents = parseSymbolExtents(); extents && !extents->empty())
      explainMemory(fn, *extents);
    for (const pkg::Buffer &buffer : fn.buffers) {
      llvm::errs() << fn.name << ": buffer " << buffer.tensor.name << " ";
      printSignature(buffer.tensor);
      llvm::errs() << " slot " << buffer.slot << "\n";
    }
    for (const pkg::View &view : fn.views) {
      llvm::errs() << fn.name << ": view " << view.tensor.name;
      if (view.heads)
        llvm::errs() << " " << view.heads << " heads";
      else
        llvm::errs() << " rows [" << view.begin << ", "
                     << view.begin +
                            view.rowsOf(fn.findValue(view.of)->shape.size())
                     << ")";
      llvm::errs() << " of " << view.of << "\n";
    }
    for (const pkg::Segment &segment : fn.segments) {
      llvm::errs() << fn.name << ": segment " << segment.name << " [";
      llvm::interleaveComma(segment.shape, llvm::errs());
      llvm::errs() << "] at " << segment.offset << " of";
      for (auto [k, flat] : llvm::enumerate(fn.flatValues))
        if (fn.flatChunks.empty() || fn.flatChunks[k] == segment.chunk)
          llvm::errs() << " " << flat;
      llvm::errs() << "\n";
    }
    for (const pkg::Kernel &kernel : fn.kernels) {
      llvm::errs() << fn.name << ": kernel " << kernel.name;
      if (kernel.library)
        llvm::errs() << ", library routine " << *kernel.library << ",";
      else
        llvm::errs() << ", entry " << kernel.entry << ", block "
                     << kernel.block[0] << ", dynamic shared memory "
                     << kernel.dynamicSharedMemoryBytes << " bytes, tiles";
      for (const auto &[key, value] : kernel.config) {
        llvm::errs() << " " << key << "=";
        if (key == "mma")
          llvm::errs() << attn::stringifyMmaKind(
              static_cast<attn::MmaKind>(value));
        else
          llvm::errs() << value;
      }
      if (const pkg::OpSpec *op = opOfKernel(fn, kernel.name))
        llvm::errs() << "; computes " << describeWork(*op);
      if (const pkg::Step *before = concurrentWith(fn, kernel.name))
        llvm::errs() << "; runs beside " << before->kernel;
      llvm::errs() << "\n";
    }
  }
}

/// The GPU kernels as PTX, or assembled into a cubin whose ptxas report
/// goes into the kernels' resources.
FailureOr<std::vector<uint8_t>>
assembleGpuKernels(ModuleOp module, const std::string &chip,
                   std::vector<pkg::Function> &functions, std::string *ptxOut) {
  FailureOr<std::string> ptx = attnc::emitPTX(module);
  if (failed(ptx))
    return failure();
  if (ptxOut) {
    *ptxOut = std::move(*ptx);
    return std::vector<uint8_t>();
  }
  FailureOr<attnc::CudaAssembly> assembly =
      attnc::assemblePTX(module, *ptx, chip);
  if (failed(assembly))
    return failure();
  for (pkg::Function &fn : functions)
    for (pkg::Kernel &kernel : fn.kernels)
      kernel.resources = assembly->resources[kernel.entry];
  if (explain)
    for (const auto &[kernel, report] : assembly->resources) {
      llvm::errs() << kernel << " (" << chip << "):";
      for (const auto &[key, value] : report)
        llvm::errs() << " " << key << "=" << value;
      llvm::errs() << "\n";
    }
  return std::move(assembly->cubin);
}

/// The host kernels as optimized LLVM IR, or linked into a shared library.
FailureOr<std::vector<uint8_t>> buildHostKernels(ModuleOp module,
                                                 std::string *llvmOut) {
  auto kernels = module.lookupSymbol<ModuleOp>(attnrt::kKernelModuleName);
  if (!kernels)
    return module.emitError() << "the module has no kernels";
  attnc::HostLibraryOptions options;
  options.cpu = hostCpu;
  if (llvmOut) {
    llvm::raw_string_ostream os(*llvmOut);
    if (failed(attnc::printHostLLVMIR(kernels, options, os)))
      return failure();
    return std::vector<uint8_t>();
  }
  return attnc::buildHostLibrary(kernels, options);
}

/// Wall time of each phase of one compilation, for --explain.
class PhaseTimes {
public:
  /// Ends the running phase, named `name`, and starts the next.
  void lap(const char *name) {
    auto now = std::chrono::steady_clock::now();
    phases.emplace_back(name, now - start);
    total += now - start;
    start = now;
  }
  void print() const {
    auto ms = [](std::chrono::steady_clock::duration d) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
    };
    llvm::errs() << "compile time:";
    for (const auto &[name, duration] : phases)
      llvm::errs() << " " << name << " " << ms(duration) << " ms,";
    llvm::errs() << " total " << ms(total) << " ms\n";
  }

private:
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration total{};
  std::vector<std::pair<const char *, std::chrono::steady_clock::duration>>
      phases;
};

PhaseTimes phaseTimes;

/// Programs, kernels and code for `targetName`, with programs shaped for
/// `programTarget`; what --emit asks for.
FailureOr<Output> compile(ModuleOp module, const std::string &targetName,
                          const std::string &programTarget) {
  bool host = targetName == "host";
  Output output;
  if (failed(runPipeline(module, [&](OpPassManager &pm) {
        attnc::buildProgramPipeline(
            pm, targetName,
            tensorCores == TensorCores::MmaSync ? "mma-sync" : "auto",
            keyRanges, programTarget,
            std::vector<std::string>(kernelSchedule.begin(),
                                     kernelSchedule.end()),
            vocabChunk, overlapSteps);
      })))
    return failure();
  phaseTimes.lap("programs");
  std::vector<pkg::Function> functions;
  if (emit == Emit::Package) {
    FailureOr<std::vector<pkg::Function>> described =
        attnc::describePrograms(module);
    if (failed(described))
      return failure();
    functions = std::move(*described);
  }
  if (failed(runPipeline(module, [&](OpPassManager &pm) {
        if (host)
          attnc::buildHostKernelPipeline(pm);
        else
          attnc::buildGpuKernelPipeline(pm, targetName);
      })))
    return failure();
  if (emit == Emit::Tiled) {
    llvm::raw_string_ostream os(output.text);
    module.print(os);
    return output;
  }
  if (emit == Emit::Package &&
      failed(attnc::describeLaunches(module, targetName, targetName,
                                     functions)))
    return failure();
  if (failed(runPipeline(module, [&](OpPassManager &pm) {
        if (host)
          attnc::buildHostToLLVMPipeline(pm);
        else
          attnc::buildGpuToNVVMPipeline(pm);
      })))
    return failure();
  phaseTimes.lap("kernels");
  std::string *textOut =
      emit == Emit::Llvm || emit == Emit::Ptx ? &output.text : nullptr;
  FailureOr<std::vector<uint8_t>> code =
      host ? buildHostKernels(module, textOut)
           : assembleGpuKernels(module, targetName, functions, textOut);
  if (failed(code))
    return failure();
  phaseTimes.lap(host ? "LLVM" : "LLVM and ptxas");
  if (explain) {
    llvm::errs() << "target " << targetName << ":\n";
    explainPrograms(functions);
    phaseTimes.print();
  }
  if (emit != Emit::Package) {
    output.bytes = std::move(*code);
    return output;
  }
  output.package.emplace();
  output.package->producer = std::string("attnc ") + ATTNC_VERSION_STRING;
  output.package->functions = std::move(functions);
  output.package->blobs.push_back(
      {targetName, host ? "host-so" : "cubin", std::move(*code)});
  return output;
}

/// `fn` without its kernels, as JSON: what every target must agree on.
std::string programOf(const pkg::Function &fn) {
  pkg::Package alone;
  alone.functions.push_back(fn);
  alone.functions.back().kernels.clear();
  return pkg::manifestJson(alone);
}

/// Adds the kernels and code of `other`, compiled from the same module for
/// another target, to `package`.
attnc::Status mergeTarget(pkg::Package &package, pkg::Package &&other,
                          const std::string &targetName) {
  for (pkg::Function &fn : other.functions) {
    auto it = llvm::find_if(package.functions, [&](const pkg::Function &f) {
      return f.name == fn.name;
    });
    if (it == package.functions.end() || programOf(*it) != programOf(fn))
      return attnc::Status::error("function '" + fn.name +
                                  "': the program "
                                  "for " +
                                  targetName +
                                  " differs from the "
                                  "first target's");
    llvm::append_range(it->kernels, fn.kernels);
  }
  llvm::append_range(package.blobs, other.blobs);
  return attnc::Status::ok();
}

/// The --target list without repeats (default: host).
FailureOr<std::vector<std::string>> targetNames() {
  std::vector<std::string> names;
  for (Target t : targets) {
    std::string name = t == Target::Host ? "host" : "sm_90a";
    if (llvm::is_contained(names, name)) {
      reportIoError("--target names " + name + " twice");
      return failure();
    }
    names.push_back(name);
  }
  if (names.empty())
    names.push_back("host");
  return names;
}

/// Compiles the frontend's `module` for every target into one output: for
/// several targets, a package whose functions share one program, shaped for
/// the first GPU target, with kernels for each.
FailureOr<Output> compileTargets(ModuleOp module,
                                 const std::vector<std::string> &names) {
  if (names.size() == 1)
    return compile(module, names[0], names[0]);
  auto gpu =
      llvm::find_if(names, [](const std::string &n) { return n != "host"; });
  std::string programTarget = gpu == names.end() ? names[0] : *gpu;
  std::optional<Output> merged;
  for (const std::string &name : names) {
    OwningOpRef<ModuleOp> copy(module.clone());
    FailureOr<Output> compiled = compile(*copy, name, programTarget);
    if (failed(compiled))
      return failure();
    if (!merged) {
      merged = std::move(*compiled);
      continue;
    }
    attnc::Status s =
        mergeTarget(*merged->package, std::move(*compiled->package), name);
    if (!s) {
      reportIoError(s.message());
      return failure();
    }
  }
  return std::move(*merged);
}

/// Reports an --emit that the --target list cannot give; 0 when it can.
int checkEmitFitsTargets(const std::vector<std::string> &names) {
  if (names.size() > 1 && emit != Emit::Package && emit != Emit::Mlir)
    return reportIoError("several targets make a package; give one --target "
                         "for --emit=tiled, llvm, ptx or cubin");
  bool host = names.front() == "host";
  if (host && (emit == Emit::Ptx || emit == Emit::Cubin))
    return reportIoError("--emit=ptx and --emit=cubin need a GPU target "
                         "(--target=sm_90a)");
  if (!host && emit == Emit::Llvm)
    return reportIoError("--emit=llvm shows host kernels; use --emit=ptx for "
                         "--target=" +
                         names.front());
  return 0;
}

/// Writes `output` to -o, only now that everything succeeded, and
/// atomically: a kill leaves the previous file or the new one. A package
/// goes to a file through the package writer, to stdout serialized.
int writeOutput(Output &output) {
  if (output.package && outputPath != "-") {
    attnc::Status written = pkg::writeFile(*output.package, outputPath);
    return written ? 0 : reportIoError(written.message());
  }
  if (output.package) {
    attnc::StatusOr<std::vector<uint8_t>> encoded =
        pkg::serialize(*output.package);
    if (!encoded)
      return reportIoError(encoded.status().message());
    output.bytes = std::move(*encoded);
  }
  if (!output.bytes.empty() && outputPath == "-" &&
      llvm::sys::Process::StandardOutIsDisplayed())
    return reportIoError("refusing to write binary output to the terminal; "
                         "give an output file with -o");
  if (outputPath != "-") {
    std::vector<uint8_t> bytes(output.text.begin(), output.text.end());
    bytes.insert(bytes.end(), output.bytes.begin(), output.bytes.end());
    attnc::Status written = pkg::writeFileAtomically(bytes, outputPath);
    return written ? 0
                   : reportIoError(written.withContext(outputPath).message());
  }
  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> file =
      openOutputFile(outputPath, &errorMessage);
  if (!file)
    return reportIoError(errorMessage);
  file->os() << output.text;
  file->os().write(reinterpret_cast<const char *>(output.bytes.data()),
                   output.bytes.size());
  file->os().flush();
  if (file->os().has_error()) {
    file->os().clear_error();
    return reportIoError("cannot write '" + outputPath + "'");
  }
  file->keep();
  return 0;
}

/// The input as text, or null after an error. MLIR's bytecode reader is not
/// hardened against malformed input, so attnc reads models as text only.
std::unique_ptr<llvm::MemoryBuffer> readModelText() {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputPath, &error);
  if (input && input->getBuffer().starts_with("ML\xefR"))
    error = "'" + inputPath + "' is MLIR bytecode; attnc reads textual MLIR";
  if (!error.empty()) {
    reportIoError(error);
    return nullptr;
  }
  return input;
}

/// The name a function argument's definition (`%wq`) spells, if it is an
/// identifier and not one of MLIR's generated names (`%arg3`).
std::optional<std::string> sourceName(const AsmParserState::SMDefinition &def) {
  const char *start = def.loc.Start.getPointer();
  StringRef text(start, def.loc.End.getPointer() - start);
  if (!text.consume_front("%") || text.empty() ||
      !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_'))
    return std::nullopt;
  StringRef number = text;
  if (number.consume_front("arg") && !number.empty() &&
      llvm::all_of(number, [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      }))
    return std::nullopt;
  return text.str();
}

/// Parses the input as parseSourceFile does, and keeps each function
/// argument's source name as its `attn.name` (packages name their inputs
/// and gradients after them).
OwningOpRef<ModuleOp> parseNamingArguments(llvm::SourceMgr &sourceMgr,
                                           MLIRContext &context) {
  AsmParserState state;
  Block parsed;
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  LocationAttr fileLoc =
      FileLineColLoc::get(&context, buffer->getBufferIdentifier(), 0, 0);
  if (failed(parseAsmSourceFile(sourceMgr, &parsed, ParserConfig(&context),
                                &state)))
    return nullptr;
  for (const AsmParserState::BlockDefinition &def : state.getBlockDefs()) {
    auto func = dyn_cast_or_null<func::FuncOp>(def.block->getParentOp());
    if (!func || def.block != &func.getBody().front())
      continue;
    for (auto [i, argument] : llvm::enumerate(def.arguments))
      if (std::optional<std::string> name = sourceName(argument))
        func.setArgAttr(i, attn::kArgumentNameAttrName,
                        StringAttr::get(&context, *name));
  }
  return detail::constructContainerOpForParserIfNecessary<ModuleOp>(
      &parsed, &context, fileLoc);
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "attnc " << ATTNC_VERSION_STRING << " (LLVM/MLIR "
       << LLVM_VERSION_STRING << ")\n";
  });
  // Passes by name, for --mlir-print-ir-before/after=PASS.
  registerTransformsPasses();
  attnc::registerAttncPassesAndPipelines();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  registerMLIRContextCLOptions();
  registerAsmPrinterCLOptions();
  llvm::cl::HideUnrelatedOptions(attncCategory);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "attnc: compile attn dialect modules into attention kernels\n");

  std::unique_ptr<llvm::MemoryBuffer> input = readModelText();
  if (!input)
    return 1;

  FailureOr<std::vector<std::string>> names = targetNames();
  if (failed(names) || checkEmitFitsTargets(*names) != 0)
    return 1;

  DialectRegistry registry;
  attnc::registerAttncDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseNamingArguments(sourceMgr, context);
  std::optional<int64_t> budget = parseBytes(rematBudget);
  if (!parseSymbolExtents())
    return 1;
  if (!budget)
    return reportIoError("--remat-budget: '" + rematBudget +
                         "' is no size (bytes, or a number with B, KiB, MiB, "
                         "GiB, KB, MB or GB)");
  attnc::FrontendOptions frontend{backward, deterministicGrad, remat,
                                  *budget,  symbolExtents,     maxFlatElements};
  if (!module || failed(runPipeline(*module, [&](OpPassManager &pm) {
        attnc::buildFrontendPipeline(pm, frontend);
      })))
    return 1;
  phaseTimes.lap("startup, parse and frontend");

  Output output;
  if (emit == Emit::Mlir) {
    llvm::raw_string_ostream os(output.text);
    module->print(os);
  } else {
    FailureOr<Output> compiled = compileTargets(*module, *names);
    if (failed(compiled))
      return 1;
    output = std::move(*compiled);
  }
  return writeOutput(output);
}
