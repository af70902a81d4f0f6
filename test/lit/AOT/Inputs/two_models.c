/* two_models.c - links two kiln models compiled with different --name into
 * one program and checks both against hand-computed values. */
#include "first.h"
#include "second.h"

#include <kiln/runtime.h>
#include <stdio.h>

KILN_STATIC_ARENA(arena1, FIRST_ARENA_SIZE);
KILN_STATIC_ARENA(arena2, SECOND_ARENA_SIZE);

int main(void) {
  /* first = two_args.hlo: r = max(x + y, 0) */
  float x[6] = {-1, 2, -3, 4, -5, 6};
  float y[6] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  float r[6];
  const float r_expected[6] = {0, 2.5f, 0, 4.5f, 0, 6.5f};
  const void *args1[FIRST_NUM_ARGS] = {x, y};
  void *results1[FIRST_NUM_RESULTS] = {r};
  /* second = sum_squares.hlo: sq = v * v, total = sum(v * v) * k */
  float v[4] = {1, -2, 3, 0.5f}, k = 2, sq[4], total;
  const float sq_expected[4] = {1, 4, 9, 0.25f};
  const float total_expected = 28.5f; /* (1 + 4 + 9 + 0.25) * 2 */
  const void *args2[SECOND_NUM_ARGS] = {v, &k};
  void *results2[SECOND_NUM_RESULTS] = {sq, &total};
  int i, failures = 0;

  if (kiln_check_abi(FIRST_ABI_VERSION) != KILN_OK ||
      kiln_check_abi(SECOND_ABI_VERSION) != KILN_OK)
    return 2;
  if (first_run(args1, results1, arena1) != 0 ||
      second_run(args2, results2, arena2) != 0)
    return 3;
  for (i = 0; i < 6; ++i)
    failures += r[i] != r_expected[i];
  for (i = 0; i < 4; ++i)
    failures += sq[i] != sq_expected[i];
  failures += total != total_expected;
  printf("first: %g %g %g %g %g %g\n", r[0], r[1], r[2], r[3], r[4], r[5]);
  printf("second: %g %g %g %g total %g\n", sq[0], sq[1], sq[2], sq[3], total);
  printf("%s\n", failures ? "MISMATCH" : "both models ok");
  return failures != 0;
}
