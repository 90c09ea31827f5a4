//===- AttnDialect.h - The attn dialect -------------------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_DIALECTS_ATTN_ATTNDIALECT_H
#define ATTNC_DIALECTS_ATTN_ATTNDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/attn/AttnOpsDialect.h.inc"

#endif // ATTNC_DIALECTS_ATTN_ATTNDIALECT_H
