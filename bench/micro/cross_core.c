// cross_core.c - How fast one core reads data another core has just written, against re-reading
// data it wrote itself: the price of handing rows between threads, which decides how much a
// pool's task placement matters (docs/performance.md, "Threads on this host"). A virtual
// machine's two vCPUs may sit on cores that share a last-level cache or on cores that do not,
// and a hypervisor may move them between runs; bench/threads.py prints this beside every
// speed-up so that two runs can be compared.
// Two threads take turns: the writer fills a 256 KiB buffer, then either re-reads it itself
// or hands it to the reader. Prints one JSON object: {"own_gbps": X, "cross_gbps": Y}, the
// medians of 200 timed reads each.
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kBytes = 256 * 1024, kRounds = 200 };

static float *buffer;
static volatile int turn; // 2r + 1: the reader's turn in round r; 2r + 2: the writer's again
static double crossSeconds[kRounds], ownSeconds[kRounds];

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void fill(float value) {
  for (size_t i = 0; i < kBytes / sizeof(float); ++i)
    buffer[i] = value;
}

// Reads one float per cache line: the time is the lines' transfer, not the adds.
static double timedRead(void) {
  volatile float sink;
  float sum = 0;
  double start = now();
  for (size_t i = 0; i < kBytes / sizeof(float); i += 16)
    sum += buffer[i];
  double seconds = now() - start;
  sink = sum;
  (void)sink;
  return seconds;
}

static void *reader(void *unused) {
  (void)unused;
  for (int r = 0; r < kRounds; ++r) {
    while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != 2 * r + 1) {
    }
    crossSeconds[r] = timedRead();
    __atomic_store_n(&turn, 2 * r + 2, __ATOMIC_RELEASE);
  }
  return NULL;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double medianGbps(double *seconds) {
  qsort(seconds, kRounds, sizeof(double), compare);
  return kBytes / seconds[kRounds / 2] / 1e9;
}

int main(void) {
  pthread_t thread;
  buffer = aligned_alloc(64, kBytes);
  if (!buffer || pthread_create(&thread, NULL, reader, NULL) != 0)
    return 1;
  for (int r = 0; r < kRounds; ++r) {
    fill((float)r);
    ownSeconds[r] = timedRead();
    fill((float)r + 0.5f);
    __atomic_store_n(&turn, 2 * r + 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != 2 * r + 2) {
    }
  }
  pthread_join(thread, NULL);
  printf("{\"own_gbps\": %.1f, \"cross_gbps\": %.1f}\n", medianGbps(ownSeconds),
         medianGbps(crossSeconds));
  return 0;
}
