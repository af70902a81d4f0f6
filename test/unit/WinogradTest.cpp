//===- WinogradTest.cpp - The Winograd rule and kernel transform ----------===//
//
// The compile-time kernel transform, put through the F(4x4, 3x3) input and
// output transforms written out here in double (B^T and A^T of Lavin &
// Gray), reproduces the direct 3x3 correlation exactly up to double
// rounding; and winogradPlan picks exactly the layers the documented rule
// (kiln/Analysis/Winograd.h) names, with blocks that cover every tile.
//
//===----------------------------------------------------------------------===//
#include "HloTestSupport.h"
#include "Kernels/WinogradTransform.h"

#include "kiln/Analysis/Winograd.h"

#include <fmt/format.h>

#include <cmath>
#include <random>

using namespace kiln;
namespace wg = kiln::codegen::kernels::winograd;

namespace {

constexpr double kBT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0},
                              {0, 4, -4, -1, 1, 0}, {0, -2, -1, 2, 1, 0},
                              {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
constexpr double kAT[4][6] = {{1, 1, 1, 1, 1, 0},
                              {0, 1, -1, 2, -2, 0},
                              {0, 1, 1, 4, 4, 0},
                              {0, 1, -1, 8, -8, 1}};

/// A conv module: input [n, h, w, cin], a 3x3 (or `k`x`k`) HWIO
/// kernel broadcast from a zero constant, the given window and dtype.
std::string convModule(int64_t n, int64_t h, int64_t w, int64_t cin,
                       int64_t cout, const std::string &window, int64_t oh,
                       int64_t ow, int64_t k = 3,
                       const std::string &dtype = "f32") {
  return fmt::format(
      "HloModule m, entry=main\n"
      "ENTRY main {{\n"
      "  x = {0}[{1},{2},{3},{4}] parameter(0)\n"
      "  z = {0}[] constant(0)\n"
      "  w = {0}[{8},{8},{4},{5}] broadcast(z), dimensions={{}}\n"
      "  ROOT c = {0}[{1},{6},{7},{5}] convolution(x, w), window={{{9}}}, "
      "dim_labels=b01f_01io->b01f\n"
      "}}\n",
      dtype, n, h, w, cin, cout, oh, ow, k, window);
}

/// The plan with `w`'s constant standing in for the folded weights.
std::optional<analysis::WinogradPlan> planOf(const std::string &text,
                                             bool constantWeights = true) {
  auto module = hlotest::parse(text);
  const ir::Instruction &conv = hlotest::find(*module, "c");
  // The broadcast of a constant is what constant folding turns into one:
  // the rule only asks that the weights be a constant.
  const ir::Instruction &weights =
      constantWeights ? *conv.operand(1)->operand(0) : *conv.operand(1);
  return analysis::winogradPlan(conv, weights);
}

} // namespace

TEST_CASE("the compile-time kernel transform gives the direct correlation",
          "[winograd]") {
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (int trial = 0; trial < 20; ++trial) {
    std::array<double, 9> g;
    double d[6][6];
    for (double &v : g)
      v = uniform(rng);
    for (auto &row : d)
      for (double &v : row)
        v = uniform(rng);
    std::array<double, 36> u = wg::transformKernel(g);
    double v[6][6] = {}, t[6][6] = {};
    for (int i = 0; i < 6; ++i) // B^T d
      for (int j = 0; j < 6; ++j)
        for (int k = 0; k < 6; ++k)
          t[i][j] += kBT[i][k] * d[k][j];
    for (int i = 0; i < 6; ++i) // (B^T d) B
      for (int j = 0; j < 6; ++j)
        for (int k = 0; k < 6; ++k)
          v[i][j] += t[i][k] * kBT[j][k];
    double m[6][6], s[4][6] = {}, y[4][4] = {};
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j)
        m[i][j] = u[size_t(i * 6 + j)] * v[i][j];
    for (int i = 0; i < 4; ++i) // A^T m
      for (int j = 0; j < 6; ++j)
        for (int k = 0; k < 6; ++k)
          s[i][j] += kAT[i][k] * m[k][j];
    for (int i = 0; i < 4; ++i) // (A^T m) A
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 6; ++k)
          y[i][j] += s[i][k] * kAT[j][k];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        double direct = 0;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c)
            direct += d[i + r][j + c] * g[size_t(r * 3 + c)];
        CHECK(std::abs(y[i][j] - direct) < 1e-12);
      }
  }
}

TEST_CASE("winogradPlan picks 3x3 stride-1 f32 layers with enough channels",
          "[winograd]") {
  const std::string same = "size=3x3 pad=1_1x1_1";
  SECTION("an eligible layer: tiles, equal blocks, scratch per slot") {
    auto plan = planOf(convModule(2, 30, 27, 32, 40, same, 30, 27));
    REQUIRE(plan);
    CHECK(plan->inFeatures == 32);
    CHECK(plan->outFeatures == 40);
    CHECK(plan->tilesH == 8);
    CHECK(plan->tilesW == 7);
    CHECK(plan->tiles == 2 * 8 * 7);
    CHECK(plan->blocks * plan->blockTiles >= plan->tiles);
    CHECK((plan->blocks - 1) * plan->blockTiles < plan->tiles);
    CHECK(plan->slots >= 1);
    CHECK(plan->slots <= 4);
    CHECK(plan->slots <= plan->blocks);
    CHECK(plan->slotBytes % 64 == 0);
    CHECK(plan->slotBytes >= plan->blockTiles * 36 * (32 + 40) * 4);
    CHECK(plan->scratchBytes() == plan->slots * plan->slotBytes);
  }
  SECTION("VALID and asymmetric padding") {
    CHECK(planOf(convModule(1, 34, 34, 32, 32, "size=3x3", 32, 32)));
    CHECK(planOf(convModule(1, 32, 32, 32, 32, "size=3x3 pad=0_2x1_1", 32,
                            32)));
  }
  SECTION("a large image gets several blocks and at most 4 slots") {
    auto plan = planOf(convModule(1, 160, 160, 32, 16, same, 160, 160));
    REQUIRE(plan);
    CHECK(plan->blocks > 4);
    CHECK(plan->slots == 4);
    CHECK(plan->blockTiles <= 128);
  }
  SECTION("not Winograd") {
    // Too few channels on either side.
    CHECK_FALSE(planOf(convModule(1, 32, 32, 8, 32, same, 32, 32)));
    CHECK_FALSE(planOf(convModule(1, 32, 32, 32, 8, same, 32, 32)));
    // Too few tiles for the transforms to pay: 2x2 outputs, one tile.
    CHECK_FALSE(planOf(convModule(1, 2, 2, 16, 16, same, 2, 2)));
    // Stride 2, dilation, other kernel sizes, f64, run-time weights.
    CHECK_FALSE(planOf(
        convModule(1, 32, 32, 32, 32, "size=3x3 stride=2x2 pad=1_1x1_1", 16,
                   16)));
    CHECK_FALSE(planOf(convModule(1, 32, 32, 32, 32,
                                  "size=3x3 pad=2_2x2_2 rhs_dilate=2x2", 32,
                                  32)));
    CHECK_FALSE(
        planOf(convModule(1, 32, 32, 32, 32, "size=5x5 pad=2_2x2_2", 32, 32,
                          5)));
    CHECK_FALSE(planOf(
        convModule(1, 32, 32, 32, 32, same, 32, 32, 3, "f64")));
    CHECK_FALSE(planOf(convModule(1, 32, 32, 32, 32, same, 32, 32), false));
  }
}
