//===- EvalScalarOps.h - Scalar semantics of elementwise opcodes -*- C++ -*-===//
//
// One struct per operation: `supports<C>` says which compute types it accepts
// and `apply` computes one element. Integer arithmetic wraps through unsigned
// types so that nothing is undefined behaviour; the rules for division by
// zero, INT_MIN / -1, over-wide shifts and NaN follow XLA (docs/hlo.md).
// Reductions reuse the binary structs as their combiners.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_EVAL_EVALSCALAROPS_H
#define KILN_LIB_EVAL_EVALSCALAROPS_H

#include "EvalInternal.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::eval::detail {

/// An unsigned type at least as wide as `C` and `unsigned`, so that integer
/// promotion never turns modular arithmetic into signed overflow.
template <typename C>
using WideUnsigned = std::make_unsigned_t<std::common_type_t<C, unsigned>>;

template <typename C> C wrapAdd(C a, C b) {
  return C(WideUnsigned<C>(a) + WideUnsigned<C>(b));
}
template <typename C> C wrapSub(C a, C b) {
  return C(WideUnsigned<C>(a) - WideUnsigned<C>(b));
}
template <typename C> C wrapMul(C a, C b) {
  return C(WideUnsigned<C>(a) * WideUnsigned<C>(b));
}

struct FloatOnly {
  template <typename C> static constexpr bool supports = kIsFloat<C>;
};
struct Numeric {
  template <typename C> static constexpr bool supports = !kIsBool<C>;
};
struct AnyType {
  template <typename C> static constexpr bool supports = true;
};
struct IntOnly {
  template <typename C> static constexpr bool supports = kIsInt<C>;
};
struct IntOrBool {
  template <typename C> static constexpr bool supports = !kIsFloat<C>;
};

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

struct AbsOp : Numeric {
  template <typename C> static C apply(C x) {
    if constexpr (kIsFloat<C>)
      return std::fabs(x);
    else if constexpr (std::is_unsigned_v<C>)
      return x;
    else
      return x < 0 ? wrapSub(C(0), x) : x; // abs(INT_MIN) == INT_MIN
  }
};
struct NegateOp : Numeric {
  template <typename C> static C apply(C x) {
    if constexpr (kIsFloat<C>)
      return -x;
    else
      return wrapSub(C(0), x);
  }
};
struct ExpOp : FloatOnly {
  template <typename C> static C apply(C x) { return std::exp(x); }
};
struct LogOp : FloatOnly {
  template <typename C> static C apply(C x) { return std::log(x); }
};
struct SqrtOp : FloatOnly {
  template <typename C> static C apply(C x) { return std::sqrt(x); }
};
struct RsqrtOp : FloatOnly {
  template <typename C> static C apply(C x) { return C(1) / std::sqrt(x); }
};
struct TanhOp : FloatOnly {
  template <typename C> static C apply(C x) { return std::tanh(x); }
};
struct LogisticOp : FloatOnly {
  template <typename C> static C apply(C x) {
    return C(1) / (C(1) + std::exp(-x));
  }
};
struct ErfOp : FloatOnly {
  template <typename C> static C apply(C x) { return std::erf(x); }
};
struct SinOp : FloatOnly {
  template <typename C> static C apply(C x) { return std::sin(x); }
};
struct CosOp : FloatOnly {
  template <typename C> static C apply(C x) { return std::cos(x); }
};
struct FloorOp : Numeric {
  template <typename C> static C apply(C x) {
    if constexpr (kIsFloat<C>)
      return std::floor(x);
    else
      return x;
  }
};
struct CeilOp : Numeric {
  template <typename C> static C apply(C x) {
    if constexpr (kIsFloat<C>)
      return std::ceil(x);
    else
      return x;
  }
};
struct RoundNearestAfzOp : Numeric {
  template <typename C> static C apply(C x) {
    if constexpr (kIsFloat<C>)
      return std::round(x);
    else
      return x;
  }
};
struct RoundNearestEvenOp : Numeric {
  // Written without the FP environment: round half away, then step back
  // toward zero when that landed on an odd value from an exact tie.
  template <typename C> static C apply(C x) {
    if constexpr (kIsFloat<C>) {
      C rounded = std::round(x);
      if (std::fabs(x - std::trunc(x)) == C(0.5) &&
          std::fmod(rounded, C(2)) != 0)
        rounded -= std::copysign(C(1), x);
      return rounded;
    } else {
      return x;
    }
  }
};
struct SignOp : Numeric {
  template <typename C> static C apply(C x) {
    if constexpr (kIsFloat<C>) {
      if (std::isnan(x) || x == 0)
        return x;
      return x > 0 ? C(1) : C(-1);
    } else if constexpr (std::is_unsigned_v<C>) {
      return x == 0 ? C(0) : C(1);
    } else {
      return x > 0 ? C(1) : (x < 0 ? C(-1) : C(0));
    }
  }
};
struct NotOp : IntOrBool {
  template <typename C> static C apply(C x) {
    if constexpr (kIsBool<C>)
      return !x;
    else
      return C(~WideUnsigned<C>(x));
  }
};
struct CopyOp : AnyType {
  template <typename C> static C apply(C x) { return x; }
};
/// reduce-precision needs its attributes and the value's bits: it runs its
/// own kernel (EvalReducePrecision.cpp), never a scalar function, so the
/// generic kernels are not instantiated for it (kOwnKernel).
struct ReducePrecisionOp {
  static constexpr bool kOwnKernel = true;
};

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

