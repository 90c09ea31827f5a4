//===- Package.h - The attnc package: manifest data model and file format -===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A package is the whole contract between the compiler and the runtime: one
// file holding a versioned JSON manifest and the binary blobs the kernels
// live in (host shared library, cubin, PTX). Each function of the manifest
// is a program: tensor signatures with symbolic dims, intermediate buffers,
// the steps that launch its kernels in order, the kernels per target with
// their launch metadata, and the ops the function computes, so that it can
// be checked against an fp64 reference. Neither side includes the other's
// headers; both include this one.
//
// File layout (all integers little-endian):
//   offset  0: magic "ATTNPKG\0"                        8 bytes
//   offset  8: container version (kContainerVersion)     u32
//   offset 12: header size in bytes (kHeaderSize)        u32
//   offset 16: manifest size in bytes                    u64
//   offset 24: blob section size in bytes                u64
//   offset 32: FNV-1a 64 of manifest and blob section    u64
//   offset 40: manifest (UTF-8 JSON), then the blob section.
// Each blob is a byte range of the blob section named by the manifest, with
// its own FNV-1a 64 checksum.
//
// Manifest conventions: a field whose member below is std::optional may be
// omitted, as may a region op's "predicate" and "value" and a grid term's
// "ceildiv"; every other field is required and unknown fields are errors.
// A float ("scale", an op's "value") is a JSON number or one of the strings
// "inf", "-inf", "nan".
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_PACKAGE_PACKAGE_H
#define ATTNC_PACKAGE_PACKAGE_H

#include "attnc/Status.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnc::pkg {

inline constexpr char kMagic[8] = {'A', 'T', 'T', 'N', 'P', 'K', 'G', '\0'};
inline constexpr uint32_t kContainerVersion = 1;
inline constexpr uint32_t kHeaderSize = 40;
/// Version of the manifest's JSON schema ("schema_version"). A reader refuses
/// any other version with a message naming both. Version 2 made functions
/// programs of several kernels; version 1 packages must be recompiled.
inline constexpr int64_t kSchemaVersion = 2;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

enum class DType { F32, F16, BF16, F64, I1, I32, I64, F8E4M3FN, F8E5M2 };

/// Manifest spelling: "f32", "f16", "bf16", "f64", "i1", "i32", "i64",
/// "f8e4m3fn", "f8e5m2".
std::string_view dtypeName(DType type);
std::optional<DType> parseDType(std::string_view name);
/// Bytes per element (1 for i1 and the fp8 types).
size_t dtypeSize(DType type);

//===----------------------------------------------------------------------===//
// Tensor signatures
//===----------------------------------------------------------------------===//

/// One dimension of a signature: a static extent, or a symbol. Every use of a
/// symbol within one function binds to the same extent at call time.
/// JSON: an integer >= 0, or a string symbol name.
struct Dim {
  int64_t extent = -1; // >= 0 when static
  std::string symbol;  // non-empty when symbolic
  bool isStatic() const { return symbol.empty(); }
  static Dim fixed(int64_t n) { return Dim{n, {}}; }
  static Dim named(std::string s) { return Dim{-1, std::move(s)}; }
};

/// JSON: {"name": "q", "dtype": "bf16", "shape": ["B", 16, "N", 128]}.
/// An integer input whose elements index something (a loss's labels) may
/// say how many things: "index_bound": 50304; tools draw its values in
/// [0, index_bound). It is a hint, not a check.
struct TensorSig {
  std::string name;
  DType dtype = DType::F32;
  std::vector<Dim> shape;
  std::optional<int64_t> indexBound;
};

//===----------------------------------------------------------------------===//
// Kernels and launch metadata
//===----------------------------------------------------------------------===//

/// A factor of a grid extent: ceil(constant * (product of the symbols'
/// extents) / divisor), e.g. query blocks ceil(N / 64) or the element blocks
/// of a cast, ceil(128 * B * N / 1024).
/// JSON: an integer (a constant), or {"sym": "N" or ["B", "N"],
/// "const": 128, "ceildiv": 64} ("const" and "ceildiv" default to 1).
struct GridTerm {
  int64_t constant = 1;
  std::vector<std::string> symbols; // empty for a constant factor
  int64_t divisor = 1;
};

