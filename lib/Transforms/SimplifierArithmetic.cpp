//===- SimplifierArithmetic.cpp - Arithmetic identities -------------------===//
//
// Identities that hold exactly for every input, including NaN, infinities,
// signed zeros and integer overflow. Floating-point rules are chosen by
// bit pattern: x + (-0.0) == x for every x, but x + (+0.0) is +0.0 for
// x = -0.0, so only the former is rewritten; likewise x - (+0.0) == x but
// not x - (-0.0). No rule reassociates floats.
//
//===----------------------------------------------------------------------===//
#include "SimplifierRules.h"
#include "TransformUtils.h"

namespace kiln::transforms {

namespace {
using ir::DType;
using ir::Instruction;
using ir::Opcode;

/// The element of `dtype` that leaves x unchanged in x + e (and e + x).
SplatValue additiveIdentity(DType dtype) {
  return ir::isFloat(dtype) ? SplatValue::NegativeZero : SplatValue::Zero;
}

/// Pred arithmetic is logical, not numeric; keep away from it.
bool isNumeric(const Instruction &instruction) {
  return instruction.shape().dtype() != DType::Pred;
}

/// `keep` if the other operand of a binary op is the splat `value`.
Instruction *ifOtherIs(Instruction &op, size_t keep, SplatValue value) {
  return isSplat(op.operand(1 - keep), value) ? op.operand(keep) : nullptr;
}

/// x + e, e + x -> x for the additive identity e (integers 0, floats -0.0).
Instruction *addIdentity(Instruction &add) {
  if (!isNumeric(add))
    return nullptr;
  SplatValue identity = additiveIdentity(add.shape().dtype());
  if (Instruction *x = ifOtherIs(add, 0, identity))
    return x;
  return ifOtherIs(add, 1, identity);
}

/// x - 0 -> x (floats: +0.0 only; x - (-0.0) turns -0.0 into +0.0).
Instruction *subtractZero(Instruction &subtract) {
  if (!isNumeric(subtract))
    return nullptr;
  return ifOtherIs(subtract, 0, SplatValue::Zero);
}

/// x * 1, 1 * x -> x: exact for every float (NaN stays NaN) and integer.
Instruction *multiplyOne(Instruction &multiply) {
  if (!isNumeric(multiply))
    return nullptr;
  if (Instruction *x = ifOtherIs(multiply, 0, SplatValue::One))
    return x;
  return ifOtherIs(multiply, 1, SplatValue::One);
}

/// Integer x * 0, 0 * x -> the zero. Not for floats: NaN * 0 is NaN and
/// -1 * 0 is -0.0.
Instruction *multiplyIntegerZero(Instruction &multiply) {
  if (!ir::isInteger(multiply.shape().dtype()))
    return nullptr;
  for (size_t i = 0; i < 2; ++i)
    if (isSplat(multiply.operand(i), SplatValue::Zero))
      return multiply.operand(i);
  return nullptr;
}

/// x / 1 -> x, exact for floats and integers (INT_MIN / 1 included).
Instruction *divideOne(Instruction &divide) {
  if (!isNumeric(divide))
    return nullptr;
  return ifOtherIs(divide, 0, SplatValue::One);
}

/// op(x, x) -> x for idempotent ops (max(NaN, NaN) is NaN, x & x is x).
Instruction *idempotent(Instruction &op) {
  return op.operand(0) == op.operand(1) ? op.operand(0) : nullptr;
}

/// f(f(x)) -> x for involutions: negate (exact, INT_MIN wraps back) and
/// not (logical for pred, bitwise for integers).
Instruction *involution(Instruction &op) {
  Instruction *inner = op.operand(0);
  return inner->opcode() == op.opcode() ? inner->operand(0) : nullptr;
}

/// convert to the operand's own type, and copy: the operand itself.
Instruction *sameValue(Instruction &op) {
  Instruction *x = op.operand(0);
  return x->shape() == op.shape() ? x : nullptr;
}

/// select(true, a, b) -> a; select(false, a, b) -> b; select(p, a, a) -> a.
Instruction *selectKnown(Instruction &select) {
  Instruction *onTrue = select.operand(1), *onFalse = select.operand(2);
  if (onTrue == onFalse)
    return onTrue;
  if (isSplat(select.operand(0), SplatValue::One))
    return onTrue;
  if (isSplat(select.operand(0), SplatValue::Zero))
    return onFalse;
  return nullptr;
}

/// reduce-precision to widths at least the dtype's own -> x: rounding to
/// the mantissa it has and narrowing to the exponent range it has change no
/// bit (docs/hlo.md).
Instruction *reducePrecisionNoOp(Instruction &reduce) {
  std::optional<ir::FloatFormat> format =
      ir::floatFormat(reduce.shape().dtype());
  const ir::Attributes &a = reduce.attrs();
  if (!format || a.exponentBits < format->exponentBits ||
      a.mantissaBits < format->mantissaBits)
    return nullptr;
  return reduce.operand(0);
}

constexpr RuleRow kArithmeticRules[] = {
    {Opcode::Add, addIdentity},
    {Opcode::Subtract, subtractZero},
    {Opcode::Multiply, multiplyOne},
    {Opcode::Multiply, multiplyIntegerZero},
    {Opcode::Divide, divideOne},
    {Opcode::Maximum, idempotent},
    {Opcode::Minimum, idempotent},
    {Opcode::And, idempotent},
    {Opcode::Or, idempotent},
    {Opcode::Negate, involution},
    {Opcode::Not, involution},
    {Opcode::Convert, sameValue},
    {Opcode::Copy, sameValue},
    {Opcode::Select, selectKnown},
    {Opcode::ReducePrecision, reducePrecisionNoOp},
};
} // namespace

std::span<const RuleRow> arithmeticRules() { return kArithmeticRules; }

} // namespace kiln::transforms
