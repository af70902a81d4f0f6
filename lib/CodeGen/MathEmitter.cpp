//===- MathEmitter.cpp - Transcendentals as vectorizable LLVM IR ----------===//
//
// No libm: every function is straight-line IR (selects, no branches) made
// of range reduction and a truncated Taylor/continued-fraction evaluation
// whose truncation error is below the type's rounding error. Measured and
// derived error bounds:
//   exp   f32: Cody-Waite reduction to |r| <= ln2/2, degree-7 Taylor:
//              <= 2 ulp. f64: degree 13: <= 2 ulp.
//   log   f32/f64: mantissa in [sqrt(1/2), sqrt(2)], atanh series in
//              f = (m-1)/(m+1) (5 / 11 terms): <= 2 ulp.
//   tanh  = expm1(2|x|) / (expm1(2|x|) + 2), sign restored: <= 4 ulp.
//   logistic = 1 / (1 + exp(-x)): <= 3 ulp.
//   erf, sin, cos, atan2, pow and fmod of f32: on targets with a
//   double-precision FPU they are computed in f64 and rounded once
//   (measured <= 0.5 ulp, bench/math_accuracy.py); on single-precision
//   FPUs (Cortex-M4/M33/M55, TargetInfo::doubleFpu false), where f64 is a
//   library call per operation, in f32 only (MathSingle.cpp), measured
//   against glibc on 2^15 inputs per range: erf <= 2.4 ulp, sin/cos
//   <= 1.9 ulp for |x| < 2^22 pi/2 (also next to multiples of pi/2),
//   atan2 <= 2.5 ulp, pow <= 1.5 ulp (results from 2^-149 to 2^128),
//   fmod exact. On x86-64 (AVX-512) the f32 forms were faster (erf ~25x,
//   atan2 3-5x, pow ~2x; sin/cos equal, fmod ~1.5x slower) but less
//   accurate, so x86-64 and AArch64 (same accuracy trade) keep f64.
//   erf   f64: Taylor (33 terms) for |x| < 2, erfc continued fraction
//              (40 terms) above: relative error < 1e-14.
//   sin/cos f64: reduction by pi/2 in three 33-bit pieces (exact for
//              |x| < 2^20 * pi/2; beyond, the error grows with |x|), Taylor
//              to degree 17/18 on [-pi/4, pi/4]: <= 2 ulp in range.
//   atan2: reduction to |t| <= tan(pi/8), Taylor with 22 (f64) or 9 (f32)
//              terms: <= 2 ulp (f64).
//   pow   f64: exp(y * log|x|) plus C99's special cases; relative error
//              grows with |y log x| (about 1e-13 near overflow).
//   fmod: repeated exact reduction steps (q * y as an exact product, fma
//              or Dekker's), exact for all f32/f16/bf16 inputs (7 steps in
//              f64, 13 in f32) and for f64 while |x/y| < 2^150.
//
//===----------------------------------------------------------------------===//
#include "MathInternal.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/PatternMatch.h>

#include <cmath>
#include <limits>

