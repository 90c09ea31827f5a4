//===- CublasLt.cpp - Library kernels run by cuBLASLt ---------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// cuBLASLt is column-major and attnc's tensors are row-major: a row-major
// [r, c] matrix is the column-major [c, r] one, its transpose. So out = A B
// runs as out^T = B^T A^T, with b as cuBLASLt's first operand and a as its
// second; a transpose of attnc's operand is a transpose of cuBLASLt's.
//
// A kernel chooses an algorithm once per shape (of cuBLASLt's heuristic's
// candidates, GemmChoice.h) and keeps it with the matrix layouts; each launch
// takes its scratch memory from the device's stream-ordered workspaces.
//
//===----------------------------------------------------------------------===//

#include "CublasLt.h"
#include "GemmChoice.h"

#include <cublasLt.h>
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <tuple>

using namespace attnc;
using namespace attnc::rt::detail;

#define ATTNC_STRINGIFY(x) #x

namespace attnc::rt::detail {

/// The cuBLASLt entry points, one member per line of CublasLt.def.
class CublasLt {
public:
#define ATTNC_CUBLASLT_SYMBOL(name) decltype(&::name) name = nullptr;
#include "CublasLt.def"
#undef ATTNC_CUBLASLT_SYMBOL

  /// The process's cuBLASLt, loaded on first use and never unloaded.
  static StatusOr<const CublasLt *> get();

  /// Ok for CUBLAS_STATUS_SUCCESS; otherwise an error naming `call`.
  Status check(cublasStatus_t status, const char *call) const {
    if (status == CUBLAS_STATUS_SUCCESS)
      return Status::ok();
    return Status::error(std::string(call) + ": " +
                         cublasLtGetStatusName(status) + " (" +
                         cublasLtGetStatusString(status) + ")");
  }
};

} // namespace attnc::rt::detail

#define ATTNC_CUBLASLT_CALL(api, fn, ...)                                      \
  (api).check((api).fn(__VA_ARGS__), #fn)

namespace {

/// The sonames to try, newest first: the toolkit attnc is built with, then
/// whatever the unversioned link names.
constexpr const char *kLibraryNames[] = {"libcublasLt.so.13", "libcublasLt.so"};

StatusOr<CublasLt> loadCublasLt() {
  void *library = nullptr;
  std::string errors;
  for (const char *name : kLibraryNames) {
    library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library)
      break;
    errors += std::string(errors.empty() ? "" : "; ") + dlerror();
  }
  const std::string unavailable =
      "cuBLASLt, which runs this package's matmuls, is not available: ";
  if (!library)
    return Status::error(unavailable + errors);
  CublasLt api;
#define ATTNC_CUBLASLT_SYMBOL(name)                                            \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name));      \
  if (!api.name)                                                               \
    return Status::error(unavailable + dlerror());
#include "CublasLt.def"
#undef ATTNC_CUBLASLT_SYMBOL
  return api;
}

} // namespace

StatusOr<const CublasLt *> CublasLt::get() {
  static const StatusOr<CublasLt> api = loadCublasLt();
  if (!api)
    return api.status();
  return &*api;
}

//===----------------------------------------------------------------------===//
// CublasLtHandle
//===----------------------------------------------------------------------===//

StatusOr<std::shared_ptr<const CublasLtHandle>>
CublasLtHandle::create(std::shared_ptr<const CudaContext> context) {
  auto api = CublasLt::get();
  if (!api)
    return api.status();
  cublasLtHandle_t handle = nullptr;
  if (Status s = context->run(
          [&] { return ATTNC_CUBLASLT_CALL(**api, cublasLtCreate, &handle); });
      !s)
    return s;
  return std::shared_ptr<const CublasLtHandle>(
      new CublasLtHandle(**api, std::move(context), handle));
}

CublasLtHandle::~CublasLtHandle() {
  (void)context_->run([&] {
    return api_.check(
        api_.cublasLtDestroy(static_cast<cublasLtHandle_t>(handle_)),
        "cublasLtDestroy");
  });
}

