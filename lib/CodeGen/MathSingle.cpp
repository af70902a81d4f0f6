//===- MathSingle.cpp - f32 transcendentals without any f64 ---------------===//
//
// On a single-precision FPU (Cortex-M4, M33, M55; soft-float parts) every
// f64 operation is a run-time library call (__aeabi_dmul, ...), so the f32
// forms of erf, sin/cos and pow computed in f64 elsewhere are computed here
// in f32 only (atan2 and fmod share their algorithm with f64, in
// MathEmitter.cpp). Where f32 is not precise enough on its own, values are
// carried as double-word f32 (hi + lo, MathInternal.h). Constants and fits
// come from scripts/math_f32_constants.py. Errors measured against glibc's
// f64 functions (bench/math_accuracy.py, 2^15 inputs per range):
//   erf: x * P6(x^2) on |x| < 1; 1 - exp(-x^2) * P9(1/x) on [1, 4); 1
//        above: <= 2.4 ulp.
//   sin/cos: Cody-Waite reduction by pi/2 in six 13-bit pieces, exact for
//        |x| < 2^22 * pi/2 (6.6e6; the f64 form is exact to 2^20 * pi/2),
//        Taylor on |r| <= pi/4: <= 1.9 ulp, also next to multiples of
//        pi/2. Beyond 2^22 * pi/2 the reduction is not exact and the
//        result is meaningless.
//   pow: exp2(y * log2|x|) with log2|x| and the product in double-word
//        f32: <= 1.5 ulp for results from 2^-149 to 2^128.
//
//===----------------------------------------------------------------------===//
#include "MathInternal.h"

#include <llvm/IR/Constants.h>

#include <cmath>
#include <vector>

namespace kiln::codegen::math::single {

using llvm::Value;

// --- erf ----------------------------------------------------------------------

// erf(x) / x as a polynomial in x^2 on [0, 1] (relative error 6.7e-8).
constexpr double kErfSmall[] = {
    0x1.4b4662p-14, -0x1.a4b50ep-11, 0x1.5422a6p-8, -0x1.b7fd3cp-6,
    0x1.ce2d4p-4,   -0x1.81274p-2,   0x1.20dd76p+0,
};
// erfc(x) * exp(x^2) as a polynomial in 1/x on [1, 4] (relative error
// 3.3e-8; erfc only needs an absolute error below 2^-25 there).
constexpr double kErfcScaled[] = {
    0x1.06aeeep-5,  -0x1.7f602cp-3, 0x1.d329c4p-2, -0x1.1f7d7p-1,
    0x1.098ceap-2,  0x1.c0081ep-3,  -0x1.7c9d4p-2, 0x1.4130c8p-6,
    0x1.1faf7cp-1,  0x1.e0f538p-14,
};

Value *erf(EmitterContext &ctx, Value *x) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *ax = fabs(ctx, x);
  Value *small = b.CreateFMul(ax, horner(b, b.CreateFMul(ax, ax), kErfSmall));
  // Both branches are computed (straight-line code): keep the large one's
  // argument in [1, 4].
  Value *clamped = b.CreateSelect(b.CreateFCmpOLT(ax, fc(x, 1.0)), fc(x, 1.0), ax);
  clamped = b.CreateSelect(b.CreateFCmpOGT(clamped, fc(x, 4.0)), fc(x, 4.0), clamped);
  Value *scaled = horner(b, b.CreateFDiv(fc(x, 1.0), clamped), kErfcScaled);
  Value *gauss = exp(ctx, b.CreateFNeg(b.CreateFMul(clamped, clamped)));
  Value *large = b.CreateFSub(fc(x, 1.0), b.CreateFMul(gauss, scaled));
  Value *result = b.CreateSelect(b.CreateFCmpOLT(ax, fc(x, 1.0)), small, large);
  // erfc(4) = 1.5e-8 < 2^-25: erf rounds to 1 from there on.
  result = b.CreateSelect(b.CreateFCmpOGE(ax, fc(x, 4.0)), fc(x, 1.0), result);
  result = b.CreateSelect(isNan(ctx, x), x, result);
  return copysign(ctx, result, x);
}

// --- sin / cos ------------------------------------------------------------------

// pi/2 in six pieces of 13 significant bits (the rest is 2.9e-28): with
// the quadrant j split into two parts of at most 11 bits, every product of
// a part and a piece is exact in f32.
constexpr double kHalfPiPieces[] = {
    0x1.922p+0, -0x1.2afp-18, 0x1.0b4p-34, 0x1.847p-48, -0x1.9dap-62, 0x1.98ap-77,
};