namespace kiln::codegen::math {

using llvm::Value;

Value *fc(Value *like, double value) {
  return llvm::ConstantFP::get(like->getType(), value);
}
bool isDouble(Value *x) { return x->getType()->getScalarType()->isDoubleTy(); }
llvm::Type *bitsType(Value *x) {
  llvm::Type *scalar = llvm::Type::getIntNTy(
      x->getContext(), x->getType()->getScalarSizeInBits());
  if (auto *vec = llvm::dyn_cast<llvm::FixedVectorType>(x->getType()))
    return llvm::FixedVectorType::get(scalar, vec->getNumElements());
  return scalar;
}
Value *ic(llvm::Type *type, uint64_t value) {
  return llvm::ConstantInt::get(type, value);
}

/// Conversions between small integers and floats through i32: f64 <-> i64
/// conversions are run-time library calls on 32-bit ARM (__aeabi_d2lz,
/// __aeabi_l2d), i32 ones are instructions everywhere.
static llvm::Type *int32Like(llvm::IRBuilder<> &b, Value *x) {
  if (auto *vec = llvm::dyn_cast<llvm::FixedVectorType>(x->getType()))
    return llvm::FixedVectorType::get(b.getInt32Ty(), vec->getNumElements());
  return b.getInt32Ty();
}
Value *smallFloatToInt(llvm::IRBuilder<> &b, Value *x) {
  return b.CreateSExtOrTrunc(b.CreateFPToSI(x, int32Like(b, x)), bitsType(x));
}
Value *smallIntToFloat(llvm::IRBuilder<> &b, Value *n, Value *like) {
  return b.CreateSIToFP(b.CreateSExtOrTrunc(n, int32Like(b, like)), like->getType());
}

Value *quadrantOf(EmitterContext &ctx, Value *j) {
  llvm::IRBuilder<> &b = ctx.builder();
  // j - 4 round(j / 4) is in [-2, 2] and exact; NaN (from an infinite
  // argument, whose result is NaN anyway) becomes 0.
  Value *quadrant = b.CreateFSub(
      j, b.CreateFMul(roundEven(ctx, b.CreateFMul(j, fc(j, 0.25))), fc(j, 4.0)));
  quadrant = b.CreateSelect(isNan(ctx, quadrant), fc(j, 0.0), quadrant);
  return smallFloatToInt(b, quadrant);
}

Value *horner(llvm::IRBuilder<> &b, Value *x,
              llvm::ArrayRef<double> coefficients) {
  Value *acc = fc(x, coefficients[0]);
  for (size_t i = 1; i < coefficients.size(); ++i)
    acc = b.CreateFAdd(b.CreateFMul(acc, x), fc(x, coefficients[i]));
  return acc;
}

/// x's type with f64 lanes.
static llvm::Type *doubleLike(llvm::IRBuilder<> &b, Value *x) {
  llvm::Type *f64 = b.getDoubleTy();
  if (auto *vec = llvm::dyn_cast<llvm::FixedVectorType>(x->getType()))
    return llvm::FixedVectorType::get(f64, vec->getNumElements());
  return f64;
}

/// Runs `body` on f64 operands (f32 ones extended) and rounds the result
/// back to the operands' type once.
template <typename F, typename... V>
static Value *inDouble(EmitterContext &ctx, F body, Value *x, V *...more) {
  if (isDouble(x))
    return body(x, more...);
  llvm::IRBuilder<> &b = ctx.builder();
  llvm::Type *f64 = doubleLike(b, x);
  return b.CreateFPTrunc(body(b.CreateFPExt(x, f64), b.CreateFPExt(more, f64)...),
                         x->getType());
}

// --- Error-free transformations ---------------------------------------------------

Wide twoSum(llvm::IRBuilder<> &b, Value *x, Value *y) {
  Value *s = b.CreateFAdd(x, y);
  Value *yPart = b.CreateFSub(s, x);
  Value *xPart = b.CreateFSub(s, yPart);
  Value *e = b.CreateFAdd(b.CreateFSub(x, xPart), b.CreateFSub(y, yPart));
  return {s, e};
}

/// a = hi + lo with hi of at most half the significand's bits, so that
/// products of halves are exact. f32: the low 12 bits cleared (an integer
/// mask: no overflow for any finite a; 12 + 12 bits, Dekker's product
/// checked exact on 12M random pairs); f64: Veltkamp's split, 26 + 26 bits
/// with a sign (53 is odd, so masking cannot halve it).
static Wide splitHalves(llvm::IRBuilder<> &b, Value *a) {
  if (!isDouble(a)) {
    llvm::Type *it = bitsType(a);
    Value *hi = b.CreateBitCast(
        b.CreateAnd(b.CreateBitCast(a, it), ic(it, 0xFFFFF000u)), a->getType());
    return {hi, b.CreateFSub(a, hi)};
  }
  Value *c = b.CreateFMul(a, fc(a, 134217729.0)); // 2^27 + 1
  Value *hi = b.CreateFSub(c, b.CreateFSub(c, a));
  return {hi, b.CreateFSub(a, hi)};
}

Wide twoProduct(EmitterContext &ctx, Value *x, Value *y) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *p = b.CreateFMul(x, y);
  if (ctx.fusedMultiplyAdd(x->getType()))
    return {p, b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()},
                                 {x, y, b.CreateFNeg(p)})};
  auto [xh, xl] = splitHalves(b, x);
  auto [yh, yl] = splitHalves(b, y);
  Value *e = b.CreateFSub(b.CreateFMul(xh, yh), p);
  e = b.CreateFAdd(e, b.CreateFMul(xh, yl));
  e = b.CreateFAdd(e, b.CreateFMul(xl, yh));
  e = b.CreateFAdd(e, b.CreateFMul(xl, yl));
  return {p, e};
}

Value *isNan(EmitterContext &ctx, Value *x) {
  return ctx.builder().CreateFCmpUNO(x, x);
}
Value *fabs(EmitterContext &ctx, Value *x) {
  return ctx.builder().CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
}
Value *copysign(EmitterContext &ctx, Value *magnitude, Value *sign) {
  return ctx.builder().CreateBinaryIntrinsic(llvm::Intrinsic::copysign,
                                             magnitude, sign);
}
Value *signBit(EmitterContext &ctx, Value *x) {
  llvm::IRBuilder<> &b = ctx.builder();
  return b.CreateICmpSLT(b.CreateBitCast(x, bitsType(x)), ic(bitsType(x), 0));
}

// --- Rounding -----------------------------------------------------------------

/// Largest power of two below which a float may have a fraction.
static double fractionLimit(Value *x) { return isDouble(x) ? 0x1p52 : 0x1p23; }

