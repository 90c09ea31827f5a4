/*===- CHeaderTest.c - The C API header compiles as C99 -----------*- C -*-===*\
|*                                                                          *|
|* Part of attnc. SPDX-License-Identifier: Apache-2.0                       *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
/*
 * Built with -std=c99 -pedantic-errors; CApiTest.cpp calls it, so the C
 * declarations are also checked to link.
 */

#include "attnc_runtime.h"

int attncTestCHeader(void);

/* Returns 1 when a call from C reports an error with a message. */
int attncTestCHeader(void) {
  attnc_tensor tensor = {0, ATTNC_DTYPE_BF16, 0, 0, 0};
  attnc_status status = attnc_tensor_from_dlpack(0, &tensor);
  int ok = status != 0 && attnc_status_message(status)[0] != '\0';
  attnc_status_free(status);
  return ok;
}