/// One kernel of a function for one target. Its entry takes the arguments of
/// the step that launches it (Step::args), in order.
///
/// Host ABI: the blob is an ELF shared library exporting
///   extern "C" void entry(void **args, int64_t blockBegin, int64_t blockEnd);
/// where args[i] points to an MLIR strided memref descriptor of argument i
///   struct { void *allocated; void *aligned; int64_t offset;
///            int64_t sizes[rank]; int64_t strides[rank]; }
/// (offset and strides in elements), and the call runs the blocks with linear
/// ids in [blockBegin, blockEnd) of the grid (x fastest). Calls on disjoint
/// ranges may run concurrently.
///
/// CUDA ABI (targets "sm_XY", "sm_90a" for compute capability 9.0): the blob
/// is a cubin (kind "cubin", an ELF image for exactly that chip) or PTX
/// (kind "ptx", NUL-free text the driver compiles when the package is
/// loaded), and `entry` names a `.entry` kernel whose parameters are, for
/// each argument in order, MLIR's expanded memref convention
///   void *allocated, void *aligned, int64_t offset,
///   int64_t sizes[rank], int64_t strides[rank]
/// (offset and strides in elements; the runtime passes allocated = aligned =
/// the tensor's data pointer and offset 0). It is launched with grid (x, y, z)
/// from `grid`, `block` threads per block and `dynamicSharedMemoryBytes` of
/// dynamic shared memory (above 48 KiB the runtime opts the kernel in), on
/// the caller's stream (a CUstream; null is the legacy default stream).
///
/// A CUDA kernel may also take tensor maps (`tensorMaps`): after the memref
/// parameters, one 128-byte parameter (64-byte aligned, a grid constant)
/// per map, a CUtensorMap of step argument `arg` that the runtime encodes
/// at each launch (cuTensorMapEncodeTiled: the argument's data pointer,
/// sizes and byte strides, its dims reversed, with the map's box and
/// swizzle); then one int64_t whose bit i says whether map i could be made
/// (a 16-byte aligned base, unit inner stride, other strides multiples of
/// 16 bytes). A map that could not be made is zeros, and the kernel must
/// not read it.
///
/// Grid record (both ABIs): beside the entry, the code holds the constant
/// int64_t array `<entry>_grid` (host: a symbol of the library; CUDA: a
/// global of the module) = {words, extents, then per extent: constant,
/// divisor, n, then n pairs (argument, dim)}: extent d is
/// ceil(constant * (product of the n argument dims) / divisor), up to three
/// extents, the rest 1. The runtime launches only a grid from `grid` equal
/// to the one the record gives for the same arguments.
/// A TMA tensor map a CUDA kernel takes (see Kernel).
/// JSON: {"arg": 1, "box": [64, 128, 1, 1], "swizzle_bytes": 128}.
struct TensorMap {
  int64_t arg = 0;
  /// Box extents, innermost first (the argument's dims reversed).
  std::vector<int64_t> box;
  int64_t swizzleBytes = 0; // 0 or 128
};

/// A library kernel (`library` set) is a routine the device runs instead of
/// code of the package: it has no blob, entry ("" both), grid, block or
/// tensor maps, and only CUDA targets have one. The routines:
///   "cublaslt_matmul": the step's arguments are [a, b, out], [a, b,
///       bias, out], [a, b, addend, out] or [a, b, bias, addend, out], of
///       an op of kind "matmul" (see OpSpec), run by cuBLASLt with config
///       "transpose_a" and "transpose_b" (0 or 1) as that op's, and "bias"
///       and "addend" (0 or 1, optional) when it has them; each
///       operand's leading dims must collapse into rows of unit inner
///       stride, or the launch fails.
struct Kernel {
  /// Unique per target within the function; steps launch kernels by name.
  std::string name;
  std::string target; // "host" or a CUDA chip such as "sm_90a"
  std::string blob;   // name of the blob holding the code
  std::string entry;  // symbol of the entry point in the blob
  /// JSON "library", left out for a kernel of the package's code.
  std::optional<std::string> library;
  /// Up to three grid extents; each is the product of its terms. Symbols are
  /// the function's.
  std::vector<std::vector<GridTerm>> grid;
  /// Threads per block (GPU targets; {1, 1, 1} on the host).
  int64_t block[3] = {1, 1, 1};
  int64_t dynamicSharedMemoryBytes = 0;
  /// Tile configuration the compiler chose ("block_m", "block_n", ...).
  std::map<std::string, int64_t> config;
  /// Resource report of the code generator ("registers", "spill_stores", ...).
  std::map<std::string, int64_t> resources;
  /// JSON "tensor_maps", left out when empty (CUDA targets only).
  std::vector<TensorMap> tensorMaps;
};

