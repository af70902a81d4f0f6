//===- CodeGenComputeTest.cpp - Compute-op emitters against hand results
//---===//
//
// The reduction, contraction and indexing emitters on the host JIT, checked
// against values computed by hand (the e2e suite compares them with the
// evaluator on random inputs for every dtype and both targets). Each case
// pins one rule that is easy to get subtly wrong: pads of reduce-window hold
// the init value, NaN and tie rules of arg-max/sort/top-k, start-index
// clamping, feature groups of convolution.
//
//===----------------------------------------------------------------------===//
#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/CodeGen/CodeGen.h"
#include "kiln/IR/Parser.h"
#include "kiln/IR/Verifier.h"
#include "kiln/Target/Jit.h"
#include "kiln/Target/Target.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace kiln;

namespace {

/// Compiles `text` for the host, runs it on `args` placed one element past a
/// 64-byte boundary, and returns every result.
std::vector<ir::Literal> compileAndRun(const std::string &text,
                                       const std::vector<ir::Literal> &args) {
  auto module = ir::parseModule(text, "compute.hlo");
  REQUIRE(module);
  REQUIRE_FALSE(ir::verifyModule(**module));
  auto buffers = analysis::BufferAssignment::build(**module);
  REQUIRE(buffers);
  target::initializeTargets();
  auto resolved = target::resolveTarget({});
  REQUIRE(resolved);
  auto machine = target::createTargetMachine(*resolved);
  REQUIRE(machine);
  auto context = std::make_unique<llvm::LLVMContext>();
  codegen::CodeGenOptions options;
  options.entryName = "compute_run";
  auto generated =
      codegen::emitModule(**module, *buffers, options, *context, **machine);
  REQUIRE(generated);
  REQUIRE_FALSE(target::optimizeModule(*generated->module, **machine));
  auto jit =
      target::Jit::create(std::move(generated->module), std::move(context));
  REQUIRE(jit);
  auto entry = (*jit)->lookup("compute_run");
  REQUIRE(entry);

  std::vector<std::vector<uint8_t>> storage;
  std::vector<const void *> argPointers;
  for (const ir::Literal &arg : args) {
    size_t elem = ir::byteSize(arg.shape().dtype());
    storage.emplace_back(arg.bytes().size() + elem + 64);
    auto base = reinterpret_cast<uintptr_t>(storage.back().data());
    auto *p = reinterpret_cast<uint8_t *>((base + 63) / 64 * 64 + elem);
    std::memcpy(p, arg.bytes().data(), arg.bytes().size());
    argPointers.push_back(p);
  }
  std::vector<ir::Literal> results;
  for (int64_t i = 0; i < buffers->resultCount(); ++i) {
    analysis::ValueRef v = buffers->resultValue(i);
    const ir::Shape &shape = v.instruction->shape();
    results.emplace_back(
        v.tupleIndex < 0 ? shape : shape.tupleElements()[size_t(v.tupleIndex)]);
  }
  std::vector<void *> resultPointers;
  for (ir::Literal &r : results)
    resultPointers.push_back(r.bytes().data());
  size_t arena = size_t(std::max<int64_t>(buffers->arenaBytes(), 64));
  void *arenaMemory = std::aligned_alloc(64, (arena + 63) / 64 * 64);
  int status = (*entry)(argPointers.data(), resultPointers.data(), arenaMemory);
  std::free(arenaMemory);
  REQUIRE(status == 0);
  return results;
}

template <typename T> std::vector<T> values(const ir::Literal &literal) {
  const T *data = literal.data<T>();
  return std::vector<T>(data, data + literal.numElements());
}

ir::Literal f32(std::vector<int64_t> dims, std::vector<float> v) {
  return ir::Literal::fromValues(ir::Shape(ir::DType::F32, std::move(dims)), v);
}
ir::Literal s32(std::vector<int64_t> dims, std::vector<int32_t> v) {
  return ir::Literal::fromValues(ir::Shape(ir::DType::S32, std::move(dims)), v);
}

const float kNaN = std::nanf("");

} // namespace

TEST_CASE("codegen compute: reduce and reduce-window", "[codegen][compute]") {
  auto results = compileAndRun(R"(HloModule m, entry=main

ENTRY main {
  x = f32[2,3] parameter(0)
  init = f32[] constant(0.5)
  ninf = f32[] constant(-inf)
  rows = f32[2] reduce(x, init), dimensions={1}, reducer=add
  cols = f32[3] reduce(x, init), dimensions={0}, reducer=add
  mx = f32[2] reduce(x, ninf), dimensions={1}, reducer=max
  pool = f32[2,3] reduce-window(x, init), window={size=1x2 pad=0_0x1_0}, reducer=add
  ROOT t = (f32[2], f32[3], f32[2], f32[2,3]) tuple(rows, cols, mx, pool)
}
)",
                               {f32({2, 3}, {1, 2, 3, 4, kNaN, 6})});
  CHECK(values<float>(results[0])[0] == 6.5f);
  CHECK(std::isnan(values<float>(results[0])[1]));
  CHECK(values<float>(results[1])[0] == 5.5f);
  CHECK(std::isnan(values<float>(results[1])[1]));
  CHECK(values<float>(results[1])[2] == 9.5f);
  CHECK(values<float>(results[2])[0] == 3.0f);
  CHECK(std::isnan(values<float>(results[2])[1])); // max propagates NaN
  // The pad element holds the init value: 0.5 (init) + 0.5 (pad) + 1.
  std::vector<float> pool = values<float>(results[3]);
  CHECK(pool[0] == 2.0f);
  CHECK(pool[1] == 3.5f);
  CHECK(pool[2] == 5.5f);
  CHECK(pool[3] == 5.0f);
}

