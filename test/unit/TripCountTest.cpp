// whileTripCount against loops written out by hand, each count checked by
// running the same loop in plain C++ (the expected value is not kiln's).
#include "kiln/Analysis/TripCount.h"
#include "kiln/IR/Parser.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

using namespace kiln;

namespace {

/// `for (i = start; i DIR limit; i = i OP step)` over (s32[], f32[2]),
/// with the comparison written `i DIR limit` or, when `mirror`, the other
/// way round.
std::string loopText(int start, const char *direction, int limit,
                     const char *op, int step, bool mirror) {
  std::string compare = mirror ? fmt::format("compare(k, i), direction={}",
                                             direction)
                               : fmt::format("compare(i, k), direction={}",
                                             direction);
  return fmt::format(R"(HloModule m, entry=main
cond {{
  cs = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(cs), index=0
  k = s32[] constant({})
  ROOT c = pred[] {}
}}
body {{
  bs = (s32[], f32[2]) parameter(0)
  bi = s32[] get-tuple-element(bs), index=0
  bx = f32[2] get-tuple-element(bs), index=1
  step = s32[] constant({})
  next = s32[] {}(bi, step)
  ROOT bt = (s32[], f32[2]) tuple(next, bx)
}}
ENTRY main {{
  x = f32[2] parameter(0)
  start = s32[] constant({})
  init = (s32[], f32[2]) tuple(start, x)
  ROOT w = (s32[], f32[2]) while(init), condition=cond, body=body
}}
)",
                     limit, compare, step, op, start);
}

std::optional<int64_t> tripCountOf(const std::string &text) {
  auto module = ir::parseModule(text, "loop.hlo");
  REQUIRE(module);
  return analysis::whileTripCount(*(*module)->entry()->root());
}

bool holds(int64_t a, const std::string &direction, int64_t b) {
  if (direction == "LT") return a < b;
  if (direction == "LE") return a <= b;
  if (direction == "GT") return a > b;
  if (direction == "GE") return a >= b;
  if (direction == "NE") return a != b;
  return a == b;
}

} // namespace

TEST_CASE("trip counts of counted loops match running them",
          "[trip-count]") {
  struct Loop { int start; const char *direction; int limit; int step; };
  const Loop loops[] = {
      {0, "LT", 10, 1}, {0, "LT", 10, 3}, {0, "LE", 10, 3}, {5, "LT", 5, 1},
      {9, "GT", -1, -2}, {9, "GE", -1, -2}, {0, "NE", 12, 4}, {3, "EQ", 3, 1},
      {-7, "LT", 7, 7}, {20, "LT", 10, 1}};
  for (const Loop &loop : loops) {
    for (bool mirror : {false, true}) {
      // Mirrored, `k DIR i` must be read as i (mirrored DIR) k: run it so.
      std::string direction = loop.direction;
      INFO(loop.start << " " << direction << " " << loop.limit << " step "
                      << loop.step << (mirror ? " mirrored" : ""));
      // A loop still running after kRunaway trips runs until s32
      // overflow: no trip count is expected for it.
      constexpr int64_t kRunaway = 1000;
      int64_t expected = 0;
      for (int64_t i = loop.start;
           expected <= kRunaway && (mirror ? holds(loop.limit, direction, i)
                                           : holds(i, direction, loop.limit));
           i += loop.step)
        ++expected;
      const char *op = loop.step < 0 ? "subtract" : "add";
      int step = loop.step < 0 ? -loop.step : loop.step;
      std::optional<int64_t> count = tripCountOf(
          loopText(loop.start, loop.direction, loop.limit, op, step, mirror));
      if (expected > kRunaway) {
        CHECK_FALSE(count);
        continue;
      }
      REQUIRE(count);
      CHECK(*count == expected);
    }
  }
}

TEST_CASE("loops that are not counted have no trip count", "[trip-count]") {
  SECTION("moving away from the limit never ends") {
    CHECK_FALSE(tripCountOf(loopText(0, "LT", 10, "subtract", 1, false)));
  }
  SECTION("NE that steps over the limit never ends") {
    CHECK_FALSE(tripCountOf(loopText(0, "NE", 10, "add", 3, false)));
  }
  SECTION("a step of zero") {
    CHECK_FALSE(tripCountOf(loopText(0, "LT", 10, "add", 0, false)));
  }
  SECTION("a bound carried as state") {
    std::string text = loopText(0, "LT", 10, "add", 1, false);
    // The counter is compared with state element 1 reinterpreted: replace
    // the constant limit by the counter itself, which no constant bounds.
    text.replace(text.find("k = s32[] constant(10)"),
                 std::string("k = s32[] constant(10)").size(),
                 "k = s32[] get-tuple-element(cs), index=0");
    CHECK_FALSE(tripCountOf(text));
  }
}

TEST_CASE("countedLoop names the counter, its start and its step",
          "[trip-count]") {
  SECTION("counting up") {
    auto module = ir::parseModule(loopText(2, "LT", 11, "add", 3, false),
                                  "loop.hlo");
    REQUIRE(module);
    std::optional<analysis::CountedLoop> counted =
        analysis::countedLoop(*(*module)->entry()->root());
    REQUIRE(counted);
    CHECK(counted->counter == 0);
    CHECK(counted->start == 2);
    CHECK(counted->step == 3);
    CHECK(counted->trips == 3); // 2, 5, 8
  }
  SECTION("counting down, the comparison mirrored") {
    auto module = ir::parseModule(loopText(9, "LT", 0, "subtract", 2, true),
                                  "loop.hlo");
    REQUIRE(module);
    std::optional<analysis::CountedLoop> counted =
        analysis::countedLoop(*(*module)->entry()->root());
    REQUIRE(counted);
    CHECK(counted->counter == 0);
    CHECK(counted->start == 9);
    CHECK(counted->step == -2);
    CHECK(counted->trips == 5); // 9, 7, 5, 3, 1
  }
}
