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

#include <cmath>
#include <optional>
#include <string>

#include "dialects/attn/AttnEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/attn/AttnAttrs.h.inc"

#include "dialects/attn/AttnInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/attn/AttnOps.h.inc"

namespace mlir::attn {
/// Function attributes of autodiff: `attn.backward` asks attn-derive-backward
/// for a function's backward function, which carries `attn.gradient_of =
/// @forward` (and keeps it as a program, so the package records it).
inline constexpr llvm::StringLiteral kBackwardAttrName = "attn.backward";
inline constexpr llvm::StringLiteral kGradientOfAttrName = "attn.gradient_of";
/// The result attribute of a backward function naming the argument of the
/// forward function whose gradient the result is (captures have none, so
/// results and arguments need not line up).
inline constexpr llvm::StringLiteral kGradientOfArgumentAttrName =
    "attn.gradient_of_argument";
/// The argument attribute of a backward function's cotangent argument
/// naming the forward function's result it is the cotangent of.
inline constexpr llvm::StringLiteral kCotangentOfResultAttrName =
    "attn.cotangent_of_result";
/// The attribute of a forward op that a backward function recomputes (the
/// clone of a forward op whose results its remat policy does not save). A
/// training step with `remat` keeps these apart from its forward part's,
/// which CSE would otherwise merge them with; kernels never see it.
inline constexpr llvm::StringLiteral kRecomputeAttrName = "attn.recompute";
/// The result attribute of a forward function's result that autodiff added
/// for its backward function to read (a saved activation).
inline constexpr llvm::StringLiteral kSavedAttrName = "attn.saved";
/// The argument attribute naming a function's argument as its source does
/// (`%wq` -> "wq"): attnc keeps the parsed names, and a package names its
/// inputs (and their gradients, "dwq") after them.
inline constexpr llvm::StringLiteral kArgumentNameAttrName = "attn.name";
/// A training step's arguments and results marked `attn.flat` hold every
/// parameter in turn (a rank-1 tensor); its function attribute
/// `attn.segments` says where: an array of {name, shape, offset}
/// dictionaries in order, as the package's pkg::Segment. A state split into
/// chunks marks each tensor with its chunk's index (an integer, not a unit
/// attribute), and each segment names its `chunk`.
inline constexpr llvm::StringLiteral kFlatAttrName = "attn.flat";
inline constexpr llvm::StringLiteral kSegmentsAttrName = "attn.segments";
/// The result attribute naming the argument a result may overwrite in place
/// (a training step's new state, `"params"` on `new_params`): the package's
/// pkg::Function::updates.
inline constexpr llvm::StringLiteral kUpdatesAttrName = "attn.updates";

/// Largest static extent of any dim of an attn op: indices stay far from
/// int64 overflow and fit the 32-bit grid dimensions of the GPU backend.
inline constexpr int64_t kMaxExtent = (int64_t(1) << 31) - 1;

/// A shape as diagnostics write it, "[4, ?, 64]".
std::string shapeString(llvm::ArrayRef<int64_t> shape);
/// A row kernel's block_size, when given, is in [1, 1024]: "expected
/// block_size in [1, 1024], got 0".
LogicalResult verifyBlockSize(Operation *op, std::optional<int64_t> block);
/// Checks that every static dim of `type` (`name` in messages) is in
/// [1, kMaxExtent]: "a dim 0 is 0; static dims must be in [1, ...]".
LogicalResult verifyExtents(Operation *op, llvm::StringRef name,
                            RankedTensorType type);

/// Tensor-core rules, shared by the verifiers and the kernel-config step:
/// whether `blockM` x `blockN` tiles fit kernel `mma` (a warp owns 16 query
/// rows and loads keys in pairs of 8-key fragments; a warpgroup owns 64 rows
/// and its products are m64n64 or m64n128)...
bool tilesFitMma(MmaKind mma, int64_t blockM, int64_t blockN);
/// ... and whether `op`'s inputs do: 16-bit elements, head dims that are
/// multiples of 16 (mma.sync fragments; wgmma up to 256, its tiles padded
/// to whole 128-byte swizzle panels).
bool elementFitsMma(Type element);
bool headDimFitsMma(MmaKind mma, int64_t headDim);
/// Whether the wgmma key/value gradient kernel can add dq at `headDim`:
/// its two warpgroups split dq's columns in halves that must start on a
/// whole swizzle panel.
bool wgmmaKeyValueAddsDq(int64_t headDim);
/// The warpgroups of a wgmma kernel of `blockM` x `blockN` tiles: one per
/// 64 rows it owns, query rows, or keys where it owns keys (`ownsKeys`,
/// attention_grad_kv).
int64_t wgmmaWarpgroups(int64_t blockM, int64_t blockN, bool ownsKeys);

/// The role name of an attention dim class ("B", "Nq", "Nk") shared by the
/// forward and gradient kernels, or empty.
llvm::StringRef attentionDimName(int64_t dimClass);

/// The predicate of a region's comparison op in arith's spelling (the one
/// the region op table and the manifest use); empty for other ops.
std::string regionPredicate(Operation *op);

/// x + y as an attn.elementwise of x's type (gradients that meet).
Value buildElementwiseSum(OpBuilder &b, Location loc, Value x, Value y);

/// The activation a linear layer's epilogue may apply (attn.matmul's
/// `activation`): GELU's tanh form, cuBLASLt's GELU epilogue.
inline constexpr llvm::StringLiteral kGeluTanh = "gelu_tanh";
/// `activation` of f32 `x`, as scalar ops at `b`'s insertion point: the one
/// form the host kernel computes, the gradient rule differentiates and
/// attn-fuse-activations recognizes.
Value buildMatmulActivation(OpBuilder &b, Location loc,
                            llvm::StringRef activation, Value x);
} // namespace mlir::attn

#endif // ATTNC_DIALECTS_ATTN_ATTNOPS_H
