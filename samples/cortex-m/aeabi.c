/* aeabi.c - the one Arm run-time ABI helper kiln's object calls on a 32-bit core:
 * __aeabi_uldivmod, 64-bit unsigned division with remainder (kiln's convolution kernels split a
 * 64-bit pixel index into rows and columns once per tile of pixels; the compiler-rt that
 * provides it elsewhere is not in Debian for bare-metal ARM). `llvm-nm -u kws.o` lists what the
 * object needs. */
#include <stdint.h>

uint64_t kws_udivmod64(uint64_t numerator, uint64_t denominator, uint64_t *remainder);
void __aeabi_uldivmod(void);

/* Operands that fit 32 bits (kiln's pixel indices do) take the core's UDIV; others restoring
 * division, one quotient bit per step. Division by zero returns all ones and the numerator as
 * the remainder (the callers never divide by zero). */
uint64_t kws_udivmod64(uint64_t numerator, uint64_t denominator, uint64_t *remainder) {
  uint64_t quotient = 0, partial = 0;
  if (denominator == 0) {
    *remainder = numerator;
    return ~(uint64_t)0;
  }
  if ((numerator | denominator) >> 32 == 0) {
    uint32_t n = (uint32_t)numerator, d = (uint32_t)denominator;
    *remainder = n % d;
    return n / d;
  }
  for (int bit = 63; bit >= 0; --bit) {
    uint64_t carry = partial >> 63; /* the shift below would lose it when denominator > 2^63 */
    partial = (partial << 1) | ((numerator >> bit) & 1);
    if (carry || partial >= denominator) {
      partial -= denominator;
      quotient |= (uint64_t)1 << bit;
    }
  }
  *remainder = partial;
  return quotient;
}

/* The run-time ABI returns the quotient in r0:r1 and the remainder in r2:r3, which no C
 * function can: call the C one with a stack slot for the remainder, then load it. */
__attribute__((naked)) void __aeabi_uldivmod(void) {
  __asm__ volatile("push {r4, lr}\n\t"
                   "sub sp, sp, #16\n\t" /* [sp]: the third argument; [sp, #8]: the remainder */
                   "add r4, sp, #8\n\t"
                   "str r4, [sp]\n\t"
                   "bl kws_udivmod64\n\t"
                   "ldrd r2, r3, [sp, #8]\n\t"
                   "add sp, sp, #16\n\t"
                   "pop {r4, pc}\n\t");
}