//===----------------------------------------------------------------------===//
// What a function computes (for reference checking)
//===----------------------------------------------------------------------===//

/// A mask or score region as straight-line SSA code. Values are numbered:
/// first the region arguments (mask: b, h, q_idx, k_idx; score: s, b, h,
/// q_idx, k_idx; then the attention's captures, tensors that only
/// "tensor.extract" reads), then one value per op in order. `yield` names
/// the result.
/// JSON: {"num_args": 4, "ops": [...], "yield": 7}, and "num_captures": 1
/// when there are captures.
struct RegionOp {
  /// MLIR op name, one of lib/semantics/RegionOps.def: "arith.constant",
  /// "arith.addi", "arith.cmpi", "arith.select", "math.tanh", ...
  std::string name;
  std::vector<int64_t> operands;
  /// Result type: "index", "i1", "i32", "i64", "f32", "f64", ...
  std::string type;
  /// arith.cmpi / arith.cmpf predicate ("slt", "oge", ...); empty otherwise.
  std::string predicate;
  /// arith.constant value. Float constants: `value` (JSON: a number or
  /// "inf", "-inf", "nan"). Integer constants: `intValue`, the constant's
  /// bits sign-extended from its width (JSON: an integer), so that 64-bit
  /// constants stay exact.
  double value = 0;
  int64_t intValue = 0;
};

struct Region {
  int64_t numArgs = 0; // including the captures
  std::vector<RegionOp> ops;
  int64_t yield = -1;
  int64_t numCaptures = 0; // the last arguments
};

/// Semantics of attn.attention, as the compiler understood them.
/// out[b,h,i,:] = sum_j softmax_j(score(scale * q[b,h,i]·k[b,h/g,j], ...)
///                restricted to allowed (i, j)) * v[b,h/g,j,:]
/// with g = Hq / Hkv; lse[b,h,i] = natural-log sum-exp of the allowed scores.
/// A row with no allowed key has out = 0 and lse = -inf.
/// The shorthands compare k_idx with r = q_idx, or with r = q_idx + Nk - Nq
/// when bottomRight.
/// Captures are tensors the regions read (attn.attention's `captures`):
/// the op's last operands, as many as `numCaptures`; each region takes them
/// all as its last arguments. An index outside a capture reads 0.
/// JSON (inside an OpSpec): "scale": 0.125, "causal": true,
///       "bottom_right": true (only when set), "window_left": 128,
///       "window_right": 0, "mask": {...}, "score": {...}, "captures": 1
///       (only when there are).
struct AttentionSpec {
  double scale = 1.0;
  bool causal = false;                // allowed only if k_idx <= r
  bool bottomRight = false;           // r = q_idx + Nk - Nq, else q_idx
  std::optional<int64_t> windowLeft;  // allowed only if r - k_idx <= left
  std::optional<int64_t> windowRight; // allowed only if k_idx - r <= right
  std::optional<Region> mask;         // allowed only if it yields true
  std::optional<Region> score;        // replaces the scaled score
  int64_t numCaptures = 0;
};

/// Semantics of attn.cast: out = round(in * scale) to the result's dtype
/// (round to nearest even; see lib/dtype/DType.h for overflow).
/// JSON (inside an OpSpec): "scale": 1024.
struct CastSpec {
  double scale = 1.0;
};

/// Semantics of attn.elementwise: out_k[i] = round(body_k(in0[i], in1[i],
/// ...)) to result k's dtype, for every index i of the common shape, with
/// one body per result. A body takes one float per operand (the reference
/// computes in double) and yields a float; it has no captures.
/// JSON (inside an OpSpec): "bodies": [{...a Region...}, ...].
struct ElementwiseSpec {
  std::vector<Region> bodies;
};

