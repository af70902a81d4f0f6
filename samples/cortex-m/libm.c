/* libm.c - roundevenf, the one C math function kiln's object calls, and only on cores with an
 * FPv5 FPU (Cortex-M7): kiln rounds with llvm.roundeven there, which LLVM 19's Arm backend
 * turns into a call instead of VRINTN. On the Cortex-M4 the object rounds inline and the linker
 * drops this (--gc-sections). `llvm-nm -u kws.o` lists what the object needs. */
#include <stdint.h>

float roundevenf(float x);

/* Adding and subtracting 2^23 leaves no fraction bits, and the FPU's default rounding mode
 * (to nearest, ties to even) picks the integer. From 2^23 on every float is an integer;
 * infinities and NaNs come back as they are (the comparison is false for NaN). */
float roundevenf(float x) {
  const float two23 = 8388608.0f;
  union { float f; uint32_t u; } magnitude = {x};
  uint32_t sign = magnitude.u & 0x80000000u;
  magnitude.u &= 0x7FFFFFFFu;
  if (!(magnitude.f < two23))
    return x;
  volatile float shifted = magnitude.f + two23; /* volatile: kept as two roundings */
  union { float f; uint32_t u; } rounded = {shifted - two23};
  rounded.u |= sign; /* -0.4 rounds to -0.0 */
  return rounded.f;
}
