/* fake_models.c - hand-written stand-ins for the golden models' entry points,
 * so the C++ classes can be exercised without the code generator:
 *   add_relu: r = max(x, 0)
 *   detector: boxes[i] = image[i] * threshold (first 8 values),
 *             keep[j] = image[j] > threshold, and the writable variable
 *             step.count incremented in place;
 *             fails (returns 1) when the arena is not 64-byte aligned;
 *   selector: indices = the (row, column) of each true element of mask in
 *             row-major order, padded with zeros to 6 rows, its count in
 *             indices_count, and any = whether one is true.
 * add_relu_run_parallel runs one task per element through the pool, like a
 * split kernel; detector_run_parallel ignores the pool. */
#include "add_relu.h"
#include "detector.h"
#include "kiln/runtime.h"
#include "selector.h"

#include <stdbool.h>

int add_relu_run(const void *const *args, void *const *results, void *arena) {
  const float *x = (const float *)args[0];
  float *r = (float *)results[0];
  int i;
  (void)arena;
  for (i = 0; i < 6; ++i)
    r[i] = x[i] > 0 ? x[i] : 0;
  return 0;
}

struct AddReluTask {
  const float *x;
  float *r;
};

static void addReluElement(void *opaque, int64_t i) {
  struct AddReluTask *task = (struct AddReluTask *)opaque;
  task->r[i] = task->x[i] > 0 ? task->x[i] : 0;
}

int add_relu_run_parallel(const void *const *args, void *const *results,
                          void *arena, const kiln_parallel *pool) {
  struct AddReluTask task;
  if (pool == NULL)
    return add_relu_run(args, results, arena);
  task.x = (const float *)args[0];
  task.r = (float *)results[0];
  pool->parallel_for(pool->ctx, 6, addReluElement, &task);
  return 0;
}

int detector_run(const void *const *args, void *const *results, void *arena) {
  const float *image = (const float *)args[0];
  float threshold = *(const float *)args[1];
  float *boxes = (float *)results[0];
  bool *keep = (bool *)results[1];
  int i;
  if (((uintptr_t)arena & 63) != 0)
    return 1;
  for (i = 0; i < 8; ++i)
    boxes[i] = image[i] * threshold;
  for (i = 0; i < 2; ++i)
    keep[i] = image[i] > threshold;
  *(int64_t *)args[2] += 1; /* writable variables are written in place */
  return 0;
}

int detector_run_parallel(const void *const *args, void *const *results,
                          void *arena, const kiln_parallel *pool) {
  (void)pool;
  return detector_run(args, results, arena);
}

int selector_run(const void *const *args, void *const *results, void *arena) {
  const bool *mask = (const bool *)args[0];
  int64_t *indices = (int64_t *)results[0];
  int32_t count = 0;
  int i;
  (void)arena;
  for (i = 0; i < 12; ++i)
    indices[i] = 0;
  for (i = 0; i < 6; ++i)
    if (mask[i]) {
      indices[2 * count] = i / 3;
      indices[2 * count + 1] = i % 3;
      ++count;
    }
  *(bool *)results[1] = count > 0;
  *(int32_t *)results[SELECTOR_RESULT0_COUNT_RESULT] = count;
  return 0;
}

int selector_run_parallel(const void *const *args, void *const *results,
                          void *arena, const kiln_parallel *pool) {
  (void)pool;
  return selector_run(args, results, arena);
}
