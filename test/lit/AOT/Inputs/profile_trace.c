/* profile_trace.c - Runs the model compiled as `pm` with --profile (from
 * profile_model.hlo) RUNS times on seeded inputs and writes its Chrome trace
 * with kiln/profile.h, as an app on a board would (profile-object.test).
 *
 * Usage: prog default|step RUNS TRACE.json
 *   default: the object's own clock, at kiln_profile_default_clock_hz();
 *            the trace goes straight to the file
 *   step:    a caller clock that advances 1000 ticks per read at 1 GHz, so
 *            every clock read is exactly 1 us after the previous one; the
 *            trace goes through a fixed buffer first
 * Prints the kernel table and, after the runs, every counter. */
#include "pm.h"

#include <kiln/profile.h>
#include <kiln/runtime.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

KILN_STATIC_ARENA(arena, PM_ARENA_SIZE);
static float x[PM_ARG0_SIZE / 4], w[PM_ARG1_SIZE / 4];
static float t[PM_RESULT0_SIZE / 4], s[PM_RESULT1_SIZE / 4];
static char trace_text[1 << 16];

static uint64_t step_clock(void *ctx) {
  uint64_t *now = (uint64_t *)ctx;
  *now += 1000;
  return *now;
}

static void fill(float *data, size_t count, uint32_t seed) {
  size_t i;
  for (i = 0; i < count; ++i) {
    seed = seed * 1664525u + 1013904223u;
    data[i] = (float)(seed >> 8) / 16777216.0f - 0.5f;
  }
}

static void print_profile(const kiln_profile *p) {
  uint64_t i;
  printf("model %s: %" PRIu64 " kernels (PM_PROFILE_KERNELS %d)\n", p->model,
         p->num_kernels, PM_PROFILE_KERNELS);
  for (i = 0; i < p->num_kernels; ++i)
    printf("kernel %" PRIu64 " %s %s sources=%s flops=%" PRIu64
           " read=%" PRIu64 " written=%" PRIu64 " calls=%" PRIu64
           " ticks=%" PRIu64 "\n",
           i, p->kernels[i].instruction, p->kernels[i].opcode,
           p->kernels[i].sources, p->kernels[i].flops,
           p->kernels[i].bytes_read, p->kernels[i].bytes_written,
           p->counters[i].calls, p->counters[i].ticks);
  printf("run calls=%" PRIu64 " ticks=%" PRIu64 "\n", p->run->calls,
         p->run->ticks);
}

int main(int argc, char **argv) {
  const void *args[PM_NUM_ARGS] = {x, w};
  void *results[PM_NUM_RESULTS] = {t, s};
  const kiln_profile *p = pm_profile();
  uint64_t now = 0, hz, run, runs;
  int step;
  kiln_trace trace;
  kiln_trace_buffer buffer = {trace_text, sizeof trace_text, 0, 0};
  FILE *out;
  if (argc != 4)
    return 2;
  step = strcmp(argv[1], "step") == 0;
  runs = strtoull(argv[2], NULL, 10);
  out = fopen(argv[3], "wb");
  if (!out)
    return 2;
  fill(x, sizeof x / 4, 1);
  fill(w, sizeof w / 4, 2);
  if (step)
    pm_profile_set_clock(step_clock, &now);
  hz = step ? 1000000000u : kiln_profile_default_clock_hz();
  kiln_profile_reset(p);
  if (step)
    kiln_trace_begin(&trace, kiln_trace_write_buffer, &buffer, hz);
  else
    kiln_trace_begin(&trace, kiln_trace_write_file, out, hz);
  for (run = 0; run < runs; ++run) {
    if (pm_run(args, results, arena) != 0)
      return 1;
    kiln_trace_add_run(&trace, p, run);
  }
  kiln_trace_end(&trace);
  if (step) {
    if (buffer.dropped)
      return 3;
    fwrite(buffer.data, 1, buffer.used, out);
  }
  if (fclose(out) != 0)
    return 2;
  print_profile(p);
  return 0;
}
