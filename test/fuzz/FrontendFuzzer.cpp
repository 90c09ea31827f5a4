//===- FrontendFuzzer.cpp - libFuzzer target of the compiler front end ----===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary text to what `attnc --emit=tiled` does, for the host and
// for sm_90a: parse and verify, the front end (with the backward functions
// for half of the inputs), programs, the manifest description and the tiled
// kernels. Any input must end in success or diagnostics, never a crash; a
// program the compiler accepts must describe a manifest that the package
// format verifies.
//
// The compiler libraries are the ordinary build's, not instrumented for
// coverage (a second, instrumented compiler build would double CI). The
// fuzzer is guided instead by features this harness reports through an
// 8-bit counter table: the ops an input holds, each diagnostic's text, and
// every pass that ran or failed, per target. Inputs that reach a new
// diagnostic or get further down a pipeline join the corpus.
//
//===----------------------------------------------------------------------===//

#include "attnc/package/Package.h"
#include "compiler/Pipelines/Pipelines.h"
#include "compiler/Target/Package/PackageBuilder.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/Hashing.h"

#include <cstdio>
#include <cstdlib>

using namespace mlir;

extern "C" void __sanitizer_cov_8bit_counters_init(uint8_t *begin,
                                                   uint8_t *end);

namespace {

uint8_t featureCounters[1 << 14];

/// Counts one occurrence of the feature (`kind`, `detail`).
void feature(llvm::StringRef kind, llvm::StringRef detail) {
  size_t index = llvm::hash_combine(kind, detail) % sizeof(featureCounters);
  if (featureCounters[index] != 255)
    ++featureCounters[index];
}

/// A diagnostic's kind of message: without numbers and quoted text, and
/// cut short, so that "dim 3" and "dim 4", or two unexpected tokens, are one
/// feature (otherwise every mutated token would count as new).
std::string messageKind(llvm::StringRef text) {
  std::string out;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      quote = c == quote ? 0 : quote;
      continue;
    }
    if (c == '\'' || c == '"' || c == '`')
      quote = c;
    else if (c < '0' || c > '9')
      out.push_back(c);
    if (out.size() == 48)
      break;
  }
  return out;
}

/// Reports every pass that ran (or failed) under `target` as a feature.
class PassFeatures : public PassInstrumentation {
public:
  explicit PassFeatures(std::string target) : target_(std::move(target)) {}
  void runAfterPass(Pass *pass, Operation *) override {
    feature(target_ + " ran", pass->getArgument());
  }
  void runAfterPassFailed(Pass *pass, Operation *) override {
    feature(target_ + " failed", pass->getArgument());
  }

private:
  std::string target_;
};

LogicalResult run(ModuleOp module, const std::string &target,
                  llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  pm.addInstrumentation(std::make_unique<PassFeatures>(target));
  build(pm);
  return pm.run(module);
}

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "frontend fuzzer: %s\n", what.c_str());
  std::abort();
}

/// Programs, manifest description and tiled kernels for `target`.
void compileFor(ModuleOp original, const std::string &target) {
  OwningOpRef<ModuleOp> module(cast<ModuleOp>(original->clone()));
  if (failed(run(*module, target, [&](OpPassManager &pm) {
        attnc::buildProgramPipeline(pm, target);
      })))
    return;
  FailureOr<std::vector<attnc::pkg::Function>> functions =
      attnc::describePrograms(*module);
  if (failed(functions))
    return;
  if (failed(run(*module, target, [&](OpPassManager &pm) {
        if (target == "host")
          attnc::buildHostKernelPipeline(pm);
        else
          attnc::buildGpuKernelPipeline(pm, target);
      })))
    return;
  if (failed(attnc::describeLaunches(*module, target, target, *functions)))
    return;
  attnc::pkg::Package package;
  package.producer = "fuzzer";
  package.functions = std::move(*functions);
  package.blobs.push_back({target, target == "host" ? "host-so" : "cubin",
                           std::vector<uint8_t>(1, 0)});
  if (attnc::Status s = attnc::pkg::verify(package); !s)
    fail("the compiler described an invalid package: " + s.message());
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  __sanitizer_cov_8bit_counters_init(featureCounters,
                                     featureCounters + sizeof(featureCounters));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  DialectRegistry registry;
  attnc::registerAttncDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler diagnostics(&context, [](Diagnostic &diag) {
    feature("diagnostic", messageKind(diag.str()));
    return success();
  });
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return 0;
  module->walk([](Operation *op) {
    feature("op", op->getName().getStringRef());
  });
  bool backward = size % 2 == 1;
  if (failed(run(*module, "frontend", [&](OpPassManager &pm) {
        attnc::buildFrontendPipeline(pm, {backward, /*deterministic=*/false});
      })))
    return 0;
  compileFor(*module, "host");
  compileFor(*module, "sm_90a");
  return 0;
}
