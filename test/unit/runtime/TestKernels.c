/*===- TestKernels.c - Host kernels for the runtime tests ---------*- C -*-===*\
|*                                                                          *|
|* Part of attnc. SPDX-License-Identifier: Apache-2.0                       *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
/*
 * Hand-written stand-ins for what attnc's host backend will emit, following
 * the host ABI of pkg::Kernel: each entry takes one MLIR strided memref
 * descriptor per argument and runs the blocks [blockBegin, blockEnd).
 */

#include <malloc.h>
#include <math.h>
#include <stdint.h>

#define MEMREF(NAME, TYPE, RANK)                                               \
  typedef struct {                                                             \
    TYPE *allocated;                                                           \
    TYPE *aligned;                                                             \
    int64_t offset;                                                            \
    int64_t sizes[RANK];                                                       \
    int64_t strides[RANK];                                                     \
  } NAME

MEMREF(MemRef4F32, float, 4);
MEMREF(MemRef3F32, float, 3);
MEMREF(MemRef1I64, int64_t, 1);

static float *at4(const MemRef4F32 *m, int64_t a, int64_t b, int64_t c,
                  int64_t d) {
  return m->aligned + m->offset + a * m->strides[0] + b * m->strides[1] +
         c * m->strides[2] + d * m->strides[3];
}

/*
 * Single-pass (online softmax) attention over f32
 *   q [B, Hq, N, D], k [B, Hkv, M, D], v [B, Hkv, M, Dv]
 *   -> o [B, Hq, N, Dv], lse [B, Hq, N],
 * one block per query row, linear id = i + N * (h + Hq * b). A negative
 * `scale` means 1 / sqrt(D).
 */
static void attention(void **args, int64_t blockBegin, int64_t blockEnd,
                      float scale) {
  const MemRef4F32 *q = args[0], *k = args[1], *v = args[2], *o = args[3];
  const MemRef3F32 *lse = args[4];
  int64_t heads = q->sizes[1], n = q->sizes[2], d = q->sizes[3];
  int64_t m = k->sizes[2], dv = v->sizes[3];
  int64_t group = heads / k->sizes[1];
  if (scale < 0)
    scale = 1.0f / sqrtf((float)d);
  for (int64_t row = blockBegin; row < blockEnd; ++row) {
    int64_t i = row % n, h = (row / n) % heads, b = row / (n * heads);
    float maxScore = -INFINITY, sum = 0;
    /* The output row doubles as the accumulator. */
    for (int64_t c = 0; c < dv; ++c)
      *at4(o, b, h, i, c) = 0;
    for (int64_t j = 0; j < m; ++j) {
      float s = 0;
      for (int64_t c = 0; c < d; ++c)
        s += *at4(q, b, h, i, c) * *at4(k, b, h / group, j, c);
      s *= scale;
      float newMax = s > maxScore ? s : maxScore;
      float correction = expf(maxScore - newMax), p = expf(s - newMax);
      sum = sum * correction + p;
      for (int64_t c = 0; c < dv; ++c) {
        float *acc = at4(o, b, h, i, c);
        *acc = *acc * correction + p * *at4(v, b, h / group, j, c);
      }
      maxScore = newMax;
    }
    for (int64_t c = 0; c < dv; ++c)
      if (sum > 0)
        *at4(o, b, h, i, c) /= sum;
    lse->aligned[lse->offset + b * lse->strides[0] + h * lse->strides[1] +
                 i * lse->strides[2]] =
        sum > 0 ? maxScore + logf(sum) : -INFINITY;
  }
}

/*
 * Each entry's argument record, as attnc's host backend emits it beside
 * its entry points: {argument count, rank of each argument}.
 */
const int64_t test_attention_arg_ranks[] = {5, 4, 4, 4, 4, 3};
const int64_t test_attention_noscale_arg_ranks[] = {5, 4, 4, 4, 4, 3};
const int64_t test_scale_arg_ranks[] = {2, 4, 4};
/* The layout test's step: ptrs [4], a [n], b [n, 3], c [n], z [n, 0]. */
const int64_t test_pointers_arg_ranks[] = {5, 1, 1, 2, 1, 2};
const int64_t test_blocks_arg_ranks[] = {3, 1, 1, 1};
const int64_t test_count_arg_ranks[] = {3, 1, 1, 1};
const int64_t test_ungridded_arg_ranks[] = {3, 1, 1, 1};
const int64_t test_misrecorded_arg_ranks[] = {3, 1, 1, 1};
/* The paired-workspace test's step: mapped [1], a buffer [N, M]. */
const int64_t test_mapped_arg_ranks[] = {2, 1, 2};

