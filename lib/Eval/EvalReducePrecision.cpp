//===- EvalReducePrecision.cpp - reduce-precision on a float's bits -------===//
//
// Works on the value's own bit pattern (f16 on its 16 bits, not through
// f32), so every dtype gets exactly XLA's result: the mantissa rounded to
// nearest even by adding a bias and truncating (a carry rolls into the
// exponent, and the largest finite value rounds to infinity), then the
// exponent range narrowed: too large gives signed infinity, at or below
// the reduced format's subnormal exponents gives signed zero (the reduced
// format has no subnormals). NaN is returned unchanged.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"

#include <cstring>

namespace kiln::eval::detail {

namespace {

using ir::FloatFormat;

/// Rounds the mantissa field to `keep` bits, ties to even; the dropped
/// bits become zero.
uint64_t roundMantissa(uint64_t bits, const FloatFormat &f, int64_t keep) {
  if (keep >= f.mantissaBits)
    return bits;
  int drop = f.mantissaBits - int(keep);
  uint64_t half = uint64_t(1) << (drop - 1);
  uint64_t lastKept = (bits >> drop) & 1;
  bits += half - 1 + lastKept; // a tie rounds up only from an odd last bit
  return bits & ~((uint64_t(1) << drop) - 1);
}

/// Narrows the exponent range to `keep` bits (same bias convention):
/// overflow to signed infinity, underflow to signed zero.
uint64_t narrowExponent(uint64_t bits, const FloatFormat &f, int64_t keep) {
  if (keep >= f.exponentBits)
    return bits;
  uint64_t sign = bits & (uint64_t(1) << (f.bits - 1));
  uint64_t exponentMask = ((uint64_t(1) << f.exponentBits) - 1)
                          << f.mantissaBits;
  uint64_t exponent = (bits & exponentMask) >> f.mantissaBits;
  uint64_t bias = (uint64_t(1) << (f.exponentBits - 1)) - 1;
  uint64_t reducedBias = (uint64_t(1) << (keep - 1)) - 1;
  if (exponent > bias + reducedBias)
    return sign | exponentMask;
  if (exponent <= bias - reducedBias)
    return sign;
  return bits;
}

bool isNanBits(uint64_t bits, const FloatFormat &f) {
  uint64_t exponentMask = (uint64_t(1) << f.exponentBits) - 1;
  uint64_t mantissa = bits & ((uint64_t(1) << f.mantissaBits) - 1);
  return ((bits >> f.mantissaBits) & exponentMask) == exponentMask &&
         mantissa != 0;
}

} // namespace

Error runReducePrecision(const Instruction &inst, const Operands &ops,
                         Literal &out) {
  const Literal &in = *ops[0];
  DType type = in.shape().dtype();
  if (Error e = expectDType(inst, out, type))
    return e;
  std::optional<FloatFormat> format = ir::floatFormat(type);
  if (!format)
    return unsupportedType(inst, type);
  int64_t exponentBits = inst.attrs().exponentBits;
  int64_t mantissaBits = inst.attrs().mantissaBits;
  if (exponentBits < 1 || mantissaBits < 0)
    return instructionError(inst, "exponent_bits must be >= 1 and "
                                  "mantissa_bits >= 0");
  size_t size = size_t(format->bits / 8);
  for (int64_t i = 0, n = in.numElements(); i < n; ++i) {
    uint64_t bits = 0; // little-endian host: the low bytes of a uint64_t
    std::memcpy(&bits, in.bytes().data() + size_t(i) * size, size);
    if (!isNanBits(bits, *format))
      bits = narrowExponent(roundMantissa(bits, *format, mantissaBits), *format,
                            exponentBits);
    std::memcpy(out.bytes().data() + size_t(i) * size, &bits, size);
  }
  return Error::success();
}

} // namespace kiln::eval::detail
