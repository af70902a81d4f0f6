//===- ScheduleTest.cpp - Memory-aware schedules and their peaks ----------===//
//
// Every expected peak is counted by hand from the rule: a value is live from
// its definition to its last reader (inclusive), each f32[16] (64 bytes)
// taking one 64-byte arena unit; parameters and results take none.
//
//===----------------------------------------------------------------------===//
#include "kiln/Analysis/Schedule.h"
#include "kiln/Analysis/BufferAssignment.h"

#include "HloTestSupport.h"

#include <catch2/catch.hpp>

using namespace kiln;
using namespace kiln::analysis;
using hlotest::parse;

namespace {

BufferAssignment assign(const ir::Module &module,
                        const std::vector<ArgWriteBack> &writeBacks = {}) {
  auto buffers = BufferAssignment::build(module, writeBacks);
  if (!buffers)
    FAIL(buffers.errorMessage());
  return std::move(*buffers);
}

std::string names(const std::vector<const ir::Instruction *> &order) {
  std::string out;
  for (const ir::Instruction *instruction : order)
    out += (out.empty() ? "" : " ") + instruction->name();
  return out;
}

const ir::Instruction *find(const ir::Computation &entry,
                            const std::string &name) {
  for (const ir::Instruction *instruction : entry.instructions())
    if (instruction->name() == name)
      return instruction;
  FAIL("no instruction " << name);
  return nullptr;
}

/// Each instruction in `arena` defines one 64-byte arena value.
MemoryModel unitModel(const ir::Computation &entry,
                      const std::vector<std::string> &arena) {
  MemoryModel model;
  for (const std::string &name : arena)
    model.defined[find(entry, name)][{find(entry, name), -1}] = 64;
  return model;
}

// Three branches of two steps each, summed. Stored order makes all three
// first steps before any second step: at a2 (position 4) a1, b1, c1 and a2
// are live, 256 bytes, and it stays 256 up to s1. Finishing a branch before
// starting the next keeps at most three values live (a2, b1, b2 at b2; a2,
// b2, s1 at s1; s1, c1, c2 at c2): 192, and no order does better, since s1
// needs a2, b2 and itself.
constexpr const char *kBranches = R"(HloModule branches, entry=main
ENTRY main {
  x = f32[16] parameter(0)
  a1 = f32[16] exponential(x)
  b1 = f32[16] exponential(x)
  c1 = f32[16] exponential(x)
  a2 = f32[16] negate(a1)
  b2 = f32[16] negate(b1)
  c2 = f32[16] negate(c1)
  s1 = f32[16] add(a2, b2)
  ROOT s2 = f32[16] add(s1, c2)
})";

} // namespace

TEST_CASE("the list schedule beats a stored order that starts every branch "
          "first",
          "[schedule]") {
  auto module = parse(kBranches);
  const ir::Computation &entry = *module->entry();
  MemoryModel model =
      unitModel(entry, {"a1", "b1", "c1", "a2", "b2", "c2", "s1"});
  std::vector<ir::Instruction *> all = entry.instructions();
  std::vector<const ir::Instruction *> stored(all.begin(), all.end());
  CHECK(peakLiveBytes(stored, model) == 256);
  std::vector<const ir::Instruction *> list = listSchedule(entry, model);
  CHECK(names(list) == "x a1 a2 b1 b2 s1 c1 c2 s2");
  CHECK(peakLiveBytes(list, model) == 192);
  Schedule best = scheduleForMemory(entry, model);
  CHECK(best.strategy == ScheduleStrategy::List);
  CHECK(best.peakLiveBytes == 192);
  CHECK(names(best.order) == names(list));
}

TEST_CASE("buffer assignment uses the schedule and reports its peak",
          "[schedule][buffers]") {
  auto module = parse(kBranches);
  BufferAssignment buffers = assign(*module);
  CHECK(names(buffers.schedule()) == "x a1 a2 b1 b2 s1 c1 c2 s2");
  CHECK(buffers.scheduleStrategy() == ScheduleStrategy::List);
  CHECK(buffers.peakLiveBytes() == 192);
  CHECK(buffers.peakPosition() == 4); // a2, b1, b2
  CHECK(buffers.arenaBytes() == 192);
  // Live ranges are schedule positions: a2 at 2, last read by s1 at 5.
  CHECK(buffers.liveRange({find(*module->entry(), "a2"), -1}) ==
        std::pair<int64_t, int64_t>{2, 5});
}

TEST_CASE("the stored order stays when nothing is better", "[schedule]") {
  auto module = parse(R"(HloModule chain, entry=main
ENTRY main {
  x = f32[16] parameter(0)
  k = f32[16] constant({0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15})
  a = f32[16] add(x, k)
  b = f32[16] exponential(a)
  ROOT c = f32[16] negate(b)
})");
  BufferAssignment buffers = assign(*module);
  CHECK(buffers.scheduleStrategy() == ScheduleStrategy::Stored);
  CHECK(names(buffers.schedule()) == "x k a b c");
  CHECK(buffers.peakLiveBytes() == 128); // a and b at b
}

