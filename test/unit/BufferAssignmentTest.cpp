//===- BufferAssignmentTest.cpp - Arena offsets, reuse, args and results --===//
//
// Expected offsets are derived by hand from the rules: live range =
// [definition, last use] in instruction order, largest first, best-fitting
// 64-byte aligned gap among values whose live ranges overlap.
//
//===----------------------------------------------------------------------===//
#include "kiln/Analysis/BufferAssignment.h"

#include "HloTestSupport.h"

#include <catch2/catch.hpp>

using namespace kiln;
using namespace kiln::analysis;
using hlotest::parse;

namespace {

/// slice() and liveRange() take the instruction's address.
const ir::Instruction *find(const ir::Module &module, const std::string &name) {
  return &hlotest::find(module, name);
}

BufferAssignment assign(const ir::Module &module) {
  auto buffers = BufferAssignment::build(module);
  if (!buffers)
    FAIL(buffers.errorMessage());
  return std::move(*buffers);
}

} // namespace

TEST_CASE("a chain of elementwise ops reuses arena bytes", "[buffers]") {
  auto module = parse(R"(HloModule chain, entry=main
ENTRY main {
  x = f32[10] parameter(0)
  a = f32[10] exponential(x)
  b = f32[10] negate(a)
  c = f32[10] exponential(b)
  ROOT d = f32[10] negate(c)
})");
  BufferAssignment buffers = assign(*module);
  // a live [1,2] at 0; b [2,3] overlaps a -> 64; c [3,4] overlaps only b -> 0.
  CHECK(buffers.slice(find(*module, "a")).kind == BufferKind::Arena);
  CHECK(buffers.slice(find(*module, "a")).offset == 0);
  CHECK(buffers.slice(find(*module, "b")).offset == 64);
  CHECK(buffers.slice(find(*module, "c")).offset == 0);
  CHECK(buffers.slice(find(*module, "c")).bytes == 40);
  CHECK(buffers.arenaBytes() == 128);
  CHECK(buffers.liveRange({find(*module, "b"), -1}) ==
        std::pair<int64_t, int64_t>{2, 3});
}

TEST_CASE("values with overlapping lifetimes never share bytes", "[buffers]") {
  auto module = parse(R"(HloModule overlap, entry=main
ENTRY main {
  x = f32[16] parameter(0)
  a = f32[16] exponential(x)
  b = f32[16] negate(x)
  c = f32[16] add(a, b)
  ROOT d = f32[16] negate(c)
})");
  BufferAssignment buffers = assign(*module);
  // a [1,3], b [2,3], c [3,4]: all pairwise overlapping.
  CHECK(buffers.slice(find(*module, "a")).offset == 0);
  CHECK(buffers.slice(find(*module, "b")).offset == 64);
  CHECK(buffers.slice(find(*module, "c")).offset == 128);
  CHECK(buffers.arenaBytes() == 192);
}

TEST_CASE("arena offsets are 64-byte aligned and largest values go first",
          "[buffers]") {
  auto module = parse(R"(HloModule align, entry=main
ENTRY main {
  x = f32[3] parameter(0)
  small = f32[3] exponential(x)
  big = f32[3,30] broadcast(small), dimensions={0}
  r = f32[3,30] exponential(big)
  ROOT t = (f32[3,30], f32[3]) tuple(r, small)
})");
  BufferAssignment buffers = assign(*module);
  // small is result 1, r result 0; big (360 bytes) is the only arena value.
  CHECK(buffers.slice(find(*module, "small")).kind == BufferKind::Result);
  CHECK(buffers.slice(find(*module, "small")).index == 1);
  CHECK(buffers.slice(find(*module, "big")).offset == 0);
  CHECK(buffers.arenaBytes() == 384);

  auto module2 = parse(R"(HloModule align2, entry=main
ENTRY main {
  x = f32[3] parameter(0)
  a = f32[3] exponential(x)
  b = f32[3] negate(x)
  c = f32[3] add(a, b)
  ROOT d = f32[3] negate(c)
})");
  BufferAssignment buffers2 = assign(*module2);
  CHECK(buffers2.slice(find(*module2, "a")).offset == 0);
  CHECK(buffers2.slice(find(*module2, "b")).offset == 64);
  CHECK(buffers2.slice(find(*module2, "c")).offset == 128);
  CHECK(buffers2.arenaBytes() == 192);
}

