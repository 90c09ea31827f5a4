//===- attn-opt.cpp - Run attnc passes on MLIR files ----------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  attnc::registerAttncPassesAndPipelines();

  mlir::DialectRegistry registry;
  attnc::registerAttncDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "attnc optimizer driver\n", registry));
}
