//===- BufferAssignment.cpp - Args, results, constants and one arena ------===//
//
// Values are classified first (argument, result, constant, arena; fused
// and scratch values belong to their fusion or dot); the arena values then
// form the MemoryModel the scheduler (Schedule.h) orders the entry
// computation by. Each array value gets a live range [definition, last use]
// in schedule positions; values the caller owns (parameters, results) and
// constants never enter the arena. Arena values are placed by best fit
// (ArenaPlacement.h) in a few orders, ties breaking on schedule position
// so the result is deterministic, then moved within that arena so a pool's
// two threads write their halves of each value on bytes they wrote last
// (ArenaHalves.cpp).
//
// Argument write-backs (writable variables) are root elements that are not
// results: arena values among them stay live past the last instruction, and
// a new value that is another written argument gets a staging slice above
// everything else, used only during the final copies.
//
// The computations a while or conditional runs are assigned by Builders of
// their own (BufferAssignmentCallees.cpp), a while body's in-place updates
// of its loop state come from LoopStateUpdates.cpp, the root's results and
// write-backs are split in BufferAssignmentRoot.cpp, and the text form is
// BufferAssignmentPrint.cpp.
//
//===----------------------------------------------------------------------===//
#include "kiln/Analysis/BufferAssignment.h"
#include "BufferAssignmentBuilder.h"
#include "kiln/Analysis/ArenaPlacement.h"
#include "kiln/Analysis/OverwrittenLoopState.h"
#include "kiln/Analysis/Schedule.h"
#include "kiln/Analysis/Winograd.h"
#include "kiln/Support/CheckedArithmetic.h"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <optional>
#include <set>
#include <tuple>

namespace kiln::analysis {

using ir::Instruction;
using ir::Opcode;

const Instruction *outputFusionContraction(const Instruction &fusion) {
  const ir::Computation *called = fusion.calledComputation();
  if (fusion.opcode() != Opcode::Fusion || !called ||
      fusion.attrs().fusionKind != ir::FusionKind::Output ||
      fusion.shape().isTuple())
    return nullptr;
  const Instruction *root = called->root();
  if (!ir::isElementwise(root->opcode()))
    return nullptr;
  const Instruction *contraction = nullptr;
  for (const Instruction *inner : called->instructions()) {
    if (ir::isElementalInFusion(inner->opcode()))
      continue;
    if (contraction)
      return nullptr; // a second materialized instruction
    contraction = inner;
  }
  if (!contraction || (contraction->opcode() != Opcode::Dot &&
                       contraction->opcode() != Opcode::Convolution))
    return nullptr;
  const ir::Shape &shape = contraction->shape();
  if (shape.isTuple() || shape.dims() != fusion.shape().dims() ||
      shape.byteSize() != fusion.shape().byteSize())
    return nullptr;
  // Every value reading the contraction, transitively, is elementwise (reads
  // its operands at its own index) and so has the output's dimensions.
  std::vector<const Instruction *> work{contraction};
  std::set<const Instruction *> seen{contraction};
  while (!work.empty()) {
    const Instruction *value = work.back();
    work.pop_back();
    for (const Instruction *user : value->users()) {
      if (!ir::isElementwise(user->opcode()) ||
          user->shape().dims() != shape.dims())
        return nullptr;
      if (seen.insert(user).second)
        work.push_back(user);
    }
  }
  return seen.count(root) ? contraction : nullptr;
}

int64_t packingScratchBytes(const Instruction &dot, const Instruction &rhs) {
  if (dot.opcode() == Opcode::Convolution) {
    std::optional<WinogradPlan> plan = winogradPlan(dot, rhs);
    return plan ? plan->scratchBytes() : 0;
  }
  ir::DType dtype = dot.shape().dtype();
  if (dot.opcode() != Opcode::Dot || rhs.opcode() == Opcode::Constant ||
      (dtype != ir::DType::F32 && dtype != ir::DType::F64) ||
      dot.operand(0)->shape().dtype() != dtype ||
      dot.operand(1)->shape().dtype() != dtype)
    return 0;
  const auto &dn = dot.attrs().dot;
  const ir::Shape &shape = dot.operand(1)->shape();
  int64_t batches = 1, k = 1, n = 1;
  std::vector<int64_t> free;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    auto in = [d](const std::vector<int64_t> &dims) {
      return std::find(dims.begin(), dims.end(), d) != dims.end();
    };
    if (in(dn.rhsBatch))
      batches *= shape.dim(size_t(d));
    else if (in(dn.rhsContracting))
      k *= shape.dim(size_t(d));
    else {
      n *= shape.dim(size_t(d));
      free.push_back(d);
    }
  }
  // Contiguous columns: the free dimensions are the trailing ones.
  bool contiguous = n == 1;
  if (!free.empty() && free.back() == shape.rank() - 1)
    contiguous |= free.front() == shape.rank() - int64_t(free.size());
  if (contiguous || k == 0 || n == 0)
    return 0;
  int64_t columns = (n + kPackingPanelColumns - 1) / kPackingPanelColumns *
                    kPackingPanelColumns;
  // Saturated, not wrapped: the rhs fits int64_t but its columns rounded
  // up to whole panels may not, and checkArenaFitsInt64 refuses the sum.
  return checkedProduct({batches, k, columns, int64_t(ir::byteSize(dtype))})
      .value_or(INT64_MAX);
}

