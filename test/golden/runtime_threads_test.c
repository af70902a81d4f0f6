/* runtime_threads_test.c - kiln/runtime_threads.h's pool keeps the
 * kiln_parallel contract: every task runs exactly once before parallel_for
 * returns, for any task and thread count, with pools used back to back and
 * shared by two calling threads; and a worker stuck in its share does not
 * hold the job up: another thread takes the rest of its share from the far
 * end. The pool's job fields and each share start a cache line. Shares
 * follow the threads' measured speeds. All of it on a virtual clock: a
 * thread's clock moves by what its tasks say they cost, and by 100 ns each
 * time the pool reads it, so what the pool learns, and when it finds an
 * owner stalled, do not depend on how this machine schedules the test.
 * Built as C99 and C++ and under ThreadSanitizer
 * (test/golden/CMakeLists.txt). */
#include <pthread.h>

static __thread long long virtualNs; /* this thread's virtual clock */
static long long virtualNow(void) { return virtualNs += 100; }
#define KILN_POOL_NOW_NS() virtualNow()
/* Stalled owners are found by time here, never by counting polls. */
#define KILN_POOL_STALL_POLLS (1 << 30)

#include "kiln/runtime_threads.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "expect.h"

enum { kMaxTasks = 1000 };

typedef struct Job {
  int runs[kMaxTasks];
  int64_t sum;
} Job;

static void task(void *opaque, int64_t i) {
  Job *job = (Job *)opaque;
  __atomic_add_fetch(&job->runs[i], 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&job->sum, i, __ATOMIC_RELAXED);
}

/* One parallel_for of n tasks; 0 when each ran once and all had returned. */
static int runJob(const kiln_parallel *parallel, int64_t n) {
  Job job;
  int64_t i;
  memset(&job, 0, sizeof(Job));
  parallel->parallel_for(parallel->ctx, n, task, &job);
  for (i = 0; i < n; ++i)
    if (job.runs[i] != 1)
      return 1;
  return job.sum == n * (n - 1) / 2 ? 0 : 1;
}

typedef struct Caller {
  kiln_parallel parallel;
  int failed;
} Caller;

static void *callRepeatedly(void *opaque) {
  Caller *caller = (Caller *)opaque;
  int r;
  for (r = 0; r < 200; ++r)
    caller->failed |= runJob(&caller->parallel, 1 + r % 97);
  return NULL;
}

/* Each worker's share of 2 * parts tasks is [2w, 2w + 2): its first task
 * waits until its second has run, which only another thread can do while
 * the owner is stuck in the first (a pool that left started shares to their
 * owners would wait forever; the guard ends the wait after a minute and
 * fails instead). The caller's share has no such pair. Each task costs
 * 1 us of virtual time, so a helper finds an owner stalled after 2 us of
 * its own polling. */
typedef struct Stuck {
  int done[64];
  int timedOut;
} Stuck;

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void stuckTask(void *opaque, int64_t i) {
  Stuck *stuck = (Stuck *)opaque;
  virtualNs += 1000;
  if (i >= 2 && i % 2 == 0) {
    double start = seconds();
    while (!__atomic_load_n(&stuck->done[i + 1], __ATOMIC_ACQUIRE)) {
      if (seconds() - start > 60) {
        __atomic_store_n(&stuck->timedOut, 1, __ATOMIC_RELAXED);
        break;
      }
      sched_yield();
    }
  }
  __atomic_store_n(&stuck->done[i], 1, __ATOMIC_RELEASE);
}

static int stuckWorkersAreHelped(int threads) {
  kiln_pool *pool = kiln_pool_create(threads);
  kiln_parallel parallel = kiln_pool_parallel(pool);
  int r, i;
  EXPECT(pool != NULL);
  for (r = 0; r < 20; ++r) {
    Stuck stuck;
    memset(&stuck, 0, sizeof(Stuck));
    parallel.parallel_for(parallel.ctx, 2 * threads, stuckTask, &stuck);
    EXPECT(!stuck.timedOut);
    for (i = 0; i < 2 * threads; ++i)
      EXPECT(stuck.done[i]);
  }
  kiln_pool_destroy(pool);
  return 0;
}

/* Tasks that cost `callerNs` of virtual time on the thread calling
 * parallel_for and `workerNs` on any other. Each also spins for 5 us of
 * real time, so that every thread, even one more than the cores, runs some
 * of its own share in most jobs: a thread that runs none is not measured. */
typedef struct Costs {
  pthread_t caller;
  long long callerNs, workerNs;
} Costs;

