//===- Math.h - Vectorizable math approximations in LLVM IR -----*- C++ -*-===//
//
// Transcendentals emitted as straight-line IR (range reduction plus
// polynomials), so they vectorize and the object needs no libm. Each
// function takes and returns a float or double scalar or vector. Error
// bounds are documented at each definition in MathEmitter.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_MATH_H
#define KILN_LIB_CODEGEN_MATH_H

#include "EmitterContext.h"

namespace kiln::codegen::math {

llvm::Value *exp(EmitterContext &ctx, llvm::Value *x);
llvm::Value *log(EmitterContext &ctx, llvm::Value *x);
llvm::Value *tanh(EmitterContext &ctx, llvm::Value *x);
llvm::Value *logistic(EmitterContext &ctx, llvm::Value *x);
llvm::Value *erf(EmitterContext &ctx, llvm::Value *x);
llvm::Value *sin(EmitterContext &ctx, llvm::Value *x);
llvm::Value *cos(EmitterContext &ctx, llvm::Value *x);
llvm::Value *atan2(EmitterContext &ctx, llvm::Value *y, llvm::Value *x);
llvm::Value *pow(EmitterContext &ctx, llvm::Value *x, llvm::Value *y);
/// C fmod: exact result with the sign of x (see the definition for range).
llvm::Value *fmod(EmitterContext &ctx, llvm::Value *x, llvm::Value *y);

// Rounding without libm: native intrinsics when the target has them.
llvm::Value *roundEven(EmitterContext &ctx, llvm::Value *x);
llvm::Value *floor(EmitterContext &ctx, llvm::Value *x);
llvm::Value *ceil(EmitterContext &ctx, llvm::Value *x);
llvm::Value *trunc(EmitterContext &ctx, llvm::Value *x);
llvm::Value *roundAwayFromZero(EmitterContext &ctx, llvm::Value *x);

// Small helpers shared by the emitters.
llvm::Value *isNan(EmitterContext &ctx, llvm::Value *x);
llvm::Value *fabs(EmitterContext &ctx, llvm::Value *x);
llvm::Value *copysign(EmitterContext &ctx, llvm::Value *magnitude,
                      llvm::Value *sign);
/// NaN-propagating maximum/minimum; -0 < +0.
llvm::Value *fmaximum(EmitterContext &ctx, llvm::Value *a, llvm::Value *b);
llvm::Value *fminimum(EmitterContext &ctx, llvm::Value *a, llvm::Value *b);

} // namespace kiln::codegen::math

#endif // KILN_LIB_CODEGEN_MATH_H