Value *roundEven(EmitterContext &ctx, Value *x) {
  llvm::IRBuilder<> &b = ctx.builder();
  // llvm.rint rounds in the current mode, which is nearest-even (the
  // trick below assumes it too): the same result as llvm.roundeven, but
  // LLVM 19's ARM backend has no VRINTN pattern for roundeven (a
  // roundevenf call on Cortex-M33/M7, a selection failure for NEON
  // vectors), while rint is VRINTX there, FRINTX on AArch64, ROUNDPS on x86.
  if (ctx.nativeRounding())
    return b.CreateUnaryIntrinsic(llvm::Intrinsic::rint, x);
  // Adding and removing 2^p rounds to an integer in the current (nearest
  // even) rounding mode.
  Value *ax = fabs(ctx, x);
  Value *limit = fc(x, fractionLimit(x));
  Value *r = copysign(ctx, b.CreateFSub(b.CreateFAdd(ax, limit), limit), x);
  return b.CreateSelect(b.CreateFCmpOLT(ax, limit), r, x);
}

Value *trunc(EmitterContext &ctx, Value *x) {
  llvm::IRBuilder<> &b = ctx.builder();
  if (ctx.nativeRounding())
    return b.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, x);
  Value *ax = fabs(ctx, x);
  Value *r = roundEven(ctx, ax);
  r = b.CreateSelect(b.CreateFCmpOGT(r, ax), b.CreateFSub(r, fc(x, 1.0)), r);
  return copysign(ctx, r, x);
}

Value *floor(EmitterContext &ctx, Value *x) {
  llvm::IRBuilder<> &b = ctx.builder();
  if (ctx.nativeRounding())
    return b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
  Value *r = roundEven(ctx, x);
  r = b.CreateSelect(b.CreateFCmpOGT(r, x), b.CreateFSub(r, fc(x, 1.0)), r);
  return copysign(ctx, r, x);
}

Value *ceil(EmitterContext &ctx, Value *x) {
  llvm::IRBuilder<> &b = ctx.builder();
  if (ctx.nativeRounding())
    return b.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x);
  Value *r = roundEven(ctx, x);
  r = b.CreateSelect(b.CreateFCmpOLT(r, x), b.CreateFAdd(r, fc(x, 1.0)), r);
  return copysign(ctx, r, x); // ceil(-0.5) is -0
}

Value *roundAwayFromZero(EmitterContext &ctx, Value *x) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *t = trunc(ctx, x);
  Value *away = b.CreateFCmpOGE(fabs(ctx, b.CreateFSub(x, t)), fc(x, 0.5));
  Value *r = b.CreateSelect(away, b.CreateFAdd(t, copysign(ctx, fc(x, 1.0), x)), t);
  return copysign(ctx, r, x);
}

// --- exp / log ------------------------------------------------------------------

/// p * 2^n for an integral float n in [-1100, 1100] (f32: [-300, 300]; or
/// NaN, when p is NaN as well), split in two factors so both stay normal
/// while the product may be subnormal or overflow.
Value *scaleByPowerOfTwo(EmitterContext &ctx, Value *p, Value *n) {
  llvm::IRBuilder<> &b = ctx.builder();
  // n is integral and in range, or NaN (then p is NaN too): a plain
  // fptosi of NaN-as-0 is exact and stays one vector instruction, where
  // llvm.fptosi.sat is split into a scalar convert per lane by LLVM 19.
  Value *finite = b.CreateSelect(b.CreateFCmpUNO(n, n), fc(n, 0.0), n);
  return scaleByPowerOfTwoInt(ctx, p, smallFloatToInt(b, finite));
}

Value *scaleByPowerOfTwoInt(EmitterContext &ctx, Value *p, Value *ni) {
  llvm::IRBuilder<> &b = ctx.builder();
  bool dbl = isDouble(p);
  llvm::Type *it = bitsType(p);
  Value *n1 = b.CreateAShr(ni, ic(it, 1));
  Value *n2 = b.CreateSub(ni, n1);
  uint64_t bias = dbl ? 1023 : 127, mbits = dbl ? 52 : 23;
  auto power = [&](Value *k) {
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, ic(it, bias)), ic(it, mbits)),
                           p->getType());
  };
  return b.CreateFMul(b.CreateFMul(p, power(n1)), power(n2));
}

/// Taylor coefficients of e^r - 1 - ... from degree `degree` down to `low`.
static std::vector<double> expTaylor(int degree, int low) {
  std::vector<double> c;
  for (int k = degree; k >= low; --k)
    c.push_back(1.0 / std::tgamma(double(k) + 1.0));
  return c;
}

