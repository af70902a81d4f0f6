/* expect.h - EXPECT(cond) for the runtime header tests (C99 and C++):
 * prints the failed condition with its file and line and returns 1 from the
 * calling function, so main() exits non-zero on the first failure. */
#ifndef KILN_TEST_GOLDEN_EXPECT_H
#define KILN_TEST_GOLDEN_EXPECT_H

#include <stdio.h>

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("%s:%d: expected %s\n", __FILE__, __LINE__, #cond);               \
      return 1;                                                                \
    }                                                                          \
  } while (0)

#endif /* KILN_TEST_GOLDEN_EXPECT_H */
