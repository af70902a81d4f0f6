//===- OverwrittenLoopState.cpp - Initial loop state no trip reads --------===//
//
// The proof has two halves: the writes (a counted loop writing one slab per
// trip at an index that runs through 0 .. n-1 once) and the reads (none of
// the old value but the update's own). Both only look at the dataflow
// graph, so they hold for any schedule.
//
//===----------------------------------------------------------------------===//
#include "kiln/Analysis/OverwrittenLoopState.h"

#include "BufferAssignmentBuilder.h"
#include "kiln/Analysis/TripCount.h"
#include "kiln/IR/Opcode.h"

#include <algorithm>
#include <optional>

namespace kiln::analysis {

using ir::Instruction;
using ir::Opcode;

namespace {

/// Whether `value` is a get-tuple-element `index` of `parameter`.
bool readsElement(const Instruction &value, const Instruction *parameter,
                  int64_t index) {
  return value.opcode() == Opcode::GetTupleElement &&
         value.operand(0) == parameter && value.attrs().index == index;
}

/// The reads of state element `index` in `computation` (its parameter's
/// get-tuple-elements), or nullopt when the state is also read whole.
std::optional<std::vector<const Instruction *>>
elementReads(const ir::Computation &computation, int64_t index) {
  const Instruction *parameter = computation.parameter(0);
  std::vector<const Instruction *> reads;
  if (!parameter)
    return reads;
  for (const Instruction *user : parameter->users()) {
    if (user->opcode() != Opcode::GetTupleElement)
      return std::nullopt;
    if (user->attrs().index == index)
      reads.push_back(user);
  }
  return reads;
}

/// How many times `user` reads `value`.
size_t readsOf(const Instruction &user, const Instruction *value) {
  return size_t(std::count(user.operands().begin(), user.operands().end(),
                           value));
}

/// A start index as `offset + sign * counter`.
struct CounterIndex {
  int64_t offset = 0;
  int64_t sign = 1;
};

/// `index` as an affine function of the counter read `counter` (element
/// `counter` of `parameter`): the read itself, read + c, c + read,
/// read - c or c - read; nullopt otherwise.
std::optional<CounterIndex> counterIndex(const Instruction &index,
                                         const Instruction *parameter,
                                         int64_t counter) {
  if (readsElement(index, parameter, counter))
    return CounterIndex{0, 1};
  if (index.opcode() != Opcode::Add && index.opcode() != Opcode::Subtract)
    return std::nullopt;
  bool subtract = index.opcode() == Opcode::Subtract;
  for (size_t side = 0; side < 2; ++side) {
    if (!readsElement(*index.operand(side), parameter, counter))
      continue;
    std::optional<int64_t> constant = integerConstant(*index.operand(1 - side));
    if (!constant || *constant == INT64_MIN)
      return std::nullopt;
    if (!subtract)
      return CounterIndex{*constant, 1};
    return side == 0 ? CounterIndex{-*constant, 1} : CounterIndex{*constant, -1};
  }
  return std::nullopt;
}

/// Whether the indices `index` takes over the trips of `loop` are
/// 0 .. size-1, each once.
bool coversOnce(CounterIndex index, const CountedLoop &loop, int64_t size) {
  if (loop.trips != size || size < 1)
    return false;
  // Trip k writes offset + sign * (start + step * k): a run of consecutive
  // integers when the stride is +-1, starting at 0 from its low end.
  __int128 first = __int128(index.offset) + __int128(index.sign) * loop.start;
  __int128 stride = __int128(index.sign) * loop.step;
  if (stride != 1 && stride != -1)
    return false;
  __int128 last = first + stride * (size - 1);
  return std::min(first, last) == 0;
}

/// Whether dynamic-update-slice `update` of the state element read `old`
/// writes slabs 0 .. n-1 along one axis over the trips of `loop`, once each.
bool writesEverySlabOnce(const Instruction &update, const Instruction &old,
                         const CountedLoop &loop, const Instruction *parameter) {
  const ir::Shape &whole = old.shape();
  const ir::Shape &slab = update.operand(1)->shape();
  int64_t rank = whole.rank();
  if (rank < 1 || slab.rank() != rank ||
      update.operandCount() != size_t(2 + rank))
    return false;
  for (int64_t axis = 0; axis < rank; ++axis) {
    if (slab.dim(size_t(axis)) != 1)
      continue;
    bool spansOthers = true;
    for (int64_t d = 0; d < rank; ++d)
      spansOthers &= d == axis || slab.dim(size_t(d)) == whole.dim(size_t(d));
    // The other axes' starts clamp to 0 (the slab spans them).
    std::optional<CounterIndex> index =
        counterIndex(*update.operand(size_t(2 + axis)), parameter, loop.counter);
    if (spansOthers && index && coversOnce(*index, loop, whole.dim(size_t(axis))))
      return true;
  }
  return false;
}

/// Whether the only read of body parameter element `element` is `update`'s
/// operand 0.
bool onlyUpdateReadsOld(const std::vector<const Instruction *> &reads,
                        const Instruction &update) {
  for (const Instruction *read : reads)
    for (const Instruction *user : read->users())
      if (user != &update || readsOf(*user, read) != 1 ||
          update.operand(0) != read)
        return false;
  return true;
}

/// Whether `tuple` is the initial state of a while that reads it alone and
/// overwrites every element at which `value` enters it.
bool onlyOverwrittenState(const Instruction &tuple, const Instruction *value) {
  if (tuple.opcode() != Opcode::Tuple || tuple.users().size() != 1 ||
      tuple.parent()->root() == &tuple)
    return false;
  const Instruction &loop = *tuple.users().front();
  if (loop.opcode() != Opcode::While || loop.operand(0) != &tuple)
    return false;
  for (size_t i = 0; i < tuple.operandCount(); ++i)
    if (tuple.operand(i) == value && !initialStateOverwritten(loop, int64_t(i)))
      return false;
  return true;
}

/// Whether `instruction` may be left uncomputed at all: it has code of its
/// own that nothing but its value needs.
bool skippable(const Instruction &instruction) {
  return buffers::ownsArrayValue(instruction) &&
         !ir::callsSequentially(instruction.opcode());
}

} // namespace

bool initialStateOverwritten(const Instruction &loop, int64_t element) {
  if (loop.opcode() != Opcode::While || loop.calledComputations().size() != 2 ||
      !loop.shape().isTuple())
    return false;
  std::optional<CountedLoop> counted = countedLoop(loop);
  if (!counted || counted->counter < 0 || counted->counter == element)
    return false;
  const ir::Computation &condition = *loop.calledComputations()[0];
  const ir::Computation &body = *loop.calledComputations()[1];
  std::optional<std::vector<const Instruction *>> tested =
      elementReads(condition, element);
  if (!tested || !tested->empty())
    return false;
  const Instruction *root = body.root();
  const Instruction *parameter = body.parameter(0);
  if (!parameter || root->opcode() != Opcode::Tuple ||
      size_t(element) >= root->operandCount())
    return false;
  const Instruction &update = *root->operand(size_t(element));
  if (update.opcode() != Opcode::DynamicUpdateSlice ||
      !readsElement(*update.operand(0), parameter, element) ||
      update.users().size() != 1 || readsOf(*root, &update) != 1)
    return false;
  std::optional<std::vector<const Instruction *>> reads =
      elementReads(body, element);
  return reads && onlyUpdateReadsOld(*reads, update) &&
         writesEverySlabOnce(update, *update.operand(0), *counted, parameter);
}

std::set<const Instruction *>
deadInitialValues(const ir::Computation &computation) {
  std::set<const Instruction *> dead;
  std::vector<Instruction *> order = computation.postOrder();
  // Users before operands: a value is dead once all its readers are.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Instruction *value = *it;
    if (!skippable(*value) || value == computation.root() ||
        value->users().empty())
      continue;
    bool unread = std::all_of(
        value->users().begin(), value->users().end(),
        [&](const Instruction *user) {
          return dead.count(user) || onlyOverwrittenState(*user, value);
        });
    if (unread)
      dead.insert(value);
  }
  return dead;
}

} // namespace kiln::analysis
