/* threads_driver.c - Checks that NAME_run_parallel gives bit-identical
 * results to NAME_run through kiln/runtime_threads.h's pool at several
 * thread counts, and (with --bench) times serial against pooled calls.
 *
 * Usage: prog [--threads 1,2,7] [--repeat R] [--bench N] [--min-tasks M]
 *             ARGS... -- RESULTS...
 * An ARG of @random is filled with seeded values in [-1, 1) (float32 for
 * 4-byte, float64 for 8-byte elements). RESULTS receive the serial results.
 * Each pooled run starts from fresh copies of the args (variables may be
 * written in place) and poisoned results and arena, and is compared with
 * memcmp. --min-tasks fails unless some kernel was split into at least M
 * tasks (so the test cannot pass without exercising the pool). --bench N
 * alternates N serial and N pooled calls (the first --threads count), each
 * timed after an untimed call of the same path, and prints the medians, and the share of a serial run spent in split kernels
 * (what the pool can speed up). Links with the per-model table of run_e2e.py's
 * write_table (kiln_e2e_*), and -pthread. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "kiln/runtime_threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const size_t kiln_e2e_num_args, kiln_e2e_num_results;
extern const size_t kiln_e2e_arg_sizes[], kiln_e2e_arg_elem[];
extern const size_t kiln_e2e_result_sizes[], kiln_e2e_result_elem[];
extern const size_t kiln_e2e_arena_size, kiln_e2e_arena_align;
int kiln_e2e_run(const void *const *args, void *const *results, void *arena);
int kiln_e2e_run_parallel(const void *const *args, void *const *results,
                          void *arena, const kiln_parallel *pool);

enum { kMaxBuffers = 64, kMaxThreadCounts = 16, kPoison = 0xCD };

static void *allocate(size_t size) {
  void *p = aligned_alloc(64, (size + 63) / 64 * 64 + 64);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return p;
}

static unsigned char *readFile(const char *path, size_t expected) {
  FILE *f = fopen(path, "rb");
  unsigned char *data = allocate(expected);
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(2);
  }
  if (fread(data, 1, expected, f) != expected || fgetc(f) != EOF) {
    fprintf(stderr, "%s: expected %zu bytes\n", path, expected);
    exit(2);
  }
  fclose(f);
  return data;
}

static unsigned char *randomArg(size_t size, size_t elem, uint64_t *state) {
  unsigned char *data = allocate(size);
  size_t i;
  for (i = 0; i < size / elem; ++i) {
    double u;
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    u = (double)(*state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    if (elem == 8) {
      memcpy(data + i * 8, &u, 8);
    } else if (elem == 4) {
      float f = (float)u;
      memcpy(data + i * 4, &f, 4);
    } else {
      data[i * elem] = (unsigned char)(*state >> 56);
    }
  }
  return data;
}

/* A kiln_parallel that forwards to another and checks its contract: every
 * task ran exactly once before parallel_for returned. */
typedef struct Counting {
  kiln_parallel inner;
  long calls, tasks, mostTasks;
} Counting;

typedef struct CountedJob {
  void (*fn)(void *, int64_t);
  void *arg;
  int *runs; /* per task */
} CountedJob;

static void countedTask(void *opaque, int64_t i) {
  CountedJob *job = (CountedJob *)opaque;
  __atomic_add_fetch(&job->runs[i], 1, __ATOMIC_RELAXED);
  job->fn(job->arg, i);
}

static void countingFor(void *ctx, int64_t n, void (*fn)(void *, int64_t),
                        void *arg) {
  Counting *counting = (Counting *)ctx;
  CountedJob job = {fn, arg, calloc((size_t)n, sizeof(int))};
  int64_t i;
  counting->inner.parallel_for(counting->inner.ctx, n, countedTask, &job);
  for (i = 0; i < n; ++i)
    if (__atomic_load_n(&job.runs[i], __ATOMIC_RELAXED) != 1) {
      fprintf(stderr, "task %lld of %lld ran %d times\n", (long long)i,
              (long long)n, job.runs[i]);
      exit(5);
    }
  free(job.runs);
  counting->calls += 1;
  counting->tasks += (long)n;
  if (n > counting->mostTasks)
    counting->mostTasks = (long)n;
}

typedef struct Buffers {
  unsigned char *inputs[kMaxBuffers];
  void *args[kMaxBuffers], *results[kMaxBuffers], *arena;
} Buffers;

