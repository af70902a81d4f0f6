//===- CounterRandom.h - The counter-based generator of `rng` ---*- C++ -*-===//
//
// `rng` draws element i of its result from a pure function of (seed,
// counter), so any element can be computed alone, in any order, on any
// thread, and the evaluator and compiled code agree bit for bit on the
// random bits. The function is splitmix64 (Steele, Lea, Flood: "Fast
// splittable pseudorandom number generators", 2014) evaluated at a counter:
// the (counter + 1)-th output of splitmix64 started from state `seed`. The
// code generator emits the same arithmetic from these constants
// (lib/CodeGen/RngEmitter.cpp); docs/hlo.md specifies it for users.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_COUNTERRANDOM_H
#define KILN_SUPPORT_COUNTERRANDOM_H

#include <cstdint>

namespace kiln::random {

/// splitmix64's state increment (2^64 divided by the golden ratio, odd).
inline constexpr uint64_t kStateIncrement = 0x9E3779B97F4A7C15ull;
/// The two multipliers of splitmix64's output mix.
inline constexpr uint64_t kMixMultiplier1 = 0xBF58476D1CE4E5B9ull;
inline constexpr uint64_t kMixMultiplier2 = 0x94D049BB133111EBull;
/// The right shifts of the mix, in order.
inline constexpr unsigned kMixShift1 = 30, kMixShift2 = 27, kMixShift3 = 31;

/// 64 random bits for `counter` under key `seed` (arithmetic modulo 2^64).
constexpr uint64_t counterBits(uint64_t seed, uint64_t counter) {
  uint64_t z = seed + (counter + 1) * kStateIncrement;
  z = (z ^ (z >> kMixShift1)) * kMixMultiplier1;
  z = (z ^ (z >> kMixShift2)) * kMixMultiplier2;
  return z ^ (z >> kMixShift3);
}

/// Bits of the unit value each float width takes from the top of the 64:
/// as many as its significand holds, so every value k * 2^-bits is exact.
inline constexpr unsigned kUnitBitsFloat = 24;
inline constexpr unsigned kUnitBitsDouble = 53;

/// A value in [0, 1) from the top `unitBits` bits: (bits >> (64 - unitBits))
/// * 2^-unitBits, exact in the type that holds unitBits significant bits.
inline float unitFloat(uint64_t bits) {
  return float(bits >> (64 - kUnitBitsFloat)) * 0x1p-24f;
}
inline double unitDouble(uint64_t bits) {
  return double(bits >> (64 - kUnitBitsDouble)) * 0x1p-53;
}

/// Which counters element `i` of an rng result uses: uniform draws one
/// value (counter i); normal draws two (2i and 2i + 1) for Box-Muller.
constexpr uint64_t uniformCounter(uint64_t i) { return i; }
constexpr uint64_t normalCounter(uint64_t i, unsigned which) {
  return 2 * i + which;
}

} // namespace kiln::random

#endif // KILN_SUPPORT_COUNTERRANDOM_H