/// Semantics of attn.matmul, with a tensor [r0, ..., rk, c] read as the
/// matrix [r0 * ... * rk, c] (its rows): out = A B, accumulated exactly and
/// rounded once, where A is a (transposeA: a's rows transposed, [c, rows])
/// and B is b ([K, N]; transposeB: b is [N, K] and B its transpose). out
/// has a's rows, or is [M, N] with transposeA (a and b then share rows).
/// With addend, the last operand is a tensor of out's shape added element
/// by element before the rounding. With an activation (a linear layer
/// without an addend), each element of the sum, bias included, goes
/// through it before the rounding: "gelu_tanh" is 0.5 x (1 + tanh(
/// 0.7978845608 (x + 0.044715 x^3))), its constants rounded to f32 as the
/// kernels hold them (lib/semantics/Activations.h).
/// JSON (inside an OpSpec): "transpose_a": false, "transpose_b": true,
/// "addend": true (optional, false when absent), "activation": "gelu_tanh"
/// (optional, none when absent).
struct MatmulSpec {
  bool transposeA = false;
  bool transposeB = false;
  bool addend = false;
  std::string activation;
};

/// The config of a "cublaslt_matmul" kernel (see Kernel) that computes a
/// matmul of `spec`, with a bias operand or not: what the compiler writes
/// and the verifier checks a library kernel against.
std::map<std::string, int64_t> cublasLtMatmulConfig(const MatmulSpec &spec,
                                                    bool bias);

/// Semantics of attn.rms_norm over rows [r..., D]: rstd[r] = 1 /
/// sqrt(mean_d(x[r, d]^2) + epsilon), out[r, d] = x[r, d] * rstd[r] *
/// weight[d]. attn.layer_norm centres the row first: with xc = x - mean_d(x),
/// rstd = 1 / sqrt(mean_d(xc^2) + epsilon), out = xc * rstd * weight + bias.
/// JSON (inside an OpSpec): "epsilon": 1e-06.
struct NormSpec {
  double epsilon = 0;
};

/// The label that does not count, of the loss op kinds; for a vocabulary
/// chunk's op, the chunk's first class; for the combine of chunks, the
/// classes in all.
/// JSON (inside an OpSpec): "ignore_index": -100, "vocab_offset": 8192
/// (optional, 0 when absent), "vocab_size": 50304 (only, and always, for
/// "cross_entropy_combine").
struct LossSpec {
  int64_t ignoreIndex = -100;
  int64_t vocabOffset = 0;
  std::optional<int64_t> vocabSize;
};

