//===- OutputFusionTest.cpp - The output-fusion pass and its buffers ------===//
//
// The pass must keep results bit-exact (checked through the evaluator on
// inputs with NaN, infinities and signed zeros), form exactly the fusions
// its rules allow, and buffer assignment must compute the fused contraction
// in the fusion's output buffer.
//
//===----------------------------------------------------------------------===//
#include "PassTestUtils.h"

#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/IR/Verifier.h"

using namespace kiln;
using namespace kiln::passtest;

namespace {

/// Runs output-fusion on a copy of `text`; requires identical results and
/// returns the fused module.
std::unique_ptr<ir::Module> fuseAndCompare(const std::string &text,
                                           unsigned seed) {
  auto before = parse(text);
  auto after = parse(text);
  runPass("output-fusion", *after);
  REQUIRE(!ir::verifyModule(*after));
  requireSameResults(*before, *after, seed);
  // print -> parse -> print is the identity on the fused module.
  std::string printed = ir::printModule(*after);
  auto reparsed = parse(printed);
  CHECK(ir::printModule(*reparsed) == printed);
  return after;
}

const ir::Instruction *findIn(const ir::Computation &computation,
                              const std::string &name) {
  for (const ir::Instruction *i : computation.instructions())
    if (i->name() == name)
      return i;
  return nullptr;
}

size_t countFusions(const ir::Module &module) {
  return countOpcode(module, ir::Opcode::Fusion);
}

} // namespace

TEST_CASE("output-fusion: conv + bias + relu becomes one kOutput fusion",
          "[output-fusion]") {
  auto module = fuseAndCompare(R"(HloModule m, entry=main
ENTRY main {
  x = f32[1,4,4,2] parameter(0)
  w = f32[3,3,2,3] parameter(1)
  b = f32[3] parameter(2)
  c = f32[1,4,4,3] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = f32[1,4,4,3] broadcast(b), dimensions={3}
  a = f32[1,4,4,3] add(c, bb)
  z = f32[] constant(0)
  zs = f32[1,4,4,3] broadcast(z), dimensions={}
  ROOT r = f32[1,4,4,3] maximum(a, zs)
})",
                               1);
  const ir::Computation &entry = *module->entry();
  const ir::Instruction *fusion = entry.root();
  REQUIRE(fusion->opcode() == ir::Opcode::Fusion);
  CHECK(fusion->name() == "r");
  CHECK(fusion->attrs().fusionKind == ir::FusionKind::Output);
  REQUIRE(fusion->operandCount() == 3);
  CHECK(fusion->operand(0)->name() == "x");
  CHECK(fusion->operand(1)->name() == "w");
  CHECK(fusion->operand(2)->name() == "b");
  // Everything else left the entry: x, w, b and the fusion remain.
  CHECK(entry.instructionCount() == 4);
  // The callee comes before the entry, so the printed text parses.
  std::vector<ir::Computation *> computations = module->computations();
  REQUIRE(computations.size() == 2);
  CHECK(computations[0] == fusion->calledComputation());
  CHECK(computations[0]->name() == "fused_output");
  CHECK(computations[0]->root()->opcode() == ir::Opcode::Maximum);
}

