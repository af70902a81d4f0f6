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
 * The thread that calls parallel_for runs tasks too; each thread starts on
 * its own contiguous share of the tasks and then helps with the rest. One parallel_for runs
 * at a time per pool: concurrent callers (two models sharing a pool) take
 * turns. Workers poll for a while after a job before sleeping, because a
 * model calls parallel_for once per large kernel, in quick succession. */
#ifndef KILN_RUNTIME_THREADS_H
#define KILN_RUNTIME_THREADS_H

#include "kiln/runtime.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

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

/* The tasks one thread starts with: consecutive kernels split the same
 * output rows the same way, so a thread mostly reads rows it wrote itself,
 * still in its own cache. A thread that runs out takes tasks from the
 * others' chunks. Padded to a cache line. */
typedef struct kiln_pool_chunk_ {
  int64_t next; /* atomic: the next task index to claim */
  int64_t end;
  char padding[48];
} kiln_pool_chunk_;

typedef struct kiln_pool {
  pthread_mutex_t mutex;   /* guards the fields below marked "mutex" */
  pthread_cond_t wake;     /* a new job (or stop) */
  pthread_cond_t done;     /* the last worker left a closed job */
  pthread_mutex_t turn;    /* one parallel_for at a time */
  pthread_t *workers;
  int worker_count;
  /* The current job: written by the caller before it publishes the next
   * generation, read by the workers that join it. */
  void (*fn)(void *arg, int64_t i);
  void *arg;
  kiln_pool_chunk_ *chunks; /* one per thread: the caller's is chunks[0] */
  int started;              /* atomic: workers that have picked an index */
  unsigned long generation; /* atomic, written under mutex: one per job */
  int open;                 /* mutex: workers may still join the job */
  int joined;               /* atomic, written under mutex: workers inside */
  int stop;                 /* atomic, written under mutex */
} kiln_pool;

/* Runs tasks of chunk `self` first, then whatever the others left. */
static inline void kiln_pool_run_tasks_(kiln_pool *pool, int self) {
  int parts = pool->worker_count + 1, k;
  for (k = 0; k < parts; ++k) {
    kiln_pool_chunk_ *chunk = &pool->chunks[(self + k) % parts];
    int64_t i;
    while ((i = __atomic_fetch_add(&chunk->next, 1, __ATOMIC_RELAXED)) <
           chunk->end)
      pool->fn(pool->arg, i);
  }
}

/* Waits (spinning, then sleeping) for a generation other than `seen` or
 * for stop; returns with the mutex held. */
static inline void kiln_pool_await_job_(kiln_pool *pool, unsigned long seen) {
  int poll;
  for (poll = 0; poll < KILN_POOL_SPINS + KILN_POOL_YIELDS; ++poll) {
    if (__atomic_load_n(&pool->generation, __ATOMIC_RELAXED) != seen ||
        __atomic_load_n(&pool->stop, __ATOMIC_RELAXED))
      break;
    kiln_pool_relax_(poll);
  }
  pthread_mutex_lock(&pool->mutex);
  while (__atomic_load_n(&pool->generation, __ATOMIC_RELAXED) == seen &&
         !__atomic_load_n(&pool->stop, __ATOMIC_RELAXED))
    pthread_cond_wait(&pool->wake, &pool->mutex);
}

/* A worker joins a job only while it is open, so the caller never waits
 * for a worker that wakes after the caller has run every task itself (on a
 * busy machine that wait would cost a scheduler time slice). */
static inline void *kiln_pool_worker_(void *opaque) {
  kiln_pool *pool = (kiln_pool *)opaque;
  unsigned long seen = 0;
  int self = __atomic_add_fetch(&pool->started, 1, __ATOMIC_RELAXED);
  for (;;) {
    int join;
    kiln_pool_await_job_(pool, seen);
    if (pool->stop) {
      pthread_mutex_unlock(&pool->mutex);
      return NULL;
    }
    seen = pool->generation;
    join = pool->open;
    __atomic_add_fetch(&pool->joined, join, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&pool->mutex);
    if (!join)
      continue;
    kiln_pool_run_tasks_(pool, self);
    pthread_mutex_lock(&pool->mutex);
    /* Release: the caller may see 0 while spinning, without the mutex. */
    if (__atomic_sub_fetch(&pool->joined, 1, __ATOMIC_RELEASE) == 0 &&
        !pool->open)
      pthread_cond_signal(&pool->done);
    pthread_mutex_unlock(&pool->mutex);
  }
}

