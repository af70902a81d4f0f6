/* runtime_threads.h - a small pthread pool implementing kiln_parallel.
 *
 * Header-only C99 and C++ (GCC or Clang: it uses their __atomic builtins).
 * Only programs that include this header need -pthread; kiln/runtime.h and
 * the generated code reference no thread library. See docs/abi.md.
 *
 *   kiln_pool *pool = kiln_pool_create(4);        (4 threads: the caller + 3)
 *   kiln_parallel parallel = kiln_pool_parallel(pool);
 *   model_run_parallel(args, results, arena, &parallel);
 *   kiln_pool_destroy(pool);
 *
 * The thread that calls parallel_for runs tasks too. Each thread runs its
 * own contiguous share of the tasks, then waits for the others' shares,
 * taking tasks from the far end of a share whose owner has not started it
 * or has stopped claiming (descheduled, most likely). Shares are sized by
 * each thread's speed, measured on the jobs before: a thread on a core the
 * host runs slower gets fewer tasks, and still the same rows from kernel
 * to kernel. One parallel_for runs
 * at a time per pool: concurrent callers (two models sharing a pool) take
 * turns. Workers poll for a while after a job before sleeping, because a
 * model calls parallel_for once per large kernel, in quick succession;
 * joining, leaving and closing a job are atomic operations on one word, so
 * the polling path takes no lock. */
#ifndef KILN_RUNTIME_THREADS_H
#define KILN_RUNTIME_THREADS_H

#include "kiln/runtime.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#if !defined(__GNUC__) && !defined(__clang__)
#error "kiln/runtime_threads.h needs GCC or Clang __atomic builtins"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Polls before a worker waiting for the next job, or the caller waiting for
 * the workers, goes to sleep: a model calls parallel_for once per large
 * kernel, often only microseconds apart, and waking a sleeping thread costs
 * more than that. Then KILN_POOL_YIELDS polls that yield the CPU (so an
 * oversubscribed machine still makes progress) before sleeping. */
#ifndef KILN_POOL_SPINS
#define KILN_POOL_SPINS 20000
#endif
#ifndef KILN_POOL_YIELDS
#define KILN_POOL_YIELDS 50
#endif
/* Polls a thread done with its own share waits before it takes tasks from
 * another's: for a worker to start its share (a few microseconds: a polling
 * worker starts within one), and for a worker that has started to claim its
 * next task (longer than tasks take, so that only a worker the system has
 * descheduled loses tasks; moving rows between cores costs more than a
 * small imbalance, docs/performance.md). */
#ifndef KILN_POOL_JOIN_POLLS
#define KILN_POOL_JOIN_POLLS 256
#endif
#ifndef KILN_POOL_STALL_POLLS
#define KILN_POOL_STALL_POLLS 8192
#endif

/* How much of the threads' measured speed comes from the latest job: a job
 * that kept the threads busy for b nanoseconds in all has the weight
 * b / (b + KILN_POOL_SPEED_NS), so about a millisecond of work replaces
 * half of what was known. A job shorter than KILN_POOL_LEARN_NS teaches
 * nothing: in a job of a few microseconds a worker's cost of joining, and
 * of fetching its first rows from the other core, outweighs its speed
 * (BlazeFace's small kernels made a worker look 15-25% slower than the
 * caller, whose speed it matched in the large ones). */
#ifndef KILN_POOL_SPEED_NS
#define KILN_POOL_SPEED_NS 1000000.0
#endif
#ifndef KILN_POOL_LEARN_NS
#define KILN_POOL_LEARN_NS 50000.0
#endif

/* A monotonic clock in nanoseconds, which each thread reads around its own
 * share (two ~30 ns reads a job). It needs POSIX's CLOCK_MONOTONIC
 * (_POSIX_C_SOURCE >= 199309L, or GNU C, the compilers' default); in
 * strict ISO C it reads 0, nothing is measured, and shares stay equal.
 * KILN_POOL_NOW_NS() replaces it (the tests give threads virtual time). */
