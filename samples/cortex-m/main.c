/* main.c - keyword spotting on a Cortex-M: runs the DS-CNN kiln compiled (kws.h, kws.o) on the
 * seeded MFCC input (kws_input.h) and prints both results as float bit patterns, exact for the
 * check against kiln's evaluator (test_samples.py cortex-m). No heap, no C library: the arena,
 * results and stack are static RAM, weights and input are flash. */
#include "kws.h"
#include "kws_input.h"
#include "semihosting.h"

#include <stdint.h>

/* The arena in the part's RAM, placed by the header's attributes (--arena-section). */
static uint8_t arena[KWS_ARENA_SIZE] KWS_ARENA_ATTRIBUTES;
static float logits[KWS_RESULT0_SIZE / sizeof(float)];
static float probs[KWS_RESULT1_SIZE / sizeof(float)];

_Static_assert(sizeof(kws_input_bits) == KWS_ARG0_SIZE, "kws_input.h does not match the model");

/* "NAME: xxxxxxxx xxxxxxxx ...\n": each float as its 8 hex digits. */
static void print_bits(const char *name, const float *values, unsigned count) {
  static const char hex[] = "0123456789abcdef";
  char line[16 + 9 * 16];
  unsigned n = 0;
  while (*name)
    line[n++] = *name++;
  line[n++] = ':';
  for (unsigned i = 0; i < count; ++i) {
    union { float f; uint32_t u; } value = {values[i]};
    line[n++] = ' ';
    for (int shift = 28; shift >= 0; shift -= 4)
      line[n++] = hex[(value.u >> shift) & 0xF];
  }
  line[n++] = '\n';
  line[n] = '\0';
  semihosting_write(line);
}

int main(void) {
  const void *args[] = {kws_input_bits};
  void *results[] = {logits, probs};
  if (kws_run(args, results, arena) != 0) {
    semihosting_write("kws: kws_run failed\n");
    return 1;
  }
  print_bits("logits", logits, sizeof logits / sizeof logits[0]);
  print_bits("probs", probs, sizeof probs / sizeof probs[0]);
  semihosting_write("kws: done\n");
  return 0;
}