//===----------------------------------------------------------------------===//
// The matmul kernel
//===----------------------------------------------------------------------===//

namespace {

/// Scratch memory cuBLASLt may use per launch (split-K and stream-K
/// kernels need it): what it recommends on Hopper.
constexpr uint64_t kMaxScratchBytes = 32ull << 20;

/// How many of the heuristic's algorithms a shape's choice reads.
constexpr int kCandidates = 8;

/// A tensor as a row-major matrix: its leading dims are the rows, `ld`
/// elements apart.
struct MatrixView {
  int64_t rows = 1, cols = 0, ld = 0;
};

/// `arg`'s matrix view; fails when its leading dims do not collapse into
/// evenly spaced rows of unit inner stride.
StatusOr<MatrixView> matrixView(const KernelArg &arg, const char *name) {
  size_t rank = arg.shape.size();
  if (rank < 2)
    return Status::error(std::string("matmul operand ") + name + " has rank " +
                         std::to_string(rank) + ", expected 2 or more");
  MatrixView view;
  view.cols = arg.shape.back();
  view.ld = view.cols;
  bool fits = view.cols <= 1 || arg.strides.back() == 1;
  // Dims of extent 1 have any stride; the others must nest.
  int64_t inner = -1; // the stride the next outer row dim must have
  for (size_t d = rank - 1; d-- > 0;) {
    view.rows *= arg.shape[d];
    if (arg.shape[d] == 1)
      continue;
    if (inner < 0)
      view.ld = arg.strides[d];
    else
      fits = fits && arg.strides[d] == inner;
    inner = arg.strides[d] * arg.shape[d];
  }
  if (!fits || view.ld < view.cols)
    return Status::error(std::string("matmul operand ") + name +
                         " is not a row-major matrix: its leading dims must "
                         "collapse into rows of unit inner stride (cuBLASLt "
                         "reads it so); pass a contiguous tensor");
  return view;
}

StatusOr<cudaDataType_t> cudaType(pkg::DType type) {
  switch (type) {
  case pkg::DType::BF16:
    return CUDA_R_16BF;
  case pkg::DType::F16:
    return CUDA_R_16F;
  case pkg::DType::F32:
    return CUDA_R_32F;
  default:
    return Status::error("cuBLASLt matmuls take bf16, f16 or f32, not " +
                         std::string(pkg::dtypeName(type)));
  }
}

/// One shape's layouts and algorithm.
struct ShapePlan {
  /// cuBLASLt's A (b), B (a), C (the addend, else out) and D (out).
  cublasLtMatrixLayout_t layouts[4] = {};
  cublasLtMatmulAlgo_t algo{};
  size_t scratchBytes = 0;
};

/// What decides a plan: (m, n, k, ld of b, a, addend (that of out without
/// one), out, element types).
using ShapeKey = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t,
                            int64_t, int64_t, int, int>;

class CublasLtMatmul final : public DeviceKernel {
public:
  CublasLtMatmul(std::shared_ptr<const CublasLtHandle> handle,
                 cublasLtMatmulDesc_t desc, bool transposeA, bool transposeB,
                 bool bias, bool addend, ScratchMemory scratch)
      : DeviceKernel(GridRecord{}), handle_(std::move(handle)), desc_(desc),
        transposeA_(transposeA), transposeB_(transposeB), bias_(bias),
        addend_(addend), scratch_(std::move(scratch)) {}
  ~CublasLtMatmul() override;

