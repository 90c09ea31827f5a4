//===- RegionTangents.h - Forward-mode derivatives of region ops -*- C++
//-*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Derivatives of the scalar code of regions (mask, score, elementwise
// bodies), which hold only ops of the region op table: the ops of a block
// are cloned and each float value that depends on a seeded argument gets a
// tangent built from the same table's ops, following each row's gradient
// rule. Values that depend on no seed have no tangent (zero) and cost
// nothing. The score's derivative (attn-differentiate-score) and the
// gradient of attn.elementwise both use it.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_DIALECTS_ATTN_REGIONTANGENTS_H
#define ATTNC_DIALECTS_ATTN_REGIONTANGENTS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::attn {

/// Clones the ops of `source` (without its terminator) at `b`'s insertion
/// point, its arguments mapped by `mapping`, and returns the tangents of
/// the clones of `values` (null: zero) given the tangents `seeds` of source
/// arguments. `wrt` names what is differentiated in errors ("the score"):
/// an op that is piecewise constant in it fails with a located error.
FailureOr<SmallVector<Value>>
cloneWithTangents(OpBuilder &b, Block &source, IRMapping &mapping,
                  ArrayRef<std::pair<BlockArgument, Value>> seeds,
                  ValueRange values, StringRef wrt);

} // namespace mlir::attn

#endif // ATTNC_DIALECTS_ATTN_REGIONTANGENTS_H
