//===- Float16.cpp - IEEE half and bfloat16 conversions -------------------===//
#include "kiln/Support/Float16.h"

#include <cstring>

namespace kiln {

static uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

static float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  if (exponent == 0x1f) // Inf or NaN: keep the payload's top bits.
    return bitsToFloat(sign | 0x7f800000 | (mantissa << 13));
  if (exponent != 0)
    return bitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0)
    return bitsToFloat(sign);
  // Subnormal half: value = mantissa * 2^-24, exact in f32.
  float magnitude = float(mantissa) * bitsToFloat(0x33800000); // 2^-24
  return sign ? -magnitude : magnitude;
}

uint16_t floatToHalf(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  uint32_t absBits = bits & 0x7fffffff;
  if (absBits >= 0x7f800000) { // Inf or NaN.
    uint16_t payload = absBits > 0x7f800000 ? uint16_t(0x200 | ((absBits >> 13) & 0x3ff)) : 0;
    return sign | 0x7c00 | payload;
  }
  if (absBits >= 0x477ff000) // Rounds to a value beyond the largest half.
    return sign | 0x7c00;
  if (absBits < 0x38800000) { // Below the smallest normal half: subnormal.
    // Adding 0.5 makes the FPU round the mantissa at the half-subnormal ulp
    // (2^-24) with ties to even.
    float shifted = bitsToFloat(absBits) + 0.5f;
    return sign | uint16_t(floatBits(shifted) - 0x3f000000);
  }
  uint32_t mantissaOdd = (absBits >> 13) & 1;
  absBits += 0xc8000fff + mantissaOdd; // Rebias exponent and round to even.
  return sign | uint16_t(absBits >> 13);
}

float bfloat16ToFloat(uint16_t bits) { return bitsToFloat(uint32_t(bits) << 16); }

uint16_t floatToBfloat16(float value) {
  uint32_t bits = floatBits(value);
  if ((bits & 0x7fffffff) > 0x7f800000) // NaN: keep it quiet and signed.
    return uint16_t((bits >> 16) | 0x40);
  uint32_t roundingBias = 0x7fff + ((bits >> 16) & 1);
  return uint16_t((bits + roundingBias) >> 16);
}

} // namespace kiln