/// One op of a function's computation, in program order. Operands and
/// results name values of the function (inputs, outputs, buffers); a result
/// that nothing keeps is "" (an attention's unused lse). Every value has the
/// dtype of its signature: the reference rounds each result to it.
/// JSON: {"kind": "attention", "operands": ["q", "k", "v"],
///        "results": ["t0", ""], ...the fields of its spec}.
///
/// The kinds, as operands -> results, and their spec:
/// The captures of an AttentionSpec follow the operands listed here.
///   "attention"  [q, k, v] -> [out, lse]; AttentionSpec.
///   "cast"       [in] -> [out]; CastSpec.
///   "elementwise"  [in0, in1, ...] (one or more) -> [out0, ...] (one or
///       more); ElementwiseSpec.
///   "matmul"  [a, b], [a, b, bias], then the addend if MatmulSpec has
///       one -> [out]; MatmulSpec. A bias [N] (not with transposeA) is
///       added to every row before the rounding.
///   "rms_norm"  [x, weight] -> [out, rstd]; NormSpec.
///   "layer_norm"  [x, weight] or [x, weight, bias] -> [out, rstd];
///       NormSpec.
///   "rms_norm_grad"  [x, weight, rstd, dout] -> [dx, dweight_partial];
///       no spec. With xhat = x * rstd and g = dout * weight per row,
///       dx = rstd * (g - xhat * mean_d(g * xhat)); row i of the rows adds
///       dout * xhat into dweight_partial [P, D] row i mod P.
///   "layer_norm_grad"  [x, weight, rstd, dout] -> [dx, dweight_partial];
///       no spec. As rms_norm_grad with xhat = (x - mean_d(x)) * rstd and
///       dx = rstd * (g - mean_d(g) - xhat * mean_d(g * xhat)).
///   Either gradient may take a fifth operand, an addend of dx's shape
///   added to dx before the rounding.
///   "sum_rows"  [in] -> [out]; no spec. out[d] = sum of in[r..., d] over
///       every leading index.
///   "sum_squares"  [in] -> [out]; no spec. As sum_rows of in[r..., d]^2.
///   "embedding"  [table, ids] -> [out]; no spec. out[r, :] = table[ids[r],
///       :] for a table [V, D]; a row of NaN for an id outside [0, V).
///   "token_order"  [ids] -> [order, bounds]; no spec. order (the ids'
///       shape) holds the flat token indices sorted by id, stably, then one
///       -1 per id outside [0, V); bounds [V + 1]: id v's tokens are
///       order[bounds[v]] to order[bounds[v + 1] - 1]. Both i32.
///   "embedding_grad"  [order, bounds, dout] -> [dtable]; no spec. dtable
///       [V, D] row v = the sum of the dout rows of id v's tokens (from
///       token_order), in token order.
///   "cross_entropy"  [logits, labels] -> [losses, lse]; LossSpec. Over
///       logits [R, V] and integer labels [R]: lse = log sum_v exp(logits),
///       losses = lse - logits[label]; 0 where label is ignoreIndex, NaN
///       where it is outside [0, V) otherwise.
///   "cross_entropy_grad"  [logits, labels, lse, dlosses] -> [dlogits];
///       LossSpec. dlogits = (exp(logits - lse) - onehot(label)) * dlosses,
///       0 on an ignored row; with a vocab_offset o the logits [R, Vc] are
///       classes [o, o + Vc) of the rows, and onehot compares v + o.
///   "cross_entropy_partial"  [logits, labels] -> [lse, target]; LossSpec
///       with vocab_offset o. Over a chunk's logits [R, Vc], classes [o, o
///       + Vc): lse [1, R] = log sum_v exp(logits), target [1, R] = the
///       label's logit when label - o is in [0, Vc), else 0.
///   "cross_entropy_combine"  [lse_parts, targets, labels] -> [losses,
///       lse]; LossSpec with vocab_size V. Over the chunks' parts [P, R]:
///       lse = log sum_p exp(lse_parts), losses = lse - sum_p targets; 0
///       where label is ignoreIndex, NaN where it is outside [0, V)
///       otherwise.
///   "token_mean"  [values, labels] -> [mean]; LossSpec. mean (shape [])
///       = the sum of values over the tokens whose label is not
///       ignoreIndex, divided by their count.
///   "token_mean_grad"  [labels, dmean] -> [dvalues]; LossSpec. dvalues =
///       dmean / count on a counted token, 0 on an ignored one.
///   "split_heads"  [x] or [x, cos, sin] -> [out]; no spec. x [B, N, H *
///       D] to out [B, H, N, D], out[b, h, n, d] = x[b, n, h * D + d], with
///       the tables [N, R/2] rotating the first R dims of each head: for
///       i < R/2, x1 = the element at i, x2 = the one at i + R/2,
///       out[i] = x1 cos[n, i] - x2 sin[n, i], out[i + R/2] = x2 cos + x1
///       sin.
///   "merge_heads"  [y] or [y, cos, sin] -> [out]; no spec. The transpose:
///       y [B, H, N, D] to out [B, N, H * D], out[i] = y1 cos + y2 sin,
///       out[i + R/2] = y2 cos - y1 sin.
/// The backward pass of an attention (lib/reference/AttentionGrad.h defines
/// the gradients; shapes as in AttentionSpec, lse and delta [B, Hq, Nq]):
///   "attention_grad_delta"  [out, dout] -> [delta, dq_accum]; no spec.
///       delta = rowsum(out ∘ dout); dq_accum = zeros of its signature's
///       shape, [B, Hq, Nq, D], where attention_grad_kv accumulates dq.
///   "attention_grad_kv"  [q, k, v, lse, delta, dout] -> [dk, dv], or with
///       a dq accumulator [..., dout, dq_accum] -> [dk, dv, dq_accum_out]
///       (its operand and result come together): dq_accum_out = dq_accum +
///       dq. The AttentionSpec of the forward op.
///   "attention_grad_q"  [q, k, v, lse, delta, dout] -> [dq]; the
///       AttentionSpec of the forward op.
struct OpSpec {
  std::string kind;
  std::vector<std::string> operands;
  std::vector<std::string> results;
  std::optional<AttentionSpec> attention; // "attention", "attention_grad_kv",
                                          // "attention_grad_q"
  std::optional<CastSpec> cast;           // "cast"
  std::optional<ElementwiseSpec> elementwise; // "elementwise"
  std::optional<MatmulSpec> matmul;           // "matmul"
  std::optional<NormSpec> norm;               // "rms_norm", "layer_norm"
  std::optional<LossSpec> loss; // "cross_entropy", "token_mean" and grads

