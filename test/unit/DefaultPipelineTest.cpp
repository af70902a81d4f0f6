//===- DefaultPipelineTest.cpp - The default pipeline keeps results exact -===//
//
// Differential tests: seeded random elementwise/transpose programs, full of
// the constants the rules look for (+0, -0, 1) and of transposes, are
// evaluated before and after the default pipeline on inputs with NaN,
// infinities and signed zeros; results must agree bit for bit. The
// evaluator runs the unoptimized module, so it is an independent oracle.
//
//===----------------------------------------------------------------------===//
#include "PassTestUtils.h"

#include "kiln/IR/Verifier.h"
#include "kiln/Transforms/Passes.h"

#include <fmt/format.h>

using namespace kiln;
using namespace kiln::passtest;

namespace {

/// Writes a random program over f32[2,3] / f32[3,2] values as HLO text.
class ProgramGenerator {
public:
  explicit ProgramGenerator(unsigned seed) : rng_(seed) {}

  std::string generate() {
    body_ = "  x = f32[2,3] parameter(0)\n  y = f32[3,2] parameter(1)\n"
            "  i = s32[2,3] parameter(2)\n";
    values_[0] = {"x"};
    values_[1] = {"y"};
    ints_ = {"i"};
    for (int step = 0; step < 14; ++step)
      emitStep();
    std::string root = pickInt();
    std::string text = "HloModule random, entry=main\n\nENTRY main {\n" + body_;
    text += fmt::format("  ROOT out = (f32[2,3], f32[3,2], s32[2,3]) "
                        "tuple({}, {}, {})\n}}\n",
                        values_[0].back(), values_[1].back(), root);
    return text;
  }

private:
  static constexpr const char *kShapes[2] = {"f32[2,3]", "f32[3,2]"};

  int roll(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::string fresh() { return fmt::format("v{}", counter_++); }
  std::string pick(int layout) {
    auto &pool = values_[layout];
    // Favour recent values so chains (where rules meet) are long.
    return pool[pool.size() - 1 - size_t(roll(std::min<int>(3, int(pool.size()))))];
  }
  std::string pickInt() { return ints_[size_t(roll(int(ints_.size())))]; }

  /// A constant operand of `layout`: a splat broadcast or a full array.
  std::string constant(int layout) {
    static const char *kSplats[] = {"0", "-0", "1", "-1", "2", "nan", "inf"};
    std::string scalar = fresh(), name = fresh();
    if (roll(3) > 0) {
      body_ += fmt::format("  {} = f32[] constant({})\n", scalar, kSplats[roll(7)]);
      body_ += fmt::format("  {} = {} broadcast({}), dimensions={{}}\n", name,
                           kShapes[layout], scalar);
      return name;
    }
    body_ += fmt::format("  {} = {} constant({})\n", name, kShapes[layout],
                         layout == 0 ? "{{1, -0, 0}, {2, nan, -1}}"
                                     : "{{1, -0}, {0, 2}, {nan, -1}}");
    return name;
  }

  void emitStep() {
    static const char *kUnary[] = {"negate", "abs", "exponential", "floor",
                                   "sign", "copy", "convert"};
    static const char *kBinary[] = {"add", "subtract", "multiply", "divide",
                                    "maximum", "minimum"};
    int layout = roll(2);
    std::string name = fresh();
    switch (roll(5)) {
    case 0: // a transpose to the other layout
      body_ += fmt::format("  {} = {} transpose({}), dimensions={{1,0}}\n", name,
                           kShapes[1 - layout], pick(layout));
      values_[1 - layout].push_back(name);
      return;
    case 1:
      body_ += fmt::format("  {} = {} {}({})\n", name, kShapes[layout],
                           kUnary[roll(7)], pick(layout));
      break;
    case 2: { // a select on a comparison
      std::string a = pick(layout), b = roll(2) ? pick(layout) : constant(layout);
      std::string p = fresh();
      body_ += fmt::format("  {} = pred{} compare({}, {}), direction=LT\n", p,
                           layout == 0 ? "[2,3]" : "[3,2]", a, b);
      body_ += fmt::format("  {} = {} select({}, {}, {})\n", name,
                           kShapes[layout], p, a, b);
      break;
    }
    case 3: { // integer arithmetic with 0 and 1
      std::string c = fresh(), b = fresh();
      body_ += fmt::format("  {} = s32[] constant({})\n", c, roll(2));
      body_ += fmt::format("  {} = s32[2,3] broadcast({}), dimensions={{}}\n", b, c);
      body_ += fmt::format("  {} = s32[2,3] {}({}, {})\n", name,
                           roll(2) ? "add" : "multiply", pickInt(), b);
      ints_.push_back(name);
      return;
    }
    default: {
      std::string a = pick(layout), b = roll(3) ? constant(layout) : pick(layout);
      if (roll(2))
        std::swap(a, b);
      body_ += fmt::format("  {} = {} {}({}, {})\n", name, kShapes[layout],
                           kBinary[roll(6)], a, b);
      break;
    }
    }
    values_[layout].push_back(name);
  }

  std::mt19937 rng_;
  std::string body_;
  std::vector<std::string> values_[2];
  std::vector<std::string> ints_;
  int counter_ = 0;
};

} // namespace

TEST_CASE("the default pipeline keeps random programs' results bit-exact",
          "[passes][pipeline]") {
  size_t before = 0, after = 0;
  for (unsigned seed = 1; seed <= 300; ++seed) {
    std::string text = ProgramGenerator(seed).generate();
    INFO("seed " << seed << "\n" << text);
    auto original = parse(text);
    REQUIRE(!ir::verifyModule(*original));
    auto optimized = original->clone();
    REQUIRE(!runDefaultPipeline(*optimized));
    before += original->entry()->instructionCount();
    after += optimized->entry()->instructionCount();
    requireSameResults(*original, *optimized, seed);
  }
  // The generator is full of identities and transposes: the pipeline must
  // find plenty (a weak bound, so the test is about exactness).
  CHECK(after < before * 9 / 10);
}

TEST_CASE("the default pipeline reaches a fixed point", "[passes][pipeline]") {
  for (unsigned seed = 1; seed <= 50; ++seed) {
    auto module = parse(ProgramGenerator(seed).generate());
    REQUIRE(!runDefaultPipeline(*module));
    std::string once = ir::printModule(*module);
    CHECK(!runPass("default-pipeline", *module));
    CHECK(ir::printModule(*module) == once);
  }
}

TEST_CASE("default-pipeline is registered and rejects an invalid module",
          "[passes][pipeline]") {
  auto module = parse("HloModule m, entry=main\n\nENTRY main {\n"
                      "  x = f32[2] parameter(0)\n"
                      "  ROOT y = f32[2] negate(x)\n}\n");
  module->entry()->root()->setShape(ir::Shape(ir::DType::F32, {3}));
  Error error = runDefaultPipeline(*module);
  REQUIRE(error);
  CHECK_THAT(error.message(), Catch::Contains("verify"));
}