#ifndef KILN_POOL_NOW_NS
#ifdef CLOCK_MONOTONIC
static inline long long kiln_pool_now_ns_(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000000000ll + (long long)now.tv_nsec;
}
#define KILN_POOL_NOW_NS() kiln_pool_now_ns_()
#else
#define KILN_POOL_NOW_NS() 0ll
#endif
#endif

static inline void kiln_pool_relax_(int poll) {
  if (poll >= KILN_POOL_SPINS) {
    sched_yield();
    return;
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* One thread's share of a job's tasks, [low, high) in one word so that a
 * claim from either end is one compare-and-swap. Consecutive kernels split
 * the same output rows the same way, so a thread that runs its own share
 * reads rows it wrote itself, still in its own cache. Others take tasks
 * only from a share whose owner is away, and from its far end: a row
 * computed on another core has to cross to the owner's cache for the next
 * kernel, and on some machines that costs more than the task (BlazeFace
 * with 2 threads ran at 0.85x of serial when every other job's shares were
 * swapped; helping with every started share from its far end, as soon as
 * one's own was done, measured 1.45-1.51x against 1.57-1.62x for waiting).
 * Padded to a cache line. */
typedef struct kiln_pool_chunk_ {
  unsigned long long range; /* atomic: high << 32 | low, the tasks left */
  unsigned long long begin; /* the share's first task */
  /* What the owner ran of its own share in the latest job, and in how
   * long; written by the owner before it leaves the job, read by the caller
   * once every worker has left (0 tasks: it did not join in time). */
  long long own_tasks, own_ns;
  /* The owner's speed relative to the others' (kiln_pool_learn_speeds_);
   * shares are proportional to it. The caller's alone. */
  double speed;
  char padding[24];
} kiln_pool_chunk_;

/* Claims the lowest task left in `chunk` (its owner) or the highest (a
 * helper); -1 when none is left. */
static inline int64_t kiln_pool_claim_(kiln_pool_chunk_ *chunk, int owner) {
  unsigned long long range = __atomic_load_n(&chunk->range, __ATOMIC_RELAXED);
  for (;;) {
    unsigned long long low = range & 0xffffffffull, high = range >> 32;
    if (low >= high)
      return -1;
    if (__atomic_compare_exchange_n(&chunk->range, &range,
                                    owner ? range + 1 : range - (1ull << 32), 1,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return (int64_t)(owner ? low : high - 1);
  }
}

/* A job's state in one word, so that joining, leaving and closing it are
 * single atomic operations and the hot path takes no mutex (a worker that
 * blocked on a mutex the caller held slept in the kernel and woke long
 * after its tasks had been taken): the job's generation in the high 32
 * bits, KILN_POOL_CLOSED once the caller has claimed every task, the
 * workers that joined the job in bits 16-30 and those still inside it in
 * the low 16. */
#define KILN_POOL_CLOSED 0x80000000ull
#define KILN_POOL_JOIN 0x10001ull /* one more joined, one more inside */
#define KILN_POOL_INSIDE 0xffffull
#define KILN_POOL_JOINED(state) (((state) >> 16) & 0x7fffull)
#define KILN_POOL_GENERATION(state) ((state) >> 32)

/* The pool and its shares start on a cache line of their own
 * (kiln_pool_calloc_line_): the job's fields and its state then come to a
 * worker as one line, not two (an empty 2-task job: 1.75 us against 1.5 us
 * when the other core shares no cache). */
typedef struct kiln_pool {
  /* The current job: written by the caller before it publishes the job's
   * generation in `state`, read by the workers that join it. */
  void (*fn)(void *arg, int64_t i);
  void *arg;
  int64_t base; /* the job's first task index */
  kiln_pool_chunk_ *chunks; /* one per thread: the caller's is chunks[0] */
  unsigned long long state; /* atomic: generation | CLOSED | workers inside */
  char padding[64]; /* what follows, on other lines than the polled state */
  int started;              /* atomic: workers that have picked an index */
  int stop;                 /* atomic */
  /* Sleeping, after the polls: workers wait on `wake` for a new job, the
   * caller on `done` for the last worker to leave. The counts say whether
   * anyone sleeps, so the hot path signals nobody. */
  pthread_mutex_t mutex;
  pthread_cond_t wake;
  pthread_cond_t done;
  int sleeping_workers; /* atomic, written under mutex */
  int caller_sleeping;  /* atomic, written under mutex */
  pthread_mutex_t turn; /* one parallel_for at a time */
  pthread_t *workers;
  int worker_count;
  void *memory, *chunks_memory; /* what was allocated, for free() */
} kiln_pool;

/* Runs thread `self`'s share from its low end, timing it. */
static inline void kiln_pool_run_own_(kiln_pool *pool, int self) {
  kiln_pool_chunk_ *chunk = &pool->chunks[self];
  long long start = KILN_POOL_NOW_NS(), tasks = 0;
  int64_t i;
  while ((i = kiln_pool_claim_(chunk, 1)) >= 0) {
    pool->fn(pool->arg, pool->base + i);
    ++tasks;
  }
  chunk->own_ns = KILN_POOL_NOW_NS() - start;
  chunk->own_tasks = tasks;
}

/* Whether every task of the job is claimed, as the job's state says: a
 * worker leaves a job only once it has seen every share all claimed, and
 * the caller closes it only then. */
static inline int kiln_pool_all_claimed_(kiln_pool *pool) {
  unsigned long long state = __atomic_load_n(&pool->state, __ATOMIC_ACQUIRE);
  return (state & KILN_POOL_CLOSED) ||
         KILN_POOL_JOINED(state) > (state & KILN_POOL_INSIDE);
}

/* Polls of the job's state between two reads of a share's range: each
 * read pulls the share's line away from its owner, whose next claim must
 * fetch it back from the other core, while the state changes only when a
 * thread joins, leaves or closes the job. */
#define KILN_POOL_RANGE_POLLS 256

/* How long a thread waiting on a share lets its owner go without a new
 * claim before it takes tasks from the far end: twice what the waiting
 * thread's own tasks took in this job (a job's tasks are alike). An owner
 * the host pauses for tens of microseconds (a busy neighbour on its core)
 * then loses the tasks it cannot run, and one that is merely slower keeps
 * them. 0 without a measure (no clock, or no task of its own run): then
 * KILN_POOL_STALL_POLLS polls. */
static inline long long kiln_pool_stall_ns_(const kiln_pool_chunk_ *mine) {
  return mine->own_tasks > 0 ? 2 * mine->own_ns / mine->own_tasks : 0;
}

/* Whether the owner of `chunk`, whose lowest task left is `low`, is away:
 * it has not started its share after KILN_POOL_JOIN_POLLS polls (it has
 * not joined the job; at once if a worker sleeps), or has claimed nothing
 * for `stall_ns` (or, without it, for KILN_POOL_STALL_POLLS polls). */
static inline int kiln_pool_away_(kiln_pool *pool,
                                  const kiln_pool_chunk_ *chunk,
                                  unsigned long long low, int quiet_polls,
                                  long long quiet_ns, long long stall_ns) {
  if (low == chunk->begin)
    return __atomic_load_n(&pool->sleeping_workers, __ATOMIC_RELAXED) ||
           quiet_polls >= KILN_POOL_JOIN_POLLS;
  return stall_ns > 0 ? quiet_ns >= stall_ns
                      : quiet_polls >= KILN_POOL_STALL_POLLS;
}

/* Waits until share `c` is all claimed, taking tasks from its far (high)
 * end while its owner is away (kiln_pool_away_). In between it polls the
 * job's state, which says when every share is claimed
 * (kiln_pool_all_claimed_), and reads the range only every
 * KILN_POOL_RANGE_POLLS polls. */
static inline void kiln_pool_help_(kiln_pool *pool, int c, long long stall_ns) {
  kiln_pool_chunk_ *chunk = &pool->chunks[c];
  unsigned long long last = ~0ull;
  long long claimed_at = 0;
  int poll = 0, quiet = 0, k;
  for (;;) {
    unsigned long long range = __atomic_load_n(&chunk->range, __ATOMIC_RELAXED);
    unsigned long long low = range & 0xffffffffull;
    long long now = stall_ns > 0 ? KILN_POOL_NOW_NS() : 0;
    int64_t i;
    if (low >= range >> 32)
      return;
    if (low != last) {
      last = low;
      quiet = 0;
      claimed_at = now;
    }
    if (kiln_pool_away_(pool, chunk, low, quiet, now - claimed_at, stall_ns)) {
      if ((i = kiln_pool_claim_(chunk, 0)) >= 0)
        pool->fn(pool->arg, pool->base + i);
      continue;
    }
    for (k = 0; k < KILN_POOL_RANGE_POLLS; ++k) {
      if (kiln_pool_all_claimed_(pool))
        return;
      kiln_pool_relax_(poll);
    }
    poll = poll < KILN_POOL_SPINS ? poll + KILN_POOL_RANGE_POLLS
                                  : poll; /* then yield */
    quiet += KILN_POOL_RANGE_POLLS;
  }
}

/* Runs thread `self`'s share, then waits for the others' to be claimed,
 * helping where an owner stalls (the nearest share first). */
static inline void kiln_pool_run_tasks_(kiln_pool *pool, int self) {
  int parts = pool->worker_count + 1, k;
  long long stall_ns;
  kiln_pool_run_own_(pool, self);
  stall_ns = kiln_pool_stall_ns_(&pool->chunks[self]);
  for (k = 1; k < parts; ++k)
    kiln_pool_help_(pool, (self + k) % parts, stall_ns);
}

/* Whether a job other than generation `seen`, or stop, has come. */
static inline int kiln_pool_has_news_(kiln_pool *pool, unsigned long seen) {
  unsigned long long state = __atomic_load_n(&pool->state, __ATOMIC_SEQ_CST);
  return KILN_POOL_GENERATION(state) != seen ||
         __atomic_load_n(&pool->stop, __ATOMIC_SEQ_CST);
}

/* Waits (polling, then sleeping) for a generation other than `seen`, or for
 * stop. A sleeper counts itself in before its last look at the state, and
 * the caller publishes before it looks at the count (both sequentially
 * consistent): either the worker sees the job or the caller sees the
 * sleeper and wakes it. */
static inline void kiln_pool_await_job_(kiln_pool *pool, unsigned long seen) {
  int poll;
  for (poll = 0; poll < KILN_POOL_SPINS + KILN_POOL_YIELDS; ++poll) {
    if (kiln_pool_has_news_(pool, seen))
      return;
    kiln_pool_relax_(poll);
  }
  pthread_mutex_lock(&pool->mutex);
  __atomic_add_fetch(&pool->sleeping_workers, 1, __ATOMIC_SEQ_CST);
  while (!kiln_pool_has_news_(pool, seen))
    pthread_cond_wait(&pool->wake, &pool->mutex);
  __atomic_sub_fetch(&pool->sleeping_workers, 1, __ATOMIC_SEQ_CST);
  pthread_mutex_unlock(&pool->mutex);
}

/* Enters the newest job if it is still open; returns its generation in
 * *generation either way. A worker joins only an open job, so the caller
 * never waits for a worker that arrives after every task is claimed (on a
 * busy machine that wait would cost a scheduler time slice). */
static inline int kiln_pool_join_(kiln_pool *pool, unsigned long *generation) {
  unsigned long long state = __atomic_load_n(&pool->state, __ATOMIC_ACQUIRE);
  do {
    *generation = (unsigned long)KILN_POOL_GENERATION(state);
    if (state & KILN_POOL_CLOSED)
      return 0;
  } while (!__atomic_compare_exchange_n(&pool->state, &state,
                                        state + KILN_POOL_JOIN, 1,
                                        __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE));
  return 1;
}

/* Leaves the job; the last one out of a closed job wakes a sleeping caller
 * (the same handshake as kiln_pool_await_job_'s, the other way round). */
static inline void kiln_pool_leave_(kiln_pool *pool) {
  unsigned long long state =
      __atomic_sub_fetch(&pool->state, 1, __ATOMIC_SEQ_CST);
  if ((state & KILN_POOL_INSIDE) == 0 &&
      __atomic_load_n(&pool->caller_sleeping, __ATOMIC_SEQ_CST)) {
    pthread_mutex_lock(&pool->mutex);
    pthread_cond_signal(&pool->done);
    pthread_mutex_unlock(&pool->mutex);
  }
}

static inline void *kiln_pool_worker_(void *opaque) {
  kiln_pool *pool = (kiln_pool *)opaque;
  unsigned long seen = 0;
  int self = __atomic_add_fetch(&pool->started, 1, __ATOMIC_RELAXED);
  for (;;) {
    kiln_pool_await_job_(pool, seen);
    if (__atomic_load_n(&pool->stop, __ATOMIC_ACQUIRE))
      return NULL;
    if (!kiln_pool_join_(pool, &seen))
      continue;
    kiln_pool_run_tasks_(pool, self);
    kiln_pool_leave_(pool);
  }
}

static inline int kiln_pool_workers_inside_(kiln_pool *pool) {
  return (int)(__atomic_load_n(&pool->state, __ATOMIC_SEQ_CST) &
               KILN_POOL_INSIDE);
}

/* The caller, every task claimed: closes the job and waits for the
 * workers inside to finish theirs. */
static inline void kiln_pool_finish_(kiln_pool *pool) {
  int poll;
  __atomic_fetch_or(&pool->state, KILN_POOL_CLOSED, __ATOMIC_SEQ_CST);
  for (poll = 0; poll < KILN_POOL_SPINS + KILN_POOL_YIELDS &&
                 kiln_pool_workers_inside_(pool);
       ++poll)
    kiln_pool_relax_(poll);
  if (kiln_pool_workers_inside_(pool)) {
    pthread_mutex_lock(&pool->mutex);
    __atomic_store_n(&pool->caller_sleeping, 1, __ATOMIC_SEQ_CST);
    while (kiln_pool_workers_inside_(pool))
      pthread_cond_wait(&pool->done, &pool->mutex);
    __atomic_store_n(&pool->caller_sleeping, 0, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&pool->mutex);
  }
}

/* The least speed a thread is given, against 1 for a thread as fast as
 * the average: a thread slowed for a while keeps a share, so it is still
 * measured and wins its tasks back when it recovers. */
#define KILN_POOL_LEAST_SPEED 0.25

/* Whether the job just finished timed some of `chunk`'s owner's own tasks. */
static inline int kiln_pool_measured_(const kiln_pool_chunk_ *chunk) {
  return chunk->own_tasks > 0 && chunk->own_ns > 0;
}

/* Moves each thread's speed toward what the job just finished measured:
 * tasks per nanosecond of its own share, against the others', weighted by
 * how long the job kept them busy (KILN_POOL_SPEED_NS, KILN_POOL_LEARN_NS).
 * Threads that ran nothing of their own keep their speed. */
static inline void kiln_pool_learn_speeds_(kiln_pool *pool) {
  int c, parts = pool->worker_count + 1;
  double speeds = 0, rates = 0, busy = 0, weight, speeds_after;
  for (c = 0; c < parts; ++c) {
    const kiln_pool_chunk_ *chunk = &pool->chunks[c];
    if (kiln_pool_measured_(chunk)) {
      speeds += chunk->speed;
      rates += (double)chunk->own_tasks / (double)chunk->own_ns;
      busy += (double)chunk->own_ns;
    }
  }
  if (busy < KILN_POOL_LEARN_NS)
    return;
  weight = busy / (busy + KILN_POOL_SPEED_NS);
  speeds_after = 0;
  for (c = 0; c < parts; ++c) {
    kiln_pool_chunk_ *chunk = &pool->chunks[c];
    if (kiln_pool_measured_(chunk)) {
      double measured = speeds * (double)chunk->own_tasks /
                        (double)chunk->own_ns / rates;
      chunk->speed += weight * (measured - chunk->speed);
    }
    speeds_after += chunk->speed;
  }
  /* Back to an average of 1, then the floor (the floor alone would add to
   * the total every time it lifts a thread, and shrink its share). */
  for (c = 0; c < parts; ++c) {
    kiln_pool_chunk_ *chunk = &pool->chunks[c];
    chunk->speed *= parts / speeds_after;
    if (chunk->speed < KILN_POOL_LEAST_SPEED)
      chunk->speed = KILN_POOL_LEAST_SPEED;
  }
}

/* Splits n tasks into the threads' shares, in proportion to their speeds;
 * each boundary rounds to the nearest task, so speeds a few percent apart
 * still split small jobs evenly. Speeds are positive and the running sum
 * adds them in the order `total` did, so boundaries never decrease and the
 * last is n. */
static inline void kiln_pool_share_(kiln_pool *pool, int64_t n) {
  int c, parts = pool->worker_count + 1;
  double total = 0, before = 0;
  unsigned long long low = 0;
  for (c = 0; c < parts; ++c)
    total += pool->chunks[c].speed;
  for (c = 0; c < parts; ++c) {
    kiln_pool_chunk_ *chunk = &pool->chunks[c];
    unsigned long long high;
    before += chunk->speed;
    high = c == parts - 1 ? (unsigned long long)n
                          : (unsigned long long)((double)n * before / total +
                                                 0.5);
    chunk->begin = low;
    chunk->own_tasks = chunk->own_ns = 0;
    __atomic_store_n(&chunk->range, high << 32 | low, __ATOMIC_RELAXED);
    low = high;
  }
}

/* Runs tasks [base, base + n) as one job (n < 2^32, a share's range). */
static inline void kiln_pool_run_job_(kiln_pool *pool, int64_t base,
                                      int64_t n) {
  unsigned long long generation;
  pool->base = base;
  kiln_pool_share_(pool, n);
  /* Publish: the previous job is closed and empty, so the new state is the
   * next generation, open, nobody inside. */
  generation = KILN_POOL_GENERATION(
                   __atomic_load_n(&pool->state, __ATOMIC_RELAXED)) +
               1;
  __atomic_store_n(&pool->state, (generation & 0xffffffffull) << 32,
                   __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&pool->sleeping_workers, __ATOMIC_SEQ_CST)) {
    pthread_mutex_lock(&pool->mutex);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
  }
  kiln_pool_run_tasks_(pool, 0);
  kiln_pool_finish_(pool);
  kiln_pool_learn_speeds_(pool);
}

/* The kiln_parallel.parallel_for of a pool (ctx is the kiln_pool). */
static inline void kiln_pool_parallel_for(void *ctx, int64_t n,
                                          void (*fn)(void *arg, int64_t i),
                                          void *arg) {
  const int64_t kMaxJob = (int64_t)1 << 31;
  kiln_pool *pool = (kiln_pool *)ctx;
  int64_t i;
  if (n <= 0)
    return;
  if (pool == NULL || pool->worker_count == 0 || n == 1) {
    for (i = 0; i < n; ++i)
      fn(arg, i);
    return;
  }
  pthread_mutex_lock(&pool->turn);
  pool->fn = fn;
  pool->arg = arg;
  for (i = 0; i < n; i += kMaxJob)
    kiln_pool_run_job_(pool, i, n - i < kMaxJob ? n - i : kMaxJob);
  pthread_mutex_unlock(&pool->turn);
}

static inline void kiln_pool_destroy(kiln_pool *pool);

/* `bytes` of zeros starting on a cache line; *memory receives what to
 * free. (calloc's 16-byte alignment could put `state` on a second line.) */
static inline void *kiln_pool_calloc_line_(size_t bytes, void **memory) {
  *memory = calloc(1, bytes + 63);
  return *memory ? (void *)(((uintptr_t)*memory + 63) & ~(uintptr_t)63)
                 : NULL;
}

/* A pool of `threads` threads in all: the caller of parallel_for and
 * threads - 1 workers (none for threads <= 1: tasks then run serially on
 * the caller). NULL when threads or memory cannot be had. */
static inline kiln_pool *kiln_pool_create(int threads) {
  void *memory;
  kiln_pool *pool =
      (kiln_pool *)kiln_pool_calloc_line_(sizeof(kiln_pool), &memory);
  int w, workers = threads > 1 ? threads - 1 : 0;
  if (workers > 0x7fff) /* what KILN_POOL_JOINED counts */
    workers = 0x7fff;
  if (pool == NULL)
    return NULL;
  pool->memory = memory;
  pthread_mutex_init(&pool->mutex, NULL);
  pthread_mutex_init(&pool->turn, NULL);
  pthread_cond_init(&pool->wake, NULL);
  pthread_cond_init(&pool->done, NULL);
  pool->workers =
      (pthread_t *)calloc(workers > 0 ? (size_t)workers : 1, sizeof(pthread_t));
  pool->chunks = (kiln_pool_chunk_ *)kiln_pool_calloc_line_(
      ((size_t)workers + 1) * sizeof(kiln_pool_chunk_), &pool->chunks_memory);
  if (pool->workers == NULL || pool->chunks == NULL) {
    kiln_pool_destroy(pool);
    return NULL;
  }
  for (w = 0; w <= workers; ++w)
    pool->chunks[w].speed = 1;
  for (w = 0; w < workers; ++w) {
    if (pthread_create(&pool->workers[w], NULL, kiln_pool_worker_, pool) !=
        0) {
      kiln_pool_destroy(pool);
      return NULL;
    }
    pool->worker_count = w + 1;
  }
  return pool;
}

/* Threads of the pool, the caller of parallel_for included. */
static inline int kiln_pool_threads(const kiln_pool *pool) {
  return pool ? pool->worker_count + 1 : 1;
}

/* The kiln_parallel to pass to NAME_run_parallel; valid while the pool is. */
static inline kiln_parallel kiln_pool_parallel(kiln_pool *pool) {
  kiln_parallel parallel;
  parallel.parallel_for = kiln_pool_parallel_for;
  parallel.ctx = pool;
  return parallel;
}

/* Stops and joins the workers and frees the pool (NULL is a no-op). No
 * parallel_for may be running on it. */
static inline void kiln_pool_destroy(kiln_pool *pool) {
  int w;
  if (pool == NULL)
    return;
  pthread_mutex_lock(&pool->mutex);
  __atomic_store_n(&pool->stop, 1, __ATOMIC_SEQ_CST);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mutex);
  for (w = 0; w < pool->worker_count; ++w)
    pthread_join(pool->workers[w], NULL);
  free(pool->workers);
  free(pool->chunks_memory);
  pthread_cond_destroy(&pool->done);
  pthread_cond_destroy(&pool->wake);
  pthread_mutex_destroy(&pool->turn);
  pthread_mutex_destroy(&pool->mutex);
  free(pool->memory);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_RUNTIME_THREADS_H */