  /// The operand a matmul adds to every row (its bias), or null.
  const std::string *bias() const;
  /// The operand added to the result before its rounding (a matmul's
  /// addend, a norm gradient's fifth operand), or null.
  const std::string *addend() const;
  /// The arguments of a step that computes this op: its operands, then its
  /// kept (named) results.
  std::vector<std::string> stepArgs() const;
};

//===----------------------------------------------------------------------===//
// Functions as programs
//===----------------------------------------------------------------------===//

/// An intermediate value of a function: memory the runtime provides for the
/// duration of a call, dense row-major. Buffers of one `slot` are never live
/// at the same time (the compiler planned them by liveness) and share
/// memory: the slot is as large as its largest buffer.
/// JSON: {"name": "t0", "dtype": "bf16", "shape": ["B", 16, "Nq", 128],
///        "slot": 0}.
struct Buffer {
  TensorSig tensor;
  int64_t slot = 0;
};

/// Rows of another value, in place: the rows [begin, begin + rows) of the
/// first dim of `of`, an input, output or buffer of the function (not a
/// view). `tensor` names the view; its dtype and its dims after the first
/// are `of`'s, its first dim is the static row count. Steps and ops name a
/// view as any value, and a kernel writing one writes those rows of `of`:
/// the compiler splits a value this way (a vocabulary in chunks) without
/// copies. A call whose `of` has fewer rows than begin + rows fails.
/// A view of a rank-1 `of` may have any static shape: it is the elements
/// [begin, begin + its element count) of `of`, row-major in that shape (a
/// flat parameter buffer seen as each parameter's tensor).
/// A view with `heads` H > 0 is all of a rank-3 `of` [B, N, H * D] seen as
/// [B, H, N, D] (begin 0): its element [b, h, n, d] is of's
/// [b, n, h * D + d], so attention reads and writes a projection's layout
/// in place.
/// JSON: {"name": "v0", "dtype": "bf16", "shape": [8192, 768], "of": "e",
///        "begin": 8192}; a heads view adds "heads": 12.
struct View {
  TensorSig tensor;
  std::string of;
  int64_t begin = 0;
  int64_t heads = 0;

  /// The rows of `of` (of rank `ofRank`) the view takes: its first extent,
  /// or its element count when `of` has rank 1 (INT64_MAX where that
  /// overflows, and for a heads view: all of them). Static once verified.
  int64_t rowsOf(size_t ofRank) const;
};

/// One parameter of the flat values of a function (a training step's
/// masters, moments and gradients, each every parameter's elements one
/// after another): its name, its shape, the element where it starts, and
/// the chunk of flat values holding it (a state larger than one tensor's
/// extent is split into chunks of whole parameters).
/// JSON: {"name": "wte", "shape": [50304, 768], "offset": 0}, and
/// "chunk": 1 (optional, 0 when absent).
struct Segment {
  std::string name;
  std::vector<int64_t> shape;
  int64_t offset = 0;
  int64_t chunk = 0;
};

/// The name of chunk `chunk` of a training step's flat state `kind`
/// ("params", "m", "v", "grad"; "new_params" and so on for the updated
/// state): `kind` itself for chunk 0, so that a state of one chunk has the
/// plain names, else "<kind>_<chunk>". attn-derive-train-step names the
/// step's inputs and outputs so, and attn-train binds them by it.
std::string flatStateName(const std::string &kind, int64_t chunk);