Value *sinShifted(EmitterContext &ctx, Value *x, uint64_t quadrantShift) {
  llvm::IRBuilder<> &b = ctx.builder();
  // j = round(x * 2/pi) from the exact product with 2/pi in two pieces:
  // rounded once, x * 2/pi is off by up to 0.25 near 2^22 and j would be
  // off by one, leaving |r| up to 1.2 for the polynomials.
  const double twoOverPi = 0.63661977236758134;
  const double twoOverPiHi = double(float(twoOverPi));
  Wide scaled = twoProduct(ctx, x, fc(x, twoOverPiHi));
  Value *scaledLo = b.CreateFAdd(scaled.lo, b.CreateFMul(x, fc(x, twoOverPi - twoOverPiHi)));
  Value *nearest = roundEven(ctx, scaled.hi);
  Value *j = b.CreateFAdd(
      nearest, roundEven(ctx, b.CreateFAdd(b.CreateFSub(scaled.hi, nearest), scaledLo)));
  // j = high + low with high a multiple of 2^11: both have at most 11
  // significant bits while |j| < 2^22.
  Value *high = b.CreateFMul(roundEven(ctx, b.CreateFMul(j, fc(x, 0x1p-11))),
                             fc(x, 0x1p11));
  Value *low = b.CreateFSub(j, high);
  // The products, subtracted from the largest down, with their rounding
  // errors (twoSum) summed apart: a difference is exact while it fits the
  // finest grid so far (so up to the point where the partial remainder is
  // as small as r itself, which keeps the cancelling bits when x is near a
  // multiple of pi/2); after that each step's error is kept and added back
  // once, so r is rounded about once rather than once per step.
  Value *r = x, *errors = fc(x, 0.0);
  for (double piece : kHalfPiPieces)
    for (Value *part : {high, low}) {
      Wide step = twoSum(b, r, b.CreateFNeg(b.CreateFMul(part, fc(x, piece))));
      r = step.hi;
      errors = b.CreateFAdd(errors, step.lo);
    }
  r = b.CreateFAdd(r, errors);
  llvm::Type *it = bitsType(x);
  Value *q = b.CreateAdd(quadrantOf(ctx, j), ic(it, quadrantShift));
  return sinOfQuadrant(ctx, r, q);
}

// --- pow --------------------------------------------------------------------------

/// a + b = s + e exactly when |a| >= |b| (Dekker's Fast2Sum).
static Wide fastTwoSum(llvm::IRBuilder<> &b, Value *x, Value *y) {
  Value *s = b.CreateFAdd(x, y);
  return {s, b.CreateFSub(y, b.CreateFSub(s, x))};
}