  Status launch(const std::vector<const KernelArg *> &args,
                const GridExtents &grid, void *stream) const override;
  Status checkArgs(const std::vector<size_t> &ranks) const override {
    bool fits = ranks.size() == argCount() && ranks[0] >= 2 && ranks[1] >= 2 &&
                ranks.back() >= 2 && (!bias_ || ranks[2] == 1) &&
                (!addend_ || ranks[ranks.size() - 2] >= 2);
    return fits ? Status::ok()
                : Status::error("the step passes " +
                                std::to_string(ranks.size()) + " memrefs of " +
                                describeRanks(ranks) + "; cublaslt_matmul " +
                                argNames() + ", each matrix of rank 2 or more");
  }

private:
  const CublasLt &api() const { return handle_->api(); }
  size_t argCount() const { return 3 + bias_ + addend_; }
  std::string argNames() const {
    return std::string("takes a, b, ") + (bias_ ? "bias (rank 1), " : "") +
           (addend_ ? "addend, " : "") + "and out";
  }
  StatusOr<const ShapePlan *> plan(const ShapeKey &key, cudaDataType_t in,
                                   cudaDataType_t out) const;
  Status chooseAlgorithm(ShapePlan &plan, int64_t m, int64_t n,
                         int64_t k) const;
  Status run(const KernelArg &a, const KernelArg &b, const KernelArg *bias,
             const KernelArg *addend, const KernelArg &out, void *stream) const;
  Status setBias(const KernelArg &bias, int64_t columns,
                 const KernelArg &out) const;

  std::shared_ptr<const CublasLtHandle> handle_;
  cublasLtMatmulDesc_t desc_;
  bool transposeA_, transposeB_, bias_, addend_;
  ScratchMemory scratch_;
  mutable std::mutex mutex_; // guards plans_
  /// Guards desc_'s bias pointer from being set until cublasLtMatmul has
  /// read it.
  mutable std::mutex callMutex_;
  mutable std::map<ShapeKey, ShapePlan> plans_;
};

CublasLtMatmul::~CublasLtMatmul() {
  for (auto &[key, plan] : plans_)
    for (cublasLtMatrixLayout_t layout : plan.layouts)
      if (layout)
        api().cublasLtMatrixLayoutDestroy(layout);
  api().cublasLtMatmulDescDestroy(desc_);
}

/// `plan`'s algorithm: of the heuristic's first kCandidates for its
/// layouts, the one chooseGemmCandidate picks.
Status CublasLtMatmul::chooseAlgorithm(ShapePlan &plan, int64_t m, int64_t n,
                                       int64_t k) const {
  cublasLtMatmulPreference_t preference = nullptr;
  Status s =
      ATTNC_CUBLASLT_CALL(api(), cublasLtMatmulPreferenceCreate, &preference);
  uint64_t maxScratch = kMaxScratchBytes;
  if (s)
    s = ATTNC_CUBLASLT_CALL(api(), cublasLtMatmulPreferenceSetAttribute,
                            preference,
                            CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                            &maxScratch, sizeof(maxScratch));
  cublasLtMatmulHeuristicResult_t results[kCandidates] = {};
  int found = 0;
  if (s)
    s = ATTNC_CUBLASLT_CALL(api(), cublasLtMatmulAlgoGetHeuristic,
                            static_cast<cublasLtHandle_t>(handle_->get()),
                            desc_, plan.layouts[0], plan.layouts[1],
                            plan.layouts[2], plan.layouts[3], preference,
                            kCandidates, results, &found);
  if (preference)
    api().cublasLtMatmulPreferenceDestroy(preference);
  if (s && found == 0)
    s = Status::error("cuBLASLt has no algorithm for this matmul");
  std::vector<GemmCandidate> candidates(s ? found : 0);
  for (int i = 0; s && i < found; ++i) {
    candidates[i].waves = results[i].wavesCount;
    size_t written = 0;
    s = ATTNC_CUBLASLT_CALL(api(), cublasLtMatmulAlgoConfigGetAttribute,
                            &results[i].algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
                            &candidates[i].splitK, sizeof(candidates[i].splitK),
                            &written);
  }
  if (!s)
    return s;
  const cublasLtMatmulHeuristicResult_t &chosen =
      results[chooseGemmCandidate(candidates, m, n, k)];
  plan.algo = chosen.algo;
  plan.scratchBytes = chosen.workspaceSize;
  return Status::ok();
}

StatusOr<const ShapePlan *> CublasLtMatmul::plan(const ShapeKey &key,
                                                 cudaDataType_t in,
                                                 cudaDataType_t out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto found = plans_.find(key); found != plans_.end())
    return &found->second;
  auto [m, n, k, ldb, lda, ldc, ldd, inType, outType] = key;
  ShapePlan plan;
  // Column-major shapes of the stored matrices (see the file comment).
  uint64_t rows[4] = {static_cast<uint64_t>(transposeB_ ? k : m),
                      static_cast<uint64_t>(transposeA_ ? n : k),
                      static_cast<uint64_t>(m), static_cast<uint64_t>(m)};
  uint64_t cols[4] = {static_cast<uint64_t>(transposeB_ ? m : k),
                      static_cast<uint64_t>(transposeA_ ? k : n),
                      static_cast<uint64_t>(n), static_cast<uint64_t>(n)};
  int64_t lds[4] = {ldb, lda, ldc, ldd};
  cudaDataType_t types[4] = {in, in, out, out};
  Status s = Status::ok();
  for (int i = 0; i < 4 && s; ++i)
    s = ATTNC_CUBLASLT_CALL(api(), cublasLtMatrixLayoutCreate, &plan.layouts[i],
                            types[i], rows[i], cols[i], lds[i]);
  if (s)
    s = chooseAlgorithm(plan, m, n, k);
  if (!s) {
    for (cublasLtMatrixLayout_t layout : plan.layouts)
      if (layout)
        api().cublasLtMatrixLayoutDestroy(layout);
    return s.withContext("m " + std::to_string(m) + ", n " + std::to_string(n) +
                         ", k " + std::to_string(k));
  }
  return &plans_.emplace(key, plan).first->second;
}