/// pred add/multiply behave as or/and, like XLA.
struct AddOp : AnyType {
  template <typename C> static C apply(C a, C b) {
    if constexpr (kIsBool<C>)
      return a || b;
    else if constexpr (kIsFloat<C>)
      return a + b;
    else
      return wrapAdd(a, b);
  }
};
struct SubtractOp : Numeric {
  template <typename C> static C apply(C a, C b) {
    if constexpr (kIsFloat<C>)
      return a - b;
    else
      return wrapSub(a, b);
  }
};
struct MultiplyOp : AnyType {
  template <typename C> static C apply(C a, C b) {
    if constexpr (kIsBool<C>)
      return a && b;
    else if constexpr (kIsFloat<C>)
      return a * b;
    else
      return wrapMul(a, b);
  }
};
struct DivideOp : Numeric {
  template <typename C> static C apply(C a, C b) {
    if constexpr (kIsFloat<C>) {
      return a / b;
    } else {
      if (b == 0)
        return C(~WideUnsigned<C>(0)); // -1, or all bits set when unsigned
      if constexpr (std::is_signed_v<C>)
        if (a == std::numeric_limits<C>::min() && b == C(-1))
          return a;
      return C(a / b);
    }
  }
};
struct RemainderOp : Numeric {
  template <typename C> static C apply(C a, C b) {
    if constexpr (kIsFloat<C>) {
      return std::fmod(a, b);
    } else {
      if (b == 0)
        return a;
      if constexpr (std::is_signed_v<C>)
        if (a == std::numeric_limits<C>::min() && b == C(-1))
          return C(0);
      return C(a % b);
    }
  }
};
struct PowerOp : Numeric {
  template <typename C> static C apply(C a, C b) {
    if constexpr (kIsFloat<C>) {
      return std::pow(a, b);
    } else {
      // A negative exponent gives 1/a^|b|, which truncates to 0 unless
      // |a| == 1.
      if constexpr (std::is_signed_v<C>)
        if (b < 0)
          return a == 1 ? C(1) : (a == -1 ? ((b & 1) ? C(-1) : C(1)) : C(0));
      C result = 1, base = a;
      for (auto exponent = WideUnsigned<C>(b); exponent; exponent >>= 1) {
        if (exponent & 1)
          result = wrapMul(result, base);
        base = wrapMul(base, base);
      }
      return result;
    }
  }
};
/// maximum/minimum propagate NaN (either operand) like XLA.
struct MaximumOp : AnyType {
  template <typename C> static C apply(C a, C b) {
    if constexpr (kIsFloat<C>)
      if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) ? a : b;
    return a < b ? b : a;
  }
};
struct MinimumOp : AnyType {
  template <typename C> static C apply(C a, C b) {
    if constexpr (kIsFloat<C>)
      if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) ? a : b;
    return b < a ? b : a;
  }
};
struct Atan2Op : FloatOnly {
  template <typename C> static C apply(C a, C b) { return std::atan2(a, b); }
};
struct AndOp : IntOrBool {
  template <typename C> static C apply(C a, C b) {
    if constexpr (kIsBool<C>)
      return a && b;
    else
      return C(a & b);
  }
};
struct OrOp : IntOrBool {
  template <typename C> static C apply(C a, C b) {
    if constexpr (kIsBool<C>)
      return a || b;
    else
      return C(a | b);
  }
};
struct XorOp : IntOrBool {
  template <typename C> static C apply(C a, C b) {
    if constexpr (kIsBool<C>)
      return a != b;
    else
      return C(a ^ b);
  }
};

