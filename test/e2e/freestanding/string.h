/* string.h - the part of string.h the e2e driver uses (freestanding/README.md). */
#ifndef KILN_FREESTANDING_STRING_H
#define KILN_FREESTANDING_STRING_H
#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int byte, size_t n);
int memcmp(const void *a, const void *b, size_t n);
int strcmp(const char *a, const char *b);
#endif
