//===- ReducePrecisionEmitter.cpp - reduce-precision on a float's bits ----===//
//
// The evaluator's algorithm (lib/Eval/EvalReducePrecision.cpp) as
// branch-free integer IR on the value's own bits (f16 and bf16 on their 16
// stored bits): round the mantissa to nearest even by adding a bias and
// truncating, then send exponents beyond the reduced range to signed
// infinity or signed zero; NaN keeps its bits. Works on vectors.
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"
#include "Math.h"

#include <llvm/IR/Constants.h>

namespace kiln::codegen {

using ir::DType;
using llvm::Value;

namespace {

using ir::FloatFormat;

Value *intLike(Value *like, uint64_t value) {
  return llvm::ConstantInt::get(like->getType(), value);
}

Value *roundMantissa(llvm::IRBuilder<> &b, Value *bits, const FloatFormat &f,
                     int64_t keep) {
  if (keep >= int64_t(f.mantissaBits))
    return bits;
  unsigned drop = f.mantissaBits - unsigned(keep);
  uint64_t half = uint64_t(1) << (drop - 1);
  Value *lastKept =
      b.CreateAnd(b.CreateLShr(bits, intLike(bits, drop)), intLike(bits, 1));
  Value *bias = b.CreateAdd(lastKept, intLike(bits, half - 1));
  Value *rounded = b.CreateAdd(bits, bias);
  return b.CreateAnd(rounded, intLike(bits, ~((uint64_t(1) << drop) - 1)));
}

Value *narrowExponent(llvm::IRBuilder<> &b, Value *bits, const FloatFormat &f,
                      int64_t keep) {
  if (keep >= int64_t(f.exponentBits))
    return bits;
  uint64_t exponentMask = ((uint64_t(1) << f.exponentBits) - 1)
                          << f.mantissaBits;
  uint64_t bias = (uint64_t(1) << (f.exponentBits - 1)) - 1;
  uint64_t reducedBias = (uint64_t(1) << (keep - 1)) - 1;
  Value *exponent = b.CreateAnd(bits, intLike(bits, exponentMask));
  Value *sign = b.CreateAnd(bits, intLike(bits, uint64_t(1) << (f.bits - 1)));
  Value *overflows = b.CreateICmpUGT(
      exponent, intLike(bits, (bias + reducedBias) << f.mantissaBits));
  Value *underflows = b.CreateICmpULE(
      exponent, intLike(bits, (bias - reducedBias) << f.mantissaBits));
  Value *infinity = b.CreateOr(sign, intLike(bits, exponentMask));
  return b.CreateSelect(overflows, infinity,
                        b.CreateSelect(underflows, sign, bits));
}

} // namespace

Value *emitReducePrecision(EmitterContext &ctx, DType dtype,
                           int64_t exponentBits, int64_t mantissaBits,
                           Value *x) {
  std::optional<FloatFormat> format = ir::floatFormat(dtype);
  if (!format || exponentBits < 1 || mantissaBits < 0)
    return nullptr;
  llvm::IRBuilder<> &b = ctx.builder();
  llvm::Type *intType = b.getIntNTy(format->bits);
  if (auto *vector = llvm::dyn_cast<llvm::VectorType>(x->getType()))
    intType = llvm::VectorType::get(intType, vector->getElementCount());
  Value *stored = ctx.toStorage(dtype, x); // f16/bf16: i16 bits
  Value *bits = b.CreateBitCast(stored, intType);
  Value *reduced = narrowExponent(
      b, roundMantissa(b, bits, *format, mantissaBits), *format, exponentBits);
  Value *kept = b.CreateSelect(math::isNan(ctx, x), bits, reduced);
  return ctx.toCompute(dtype, b.CreateBitCast(kept, stored->getType()));
}

} // namespace kiln::codegen
