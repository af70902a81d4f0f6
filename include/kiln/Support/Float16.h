//===- Float16.h - IEEE half and bfloat16 conversions -----------*- C++ -*-===//
//
// f16 and bf16 values are stored as raw 16-bit patterns and computed through
// f32. Conversions round to nearest, ties to even, and keep NaN and infinity.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_FLOAT16_H
#define KILN_SUPPORT_FLOAT16_H

#include <cstdint>

namespace kiln {

float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float bfloat16ToFloat(uint16_t bits);
uint16_t floatToBfloat16(float value);

} // namespace kiln

#endif // KILN_SUPPORT_FLOAT16_H
