/* profile_runtime.c - kiln/profile.h on hand-made counters (no generated
 * code): what a board's app would hold after a run. Writes the trace of one
 * run to stdout through a fixed buffer, then reports a write into a buffer
 * too small for it (profile-runtime.test checks both). Builds as C99 and as
 * C++, with or without KILN_RUNTIME_NO_STDIO. */
#include <kiln/profile.h>

#include <stdio.h>

static const kiln_profile_kernel kernels[3] = {
    {"quote\"back\\slash", "fusion", "a,b\nc", 1000, 20, 30},
    {"never", "copy", "", 0, 0, 0},
    {"last", "reduce", "last", 7, 8, 9}};
static kiln_profile_counter counters[3];
static kiln_profile_counter run;
static const kiln_profile profile = {"fake", 3, kernels, counters, &run};
static char text[4096], tiny[64];

int main(void) {
  kiln_trace trace;
  kiln_trace_buffer buffer = {text, sizeof text, 0, 0};
  kiln_trace_buffer small = {tiny, sizeof tiny, 0, 0};
  kiln_profile_counter kernel0 = {5, 50, 1001, 1};
  kiln_profile_counter kernel2 = {5, 60, 1003, 2};
  kiln_profile_counter whole = {5, 100, 1000, 6};

  kiln_profile_reset(&profile);
  /* A run that has not happened adds nothing. */
  kiln_trace_begin(&trace, kiln_trace_write_buffer, &buffer, 3);
  kiln_trace_add_run(&trace, &profile, 0);
  /* A 3 Hz clock: run 0 from tick 1000 for 6 ticks; kernel 0 from 1001
   * for 1, kernel 1 never called, kernel 2 from 1003 for 2. */
  counters[0] = kernel0;
  counters[2] = kernel2;
  run = whole;
  kiln_trace_add_run(&trace, &profile, 0);
  kiln_trace_end(&trace);
  fwrite(buffer.data, 1, buffer.used, stdout);
  fprintf(stderr, "dropped %u\n", (unsigned)buffer.dropped);

  kiln_trace_begin(&trace, kiln_trace_write_buffer, &small, 3);
  kiln_trace_add_run(&trace, &profile, 0);
  kiln_trace_end(&trace);
  fprintf(stderr, "small: used %u, dropped %u of %u\n", (unsigned)small.used,
          (unsigned)small.dropped, (unsigned)(small.dropped + small.used));

  kiln_profile_reset(&profile);
  fprintf(stderr, "after reset: %u %u %u\n", (unsigned)counters[0].calls,
          (unsigned)counters[2].ticks, (unsigned)run.last_start);
  return 0;
}