Status CublasLtMatmul::setBias(const KernelArg &bias, int64_t columns,
                               const KernelArg &out) const {
  if (bias.dtype != out.dtype || bias.shape.size() != 1 ||
      bias.shape[0] != columns || bias.strides[0] != 1)
    return Status::error("matmul bias must be [" + std::to_string(columns) +
                         "] of out's dtype, contiguous");
  return ATTNC_CUBLASLT_CALL(api(), cublasLtMatmulDescSetAttribute, desc_,
                             CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias.data,
                             sizeof(bias.data));
}

/// The addend's matrix view: out's shape and dtype.
static StatusOr<MatrixView> addendView(const KernelArg &addend,
                                       const KernelArg &out) {
  auto view = matrixView(addend, "addend");
  if (!view)
    return view;
  if (addend.dtype != out.dtype || addend.shape != out.shape)
    return Status::error("matmul addend must have out's dtype and shape");
  return view;
}

Status CublasLtMatmul::run(const KernelArg &a, const KernelArg &b,
                           const KernelArg *bias, const KernelArg *addend,
                           const KernelArg &out, void *stream) const {
  auto va = matrixView(a, "a"), vb = matrixView(b, "b"),
       vout = matrixView(out, "out");
  if (!va || !vb || !vout)
    return !va ? va.status() : !vb ? vb.status() : vout.status();
  StatusOr<MatrixView> vc = addend ? addendView(*addend, out) : *vout;
  if (!vc)
    return vc.status();
  auto in = cudaType(a.dtype), outType = cudaType(out.dtype);
  if (!in || !outType)
    return !in ? in.status() : outType.status();
  int64_t k = transposeA_ ? va->rows : va->cols;
  // cuBLASLt's m and n are out's columns and rows.
  ShapeKey key{vout->cols, vout->rows, k,   vb->ld,  va->ld,
               vc->ld,     vout->ld,   *in, *outType};
  auto shape = plan(key, *in, *outType);
  if (!shape)
    return shape.status();
  void *scratch = nullptr;
  if ((*shape)->scratchBytes) {
    auto memory = scratch_.allocate((*shape)->scratchBytes, stream);
    if (!memory)
      return memory.status();
    scratch = *memory;
  }
  // D = A B + beta C: the addend is C with beta 1.
  const float one = 1.0f, beta = addend ? 1.0f : 0.0f;
  void *c = addend ? addend->data : out.data;
  const cublasLtMatrixLayout_t *layouts = (*shape)->layouts;
  std::lock_guard<std::mutex> lock(callMutex_);
  Status result = bias ? setBias(*bias, vout->cols, out) : Status::ok();
  if (result)
    result = ATTNC_CUBLASLT_CALL(
        api(), cublasLtMatmul, static_cast<cublasLtHandle_t>(handle_->get()),
        desc_, &one, b.data, layouts[0], a.data, layouts[1], &beta, c,
        layouts[2], out.data, layouts[3], &(*shape)->algo, scratch,
        (*shape)->scratchBytes, static_cast<cudaStream_t>(stream));
  Status freed = scratch ? scratch_.free(scratch, stream) : Status::ok();
  return result ? freed : result;
}