/// log2(ax) for finite ax > 0 as hi + lo, relative error about 2^-33:
/// ax = 2^e m with m in [sqrt(1/2), sqrt(2)], ln m = 2 atanh(f) with
/// f = (m - 1) / (m + 1) in double-word and the series' tail in f32.
static Wide log2Wide(EmitterContext &ctx, Value *ax) {
  llvm::IRBuilder<> &b = ctx.builder();
  llvm::Type *it = bitsType(ax);
  Value *sub = b.CreateFCmpOLT(ax, fc(ax, 0x1p-126));
  Value *xs = b.CreateSelect(sub, b.CreateFMul(ax, fc(ax, 0x1p23)), ax);
  Value *bits = b.CreateBitCast(xs, it);
  Value *e = b.CreateSub(b.CreateAnd(b.CreateLShr(bits, ic(it, 23)), ic(it, 0xff)),
                         ic(it, 127));
  e = b.CreateSub(e, b.CreateSelect(sub, ic(it, 23), ic(it, 0)));
  Value *m = b.CreateBitCast(
      b.CreateOr(b.CreateAnd(bits, ic(it, 0x7fffff)), ic(it, 127u << 23)),
      ax->getType());
  Value *big = b.CreateFCmpOGT(m, fc(ax, 1.4142135623730951));
  m = b.CreateSelect(big, b.CreateFMul(m, fc(ax, 0.5)), m);
  e = b.CreateAdd(e, b.CreateZExt(big, it));
  // f = u / v in double-word: u = m - 1 is exact (Sterbenz), v = m + 1
  // is hi + lo, and the quotient's remainder u - fh * v is computed exactly
  // up to fh * v.lo.
  Value *u = b.CreateFSub(m, fc(ax, 1.0));
  Wide v = twoSum(b, m, fc(ax, 1.0));
  Value *fh = b.CreateFDiv(u, v.hi);
  Wide product = twoProduct(ctx, fh, v.hi);
  Value *remainder = b.CreateFSub(b.CreateFSub(b.CreateFSub(u, product.hi), product.lo),
                                  b.CreateFMul(fh, v.lo));
  Value *fl = b.CreateFDiv(remainder, v.hi);
  // ln m = 2f + 2f s (1/3 + s/5 + ... + s^5/13), s = f^2 <= 0.0295: the
  // first omitted term is below 2^-34 of 2f.
  Value *s = b.CreateFMul(fh, fh);
  std::vector<double> series;
  for (int k = 6; k >= 1; --k)
    series.push_back(1.0 / double(2 * k + 1));
  Value *twoF = b.CreateFMul(fh, fc(ax, 2.0));
  Value *tail = b.CreateFMul(b.CreateFMul(twoF, s), horner(b, s, series));
  Wide ln = fastTwoSum(b, twoF, b.CreateFAdd(b.CreateFMul(fl, fc(ax, 2.0)), tail));
  // times log2(e) = kHi + kLo, plus the exponent.
  const double log2e = 1.4426950408889634;
  const double log2eHi = double(float(log2e)), log2eLo = log2e - log2eHi;
  Wide scaled = twoProduct(ctx, ln.hi, fc(ax, log2eHi));
  Value *scaledLo = b.CreateFAdd(
      scaled.lo, b.CreateFAdd(b.CreateFMul(ln.hi, fc(ax, log2eLo)),
                              b.CreateFMul(ln.lo, fc(ax, log2eHi))));
  Wide sum = twoSum(b, smallIntToFloat(b, e, ax), scaled.hi);
  return fastTwoSum(b, sum.hi, b.CreateFAdd(sum.lo, scaledLo));
}

Value *powMagnitude(EmitterContext &ctx, Value *ax, Value *y) {
  llvm::IRBuilder<> &b = ctx.builder();
  Wide lg = log2Wide(ctx, ax);
  // log2 of 0, inf and NaN (the bit tricks above see finite numbers).
  Value *finite = b.CreateAnd(b.CreateFCmpOGT(ax, fc(ax, 0.0)),
                              b.CreateFCmpOLT(ax, fc(ax, kInf)));
  Value *special = b.CreateSelect(b.CreateFCmpOEQ(ax, fc(ax, 0.0)), fc(ax, -kInf), ax);
  Value *lgHi = b.CreateSelect(finite, lg.hi, special);
  Value *lgLo = b.CreateSelect(finite, lg.lo, fc(ax, 0.0));
  // z = y * log2|x| in double-word: its absolute error, about 2^-24 at
  // |z| = 150, is the relative error it adds to the result (times ln 2).
  Wide z = twoProduct(ctx, y, lgHi);
  Value *zLo = b.CreateFAdd(z.lo, b.CreateFMul(y, lgLo));
  // 2^z = 2^n * 2^r, n = round(z), r = (z.hi - n) + z.lo (z.hi - n exact).
  Value *zc = b.CreateSelect(b.CreateFCmpOGT(z.hi, fc(ax, 129.0)), fc(ax, 129.0), z.hi);
  zc = b.CreateSelect(b.CreateFCmpOLT(zc, fc(ax, -151.0)), fc(ax, -151.0), zc);
  Value *n = roundEven(ctx, zc);
  Value *r = b.CreateFAdd(b.CreateFSub(zc, n), zLo);
  // 2^r = e^(r ln 2), |r ln 2| <= 0.35: Taylor to degree 7 (first omitted
  // term 5e-9), coefficients ln2^k / k!.
  std::vector<double> series;
  for (int k = 7; k >= 0; --k)
    series.push_back(std::pow(0.6931471805599453, k) / std::tgamma(double(k) + 1.0));
  Value *result = scaleByPowerOfTwo(ctx, horner(b, r, series), n);
  result = b.CreateSelect(b.CreateFCmpOGT(z.hi, fc(ax, 128.0)), fc(ax, kInf), result);
  result = b.CreateSelect(b.CreateFCmpOLT(z.hi, fc(ax, -150.0)), fc(ax, 0.0), result);
  return b.CreateSelect(b.CreateFCmpUNO(z.hi, z.hi), z.hi, result);
}

} // namespace kiln::codegen::math::single
