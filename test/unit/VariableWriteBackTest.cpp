//===- VariableWriteBackTest.cpp - Writable variables updated in place ----===//
//
// Root elements declared as argument write-backs: buffer assignment keeps
// them out of the results and alive to the end, code generation writes them
// into the argument buffers after everything else (so every instruction and
// result sees the old value), and the compile driver leaves them out of the
// header and manifest. Expected values are computed by hand in each test.
//
//===----------------------------------------------------------------------===//
#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/Driver/Compile.h"
#include "kiln/IR/Parser.h"
#include "kiln/Support/FileUtils.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>

using namespace kiln;
using analysis::ArgWriteBack;
using analysis::BufferAssignment;
using analysis::BufferKind;

namespace {

std::unique_ptr<ir::Module> parse(const std::string &text) {
  auto module = ir::parseModule(text, "test.hlo");
  if (!module)
    FAIL(module.errorMessage());
  return std::move(*module);
}

ir::Literal f32(std::vector<int64_t> dims, std::vector<float> values) {
  ir::Literal literal(ir::Shape(ir::DType::F32, std::move(dims)));
  REQUIRE(literal.bytes().size() == values.size() * sizeof(float));
  std::memcpy(literal.bytes().data(), values.data(), literal.bytes().size());
  return literal;
}

std::vector<float> values(const ir::Literal &literal) {
  const float *p = literal.data<float>();
  return std::vector<float>(p, p + literal.bytes().size() / sizeof(float));
}

// One SGD step of y = sum(w * x): loss = sum(w * x) (before the update),
// w' = w - 0.5 * x (the gradient of the loss is x).
const char *kStep = R"(HloModule step, entry=main
ENTRY main {
  x = f32[4] parameter(0)
  w = f32[4] parameter(1)
  wx = f32[4] multiply(w, x)
  zero = f32[] constant(0)
  loss = f32[] reduce(wx, zero), dimensions={0}, reducer=add
  half = f32[] constant(0.5)
  halves = f32[4] broadcast(half), dimensions={}
  step = f32[4] multiply(halves, x)
  neww = f32[4] subtract(w, step)
  ROOT out = (f32[], f32[4]) tuple(loss, neww)
})";

} // namespace

TEST_CASE("write-backs are not results and stay live to the end",
          "[buffers][variables]") {
  auto module = parse(kStep);
  auto buffers = BufferAssignment::build(*module, {ArgWriteBack{1, 1}});
  REQUIRE(buffers);
  REQUIRE(buffers->resultCount() == 1);
  CHECK(buffers->resultValue(0).instruction->name() == "loss");
  REQUIRE(buffers->writeBacks().size() == 1);
  const analysis::WriteBack &writeBack = buffers->writeBacks()[0];
  CHECK(writeBack.value.instruction->name() == "neww");
  CHECK(writeBack.target.instruction->name() == "w");
  CHECK(!writeBack.staging);
  CHECK(!writeBack.unchanged);
  // The new value is computed into the arena, never into the arg itself.
  CHECK(buffers->slice(writeBack.value).kind == BufferKind::Arena);
  int64_t end = int64_t(buffers->schedule().size());
  CHECK(buffers->liveRange(writeBack.value).second == end);
  CHECK(buffers->slice(buffers->resultValue(0)).kind == BufferKind::Result);
  CHECK(buffers->toString().find("arg 1: write-back of %neww") !=
        std::string::npos);
}

TEST_CASE("write-back specs are checked", "[buffers][variables]") {
  auto module = parse(kStep);
  auto outOfRange = BufferAssignment::build(*module, {ArgWriteBack{2, 1}});
  REQUIRE(!outOfRange);
  CHECK(outOfRange.errorMessage().find("root has 2 elements") !=
        std::string::npos);
  auto noArg = BufferAssignment::build(*module, {ArgWriteBack{1, 7}});
  REQUIRE(!noArg);
  auto twice = BufferAssignment::build(*module,
                                       {ArgWriteBack{1, 1}, ArgWriteBack{0, 1}});
  REQUIRE(!twice);
  CHECK(twice.errorMessage().find("more than one write-back") !=
        std::string::npos);
  auto shape = BufferAssignment::build(*module, {ArgWriteBack{0, 1}});
  REQUIRE(!shape);
  CHECK(shape.errorMessage().find("shape") != std::string::npos);
}