/// One step of a program: launch kernel `kernel` (by name, for the device's
/// target) on the values `args` (inputs, outputs, buffers, views). Steps run in
/// order on the caller's stream; each starts after the previous one ends,
/// except a `concurrent` step, which may run at the same time as the step
/// before it (on a second stream, both joined before the next step): the
/// two form a pair, neither writes what the other reads or writes, and
/// their buffers are live at the same time (bufferLifetimes). A pair's first
/// step is not itself concurrent.
/// JSON: {"kernel": "attention0", "args": ["q", "k", "v", "t0", "lse"],
///        "concurrent": true (optional, false when absent)}.
struct Step {
  std::string kernel;
  std::vector<std::string> args;
  bool concurrent = false;
};

/// A callable function: inputs, outputs, the buffers between its kernels,
/// the steps of its program, its kernels (each step's kernel once per
/// target it was compiled for) and the ops it computes.
/// JSON: {"name", "gradient_of" (optional), "flat_values" and "segments"
///        (optional), "inputs", "outputs", "buffers", "views" (optional,
///        none when absent), "steps", "kernels", "ops"}.
struct Function {
  std::string name;
  /// The function of this package whose gradient this one computes, when it
  /// does. Its inputs are then that function's inputs, then its outputs
  /// (names may differ; dtypes and shapes, symbols spelled the same, do
  /// not), then cotangents (at most one per output); its outputs are
  /// gradients, at most one per input of that function.
  std::optional<std::string> gradientOf;
  /// For a gradient function: per cotangent input, in order, the index of
  /// the output of `gradientOf` it is the cotangent of; per output, the
  /// index of the input of `gradientOf` it is the gradient of. Empty reads
  /// as 0, 1, 2, ... (JSON: "cotangent_of": [0], "gradient_of_inputs":
  /// [0, 1, 2]; both optional).
  std::vector<int64_t> cotangentOf;
  std::vector<int64_t> gradientOfInputs;
  /// Indices of the outputs that autodiff added for a gradient function to
  /// read (saved activations): a caller that wants only the function's own
  /// results ignores them (JSON: "saved_outputs": [1, 2]; optional).
  std::vector<int64_t> savedOutputs;
  /// The inputs and outputs that hold parameters flat (rank 1, static),
  /// and the parameters they hold: `segments` in order, chunk by chunk,
  /// each starting where the one before in its chunk ends (the first at
  /// 0), the last of a chunk ending at the extent of that chunk's values.
  /// `flatChunks` gives each flat value's chunk, or is empty where there is
  /// one (JSON: "flat_values": ["params", "new_params"], "segments": [...];
  /// both optional, neither without the other; "flat_chunks": [0, 1, ...],
  /// optional).
  std::vector<std::string> flatValues;
  std::vector<int64_t> flatChunks;
  std::vector<Segment> segments;
  /// Outputs that may share memory with an input they update (a training
  /// step's new state with its state), by output name: a caller may pass
  /// the input's own tensor as the output, and the function reads no
  /// element of the input after writing it (verified from the steps).
  /// JSON: "updates": {"new_params": "params"} (optional).
  std::map<std::string, std::string> updates;
  std::vector<TensorSig> inputs;
  std::vector<TensorSig> outputs;
  std::vector<Buffer> buffers;
  std::vector<View> views;
  std::vector<Step> steps;
  std::vector<Kernel> kernels;
  std::vector<OpSpec> ops;

  const Kernel *findKernel(std::string_view name,
                           std::string_view target) const;
  /// Whether every step has a kernel for `target`.
  bool runsOn(std::string_view target) const;
  /// The targets some kernel is compiled for, sorted, without repeats.
  std::vector<std::string> targets() const;
  /// The signature of the input, output, buffer or view named `name`, or
  /// null.
  const TensorSig *findValue(std::string_view name) const;
  /// The view named `name`, or null.
  const View *findView(std::string_view name) const;
  /// The value a step's argument `name` lives in: `of` for a view, else
  /// `name` itself.
  std::string_view storageOf(std::string_view name) const;
};

/// JSON: {"name": "host", "kind": "host-so" | "cubin" | "ptx",
///        "offset": 0, "size": 1234, "fnv1a64": "0123abcd..."}.
struct Blob {
  std::string name;
  std::string kind;
  std::vector<uint8_t> data;
};