// a is read only through a tuple and get-tuple-element, by r at the end;
// made first (as stored, and as the list schedule does, a coming first in
// stored order among equals) it is live while b and c are made: 192 at c.
// The depth-first schedule enters c's bigger subgraph first, then makes a
// just before r: at most two values live, 128.
TEST_CASE("aliases count their readers, and the depth-first schedule wins "
          "where the greedy one cannot look ahead",
          "[schedule]") {
  auto module = parse(R"(HloModule alias, entry=main
ENTRY main {
  x = f32[16] parameter(0)
  a = f32[16] exponential(x)
  t = (f32[16], f32[16]) tuple(a, x)
  g = f32[16] get-tuple-element(t), index=0
  b = f32[16] negate(x)
  c = f32[16] negate(b)
  ROOT r = f32[16] add(g, c)
})");
  const ir::Computation &entry = *module->entry();
  MemoryModel model = unitModel(entry, {"a", "b", "c"});
  CHECK(peakLiveBytes(listSchedule(entry, model), model) == 192);
  std::vector<const ir::Instruction *> dfs = depthFirstSchedule(entry, model);
  CHECK(names(dfs) == "x b c a t g r");
  CHECK(peakLiveBytes(dfs, model) == 128);

  BufferAssignment buffers = assign(*module);
  CHECK(buffers.scheduleStrategy() == ScheduleStrategy::DepthFirst);
  CHECK(buffers.peakLiveBytes() == 128);
  CHECK(buffers.arenaBytes() == 128);
  // a is read by r (position 6) through g.
  CHECK(buffers.liveRange({find(entry, "a"), -1}) ==
        std::pair<int64_t, int64_t>{3, 6});
}

TEST_CASE("transient bytes count only at their instruction, live-out values "
          "to the end, end bytes after the last instruction",
          "[schedule]") {
  auto module = parse(R"(HloModule parts, entry=main
ENTRY main {
  x = f32[16] parameter(0)
  a = f32[16] exponential(x)
  b = f32[16] negate(a)
  ROOT c = f32[16] negate(b)
})");
  const ir::Computation &entry = *module->entry();
  std::vector<ir::Instruction *> all = entry.instructions();
  std::vector<const ir::Instruction *> order(all.begin(), all.end());
  MemoryModel model = unitModel(entry, {"a", "b"});
  CHECK(peakLiveBytes(order, model) == 128); // a and b at b
  model.transient[find(entry, "c")] = 1024;  // b and the scratch at c
  CHECK(peakLiveBytes(order, model) == 1088);
  model.transient.clear();
  model.liveOut.insert({find(entry, "a"), -1}); // a, b, then a at 4
  model.endBytes = 128;
  CHECK(peakLiveBytes(order, model) == 192); // a + staging at the end
}

TEST_CASE("a written-back value stays live to the end of the schedule",
          "[schedule][buffers]") {
  // The new value n of argument 0 is read at the end, after the copies:
  // at the end n is live alone, and at m both n and m are.
  auto module = parse(R"(HloModule step, entry=main
ENTRY main {
  v = f32[16] parameter(0)
  n = f32[16] exponential(v)
  m = f32[16] negate(n)
  o = f32[16] negate(m)
  ROOT t = (f32[16], f32[16]) tuple(n, o)
})");
  BufferAssignment buffers = assign(*module, {{0, 0}});
  int64_t end = int64_t(buffers.schedule().size());
  CHECK(buffers.liveRange({find(*module->entry(), "n"), -1}).second == end);
  CHECK(buffers.peakLiveBytes() == 128);
  CHECK(buffers.arenaBytes() == 128);
}

TEST_CASE("schedules do not depend on where instructions live in memory",
          "[schedule]") {
  // Parse twice (different addresses); the orders must be the same.
  auto first = parse(kBranches);
  auto second = parse(kBranches);
  CHECK(names(assign(*first).schedule()) == names(assign(*second).schedule()));
  MemoryModel a = unitModel(*first->entry(), {"a1", "b1", "c1", "a2"});
  MemoryModel b = unitModel(*second->entry(), {"a1", "b1", "c1", "a2"});
  CHECK(names(depthFirstSchedule(*first->entry(), a)) ==
        names(depthFirstSchedule(*second->entry(), b)));
}

// runsAfter orders without data: here a2 must run after c2 (as an in-place
// loop state update runs after the other reads of the old value). The
// stored order runs a2 first, so it is no candidate; the list and
// depth-first schedules both honour the edge, and so does the pick.
TEST_CASE("every schedule honours runsAfter, and a stored order that does "
          "not is never picked",
          "[schedule]") {
  auto module = parse(kBranches);
  const ir::Computation &entry = *module->entry();
  MemoryModel model =
      unitModel(entry, {"a1", "b1", "c1", "a2", "b2", "c2", "s1"});
  model.runsAfter[find(entry, "a2")] = {find(entry, "c2")};
  auto before = [](const std::vector<const ir::Instruction *> &order,
                   const std::string &first, const std::string &second) {
    size_t a = order.size(), b = order.size();
    for (size_t i = 0; i < order.size(); ++i) {
      if (order[i]->name() == first)
        a = i;
      if (order[i]->name() == second)
        b = i;
    }
    return a < b && b < order.size();
  };
  CHECK(before(listSchedule(entry, model), "c2", "a2"));
  CHECK(before(depthFirstSchedule(entry, model), "c2", "a2"));
  Schedule best = scheduleForMemory(entry, model);
  CHECK(best.strategy != ScheduleStrategy::Stored);
  CHECK(before(best.order, "c2", "a2"));
  CHECK(best.order.size() == entry.instructions().size());
  // Without the edge the list schedule runs a2 long before c2.
  CHECK(before(listSchedule(entry, unitModel(entry, {"a1", "b1", "c1", "a2",
                                                     "b2", "c2", "s1"})),
               "a2", "c2"));
}