TEST_CASE("output-fusion: every rule keeps results exact", "[output-fusion]") {
  // Each module has one fusible chain; names the chain's last op.
  struct Case {
    const char *what;
    const char *text;
    size_t fusions;
  };
  const Case cases[] = {
      {"dot + bias + relu6 (max/min)", R"(HloModule m, entry=main
ENTRY main {
  x = f32[3,4] parameter(0)
  w = f32[4,5] parameter(1)
  b = f32[5] parameter(2)
  d = f32[3,5] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[3,5] broadcast(b), dimensions={1}
  a = f32[3,5] add(bb, d)
  z = f32[] constant(0)
  six = f32[] constant(6)
  zs = f32[3,5] broadcast(z), dimensions={}
  sx = f32[3,5] broadcast(six), dimensions={}
  m = f32[3,5] maximum(zs, a)
  ROOT r = f32[3,5] minimum(m, sx)
})",
       1},
      {"scale, shift, clamp, negate, tanh, logistic (f64)",
       R"(HloModule m, entry=main
ENTRY main {
  x = f64[3,4] parameter(0)
  w = f64[4,5] parameter(1)
  s = f64[5] parameter(2)
  lo = f64[] parameter(3)
  d = f64[3,5] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  sb = f64[3,5] broadcast(s), dimensions={1}
  m = f64[3,5] multiply(d, sb)
  k = f64[] constant(0.5)
  kb = f64[3,5] broadcast(k), dimensions={}
  sub = f64[3,5] subtract(kb, m)
  hi = f64[] constant(2)
  c = f64[3,5] clamp(lo, sub, hi)
  n = f64[3,5] negate(c)
  t = f64[3,5] tanh(n)
  ROOT g = f64[3,5] logistic(t)
})",
       1},
      {"leaky relu, importer form", R"(HloModule m, entry=main
ENTRY main {
  x = f32[3,4] parameter(0)
  w = f32[4,5] parameter(1)
  d = f32[3,5] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  zs = f32[3,5] broadcast(z), dimensions={}
  al = f32[] constant(0.1)
  als = f32[3,5] broadcast(al), dimensions={}
  lt = pred[3,5] compare(d, zs), direction=LT
  m = f32[3,5] multiply(d, als)
  ROOT s = f32[3,5] select(lt, m, d)
})",
       1},
      {"hard-swish, importer form", R"(HloModule m, entry=main
ENTRY main {
  x = f32[3,4] parameter(0)
  w = f32[4,5] parameter(1)
  d = f32[3,5] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a6 = f32[] constant(0.16666667)
  a6s = f32[3,5] broadcast(a6), dimensions={}
  h = f32[] constant(0.5)
  hs = f32[3,5] broadcast(h), dimensions={}
  z = f32[] constant(0)
  zs = f32[3,5] broadcast(z), dimensions={}
  o = f32[] constant(1)
  os = f32[3,5] broadcast(o), dimensions={}
  m = f32[3,5] multiply(d, a6s)
  p = f32[3,5] add(m, hs)
  mx = f32[3,5] maximum(p, zs)
  mn = f32[3,5] minimum(mx, os)
  ROOT y = f32[3,5] multiply(mn, d)
})",
       1},
      {"residual add, residual used elsewhere too", R"(HloModule m, entry=main
ENTRY main {
  x = f32[1,3,3,2] parameter(0)
  w = f32[1,1,2,2] parameter(1)
  c = f32[1,3,3,2] convolution(x, w), window={size=1x1}, dim_labels=b01f_01io->b01f
  a = f32[1,3,3,2] add(c, x)
  n = f32[1,3,3,2] negate(x)
  ROOT t = (f32[1,3,3,2], f32[1,3,3,2]) tuple(a, n)
})",
       1},
      {"two fusions, the second reads the first as a residual",
       R"(HloModule m, entry=main
ENTRY main {
  x = f32[4,4] parameter(0)
  w = f32[4,4] parameter(1)
  d1 = f32[4,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t1 = f32[4,4] tanh(d1)
  d2 = f32[4,4] dot(t1, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT a = f32[4,4] add(t1, d2)
})",
       2},
  };
  unsigned seed = 10;
  for (const Case &c : cases) {
    INFO(c.what);
    auto module = fuseAndCompare(c.text, seed++);
    CHECK(countFusions(*module) == c.fusions);
    CHECK(countOpcode(*module, ir::Opcode::Dot) +
              countOpcode(*module, ir::Opcode::Convolution) >=
          1);
  }
}

TEST_CASE("output-fusion: what stays unfused", "[output-fusion]") {
  const char *cases[] = {
      // A bare dot.
      R"(HloModule m, entry=main
ENTRY main {
  x = f32[3,4] parameter(0)
  w = f32[4,5] parameter(1)
  ROOT d = f32[3,5] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
      // The dot has a second user.
      R"(HloModule m, entry=main
ENTRY main {
  x = f32[3,4] parameter(0)
  w = f32[4,5] parameter(1)
  d = f32[3,5] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n = f32[3,5] negate(d)
  ROOT t = (f32[3,5], f32[3,5]) tuple(d, n)
})",
      // Scale broadcast along the batch dimension, not the features (with
      // add it would be a residual: any array of the dot's shape).
      R"(HloModule m, entry=main
ENTRY main {
  x = f32[3,4] parameter(0)
  w = f32[4,5] parameter(1)
  b = f32[3] parameter(2)
  d = f32[3,5] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[3,5] broadcast(b), dimensions={0}
  ROOT m = f32[3,5] multiply(d, bb)
})",
      // f16 result.
      R"(HloModule m, entry=main
ENTRY main {
  x = f16[3,4] parameter(0)
  w = f16[4,5] parameter(1)
  d = f16[3,5] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f16[3,5] negate(d)
})",
      // exp and convert are not chain ops.
      R"(HloModule m, entry=main
ENTRY main {
  x = f32[3,4] parameter(0)
  w = f32[4,5] parameter(1)
  d = f32[3,5] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[3,5] exponential(d)
  ROOT v = f16[3,5] convert(e)
})",
      // subtract of a same-shape array is not a residual add.
      R"(HloModule m, entry=main
ENTRY main {
  x = f32[4,4] parameter(0)
  w = f32[4,4] parameter(1)
  d = f32[4,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[4,4] subtract(d, x)
})",
  };
  for (const char *text : cases) {
    INFO(text);
    auto module = parse(text);
    CHECK(!runPass("output-fusion", *module));
    CHECK(countFusions(*module) == 0);
  }
}

