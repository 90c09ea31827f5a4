/*===- Export.h - Symbol visibility of libattnrt's public API -----*- C -*-===*\
|*                                                                          *|
|* Part of attnc. SPDX-License-Identifier: Apache-2.0                       *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
/*
 * libattnrt is built with hidden visibility; only declarations marked
 * ATTNC_RT_EXPORT (the C API and the C++ handle classes) are exported.
 * Plain C so that the C API header can include it.
 */

#ifndef ATTNC_RUNTIME_EXPORT_H
#define ATTNC_RUNTIME_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define ATTNC_RT_EXPORT __attribute__((visibility("default")))
#else
#define ATTNC_RT_EXPORT
#endif

#endif /* ATTNC_RUNTIME_EXPORT_H */