Value *exp(EmitterContext &ctx, Value *x) {
  llvm::IRBuilder<> &b = ctx.builder();
  bool dbl = isDouble(x);
  double hi = dbl ? 710.0 : 89.0, lo = dbl ? -746.0 : -104.0;
  Value *xc = b.CreateSelect(b.CreateFCmpOGT(x, fc(x, hi)), fc(x, hi), x);
  xc = b.CreateSelect(b.CreateFCmpOLT(xc, fc(x, lo)), fc(x, lo), xc);
  Value *n = roundEven(ctx, b.CreateFMul(xc, fc(x, 1.4426950408889634)));
  double ln2hi = dbl ? 6.93147180369123816490e-01 : 0.693359375;
  double ln2lo = dbl ? 1.90821492927058770002e-10 : -2.12194440e-4;
  Value *r = b.CreateFSub(xc, b.CreateFMul(n, fc(x, ln2hi)));
  r = b.CreateFSub(r, b.CreateFMul(n, fc(x, ln2lo)));
  Value *p = horner(b, r, expTaylor(dbl ? 13 : 7, 0));
  Value *result = scaleByPowerOfTwo(ctx, p, n);
  result = b.CreateSelect(b.CreateFCmpOGT(x, fc(x, hi)), fc(x, kInf), result);
  return b.CreateSelect(b.CreateFCmpOLT(x, fc(x, lo)), fc(x, 0.0), result);
}

/// e^y - 1 for y >= 0 without cancellation near 0.
static Value *expm1NonNegative(EmitterContext &ctx, Value *y) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *series = b.CreateFMul(y, horner(b, y, expTaylor(isDouble(y) ? 16 : 9, 1)));
  // horner above evaluates sum_{k=1..D} y^(k-1)/k!, times y.
  Value *direct = b.CreateFSub(exp(ctx, y), fc(y, 1.0));
  return b.CreateSelect(b.CreateFCmpOLT(y, fc(y, 0.34657359027997264)), series,
                        direct);
}

Value *log(EmitterContext &ctx, Value *x) {
  llvm::IRBuilder<> &b = ctx.builder();
  bool dbl = isDouble(x);
  llvm::Type *it = bitsType(x);
  uint64_t mbits = dbl ? 52 : 23, bias = dbl ? 1023 : 127;
  uint64_t expMask = dbl ? 0x7ff : 0xff;
  // Subnormals: scale into the normal range first.
  Value *sub = b.CreateFCmpOLT(x, fc(x, dbl ? 0x1p-1022 : 0x1p-126));
  Value *xs = b.CreateSelect(sub, b.CreateFMul(x, fc(x, dbl ? 0x1p52 : 0x1p23)), x);
  Value *bits = b.CreateBitCast(xs, it);
  Value *e = b.CreateSub(b.CreateAnd(b.CreateLShr(bits, ic(it, mbits)), ic(it, expMask)),
                         ic(it, bias));
  e = b.CreateSub(e, b.CreateSelect(sub, ic(it, mbits), ic(it, 0)));
  Value *mantissa = b.CreateOr(b.CreateAnd(bits, ic(it, (uint64_t(1) << mbits) - 1)),
                               ic(it, bias << mbits));
  Value *m = b.CreateBitCast(mantissa, x->getType()); // [1, 2)
  Value *big = b.CreateFCmpOGT(m, fc(x, 1.4142135623730951));
  m = b.CreateSelect(big, b.CreateFMul(m, fc(x, 0.5)), m);
  e = b.CreateAdd(e, b.CreateZExt(big, it));
  Value *f = b.CreateFDiv(b.CreateFSub(m, fc(x, 1.0)), b.CreateFAdd(m, fc(x, 1.0)));
  Value *s = b.CreateFMul(f, f);
  std::vector<double> series; // 1/(2k+1) for k = K..0
  for (int k = dbl ? 11 : 5; k >= 0; --k)
    series.push_back(1.0 / double(2 * k + 1));
  Value *logm = b.CreateFMul(b.CreateFMul(f, fc(x, 2.0)), horner(b, s, series));
  Value *ef = smallIntToFloat(b, e, x);
  double ln2hi = dbl ? 6.93147180369123816490e-01 : 0.693359375;
  double ln2lo = dbl ? 1.90821492927058770002e-10 : -2.12194440e-4;
  Value *result = b.CreateFAdd(b.CreateFMul(ef, fc(x, ln2hi)),
                               b.CreateFAdd(logm, b.CreateFMul(ef, fc(x, ln2lo))));
  result = b.CreateSelect(b.CreateFCmpOEQ(x, fc(x, kInf)), x, result);
  result = b.CreateSelect(b.CreateFCmpOEQ(x, fc(x, 0.0)), fc(x, -kInf), result);
  Value *invalid = b.CreateFCmpULT(x, fc(x, 0.0)); // negative or NaN
  return b.CreateSelect(invalid, fc(x, std::nan("")), result);
}

