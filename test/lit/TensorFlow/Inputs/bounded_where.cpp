// bounded_where.cpp - a bounded result from C and C++: where-output.pbtxt
// compiled with --name sel (bounded-output.test). Prints the valid rows of
// 'indices' read through the C++ class's result_indices_count() and through
// the C API's SEL_RESULT0_COUNT_RESULT, for two inputs.
#include "sel.h"
#include "kiln/runtime.h"

#include <cstdio>

static_assert(SEL_NUM_RESULTS == 3 && SEL_RESULT0_BOUNDED_DIM == 0, "");
static_assert(Sel::result0_count() == 12, "padded at one row per element");

static int runClass(const float (&x)[2][3]) {
  Sel model;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      model.arg_x(i, j) = x[i][j];
  if (!model.Run()) {
    std::printf("error: %s\n", model.error_msg());
    return 1;
  }
  std::printf("class: count %d rows", int(model.result_indices_count()));
  for (int r = 0; r < model.result_indices_count(); ++r)
    std::printf(" %lld,%lld", (long long)model.result_indices(r, 0),
                (long long)model.result_indices(r, 1));
  std::printf(" doubled %g\n", model.result_doubled(0, 0));
  return 0;
}

KILN_STATIC_ARENA(arena, SEL_ARENA_SIZE);

static int runC(const float (&x)[2][3]) {
  long long indices[SEL_RESULT0_SIZE / sizeof(long long)];
  float doubled[6];
  int32_t count = -1;
  const void* args[SEL_NUM_ARGS] = {x};
  void* results[SEL_NUM_RESULTS];
  results[0] = indices;
  results[1] = doubled;
  results[SEL_RESULT0_COUNT_RESULT] = &count;
  if (sel_run(args, results, arena) != 0)
    return 1;
  std::printf("C: count %d rows", count);
  for (int r = 0; r < count; ++r)
    std::printf(" %lld,%lld", indices[2 * r], indices[2 * r + 1]);
  std::printf("\n");
  return 0;
}

int main() {
  const float some[2][3] = {{0.9f, 0.1f, 0.7f}, {0.2f, 0.6f, 0.0f}};
  const float none[2][3] = {};
  return runClass(some) || runC(some) || runClass(none) || runC(none);
}
