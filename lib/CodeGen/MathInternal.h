//===- MathInternal.h - Helpers shared by the math emitter files -*- C++ -*-===//
//
// Internal to MathEmitter.cpp (dispatch, exp/log, the f64 algorithms) and
// MathSingle.cpp (f32 algorithms for targets without a double-precision
// FPU). Every helper takes scalars or fixed vectors alike.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_MATHINTERNAL_H
#define KILN_LIB_CODEGEN_MATHINTERNAL_H

#include "Math.h"

#include <llvm/ADT/ArrayRef.h>

#include <limits>
#include <utility>

namespace kiln::codegen::math {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// A constant of x's (scalar or vector) float type, rounded to it.
llvm::Value *fc(llvm::Value *like, double value);
bool isDouble(llvm::Value *x);
/// The integer type with x's lane count and element width.
llvm::Type *bitsType(llvm::Value *x);
llvm::Value *ic(llvm::Type *type, uint64_t value);
/// coefficients[0] * x^(n-1) + ... + coefficients[n-1], by Horner.
llvm::Value *horner(llvm::IRBuilder<> &b, llvm::Value *x,
                    llvm::ArrayRef<double> coefficients);
llvm::Value *signBit(EmitterContext &ctx, llvm::Value *x);
/// Float <-> integer of bitsType for values within i32 range, converted
/// through i32 (f64 <-> i64 is a library call on 32-bit ARM).
llvm::Value *smallFloatToInt(llvm::IRBuilder<> &b, llvm::Value *x);
llvm::Value *smallIntToFloat(llvm::IRBuilder<> &b, llvm::Value *n,
                             llvm::Value *like);
/// j mod 4 in [-2, 2] as an integer of bitsType(j), for an integral j.
llvm::Value *quadrantOf(EmitterContext &ctx, llvm::Value *j);
/// p * 2^n for an integral float n in [-1100, 1100] (f32: [-300, 300]).
llvm::Value *scaleByPowerOfTwo(EmitterContext &ctx, llvm::Value *p,
                               llvm::Value *n);
/// The same for n as an integer of bitsType(p) (f64: [-2046, 2046], f32:
/// [-254, 254]).
llvm::Value *scaleByPowerOfTwoInt(EmitterContext &ctx, llvm::Value *p,
                                  llvm::Value *n);

/// A value as an unevaluated sum hi + lo with |lo| <= ulp(hi) / 2
/// ("double-word" arithmetic: twice the precision of the type).
struct Wide {
  llvm::Value *hi, *lo;
};
/// a + b = s + e exactly (Knuth's TwoSum; any magnitudes).
Wide twoSum(llvm::IRBuilder<> &b, llvm::Value *x, llvm::Value *y);
/// a * b = p + e exactly unless p overflows or e underflows: llvm.fma
/// where the target fuses this type, else Dekker's product.
Wide twoProduct(EmitterContext &ctx, llvm::Value *x, llvm::Value *y);

/// sin(r + q * pi/2) from a reduced argument |r| <= 0.9 and the integer
/// quadrant q (bitsType(r), any value: only q mod 4 counts).
llvm::Value *sinOfQuadrant(EmitterContext &ctx, llvm::Value *r, llvm::Value *q);
/// atan2 for f32 or f64 operands (reduction to |t| <= tan(pi/8)).
llvm::Value *atan2Any(EmitterContext &ctx, llvm::Value *y, llvm::Value *x);
/// C99 pow from |x|^y (given as `magnitude`): the sign for odd integer y,
/// NaN for a finite negative x and finite non-integer y, 1 for x = 1 or
/// y = 0 (even NaN) and for |x| = 1, y = +-inf.
llvm::Value *powSpecialCases(EmitterContext &ctx, llvm::Value *x,
                             llvm::Value *y, llvm::Value *magnitude);
/// C fmod in x's own type after `steps` exact reduction steps (see
/// MathEmitter.cpp for how many cover which inputs).
llvm::Value *fmodExact(EmitterContext &ctx, llvm::Value *x, llvm::Value *y,
                       int steps);

/// The f32 algorithms of MathSingle.cpp.
namespace single {
llvm::Value *erf(EmitterContext &ctx, llvm::Value *x);
/// sin(x + quadrantShift * pi/2).
llvm::Value *sinShifted(EmitterContext &ctx, llvm::Value *x,
                        uint64_t quadrantShift);
/// |x|^y as exp2(y * log2|x|) in double-word f32.
llvm::Value *powMagnitude(EmitterContext &ctx, llvm::Value *ax, llvm::Value *y);
} // namespace single

} // namespace kiln::codegen::math

#endif // KILN_LIB_CODEGEN_MATHINTERNAL_H