Value *tanh(EmitterContext &ctx, Value *x) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *ax = fabs(ctx, x);
  Value *em1 = expm1NonNegative(ctx, b.CreateFMul(ax, fc(x, 2.0)));
  Value *t = b.CreateFDiv(em1, b.CreateFAdd(em1, fc(x, 2.0)));
  Value *saturated = b.CreateFCmpOGT(ax, fc(x, isDouble(x) ? 22.0 : 9.0));
  return copysign(ctx, b.CreateSelect(saturated, fc(x, 1.0), t), x);
}

Value *logistic(EmitterContext &ctx, Value *x) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *e = exp(ctx, b.CreateFNeg(x));
  return b.CreateFDiv(fc(x, 1.0), b.CreateFAdd(fc(x, 1.0), e));
}

// --- erf ----------------------------------------------------------------------

static Value *erfDouble(EmitterContext &ctx, Value *x) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *ax = fabs(ctx, x);
  Value *s = b.CreateFMul(ax, ax);
  // |x| < 2: 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)).
  std::vector<double> taylor;
  for (int n = 32; n >= 0; --n)
    taylor.push_back((n % 2 ? -1.0 : 1.0) * 1.1283791670955126 /
                     (std::tgamma(double(n) + 1.0) * double(2 * n + 1)));
  Value *small = b.CreateFMul(ax, horner(b, s, taylor));
  // |x| >= 2: erfc = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + ...))).
  Value *safe = b.CreateSelect(b.CreateFCmpOLT(ax, fc(x, 2.0)), fc(x, 2.0), ax);
  Value *fraction = safe;
  for (int k = 40; k >= 1; --k)
    fraction = b.CreateFAdd(safe, b.CreateFDiv(fc(x, k * 0.5), fraction));
  Value *gauss = exp(ctx, b.CreateFNeg(b.CreateFMul(safe, safe)));
  Value *erfc = b.CreateFDiv(b.CreateFMul(gauss, fc(x, 0.5641895835477563)), fraction);
  Value *large = b.CreateFSub(fc(x, 1.0), erfc);
  Value *result = b.CreateSelect(b.CreateFCmpOLT(ax, fc(x, 2.0)), small, large);
  result = b.CreateSelect(b.CreateFCmpOGT(ax, fc(x, 6.0)), fc(x, 1.0), result);
  result = b.CreateSelect(isNan(ctx, x), x, result);
  return copysign(ctx, result, x);
}

Value *erf(EmitterContext &ctx, Value *x) {
  if (!isDouble(x) && ctx.singlePrecisionMath())
    return single::erf(ctx, x);
  return inDouble(ctx, [&](Value *v) { return erfDouble(ctx, v); }, x);
}

// --- sin / cos ------------------------------------------------------------------

Value *sinOfQuadrant(EmitterContext &ctx, Value *r, Value *q) {
  llvm::IRBuilder<> &b = ctx.builder();
  llvm::Type *it = bitsType(r);
  // Taylor to degree 17/18 (f64) or 9/10 (f32, |r| <= 0.9: the first
  // omitted terms are below 2^-26 relative).
  bool dbl = isDouble(r);
  Value *s = b.CreateFMul(r, r);
  std::vector<double> sinSeries, cosSeries; // in s = r^2
  for (int k = dbl ? 8 : 4; k >= 0; --k)
    sinSeries.push_back((k % 2 ? -1.0 : 1.0) / std::tgamma(double(2 * k + 2)));
  for (int k = dbl ? 9 : 5; k >= 0; --k)
    cosSeries.push_back((k % 2 ? -1.0 : 1.0) / std::tgamma(double(2 * k + 1)));
  Value *sinR = b.CreateFMul(r, horner(b, s, sinSeries));
  Value *cosR = horner(b, s, cosSeries);
  Value *odd = b.CreateICmpNE(b.CreateAnd(q, ic(it, 1)), ic(it, 0));
  Value *negate = b.CreateICmpNE(b.CreateAnd(q, ic(it, 2)), ic(it, 0));
  Value *v = b.CreateSelect(odd, cosR, sinR);
  return b.CreateSelect(negate, b.CreateFNeg(v), v);
}

/// sin(x + quadrantShift * pi/2) in f64: reduction by pi/2 in three 33-bit
/// pieces.
static Value *sinQuadrant(EmitterContext &ctx, Value *x, uint64_t quadrantShift) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *j = roundEven(ctx, b.CreateFMul(x, fc(x, 0.63661977236758134)));
  Value *r = b.CreateFSub(x, b.CreateFMul(j, fc(x, 1.57079632673412561417e+00)));
  r = b.CreateFSub(r, b.CreateFMul(j, fc(x, 6.07710050630396597660e-11)));
  r = b.CreateFSub(r, b.CreateFMul(j, fc(x, 2.02226624871116645580e-21)));
  llvm::Type *it = bitsType(x);
  Value *q = quadrantOf(ctx, j);
  return sinOfQuadrant(ctx, r, b.CreateAdd(q, ic(it, quadrantShift)));
}

