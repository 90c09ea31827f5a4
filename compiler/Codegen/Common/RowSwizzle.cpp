//===- RowSwizzle.cpp - The dq accumulator's row order --------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Codegen/Common/RowSwizzle.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

Value attnc::swizzledColumn(OpBuilder &b, Location loc, Value row,
                            Value column, int64_t width) {
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto div = [&](Value x, int64_t d) {
    return arith::DivUIOp::create(b, loc, x, index(d)).getResult();
  };
  auto rem = [&](Value x, int64_t d) {
    return arith::RemUIOp::create(b, loc, x, index(d)).getResult();
  };
  auto mul = [&](Value x, int64_t m) {
    return arith::MulIOp::create(b, loc, x, index(m)).getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y).getResult();
  };
  Value within = rem(column, width);
  Value group = arith::SubIOp::create(b, loc, column, within);
  Value pair = div(rem(within, 8), 2);
  Value slot = rem(add(add(mul(div(within, 16), 4), pair), mul(rem(row, 8), 4)),
                   width / 4);
  // The pair's place in the slot (first or second 8 columns) and the
  // column's place in the pair.
  Value inSlot = add(mul(rem(div(within, 8), 2), 2), rem(within, 2));
  return add(group, add(mul(slot, 4), inSlot));
}
