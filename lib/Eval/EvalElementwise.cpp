//===- EvalElementwise.cpp - Unary, binary and ternary elementwise ops ----===//
//
// Each opcode maps, through a table, to a kernel instantiated from its scalar
// struct in EvalScalarOps.h; the kernel dispatches on the element type once
// and loops over elements. Rank-0 operands broadcast, so clamp and select
// may take scalar bounds or predicates as XLA allows.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"
#include "EvalScalarOps.h"

#include "kiln/IR/Instruction.h"

namespace kiln::eval::detail {

using ir::ComparisonDirection;
using ir::Opcode;

namespace {

/// Element `i` of the result reads element `i` of a full operand, or the
/// only element of a rank-0 one.
int64_t operandIndex(const Literal &operand, int64_t i) {
  return operand.shape().rank() == 0 ? 0 : i;
}

/// Every operand is rank 0 or has the result's dimensions.
Error checkElementwiseShapes(const Instruction &inst, const Operands &ops) {
  for (const Literal *operand : ops) {
    const auto &dims = operand->shape().dims();
    if (operand->shape().rank() != 0 && dims != inst.shape().dims())
      return instructionError(
          inst, fmt::format("operand shape {} does not match result shape {}",
                            operand->shape().toString(),
                            inst.shape().toString()));
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

using Kernel = Error (*)(const Instruction &, const Operands &, Literal &);

template <typename Op>
Error runUnary(const Instruction &inst, const Operands &ops, Literal &out) {
  const Literal &in = *ops[0];
  if (Error e = expectDType(inst, in, out.shape().dtype()))
    return e;
  return visitDType(in.shape().dtype(), [&](auto tag) -> Error {
    constexpr DType kType = decltype(tag)::value;
    using C = ComputeT<kType>;
    if constexpr (!Op::template supports<C>) {
      return unsupportedType(inst, kType);
    } else {
      for (int64_t i = 0, n = out.numElements(); i < n; ++i)
        store<kType>(out, i, Op::template apply<C>(load<kType>(in, i)));
      return Error::success();
    }
  });
}

Error runIsFinite(const Instruction &inst, const Operands &ops, Literal &out) {
  if (Error e = expectDType(inst, out, DType::Pred))
    return e;
  const Literal &in = *ops[0];
  return visitDType(in.shape().dtype(), [&](auto tag) -> Error {
    constexpr DType kType = decltype(tag)::value;
    using C = ComputeT<kType>;
    if constexpr (!kIsFloat<C>) {
      return unsupportedType(inst, kType);
    } else {
      for (int64_t i = 0, n = out.numElements(); i < n; ++i)
        store<DType::Pred>(out, i, std::isfinite(load<kType>(in, i)));
      return Error::success();
    }
  });
}

Error runConvert(const Instruction &inst, const Operands &ops, Literal &out) {
  Expected<Literal> converted = evalConvert(inst, *ops[0]);
  if (!converted)
    return converted.takeError();
  out = std::move(*converted);
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Binary and ternary
//===----------------------------------------------------------------------===//

template <typename Op>
Error runBinary(const Instruction &inst, const Operands &ops, Literal &out) {
  const Literal &lhs = *ops[0], &rhs = *ops[1];
  DType type = out.shape().dtype();
  if (Error e = expectDType(inst, lhs, type))
    return e;
  if (Error e = expectDType(inst, rhs, type))
    return e;
  return visitDType(type, [&](auto tag) -> Error {
    constexpr DType kType = decltype(tag)::value;
    using C = ComputeT<kType>;
    if constexpr (!Op::template supports<C>) {
      return unsupportedType(inst, kType);
    } else {
      for (int64_t i = 0, n = out.numElements(); i < n; ++i)
        store<kType>(out, i,
                     Op::template apply<C>(
                         load<kType>(lhs, operandIndex(lhs, i)),
                         load<kType>(rhs, operandIndex(rhs, i))));
      return Error::success();
    }
  });
}

/// IEEE comparisons: every ordered comparison with NaN is false, NE is true.
template <typename C> bool compareValues(ComparisonDirection dir, C a, C b) {
  switch (dir) {
  case ComparisonDirection::EQ: return a == b;
  case ComparisonDirection::NE: return a != b;
  case ComparisonDirection::LT: return a < b;
  case ComparisonDirection::LE: return a <= b;
  case ComparisonDirection::GT: return a > b;
  case ComparisonDirection::GE: return a >= b;
  }
  return false;
}

Error runCompare(const Instruction &inst, const Operands &ops, Literal &out) {
  const Literal &lhs = *ops[0], &rhs = *ops[1];
  if (Error e = expectDType(inst, out, DType::Pred))
    return e;
  if (Error e = expectDType(inst, rhs, lhs.shape().dtype()))
    return e;
  ComparisonDirection dir = inst.attrs().direction;
  return visitDType(lhs.shape().dtype(), [&](auto tag) -> Error {
    constexpr DType kType = decltype(tag)::value;
    for (int64_t i = 0, n = out.numElements(); i < n; ++i)
      store<DType::Pred>(out, i,
                         compareValues(dir,
                                       load<kType>(lhs, operandIndex(lhs, i)),
                                       load<kType>(rhs, operandIndex(rhs, i))));
    return Error::success();
  });
}

Error runSelect(const Instruction &inst, const Operands &ops, Literal &out) {
  const Literal &pred = *ops[0], &onTrue = *ops[1], &onFalse = *ops[2];
  if (Error e = expectDType(inst, pred, DType::Pred))
    return e;
  for (const Literal *branch : {&onTrue, &onFalse})
    if (Error e = expectDType(inst, *branch, out.shape().dtype()))
      return e;
  for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
    bool choose = load<DType::Pred>(pred, operandIndex(pred, i));
    const Literal &from = choose ? onTrue : onFalse;
    copyElement(out, i, from, operandIndex(from, i));
  }
  return Error::success();
}

/// clamp(lo, x, hi) = min(max(x, lo), hi), so NaN propagates like maximum.
Error runClamp(const Instruction &inst, const Operands &ops, Literal &out) {
  DType type = out.shape().dtype();
  for (const Literal *operand : ops)
    if (Error e = expectDType(inst, *operand, type))
      return e;
  const Literal &lo = *ops[0], &x = *ops[1], &hi = *ops[2];
  return visitDType(type, [&](auto tag) -> Error {
    constexpr DType kType = decltype(tag)::value;
    using C = ComputeT<kType>;
    for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
      C raised = MaximumOp::apply<C>(load<kType>(x, operandIndex(x, i)),
                                     load<kType>(lo, operandIndex(lo, i)));
      store<kType>(out, i,
                   MinimumOp::apply<C>(raised,
                                       load<kType>(hi, operandIndex(hi, i))));
    }
    return Error::success();
  });
}

struct KernelEntry {
  Opcode opcode;
  Kernel kernel;
};

const KernelEntry kKernels[] = {
    {Opcode::Abs, runUnary<AbsOp>},
    {Opcode::Negate, runUnary<NegateOp>},
    {Opcode::Exp, runUnary<ExpOp>},
    {Opcode::Log, runUnary<LogOp>},
    {Opcode::Sqrt, runUnary<SqrtOp>},
    {Opcode::Rsqrt, runUnary<RsqrtOp>},
    {Opcode::Tanh, runUnary<TanhOp>},
    {Opcode::Logistic, runUnary<LogisticOp>},
    {Opcode::Erf, runUnary<ErfOp>},
    {Opcode::Sin, runUnary<SinOp>},
    {Opcode::Cos, runUnary<CosOp>},
    {Opcode::Floor, runUnary<FloorOp>},
    {Opcode::Ceil, runUnary<CeilOp>},
    {Opcode::RoundNearestEven, runUnary<RoundNearestEvenOp>},
    {Opcode::RoundNearestAfz, runUnary<RoundNearestAfzOp>},
    {Opcode::Sign, runUnary<SignOp>},
    {Opcode::Not, runUnary<NotOp>},
    {Opcode::IsFinite, runIsFinite},
    {Opcode::Convert, runConvert},
    {Opcode::Copy, runUnary<CopyOp>},
    {Opcode::Add, runBinary<AddOp>},
    {Opcode::Subtract, runBinary<SubtractOp>},
    {Opcode::Multiply, runBinary<MultiplyOp>},
    {Opcode::Divide, runBinary<DivideOp>},
    {Opcode::Remainder, runBinary<RemainderOp>},
    {Opcode::Power, runBinary<PowerOp>},
    {Opcode::Maximum, runBinary<MaximumOp>},
    {Opcode::Minimum, runBinary<MinimumOp>},
    {Opcode::Atan2, runBinary<Atan2Op>},
    {Opcode::And, runBinary<AndOp>},
    {Opcode::Or, runBinary<OrOp>},
    {Opcode::Xor, runBinary<XorOp>},
    {Opcode::ShiftLeft, runBinary<ShiftLeftOp>},
    {Opcode::ShiftRightArithmetic, runBinary<ShiftRightArithmeticOp>},
    {Opcode::ShiftRightLogical, runBinary<ShiftRightLogicalOp>},
    {Opcode::Compare, runCompare},
    {Opcode::Select, runSelect},
    {Opcode::Clamp, runClamp},
};

} // namespace

Expected<Literal> evalElementwise(const Instruction &inst, const Operands &ops) {
  if (inst.shape().isTuple())
    return instructionError(inst, "elementwise result must be an array");
  if (Error e = checkElementwiseShapes(inst, ops))
    return e;
  for (const KernelEntry &entry : kKernels) {
    if (entry.opcode != inst.opcode())
      continue;
    Literal out(inst.shape());
    if (Error e = entry.kernel(inst, ops, out))
      return e;
    return out;
  }
  return instructionError(inst, "not an elementwise opcode");
}

} // namespace kiln::eval::detail
