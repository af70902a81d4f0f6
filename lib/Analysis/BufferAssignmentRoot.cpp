//===- BufferAssignmentRoot.cpp - Results, write-backs and their staging ---===//
//
// The root's array values become the caller's result buffers, unless the
// caller owns them already (parameters), they are read-only (constants) or
// an earlier result took them; the rest are argument write-backs (writable
// variables), which stay live past the last instruction, with a staging
// slice above the arena for a new value that lives in another written
// argument.
//
//===----------------------------------------------------------------------===//
#include "BufferAssignmentBuilder.h"

#include "kiln/Analysis/ArenaPlacement.h"

#include <fmt/format.h>
#include <set>

namespace kiln::analysis::buffers {

static const ir::Shape &valueShape(ValueRef value) {
  const ir::Shape &shape = value.instruction->shape();
  return value.tupleIndex < 0 ? shape
                              : shape.tupleElements()[size_t(value.tupleIndex)];
}

/// Splits the root's array values into results and argument write-backs.
Error Builder::splitRoot(const std::vector<ArgWriteBack> &specs) {
  std::vector<ValueRef> root;
  containedValues(entry_.root(), root);
  std::vector<bool> written(root.size(), false);
  std::set<int64_t> targets;
  for (const ArgWriteBack &spec : specs) {
    if (spec.result < 0 || spec.result >= int64_t(root.size()))
      return makeError("buffer assignment: write-back of root element {}, but "
                       "the root has {} elements",
                       spec.result, root.size());
    const Instruction *parameter =
        spec.arg < 0 ? nullptr : entry_.parameter(spec.arg);
    if (!parameter)
      return makeError("buffer assignment: write-back into argument {}, which "
                       "does not exist",
                       spec.arg);
    if (written[size_t(spec.result)] || !targets.insert(spec.arg).second)
      return makeError("buffer assignment: root element {} or argument {} is "
                       "in more than one write-back",
                       spec.result, spec.arg);
    ValueRef value = root[size_t(spec.result)];
    if (!(valueShape(value) == parameter->shape()))
      return makeError("buffer assignment: root element {} has shape {} but "
                       "it is written back into argument {} of shape {}",
                       spec.result, valueShape(value).toString(), spec.arg,
                       parameter->shape().toString());
    written[size_t(spec.result)] = true;
    ValueRef target{parameter, -1};
    bool unchanged = !(value < target) && !(target < value);
    writeBacks_.push_back({value, target, std::nullopt, unchanged});
  }
  for (size_t i = 0; i < root.size(); ++i)
    if (!written[i])
      results_.push_back(root[i]);
  return Error::success();
}

/// Arena values written back are read after the last instruction, at
/// position `end`, so nothing may reuse their bytes.
void Builder::keepWriteBacksLive(int64_t end) {
  for (const WriteBack &writeBack : writeBacks_) {
    auto range = ranges_.find(writeBack.value);
    if (range != ranges_.end() && !fixedRange_.count(writeBack.value))
      range->second.second = end;
  }
}

/// A new value that lives in another written argument must be copied out
/// before that argument is overwritten: it gets bytes of its own above the
/// rest of the arena (rare: a swap or an assignment between variables).
bool Builder::needsStaging(const WriteBack &writeBack) const {
  const BufferSlice &slice = slices_.at(writeBack.value);
  if (writeBack.unchanged || slice.kind != BufferKind::Arg)
    return false;
  // The value may be the argument itself or a view of its bytes (a
  // reshape, a loop state element no trip changes): compare buffers.
  for (const WriteBack &other : writeBacks_)
    if (other.target.instruction->parameterNumber() == slice.index)
      return true;
  return false;
}

int64_t Builder::placeStaging(int64_t arenaBytes) {
  for (WriteBack &writeBack : writeBacks_) {
    if (!needsStaging(writeBack))
      continue;
    const BufferSlice &source = slices_[writeBack.value];
    writeBack.staging = BufferSlice{BufferKind::Arena, 0, arenaBytes,
                                    source.bytes};
    arenaBytes = alignTo(arenaBytes + source.bytes,
                         BufferAssignment::kArenaAlignment);
  }
  return arenaBytes;
}

/// Root values go to the caller's result buffers, unless the caller owns
/// them already (parameters), they are read-only (constants) or an earlier
/// result took them: those are copied by code generation.
void Builder::assignResults() {
  for (size_t i = 0; i < results_.size(); ++i) {
    ValueRef value = results_[i];
    BufferSlice &slice = slices_[value];
    if (slice.kind != BufferKind::Arena)
      continue;
    slice = {BufferKind::Result, int64_t(i), 0, slice.bytes};
  }
}

} // namespace kiln::analysis::buffers
