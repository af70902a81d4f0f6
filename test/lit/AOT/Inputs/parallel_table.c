/* The kiln_e2e_* table test/e2e/threads_driver.c links with, for the model
 * compiled as `pk` from test/e2e/cases/parallel_kernels.hlo (parallel.test;
 * run_e2e.py's write_table generates the same for other models). */
#include <stddef.h>

#include "pk.h"

const size_t kiln_e2e_num_args = PK_NUM_ARGS;
const size_t kiln_e2e_num_results = PK_NUM_RESULTS;
const size_t kiln_e2e_arg_sizes[] = {PK_ARG0_SIZE, PK_ARG1_SIZE, PK_ARG2_SIZE,
                                     PK_ARG3_SIZE, 0};
const size_t kiln_e2e_arg_elem[] = {4, 4, 4, 4, 0};
const size_t kiln_e2e_result_sizes[] = {PK_RESULT0_SIZE, PK_RESULT1_SIZE,
                                        PK_RESULT2_SIZE, 0};
const size_t kiln_e2e_result_elem[] = {4, 4, 4, 0};
const size_t kiln_e2e_arena_size = PK_ARENA_SIZE;
const size_t kiln_e2e_arena_align = PK_ARENA_ALIGN;

int kiln_e2e_run(const void *const *a, void *const *r, void *arena) {
  return pk_run(a, r, arena);
}

int kiln_e2e_run_parallel(const void *const *a, void *const *r, void *arena,
                          const struct kiln_parallel *p) {
  return pk_run_parallel(a, r, arena, p);
}
