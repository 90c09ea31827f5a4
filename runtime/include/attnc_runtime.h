/*===- attnc_runtime.h - C API of libattnrt -----------------------*- C -*-===*\
|*                                                                          *|
|* Part of attnc. SPDX-License-Identifier: Apache-2.0                       *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
/*
 * A C99 interface to the runtime for FFI callers (Python ctypes, ...):
 *
 *   attnc_runtime *rt;  attnc_package *pkg;  attnc_function *fn;
 *   attnc_status s = attnc_runtime_open("host", &rt);
 *   if (!s) s = attnc_package_load(rt, "block.attnpkg", &pkg);
 *   if (!s) s = attnc_package_function(pkg, "attention_fwd", &fn);
 *   if (!s) s = attnc_function_call(fn, inputs, 3, outputs, 2, NULL);
 *   if (s) { fprintf(stderr, "%s\n", attnc_status_message(s));
 *            attnc_status_free(s); }
 *
 * Every fallible call returns an attnc_status: NULL on success, else an error
 * the caller frees. Nothing prints, aborts or lets an exception out. Handles
 * are independent: destroying a runtime or package leaves the functions taken
 * from it usable, and each handle is destroyed on its own.
 */

#ifndef ATTNC_RUNTIME_H
#define ATTNC_RUNTIME_H

#include "attnc/runtime/Export.h"

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct attnc_runtime attnc_runtime;
typedef struct attnc_package attnc_package;
typedef struct attnc_function attnc_function;

/*===----------------------------------------------------------------------===
 * Status
 *===----------------------------------------------------------------------===*/

/** An error; NULL means success. */
typedef struct attnc_status_impl *attnc_status;

/** The message of `status` (never NULL); valid until it is freed. */
ATTNC_RT_EXPORT const char *attnc_status_message(attnc_status status);
/** Frees `status`; NULL is allowed. */
ATTNC_RT_EXPORT void attnc_status_free(attnc_status status);

/*===----------------------------------------------------------------------===
 * Tensors
 *===----------------------------------------------------------------------===*/

/** Element types, as spelled in package manifests. */
enum {
  ATTNC_DTYPE_F32 = 0,
  ATTNC_DTYPE_F16 = 1,
  ATTNC_DTYPE_BF16 = 2,
  ATTNC_DTYPE_F64 = 3,
  ATTNC_DTYPE_I1 = 4, /* one byte per element */
  ATTNC_DTYPE_I32 = 5,
  ATTNC_DTYPE_I64 = 6,
  ATTNC_DTYPE_F8E4M3FN = 7,
  ATTNC_DTYPE_F8E5M2 = 8
};

/**
 * A caller-owned tensor. `shape` and `strides` point to `rank` values;
 * strides are in elements, and NULL strides mean contiguous row-major. The
 * arrays are only read during the call they are passed to.
 */
typedef struct {
  void *data;
  int32_t dtype; /* ATTNC_DTYPE_* */
  int32_t rank;
  const int64_t *shape;
  const int64_t *strides;
} attnc_tensor;

/**
 * Describes a DLPack tensor as an attnc_tensor that borrows its shape and
 * strides (keep `tensor` alive while `out` is used); `byte_offset` is folded
 * into `data`. Accepts CPU tensors of float 16/32/64, bfloat 16, int 32/64
 * and bool; other devices and types are errors.
 */
ATTNC_RT_EXPORT attnc_status attnc_tensor_from_dlpack(const DLTensor *tensor,
                                                      attnc_tensor *out);

/*===----------------------------------------------------------------------===
 * Runtime, packages, functions
 *===----------------------------------------------------------------------===*/

/**
 * Opens a device: "host" (a thread pool of one thread per core, or
 * ATTNC_NUM_THREADS) or "cuda:N".
 */
ATTNC_RT_EXPORT attnc_status attnc_runtime_open(const char *device,
                                                attnc_runtime **out);
ATTNC_RT_EXPORT void attnc_runtime_destroy(attnc_runtime *runtime);

/** Reads and verifies a package file and loads its code onto the device. */
ATTNC_RT_EXPORT attnc_status attnc_package_load(const attnc_runtime *runtime,
                                                const char *path,
                                                attnc_package **out);
/** Like attnc_package_load, from `size` bytes at `data` (copied). */
ATTNC_RT_EXPORT attnc_status
attnc_package_load_memory(const attnc_runtime *runtime, const void *data,
                          size_t size, attnc_package **out);
ATTNC_RT_EXPORT void attnc_package_destroy(attnc_package *package);

/** Number of functions, and the name of the `index`th (NULL if out of
 * range); names stay valid while the package handle lives. */
ATTNC_RT_EXPORT size_t
attnc_package_function_count(const attnc_package *package);
ATTNC_RT_EXPORT const char *
attnc_package_function_name(const attnc_package *package, size_t index);
/** The manifest as JSON (signatures, kernels, semantics); valid while the
 * package handle lives. */
ATTNC_RT_EXPORT const char *
attnc_package_manifest_json(const attnc_package *package);

/** Looks a function up by name; the error lists the available ones. */
ATTNC_RT_EXPORT attnc_status attnc_package_function(
    const attnc_package *package, const char *name, attnc_function **out);
ATTNC_RT_EXPORT void attnc_function_destroy(attnc_function *function);

/**
 * Checks the tensors against the function's signature and runs it. Inputs,
 * then outputs, in signature order. `stream` is a CUDA stream on a cuda
 * device and must be NULL on the host, where the call returns when the
 * kernel is done.
 */
ATTNC_RT_EXPORT attnc_status attnc_function_call(
    const attnc_function *function, const attnc_tensor *inputs, size_t n_inputs,
    const attnc_tensor *outputs, size_t n_outputs, void *stream);
/**
 * attnc_function_call on DLPack tensors, which must live on the function's
 * device (CPU for "host").
 */
ATTNC_RT_EXPORT attnc_status attnc_function_call_dlpack(
    const attnc_function *function, const DLTensor *const *inputs,
    size_t n_inputs, const DLTensor *const *outputs, size_t n_outputs,
    void *stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ATTNC_RUNTIME_H */
