/* stdio.h - the part of stdio the e2e driver uses (freestanding/README.md). */
#ifndef KILN_FREESTANDING_STDIO_H
#define KILN_FREESTANDING_STDIO_H
#include <stddef.h>

typedef struct kiln_file FILE;
extern FILE *const stderr;
#define SEEK_SET 0
#define SEEK_END 2

FILE *fopen(const char *path, const char *mode);
int fseek(FILE *f, long offset, int whence);
long ftell(FILE *f);
size_t fread(void *data, size_t size, size_t count, FILE *f);
size_t fwrite(const void *data, size_t size, size_t count, FILE *f);
int fclose(FILE *f);
/* %s, %d, %zu and %% only. */
int fprintf(FILE *f, const char *format, ...);
#endif
