/* driver.c - Generic conformance driver: calls a model compiled with
 * `kiln compile --name kiln_model` on raw input files and writes raw outputs.
 *
 * Usage: prog ARENA_BYTES ARENA_ALIGN NARGS {FILE BYTES ELEM}... NRESULTS
 *             {FILE BYTES ELEM}...
 * Sizes come from the model's manifest, so one driver object links with
 * every model and no per-model table has to be compiled. Like the e2e
 * driver, buffers sit one element past a 64-byte boundary (generated code
 * must cope with any element-aligned buffer), results and the arena are
 * poisoned, guard bytes catch out-of-bounds writes and inputs must come back
 * unmodified.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kiln_model_run(const void *const *args, void *const *results, void *arena);

enum { kGuard = 64, kGuardByte = 0xA5, kPoisonByte = 0xCD, kMax = 256 };

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

static size_t number(const char *text) { return (size_t)strtoull(text, 0, 10); }

static unsigned char *readFile(const char *path, size_t expected) {
  FILE *f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
  unsigned char *data = malloc(expected ? expected : 1);
  size_t got = fread(data, 1, expected, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  if (got != expected || extra) {
    fprintf(stderr, "%s: expected %zu bytes\n", path, expected);
    exit(2);
  }
  return data;
}

int main(int argc, char **argv) {
  int a = 1;
  if (argc < 5) { fprintf(stderr, "usage: see driver.c\n"); return 2; }
  size_t arenaSize = number(argv[a++]), arenaAlign = number(argv[a++]);
  size_t nArgs = number(argv[a++]);
  if (nArgs > kMax || (size_t)argc < a + 3 * nArgs + 1) { fprintf(stderr, "bad args\n"); return 2; }
  const void *args[kMax];
  unsigned char *copies[kMax];
  size_t argSizes[kMax];
  for (size_t i = 0; i < nArgs; ++i, a += 3) {
    argSizes[i] = number(argv[a + 1]);
    copies[i] = readFile(argv[a], argSizes[i]);
    unsigned char *p = allocOffset(argSizes[i], number(argv[a + 2]));
    memcpy(p, copies[i], argSizes[i]);
    args[i] = p;
  }
  size_t nResults = number(argv[a++]);
  if (nResults > kMax || (size_t)argc != a + 3 * nResults) { fprintf(stderr, "bad results\n"); return 2; }
  void *results[kMax];
  const char *resultFiles[kMax];
  size_t resultSizes[kMax], resultElems[kMax];
  for (size_t i = 0; i < nResults; ++i, a += 3) {
    resultFiles[i] = argv[a];
    resultSizes[i] = number(argv[a + 1]);
    resultElems[i] = number(argv[a + 2]);
    unsigned char *p = allocOffset(resultSizes[i], resultElems[i]);
    memset(p, kPoisonByte, resultSizes[i]);
    results[i] = p;
  }
  size_t arenaAlloc = (arenaSize + 63) / 64 * 64 + 64;
  void *arena = aligned_alloc(arenaAlign < 64 ? 64 : arenaAlign, arenaAlloc);
  memset(arena, 0xEE, arenaAlloc);

  int rc = kiln_model_run(args, results, arena);
  if (rc != 0) { fprintf(stderr, "entry point returned %d\n", rc); return 3; }

  for (size_t i = 0; i < nArgs; ++i)
    if (memcmp(args[i], copies[i], argSizes[i])) {
      fprintf(stderr, "arg %zu was modified\n", i);
      return 4;
    }
  for (size_t i = 0; i < nResults; ++i) {
    if (!guardsIntact(results[i], resultSizes[i], resultElems[i])) {
      fprintf(stderr, "result %zu: write outside its buffer\n", i);
      return 4;
    }
    FILE *f = fopen(resultFiles[i], "wb");
    if (!f || fwrite(results[i], 1, resultSizes[i], f) != resultSizes[i]) {
      fprintf(stderr, "cannot write %s\n", resultFiles[i]);
      return 2;
    }
    fclose(f);
  }
  return 0;
}