TEST_CASE("codegen compute: arg-max/arg-min first occurrence and NaN",
          "[codegen][compute]") {
  auto results =
      compileAndRun(R"(HloModule m, entry=main

ENTRY main {
  x = f32[2,5] parameter(0)
  a = s32[2] arg-max(x), dimensions={1}
  b = s64[2] arg-min(x), dimensions={1}
  ROOT t = (s32[2], s64[2]) tuple(a, b)
}
)",
                    {f32({2, 5}, {1, 7, 7, -2, -2, 3, kNaN, 9, kNaN, -1})});
  CHECK(values<int32_t>(results[0]) == std::vector<int32_t>{1, 1});
  CHECK(values<int64_t>(results[1]) == std::vector<int64_t>{3, 1});
}

TEST_CASE("codegen compute: dot and grouped convolution",
          "[codegen][compute]") {
  auto results = compileAndRun(
      R"(HloModule m, entry=main

ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[3,2] parameter(1)
  x = f32[1,3,2] parameter(2)
  k = f32[2,1,2] parameter(3)
  d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[2,2] dot(b, a), lhs_contracting_dims={0}, rhs_contracting_dims={1}
  c = f32[1,2,2] convolution(x, k), window={size=2}, dim_labels=b0f_0io->b0f, feature_group_count=2
  ROOT r = (f32[2,2], f32[2,2], f32[1,2,2]) tuple(d, t, c)
}
)",
      {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({3, 2}, {1, 0, 0, 1, 1, 1}),
       f32({1, 3, 2}, {1, 10, 2, 20, 3, 30}), f32({2, 1, 2}, {1, 1, 2, -1})});
  CHECK(values<float>(results[0]) == std::vector<float>{4, 5, 10, 11});
  CHECK(values<float>(results[1]) == std::vector<float>{4, 10, 5, 11});
  // Depthwise: feature 0 sees channel 0 with taps (1, 2), feature 1 sees
  // channel 1 with taps (1, -1).
  CHECK(values<float>(results[2]) == std::vector<float>{5, -10, 8, -10});
}

TEST_CASE("codegen compute: sort and top-k order rules", "[codegen][compute]") {
  auto results = compileAndRun(R"(HloModule m, entry=main

ENTRY main {
  x = f32[6] parameter(0)
  i = s32[6] iota(), iota_dimension=0
  up = (f32[6], s32[6]) sort(x, i), dimensions={0}, descending=false
  down = (f32[6], s32[6]) sort(x, i), dimensions={0}, descending=true
  tk = (f32[3], s32[3]) top-k(x), k=3, largest=true
  u = s32[6] get-tuple-element(up), index=1
  d = s32[6] get-tuple-element(down), index=1
  tv = f32[3] get-tuple-element(tk), index=0
  ti = s32[3] get-tuple-element(tk), index=1
  ROOT t = (s32[6], s32[6], f32[3], s32[3]) tuple(u, d, tv, ti)
}
)",
                               {f32({6}, {2, kNaN, -1, 2, 5, -1})});
  // Stable, NaN last ascending and first descending.
  CHECK(values<int32_t>(results[0]) == std::vector<int32_t>{2, 5, 0, 3, 4, 1});
  CHECK(values<int32_t>(results[1]) == std::vector<int32_t>{1, 4, 0, 3, 2, 5});
  std::vector<float> top = values<float>(results[2]);
  CHECK(std::isnan(top[0]));
  CHECK(top[1] == 5.0f);
  CHECK(top[2] == 2.0f);
  CHECK(values<int32_t>(results[3]) == std::vector<int32_t>{1, 4, 0});
}

TEST_CASE("codegen compute: start indices are clamped", "[codegen][compute]") {
  auto results =
      compileAndRun(R"(HloModule m, entry=main

ENTRY main {
  x = s32[6] parameter(0)
  i = s32[] parameter(1)
  u = s32[2] parameter(2)
  idx = s32[2,1] parameter(3)
  ds = s32[2] dynamic-slice(x, i), dynamic_slice_sizes={2}
  dus = s32[6] dynamic-update-slice(x, u, i)
  g = s32[2,3] gather(x, idx), offset_dims={1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={3}
  ROOT t = (s32[2], s32[6], s32[2,3]) tuple(ds, dus, g)
}
)",
                    {s32({6}, {10, 11, 12, 13, 14, 15}), s32({}, {9}),
                     s32({2}, {-1, -2}), s32({2, 1}, {-4, 2})});
  CHECK(values<int32_t>(results[0]) == std::vector<int32_t>{14, 15});
  CHECK(values<int32_t>(results[1]) ==
        std::vector<int32_t>{10, 11, 12, 13, -1, -2});
  CHECK(values<int32_t>(results[2]) ==
        std::vector<int32_t>{10, 11, 12, 12, 13, 14});
}
