/* A C program on the installed C API: checks the library's version against
 * the headers', runs single_key from the package named by argv[1] on the
 * host and checks that every output row is the key's value row (to float
 * rounding: the kernel's exp need not give exactly 1). */

#include <attnc_runtime.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failed(attnc_status status, const char *what) {
  if (!status)
    return 0;
  fprintf(stderr, "%s: %s\n", what, attnc_status_message(status));
  attnc_status_free(status);
  return 1;
}

static int run(const attnc_function *fn) {
  enum { H = 2, NQ = 3, D = 8 };
  float q[H * NQ * D], k[H * D], v[H * D], out[H * NQ * D];
  for (int i = 0; i < H * NQ * D; ++i)
    q[i] = (float)(i % 7) - 3.0f;
  for (int i = 0; i < H * D; ++i) {
    k[i] = (float)(i % 5) * 0.5f;
    v[i] = (float)i * 0.25f - 1.0f;
  }
  const int64_t q_shape[] = {1, H, NQ, D}, kv_shape[] = {1, H, 1, D};
  attnc_tensor inputs[3] = {{q, ATTNC_DTYPE_F32, 4, q_shape, NULL},
                            {k, ATTNC_DTYPE_F32, 4, kv_shape, NULL},
                            {v, ATTNC_DTYPE_F32, 4, kv_shape, NULL}};
  attnc_tensor output = {out, ATTNC_DTYPE_F32, 4, q_shape, NULL};
  if (failed(attnc_function_call(fn, inputs, 3, &output, 1, NULL), "call"))
    return 1;
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < NQ; ++i)
      for (int d = 0; d < D; ++d)
        if (fabsf(out[(h * NQ + i) * D + d] - v[h * D + d]) > 1e-5f) {
          fprintf(stderr, "out[0,%d,%d,%d] = %.9g, expected %.9g\n", h, i, d,
                  out[(h * NQ + i) * D + d], v[h * D + d]);
          return 1;
        }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: c_consumer PACKAGE\n");
    return 2;
  }
  if (strcmp(attnc_version(), ATTNC_VERSION_STRING) != 0) {
    fprintf(stderr, "library %s, headers %s\n", attnc_version(),
            ATTNC_VERSION_STRING);
    return 1;
  }
  attnc_runtime *rt = NULL;
  attnc_package *package = NULL;
  attnc_function *fn = NULL;
  int status = failed(attnc_runtime_open("host", &rt), "open") ||
               failed(attnc_package_load(rt, argv[1], &package), "load") ||
               failed(attnc_package_function(package, "single_key", &fn),
                      "function") ||
               run(fn);
  attnc_function_destroy(fn);
  attnc_package_destroy(package);
  attnc_runtime_destroy(rt);
  if (status == 0)
    printf("c_consumer: attnc %s ok\n", attnc_version());
  return status;
}
