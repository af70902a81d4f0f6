/* var_driver.c - Driver for graphs with writable variables (tfcompile `variable` entries that a
 * training step updates in place): like test/e2e/driver.c it runs the generated entry point on
 * unaligned, guarded buffers, but it also writes every argument back out after the call, so the
 * harness can compare the updated variables.
 *
 * Usage: prog ARG0.bin ... -- RESULT0.bin ... -- ARG0.out ...
 * The per-case table (run_e2e.py's write_table) defines the kiln_e2e_* symbols below.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const size_t kiln_e2e_num_args, kiln_e2e_num_results;
extern const size_t kiln_e2e_arg_sizes[], kiln_e2e_arg_elem[];
extern const size_t kiln_e2e_result_sizes[], kiln_e2e_result_elem[];
extern const size_t kiln_e2e_arena_size, kiln_e2e_arena_align;
int kiln_e2e_run(const void *const *args, void *const *results, void *arena);

enum { kGuard = 64, kGuardByte = 0xA5, kMax = 64 };

/* `size` bytes at `offset` past a 64-byte boundary, between guard bytes. */
static unsigned char *allocOffset(size_t size, size_t offset) {
  size_t total = (kGuard + offset + size + kGuard + 63) / 64 * 64;
  unsigned char *b = aligned_alloc(64, total);
  if (!b) { fprintf(stderr, "out of memory\n"); exit(2); }
  memset(b, kGuardByte, total);
  return b + kGuard + offset;
}

static int guardsIntact(const unsigned char *p, size_t size, size_t offset) {
  for (size_t i = 1; i <= kGuard + offset; ++i)
    if (p[-(long)i] != kGuardByte) return 0;
  for (size_t i = 0; i < kGuard; ++i)
    if (p[size + i] != kGuardByte) return 0;
  return 1;
}

static void readInto(const char *path, unsigned char *dst, size_t size) {
  FILE *f = fopen(path, "rb");
  if (!f || fread(dst, 1, size, f) != size || fgetc(f) != EOF) {
    fprintf(stderr, "%s: cannot read exactly %zu bytes\n", path, size); exit(2);
  }
  fclose(f);
}

static void writeFrom(const char *path, const unsigned char *src, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(src, 1, size, f) != size) { fprintf(stderr, "cannot write %s\n", path); exit(2); }
  fclose(f);
}

int main(int argc, char **argv) {
  size_t nA = kiln_e2e_num_args, nR = kiln_e2e_num_results;
  if (nA > kMax || nR > kMax || (size_t)argc != 1 + nA + 1 + nR + 1 + nA ||
      strcmp(argv[1 + nA], "--") || strcmp(argv[2 + nA + nR], "--")) {
    fprintf(stderr, "usage: %s ARGS... -- RESULTS... -- ARGS_OUT... (%zu args, %zu results)\n",
            argv[0], nA, nR);
    return 2;
  }
  unsigned char *args[kMax], *results[kMax];
  for (size_t i = 0; i < nA; ++i) {
    args[i] = allocOffset(kiln_e2e_arg_sizes[i], kiln_e2e_arg_elem[i]);
    readInto(argv[1 + i], args[i], kiln_e2e_arg_sizes[i]);
  }
  for (size_t i = 0; i < nR; ++i) {
    results[i] = allocOffset(kiln_e2e_result_sizes[i], kiln_e2e_result_elem[i]);
    memset(results[i], 0xCD, kiln_e2e_result_sizes[i]);
  }
  size_t arenaAlloc = (kiln_e2e_arena_size + 63) / 64 * 64 + 64;
  void *arena = aligned_alloc(kiln_e2e_arena_align < 64 ? 64 : kiln_e2e_arena_align, arenaAlloc);
  memset(arena, 0xEE, arenaAlloc);

  int rc = kiln_e2e_run((const void *const *)args, (void *const *)results, arena);
  if (rc != 0) { fprintf(stderr, "entry point returned %d\n", rc); return 3; }

  for (size_t i = 0; i < nA; ++i) {
    if (!guardsIntact(args[i], kiln_e2e_arg_sizes[i], kiln_e2e_arg_elem[i])) {
      fprintf(stderr, "arg %zu: write outside its buffer\n", i); return 4;
    }
    writeFrom(argv[3 + nA + nR + i], args[i], kiln_e2e_arg_sizes[i]);
  }
  for (size_t i = 0; i < nR; ++i) {
    if (!guardsIntact(results[i], kiln_e2e_result_sizes[i], kiln_e2e_result_elem[i])) {
      fprintf(stderr, "result %zu: write outside its buffer\n", i); return 4;
    }
    writeFrom(argv[2 + nA + i], results[i], kiln_e2e_result_sizes[i]);
  }
  return 0;
}
