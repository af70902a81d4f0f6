//===- EvalConvert.cpp - Element type conversion --------------------------===//
//
// convert: float->int truncates toward zero and saturates (NaN -> 0),
// int->int wraps, anything->pred is x != 0, pred->anything is 0/1. Narrowing
// to f16/bf16 goes through an f32 rounded to odd so that the final rounding
// is correct (no double-rounding error) for f64 and wide integer sources.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"
#include "EvalScalarOps.h"
#include "kiln/Support/CheckedArithmetic.h"

#include <cmath>
#include <limits>

namespace kiln::eval::detail {

namespace {

/// Rounds to f32 toward zero and sets the last mantissa bit when inexact;
/// a later rounding to a format with <= 22 mantissa bits is then exact-once.
float toFloatRoundToOdd(double value) {
  if (!std::isfinite(value))
    return float(value);
  float rounded = narrowToFloat(value);
  if (double(rounded) == value)
    return rounded;
  if (std::fabs(double(rounded)) > std::fabs(value))
    rounded = std::nextafter(rounded, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &rounded, sizeof bits);
  bits |= 1;
  std::memcpy(&rounded, &bits, sizeof bits);
  return rounded;
}

template <DType kFrom, DType kTo>
ComputeT<kTo> convertValue(ComputeT<kFrom> x) {
  using From = ComputeT<kFrom>;
  using To = ComputeT<kTo>;
  if constexpr (kIsBool<To>) {
    return x != From(0);
  } else if constexpr (kIsBool<From>) {
    return x ? To(1) : To(0);
  } else if constexpr (kIsInt<To>) {
    if constexpr (kIsFloat<From>)
      return saturatingCast<To>(double(x));
    else
      return To(x); // int->int conversion is modular in C++20
  } else if constexpr (kTo == DType::F16 || kTo == DType::BF16) {
    if constexpr (std::is_same_v<From, float>)
      return x; // f32 (or f16/bf16 widened) narrows with one rounding
    else
      return toFloatRoundToOdd(double(x));
  } else if constexpr (std::is_same_v<To, float> &&
                       std::is_same_v<From, double>) {
    return narrowToFloat(x);
  } else {
    return To(x);
  }
}

} // namespace

Expected<Literal> evalConvert(const Instruction &inst, const Literal &in) {
  if (inst.shape().isTuple() || in.shape().dims() != inst.shape().dims())
    return instructionError(
        inst, fmt::format("cannot convert {} to {}", in.shape().toString(),
                          inst.shape().toString()));
  Literal out(inst.shape());
  Error error = visitDType(in.shape().dtype(), [&](auto fromTag) -> Error {
    constexpr DType kFrom = decltype(fromTag)::value;
    return visitDType(out.shape().dtype(), [&](auto toTag) -> Error {
      constexpr DType kTo = decltype(toTag)::value;
      for (int64_t i = 0, n = out.numElements(); i < n; ++i)
        store<kTo>(out, i, convertValue<kFrom, kTo>(load<kFrom>(in, i)));
      return Error::success();
    });
  });
  if (error)
    return error;
  return out;
}

} // namespace kiln::eval::detail
