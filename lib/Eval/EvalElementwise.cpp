//===- EvalElementwise.cpp - Unary, binary and ternary elementwise ops ----===//
//
// Each opcode maps, through a table generated from Opcodes.def, to a kernel
// instantiated from its scalar struct in EvalScalarOps.h; the kernel
// dispatches on the element type once and loops over elements. Rank-0
// operands broadcast, so clamp and select may take scalar bounds or
// predicates as XLA allows.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"
#include "EvalScalarOps.h"

#include "kiln/IR/Compare.h"
#include "kiln/IR/Instruction.h"

#include <cstring>
#include <type_traits>

namespace kiln::eval::detail {

using ir::ComparisonDirection;
using ir::Opcode;

// A struct per opcode, declared so that the generated kernel table can name
// every row's (EvalScalarOps.h defines those of the generic rows).
#define KILN_OPCODE(Enumerator, ...) struct Enumerator##Op;
#include "kiln/IR/Opcodes.def"

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


/// The totalOrderKey (Compare.h) of float element `i` of `literal`: its
/// stored bits, so f16 and bf16 order by their own bits too.
template <DType D> auto totalOrderKeyAt(const Literal &literal, int64_t i) {
  using Storage = typename DTypeTraits<D>::Storage;
  using Bits = std::conditional_t<
      sizeof(Storage) == 2, uint16_t,
      std::conditional_t<sizeof(Storage) == 4, uint32_t, uint64_t>>;
  static_assert(sizeof(Bits) == sizeof(Storage));
  Bits bits;
  std::memcpy(&bits, literal.data<Storage>() + i, sizeof bits);
  return ir::totalOrderKey(bits);
}

Error runCompare(const Instruction &inst, const Operands &ops, Literal &out) {
  const Literal &lhs = *ops[0], &rhs = *ops[1];
  if (Error e = expectDType(inst, out, DType::Pred))
    return e;
  if (Error e = expectDType(inst, rhs, lhs.shape().dtype()))
    return e;
  ComparisonDirection dir = inst.attrs().direction;
  bool totalOrder =
      ir::effectiveComparisonType(inst.attrs().comparisonType,
                                  lhs.shape().dtype()) ==
      ir::ComparisonType::TotalOrder;
  return visitDType(lhs.shape().dtype(), [&](auto tag) -> Error {
    constexpr DType kType = decltype(tag)::value;
    for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
      int64_t a = operandIndex(lhs, i), b = operandIndex(rhs, i);
      bool holds;
      if constexpr (kIsFloat<ComputeT<kType>>)
        holds = totalOrder
                    ? ir::compareHolds(dir, totalOrderKeyAt<kType>(lhs, a),
                                       totalOrderKeyAt<kType>(rhs, b))
                    : ir::compareHolds(dir, load<kType>(lhs, a),
                                       load<kType>(rhs, b));
      else
        holds = ir::compareHolds(dir, load<kType>(lhs, a), load<kType>(rhs, b));
      store<DType::Pred>(out, i, holds);
    }
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

/// The opcodes whose result dtype or operands need more than one scalar
/// function of the operands' dtype.
const KernelEntry kSpecialKernels[] = {
    {Opcode::IsFinite, runIsFinite},
    {Opcode::Convert, runConvert},
    {Opcode::Compare, runCompare},
    {Opcode::Select, runSelect},
    {Opcode::Clamp, runClamp},
    {Opcode::ReducePrecision, runReducePrecision},
};

// Every other elementwise row of Opcodes.def (unary or binary, result of the
// operand's dtype) runs the scalar struct named after its enumerator (Exp:
// ExpOp in EvalScalarOps.h); only those structs are instantiated.
template <typename Op, ir::OpcodeKind Kind, ir::ResultDType Result>
constexpr Kernel genericKernel() {
  if constexpr (Result != ir::ResultDType::Operand ||
                requires { Op::kOwnKernel; })
    return nullptr;
  else if constexpr (Kind == ir::OpcodeKind::ElementwiseUnary)
    return runUnary<Op>;
  else if constexpr (Kind == ir::OpcodeKind::ElementwiseBinary)
    return runBinary<Op>;
  else
    return nullptr;
}

const KernelEntry kGenericKernels[] = {
#define KILN_OPCODE(Enumerator, Spelling, Arity, Kind, Accepts, Result, ...)   \
  {Opcode::Enumerator, genericKernel<Enumerator##Op, ir::OpcodeKind::Kind,     \
                                     ir::ResultDType::Result>()},
#include "kiln/IR/Opcodes.def"
};

Kernel kernelFor(Opcode opcode) {
  for (const KernelEntry &entry : kSpecialKernels)
    if (entry.opcode == opcode)
      return entry.kernel;
  for (const KernelEntry &entry : kGenericKernels)
    if (entry.opcode == opcode)
      return entry.kernel;
  return nullptr;
}

} // namespace

Expected<Literal> evalElementwise(const Instruction &inst, const Operands &ops) {
  if (inst.shape().isTuple())
    return instructionError(inst, "elementwise result must be an array");
  if (Error e = checkElementwiseShapes(inst, ops))
    return e;
  Kernel kernel = kernelFor(inst.opcode());
  if (!kernel)
    return instructionError(inst, "not an elementwise opcode");
  Literal out(inst.shape());
  if (Error e = kernel(inst, ops, out))
    return e;
  return out;
}

} // namespace kiln::eval::detail
