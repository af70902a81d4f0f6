/* runtime_test.c - kiln/runtime.h behaves as documented, compiled as C99 and
 * as C++ (the same file): aligned heap and static arenas, status strings, the
 * ABI check. Exits non-zero on the first failure. */
#include "kiln/runtime.h"

#include <stdio.h>
#include <string.h>

#include "expect.h"

KILN_STATIC_ARENA(big_arena, 12288);
KILN_STATIC_ARENA(empty_arena, 0);

int main(void) {
  size_t aligns[] = {1, 8, 16, 64, 128, 4096};
  size_t sizes[] = {0, 1, 63, 64, 100000};
  size_t a, s;
  for (a = 0; a < sizeof(aligns) / sizeof(aligns[0]); ++a) {
    for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
      unsigned char *p = (unsigned char *)kiln_arena_alloc(sizes[s], aligns[a]);
      EXPECT(p != NULL);
      EXPECT(kiln_is_aligned(p, aligns[a]));
      if (sizes[s] > 0) {
        memset(p, 0xab, sizes[s]); /* the whole size is usable */
        EXPECT(p[sizes[s] - 1] == 0xab);
      }
      kiln_arena_free(p);
    }
  }
  kiln_arena_free(NULL);
  EXPECT(kiln_is_aligned(big_arena, KILN_MAX_ARENA_ALIGN));
  EXPECT(kiln_is_aligned(empty_arena, KILN_MAX_ARENA_ALIGN));
  EXPECT(sizeof(big_arena) == 12288 && sizeof(empty_arena) == 1);
  EXPECT(!kiln_is_aligned(big_arena + 1, 2));

  EXPECT(strcmp(kiln_status_string(KILN_OK), "ok") == 0);
  EXPECT(strcmp(kiln_status_string(KILN_ERROR_OUT_OF_MEMORY), "out of memory") == 0);
  EXPECT(strcmp(kiln_status_string(12345), "unknown status") == 0);
  EXPECT(kiln_check_abi(KILN_ABI_VERSION) == KILN_OK);
  EXPECT(kiln_check_abi(KILN_ABI_VERSION + 1) == KILN_ERROR_ABI_MISMATCH);
  EXPECT(KILN_RUNTIME_VERSION_MAJOR == 0 && KILN_RUNTIME_VERSION_MINOR >= 1);
  printf("runtime ok\n");
  return 0;
}