static Value *sinShifted(EmitterContext &ctx, Value *x, uint64_t quadrantShift) {
  if (!isDouble(x) && ctx.singlePrecisionMath())
    return single::sinShifted(ctx, x, quadrantShift);
  return inDouble(
      ctx, [&](Value *v) { return sinQuadrant(ctx, v, quadrantShift); }, x);
}

Value *sin(EmitterContext &ctx, Value *x) {
  // sin(+-0) = +-0 exactly.
  return ctx.builder().CreateSelect(ctx.builder().CreateFCmpOEQ(x, fc(x, 0.0)),
                                    x, sinShifted(ctx, x, 0));
}

Value *cos(EmitterContext &ctx, Value *x) { return sinShifted(ctx, x, 1); }

// --- atan2 --------------------------------------------------------------------

/// atan(t) for t >= 0 (t may be +inf): reduced to |z| <= tan(pi/8), then a
/// Taylor series with 22 (f64) or 9 (f32) terms, whose first omitted term
/// is below the type's rounding error relative to atan(z).
static Value *atanNonNegative(EmitterContext &ctx, Value *t) {
  llvm::IRBuilder<> &b = ctx.builder();
  bool dbl = isDouble(t);
  Value *big = b.CreateFCmpOGT(t, fc(t, 2.414213562373095));
  Value *mid = b.CreateFCmpOGT(t, fc(t, 0.41421356237309503));
  Value *z = b.CreateSelect(
      big, b.CreateFDiv(fc(t, -1.0), t),
      b.CreateSelect(mid, b.CreateFDiv(b.CreateFSub(t, fc(t, 1.0)),
                                       b.CreateFAdd(t, fc(t, 1.0))),
                     t));
  // pi/2 minus its value in t's type: added back after the sum.
  const double halfPi = 1.5707963267948966;
  const double morebits = dbl ? 6.123233995736765886130e-17
                              : halfPi - double(float(halfPi));
  Value *offset = b.CreateSelect(big, fc(t, halfPi),
                                 b.CreateSelect(mid, fc(t, 0.5 * halfPi),
                                                fc(t, 0.0)));
  Value *extra = b.CreateSelect(big, fc(t, morebits),
                                b.CreateSelect(mid, fc(t, 0.5 * morebits),
                                               fc(t, 0.0)));
  std::vector<double> series; // (-1)^k / (2k+1), k = K..0
  for (int k = dbl ? 21 : 8; k >= 0; --k)
    series.push_back((k % 2 ? -1.0 : 1.0) / double(2 * k + 1));
  Value *atanZ = b.CreateFMul(z, horner(b, b.CreateFMul(z, z), series));
  return b.CreateFAdd(offset, b.CreateFAdd(atanZ, extra));
}

Value *atan2Any(EmitterContext &ctx, Value *y, Value *x) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *ax = fabs(ctx, x), *ay = fabs(ctx, y);
  Value *base = atanNonNegative(ctx, b.CreateFDiv(ay, ax));
  Value *bothZero = b.CreateAnd(b.CreateFCmpOEQ(ax, fc(x, 0.0)),
                                b.CreateFCmpOEQ(ay, fc(x, 0.0)));
  Value *bothInf = b.CreateAnd(b.CreateFCmpOEQ(ax, fc(x, kInf)),
                               b.CreateFCmpOEQ(ay, fc(x, kInf)));
  base = b.CreateSelect(bothZero, fc(x, 0.0), base);
  base = b.CreateSelect(bothInf, fc(x, 0.7853981633974483), base);
  // Left half-plane (including x = -0): reflect, pi split in two.
  const double pi = 3.141592653589793;
  double piLow = isDouble(x) ? 1.2246467991473532e-16 : pi - double(float(pi));
  Value *reflected = b.CreateFSub(fc(x, pi), b.CreateFSub(base, fc(x, piLow)));
  base = b.CreateSelect(signBit(ctx, x), reflected, base);
  Value *result = copysign(ctx, base, y);
  Value *nan = b.CreateFCmpUNO(x, y);
  return b.CreateSelect(nan, b.CreateFAdd(x, y), result);
}

Value *atan2(EmitterContext &ctx, Value *y, Value *x) {
  if (!isDouble(y) && ctx.singlePrecisionMath())
    return atan2Any(ctx, y, x);
  return inDouble(ctx, [&](Value *v, Value *u) { return atan2Any(ctx, v, u); },
                  y, x);
}

// --- pow, fmod ------------------------------------------------------------------

