//===- ElementwiseOps.cpp - Scalar/vector arithmetic with kiln semantics --===//
//
// Each elementwise opcode on compute values (scalars or vectors alike),
// written so that no input makes the IR undefined: integer division guards
// its divisor (x/0 = -1, x%0 = x, INT_MIN/-1 = INT_MIN), shifts guard their
// amount (>= width gives 0 or the sign fill), float->int conversion uses the
// saturating intrinsics (NaN -> 0).
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"
#include "Math.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

namespace kiln::codegen {

using ir::DType;
using ir::Opcode;
using llvm::Value;

static Value *intConst(Value *like, uint64_t value) {
  return llvm::ConstantInt::get(like->getType(), value);
}

static Value *floatConst(Value *like, double value) {
  return llvm::ConstantFP::get(like->getType(), value);
}

static Value *emitIntDivide(EmitterContext &ctx, bool isSigned, bool remainder,
                            Value *a, Value *b) {
  llvm::IRBuilder<> &ir = ctx.builder();
  Value *zero = ir.CreateICmpEQ(b, intConst(b, 0));
  Value *unsafe = zero;
  if (isSigned) {
    unsigned bits = a->getType()->getScalarSizeInBits();
    Value *minValue = llvm::ConstantInt::get(
        a->getType(), llvm::APInt::getSignedMinValue(bits));
    Value *overflow = ir.CreateAnd(ir.CreateICmpEQ(a, minValue),
                                   ir.CreateICmpEQ(b, intConst(b, ~0ull)));
    unsafe = ir.CreateOr(zero, overflow);
  }
  Value *safe = ir.CreateSelect(unsafe, intConst(b, 1), b);
  if (remainder) {
    Value *r = isSigned ? ir.CreateSRem(a, safe) : ir.CreateURem(a, safe);
    return ir.CreateSelect(zero, a, r);
  }
  Value *q = isSigned ? ir.CreateSDiv(a, safe) : ir.CreateUDiv(a, safe);
  return ir.CreateSelect(zero, intConst(a, ~0ull), q);
}

static Value *emitShift(EmitterContext &ctx, Opcode opcode, Value *a, Value *b) {
  llvm::IRBuilder<> &ir = ctx.builder();
  unsigned bits = a->getType()->getScalarSizeInBits();
  Value *tooFar = ir.CreateICmpUGE(b, intConst(b, bits));
  Value *amount = ir.CreateSelect(tooFar, intConst(b, bits - 1), b);
  switch (opcode) {
  case Opcode::ShiftLeft:
    return ir.CreateSelect(tooFar, intConst(a, 0), ir.CreateShl(a, amount));
  case Opcode::ShiftRightLogical:
    return ir.CreateSelect(tooFar, intConst(a, 0), ir.CreateLShr(a, amount));
  default: // arithmetic: shifting by width-1 is the sign fill
    return ir.CreateAShr(a, amount);
  }
}

/// Integer power by squaring over every exponent bit (branch-free). A
/// negative exponent gives 0 except for bases 1 and -1, as in XLA.
static Value *emitIntPower(EmitterContext &ctx, bool isSigned, Value *base,
                           Value *exponent) {
  llvm::IRBuilder<> &ir = ctx.builder();
  unsigned bits = base->getType()->getScalarSizeInBits();
  Value *result = intConst(base, 1);
  Value *b = base;
  Value *e = exponent;
  for (unsigned i = 0; i < bits; ++i) {
    Value *bit = ir.CreateTrunc(e, llvm::CmpInst::makeCmpResultType(e->getType()));
    result = ir.CreateSelect(bit, ir.CreateMul(result, b), result);
    b = ir.CreateMul(b, b);
    e = ir.CreateLShr(e, intConst(e, 1));
  }
  if (!isSigned)
    return result;
  Value *negative = ir.CreateICmpSLT(exponent, intConst(exponent, 0));
  Value *isOne = ir.CreateICmpEQ(base, intConst(base, 1));
  Value *isMinusOne = ir.CreateICmpEQ(base, intConst(base, ~0ull));
  Value *odd = ir.CreateTrunc(exponent, llvm::CmpInst::makeCmpResultType(exponent->getType()));
  Value *special = ir.CreateSelect(
      isOne, intConst(base, 1),
      ir.CreateSelect(isMinusOne,
                      ir.CreateSelect(odd, intConst(base, ~0ull), intConst(base, 1)),
                      intConst(base, 0)));
  return ir.CreateSelect(negative, special, result);
}

static Value *emitFloatUnary(EmitterContext &ctx, Opcode opcode, Value *x) {
  llvm::IRBuilder<> &ir = ctx.builder();
  switch (opcode) {
  case Opcode::Abs:
    return math::fabs(ctx, x);
  case Opcode::Negate:
    return ir.CreateFNeg(x);
  case Opcode::Exp:
    return math::exp(ctx, x);
  case Opcode::Log:
    return math::log(ctx, x);
  case Opcode::Sqrt:
    return ir.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
  case Opcode::Rsqrt:
    return ir.CreateFDiv(floatConst(x, 1.0),
                         ir.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
  case Opcode::Tanh:
    return math::tanh(ctx, x);
  case Opcode::Logistic:
    return math::logistic(ctx, x);
  case Opcode::Erf:
    return math::erf(ctx, x);
  case Opcode::Sin:
    return math::sin(ctx, x);
  case Opcode::Cos:
    return math::cos(ctx, x);
  case Opcode::Floor:
    return math::floor(ctx, x);
  case Opcode::Ceil:
    return math::ceil(ctx, x);
  case Opcode::RoundNearestEven:
    return math::roundEven(ctx, x);
  case Opcode::RoundNearestAfz:
    return math::roundAwayFromZero(ctx, x);
  case Opcode::Sign: {
    // +-1 for nonzero, the input itself for +-0 and NaN.
    Value *one = math::copysign(ctx, floatConst(x, 1.0), x);
    Value *keep = ir.CreateFCmpUEQ(x, floatConst(x, 0.0));
    return ir.CreateSelect(keep, x, one);
  }
  case Opcode::IsFinite:
    return ir.CreateFCmpOLT(math::fabs(ctx, x),
                            floatConst(x, std::numeric_limits<double>::infinity()));
  case Opcode::Copy:
    return x;
  default:
    return nullptr;
  }
}

static Value *emitIntUnary(EmitterContext &ctx, Opcode opcode, bool isSigned,
                           Value *x) {
  llvm::IRBuilder<> &ir = ctx.builder();
  switch (opcode) {
  case Opcode::Abs:
    if (!isSigned)
      return x;
    return ir.CreateSelect(ir.CreateICmpSLT(x, intConst(x, 0)),
                           ir.CreateNeg(x), x);
  case Opcode::Negate:
    return ir.CreateNeg(x);
  case Opcode::Sign: {
    if (!isSigned)
      return ir.CreateZExt(ir.CreateICmpNE(x, intConst(x, 0)), x->getType());
    Value *pos = ir.CreateZExt(ir.CreateICmpSGT(x, intConst(x, 0)), x->getType());
    Value *neg = ir.CreateZExt(ir.CreateICmpSLT(x, intConst(x, 0)), x->getType());
    return ir.CreateSub(pos, neg);
  }
  case Opcode::Not:
    return ir.CreateNot(x);
  case Opcode::Copy:
    return x;
  case Opcode::IsFinite:
    return llvm::ConstantInt::getTrue(
        llvm::CmpInst::makeCmpResultType(x->getType()));
  default:
    return nullptr;
  }
}

static Value *emitFloatBinary(EmitterContext &ctx, Opcode opcode, Value *a,
                              Value *b) {
  llvm::IRBuilder<> &ir = ctx.builder();
  switch (opcode) {
  case Opcode::Add:
    return ir.CreateFAdd(a, b);
  case Opcode::Subtract:
    return ir.CreateFSub(a, b);
  case Opcode::Multiply:
    return ir.CreateFMul(a, b);
  case Opcode::Divide:
    return ir.CreateFDiv(a, b);
  case Opcode::Remainder:
    return math::fmod(ctx, a, b);
  case Opcode::Power:
    return math::pow(ctx, a, b);
  case Opcode::Maximum:
    return math::fmaximum(ctx, a, b);
  case Opcode::Minimum:
    return math::fminimum(ctx, a, b);
  case Opcode::Atan2:
    return math::atan2(ctx, a, b);
  default:
    return nullptr;
  }
}

static Value *emitIntBinary(EmitterContext &ctx, Opcode opcode, bool isSigned,
                            bool isPred, Value *a, Value *b) {
  llvm::IRBuilder<> &ir = ctx.builder();
  switch (opcode) {
  case Opcode::And:
    return ir.CreateAnd(a, b);
  case Opcode::Or:
    return ir.CreateOr(a, b);
  case Opcode::Xor:
    return ir.CreateXor(a, b);
  case Opcode::Maximum:
    return ir.CreateSelect(isSigned ? ir.CreateICmpSGT(a, b)
                                    : ir.CreateICmpUGT(a, b), a, b);
  case Opcode::Minimum:
    return ir.CreateSelect(isSigned ? ir.CreateICmpSLT(a, b)
                                    : ir.CreateICmpULT(a, b), a, b);
  default:
    break;
  }
  if (isPred)
    return nullptr; // arithmetic on pred is not lowered
  switch (opcode) {
  case Opcode::Add:
    return ir.CreateAdd(a, b);
  case Opcode::Subtract:
    return ir.CreateSub(a, b);
  case Opcode::Multiply:
    return ir.CreateMul(a, b);
  case Opcode::Divide:
    return emitIntDivide(ctx, isSigned, false, a, b);
  case Opcode::Remainder:
    return emitIntDivide(ctx, isSigned, true, a, b);
  case Opcode::Power:
    return emitIntPower(ctx, isSigned, a, b);
  case Opcode::ShiftLeft:
  case Opcode::ShiftRightArithmetic:
  case Opcode::ShiftRightLogical:
    return emitShift(ctx, opcode, a, b);
  default:
    return nullptr;
  }
}

Value *emitElementwiseOp(EmitterContext &ctx, Opcode opcode, DType dtype,
                         llvm::ArrayRef<Value *> operands) {
  bool isFloat = ir::isFloat(dtype);
  bool isSigned = ir::isSignedInt(dtype);
  llvm::IRBuilder<> &ir = ctx.builder();
  if (opcode == Opcode::Clamp) {
    Value *low = emitElementwiseOp(ctx, Opcode::Maximum, dtype,
                                   {operands[1], operands[0]});
    return low ? emitElementwiseOp(ctx, Opcode::Minimum, dtype,
                                   {low, operands[2]})
               : nullptr;
  }
  if (opcode == Opcode::Select)
    return ir.CreateSelect(operands[0], operands[1], operands[2]);
  if (operands.size() == 1) {
    if (dtype == DType::Pred && opcode != Opcode::Not &&
        opcode != Opcode::Copy && opcode != Opcode::IsFinite)
      return nullptr;
    return isFloat ? emitFloatUnary(ctx, opcode, operands[0])
                   : emitIntUnary(ctx, opcode, isSigned, operands[0]);
  }
  if (operands.size() != 2)
    return nullptr;
  return isFloat ? emitFloatBinary(ctx, opcode, operands[0], operands[1])
                 : emitIntBinary(ctx, opcode, isSigned, dtype == DType::Pred,
                                 operands[0], operands[1]);
}

namespace {

/// totalOrderKey (kiln/IR/Compare.h) of float compute values, lane by
/// lane: the bits as an integer, with a negative value's magnitude bits
/// flipped, so that a signed compare orders like IEEE totalOrder. f16 and
/// bf16 compute as f32, which widens exactly and keeps that order.
Value *totalOrderKey(EmitterContext &ctx, Value *value) {
  auto &b = ctx.builder();
  llvm::Type *type = value->getType();
  unsigned width = type->getScalarSizeInBits();
  llvm::Type *bitsType = type->getWithNewType(b.getIntNTy(width));
  Value *bits = b.CreateBitCast(value, bitsType);
  // All ones for a negative value, then without its sign bit.
  Value *sign = b.CreateAShr(bits, llvm::ConstantInt::get(bitsType, width - 1));
  Value *flip = b.CreateLShr(sign, llvm::ConstantInt::get(bitsType, 1));
  return b.CreateXor(bits, flip);
}

} // namespace

Value *emitCompare(EmitterContext &ctx, ir::ComparisonDirection direction,
                   ir::ComparisonType type, DType dtype, Value *lhs,
                   Value *rhs) {
  using Dir = ir::ComparisonDirection;
  using P = llvm::CmpInst::Predicate;
  // Rows: EQ NE LT LE GT GE; floats are ordered except NE (like C).
  static constexpr P kFloat[] = {P::FCMP_OEQ, P::FCMP_UNE, P::FCMP_OLT,
                                 P::FCMP_OLE, P::FCMP_OGT, P::FCMP_OGE};
  static constexpr P kSigned[] = {P::ICMP_EQ,  P::ICMP_NE,  P::ICMP_SLT,
                                  P::ICMP_SLE, P::ICMP_SGT, P::ICMP_SGE};
  static constexpr P kUnsigned[] = {P::ICMP_EQ,  P::ICMP_NE,  P::ICMP_ULT,
                                    P::ICMP_ULE, P::ICMP_UGT, P::ICMP_UGE};
  static_assert(size_t(Dir::GE) == 5, "table order follows ComparisonDirection");
  size_t row = size_t(direction);
  if (ir::effectiveComparisonType(type, dtype) ==
      ir::ComparisonType::TotalOrder)
    return ctx.builder().CreateCmp(kSigned[row], totalOrderKey(ctx, lhs),
                                   totalOrderKey(ctx, rhs));
  P predicate = ir::isFloat(dtype)       ? kFloat[row]
                : ir::isSignedInt(dtype) ? kSigned[row]
                                         : kUnsigned[row];
  return ctx.builder().CreateCmp(predicate, lhs, rhs);
}

Value *emitConvert(EmitterContext &ctx, DType from, DType to, Value *value) {
  llvm::IRBuilder<> &ir = ctx.builder();
  llvm::Type *scalar = ctx.computeType(to);
  llvm::Type *type = scalar;
  if (auto *vec = llvm::dyn_cast<llvm::FixedVectorType>(value->getType()))
    type = llvm::FixedVectorType::get(scalar, vec->getNumElements());
  if (value->getType() == type && ir::isFloat(from) == ir::isFloat(to) &&
      ir::isSignedInt(from) == ir::isSignedInt(to))
    return value;
  if (to == DType::Pred)
    return ir::isFloat(from) ? ir.CreateFCmpUNE(value, floatConst(value, 0.0))
                             : ir.CreateICmpNE(value, intConst(value, 0));
  bool fromSigned = ir::isSignedInt(from);
  if (ir::isFloat(from) && ir::isFloat(to))
    return ir.CreateFPCast(value, type);
  if (!ir::isFloat(from) && ir::isFloat(to))
    return fromSigned ? ir.CreateSIToFP(value, type) : ir.CreateUIToFP(value, type);
  if (!ir::isFloat(from))
    return ir.CreateIntCast(value, type, fromSigned);
  // float -> int: truncate toward zero, saturate, NaN -> 0.
  llvm::Intrinsic::ID id = ir::isSignedInt(to) ? llvm::Intrinsic::fptosi_sat
                                               : llvm::Intrinsic::fptoui_sat;
  return ir.CreateIntrinsic(id, {type, value->getType()}, {value});
}

} // namespace kiln::codegen
