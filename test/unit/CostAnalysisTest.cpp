//===- CostAnalysisTest.cpp - FLOPs and bytes moved, by hand --------------===//
//
// Every expectation is worked out in the comment beside it from the rules in
// CostAnalysis.h (f32: 4 bytes per element).
//
//===----------------------------------------------------------------------===//
#include "kiln/Analysis/CostAnalysis.h"

#include "HloTestSupport.h"

#include <catch2/catch.hpp>

using namespace kiln;
using namespace kiln::analysis;
using hlotest::find;
using hlotest::parse;

namespace {

void checkCost(const Cost &cost, int64_t flops, int64_t read, int64_t written) {
  CHECK(cost.flops == flops);
  CHECK(cost.bytesRead == read);
  CHECK(cost.bytesWritten == written);
}

} // namespace

TEST_CASE("a dot costs two FLOPs per multiply-accumulate", "[cost]") {
  auto module = parse(R"(HloModule m, entry=main
ENTRY main {
  x = f32[2,3] parameter(0)
  w = f32[3,4] parameter(1)
  ROOT d = f32[2,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  // 2 x 8 result elements x 3 contracted = 48; reads 6*4 + 12*4 = 72 bytes,
  // writes 8*4 = 32.
  checkCost(instructionCost(find(*module, "d")), 48, 72, 32);
  // Parameters move nothing.
  checkCost(instructionCost(find(*module, "x")), 0, 0, 0);
  checkCost(moduleCost(*module), 48, 72, 32);
}

TEST_CASE("a convolution contracts window taps and input features", "[cost]") {
  auto module = parse(R"(HloModule m, entry=main
ENTRY main {
  x = f32[1,5,5,2] parameter(0)
  w = f32[3,3,2,4] parameter(1)
  ROOT c = f32[1,3,3,4] convolution(x, w), window={size=3x3}, dim_labels=b01f_01io->b01f
})");
  // 36 result elements x (3*3 taps x 2 input features) x 2 = 1296;
  // reads 50*4 + 72*4 = 488 bytes, writes 36*4 = 144.
  checkCost(instructionCost(find(*module, "c")), 1296, 488, 144);
}

TEST_CASE("an elementwise op costs one FLOP per element", "[cost]") {
  auto module = parse(R"(HloModule m, entry=main
ENTRY main {
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  a = f32[2,3] add(x, y)
  s = f32[2,3] multiply(a, a)
  k = f32[2,3] copy(s)
  ROOT p = pred[2,3] compare(k, x), direction=LT
})");
  // add: 6 FLOPs, reads 24 + 24, writes 24.
  checkCost(instructionCost(find(*module, "a")), 6, 48, 24);
  // a * a reads a once.
  checkCost(instructionCost(find(*module, "s")), 6, 24, 24);
  // copy moves data only.
  checkCost(instructionCost(find(*module, "k")), 0, 24, 24);
  // compare counts; its pred result is one byte per element.
  checkCost(instructionCost(find(*module, "p")), 6, 48, 6);
  // 6 + 6 + 0 + 6; 48 + 24 + 24 + 48; 24 + 24 + 24 + 6.
  checkCost(moduleCost(*module), 18, 144, 78);
}

TEST_CASE("rng counts its distribution's operations; bitcast-convert none",
          "[cost]") {
  auto module = parse(R"(HloModule m, entry=main
ENTRY main {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  u = f32[2,5] rng(a, b), distribution=rng_uniform
  n = f32[4] rng(a, b), distribution=rng_normal, seed=1
  bits = u8[4,4] bitcast-convert(n)
  ROOT t = (f32[2,5], u8[4,4]) tuple(u, bits)
})");
  // Uniform: sub, mul, add = 3 per element x 10; reads the two scalars
  // (8 bytes), writes 40.
  checkCost(instructionCost(find(*module, "u")), 30, 8, 40);
  // Normal: sub, mul, log, sqrt, mul, cos, mul, mul, add = 9 x 4.
  checkCost(instructionCost(find(*module, "n")), 36, 8, 16);
  // Reinterpreting 16 bytes computes nothing.
  checkCost(instructionCost(find(*module, "bits")), 0, 16, 16);
}

TEST_CASE("reductions count reduced elements or window taps", "[cost]") {
  auto module = parse(R"(HloModule m, entry=main
ENTRY main {
  x = f32[4,5] parameter(0)
  zero = f32[] constant(0)
  r = f32[4] reduce(x, zero), dimensions={1}, reducer=add
  w = f32[2,2] reduce-window(x, zero), window={size=3x2 stride=1x3}, reducer=max
  ROOT t = (f32[4], f32[2,2]) tuple(r, w)
})");
  // reduce: 20 input elements; reads 80 + 4 (init), writes 16.
  checkCost(instructionCost(find(*module, "r")), 20, 84, 16);
  // reduce-window: 4 results x 6 taps = 24; reads 84, writes 16.
  checkCost(instructionCost(find(*module, "w")), 24, 84, 16);
  // The constant and the tuple move nothing.
  checkCost(instructionCost(find(*module, "zero")), 0, 0, 0);
  checkCost(instructionCost(find(*module, "t")), 0, 0, 0);
  checkCost(moduleCost(*module), 44, 168, 32);
}

TEST_CASE("slices read only the elements they select", "[cost]") {
  auto module = parse(R"(HloModule m, entry=main
ENTRY main {
  x = f32[4,6] parameter(0)
  ROOT s = f32[2,3] slice(x), slice={[0:2], [0:6:2]}
})");
  // 6 elements selected: 24 bytes read, 24 written, no arithmetic.
  checkCost(instructionCost(find(*module, "s")), 0, 24, 24);
}

TEST_CASE("a fusion costs its inner FLOPs and its operands and outputs",
          "[cost]") {
  auto module = parse(R"(HloModule m, entry=main
fused {
  p0 = f32[8] parameter(0)
  p1 = f32[8] parameter(1)
  m = f32[8] multiply(p0, p1)
  e = f32[8] exponential(m)
  b = f32[8] broadcast(p1), dimensions={0}
  ROOT a = f32[8] add(e, b)
}

fused2 {
  q0 = f32[8] parameter(0)
  q1 = f32[8] parameter(1)
  q2 = f32[8] parameter(2)
  ROOT g = f32[8] fusion(q0, q1), kind=kLoop, calls=fused
}

ENTRY main {
  x = f32[8] parameter(0)
  y = f32[8] parameter(1)
  ROOT f = f32[8] fusion(x, y, y), kind=kLoop, calls=fused2
})");
  // The inner fusion: multiply, exponential, add = 3 x 8 = 24 FLOPs (the
  // broadcast counts nothing); reads 32 + 32, writes 32.
  checkCost(instructionCost(find(*module, "g")), 24, 64, 32);
  // The outer fusion takes y twice but reads it once: 32 + 32; nested
  // fusions count their FLOPs too.
  checkCost(instructionCost(find(*module, "f")), 24, 64, 32);
  checkCost(moduleCost(*module), 24, 64, 32);
}

TEST_CASE("a loop fusion reads of a sliced operand only what it selects",
          "[cost]") {
  auto module = parse(R"(HloModule m, entry=main
fused {
  xs = f32[100,8] parameter(0)
  i = s32[] parameter(1)
  zero = s32[] constant(0)
  row = f32[1,8] dynamic-slice(xs, i, zero), dynamic_slice_sizes={1,8}
  r = f32[8] reshape(row)
  ys = f32[100,8] parameter(2)
  whole = f32[100,8] negate(ys)
  top = f32[1,8] slice(whole), slice={[0:1], [0:8]}
  t = f32[8] reshape(top)
  ROOT a = f32[8] add(r, t)
}

ENTRY main {
  xs = f32[100,8] parameter(0)
  i = s32[] parameter(1)
  ys = f32[100,8] parameter(2)
  ROOT f = f32[8] fusion(xs, i, ys), kind=kLoop, calls=fused
})");
  // xs is read only through the dynamic-slice: its 8 selected elements, 32
  // bytes; i 4 bytes; ys through the negate, whose readers are not
  // selective: all 3200 bytes. FLOPs: negate 800 + add 8. Writes 32.
  checkCost(instructionCost(find(*module, "f")), 808, 32 + 4 + 3200, 32);
}