Value *powSpecialCases(EmitterContext &ctx, Value *x, Value *y, Value *r) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *ax = fabs(ctx, x), *ay = fabs(ctx, y);
  Value *yInteger = b.CreateFCmpOEQ(floor(ctx, y), y);
  Value *half = b.CreateFMul(y, fc(y, 0.5));
  Value *yOdd = b.CreateAnd(yInteger, b.CreateFCmpUNE(floor(ctx, half), half));
  r = b.CreateSelect(b.CreateAnd(signBit(ctx, x), yOdd), b.CreateFNeg(r), r);
  // A finite negative base to a finite non-integer power is NaN.
  Value *invalid = b.CreateAnd(
      b.CreateAnd(b.CreateFCmpOLT(x, fc(x, 0.0)), b.CreateFCmpOGT(x, fc(x, -kInf))),
      b.CreateAnd(b.CreateFCmpOLT(ay, fc(y, kInf)), b.CreateNot(yInteger)));
  r = b.CreateSelect(invalid, fc(x, std::nan("")), r);
  Value *unitInf = b.CreateAnd(b.CreateFCmpOEQ(ax, fc(x, 1.0)),
                               b.CreateFCmpOEQ(ay, fc(y, kInf)));
  Value *one = b.CreateOr(unitInf, b.CreateOr(b.CreateFCmpOEQ(x, fc(x, 1.0)),
                                              b.CreateFCmpOEQ(y, fc(y, 0.0))));
  return b.CreateSelect(one, fc(x, 1.0), r);
}

/// pow in f64: exp(y * log|x|), whose relative error grows with |y log x|.
static Value *powDouble(EmitterContext &ctx, Value *x, Value *y) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *magnitude = exp(ctx, b.CreateFMul(y, log(ctx, fabs(ctx, x))));
  return powSpecialCases(ctx, x, y, magnitude);
}

Value *pow(EmitterContext &ctx, Value *x, Value *y) {
  if (!isDouble(x) && ctx.singlePrecisionMath())
    return powSpecialCases(ctx, x, y,
                           single::powMagnitude(ctx, fabs(ctx, x), y));
  return inDouble(ctx, [&](Value *v, Value *u) { return powDouble(ctx, v, u); },
                  x, y);
}

/// floor(log2 v) for finite v > 0, subnormals included (scaled by 2^p
/// first), as an integer of bitsType(v).
static Value *binaryExponent(EmitterContext &ctx, Value *v) {
  llvm::IRBuilder<> &b = ctx.builder();
  bool dbl = isDouble(v);
  llvm::Type *it = bitsType(v);
  uint64_t mbits = dbl ? 52 : 23, bias = dbl ? 1023 : 127;
  Value *sub = b.CreateFCmpOLT(v, fc(v, dbl ? 0x1p-1022 : 0x1p-126));
  Value *scaled = b.CreateSelect(sub, b.CreateFMul(v, fc(v, dbl ? 0x1p54 : 0x1p25)), v);
  Value *field = b.CreateLShr(b.CreateBitCast(scaled, it), ic(it, mbits));
  Value *e = b.CreateSub(field, ic(it, bias));
  return b.CreateSub(e, b.CreateSelect(sub, ic(it, dbl ? 54 : 25), ic(it, 0)));
}

/// Quotient bits one reduction step removes: below 2^(chunk+1), the
/// quotient is an exact integer of the type and its product with the
/// divisor is exact as a twoProduct.
static int64_t quotientChunk(Value *r) { return isDouble(r) ? 50 : 22; }

/// One exact reduction step of r (>= 0) modulo ay * 2^k (eAy = the binary
/// exponent of ay), where k leaves a quotient q below 2^(chunk+1): then
/// r - q * ys is a multiple of ys's ulp below ys in magnitude, so
/// representable, and with q * ys = p + e exactly, (r - p) - e is exact
/// (r - p by Sterbenz's lemma).
static Value *fmodStep(EmitterContext &ctx, Value *r, Value *ay, Value *eAy) {
  llvm::IRBuilder<> &b = ctx.builder();
  llvm::Type *it = bitsType(r);
  bool dbl = isDouble(r);
  // r may be subnormal (its exponent then reads too high, k stays 0, and
  // r / ay is below 2^(chunk+1) anyway).
  Value *field = b.CreateLShr(b.CreateBitCast(r, it), ic(it, dbl ? 52 : 23));
  Value *eR = b.CreateSub(field, ic(it, dbl ? 1023 : 127));
  Value *k = b.CreateSub(b.CreateSub(eR, eAy), ic(it, uint64_t(quotientChunk(r))));
  k = b.CreateSelect(b.CreateICmpSLT(k, ic(it, 0)), ic(it, 0), k);
  uint64_t maxK = dbl ? 2046 : 254; // two factors of at most 2^(bias)
  k = b.CreateSelect(b.CreateICmpSGT(k, ic(it, maxK)), ic(it, maxK), k);
  // ay * 2^k in two factors (2^k alone may overflow when ay is tiny).
  Value *ys = scaleByPowerOfTwoInt(ctx, ay, k);
  Value *q = trunc(ctx, b.CreateFDiv(r, ys));
  auto [p, e] = twoProduct(ctx, q, ys);
  Value *rem = b.CreateFSub(b.CreateFSub(r, p), e);
  // The rounded quotient may be one too large: bring rem into [0, ys).
  rem = b.CreateSelect(b.CreateFCmpOLT(rem, fc(r, 0.0)), b.CreateFAdd(rem, ys), rem);
  return b.CreateSelect(b.CreateFCmpOGE(rem, ys), b.CreateFSub(rem, ys), rem);
}

