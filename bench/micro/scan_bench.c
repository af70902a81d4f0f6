/* scan_bench.c - a JAX-style scan compiled by kiln (scan_run, from
 * scan_bench.py's HLO) against the same arithmetic as a plain C loop:
 *   c = max(0.9 * c + xs[t], 0); ys[t] = c      for t in [0, T)
 * Calls alternate kiln / C, each timed alone; prints the medians per call
 * and per step. Checks the two agree first (both round the same float ops,
 * unless the compiler contracts them into FMAs: compared with a tolerance).
 *
 * Usage: scan_bench PAIRS */
#define _POSIX_C_SOURCE 200112L
#include "scan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { T = SCAN_STEPS, W = SCAN_WIDTH };

/* The reference: noinline so the compiler cannot hoist it out of the
 * timing loop. */
__attribute__((noinline)) static void reference(const float *c0,
                                                const float *xs, float *ys) {
  float c[W];
  for (int j = 0; j < W; ++j)
    c[j] = c0[j];
  for (int t = 0; t < T; ++t)
    for (int j = 0; j < W; ++j) {
      float s = 0.9f * c[j] + xs[t * W + j];
      c[j] = s > 0.f ? s : 0.f;
      ys[t * W + j] = c[j];
    }
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int byValue(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int pairs = argc > 1 ? atoi(argv[1]) : 200;
  float *c0 = aligned_alloc(64, sizeof(float) * W);
  float *xs = aligned_alloc(64, sizeof(float) * T * W);
  float *ys = aligned_alloc(64, sizeof(float) * T * W);
  float *want = aligned_alloc(64, sizeof(float) * T * W);
  void *arena = aligned_alloc(64, (SCAN_ARENA_SIZE + 63) / 64 * 64 + 64);
  unsigned seed = 1;
  for (int j = 0; j < W; ++j)
    c0[j] = (float)((seed = seed * 1103515245u + 12345u) >> 16) / 65536.f;
  for (int i = 0; i < T * W; ++i)
    xs[i] = (float)((seed = seed * 1103515245u + 12345u) >> 16) / 32768.f - 1.f;
  const void *args[] = {c0, xs};
  void *results[] = {ys};
  if (scan_run(args, results, arena)) {
    fprintf(stderr, "scan_run failed\n");
    return 1;
  }
  reference(c0, xs, want);
  for (int i = 0; i < T * W; ++i)
    if (fabsf(ys[i] - want[i]) > 1e-4f * (1.f + fabsf(want[i]))) {
      fprintf(stderr, "mismatch at %d: kiln %g, C %g\n", i, ys[i], want[i]);
      return 1;
    }
  double *kiln = malloc(sizeof(double) * pairs), *c = malloc(sizeof(double) * pairs);
  for (int p = 0; p < pairs; ++p) {
    double t0 = now();
    scan_run(args, results, arena);
    double t1 = now();
    reference(c0, xs, want);
    double t2 = now();
    kiln[p] = t1 - t0;
    c[p] = t2 - t1;
  }
  qsort(kiln, pairs, sizeof(double), byValue);
  qsort(c, pairs, sizeof(double), byValue);
  double k = kiln[pairs / 2], r = c[pairs / 2];
  printf("steps %d width %d pairs %d\n", T, W, pairs);
  printf("kiln  %.1f us/call  %.2f ns/step\n", k / 1e3, k / T);
  printf("C     %.1f us/call  %.2f ns/step\n", r / 1e3, r / T);
  printf("kiln/C %.2f\n", k / r);
  return 0;
}