TEST_CASE("output-fusion: the contraction is computed in the fusion's output",
          "[output-fusion][buffers]") {
  // The fusion is not the root: its output, and so the dot, is arena bytes.
  auto module = fuseAndCompare(R"(HloModule m, entry=main
ENTRY main {
  x = f32[4,8] parameter(0)
  w = f32[8,8] parameter(1)
  r = f32[4,8] parameter(2)
  d = f32[4,8] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a = f32[4,8] add(d, r)
  t = f32[4,8] tanh(a)
  ROOT e = f32[4,8] exponential(t)
})",
                               40);
  const ir::Instruction *fusion = findIn(*module->entry(), "t");
  REQUIRE(fusion);
  REQUIRE(fusion->opcode() == ir::Opcode::Fusion);
  const ir::Instruction *dot = nullptr;
  for (const ir::Instruction *i : fusion->calledComputation()->instructions())
    if (i->opcode() == ir::Opcode::Dot)
      dot = i;
  REQUIRE(dot);
  CHECK(analysis::outputFusionContraction(*fusion) == dot);
  auto buffers = analysis::BufferAssignment::build(*module);
  REQUIRE(buffers);
  const analysis::BufferSlice &out = buffers->slice(fusion);
  const analysis::BufferSlice &inner = buffers->slice(dot);
  CHECK(out.kind == analysis::BufferKind::Arena);
  CHECK(inner.kind == out.kind);
  CHECK(inner.offset == out.offset);
  CHECK(inner.bytes == out.bytes);
  // Only the fusion's output (128 bytes) and nothing for the dot: the
  // exponential goes to the result buffer.
  CHECK(buffers->arenaBytes() == 128);
  // The residual operand is live at the fusion, so never shares its bytes;
  // here it is an argument anyway.
  CHECK(buffers->slice(fusion->operand(2)).kind == analysis::BufferKind::Arg);
  std::string text = buffers->toString();
  CHECK(text.find("%" + dot->name() + ": in place in %t\n") !=
        std::string::npos);
}

TEST_CASE("output-fusion: a computed residual never shares the output's bytes",
          "[output-fusion][buffers]") {
  auto module = fuseAndCompare(R"(HloModule m, entry=main
ENTRY main {
  x = f32[4,8] parameter(0)
  w = f32[8,8] parameter(1)
  r = f32[4,8] negate(x)
  d = f32[4,8] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a = f32[4,8] add(r, d)
  ROOT e = f32[4,8] exponential(a)
})",
                               41);
  const ir::Instruction *fusion = findIn(*module->entry(), "a");
  REQUIRE(fusion);
  REQUIRE(fusion->opcode() == ir::Opcode::Fusion);
  const ir::Instruction *residual = findIn(*module->entry(), "r");
  REQUIRE(fusion->operand(2) == residual);
  auto buffers = analysis::BufferAssignment::build(*module);
  REQUIRE(buffers);
  const analysis::BufferSlice &out = buffers->slice(fusion);
  const analysis::BufferSlice &res = buffers->slice(residual);
  REQUIRE(out.kind == analysis::BufferKind::Arena);
  REQUIRE(res.kind == analysis::BufferKind::Arena);
  bool disjoint = out.offset + out.bytes <= res.offset ||
                  res.offset + res.bytes <= out.offset;
  CHECK(disjoint);
}

TEST_CASE("output fusions that are not in-place candidates keep their bytes",
          "[output-fusion][buffers]") {
  // Hand-written kOutput fusion whose root transposes the dot: each output
  // element reads another position, so the dot gets its own bytes.
  auto module = parse(R"(HloModule m, entry=main
f {
  p0 = f32[4,4] parameter(0)
  p1 = f32[4,4] parameter(1)
  d = f32[4,4] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[4,4] transpose(d), dimensions={1,0}
  ROOT n = f32[4,4] negate(t)
}
ENTRY main {
  x = f32[4,4] parameter(0)
  ROOT y = f32[4,4] fusion(x, x), kind=kOutput, calls=f
})");
  const ir::Instruction *fusion = module->entry()->root();
  CHECK(analysis::outputFusionContraction(*fusion) == nullptr);
  auto buffers = analysis::BufferAssignment::build(*module);
  REQUIRE(buffers);
  const ir::Instruction *dot = findIn(*fusion->calledComputation(), "d");
  CHECK(buffers->slice(dot).kind == analysis::BufferKind::Arena);
  CHECK(buffers->arenaBytes() == 64);
}

TEST_CASE("Module::addComputationBefore keeps callees first", "[ir]") {
  ir::Module module("m");
  ir::Computation *a = module.addComputation("a");
  ir::Computation *b = module.addComputation("b");
  ir::Computation *c = module.addComputationBefore(
      std::make_unique<ir::Computation>("a"), b);
  CHECK(c->name() == "a.1");
  CHECK(module.computations() == std::vector<ir::Computation *>{a, c, b});
  ir::Computation *d =
      module.addComputationBefore(std::make_unique<ir::Computation>("d"), a);
  CHECK(module.computations() == std::vector<ir::Computation *>{d, a, c, b});
}
