/* variables_step.c - runs a compiled training step (test/lit/TensorFlow/
 * training-variables.pbtxt) twice on caller-owned variable buffers and prints
 * them: writable variables are updated in place, and are not results. */
#include "step.h"
#include "kiln/runtime.h"

#include <stdio.h>

/* Only the fetch is a result. */
typedef char only_the_fetch_is_a_result[STEP_NUM_RESULTS == 1 ? 1 : -1];
typedef char seven_variables[STEP_NUM_VARIABLES == 7 ? 1 : -1];

KILN_STATIC_ARENA(arena, STEP_ARENA_SIZE);

static void print(const char *name, const float *v) {
  printf(" %s %g %g %g", name, v[0], v[1], v[2]);
}

int main(void) {
  float x[3] = {1, 2, 4};
  float W[3] = {1, 1, 1}, b[3] = {0, 1, 2}, c[3] = {10, 10, 10};
  float h[3] = {0, 0, 0}, k[3] = {2, 2, 2}, m[3] = {1, 2, 3}, n[3] = {5, 5, 5};
  float y[3];
  const void *args[STEP_NUM_ARGS] = {x, W, b, c, h, k, m, n};
  void *results[STEP_NUM_RESULTS] = {y};
  int step;
  for (step = 1; step <= 2; ++step) {
    if (step_run(args, results, arena) != 0)
      return 1;
    printf("step %d:", step);
    print("y", y);
    print("W", W);
    print("b", b);
    print("c", c);
    print("h", h);
    print("k", k);
    print("m", m);
    print("n", n);
    printf("\n");
  }
  print("x", x); /* feeds are never written */
  printf("\n");
  return 0;
}
