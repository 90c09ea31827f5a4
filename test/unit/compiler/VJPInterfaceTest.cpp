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

constexpr const char *kSoftcapAttention = R"mlir(
  func.func @f(%q: tensor<1x4x8x16xbf16>, %k: tensor<1x2x8x16xbf16>,
               %v: tensor<1x2x8x16xbf16>, %do: tensor<1x4x8x16xbf16>,
               %dl: tensor<1x4x8xf32>) -> tensor<1x4x8x16xbf16> {
    %o, %l = attn.attention %q, %k, %v {causal, scale = 0.25 : f32}
        : tensor<1x4x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>
        -> tensor<1x4x8x16xbf16>, tensor<1x4x8xf32>
      score {
      ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
        %t = math.tanh %s : f32
        attn.yield %t : f32
      }
    return %o : tensor<1x4x8x16xbf16>
  }
)mlir";

/// The gradient of attention is one attn.attention_grad over the op's
/// operands and results and the out cotangent, with its attributes and
/// regions; lse is saved, not differentiated.
TEST_F(CompilerVJPTest, AttentionBuildsAttentionGrad) {
  context.loadDialect<math::MathDialect>();
  parse(kSoftcapAttention);
  auto attention = cast<attn::AttentionOp>(op);
  EXPECT_TRUE(attention.isDifferentiableResult(0));
  EXPECT_FALSE(attention.isDifferentiableResult(1));
  Value dout = function.getArgument(3);
  FailureOr<SmallVector<Value>> grads = vjp(ValueRange{dout, Value()});
  ASSERT_TRUE(succeeded(grads));
  ASSERT_EQ(grads->size(), 3u);
  auto grad = (*grads)[0].getDefiningOp<attn::AttentionGradOp>();
  ASSERT_TRUE(grad);
  EXPECT_EQ((*grads)[1].getDefiningOp(), grad.getOperation());
  EXPECT_EQ(grad.getOut(), attention.getOut());
  EXPECT_EQ(grad.getLse(), attention.getLse());
  EXPECT_EQ(grad.getDout(), dout);
  EXPECT_TRUE(grad.getCausal());
  EXPECT_EQ(grad.getEffectiveScale(), 0.25f);
  EXPECT_FALSE(grad.getScore().empty());
  EXPECT_TRUE(grad.getScoreGrad().empty()); // attn-differentiate-score's job
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(CompilerVJPTest, AttentionWithoutCotangentGivesNone) {
  context.loadDialect<math::MathDialect>();
  parse(kSoftcapAttention);
  FailureOr<SmallVector<Value>> grads = vjp(ValueRange{Value(), Value()});
  ASSERT_TRUE(succeeded(grads));
  ASSERT_EQ(grads->size(), 3u);
  EXPECT_TRUE(llvm::all_of(*grads, [](Value v) { return !v; }));
}

/// A cotangent of lse is refused at the op rather than ignored.
TEST_F(CompilerVJPTest, AttentionRefusesAnLseCotangent) {
  context.loadDialect<math::MathDialect>();
  parse(kSoftcapAttention);
  FailureOr<SmallVector<Value>> grads =
      vjp(ValueRange{function.getArgument(3), function.getArgument(4)});
  EXPECT_TRUE(failed(grads));
  EXPECT_NE(diagnostics.find("cannot differentiate through lse"),
            std::string::npos)
      << diagnostics;
}

} // namespace
