//===- AlgebraicSimplifierTest.cpp - Rules fire only where exact ----------===//
//
// Each case runs one pass and checks both what changed (opcode counts) and,
// through the evaluator on inputs with NaN, +-inf and +-0, that the results
// are bit-identical to the module before the pass.
//
//===----------------------------------------------------------------------===//
#include "PassTestUtils.h"

using namespace kiln;
using namespace kiln::passtest;
using ir::Opcode;

namespace {
void checkPass(const std::string &pass, const std::string &text,
               Opcode opcode, size_t expectedCount) {
  auto before = parse(text);
  auto after = before->clone();
  runPass(pass, *after);
  CHECK(countOpcode(*after, opcode) == expectedCount);
  requireSameResults(*before, *after, 7, 8);
}

const char *kSignedZeros = R"(HloModule z, entry=main

ENTRY main {
  x = f32[8] parameter(0)
  nz = f32[] constant(-0)
  pz = f32[] constant(0)
  nzs = f32[8] broadcast(nz), dimensions={}
  pzs = f32[8] broadcast(pz), dimensions={}
  a = f32[8] add(x, nzs)
  b = f32[8] add(pzs, x)
  s = f32[8] subtract(x, pzs)
  t = f32[8] subtract(x, nzs)
  ROOT r = (f32[8], f32[8], f32[8], f32[8]) tuple(a, b, s, t)
}
)";
} // namespace

TEST_CASE("additive identities keep -0.0: only x + (-0.0) and x - (+0.0) go",
          "[passes][simplifier]") {
  // b = +0.0 + x and t = x - (-0.0) remain: one add, one subtract.
  checkPass("algebraic-simplifier", kSignedZeros, Opcode::Add, 1);
  checkPass("algebraic-simplifier", kSignedZeros, Opcode::Subtract, 1);
}

TEST_CASE("transpose sinking cancels the NCHW pair and keeps results",
          "[passes][simplifier]") {
  const char *text = R"(HloModule nchw, entry=main

ENTRY main {
  x = f32[1,2,4,4] parameter(0)
  w = f32[3,3,2,3] parameter(1)
  b = f32[3] parameter(2)
  xt = f32[1,4,4,2] transpose(x), dimensions={0,2,3,1}
  c = f32[1,4,4,3] convolution(xt, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ct = f32[1,3,4,4] transpose(c), dimensions={0,3,1,2}
  bb = f32[1,3,4,4] broadcast(b), dimensions={1}
  a = f32[1,3,4,4] add(ct, bb)
  e = f32[1,3,4,4] exponential(a)
  back = f32[1,4,4,3] transpose(e), dimensions={0,2,3,1}
  ROOT n = f32[1,4,4,3] negate(back)
}
)";
  checkPass("algebraic-simplifier", text, Opcode::Transpose, 1);
}

TEST_CASE("integer identities and x * 0 only for integers",
          "[passes][simplifier]") {
  const char *text = R"(HloModule i, entry=main

ENTRY main {
  i = s32[8] parameter(0)
  x = f32[8] parameter(1)
  z = s32[] constant(0)
  zs = s32[8] broadcast(z), dimensions={}
  fz = f32[] constant(0)
  fzs = f32[8] broadcast(fz), dimensions={}
  m = s32[8] multiply(i, zs)
  a = s32[8] add(m, i)
  f = f32[8] multiply(x, fzs)
  ROOT r = (s32[8], f32[8]) tuple(a, f)
}
)";
  // The float multiply stays (NaN * 0 is NaN, -1 * 0 is -0).
  checkPass("algebraic-simplifier", text, Opcode::Multiply, 1);
}