int64_t sortScratchOffset(const Instruction &sort, size_t operand) {
  const ir::Shape &keys = sort.operand(0)->shape();
  const std::vector<int64_t> &axis = sort.attrs().dimensions;
  if (keys.isTuple() || axis.empty() || axis[0] < 0 || axis[0] >= keys.rank() ||
      keys.dim(size_t(axis[0])) <= kSortInsertionRun)
    return 0;
  int64_t length = keys.dim(size_t(axis[0]));
  // Two rows per operand, each operand's pair on its own cache lines.
  int64_t offset = 0;
  for (size_t q = 0; q < operand && q < sort.operandCount(); ++q) {
    std::optional<int64_t> rows = checkedProduct(
        {2, length, int64_t(ir::byteSize(sort.operand(q)->shape().dtype()))});
    // Saturated, not wrapped: checkArenaFitsInt64 refuses the sum.
    if (!rows || *rows > INT64_MAX / 2 - offset)
      return INT64_MAX;
    offset += alignTo(*rows, 64);
  }
  return offset;
}

ValueRef BufferAssignment::resolve(ValueRef value) {
  return resolveValue(value);
}

namespace buffers {

Error Builder::classify(const Instruction *instruction) {
  const ir::Shape &shape = instruction->shape();
  switch (instruction->opcode()) {
  case Opcode::Parameter:
    if (role_ == Role::Callee)
      return Error::success(); // aliasCalleeParameters, once placed
    if (shape.isTuple())
      return makeError("buffer assignment: tuple-shaped parameter '{}' is "
                       "not supported; pass each element as its own parameter",
                       instruction->name());
    slices_[{instruction, -1}] = {BufferKind::Arg, instruction->parameterNumber(),
                                  0, shape.byteSize()};
    return Error::success();
  case Opcode::Constant:
    slices_[{instruction, -1}] = {BufferKind::Constant, 0, 0, shape.byteSize()};
    return Error::success();
  case Opcode::Tuple:
  case Opcode::GetTupleElement:
    return Error::success(); // aliases, no storage of their own
  default:
    break;
  }
  if (const Instruction *argument = viewedArgument(instruction)) {
    // Reads the caller's argument in place: storage is row-major either way.
    inPlace_[{instruction, -1}] = {argument, -1};
    slices_[{instruction, -1}] = {BufferKind::Arg, argument->parameterNumber(),
                                  0, shape.byteSize()};
    return Error::success();
  }
  if (const StateUpdate *update = stateUpdateOf(instruction)) {
    // Lives in the loop state's slice (aliasStateUpdates, once placed).
    inPlace_[{instruction, -1}] = {entry_.parameter(0), update->index};
    return Error::success();
  }
  if (const StateUpdate *update = viewedStateUpdate(instruction)) {
    // Reads the state slice the update wrote: row-major either way.
    inPlace_[{instruction, -1}] = {entry_.parameter(0), update->index};
    stateViews_.push_back({instruction, update->index});
    return Error::success();
  }
  auto host = hosts_.find({instruction, -1});
  if (host != hosts_.end())
    // Lives in its consumer's slice (aliasConsumerHosts, once placed).
    inPlace_[{instruction, -1}] = host->second;
  if (!shape.isTuple()) {
    if (host == hosts_.end())
      addArenaValue({instruction, -1}, shape.byteSize(), instruction);
    if (instruction->opcode() == Opcode::Dot ||
        instruction->opcode() == Opcode::Convolution)
      addPackingScratch(instruction, *instruction->operand(1), instruction);
  } else {
    for (size_t i = 0; i < shape.tupleElements().size(); ++i) {
      const ir::Shape &element = shape.tupleElements()[i];
      if (element.isTuple())
        return makeError("buffer assignment: '{}' has a nested tuple element",
                         instruction->name());
      ValueRef value{instruction, int64_t(i)};
      if (const Instruction *argument = argumentStateElement(value)) {
        // Loop state no trip writes, read where the caller's argument is.
        inPlace_[value] = {argument, -1};
        slices_[value] = {BufferKind::Arg, argument->parameterNumber(), 0,
                          element.byteSize()};
      } else if (auto elementHost = hosts_.find(value);
                 elementHost != hosts_.end()) {
        inPlace_[value] = elementHost->second;
      } else {
        addArenaValue(value, element.byteSize(), instruction);
      }
    }
  }
  if (instruction->opcode() == Opcode::Sort)
    addSortScratch(instruction, instruction);
  if (instruction->opcode() == Opcode::Fusion)
    return classifyFusion(instruction);
  if (instruction->opcode() == Opcode::Call)
    return makeError("buffer assignment: call '{}' must be inlined first "
                     "(the inline-calls pass)",
                     instruction->name());
  if (ir::callsSequentially(instruction->opcode()))
    return classifyCallees(instruction);
  return Error::success();
}

/// Scratch of a dot (run-time packing) or of a Winograd convolution (its
/// tile blocks): live only while the kernel runs, like fused values.
void Builder::addPackingScratch(const Instruction *dot, const Instruction &rhs,
                                const Instruction *owner) {
  if (dot->opcode() == Opcode::Convolution && !winograd_)
    return;
  int64_t bytes = packingScratchBytes(*dot, rhs);
  if (bytes == 0)
    return;
  ValueRef scratch{dot, BufferAssignment::kScratchIndex};
  addArenaValue(scratch, bytes, owner);
  fixedRange_.insert(scratch);
}

/// The merge passes' rows of a sort (sortScratchOffset): live only while it
/// runs, like packing scratch.
void Builder::addSortScratch(const Instruction *sort, const Instruction *owner) {
  int64_t bytes = sortScratchOffset(*sort, sort->operandCount());
  if (bytes == 0)
    return;
  ValueRef scratch{sort, BufferAssignment::kScratchIndex};
  addArenaValue(scratch, bytes, owner);
  fixedRange_.insert(scratch);
}

void Builder::addArenaValue(ValueRef value, int64_t bytes,
                            const Instruction *owner) {
  slices_[value] = {BufferKind::Arena, 0, 0, bytes};
  owner_[value] = owner;
  arenaOrder_.push_back(value);
  placed_.push_back(value);
}

/// Fused instructions that cannot be generated element by element get
/// their own arena bytes, live only at the fusion's position (so they never
/// share bytes with the fusion's operands or output).
Error Builder::classifyFusion(const Instruction *fusion) {
  const ir::Computation *called = fusion->calledComputation();
  if (!called)
    return makeError("buffer assignment: fusion '{}' has no computation",
                     fusion->name());
  fusions_.push_back(fusion);
  std::vector<const Instruction *> roots;
  if (called->root()->opcode() == Opcode::Tuple)
    for (const Instruction *op : called->root()->operands())
      roots.push_back(op);
  else
    roots.push_back(called->root());
  // Computed straight into the fusion's output (aliasFusionRoots).
  const Instruction *inPlace = outputFusionContraction(*fusion);
  if (inPlace)
    inPlace_[{inPlace, -1}] = {fusion, -1};
  for (const Instruction *inner : called->instructions()) {
    if (inner->opcode() == Opcode::Dot ||
        inner->opcode() == Opcode::Convolution) {
      const Instruction *rhs = inner->operand(1);
      if (rhs->opcode() == Opcode::Parameter)
        rhs = fusion->operand(size_t(rhs->parameterNumber()));
      addPackingScratch(inner, *rhs, fusion);
    }
    if (inner->opcode() == Opcode::Sort)
      addSortScratch(inner, fusion);
    if (inner == inPlace)
      continue;
    if (inner->opcode() == Opcode::Constant) {
      slices_[{inner, -1}] = {BufferKind::Constant, 0, 0,
                              inner->shape().byteSize()};
      continue;
    }
    if (ir::isElementalInFusion(inner->opcode()) ||
        std::find(roots.begin(), roots.end(), inner) != roots.end())
      continue;
    if (inner->opcode() == Opcode::Fusion)
      return makeError("buffer assignment: nested fusion '{}' is not supported",
                       inner->name());
    const ir::Shape &shape = inner->shape();
    size_t count = shape.isTuple() ? shape.tupleElements().size() : 1;
    for (size_t i = 0; i < count; ++i) {
      ValueRef value{inner, shape.isTuple() ? int64_t(i) : -1};
      const ir::Shape &s = shape.isTuple() ? shape.tupleElements()[i] : shape;
      addArenaValue(value, s.byteSize(), fusion);
      fixedRange_.insert(value);
    }
  }
  return Error::success();
}

/// The scheduler and placement add arena bytes up in int64_t. Their sums
/// never exceed every arena value side by side, plus a staging copy of
/// each write-back, so a module whose total overflows (sizes a model may
/// declare) is refused before any of them runs.
Error Builder::checkArenaFitsInt64() const {
  std::vector<int64_t> sizes;
  for (ValueRef value : arenaOrder_)
    if (slices_.at(value).kind == BufferKind::Arena)
      sizes.push_back(slices_.at(value).bytes);
  for (const WriteBack &writeBack : writeBacks_)
    if (auto slice = slices_.find(writeBack.value); slice != slices_.end())
      sizes.push_back(slice->second.bytes);
  std::optional<int64_t> total = 0;
  for (int64_t bytes : sizes) {
    std::optional<int64_t> aligned =
        checkedAdd(bytes, BufferAssignment::kArenaAlignment - 1);
    total = total && aligned ? checkedAdd(*total, *aligned) : std::nullopt;
  }
  if (!total)
    return makeError("buffer assignment: the arena's values add up to more "
                     "than 2^63 bytes");
  return Error::success();
}

/// What the scheduler needs: the values left in the arena once results and
/// write-backs are known, in whole alignment units as the arena places them.
MemoryModel Builder::memoryModel() const {
  MemoryModel model;
  for (ValueRef value : arenaOrder_) {
    const BufferSlice &slice = slices_.at(value);
    if (slice.kind != BufferKind::Arena)
      continue;
    int64_t bytes = alignTo(slice.bytes, BufferAssignment::kArenaAlignment);
    const Instruction *owner = owner_.at(value);
    if (fixedRange_.count(value))
      model.transient[owner] += bytes;
    else
      model.defined[owner][value] = bytes;
  }
  for (const StateUpdate &update : stateUpdates_)
    model.runsAfter[update.update] = update.readsFirst;
  for (const auto &[writer, first] : hostOrder_)
    model.runsAfter[writer] = first;
  model.readsAs = hosts_;
  if (role_ == Role::Callee) { // keepRootLive
    std::vector<ValueRef> root;
    containedValues(entry_.root(), root);
    model.liveOut.insert(root.begin(), root.end());
  }
  for (const WriteBack &writeBack : writeBacks_) {
    model.liveOut.insert(writeBack.value);
    if (needsStaging(writeBack))
      model.endBytes += alignTo(slices_.at(writeBack.value).bytes,
                                BufferAssignment::kArenaAlignment);
  }
  return model;
}

/// Every candidate starts at its owner's schedule position; placement then
/// meets candidates in schedule order, so ties follow the schedule.
void Builder::setLiveRanges(const std::vector<const Instruction *> &schedule) {
  std::map<const Instruction *, int64_t> position;
  for (size_t i = 0; i < schedule.size(); ++i)
    position[schedule[i]] = int64_t(i);
  for (ValueRef value : arenaOrder_) {
    int64_t start = position.at(owner_.at(value));
    ranges_[value] = {start, start};
  }
  std::stable_sort(arenaOrder_.begin(), arenaOrder_.end(),
                   [&](ValueRef a, ValueRef b) {
                     return ranges_[a].first < ranges_[b].first;
                   });
}

void Builder::computeLastUses(const std::vector<const Instruction *> &schedule) {
  for (const auto &[read, last] : analysis::computeLastUses(schedule)) {
    ValueRef value = read;
    if (auto host = hosts_.find(read); host != hosts_.end())
      value = host->second; // a read of a guest reads its host's bytes
    auto it = ranges_.find(value);
    if (it != ranges_.end() && !fixedRange_.count(value))
      it->second.second = std::max(it->second.second, last);
  }
}

int64_t Builder::placeArena(Totals &totals) {
  std::vector<ValueRef> values;
  std::vector<ArenaInterval> intervals;
  for (ValueRef value : arenaOrder_) {
    const BufferSlice &slice = slices_[value];
    if (slice.kind != BufferKind::Arena)
      continue;
    auto [start, end] = ranges_[value];
    values.push_back(value);
    intervals.push_back({slice.bytes, start, end});
  }
  ArenaPlacement placement =
      placeIntervals(intervals, BufferAssignment::kArenaAlignment);
  totals.crossedHalves = alignThreadHalves(intervals, placement,
                                          BufferAssignment::kArenaAlignment);
  for (size_t i = 0; i < values.size(); ++i)
    slices_[values[i]].offset = placement.offsets[i];
  return placement.arenaBytes;
}

/// A materialized fused root is written straight into the fusion's slice,
/// and so is an output fusion's contraction.
void Builder::aliasFusionRoots() {
  auto alias = [&](ValueRef value, ValueRef owner) {
    slices_[value] = slices_[owner];
    placed_.push_back(value); // a copy: shiftBy moves it too
  };
  for (const Instruction *fusion : fusions_)
    if (const Instruction *contraction = outputFusionContraction(*fusion))
      alias({contraction, -1}, {fusion, -1});
  for (const Instruction *fusion : fusions_) {
    const Instruction *root = fusion->calledComputation()->root();
    if (root->opcode() == Opcode::Tuple) {
      for (size_t i = 0; i < root->operandCount(); ++i) {
        const Instruction *op = root->operand(i);
        if (!ir::isElementalInFusion(op->opcode()) && !op->shape().isTuple())
          alias({op, -1}, {fusion, int64_t(i)});
      }
      continue;
    }
    if (ir::isElementalInFusion(root->opcode()))
      continue;
    const ir::Shape &shape = root->shape();
    size_t count = shape.isTuple() ? shape.tupleElements().size() : 1;
    for (size_t i = 0; i < count; ++i) {
      int64_t index = shape.isTuple() ? int64_t(i) : -1;
      alias({root, index}, {fusion, index});
    }
  }
}

/// The lower bound of any placement: the most bytes (as the arena rounds
/// them) of arena values live at one schedule position, write-back staging
/// included at `end`, the position after the last instruction; and the
/// first position where they are live.
std::pair<int64_t, int64_t> Builder::peakLiveBytes(int64_t end) const {
  std::map<int64_t, int64_t> delta; // position -> change of live bytes
  auto add = [&](int64_t first, int64_t last, int64_t bytes) {
    delta[first] += bytes;
    delta[last + 1] -= bytes;
  };
  for (ValueRef value : arenaOrder_) {
    const BufferSlice &slice = slices_.at(value);
    if (slice.kind != BufferKind::Arena)
      continue;
    auto [first, last] = ranges_.at(value);
    add(first, last, alignTo(slice.bytes, BufferAssignment::kArenaAlignment));
  }
  for (const WriteBack &writeBack : writeBacks_)
    if (writeBack.staging)
      add(end, end,
          alignTo(writeBack.staging->bytes, BufferAssignment::kArenaAlignment));
  int64_t live = 0, peak = 0, peakPosition = 0;
  for (const auto &[position, change] : delta)
    if ((live += change) > peak)
      std::tie(peak, peakPosition) = std::pair(live, position);
  return {peak, peakPosition};
}

Error Builder::run(std::vector<const Instruction *> &schedule,
                   const std::vector<ArgWriteBack> &specs, Totals &totals) {
  std::vector<ValueRef> root;
  containedValues(entry_.root(), root);
  for (ValueRef value : root)
    rootInstructions_.insert(value.instruction);
  // Values already in place elsewhere neither take nor give a host's bytes.
  // A body updating its state in place already orders its readers
  // (runsAfter); concatenates there copy, so the two orders never meet.
  ConsumerHosts hosts = consumerHosts(
      entry_,
      [&](const Instruction *instruction) {
        return stateUpdateOf(instruction) || viewedArgument(instruction) ||
               viewedStateUpdate(instruction);
      },
      [&](ValueRef value) { return argumentStateElement(value) != nullptr; },
      stateUpdates_.empty());
  hosts_ = hosts.hostOf;
  regions_ = hosts.regionOf;
  hostOrder_ = hosts.runsAfter;
  concatenateCopies_ = hosts.copies;
  for (const Instruction *instruction : entry_.instructions())
    if (Error e = classify(instruction))
      return e;
  ownHostsFromGuests(hosts.firstWriter);
  if (role_ == Role::Entry) {
    if (Error e = splitRoot(specs))
      return e;
    // Results stay live to the end (they are not in the arena anyway).
    assignResults();
  }
  if (Error e = checkArenaFitsInt64())
    return e;
  Schedule chosen = scheduleForMemory(entry_, memoryModel());
  schedule = std::move(chosen.order);
  totals.strategy = chosen.strategy;
  setLiveRanges(schedule);
  computeLastUses(schedule);
  int64_t end = int64_t(schedule.size());
  keepWriteBacksLive(end);
  if (role_ == Role::Callee)
    keepRootLive(end);
  totals.arenaBytes = placeStaging(placeArena(totals));
  aliasConsumerHosts();
  for (CalleeBlock &block : calleeBlocks_) {
    auto slice = slices_.find({block.caller, kCalleeBlockIndex});
    int64_t base = slice == slices_.end() ? 0 : slice->second.offset;
    for (auto &builder : block.builders) {
      builder->shiftBy(base);
      placed_.insert(placed_.end(), builder->placed_.begin(),
                     builder->placed_.end());
    }
  }
  aliasFusionRoots();
  std::tie(totals.peakLiveBytes, totals.peakPosition) = peakLiveBytes(end);
  assert(totals.peakLiveBytes == chosen.peakLiveBytes &&
         "the scheduler and buffer assignment disagree on live bytes");
  return Error::success();
}

} // namespace buffers

