/* profile.h - reads the counters of an object built with `kiln compile
 * --profile` and writes them as a Chrome trace-event JSON timeline (opens in
 * chrome://tracing and ui.perfetto.dev). See docs/abi.md, "Profiling".
 *
 * Header-only C99 and C++. Allocates nothing and needs nothing from the C
 * library except, for kiln_trace_write_file, <stdio.h> (define
 * KILN_RUNTIME_NO_STDIO to drop it): the trace goes through a write callback,
 * so a board can stream it to a serial line or fill a buffer
 * (kiln_trace_write_buffer) and dump it later.
 *
 *   const kiln_profile *p = model_profile();
 *   kiln_trace trace;
 *   kiln_trace_begin(&trace, kiln_trace_write_file, stdout, clock_hz);
 *   for (run = 0; run < 3; ++run) {
 *     model_run(args, results, arena);
 *     kiln_trace_add_run(&trace, p, run);  (the call just made)
 *   }
 *   kiln_trace_end(&trace);
 */
#ifndef KILN_PROFILE_H
#define KILN_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#ifndef KILN_RUNTIME_NO_STDIO
#include <stdio.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The same block as in every header generated with --profile: whichever
 * comes first defines the types. */
#ifndef KILN_PROFILE_TYPES
#define KILN_PROFILE_TYPES
/* One kernel of a profiled model (static data of the object). */
typedef struct kiln_profile_kernel {
  const char* instruction; /* the HLO instruction it computes */
  const char* opcode;      /* its opcode: "fusion", "convolution", ... */
  const char* sources;     /* its source-model nodes, comma-separated */
  uint64_t flops;          /* arithmetic operations per call */
  uint64_t bytes_read;     /* memory traffic per call */
  uint64_t bytes_written;
} kiln_profile_kernel;
/* What the calls of one kernel, or of the whole model, took. */
typedef struct kiln_profile_counter {
  uint64_t calls;      /* calls since the counters were last reset */
  uint64_t ticks;      /* clock ticks those calls took in all */
  uint64_t last_start; /* clock reading when the last call started */
  uint64_t last_ticks; /* ticks the last call took */
} kiln_profile_counter;
/* A profiled model's kernels and counters. */
typedef struct kiln_profile {
  const char* model;                  /* NAME */
  uint64_t num_kernels;
  const kiln_profile_kernel* kernels; /* num_kernels, in call order */
  kiln_profile_counter* counters;     /* num_kernels, the same order */
  kiln_profile_counter* run;          /* whole NAME_run calls */
} kiln_profile;
/* A caller's clock: a monotonic tick count. */
typedef uint64_t (*kiln_profile_clock)(void* ctx);
#endif /* KILN_PROFILE_TYPES */

/* Zeroes every counter of `profile` (not while the model runs). */
static inline void kiln_profile_reset(const kiln_profile *profile) {
  static const kiln_profile_counter zero = {0, 0, 0, 0};
  uint64_t i;
  for (i = 0; i < profile->num_kernels; ++i)
    profile->counters[i] = zero;
  *profile->run = zero;
}

/* Ticks per second of the object's default clock: CNTFRQ_EL0 on AArch64. 0
 * on x86-64, whose time-stamp counter rate no register states: measure it
 * against a known clock, or give the model a clock of your own. */
static inline uint64_t kiln_profile_default_clock_hz(void) {
#if defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
  uint64_t hz;
  __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
  return hz;
#else
  return 0;
#endif
}

/* Receives the trace text piece by piece. */
typedef void (*kiln_trace_write_fn)(void *ctx, const char *data, size_t size);

/* A trace being written: fill it with kiln_trace_begin. */
typedef struct kiln_trace {
  kiln_trace_write_fn write;
  void *ctx;
  uint64_t clock_hz; /* ticks per second; 0: unknown, ticks written as ns */
  uint64_t origin;   /* the clock reading shown as time 0 */
  int has_origin;    /* origin is set (by the first run added) */
} kiln_trace;

/* A fixed buffer for kiln_trace_write_buffer: what does not fit is dropped
 * and counted in `dropped`. The text is not NUL-terminated. */
typedef struct kiln_trace_buffer {
  char *data;
  size_t size, used, dropped;
} kiln_trace_buffer;

static inline void kiln_trace_write_buffer(void *ctx, const char *data,
                                           size_t size) {
  kiln_trace_buffer *buffer = (kiln_trace_buffer *)ctx;
  size_t room = buffer->size - buffer->used, i;
  size_t n = size < room ? size : room;
  for (i = 0; i < n; ++i)
    buffer->data[buffer->used + i] = data[i];
  buffer->used += n;
  buffer->dropped += size - n;
}

#ifndef KILN_RUNTIME_NO_STDIO
/* Writes to the FILE* `ctx` (check ferror afterwards). */
static inline void kiln_trace_write_file(void *ctx, const char *data,
                                         size_t size) {
  fwrite(data, 1, size, (FILE *)ctx);
}
#endif

static inline void kiln_trace_text_(kiln_trace *trace, const char *text) {
  size_t size = 0;
  while (text[size])
    ++size;
  trace->write(trace->ctx, text, size);
}