TEST_CASE("generated code updates the variable in place after reading it",
          "[codegen][variables]") {
  auto module = parse(kStep);
  std::vector<ir::Literal> args = {f32({4}, {1, 2, 3, 4}),
                                   f32({4}, {0.5f, -1, 2, 0})};
  auto results = driver::runWithJit(*module, args, {ArgWriteBack{1, 1}});
  REQUIRE(results);
  REQUIRE(results->size() == 1);
  // loss = 0.5 - 2 + 6 + 0 with the old w.
  CHECK(values((*results)[0]) == std::vector<float>{4.5f});
  // w' = w - 0.5 x.
  CHECK(values(args[1]) == std::vector<float>{0.0f, -2.0f, 0.5f, -2.0f});
  CHECK(values(args[0]) == std::vector<float>{1, 2, 3, 4}); // feed untouched

  // A second step starts from the updated value.
  results = driver::runWithJit(*module, args, {ArgWriteBack{1, 1}});
  REQUIRE(results);
  CHECK(values((*results)[0]) == std::vector<float>{-10.5f});
  CHECK(values(args[1]) == std::vector<float>{-0.5f, -3.0f, -1.0f, -4.0f});
}

TEST_CASE("swapped variables and a fetch of the old value come out right",
          "[codegen][variables]") {
  // a' = b, b' = a, c' = c (unchanged), and a fetch of the old a.
  auto module = parse(R"(HloModule swap, entry=main
ENTRY main {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  c = f32[3] parameter(2)
  ROOT out = (f32[3], f32[3], f32[3], f32[3]) tuple(b, a, c, a)
})");
  std::vector<ArgWriteBack> writeBacks = {{0, 0}, {1, 1}, {2, 2}};
  auto buffers = BufferAssignment::build(*module, writeBacks);
  REQUIRE(buffers);
  CHECK(buffers->writeBacks()[0].staging);
  CHECK(buffers->writeBacks()[1].staging);
  CHECK(buffers->writeBacks()[2].unchanged);
  CHECK(buffers->arenaBytes() >= 2 * 12);

  std::vector<ir::Literal> args = {f32({3}, {1, 2, 3}), f32({3}, {4, 5, 6}),
                                   f32({3}, {7, 8, 9})};
  auto results = driver::runWithJit(*module, args, writeBacks);
  REQUIRE(results);
  REQUIRE(results->size() == 1);
  CHECK(values((*results)[0]) == std::vector<float>{1, 2, 3});
  CHECK(values(args[0]) == std::vector<float>{4, 5, 6});
  CHECK(values(args[1]) == std::vector<float>{1, 2, 3});
  CHECK(values(args[2]) == std::vector<float>{7, 8, 9});
}

TEST_CASE("a new value computed early survives later arena reuse",
          "[codegen][variables]") {
  // neww is computed first; a chain of same-sized temporaries follows, which
  // would reuse neww's bytes if its live range ended at the root.
  auto module = parse(R"(HloModule early, entry=main
ENTRY main {
  w = f32[8] parameter(0)
  one = f32[] constant(1)
  ones = f32[8] broadcast(one), dimensions={}
  neww = f32[8] add(w, ones)
  t1 = f32[8] multiply(w, w)
  t2 = f32[8] add(t1, w)
  t3 = f32[8] multiply(t2, t2)
  t4 = f32[8] subtract(t3, t1)
  ROOT out = (f32[8], f32[8]) tuple(t4, neww)
})");
  std::vector<ir::Literal> args = {f32({8}, {0, 1, 2, 3, -1, -2, 0.5f, 10})};
  auto results = driver::runWithJit(*module, args, {ArgWriteBack{1, 0}});
  REQUIRE(results);
  REQUIRE(results->size() == 1);
  // t4 = (w*w + w)^2 - w*w, by hand for each w.
  CHECK(values((*results)[0]) ==
        std::vector<float>{0, 3, 32, 135, -1, 0, 0.3125f, 12000});
  CHECK(values(args[0]) ==
        std::vector<float>{1, 2, 3, 4, 0, -1, 1.5f, 11});
}

