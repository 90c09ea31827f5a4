//===- VJPInterfaceTest.cpp - Gradient rules through VJPOpInterface -------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Autodiff asks each op for its vector-Jacobian product through
// VJPOpInterface; these tests build products the way it will.
//
//===----------------------------------------------------------------------===//

#include "dialects/attn/AttnDialect.h"
#include "dialects/attn/AttnOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

class CompilerVJPTest : public ::testing::Test {
protected:
  CompilerVJPTest() {
    context.loadDialect<attn::AttnDialect, func::FuncDialect>();
    context.getDiagEngine().registerHandler([this](Diagnostic &diag) {
      diagnostics += diag.str() + "\n";
    });
  }

  /// Parses `source`, a function @f whose first op is the one under test
  /// and whose last argument is the cotangent of its result.
  void parse(const char *source) {
    module = parseSourceString<ModuleOp>(source, &context);
    ASSERT_TRUE(module);
    function = cast<func::FuncOp>(module->getBody()->front());
    op = &function.getBody().front().front();
  }

  /// Builds op's VJP for `cotangents` right after the op.
  FailureOr<SmallVector<Value>> vjp(ValueRange cotangents) {
    auto differentiable = dyn_cast<attn::VJPOpInterface>(op);
    if (!differentiable)
      return failure();
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    return differentiable.buildVJP(b, cotangents);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp function;
  Operation *op = nullptr;
  std::string diagnostics;
};

constexpr const char *kScaledCast = R"mlir(
  func.func @f(%x: tensor<4x8xf32>, %dy: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
    %y = attn.cast %x {scale = 1024.0 : f32} : tensor<4x8xf32> to tensor<4x8xbf16>
    return %y : tensor<4x8xbf16>
  }
)mlir";

/// d x = d y * scale, back in the input's type: a cast with the same scale.
TEST_F(CompilerVJPTest, CastScalesTheCotangentBack) {
  parse(kScaledCast);
  Value dy = function.getArgument(1);
  FailureOr<SmallVector<Value>> dx = vjp(dy);
  ASSERT_TRUE(succeeded(dx));
  ASSERT_EQ(dx->size(), 1u);
  auto back = (*dx)[0].getDefiningOp<attn::CastOp>();
  ASSERT_TRUE(back);
  EXPECT_EQ(back.getIn(), dy);
  EXPECT_EQ(back.getOut().getType(), function.getArgument(0).getType());
  EXPECT_EQ(back.getScale()->convertToFloat(), 1024.0f);
  EXPECT_TRUE(succeeded(verify(*module)));
}

/// A result that does not reach the loss gives the operand no cotangent.
TEST_F(CompilerVJPTest, CastWithoutCotangentGivesNone) {
  parse(kScaledCast);
  FailureOr<SmallVector<Value>> dx = vjp(ValueRange{Value()});
  ASSERT_TRUE(succeeded(dx));
  ASSERT_EQ(dx->size(), 1u);
  EXPECT_FALSE((*dx)[0]);
}

/// A cotangent of another type is an error at the op, not a wrong product.
TEST_F(CompilerVJPTest, CastRejectsACotangentOfAnotherType) {
  parse(kScaledCast);
  FailureOr<SmallVector<Value>> dx = vjp(function.getArgument(0));
  EXPECT_TRUE(failed(dx));
  EXPECT_NE(diagnostics.find("expected the result cotangent to be "
                             "'tensor<4x8xbf16>', got 'tensor<4x8xf32>'"),
            std::string::npos)
      << diagnostics;
}

TEST_F(CompilerVJPTest, CastNeedsOneCotangentPerResult) {
  parse(kScaledCast);
  Value dy = function.getArgument(1);
  EXPECT_TRUE(failed(vjp(ValueRange{dy, dy})));
  EXPECT_NE(diagnostics.find("expected one result cotangent, got 2"),
            std::string::npos)
      << diagnostics;
}

} // namespace