static inline void kiln_trace_uint_(kiln_trace *trace, uint64_t value) {
  char digits[20];
  int n = 0;
  do {
    digits[sizeof digits - 1 - n++] = (char)('0' + value % 10);
    value /= 10;
  } while (value);
  trace->write(trace->ctx, digits + sizeof digits - n, (size_t)n);
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static inline void kiln_trace_string_(kiln_trace *trace, const char *text) {
  static const char hex[] = "0123456789abcdef";
  kiln_trace_text_(trace, "\"");
  for (; *text; ++text) {
    unsigned char c = (unsigned char)*text;
    if (c == '"' || c == '\\') {
      char escaped[2];
      escaped[0] = '\\';
      escaped[1] = (char)c;
      trace->write(trace->ctx, escaped, 2);
    } else if (c < 0x20) {
      char escaped[6] = {'\\', 'u', '0', '0', 0, 0};
      escaped[4] = hex[c >> 4];
      escaped[5] = hex[c & 15];
      trace->write(trace->ctx, escaped, 6);
    } else {
      trace->write(trace->ctx, text, 1);
    }
  }
  kiln_trace_text_(trace, "\"");
}

/* Nanoseconds from the origin to clock reading `ticks` (0 before it). */
static inline uint64_t kiln_trace_ns_(const kiln_trace *trace,
                                      uint64_t ticks) {
  uint64_t hz = trace->clock_hz ? trace->clock_hz : 1000000000u;
  uint64_t t = ticks > trace->origin ? ticks - trace->origin : 0;
  return t / hz * 1000000000u + t % hz * 1000000000u / hz;
}

/* Microseconds with three decimals, as trace-event "ts" and "dur" are. */
static inline void kiln_trace_us_(kiln_trace *trace, uint64_t ns) {
  char fraction[4];
  fraction[0] = '.';
  fraction[1] = (char)('0' + ns / 100 % 10);
  fraction[2] = (char)('0' + ns / 10 % 10);
  fraction[3] = (char)('0' + ns % 10);
  kiln_trace_uint_(trace, ns / 1000);
  trace->write(trace->ctx, fraction, 4);
}

/* One complete ("X") event on the model's timeline from clock reading
 * `start` for `ticks`. Times are converted at both ends, so an event inside
 * another stays inside it after rounding. */
static inline void kiln_trace_event_(kiln_trace *trace, const char *name,
                                     const char *category, uint64_t start,
                                     uint64_t ticks) {
  uint64_t begin = kiln_trace_ns_(trace, start);
  kiln_trace_text_(trace, ",\n{\"name\":");
  kiln_trace_string_(trace, name);
  kiln_trace_text_(trace, ",\"cat\":");
  kiln_trace_string_(trace, category);
  kiln_trace_text_(trace, ",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":");
  kiln_trace_us_(trace, begin);
  kiln_trace_text_(trace, ",\"dur\":");
  kiln_trace_us_(trace, kiln_trace_ns_(trace, start + ticks) - begin);
}

/* Starts the trace: `write(ctx, ...)` receives the text; `clock_hz` is the
 * tick rate of the clock the model used (kiln_profile_default_clock_hz() for
 * its own, or your clock's). */
static inline void kiln_trace_begin(kiln_trace *trace,
                                    kiln_trace_write_fn write, void *ctx,
                                    uint64_t clock_hz) {
  trace->write = write;
  trace->ctx = ctx;
  trace->clock_hz = clock_hz;
  trace->origin = 0;
  trace->has_origin = 0;
  kiln_trace_text_(trace, "{\"displayTimeUnit\":\"ns\",\"otherData\":"
                          "{\"clock_hz\":");
  kiln_trace_uint_(trace, clock_hz);
  kiln_trace_text_(trace, "},\"traceEvents\":[\n{\"name\":\"process_name\","
                          "\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":"
                          "{\"name\":\"kiln\"}}");
}

/* Adds the model's last call: one event for the whole call (named after the
 * model, category "run", args.run = `run`) and, inside it, one per kernel
 * (named after its HLO instruction, category its opcode, args: sources,
 * flops, bytes_read, bytes_written, kernel index). The first run added is
 * time 0. Nothing is added when the model has not run since the reset. */
static inline void kiln_trace_add_run(kiln_trace *trace,
                                      const kiln_profile *profile,
                                      uint64_t run) {
  uint64_t i;
  if (profile->run->calls == 0)
    return;
  if (!trace->has_origin) {
    trace->origin = profile->run->last_start;
    trace->has_origin = 1;
  }
  kiln_trace_event_(trace, profile->model, "run", profile->run->last_start,
                    profile->run->last_ticks);
  kiln_trace_text_(trace, ",\"args\":{\"run\":");
  kiln_trace_uint_(trace, run);
  kiln_trace_text_(trace, "}}");
  for (i = 0; i < profile->num_kernels; ++i) {
    const kiln_profile_kernel *kernel = &profile->kernels[i];
    const kiln_profile_counter *counter = &profile->counters[i];
    if (counter->calls == 0)
      continue;
    kiln_trace_event_(trace, kernel->instruction, kernel->opcode,
                      counter->last_start, counter->last_ticks);
    kiln_trace_text_(trace, ",\"args\":{\"sources\":");
    kiln_trace_string_(trace, kernel->sources);
    kiln_trace_text_(trace, ",\"flops\":");
    kiln_trace_uint_(trace, kernel->flops);
    kiln_trace_text_(trace, ",\"bytes_read\":");
    kiln_trace_uint_(trace, kernel->bytes_read);
    kiln_trace_text_(trace, ",\"bytes_written\":");
    kiln_trace_uint_(trace, kernel->bytes_written);
    kiln_trace_text_(trace, ",\"kernel\":");
    kiln_trace_uint_(trace, i);
    kiln_trace_text_(trace, ",\"run\":");
    kiln_trace_uint_(trace, run);
    kiln_trace_text_(trace, "}}");
  }
}

/* Closes the JSON document. */
static inline void kiln_trace_end(kiln_trace *trace) {
  kiln_trace_text_(trace, "\n]}\n");
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_PROFILE_H */