/* The kiln_parallel.parallel_for of a pool (ctx is the kiln_pool). */
static inline void kiln_pool_parallel_for(void *ctx, int64_t n,
                                          void (*fn)(void *arg, int64_t i),
                                          void *arg) {
  kiln_pool *pool = (kiln_pool *)ctx;
  int64_t i;
  int poll, c, parts;
  if (n <= 0)
    return;
  if (pool == NULL || pool->worker_count == 0 || n == 1) {
    for (i = 0; i < n; ++i)
      fn(arg, i);
    return;
  }
  pthread_mutex_lock(&pool->turn);
  pthread_mutex_lock(&pool->mutex);
  pool->fn = fn;
  pool->arg = arg;
  parts = pool->worker_count + 1;
  for (c = 0; c < parts; ++c) {
    __atomic_store_n(&pool->chunks[c].next, n * c / parts, __ATOMIC_RELAXED);
    pool->chunks[c].end = n * (c + 1) / parts;
  }
  pool->open = 1;
  __atomic_add_fetch(&pool->generation, 1, __ATOMIC_RELAXED);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mutex);
  kiln_pool_run_tasks_(pool, 0);
  /* Every task is claimed: close the job, then wait for the workers that
   * joined it to finish theirs. */
  pthread_mutex_lock(&pool->mutex);
  pool->open = 0;
  pthread_mutex_unlock(&pool->mutex);
  for (poll = 0; poll < KILN_POOL_SPINS + KILN_POOL_YIELDS &&
                 __atomic_load_n(&pool->joined, __ATOMIC_ACQUIRE) != 0;
       ++poll)
    kiln_pool_relax_(poll);
  pthread_mutex_lock(&pool->mutex);
  while (__atomic_load_n(&pool->joined, __ATOMIC_ACQUIRE) != 0)
    pthread_cond_wait(&pool->done, &pool->mutex);
  pthread_mutex_unlock(&pool->mutex);
  pthread_mutex_unlock(&pool->turn);
}

static inline void kiln_pool_destroy(kiln_pool *pool);

/* A pool of `threads` threads in all: the caller of parallel_for and
 * threads - 1 workers (none for threads <= 1: tasks then run serially on
 * the caller). NULL when threads or memory cannot be had. */
static inline kiln_pool *kiln_pool_create(int threads) {
  kiln_pool *pool = (kiln_pool *)calloc(1, sizeof(kiln_pool));
  int w, workers = threads > 1 ? threads - 1 : 0;
  if (pool == NULL)
    return NULL;
  pthread_mutex_init(&pool->mutex, NULL);
  pthread_mutex_init(&pool->turn, NULL);
  pthread_cond_init(&pool->wake, NULL);
  pthread_cond_init(&pool->done, NULL);
  pool->workers =
      (pthread_t *)calloc(workers > 0 ? (size_t)workers : 1, sizeof(pthread_t));
  pool->chunks = (kiln_pool_chunk_ *)calloc((size_t)workers + 1,
                                            sizeof(kiln_pool_chunk_));
  if (pool->workers == NULL || pool->chunks == NULL) {
    kiln_pool_destroy(pool);
    return NULL;
  }
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
  __atomic_store_n(&pool->stop, 1, __ATOMIC_RELAXED);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mutex);
  for (w = 0; w < pool->worker_count; ++w)
    pthread_join(pool->workers[w], NULL);
  free(pool->workers);
  free(pool->chunks);
  pthread_cond_destroy(&pool->done);
  pthread_cond_destroy(&pool->wake);
  pthread_mutex_destroy(&pool->turn);
  pthread_mutex_destroy(&pool->mutex);
  free(pool);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_RUNTIME_THREADS_H */
