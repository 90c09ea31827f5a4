//===- AttnDialect.cpp - The attn dialect ---------------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "dialects/attn/AttnDialect.h"
#include "dialects/attn/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::attn;

#include "dialects/attn/AttnOpsDialect.cpp.inc"

#include "dialects/attn/AttnEnums.cpp.inc"

#include "dialects/attn/AttnInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/attn/AttnAttrs.cpp.inc"

void AttnDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/attn/AttnOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/attn/AttnAttrs.cpp.inc"
      >();
}