static void costlyTask(void *opaque, int64_t i) {
  const Costs *costs = (const Costs *)opaque;
  double start = seconds();
  (void)i;
  while (seconds() - start < 5e-6)
    ;
  virtualNs += pthread_equal(pthread_self(), costs->caller) ? costs->callerNs
                                                            : costs->workerNs;
}

static void runCostly(kiln_pool *pool, int jobs, int64_t n,
                      long long callerNs, long long workerNs) {
  Costs costs;
  int j;
  costs.caller = pthread_self();
  costs.callerNs = callerNs;
  costs.workerNs = workerNs;
  for (j = 0; j < jobs; ++j)
    kiln_pool_parallel_for(pool, n, costlyTask, &costs);
}

/* Runs jobs of n tasks at the given costs until the workers' shares begin
 * at `begins` (one per worker), checked every 50 jobs; 0 when they do
 * within 4,000 jobs. (A thread that runs none of its own share in a job is
 * not measured in it, and with more threads than cores, or beside other
 * tests, one may miss many jobs in a row: the bound is generous.) */
static int sharesReach(kiln_pool *pool, int64_t n, long long callerNs,
                       long long workerNs, const int *begins) {
  int j, w;
  for (j = 0; j < 4000; j += 50) {
    int reached = 1;
    runCostly(pool, 50, n, callerNs, workerNs);
    for (w = 0; w < pool->worker_count; ++w)
      reached &= (int)pool->chunks[w + 1].begin == begins[w];
    if (reached)
      return 0;
  }
  return 1;
}

static int sharesFollowSpeeds(void) {
  const int half[] = {32}, quarter[] = {48}, least[] = {57}, thirds[] = {30, 45};
  kiln_pool *pool = kiln_pool_create(2);
  EXPECT(pool != NULL);
  /* Equal speeds: halves. */
  EXPECT(sharesReach(pool, 64, 1000, 1000, half) == 0);
  /* A worker three times slower gets a quarter: then both take as long. */
  EXPECT(sharesReach(pool, 64, 1000, 3000, quarter) == 0);
  /* A worker a thousand times slower keeps the least share (a speed of
   * KILN_POOL_LEAST_SPEED against the caller's ~2: 7 of 64 tasks)... */
  EXPECT(sharesReach(pool, 64, 1000, 1000000, least) == 0);
  /* ...so that it is measured, and wins its half back once it recovers. */
  EXPECT(sharesReach(pool, 64, 1000, 1000, half) == 0);
  /* Jobs shorter than KILN_POOL_LEARN_NS in all teach nothing. */
  runCostly(pool, 500, 64, 100, 300);
  EXPECT(pool->chunks[1].begin == 32);
  kiln_pool_destroy(pool);
  /* Three threads, workers at half the caller's speed: 30, 15 and 15. */
  pool = kiln_pool_create(3);
  EXPECT(pool != NULL);
  EXPECT(sharesReach(pool, 60, 1000, 2000, thirds) == 0);
  kiln_pool_destroy(pool);
  return 0;
}

int main(void) {
  int threads[] = {0, 1, 2, 3, 7};
  int64_t counts[] = {0, 1, 2, 5, 64, 999};
  size_t t, c;
  int r;
  for (t = 0; t < sizeof(threads) / sizeof(threads[0]); ++t) {
    kiln_pool *pool = kiln_pool_create(threads[t]);
    kiln_parallel parallel = kiln_pool_parallel(pool);
    EXPECT(pool != NULL);
    EXPECT(kiln_pool_threads(pool) == (threads[t] > 1 ? threads[t] : 1));
    EXPECT((uintptr_t)pool % 64 == 0 && (uintptr_t)pool->chunks % 64 == 0);
    for (r = 0; r < 50; ++r)
      for (c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c)
        EXPECT(runJob(&parallel, counts[c]) == 0);
    kiln_pool_destroy(pool);
  }
  {
    /* Two threads calling parallel_for on one pool take turns. */
    kiln_pool *pool = kiln_pool_create(3);
    Caller a, b;
    pthread_t other;
    a.parallel = b.parallel = kiln_pool_parallel(pool);
    a.failed = b.failed = 0;
    EXPECT(pthread_create(&other, NULL, callRepeatedly, &b) == 0);
    callRepeatedly(&a);
    pthread_join(other, NULL);
    EXPECT(!a.failed && !b.failed);
    kiln_pool_destroy(pool);
  }
  EXPECT(stuckWorkersAreHelped(2) == 0);
  EXPECT(stuckWorkersAreHelped(3) == 0);
  EXPECT(sharesFollowSpeeds() == 0);
  kiln_pool_destroy(NULL);
  printf("runtime threads ok\n");
  return 0;
}