Expected<BufferAssignment>
BufferAssignment::build(const ir::Module &module,
                        const std::vector<ArgWriteBack> &writeBacks,
                        bool winograd) {
  const ir::Computation *entry = module.entry();
  if (!entry || !entry->root())
    return makeError("buffer assignment: module '{}' has no entry computation",
                     module.name());
  BufferAssignment result;
  buffers::Builder builder(*entry, buffers::Builder::Role::Entry,
                           result.slices_, result.results_, result.writeBacks_,
                           result.liveRanges_, result.inPlace_,
                           result.calleeSchedules_, winograd);
  if (Error e = builder.run(result.schedule_, writeBacks, result.totals_))
    return e;
  if (Error e = builder.aliasCalleeParameters())
    return e;
  builder.collectConcatenates(result.concatenateGuests_,
                              result.concatenateCopies_);
  result.findOverwrittenState(*entry, result.schedule_);
  return result;
}

void BufferAssignment::findOverwrittenState(
    const ir::Computation &computation,
    const std::vector<const ir::Instruction *> &schedule) {
  std::set<const ir::Instruction *> dead = deadInitialValues(computation);
  for (const ir::Instruction *instruction : schedule) {
    if (dead.count(instruction)) {
      deadInitialValues_.insert(instruction);
      deadOrder_.push_back(instruction);
    }
    if (instruction->opcode() == Opcode::While)
      for (size_t i = 0; i < instruction->shape().tupleElements().size(); ++i)
        if (initialStateOverwritten(*instruction, int64_t(i))) {
          overwrittenStates_.insert({instruction, int64_t(i)});
          overwrittenOrder_.push_back({instruction, int64_t(i)});
        }
    if (ir::callsSequentially(instruction->opcode()))
      for (const ir::Computation *callee : instruction->calledComputations())
        if (auto it = calleeSchedules_.find(callee); it != calleeSchedules_.end())
          findOverwrittenState(*callee, it->second);
  }
}

