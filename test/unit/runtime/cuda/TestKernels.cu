/*===- TestKernels.cu - CUDA kernels for the runtime tests ------*- CUDA -*-===*\
|*                                                                          *|
|* Part of attnc. SPDX-License-Identifier: Apache-2.0                       *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
/*
 * Hand-written stand-ins for what attnc's sm_90a backend will emit, following
 * the CUDA ABI of pkg::Kernel: each argument is passed as the expanded MLIR
 * memref (allocated, aligned, offset, sizes[rank], strides[rank]).
 */

#include <cuda.h>
#include <stdint.h>

/*
 * Each entry's grid record, beside it in global memory as attnc emits it:
 * {words, extents, then per extent: constant, divisor, factor count,
 * (argument, dim) per factor}; the grids CudaTestSupport.cpp launches.
 */
/* (ceil(N / 128), Hq, B) of q [B, Hq, N, D] or x, the first argument. */
#define ROW_GRID                                                               \
  { 17, 3, 1, 128, 1, 0, 2, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0 }
extern "C" __device__ const int64_t test_attention_grid[] = ROW_GRID;
extern "C" __device__ const int64_t test_scale_grid[] = ROW_GRID;
/* One block. */
extern "C" __device__ const int64_t test_pointers_grid[] = {2, 0};
extern "C" __device__ const int64_t test_reverse_grid[] = {2, 0};
extern "C" __device__ const int64_t test_tensor_map_grid[] = {2, 0};
/* (1, N, 1), x f32 [N] the first argument. */
extern "C" __device__ const int64_t test_tall_grid[] = {10, 2, 1, 1, 0,
                                                        1,  1, 1, 0, 0};

/* The parameters of one expanded rank-4 or rank-1 memref argument. */
#define MEMREF4_PARAMS(NAME, TYPE)                                             \
  TYPE *NAME##Allocated, TYPE *NAME##Aligned, int64_t NAME##Offset,            \
      int64_t NAME##Size0, int64_t NAME##Size1, int64_t NAME##Size2,           \
      int64_t NAME##Size3, int64_t NAME##Stride0, int64_t NAME##Stride1,       \
      int64_t NAME##Stride2, int64_t NAME##Stride3
#define MEMREF3_PARAMS(NAME, TYPE)                                             \
  TYPE *NAME##Allocated, TYPE *NAME##Aligned, int64_t NAME##Offset,            \
      int64_t NAME##Size0, int64_t NAME##Size1, int64_t NAME##Size2,           \
      int64_t NAME##Stride0, int64_t NAME##Stride1, int64_t NAME##Stride2
#define MEMREF2_PARAMS(NAME, TYPE)                                             \
  TYPE *NAME##Allocated, TYPE *NAME##Aligned, int64_t NAME##Offset,            \
      int64_t NAME##Size0, int64_t NAME##Size1, int64_t NAME##Stride0,         \
      int64_t NAME##Stride1
#define MEMREF1_PARAMS(NAME, TYPE)                                             \
  TYPE *NAME##Allocated, TYPE *NAME##Aligned, int64_t NAME##Offset,            \
      int64_t NAME##Size0, int64_t NAME##Stride0

/* Element (a, b, c, d) of memref NAME. */
#define AT4(NAME, A, B, C, D)                                                  \
  NAME##Aligned[NAME##Offset + (A) * NAME##Stride0 + (B) * NAME##Stride1 +     \
                (C) * NAME##Stride2 + (D) * NAME##Stride3]

/*
 * Single-pass (online softmax) attention over f32, as TestKernels.c:
 *   q [B, Hq, N, D], k [B, Hkv, M, D], v [B, Hkv, M, Dv]
 *   -> o [B, Hq, N, Dv], lse [B, Hq, N],
 * scale 1 / sqrt(D), one thread per query row: grid (ceil(N / 128), Hq, B),
 * block 128.
 */
