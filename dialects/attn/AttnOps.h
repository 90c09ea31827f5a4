//===- AttnOps.h - attn dialect operations and attributes -------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_DIALECTS_ATTN_ATTNOPS_H
#define ATTNC_DIALECTS_ATTN_ATTNOPS_H

#include "dialects/attn/AttnDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallVector.h"

#include "dialects/attn/AttnEnums.h.inc"

#include "dialects/attn/AttnInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/attn/AttnAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/attn/AttnOps.h.inc"

#endif // ATTNC_DIALECTS_ATTN_ATTNOPS_H