Value *fmodExact(EmitterContext &ctx, Value *x, Value *y, int steps) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *ax = fabs(ctx, x), *ay = fabs(ctx, y);
  // For 0, inf and NaN divisors the result is chosen below; keep the
  // exponent finite meanwhile.
  Value *usable = b.CreateAnd(b.CreateFCmpOGT(ay, fc(y, 0.0)),
                              b.CreateFCmpOLT(ay, fc(y, kInf)));
  Value *eAy = binaryExponent(ctx, b.CreateSelect(usable, ay, fc(y, 1.0)));
  Value *r = ax;
  for (int i = 0; i < steps; ++i)
    r = fmodStep(ctx, r, ay, eAy);
  r = copysign(ctx, r, x);
  Value *keepX = b.CreateAnd(b.CreateFCmpOEQ(ay, fc(y, kInf)),
                             b.CreateFCmpOLT(ax, fc(x, kInf)));
  r = b.CreateSelect(keepX, x, r);
  Value *invalid = b.CreateOr(b.CreateFCmpUEQ(ay, fc(y, 0.0)),
                              b.CreateFCmpUEQ(ax, fc(x, kInf)));
  return b.CreateSelect(invalid, fc(x, std::nan("")), r);
}

Value *fmod(EmitterContext &ctx, Value *x, Value *y) {
  // Steps of up to 51 (f64) or 23 (f32) quotient bits: 3 cover f64 while
  // |x/y| < 2^150, 7 every f32 input in f64, 13 the 277-bit exponent
  // range of f32 in f32.
  if (isDouble(x))
    return fmodExact(ctx, x, y, 3);
  if (ctx.singlePrecisionMath())
    return fmodExact(ctx, x, y, 13);
  return inDouble(ctx, [&](Value *v, Value *u) { return fmodExact(ctx, v, u, 7); },
                  x, y);
}

// --- maximum / minimum ----------------------------------------------------------

/// On equal inputs the bit patterns are combined so that max(-0, +0) = +0
/// (AND of the bits) and min(-0, +0) = -0 (OR); NaN wins over everything.
static Value *fextremum(EmitterContext &ctx, Value *a, Value *b, bool isMax) {
  llvm::IRBuilder<> &ir = ctx.builder();
  // ReLU, max(a, +0), on 32-bit ARM and RISC-V: one compare instead of
  // three (on a Cortex-M4 each is a VCMP, a VMRS and an IT block). a + 0
  // is a for a > 0 and the same quiet NaN as below for a NaN; -0, +0 and
  // negatives give +0. AArch64 matches the general form to one FMAX, and
  // x86 keeps the form its kernels were measured with.
  const TargetInfo &target = ctx.target();
  bool reluForm = isMax && !target.isAArch64 && !target.isX86;
  if (reluForm &&
      llvm::PatternMatch::match(a, llvm::PatternMatch::m_PosZeroFP()))
    std::swap(a, b);
  if (reluForm &&
      llvm::PatternMatch::match(b, llvm::PatternMatch::m_PosZeroFP()))
    return ir.CreateSelect(ir.CreateFCmpUGT(a, b), ir.CreateFAdd(a, b), b);
  Value *pick = isMax ? ir.CreateFCmpOGT(a, b) : ir.CreateFCmpOLT(a, b);
  Value *r = ir.CreateSelect(pick, a, b);
  llvm::Type *it = bitsType(a);
  Value *ab = ir.CreateBitCast(a, it), *bb = ir.CreateBitCast(b, it);
  Value *merged = ir.CreateBitCast(isMax ? ir.CreateAnd(ab, bb) : ir.CreateOr(ab, bb),
                                   a->getType());
  r = ir.CreateSelect(ir.CreateFCmpOEQ(a, b), merged, r);
  return ir.CreateSelect(ir.CreateFCmpUNO(a, b), ir.CreateFAdd(a, b), r);
}

Value *fmaximum(EmitterContext &ctx, Value *a, Value *b) {
  return fextremum(ctx, a, b, true);
}
Value *fminimum(EmitterContext &ctx, Value *a, Value *b) {
  return fextremum(ctx, a, b, false);
}

} // namespace kiln::codegen::math
