//===- ResourceLimitsTest.cpp - The --max-arena budget and its errors -----===//
//
// checkArenaBytes accepts exactly the sizes within the limit and names the
// flag otherwise; allocateVector turns a refused allocation into an Error;
// the evaluator holds the values it keeps to the limit together.
//
//===----------------------------------------------------------------------===//
#include "kiln/Support/ResourceLimits.h"
#include "kiln/Support/Allocation.h"

#include "HloTestSupport.h"
#include "kiln/Eval/Evaluator.h"

#include <catch2/catch.hpp>

#include <limits>

using namespace kiln;

namespace {
/// Sets --max-arena for one test and puts the default back after it.
class ArenaLimit {
public:
  explicit ArenaLimit(int64_t bytes) { resourceLimits().maxArenaBytes = bytes; }
  ~ArenaLimit() {
    resourceLimits().maxArenaBytes = ResourceLimits::kDefaultMaxArenaBytes;
  }
};
} // namespace

TEST_CASE("checkArenaBytes accepts sizes up to the limit", "[limits]") {
  ArenaLimit limit(1000);
  CHECK_FALSE(checkArenaBytes("input 'x'", 0));
  CHECK_FALSE(checkArenaBytes("input 'x'", 1000));
  Error over = checkArenaBytes("input 'x'", 1001);
  REQUIRE(over);
  CHECK(over.message() == "input 'x' needs 1001 bytes, more than the limit "
                          "of 1000 bytes (--max-arena)");
  Error overflow = checkArenaBytes("input 'x'", std::nullopt);
  REQUIRE(overflow);
  CHECK(overflow.message() == "input 'x' needs more than 2^63 bytes, more "
                              "than the limit of 1000 bytes (--max-arena)");
}

TEST_CASE("the default arena budget is 4 GiB", "[limits]") {
  CHECK(resourceLimits().maxArenaBytes == int64_t(1) << 32);
  CHECK_FALSE(checkArenaBytes("v", int64_t(1) << 32));
  CHECK(checkArenaBytes("v", (int64_t(1) << 32) + 1));
}

TEST_CASE("allocateVector reports what it could not allocate", "[limits]") {
  Expected<std::vector<uint8_t>> small = allocateVector<uint8_t>(16, "t");
  REQUIRE(small);
  CHECK(small->size() == 16);
  // More elements than std::vector can hold: refused before any memory is
  // asked for, so no sanitizer sees a huge allocation.
  Expected<std::vector<uint64_t>> huge =
      allocateVector<uint64_t>(int64_t(1) << 61, "the table");
  REQUIRE_FALSE(huge);
  CHECK(huge.errorMessage() ==
        fmt::format("cannot allocate {} bytes for the "
                    "table: out of memory",
                    std::numeric_limits<int64_t>::max()));
}

TEST_CASE("the evaluator holds its values to --max-arena", "[limits]") {
  auto module = hlotest::parse(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  ROOT a = f32[4] abs(n)
})");
  std::vector<ir::Literal> args{ir::Literal::fromValues(
      ir::Shape(ir::DType::F32, {4}), std::vector<float>{1, -2, 3, -4})};
  {
    ArenaLimit limit(48); // p, n and a: 16 bytes each
    CHECK(eval::evaluateModule(*module, args));
  }
  ArenaLimit limit(47);
  auto refused = eval::evaluateModule(*module, args);
  REQUIRE_FALSE(refused);
  CHECK(refused.errorMessage() ==
        "evaluating %a (f32[4]) with the values before it needs 48 bytes, "
        "more than the limit of 47 bytes (--max-arena)");
}
