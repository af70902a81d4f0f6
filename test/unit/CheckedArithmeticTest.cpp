//===- CheckedArithmeticTest.cpp - Sizes and indices that cannot wrap -----===//
//
// The helpers every lowering uses on untrusted attributes: each must give
// nullopt exactly where the plain C++ expression would wrap or be undefined,
// and floorDiv must round toward negative infinity for every sign pair.
//
//===----------------------------------------------------------------------===//
#include "kiln/Support/CheckedArithmetic.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

using namespace kiln;

namespace {
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
} // namespace

TEST_CASE("checkedAdd and checkedMul stop at the int64 range", "[checked]") {
  CHECK(checkedAdd(kMax - 1, 1) == kMax);
  CHECK_FALSE(checkedAdd(kMax, 1));
  CHECK_FALSE(checkedAdd(kMin, -1));
  CHECK(checkedMul(int64_t(1) << 31, int64_t(1) << 31) == int64_t(1) << 62);
  CHECK_FALSE(checkedMul(int64_t(1) << 32, int64_t(1) << 31));
  CHECK_FALSE(checkedMul(kMin, -1));
  CHECK(checkedMul(-3, 4) == -12);
}

TEST_CASE("checkedProduct rejects negative sizes and overflow", "[checked]") {
  CHECK(checkedProduct({}) == 1);
  CHECK(checkedProduct({2, 3, 7}) == 42);
  CHECK(checkedProduct({5, 0, kMax}) == 0);
  CHECK_FALSE(checkedProduct({2, -1}));
  CHECK_FALSE(checkedProduct({int64_t(1) << 32, int64_t(1) << 32}));
  CHECK(checkedProduct(std::vector<int64_t>{4, 4}) == 16);
}

TEST_CASE("checkedIndex accepts [0, size) only", "[checked]") {
  CHECK(checkedIndex(0, 3) == size_t(0));
  CHECK(checkedIndex(2, 3) == size_t(2));
  CHECK_FALSE(checkedIndex(3, 3));
  CHECK_FALSE(checkedIndex(-1, 3));
  CHECK_FALSE(checkedIndex(0, 0));
}

TEST_CASE("checkedFloatToInt rejects NaN and values past int64", "[checked]") {
  CHECK(checkedFloatToInt(-2.75) == -2);
  CHECK(checkedFloatToInt(-9223372036854775808.0) == kMin);
  CHECK_FALSE(checkedFloatToInt(9223372036854775808.0));
  CHECK_FALSE(checkedFloatToInt(1e30));
  CHECK_FALSE(checkedFloatToInt(std::nan("")));
  CHECK_FALSE(checkedFloatToInt(-std::numeric_limits<double>::infinity()));
}

TEST_CASE("floorDiv rounds toward negative infinity", "[checked]") {
  // Compared with floor() of the exact quotient, for every sign pair and
  // for exact and inexact quotients.
  for (int64_t a = -9; a <= 9; ++a)
    for (int64_t b : {-4, -3, -1, 1, 2, 3, 4}) {
      INFO(a << " // " << b);
      CHECK(floorDiv(a, b) == int64_t(std::floor(double(a) / double(b))));
    }
  CHECK(floorDiv(kMin, 2) == kMin / 2);
  CHECK(floorDiv(kMax, -1) == -kMax);
  CHECK(floorDiv(kMin + 1, 2) == kMin / 2);
}

TEST_CASE("saturatingCast truncates, clamps and maps NaN to 0", "[checked]") {
  CHECK(saturatingCast<int32_t>(-2.9) == -2);
  CHECK(saturatingCast<int32_t>(2147483647.5) == 2147483647);
  CHECK(saturatingCast<int32_t>(1e30) == std::numeric_limits<int32_t>::max());
  CHECK(saturatingCast<int32_t>(-1e30) == std::numeric_limits<int32_t>::min());
  CHECK(saturatingCast<uint8_t>(-1.0) == 0);
  CHECK(saturatingCast<uint8_t>(255.9) == 255);
  CHECK(saturatingCast<uint8_t>(256.0) == 255);
  CHECK(saturatingCast<int64_t>(9223372036854775808.0) == kMax);
  CHECK(saturatingCast<int64_t>(std::nan("")) == 0);
  CHECK(saturatingCast<int8_t>(std::numeric_limits<double>::infinity()) == 127);
}
