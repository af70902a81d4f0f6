/* stdlib.h - the part of stdlib the e2e driver uses (freestanding/README.md). */
#ifndef KILN_FREESTANDING_STDLIB_H
#define KILN_FREESTANDING_STDLIB_H
#include <stddef.h>

void *malloc(size_t size);
void *aligned_alloc(size_t align, size_t size);
_Noreturn void exit(int status);
#endif