const BufferSlice *
BufferAssignment::packingScratch(const ir::Instruction *instruction) const {
  auto it = slices_.find({instruction, kScratchIndex});
  return it == slices_.end() ? nullptr : &it->second;
}

bool BufferAssignment::hasSlice(ValueRef value) const {
  return slices_.count(resolve(value)) != 0;
}

const BufferSlice &BufferAssignment::slice(ValueRef value) const {
  auto it = slices_.find(resolve(value));
  assert(it != slices_.end() && "value has no buffer");
  return it->second;
}

std::pair<int64_t, int64_t> BufferAssignment::liveRange(ValueRef value) const {
  auto it = liveRanges_.find(resolve(value));
  return it == liveRanges_.end() ? std::pair<int64_t, int64_t>{-1, -1}
                                 : it->second;
}

bool BufferAssignment::sameSlice(ValueRef a, ValueRef b) const {
  if (!hasSlice(a) || !hasSlice(b))
    return false;
  const BufferSlice &x = slice(a), &y = slice(b);
  return x.kind == y.kind && x.index == y.index && x.offset == y.offset;
}

bool BufferAssignment::bytesOverlap(ValueRef a, ValueRef b) const {
  if (!hasSlice(a) || !hasSlice(b))
    return false;
  const BufferSlice &x = slice(a), &y = slice(b);
  return x.kind == y.kind && x.kind != BufferKind::Constant &&
         x.index == y.index && x.offset < y.offset + y.bytes &&
         y.offset < x.offset + x.bytes;
}

bool BufferAssignment::inPlaceInConcatenate(
    ValueRef value, const ir::Instruction *concatenate) const {
  auto it = concatenateGuests_.find(resolve(value));
  return it != concatenateGuests_.end() && it->second == concatenate;
}

bool BufferAssignment::resultNeedsCopy(int64_t i) const {
  const BufferSlice &s = slice(results_[size_t(i)]);
  return s.kind != BufferKind::Result || s.index != i;
}

} // namespace kiln::analysis