/* Fresh args (variables may have been written in place). */
static void refreshArgs(Buffers *b) {
  size_t i;
  for (i = 0; i < kiln_e2e_num_args; ++i)
    memcpy(b->args[i], b->inputs[i], kiln_e2e_arg_sizes[i]);
}

/* Fresh args, poisoned results and arena. */
static void prepare(Buffers *b) {
  size_t i;
  refreshArgs(b);
  for (i = 0; i < kiln_e2e_num_results; ++i)
    memset(b->results[i], kPoison, kiln_e2e_result_sizes[i]);
  memset(b->arena, 0xEE, kiln_e2e_arena_size);
}

/* One run through NAME_run (serialEntry) or NAME_run_parallel. */
static void call(Buffers *b, const kiln_parallel *pool, int serialEntry) {
  int rc = serialEntry ? kiln_e2e_run((const void *const *)b->args, b->results,
                                  b->arena)
                   : kiln_e2e_run_parallel((const void *const *)b->args,
                                           b->results, b->arena, pool);
  if (rc != 0) {
    fprintf(stderr, "entry point returned %d\n", rc);
    exit(3);
  }
}

static void runOnce(Buffers *b, const kiln_parallel *pool, int serialEntry) {
  prepare(b);
  call(b, pool, serialEntry);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int byTime(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *times, int n) {
  qsort(times, (size_t)n, sizeof(double), byTime);
  return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

/* A kiln_parallel running every task on the calling thread and adding up
 * the time spent inside parallel_for: the part of a run that is split. */
static double splitSeconds;

static void timedSerialFor(void *ctx, int64_t n, void (*fn)(void *, int64_t),
                           void *arg) {
  double start = now();
  int64_t i;
  (void)ctx;
  for (i = 0; i < n; ++i)
    fn(arg, i);
  splitSeconds += now() - start;
}

/* The time of one call of a path, after an untimed call of the same path. */
static double timedCall(Buffers *b, const kiln_parallel *pool,
                        int serialEntry) {
  double start;
  refreshArgs(b);
  call(b, pool, serialEntry);
  refreshArgs(b);
  start = now();
  call(b, pool, serialEntry);
  return now() - start;
}

static void bench(Buffers *b, int threads, int n) {
  kiln_pool *pool = kiln_pool_create(threads);
  kiln_parallel parallel = kiln_pool_parallel(pool);
  kiln_parallel timed = {timedSerialFor, NULL};
  double *serial = calloc((size_t)n, sizeof(double));
  double *pooled = calloc((size_t)n, sizeof(double));
  double *fraction = calloc((size_t)n, sizeof(double));
  double t, s, p;
  int i;
  /* Like an inference loop: the caller writes its inputs, and the arena and
   * results stay as the last call of the same path left them. Poisoning the
   * arena, or timing a pooled call right after a serial one, would leave
   * most of it in one core's cache for the other thread to fetch (and the
   * other way round), which no loop calling one path does. */
  for (i = 0; i < n; ++i) {
    serial[i] = timedCall(b, NULL, 1);
    pooled[i] = timedCall(b, &parallel, 0);
    refreshArgs(b);
    splitSeconds = 0;
    t = now();
    call(b, &timed, 0);
    fraction[i] = splitSeconds / (now() - t);
  }
  s = median(serial, n);
  p = median(pooled, n);
  printf("bench: serial %.3f ms, %d threads %.3f ms, speed-up %.2fx "
         "(medians of %d alternating calls); split kernels take %.1f%% of a "
         "serial run\n",
         s * 1e3, threads, p * 1e3, s / p, n, median(fraction, n) * 100);
  kiln_pool_destroy(pool);
  free(serial);
  free(pooled);
  free(fraction);
}

int main(int argc, char **argv) {
  size_t nArgs = kiln_e2e_num_args, nResults = kiln_e2e_num_results, i;
  int threads[kMaxThreadCounts] = {1, 2, 7}, threadCounts = 3;
  int repeat = 3, benchRuns = 0, a = 1, t, r;
  long minTasks = 0, mostTasks = 0;
  uint64_t seed = 0x6b696c6e;
  Buffers b;
  unsigned char *serial[kMaxBuffers];
  for (; a < argc && strncmp(argv[a], "--", 2) == 0 && argv[a][2]; a += 2) {
    if (a + 1 >= argc) {
      fprintf(stderr, "%s needs a value\n", argv[a]);
      return 2;
    }
    if (!strcmp(argv[a], "--threads")) {
      char *s = argv[a + 1];
      for (threadCounts = 0; *s && threadCounts < kMaxThreadCounts; ++s) {
        threads[threadCounts++] = (int)strtol(s, &s, 10);
        if (*s != ',')
          break;
      }
    } else if (!strcmp(argv[a], "--repeat")) {
      repeat = atoi(argv[a + 1]);
    } else if (!strcmp(argv[a], "--bench")) {
      benchRuns = atoi(argv[a + 1]);
    } else if (!strcmp(argv[a], "--min-tasks")) {
      minTasks = atol(argv[a + 1]);
    } else {
      fprintf(stderr, "unknown option %s\n", argv[a]);
      return 2;
    }
  }
  if ((size_t)(argc - a) != nArgs + 1 + nResults ||
      strcmp(argv[a + (int)nArgs], "--") || nArgs > kMaxBuffers ||
      nResults > kMaxBuffers) {
    fprintf(stderr, "usage: %s [options] ARGS... -- RESULTS... (%zu args, "
            "%zu results)\n", argv[0], nArgs, nResults);
    return 2;
  }
  for (i = 0; i < nArgs; ++i) {
    const char *path = argv[a + (int)i];
    b.inputs[i] = strcmp(path, "@random")
                      ? readFile(path, kiln_e2e_arg_sizes[i])
                      : randomArg(kiln_e2e_arg_sizes[i], kiln_e2e_arg_elem[i],
                                  &seed);
    b.args[i] = allocate(kiln_e2e_arg_sizes[i]);
  }
  for (i = 0; i < nResults; ++i) {
    b.results[i] = allocate(kiln_e2e_result_sizes[i]);
    serial[i] = allocate(kiln_e2e_result_sizes[i]);
  }
  b.arena = allocate(kiln_e2e_arena_size);

  runOnce(&b, NULL, 1);
  for (i = 0; i < nResults; ++i)
    memcpy(serial[i], b.results[i], kiln_e2e_result_sizes[i]);

  /* threads 0 stands for a NULL pool. */
  for (t = 0; t <= threadCounts; ++t) {
    int count = t == 0 ? 0 : threads[t - 1];
    kiln_pool *pool = count > 0 ? kiln_pool_create(count) : NULL;
    Counting counting = {kiln_pool_parallel(pool), 0, 0, 0};
    kiln_parallel parallel = {countingFor, &counting};
    if (count > 0 && !pool) {
      fprintf(stderr, "cannot create a pool of %d threads\n", count);
      return 2;
    }
    for (r = 0; r < (t == 0 ? 1 : repeat); ++r) {
      runOnce(&b, count > 0 ? &parallel : NULL, 0);
      for (i = 0; i < nResults; ++i)
        if (memcmp(b.results[i], serial[i], kiln_e2e_result_sizes[i])) {
          size_t at = 0;
          while (((unsigned char *)b.results[i])[at] == serial[i][at])
            ++at;
          fprintf(stderr, "threads %d, run %d: result %zu differs from the "
                  "serial run at byte %zu\n", count, r, i, at);
          return 1;
        }
    }
    if (count > 0)
      printf("threads %d: %ld parallel_for calls, %ld tasks per run, "
             "identical\n", count, counting.calls / repeat,
             counting.tasks / repeat);
    else
      printf("no pool: identical\n");
    if (counting.mostTasks > mostTasks)
      mostTasks = counting.mostTasks;
    kiln_pool_destroy(pool);
  }
  if (mostTasks < minTasks) {
    fprintf(stderr, "no kernel was split into %ld tasks (at most %ld)\n",
            minTasks, mostTasks);
    return 1;
  }
  for (i = 0; i < nResults; ++i) {
    FILE *f = fopen(argv[a + (int)nArgs + 1 + (int)i], "wb");
    if (!f || fwrite(serial[i], 1, kiln_e2e_result_sizes[i], f) !=
                  kiln_e2e_result_sizes[i]) {
      fprintf(stderr, "cannot write %s\n", argv[a + (int)nArgs + 1 + (int)i]);
      return 2;
    }
    fclose(f);
  }
  if (benchRuns > 0)
    bench(&b, threads[0], benchRuns);
  printf("threads ok\n");
  return 0;
}