extern "C" __global__ void test_attention(MEMREF4_PARAMS(q, float),
                                          MEMREF4_PARAMS(k, float),
                                          MEMREF4_PARAMS(v, float),
                                          MEMREF4_PARAMS(o, float),
                                          MEMREF3_PARAMS(lse, float)) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t h = blockIdx.y, b = blockIdx.z;
  if (i >= qSize2)
    return;
  int64_t d = qSize3, dv = vSize3, m = kSize2;
  int64_t kvHead = h / (qSize1 / kSize1);
  float scale = 1.0f / sqrtf((float)d);
  float maxScore = -INFINITY, sum = 0;
  /* The output row doubles as the accumulator. */
  for (int64_t c = 0; c < dv; ++c)
    AT4(o, b, h, i, c) = 0;
  for (int64_t j = 0; j < m; ++j) {
    float s = 0;
    for (int64_t c = 0; c < d; ++c)
      s += AT4(q, b, h, i, c) * AT4(k, b, kvHead, j, c);
    s *= scale;
    float newMax = fmaxf(s, maxScore);
    float correction = expf(maxScore - newMax), p = expf(s - newMax);
    sum = sum * correction + p;
    for (int64_t c = 0; c < dv; ++c)
      AT4(o, b, h, i, c) =
          AT4(o, b, h, i, c) * correction + p * AT4(v, b, kvHead, j, c);
    maxScore = newMax;
  }
  for (int64_t c = 0; c < dv; ++c)
    if (sum > 0)
      AT4(o, b, h, i, c) /= sum;
  lseAligned[lseOffset + b * lseStride0 + h * lseStride1 + i * lseStride2] =
      sum > 0 ? maxScore + logf(sum) : -INFINITY;
}

/*
 * y = 2 * x over f32 [B, H, N, D] (any strides), one thread per row with
 * test_attention's grid and block.
 */
extern "C" __global__ void test_scale(MEMREF4_PARAMS(x, float),
                                      MEMREF4_PARAMS(y, float)) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t h = blockIdx.y, b = blockIdx.z;
  if (i >= xSize2)
    return;
  for (int64_t c = 0; c < xSize3; ++c)
    AT4(y, b, h, i, c) = 2 * AT4(x, b, h, i, c);
}

/*
 * ptrs: i64 [2] receives the aligned pointers of a and b (f32 [N] each):
 * where the runtime put them. One thread.
 */
extern "C" __global__ void test_pointers(MEMREF1_PARAMS(ptrs, int64_t),
                                         MEMREF1_PARAMS(a, float),
                                         MEMREF1_PARAMS(b, float)) {
  ptrsAligned[ptrsOffset] = (int64_t)aAligned;
  ptrsAligned[ptrsOffset + ptrsStride0] = (int64_t)bAligned;
}

/*
 * x: f32 [N] -> y: f32 [N], one block: y is x reversed within each chunk of
 * as many floats as the launch's dynamic shared memory holds, every element
 * passing through shared memory. With too little shared memory the chunks
 * shrink and the result changes.
 */
extern "C" __global__ void test_reverse(MEMREF1_PARAMS(x, float),
                                        MEMREF1_PARAMS(y, float)) {
  extern __shared__ float chunk[];
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  int64_t capacity = bytes / sizeof(float);
  for (int64_t base = 0; base < xSize0; base += capacity) {
    int64_t size = xSize0 - base < capacity ? xSize0 - base : capacity;
    for (int64_t j = threadIdx.x; j < size; j += blockDim.x)
      chunk[j] = xAligned[xOffset + (base + j) * xStride0];
    __syncthreads();
    for (int64_t j = threadIdx.x; j < size; j += blockDim.x)
      yAligned[yOffset + (base + j) * yStride0] = chunk[size - 1 - j];
    __syncthreads();
  }
}

/*
 * x: f32 [N] -> y: f32 [N], one block per element along y (a grid as tall
 * as x is long, for the device's limits): y = x.
 */
extern "C" __global__ void test_tall(MEMREF1_PARAMS(x, float),
                                     MEMREF1_PARAMS(y, float)) {
  int64_t i = blockIdx.y;
  yAligned[yOffset + i * yStride0] = xAligned[xOffset + i * xStride0];
}

/*
 * valid: i64 [1] receives the valid bits the runtime passes after the
 * tensor map of x (f32 [N, 16]), which it encodes at each launch: 1 where
 * it could make the map. One thread.
 */
extern "C" __global__ void
test_tensor_map(MEMREF2_PARAMS(x, float), MEMREF1_PARAMS(valid, int64_t),
                const __grid_constant__ CUtensorMap xMap, int64_t validMaps) {
  validAligned[validOffset] = validMaps;
}