TEST_CASE("compiling a model with variable updates leaves them out of the "
          "results",
          "[driver][variables]") {
  import::ImportedModel model;
  model.module = parse(kStep);
  model.args = {import::ArgMetadata::feed("x"),
                import::ArgMetadata::variableArg("w", false)};
  model.resultNames = {"loss", "w"};
  model.variableUpdates = {{1, 1}};
  auto dir = std::filesystem::temp_directory_path() / "kiln-writeback-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  driver::CompileOptions options;
  options.outputPrefix = (dir / "step").string();
  auto compiled = driver::compileImported(model, options);
  REQUIRE(compiled);
  REQUIRE(compiled->info.results.size() == 1);
  CHECK(compiled->info.results[0].name == "loss");
  REQUIRE(compiled->info.args.size() == 2);
  CHECK(compiled->info.args[1].kind == aot::ArgKind::Variable);
  CHECK(!compiled->info.args[1].readonly);
  auto manifest = readTextFile((dir / "step.json").string());
  REQUIRE(manifest);
  CHECK(manifest->find("\"readonly\": false") != std::string::npos);
  auto header = readTextFile((dir / "step.h").string());
  REQUIRE(header);
  CHECK(header->find("#define STEP_NUM_RESULTS 1") != std::string::npos);
  CHECK(header->find("variable written in place") != std::string::npos);
  CHECK(header->find("var_w_data()") != std::string::npos);

  // An update of a read-only arg is the importer's bug, reported as such.
  model.args[1].readonly = true;
  auto rejected = driver::compileImported(model, options);
  REQUIRE(!rejected);
  CHECK(rejected.errorMessage().find("not a writable variable") !=
        std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("variables swapped through a loop that reads them in place come "
          "out right",
          "[codegen][variables]") {
  // The loop passes a and b through unchanged, so its state elements read
  // the arguments in place; a' = the loop's b, b' = the loop's a. Each new
  // value lives in the other written argument: both are staged.
  auto module = parse(R"(HloModule swap_loop, entry=main
cond {
  cs = (s32[], f32[3], f32[3]) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  two = s32[] constant(2)
  ROOT lt = pred[] compare(ci, two), direction=LT
}
body {
  bs = (s32[], f32[3], f32[3]) parameter(0)
  bi = s32[] get-tuple-element(bs), index=0
  one = s32[] constant(1)
  next = s32[] add(bi, one)
  ba = f32[3] get-tuple-element(bs), index=1
  bb = f32[3] get-tuple-element(bs), index=2
  ROOT out = (s32[], f32[3], f32[3]) tuple(next, ba, bb)
}
ENTRY main {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[3], f32[3]) tuple(zero, a, b)
  loop = (s32[], f32[3], f32[3]) while(init), condition=cond, body=body
  la = f32[3] get-tuple-element(loop), index=1
  lb = f32[3] get-tuple-element(loop), index=2
  ROOT r = (f32[3], f32[3]) tuple(lb, la)
})");
  std::vector<ArgWriteBack> writeBacks = {{0, 0}, {1, 1}};
  auto buffers = BufferAssignment::build(*module, writeBacks);
  REQUIRE(buffers);
  CHECK(buffers->writeBacks()[0].staging);
  CHECK(buffers->writeBacks()[1].staging);

  std::vector<ir::Literal> args = {f32({3}, {1, 2, 3}), f32({3}, {4, 5, 6})};
  auto results = driver::runWithJit(*module, args, writeBacks);
  REQUIRE(results);
  CHECK(values(args[0]) == std::vector<float>{4, 5, 6});
  CHECK(values(args[1]) == std::vector<float>{1, 2, 3});
}
