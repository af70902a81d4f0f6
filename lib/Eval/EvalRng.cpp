//===- EvalRng.cpp - rng: uniform and normal values from a counter --------===//
//
// Element i is a function of (seed, i) only (kiln/Support/CounterRandom.h),
// computed in the dtype's compute type (f32 for f16/bf16/f32, f64 for f64)
// with the same operations, in the same order, as the code generator
// (lib/CodeGen/RngEmitter.cpp): uniform results agree bit for bit; normal
// ones within the tolerance of kiln's log and cos against libm's.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"

#include "kiln/Support/CounterRandom.h"

#include <cmath>
#include <numbers>

namespace kiln::eval::detail {

namespace {

/// The unit value of `bits` in compute type C (float or double).
template <typename C> C unitValue(uint64_t bits) {
  if constexpr (std::is_same_v<C, double>)
    return random::unitDouble(bits);
  else
    return random::unitFloat(bits);
}

/// a + (b - a) * u: uniform in [a, b) (rounding may give b when b - a is
/// large against a's precision, as any such formula can).
template <typename C> C uniformElement(uint64_t seed, int64_t i, C a, C b) {
  C u = unitValue<C>(random::counterBits(seed, random::uniformCounter(i)));
  return a + (b - a) * u;
}

/// Box-Muller: sqrt(-2 log(1 - u1)) * cos(2 pi u2), scaled by sigma and
/// shifted by mu. 1 - u1 lies in (0, 1], so the log is finite.
template <typename C> C normalElement(uint64_t seed, int64_t i, C mu, C sigma) {
  C u1 = unitValue<C>(random::counterBits(seed, random::normalCounter(i, 0)));
  C u2 = unitValue<C>(random::counterBits(seed, random::normalCounter(i, 1)));
  C radius = std::sqrt(C(-2) * std::log(C(1) - u1));
  C z = radius * std::cos(C(2 * std::numbers::pi) * u2);
  return mu + sigma * z;
}

} // namespace

Expected<Literal> evalRng(const Instruction &inst, const Operands &ops) {
  if (ops.size() != 2 || ops[0]->numElements() != 1 ||
      ops[1]->numElements() != 1)
    return instructionError(inst, "needs two scalar operands");
  DType type = inst.shape().dtype();
  for (const Literal *operand : ops)
    if (Error e = expectDType(inst, *operand, type))
      return e;
  uint64_t seed = uint64_t(inst.attrs().seed);
  bool normal = inst.attrs().distribution == ir::RngDistribution::Normal;
  Literal out(inst.shape());
  Error status = visitDType(type, [&](auto tag) -> Error {
    constexpr DType kType = decltype(tag)::value;
    using C = ComputeT<kType>;
    if constexpr (!kIsFloat<C>) {
      return unsupportedType(inst, kType);
    } else {
      C first = load<kType>(*ops[0], 0), second = load<kType>(*ops[1], 0);
      for (int64_t i = 0, n = out.numElements(); i < n; ++i)
        store<kType>(out, i,
                     normal ? normalElement<C>(seed, i, first, second)
                            : uniformElement<C>(seed, i, first, second));
      return Error::success();
    }
  });
  if (status)
    return status;
  return out;
}

} // namespace kiln::eval::detail