/*
 * Each entry's grid record: {words, extents, then per extent: constant,
 * divisor, factor count, (argument, dim) per factor}; the grid the
 * entry's manifest entries in TestSupport.cpp launch.
 */
/* One block per query row: (N, Hq, B) of args[0]. */
#define ROW_GRID                                                               \
  { 17, 3, 1, 1, 1, 0, 2, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0 }
const int64_t test_attention_grid[] = ROW_GRID;
const int64_t test_attention_noscale_grid[] = ROW_GRID;
const int64_t test_scale_grid[] = ROW_GRID;
/* One block. */
const int64_t test_pointers_grid[] = {2, 0};
const int64_t test_count_grid[] = {2, 0};
const int64_t test_mapped_grid[] = {2, 0};
/* test_ungridded has none, as code of an attnc before grid records;
 * test_misrecorded's divides by 0. */
const int64_t test_misrecorded_grid[] = {5, 1, 1, 0, 0};
/* (ceil(N / 4), 2), N the extent of args[0]. */
const int64_t test_blocks_grid[] = {10, 2, 1, 4, 1, 0, 0, 2, 1, 0};

void test_attention(void **args, int64_t blockBegin, int64_t blockEnd) {
  attention(args, blockBegin, blockEnd, -1.0f);
}

/* Deliberately wrong: ignores the softmax scale. */
void test_attention_noscale(void **args, int64_t blockBegin, int64_t blockEnd) {
  attention(args, blockBegin, blockEnd, 1.0f);
}

/*
 * y = 2 * x over f32 [B, H, N, D] (any strides), one block per row of D
 * elements with the linear id of test_attention's rows.
 */
void test_scale(void **args, int64_t blockBegin, int64_t blockEnd) {
  const MemRef4F32 *x = args[0], *y = args[1];
  int64_t heads = x->sizes[1], n = x->sizes[2], d = x->sizes[3];
  for (int64_t row = blockBegin; row < blockEnd; ++row) {
    int64_t i = row % n, h = (row / n) % heads, b = row / (n * heads);
    for (int64_t c = 0; c < d; ++c)
      *at4(y, b, h, i, c) = 2 * *at4(x, b, h, i, c);
  }
}

/*
 * Records where the runtime put its arguments: args[0] is i64 [n], which
 * receives the aligned pointers of args[1 .. n], memrefs of any rank (the
 * aligned pointer comes second in each). Run with one block.
 */
void test_pointers(void **args, int64_t blockBegin, int64_t blockEnd) {
  const MemRef1I64 *out = args[0];
  if (blockBegin != 0 || blockEnd < 1)
    return;
  for (int64_t i = 0; i < out->sizes[0]; ++i) {
    void *const *descriptor = args[i + 1];
    out->aligned[out->offset + i * out->strides[0]] =
        (int64_t)(intptr_t)descriptor[1];
  }
}

/*
 * Records how the runtime split the grid: x: i64 [N] (unused) ->
 * blocks: i64 [G], calls: i64 [1]. Each block b < G sets blocks[b] to the
 * first block of its call; each call adds one to calls[0].
 */
void test_blocks(void **args, int64_t blockBegin, int64_t blockEnd) {
  const MemRef1I64 *blocks = args[1], *calls = args[2];
  for (int64_t b = blockBegin; b < blockEnd && b < blocks->sizes[0]; ++b)
    blocks->aligned[blocks->offset + b * blocks->strides[0]] = blockBegin;
  __atomic_fetch_add(&calls->aligned[calls->offset], 1, __ATOMIC_RELAXED);
}

/* x: any [N] -> blocks: i64 [G] (unused), calls: i64 [1]: counts its calls. */
void test_count(void **args, int64_t blockBegin, int64_t blockEnd) {
  const MemRef1I64 *calls = args[2];
  __atomic_fetch_add(&calls->aligned[calls->offset], 1, __ATOMIC_RELAXED);
}

void test_ungridded(void **args, int64_t blockBegin, int64_t blockEnd) {
  test_count(args, blockBegin, blockEnd);
}

void test_misrecorded(void **args, int64_t blockBegin, int64_t blockEnd) {
  test_count(args, blockBegin, blockEnd);
}

/*
 * Records the bytes glibc has mapped while the call's workspace is live:
 * mapped: i64 [1] <- mallinfo2().hblkhd; args[1], a buffer, is unused.
 * Run with one block.
 */
void test_mapped(void **args, int64_t blockBegin, int64_t blockEnd) {
  const MemRef1I64 *mapped = args[0];
  if (blockBegin == 0 && blockEnd > 0)
    mapped->aligned[mapped->offset] = (int64_t)mallinfo2().hblkhd;
}
