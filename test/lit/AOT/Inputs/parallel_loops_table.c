/* The kiln_e2e_* table test/e2e/threads_driver.c links with, for the model
 * compiled as `pl` from test/e2e/cases/parallel_loops.hlo
 * (parallel-loops.test). */
#include <stddef.h>

#include "pl.h"

const size_t kiln_e2e_num_args = PL_NUM_ARGS;
const size_t kiln_e2e_num_results = PL_NUM_RESULTS;
const size_t kiln_e2e_arg_sizes[] = {PL_ARG0_SIZE, PL_ARG1_SIZE, PL_ARG2_SIZE,
                                     PL_ARG3_SIZE, PL_ARG4_SIZE, 0};
const size_t kiln_e2e_arg_elem[] = {4, 4, 4, 4, 4, 0};
const size_t kiln_e2e_result_sizes[] = {PL_RESULT0_SIZE, PL_RESULT1_SIZE,
                                        PL_RESULT2_SIZE, PL_RESULT3_SIZE,
                                        PL_RESULT4_SIZE, PL_RESULT5_SIZE,
                                        PL_RESULT6_SIZE, 0};
const size_t kiln_e2e_result_elem[] = {4, 4, 4, 4, 4, 4, 4, 0};
const size_t kiln_e2e_arena_size = PL_ARENA_SIZE;
const size_t kiln_e2e_arena_align = PL_ARENA_ALIGN;

int kiln_e2e_run(const void *const *a, void *const *r, void *arena) {
  return pl_run(a, r, arena);
}

int kiln_e2e_run_parallel(const void *const *a, void *const *r, void *arena,
                          const struct kiln_parallel *p) {
  return pl_run_parallel(a, r, arena, p);
}