Status CublasLtMatmul::launch(const std::vector<const KernelArg *> &args,
                              const GridExtents &, void *stream) const {
  if (args.size() != argCount())
    return Status::error("cublaslt_matmul " + argNames() + ", got " +
                         std::to_string(args.size()) + " arguments");
  const KernelArg &out = *args.back();
  const KernelArg *bias = bias_ ? args[2] : nullptr;
  const KernelArg *addend = addend_ ? args[args.size() - 2] : nullptr;
  for (int64_t extent : out.shape)
    if (extent == 0)
      return Status::ok();
  int64_t k = transposeA_ ? 1 : args[0]->shape.back();
  if (transposeA_)
    for (size_t d = 0; d + 1 < args[0]->shape.size(); ++d)
      k *= args[0]->shape[d];
  if (k == 0)
    return Status::error("cublaslt_matmul: a product over no terms (K = 0) "
                         "is not supported");
  return handle_->context().run(
      [&] { return run(*args[0], *args[1], bias, addend, out, stream); });
}

} // namespace

StatusOr<std::shared_ptr<const DeviceKernel>>
attnc::rt::detail::makeCublasLtMatmul(
    std::shared_ptr<const CublasLtHandle> handle, const pkg::Kernel &kernel,
    ScratchMemory scratch) {
  auto flag = [&](const char *key) {
    auto found = kernel.config.find(key);
    return found != kernel.config.end() && found->second != 0;
  };
  bool transposeA = flag("transpose_a"), transposeB = flag("transpose_b"),
       bias = flag("bias"), addend = flag("addend"), gelu = flag("gelu_tanh");
  const CublasLt &api = handle->api();
  cublasLtMatmulDesc_t desc = nullptr;
  cublasOperation_t opA = transposeB ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = transposeA ? CUBLAS_OP_T : CUBLAS_OP_N;
  Status s = ATTNC_CUBLASLT_CALL(api, cublasLtMatmulDescCreate, &desc,
                                 CUBLAS_COMPUTE_32F, CUDA_R_32F);
  if (s)
    s = ATTNC_CUBLASLT_CALL(api, cublasLtMatmulDescSetAttribute, desc,
                            CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof(opA));
  if (s)
    s = ATTNC_CUBLASLT_CALL(api, cublasLtMatmulDescSetAttribute, desc,
                            CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof(opB));
  // The bias epilogue adds bias[row] of cuBLASLt's column-major result,
  // which is out's column: nn.Linear's bias. GELU (its tanh form) comes
  // after the bias, in f32, before the rounding.
  cublasLtEpilogue_t epilogue =
      gelu ? (bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU)
           : CUBLASLT_EPILOGUE_BIAS;
  if (s && (bias || gelu))
    s = ATTNC_CUBLASLT_CALL(api, cublasLtMatmulDescSetAttribute, desc,
                            CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                            sizeof(epilogue));
  if (!s) {
    if (desc)
      api.cublasLtMatmulDescDestroy(desc);
    return s;
  }
  return std::shared_ptr<const DeviceKernel>(std::make_shared<CublasLtMatmul>(
      std::move(handle), desc, transposeA, transposeB, bias, addend,
      std::move(scratch)));
}
