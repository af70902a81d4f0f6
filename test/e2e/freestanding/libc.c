/* libc.c - stdio/stdlib/string for the e2e driver on 32-bit ARM Linux
 * system calls, with no C library (freestanding/README.md). */
#include <stdarg.h>
#include <stdint.h>

#include "stdio.h"
#include "stdlib.h"
#include "string.h"

enum { kRead = 3, kWrite = 4, kOpen = 5, kClose = 6, kLseek = 19,
       kExitGroup = 248 };
enum { kOpenRead = 0, kOpenWriteCreateTruncate = 01 | 0100 | 01000 };

static long syscall3(long number, long a, long b, long c) {
  register long r0 __asm__("r0") = a;
  register long r1 __asm__("r1") = b;
  register long r2 __asm__("r2") = c;
  register long r7 __asm__("r7") = number;
  __asm__ volatile("svc #0" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r7) : "memory");
  return r0;
}

struct kiln_file { int fd; };
static struct kiln_file files[8] = {{2}};
FILE *const stderr = &files[0];

FILE *fopen(const char *path, const char *mode) {
  int flags = mode[0] == 'w' ? kOpenWriteCreateTruncate : kOpenRead;
  long fd = syscall3(kOpen, (long)path, flags, 0644);
  if (fd < 0)
    return 0;
  for (int i = 1; i < 8; ++i)
    if (files[i].fd == 0) {
      files[i].fd = (int)fd;
      return &files[i];
    }
  syscall3(kClose, fd, 0, 0);
  return 0;
}

int fseek(FILE *f, long offset, int whence) {
  return syscall3(kLseek, f->fd, offset, whence) < 0 ? -1 : 0;
}

long ftell(FILE *f) { return syscall3(kLseek, f->fd, 0, 1 /* SEEK_CUR */); }

size_t fread(void *data, size_t size, size_t count, FILE *f) {
  size_t total = size * count, done = 0;
  while (done < total) {
    long n = syscall3(kRead, f->fd, (long)((char *)data + done),
                      (long)(total - done));
    if (n <= 0)
      break;
    done += (size_t)n;
  }
  return size ? done / size : 0;
}

size_t fwrite(const void *data, size_t size, size_t count, FILE *f) {
  size_t total = size * count, done = 0;
  while (done < total) {
    long n = syscall3(kWrite, f->fd, (long)((const char *)data + done),
                      (long)(total - done));
    if (n <= 0)
      break;
    done += (size_t)n;
  }
  return size ? done / size : 0;
}

int fclose(FILE *f) {
  syscall3(kClose, f->fd, 0, 0);
  f->fd = 0;
  return 0;
}

static void writeText(FILE *f, const char *text) {
  size_t n = 0;
  while (text[n])
    ++n;
  fwrite(text, 1, n, f);
}

static void writeUnsigned(FILE *f, unsigned long value) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = (char)('0' + value % 10);
    value /= 10;
  } while (value);
  while (n)
    fwrite(&digits[--n], 1, 1, f);
}

int fprintf(FILE *f, const char *format, ...) {
  va_list args;
  va_start(args, format);
  for (const char *p = format; *p; ++p) {
    if (*p != '%') {
      fwrite(p, 1, 1, f);
    } else if (p[1] == 's') {
      writeText(f, va_arg(args, const char *));
      ++p;
    } else if (p[1] == 'd') {
      int value = va_arg(args, int);
      if (value < 0)
        writeText(f, "-");
      writeUnsigned(f, value < 0 ? 0ul - (unsigned long)value
                                 : (unsigned long)value);
      ++p;
    } else if (p[1] == 'z' && p[2] == 'u') {
      writeUnsigned(f, va_arg(args, size_t));
      p += 2;
    } else if (p[1] == '%') {
      fwrite(p, 1, 1, f);
      ++p;
    }
  }
  va_end(args);
  return 0;
}

/* A bump allocator: the driver allocates a few buffers and exits. */
static unsigned char heap[256u << 20] __attribute__((aligned(64)));
static size_t heapUsed;

void *aligned_alloc(size_t align, size_t size) {
  size_t start = (heapUsed + align - 1) / align * align;
  if (start + size > sizeof heap)
    return 0;
  heapUsed = start + size;
  return heap + start;
}

void *malloc(size_t size) { return aligned_alloc(16, size); }

_Noreturn void exit(int status) {
  for (;;)
    syscall3(kExitGroup, status, 0, 0);
}

/* libgcc's division-by-zero handler (__aeabi_ldiv0) raises SIGFPE. */
int raise(int signal) { exit(128 + signal); }

void *memcpy(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  while (n--)
    *d++ = *s++;
  return dst;
}

void *memset(void *dst, int byte, size_t n) {
  unsigned char *d = dst;
  while (n--)
    *d++ = (unsigned char)byte;
  return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  for (; n; --n, ++x, ++y)
    if (*x != *y)
      return *x < *y ? -1 : 1;
  return 0;
}

int strcmp(const char *a, const char *b) {
  while (*a && *a == *b)
    ++a, ++b;
  return (unsigned char)*a - (unsigned char)*b;
}

int main(int argc, char **argv);

/* The kernel starts a static executable with sp at argc, then argv. */
__attribute__((used)) static void startMain(long *stack) {
  exit(main((int)stack[0], (char **)(stack + 1)));
}

__attribute__((naked)) void _start(void) {
  __asm__ volatile("mov r0, sp\n"
                   "bic sp, sp, #7\n" /* AAPCS: 8-byte aligned stack */
                   "bl startMain\n");
}
