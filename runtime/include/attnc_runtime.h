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
 * Tensors live in memory the runtime's device can access: the caller's own
 * (e.g. a framework's, through DLPack) or attnc_runtime_allocate's.
 * Every fallible call returns an attnc_status: NULL on success, else an error
 * the caller frees. Nothing prints, aborts or lets an exception out. Handles
 * are independent: destroying a runtime or package leaves the functions taken
 * from it usable, and each handle is destroyed on its own.
 */

#ifndef ATTNC_RUNTIME_H
#define ATTNC_RUNTIME_H

#include "attnc/Version.h"
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
typedef struct attnc_event attnc_event;

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
 * Version
 *===----------------------------------------------------------------------===*/

/** The loaded runtime's version, "MAJOR.MINOR.PATCH" (static storage);
 * ATTNC_VERSION_STRING is the version of these headers. */
ATTNC_RT_EXPORT const char *attnc_version(void);

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
 * into `data`. Accepts CPU and CUDA tensors of float 16/32/64, bfloat 16,
 * int 32/64 and bool; other devices and types are errors.
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
/** The manifest as JSON (signatures, buffers, steps, kernels, ops); valid
 * while the package handle lives. */
ATTNC_RT_EXPORT const char *
attnc_package_manifest_json(const attnc_package *package);

/** Looks a function up by name; the error lists the available ones. */
ATTNC_RT_EXPORT attnc_status attnc_package_function(
    const attnc_package *package, const char *name, attnc_function **out);
ATTNC_RT_EXPORT void attnc_function_destroy(attnc_function *function);

/**
 * Checks the tensors against the function's signature and runs its program
 * (Function::call in attnc/runtime/Runtime.h). Inputs, then outputs, in
 * signature order. `stream` is a CUDA stream on a cuda device, where the
 * call only enqueues the work: the workspace of the function's buffers comes
 * from a memory pool of the device, in stream order. On a device without
 * memory pools (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 0) a call whose
 * buffers need memory synchronizes `stream` before it returns. `stream` must
 * be NULL on the host, where the call returns when the work is done.
 */
ATTNC_RT_EXPORT attnc_status attnc_function_call(
    const attnc_function *function, const attnc_tensor *inputs, size_t n_inputs,
    const attnc_tensor *outputs, size_t n_outputs, void *stream);
/**
 * The number of steps of the function's program (kernels and library
 * calls, in order); attnc_function_profile times each.
 */
ATTNC_RT_EXPORT size_t
attnc_function_step_count(const attnc_function *function);
/**
 * attnc_function_call with an event recorded on `stream` before the first
 * step and after each (Function::profile): waits for the call, then writes
 * step i's milliseconds to step_ms[i] (for a step that ran beside the one
 * before it, the time beyond that one). `n_steps` must be
 * attnc_function_step_count(function).
 */
ATTNC_RT_EXPORT attnc_status attnc_function_profile(
    const attnc_function *function, const attnc_tensor *inputs, size_t n_inputs,
    const attnc_tensor *outputs, size_t n_outputs, void *stream,
    double *step_ms, size_t n_steps);
/**
 * attnc_function_call on DLPack tensors, which must live on the function's
 * device: kDLCPU for "host", kDLCUDA with device_id N for "cuda:N".
 */
ATTNC_RT_EXPORT attnc_status attnc_function_call_dlpack(
    const attnc_function *function, const DLTensor *const *inputs,
    size_t n_inputs, const DLTensor *const *outputs, size_t n_outputs,
    void *stream);

/*===----------------------------------------------------------------------===
 * Device memory, synchronization and timing
 *
 * On a cuda device, copies and fills run in order on the legacy default
 * stream: a host-to-device copy returns once `src` may be reused, a
 * device-to-host copy once `dst` holds the data, and device-side copies and
 * fills may still be running when they return. On the host all of them are
 * done when they return.
 *===----------------------------------------------------------------------===*/

/** Which way attnc_runtime_copy moves bytes. */
enum {
  ATTNC_COPY_HOST_TO_DEVICE = 0,
  ATTNC_COPY_DEVICE_TO_HOST = 1,
  ATTNC_COPY_DEVICE_TO_DEVICE = 2
};

/**
 * Allocates `bytes` bytes of device memory (host: 64-byte aligned; CUDA:
 * 256-byte aligned), valid until freed or until every handle using the
 * device is destroyed. Zero bytes give NULL.
 */
ATTNC_RT_EXPORT attnc_status attnc_runtime_allocate(
    const attnc_runtime *runtime, size_t bytes, void **out);
/** Frees memory from attnc_runtime_allocate; NULL is allowed. */
ATTNC_RT_EXPORT attnc_status attnc_runtime_free(const attnc_runtime *runtime,
                                                void *data);
/** Copies `bytes` bytes from `src` to `dst`; `kind` (ATTNC_COPY_*) says
 * which of them is device memory. */
ATTNC_RT_EXPORT attnc_status attnc_runtime_copy(const attnc_runtime *runtime,
                                                void *dst, const void *src,
                                                size_t bytes, int32_t kind);
/**
 * Allocates `bytes` bytes of host memory that attnc_runtime_copy_async
 * copies to and from without staging (CUDA: page-locked; host: 64-byte
 * aligned). Zero bytes give NULL.
 */
ATTNC_RT_EXPORT attnc_status attnc_runtime_allocate_host(
    const attnc_runtime *runtime, size_t bytes, void **out);
/** Frees memory from attnc_runtime_allocate_host; NULL is allowed. */
ATTNC_RT_EXPORT attnc_status
attnc_runtime_free_host(const attnc_runtime *runtime, void *data);
/** Queues attnc_runtime_copy on `stream` (NULL: the legacy default stream;
 * the host only accepts NULL, and is done on return) after the work queued
 * there, without waiting for it: the host side, from
 * attnc_runtime_allocate_host, must stay untouched until an event recorded
 * after the copy has happened (attnc_event_wait). */
ATTNC_RT_EXPORT attnc_status attnc_runtime_copy_async(
    const attnc_runtime *runtime, void *dst, const void *src, size_t bytes,
    int32_t kind, void *stream);
/** Sets `bytes` bytes of device memory at `data` to `value`. */
ATTNC_RT_EXPORT attnc_status attnc_runtime_fill(const attnc_runtime *runtime,
                                                void *data, uint8_t value,
                                                size_t bytes);
/** Waits for the work queued on `stream`; NULL waits for all work of the
 * device. A no-op on the host, which only accepts NULL. */
ATTNC_RT_EXPORT attnc_status
attnc_runtime_synchronize(const attnc_runtime *runtime, void *stream);

/** Records the current point of `stream` (NULL: the legacy default stream;
 * the host only accepts NULL) to time the work between two events. */
ATTNC_RT_EXPORT attnc_status attnc_event_record(const attnc_runtime *runtime,
                                                void *stream,
                                                attnc_event **out);
/** Milliseconds from `start` to `end`, both recorded on the same device;
 * waits until `end` has happened. */
ATTNC_RT_EXPORT attnc_status attnc_event_elapsed_ms(const attnc_event *start,
                                                    const attnc_event *end,
                                                    double *out);
/** Waits until `event` has happened. */
ATTNC_RT_EXPORT attnc_status attnc_event_wait(const attnc_event *event);
ATTNC_RT_EXPORT void attnc_event_destroy(attnc_event *event);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ATTNC_RUNTIME_H */
