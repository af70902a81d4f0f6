/* semihosting.c - Arm semihosting on M-profile: `bkpt 0xab` with the operation in r0 and its
 * parameter in r1 (Arm's "Semihosting for AArch32 and AArch64", version 2). */
#include "semihosting.h"

#include <stdint.h>

enum {
  SYS_WRITE0 = 0x04,
  SYS_EXIT_EXTENDED = 0x20,
  ADP_STOPPED_APPLICATION_EXIT = 0x20026,
};

static uintptr_t semihosting_call(uintptr_t operation, const void *parameter) {
  register uintptr_t r0 __asm__("r0") = operation;
  register const void *r1 __asm__("r1") = parameter;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void semihosting_write(const char *text) { semihosting_call(SYS_WRITE0, text); }

_Noreturn void semihosting_exit(int status) {
  /* SYS_EXIT_EXTENDED takes a block: the reason, then the exit status. */
  const uintptr_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uintptr_t)status};
  semihosting_call(SYS_EXIT_EXTENDED, block);
  for (;;) /* a host without semihosting returns: stop here */
    __asm__ volatile("wfi");
}