struct Package {
  int64_t schemaVersion = kSchemaVersion;
  std::string producer; // e.g. "attnc 0.1.0"
  std::vector<Function> functions;
  std::vector<Blob> blobs;

  const Function *findFunction(std::string_view name) const;
  const Blob *findBlob(std::string_view name) const;
};

//===----------------------------------------------------------------------===//
// Reading and writing
//===----------------------------------------------------------------------===//

/// FNV-1a, 64 bit.
uint64_t fnv1a64(const uint8_t *data, size_t size,
                 uint64_t seed = 0xcbf29ce484222325ull);

/// Checks a region's structure: 4 (mask) or 5 (score) arguments besides
/// its captures (verifyElementwiseBody: one or more and no captures), every
/// operand names an argument or an earlier op, `yield` names a value, and
/// each op leaves the constant field that its type does not use at 0
/// (integer types use `intValue`, which must be sign-extended from the
/// type's width; other types use `value`).
/// Messages name the field relative to the region ("ops[2].operands[1]: ...").
/// Whether op names, types and predicates are those of the region op table
/// (lib/semantics/RegionOps.h) is not checked here, since only the fp64
/// reference evaluates regions: ref::RegionEvaluator::create checks them
/// (lib/reference/Region.h). Here an unknown type counts as a float type.
Status verifyRegion(const Region &region);
Status verifyElementwiseBody(const Region &region);

/// Checks an op on its own: its kind is one of the table of op kinds
/// `verify` reads, with that kind's operand and result counts and its spec
/// (and no other), the spec well formed; not which values the op names.
/// What the fp64 reference relies on before it evaluates an op. Messages
/// name the field ("operands: expected 3 for an op of kind ...").
Status verifyOpForm(const OpSpec &op);

/// Checks every invariant a reader relies on: names unique and non-empty
/// (values of a function share one namespace), blobs referenced exist,
/// shapes valid, every buffer symbol defined by an input or output, steps
/// naming existing kernels and values, each target's kernels covering every
/// step, every output an argument of some step (so a function with outputs
/// has steps), grid terms positive, ops with the operand and result counts
/// and the spec of their kind, naming existing values, regions well formed,
/// a gradient's inputs matching its function's (Function::gradientOf), ...
/// `serialize` and `parse` both call it.
Status verify(const Package &package);

/// The manifest as JSON text (pretty-printed), without blobs.
std::string manifestJson(const Package &package);

/// Encodes a verified package into the file format above.
StatusOr<std::vector<uint8_t>> serialize(const Package &package);
/// Writes atomically (writeFileAtomically), so a failed write never leaves
/// a partial package behind.
Status writeFile(const Package &package, const std::string &path);
/// Writes `bytes` to `path` through a temporary file next to the
/// destination (written, fsynced, renamed, its directory fsynced), so that
/// a failure, a kill or a power cut leaves either the previous file or the
/// new one, never a partial one. A symlink stays a symlink: the file it
/// leads to is replaced. Destinations that are not plain files (devices,
/// FIFOs) are written in place.
Status writeFileAtomically(const std::vector<uint8_t> &bytes,
                           const std::string &path);

/// A run of bytes to write, borrowed from the caller.
struct ByteSpan {
  const uint8_t *data;
  size_t size;
};
/// The same for the spans one after another, without copying them into one
/// buffer (a checkpoint's tensors).
Status writeFileAtomically(const std::vector<ByteSpan> &spans,
                           const std::string &path);

/// Flushes the entries of directory `dir`, so that a file created or renamed
/// into it survives a power cut (writeFileAtomically does, for its
/// destination's directory).
Status syncDirectory(const std::string &dir);

/// Decodes and verifies. `origin` (a path or "<memory>") starts every message.
/// Truncated, corrupted (checksum), foreign (magic) or future-version input
/// gives an error that says which.
StatusOr<Package> parse(const uint8_t *data, size_t size,
                        const std::string &origin);
StatusOr<Package> readFile(const std::string &path);

/// The bytes of the regular file `path`; anything else (a FIFO, a device)
/// is refused before a byte is read.
StatusOr<std::vector<uint8_t>> readRegularFile(const std::string &path);

} // namespace attnc::pkg

#endif // ATTNC_PACKAGE_PACKAGE_H
