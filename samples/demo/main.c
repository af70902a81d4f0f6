/* main.c - the kiln demo app: runs tiny_mlp (samples/hlo/tiny_mlp.hlo,
 * compiled with `kiln compile --name tiny_mlp`) on four features given on the
 * command line and prints both results. It uses only the generated header
 * and kiln/runtime.h: no kiln library, no LLVM, no heap. */
#include "tiny_mlp.h"

#include <kiln/runtime.h>
#include <stdio.h>
#include <stdlib.h>

KILN_STATIC_ARENA(arena, TINY_MLP_ARENA_SIZE);

int main(int argc, char **argv) {
  float x[TINY_MLP_ARG0_SIZE / sizeof(float)] = {1.0f, 2.0f, 3.0f, 4.0f};
  float logits[TINY_MLP_RESULT0_SIZE / sizeof(float)];
  float probs[TINY_MLP_RESULT1_SIZE / sizeof(float)];
  const void *args[TINY_MLP_NUM_ARGS];
  void *results[TINY_MLP_NUM_RESULTS];
  int i, status;

  if (kiln_check_abi(TINY_MLP_ABI_VERSION) != KILN_OK) {
    fprintf(stderr, "%s\n", kiln_status_string(KILN_ERROR_ABI_MISMATCH));
    return 1;
  }
  for (i = 1; i < argc && i <= 4; ++i)
    x[i - 1] = strtof(argv[i], NULL);
  args[0] = x;
  results[0] = logits;
  results[1] = probs;
  status = tiny_mlp_run(args, results, arena);
  if (status != KILN_OK) {
    fprintf(stderr, "tiny_mlp_run: %s\n", kiln_status_string(status));
    return 1;
  }
  printf("logits: %.7g %.7g\n", logits[0], logits[1]);
  printf("probs: %.7g %.7g\n", probs[0], probs[1]);
  return 0;
}