TEST_CASE("parameters, results and constants stay out of the arena",
          "[buffers]") {
  auto module = parse(R"(HloModule places, entry=main
ENTRY main {
  x = f32[4] parameter(0)
  y = s32[2] parameter(1)
  k = f32[4] constant({1, 2, 3, 4})
  s = f32[4] add(x, k)
  ROOT t = (f32[4], f32[4], s32[2], f32[4], f32[4]) tuple(s, x, y, s, k)
})");
  BufferAssignment buffers = assign(*module);
  const BufferSlice &x = buffers.slice(find(*module, "x"));
  CHECK(x.kind == BufferKind::Arg);
  CHECK(x.index == 0);
  CHECK(buffers.slice(find(*module, "y")).index == 1);
  CHECK(buffers.slice(find(*module, "k")).kind == BufferKind::Constant);
  CHECK(buffers.slice(find(*module, "s")).kind == BufferKind::Result);
  CHECK(buffers.slice(find(*module, "s")).index == 0);
  CHECK(buffers.arenaBytes() == 0);
  REQUIRE(buffers.resultCount() == 5);
  // Result 0 is written in place; the others are copies.
  CHECK_FALSE(buffers.resultNeedsCopy(0));
  CHECK(buffers.resultNeedsCopy(1)); // a parameter
  CHECK(buffers.resultNeedsCopy(2));
  CHECK(buffers.resultNeedsCopy(3)); // s returned twice
  CHECK(buffers.resultNeedsCopy(4)); // a constant
  CHECK(buffers.resultValue(3).instruction == find(*module, "s"));
}

TEST_CASE("tuple-shaped values get one slice per element; "
          "get-tuple-element aliases",
          "[buffers]") {
  auto module = parse(R"(HloModule sorted, entry=main
ENTRY main {
  k = f32[8] parameter(0)
  v = s32[8] parameter(1)
  s = (f32[8], s32[8]) sort(k, v), dimensions={0}, descending=false
  s1 = s32[8] get-tuple-element(s), index=1
  s0 = f32[8] get-tuple-element(s), index=0
  ROOT n = f32[8] negate(s0)
})");
  BufferAssignment buffers = assign(*module);
  const ir::Instruction *sort = find(*module, "s");
  const BufferSlice &e0 = buffers.slice({sort, 0});
  const BufferSlice &e1 = buffers.slice({sort, 1});
  CHECK(e0.kind == BufferKind::Arena);
  CHECK(e1.kind == BufferKind::Arena);
  CHECK(e0.bytes == 32);
  CHECK(e0.offset != e1.offset);
  CHECK(buffers.slice(find(*module, "s1")).offset == e1.offset);
  CHECK(buffers.slice(find(*module, "s0")).offset == e0.offset);
  CHECK_FALSE(buffers.hasSlice({sort, -1}));
}

TEST_CASE("buffer assignment prints one line per value", "[buffers]") {
  auto module = parse(R"(HloModule text, entry=main
ENTRY main {
  x = f32[10] parameter(0)
  a = f32[10] exponential(x)
  ROOT b = f32[10] negate(a)
})");
  BufferAssignment buffers = assign(*module);
  // a (40 bytes, one 64-byte unit) is the only arena value, live at 1 and 2.
  CHECK(buffers.toString() == "arena: 64 bytes, alignment 64\n"
                              "peak live: 64 bytes at position 1 (stored "
                              "schedule)\n"
                              "%x: arg 0 (40 bytes)\n"
                              "%a: arena [0, 40) live [1, 2]\n"
                              "%b: result 0 (40 bytes) live [2, 2]\n");
}