/// The shift amount is read as unsigned, so negative amounts are "too wide".
template <typename C> WideUnsigned<C> shiftAmount(C b) {
  return WideUnsigned<C>(std::make_unsigned_t<C>(b));
}
inline constexpr unsigned kBitsPerByte = 8;

struct ShiftLeftOp : IntOnly {
  template <typename C> static C apply(C a, C b) {
    auto amount = shiftAmount(b);
    if (amount >= sizeof(C) * kBitsPerByte)
      return C(0);
    return C(WideUnsigned<C>(std::make_unsigned_t<C>(a)) << amount);
  }
};
struct ShiftRightArithmeticOp : IntOnly {
  template <typename C> static C apply(C a, C b) {
    using Signed = std::make_signed_t<C>;
    auto value = Signed(a);
    auto amount = shiftAmount(b);
    if (amount >= sizeof(C) * kBitsPerByte)
      return C(value < 0 ? Signed(-1) : Signed(0));
    return C(Signed(value >> amount));
  }
};
struct ShiftRightLogicalOp : IntOnly {
  template <typename C> static C apply(C a, C b) {
    auto amount = shiftAmount(b);
    if (amount >= sizeof(C) * kBitsPerByte)
      return C(0);
    return C(std::make_unsigned_t<C>(a) >> amount);
  }
};

/// double -> float with IEEE round-to-nearest overflow to +-inf, spelled out
/// because a C++ conversion of an out-of-range double is undefined.
inline float narrowToFloat(double value) {
  constexpr double kRoundsToInf = 0x1.ffffffp127; // FLT_MAX + half an ulp
  constexpr double kFloatMax = 0x1.fffffep127;
  if (std::fabs(value) >= kRoundsToInf)
    return value < 0 ? -std::numeric_limits<float>::infinity()
                     : std::numeric_limits<float>::infinity();
  if (std::fabs(value) > kFloatMax)
    return value < 0 ? -float(kFloatMax) : float(kFloatMax);
  return float(value);
}

/// acc + a * b for dot and convolution: floats accumulate in f64 and round
/// once at the end, integers wrap, pred is or-of-and.
template <typename C> struct Accumulator {
  using Acc = std::conditional_t<kIsFloat<C>, double, C>;
  static C finish(Acc acc) {
    if constexpr (std::is_same_v<C, float>)
      return narrowToFloat(acc);
    else
      return acc;
  }
  static Acc mulAdd(Acc acc, C a, C b) {
    if constexpr (kIsFloat<C>)
      return acc + double(a) * double(b);
    else if constexpr (kIsBool<C>)
      return acc || (a && b);
    else
      return wrapAdd(acc, wrapMul(a, b));
  }
};

// libFuzzer's comparison hooks in the fuzz build would cost more than the
// products themselves in this loop, and its branches say nothing about the
// input; ASan and UBSan still check it.
#if defined(__clang__)
#define KILN_NO_FUZZ_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define KILN_NO_FUZZ_COVERAGE
#endif

/// acc plus the products a[k * aStride] * b[k * bStride] for k < n, added in
/// order of k: the inner loop of dot and convolution, kept in a function of
/// its own so the accumulator stays in a register.
template <DType D>
KILN_NO_FUZZ_COVERAGE typename Accumulator<ComputeT<D>>::Acc
stridedMulAdd(typename Accumulator<ComputeT<D>>::Acc acc,
              const typename DTypeTraits<D>::Storage *a, int64_t aStride,
              const typename DTypeTraits<D>::Storage *b, int64_t bStride,
              int64_t n) {
  using Traits = DTypeTraits<D>;
  for (int64_t k = 0; k < n; ++k)
    acc = Accumulator<ComputeT<D>>::mulAdd(acc,
                                           Traits::fromStorage(a[k * aStride]),
                                           Traits::fromStorage(b[k * bStride]));
  return acc;
}

//===----------------------------------------------------------------------===//
// Orderings used by sort, top-k and arg-max/min
//===----------------------------------------------------------------------===//

/// Strict weak order with NaN above everything (NaNs equal each other).
template <typename C> bool lessNanLast(C a, C b) {
  if constexpr (kIsFloat<C>) {
    if (std::isnan(a))
      return false;
    if (std::isnan(b))
      return true;
  }
  return a < b;
}

} // namespace kiln::eval::detail

#endif // KILN_LIB_EVAL_EVALSCALAROPS_H
