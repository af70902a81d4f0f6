// pool_job.c - What one parallel_for of kiln/runtime_threads.h's pool costs with nothing to do:
// two threads, two tasks that each bump a counter on a line of their own. A model pays this
// once per split kernel (66 times per BlazeFace back call), so on a host whose cores share no
// cache the handful of cache lines a job moves between them adds up (docs/performance.md,
// "Threads on this host").
//   cc -O2 -pthread -I runtime/include bench/micro/pool_job.c -o pool_job && ./pool_job
// Prints one JSON object: {"median_ns": X, "p90_ns": Y} over 20,000 jobs, after 2,000 untimed.
#define _POSIX_C_SOURCE 200809L
#include "kiln/runtime_threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kWarmup = 2000, kJobs = 20000 };

static struct {
  volatile long count;
  char padding[56];
} counters[2];

static void bump(void *unused, int64_t i) {
  (void)unused;
  counters[i & 1].count += 1;
}

static double nanoseconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int ascending(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(void) {
  static double elapsed[kJobs];
  kiln_pool *pool = kiln_pool_create(2);
  if (!pool) {
    fprintf(stderr, "pool_job: no pool of 2 threads\n");
    return 1;
  }
  kiln_parallel parallel = kiln_pool_parallel(pool);
  for (int i = 0; i < kWarmup; ++i)
    parallel.parallel_for(parallel.ctx, 2, bump, NULL);
  for (int i = 0; i < kJobs; ++i) {
    double start = nanoseconds();
    parallel.parallel_for(parallel.ctx, 2, bump, NULL);
    elapsed[i] = nanoseconds() - start;
  }
  kiln_pool_destroy(pool);
  qsort(elapsed, kJobs, sizeof elapsed[0], ascending);
  printf("{\"median_ns\": %.0f, \"p90_ns\": %.0f}\n", elapsed[kJobs / 2],
         elapsed[kJobs * 9 / 10]);
  return 0;
}
