/* use_golden.c - the golden headers and the runtime compile as strict C99. */
#include "add_relu.h"
#include "detector.h"
#include "kiln/runtime.h"
#include "selector.h"

#include <stdio.h>

KILN_STATIC_ARENA(detector_arena, DETECTOR_ARENA_SIZE);
KILN_STATIC_ARENA(empty_arena, ADD_RELU_ARENA_SIZE);

int main(void) {
  float image[DETECTOR_ARG0_SIZE / sizeof(float)] = {0};
  float threshold = 0.5f;
  int64_t steps = 0;
  float boxes[DETECTOR_RESULT0_SIZE / sizeof(float)];
  unsigned char keep[DETECTOR_RESULT1_SIZE];
  const void *args[DETECTOR_NUM_ARGS];
  void *results[DETECTOR_NUM_RESULTS];
  void *heap = kiln_arena_alloc(DETECTOR_ARENA_SIZE, DETECTOR_ARENA_ALIGN);
  int status;
  args[0] = image;
  args[1] = &threshold;
  args[2] = &steps;
  results[0] = boxes;
  results[1] = keep;
  if (kiln_check_abi(DETECTOR_ABI_VERSION) != KILN_OK ||
      !kiln_is_aligned(detector_arena, DETECTOR_ARENA_ALIGN) ||
      !kiln_is_aligned(empty_arena, ADD_RELU_ARENA_ALIGN))
    return 1;
  status = detector_run(args, results, heap ? heap : detector_arena);
  kiln_arena_free(heap);
  if (status != 0 || steps != 1) /* the writable variable, updated in place */
    return 1;
  printf("%s %d %d\n", kiln_status_string(status), ADD_RELU_NUM_ARGS,
         (int)sizeof(empty_arena));
  { /* A bounded result: its count is the result the header names. */
    int64_t indices[SELECTOR_RESULT0_SIZE / sizeof(int64_t)];
    unsigned char any;
    int32_t count;
    void *bounded[SELECTOR_NUM_RESULTS];
    bounded[0] = indices;
    bounded[1] = &any;
    bounded[SELECTOR_RESULT0_COUNT_RESULT] = &count;
    (void)bounded;
  }
  /* The prototype has exactly the documented C type. */
  {
    int (*entry)(const void *const *, void *const *, void *) = add_relu_run;
    int (*parallel)(const void *const *, void *const *, void *,
                    const kiln_parallel *) = add_relu_run_parallel;
    (void)entry;
    (void)parallel;
  }
  return status;
}
