/* The kiln_e2e_* table test/e2e/threads_driver.c links with, for the model
 * compiled as `pt` from test/e2e/cases/paired_tasks.hlo (paired-tasks.test;
 * run_e2e.py's write_table generates the same for other models). */
#include <stddef.h>

#include "pt.h"

const size_t kiln_e2e_num_args = PT_NUM_ARGS;
const size_t kiln_e2e_num_results = PT_NUM_RESULTS;
const size_t kiln_e2e_arg_sizes[] = {PT_ARG0_SIZE, 0};
const size_t kiln_e2e_arg_elem[] = {4, 0};
const size_t kiln_e2e_result_sizes[] = {PT_RESULT0_SIZE, 0};
const size_t kiln_e2e_result_elem[] = {4, 0};
const size_t kiln_e2e_arena_size = PT_ARENA_SIZE;
const size_t kiln_e2e_arena_align = PT_ARENA_ALIGN;

int kiln_e2e_run(const void *const *a, void *const *r, void *arena) {
  return pt_run(a, r, arena);
}

int kiln_e2e_run_parallel(const void *const *a, void *const *r, void *arena,
                          const struct kiln_parallel *p) {
  return pt_run_parallel(a, r, arena, p);
}
