/* The kiln_e2e_* table test/e2e/threads_driver.c links with, for the model
 * compiled as `lp` from loop_parallel.hlo (parallel-loop.test). */
#include <stddef.h>

#include "lp.h"

const size_t kiln_e2e_num_args = LP_NUM_ARGS;
const size_t kiln_e2e_num_results = LP_NUM_RESULTS;
const size_t kiln_e2e_arg_sizes[] = {LP_ARG0_SIZE, LP_ARG1_SIZE, 0};
const size_t kiln_e2e_arg_elem[] = {4, 4, 0};
const size_t kiln_e2e_result_sizes[] = {LP_RESULT0_SIZE, 0};
const size_t kiln_e2e_result_elem[] = {4, 0};
const size_t kiln_e2e_arena_size = LP_ARENA_SIZE;
const size_t kiln_e2e_arena_align = LP_ARENA_ALIGN;

int kiln_e2e_run(const void *const *a, void *const *r, void *arena) {
  return lp_run(a, r, arena);
}

int kiln_e2e_run_parallel(const void *const *a, void *const *r, void *arena,
                          const struct kiln_parallel *p) {
  return lp_run_parallel(a, r, arena, p);
}
