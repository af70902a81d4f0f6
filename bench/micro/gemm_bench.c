// gemm_bench.c - kiln's compiled GEMM/GEMV kernels against OpenBLAS, alternating call by call in
// this one process (a shared machine slows both sides alike), one thread on both sides.
// The kernel table comes from kernels.inc, written by gemm.py next to the kernels' objects:
//   KERNEL(name, M, K, N, arena_bytes)   -- name_run computes A[M,K] . B[K,N], B a constant
// B's values are read from DIR/name.b.bin (the same constant kiln compiled in) for OpenBLAS.
// Usage: gemm_bench DIR BUDGET_SEC MIN_ITERS   (OPENBLAS_CORETYPE picks OpenBLAS's kernel)
// Prints one JSON object: {"corename": ..., "kernels": [{name, m, k, n, kiln_ms, blas_ms, iters,
// max_rel_err}]}.
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

char* openblas_get_corename(void);
void openblas_set_num_threads(int);

#define KERNEL(name, m, k, n, arena) int name##_run(const void* const*, void* const*, void*);
#include "kernels.inc"
#undef KERNEL

typedef struct {
  const char* name;
  int (*run)(const void* const*, void* const*, void*);
  int m, k, n;
  long arena;
} kernel;

static const kernel kernels[] = {
#define KERNEL(name, m, k, n, arena) {#name, name##_run, m, k, n, arena},
#include "kernels.inc"
#undef KERNEL
};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static float* alloc(size_t floats) {
  void* p = NULL;
  if (posix_memalign(&p, 64, floats * sizeof(float) + 64)) exit(2);
  return p;
}

static void blas(const kernel* kn, const float* a, const float* b, float* c) {
  if (kn->m == 1)  // y[N] = B[K,N]^T x[K]: row-major B, transposed
    cblas_sgemv(CblasRowMajor, CblasTrans, kn->k, kn->n, 1.0f, b, kn->n, a, 1, 0.0f, c, 1);
  else
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kn->m, kn->n, kn->k, 1.0f, a, kn->k,
                b, kn->n, 0.0f, c, kn->n);
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: gemm_bench DIR BUDGET_SEC MIN_ITERS\n");
    return 2;
  }
  const char* dir = argv[1];
  double budget = atof(argv[2]);
  int min_iters = atoi(argv[3]);
  openblas_set_num_threads(1);
  printf("{\"corename\": \"%s\", \"kernels\": [", openblas_get_corename());
  srand(1);
  for (size_t i = 0; i < sizeof kernels / sizeof *kernels; ++i) {
    const kernel* kn = &kernels[i];
    size_t na = (size_t)kn->m * kn->k, nb = (size_t)kn->k * kn->n, nc = (size_t)kn->m * kn->n;
    float *a = alloc(na), *b = alloc(nb), *c1 = alloc(nc), *c2 = alloc(nc);
    void* arena = alloc(kn->arena / sizeof(float) + 1);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.b.bin", dir, kn->name);
    FILE* f = fopen(path, "rb");
    if (!f || fread(b, sizeof(float), nb, f) != nb) {
      fprintf(stderr, "gemm_bench: cannot read %s\n", path);
      return 1;
    }
    fclose(f);
    for (size_t j = 0; j < na; ++j) a[j] = (float)rand() / RAND_MAX;
    const void* args[1] = {a};
    void* results[1] = {c1};
    for (int w = 0; w < 3; ++w) kn->run(args, results, arena), blas(kn, a, b, c2);
    int cap = 1 << 20, n = 0;
    double *tk = malloc(cap * sizeof(double)), *tb = malloc(cap * sizeof(double));
    double start = now();
    // At least min_iters, until the budget is spent; a very slow kernel stops after 3x budget.
    while (n < cap && (n < min_iters || now() - start < budget)) {
      double t0 = now();
      kn->run(args, results, arena);
      double t1 = now();
      blas(kn, a, b, c2);
      double t2 = now();
      tk[n] = t1 - t0, tb[n] = t2 - t1, ++n;
      if (n >= 5 && now() - start > 3 * budget) break;
    }
    double err = 0;  // largest |kiln - blas| relative to 1 + |blas|
    for (size_t j = 0; j < nc; ++j) {
      double e = fabs((double)c1[j] - c2[j]) / (1.0 + fabs(c2[j]));
      if (!(e <= err)) err = e;  // a NaN makes err NaN
    }
    printf("%s{\"name\": \"%s\", \"m\": %d, \"k\": %d, \"n\": %d, \"kiln_ms\": %.6f, "
           "\"blas_ms\": %.6f, \"iters\": %d, \"max_rel_err\": %.3g}",
           i ? ", " : "", kn->name, kn->m, kn->k, kn->n, 1e3 * median(tk, n),
           1e3 * median(tb, n), n, err);
    fflush(stdout);
    free(a), free(b), free(c1), free(c2), free(arena), free(tk), free(tb);
  }
  printf("]}\n");
  return 0;
}
