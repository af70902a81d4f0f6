//===- ConsumerHosts.cpp - Values computed in their consumer's buffer -----===//
//
// Three consumers only ever copy their operands: a reshape (storage is
// row-major whatever the dimensions, so its bytes are its operand's), a
// while's initial state (copied into the loop state's slices before the
// first trip) and a concatenate (each operand copied into its part: a
// block of rows, strided when the concatenated dimension is not the
// outermost, as the channels of an NHWC concat). When such a consumer is a value's only reader, the value can
// be computed straight into the consumer's slice and the copy disappears:
// the reshape emits nothing, the while finds its state already in place.
// A chain (a GEMM's result, reshaped, passed into a loop, its final state
// reshaped into a result) ends in one host. A concatenate is fed by one
// chain per operand computed in place; the others it still copies, and
// the reasons go to the compile report.
//
// Only values with arena bytes of their own qualify as guests (array
// instructions and a while's state elements): parameters and constants
// belong to the caller or to read-only data; tuples and get-tuple-element
// own nothing; a computation's root is read by its caller. Buffer
// assignment gives a hosted value no bytes, makes its host live from the
// guest's definition, and aliases the guest's slice to the host's once
// placed (the Builder members at the end of this file, called from
// BufferAssignment.cpp); a reshape of an entry parameter instead reads the
// argument in place (viewedArgument), and so does a top-level while's state
// element that starts as an entry parameter and that no trip changes
// (argumentStateElement).
//
//===----------------------------------------------------------------------===//
#include "BufferAssignmentBuilder.h"

#include <algorithm>
#include <optional>
#include <set>

namespace kiln::analysis::buffers {

using ir::Opcode;

bool ownsArrayValue(const Instruction &instruction) {
  switch (instruction.opcode()) {
  case Opcode::Parameter:
  case Opcode::Constant:
  case Opcode::Tuple:
  case Opcode::GetTupleElement:
    return false;
  default:
    return !instruction.shape().isTuple();
  }
}

namespace {

/// How many times `user` reads `value`.
size_t readsOf(const Instruction &user, const Instruction *value) {
  return size_t(std::count(user.operands().begin(), user.operands().end(),
                           value));
}

/// The one instruction that reads `value`, once: through its only
/// get-tuple-element for a while's state element (every reader of the while
/// must be one), directly for an array instruction. Roots have a reader
/// outside the computation: none.
const Instruction *onlyReader(const ir::Computation &computation,
                              ValueRef value) {
  const Instruction *defined = value.instruction;
  if (defined == computation.root())
    return nullptr;
  if (value.tupleIndex >= 0) {
    const Instruction *element = nullptr;
    for (const Instruction *user : defined->users()) {
      if (user->opcode() != Opcode::GetTupleElement)
        return nullptr; // the whole state is read (a tuple, another loop)
      if (user->attrs().index != value.tupleIndex)
        continue;
      if (element)
        return nullptr;
      element = user;
    }
    if (!element)
      return nullptr;
    defined = element;
  }
  if (defined == computation.root() || defined->users().size() != 1)
    return nullptr;
  const Instruction *reader = defined->users().front();
  return readsOf(*reader, defined) == 1 ? reader : nullptr;
}

/// Operand `operand`'s part of concatenate `concat`'s bytes: the rows
/// before the concatenated dimension each hold every operand's block in
/// turn.
ConcatenateRegion regionIn(const Instruction *concat, size_t operand) {
  const ir::Shape &shape = concat->shape();
  size_t axis = size_t(concat->attrs().dimensions[0]);
  int64_t element = int64_t(ir::byteSize(shape.dtype()));
  int64_t rows = 1, inner = element;
  for (size_t d = 0; d < axis; ++d)
    rows *= shape.dim(d);
  for (size_t d = axis + 1; d < size_t(shape.rank()); ++d)
    inner *= shape.dim(d);
  int64_t before = 0;
  for (size_t i = 0; i < operand; ++i)
    before += concat->operand(i)->shape().dim(axis);
  int64_t width = concat->operand(operand)->shape().dim(axis);
  ConcatenateRegion region{concat, before * inner, width * inner,
                           shape.dim(axis) * inner};
  if (rows == 1) // one block: contiguous
    region.rowBytes = region.rowStride = 0;
  return region;
}

/// The consumer slice `value` can be computed into, when its only reader is
/// a reshape, (for an array instruction) a while's initial-state tuple, or
/// (when `concatenates`) a concatenate.
std::optional<ValueRef>
directHost(const ir::Computation &computation, ValueRef value,
           const std::function<bool(const Instruction *)> &excluded,
           bool concatenates) {
  const Instruction *reader = onlyReader(computation, value);
  if (!reader || excluded(reader))
    return std::nullopt;
  if (reader->opcode() == Opcode::Reshape && ownsArrayValue(*reader))
    return ValueRef{reader, -1};
  if (reader->opcode() == Opcode::Concatenate) {
    if (!concatenates || value.tupleIndex >= 0 ||
        value.instruction->shape().byteSize() == 0)
      return std::nullopt;
    return ValueRef{reader, -1};
  }
  if (value.tupleIndex >= 0 || reader->opcode() != Opcode::Tuple ||
      reader == computation.root() || reader->users().size() != 1)
    return std::nullopt;
  const Instruction *loop = reader->users().front();
  if (loop->opcode() != Opcode::While || loop->operand(0) != reader)
    return std::nullopt;
  const auto &elements = reader->operands();
  auto position =
      std::find(elements.begin(), elements.end(), value.instruction);
  return ValueRef{loop, int64_t(position - elements.begin())};
}

/// The values that could be guests: array instructions with bytes of their
/// own, and the state elements of every while.
std::vector<ValueRef> candidateGuests(const ir::Computation &computation) {
  std::vector<ValueRef> values;
  for (const Instruction *instruction : computation.instructions()) {
    if (ownsArrayValue(*instruction))
      values.push_back({instruction, -1});
    if (instruction->opcode() != Opcode::While)
      continue;
    for (size_t i = 0; i < instruction->shape().tupleElements().size(); ++i)
      if (!instruction->shape().tupleElements()[i].isTuple())
        values.push_back({instruction, int64_t(i)});
  }
  return values;
}

/// Why operand `operand` of `concat` is copied rather than computed in
/// place (it has no direct host there).
std::string copyReason(const ir::Computation &computation,
                       const Instruction *concat, const Instruction *operand,
                       const std::function<bool(const Instruction *)> &excluded,
                       bool concatenates) {
  if (!concatenates)
    return "in a loop body that updates its state in place";
  switch (operand->opcode()) {
  case Opcode::Parameter:
    return "a parameter (the caller's bytes)";
  case Opcode::Constant:
    return "a constant (read-only data)";
  case Opcode::GetTupleElement:
  case Opcode::Tuple:
    return "a tuple element";
  default:
    break;
  }
  if (operand->shape().byteSize() == 0)
    return "empty";
  if (operand == computation.root())
    return "returned by the computation";
  if (excluded(operand))
    return "computed in place elsewhere";
  if (readsOf(*concat, operand) > 1)
    return "read more than once by the concatenate";
  for (const Instruction *user : operand->users())
    if (user != concat)
      return "also read by %" + user->name();
  if (excluded(concat))
    return "the concatenate is in place elsewhere";
  return "not an array of its own";
}

/// The operands of every concatenate without a direct host there, and why.
std::vector<ConcatenateCopy>
concatenateCopies(const ir::Computation &computation,
                  const std::map<ValueRef, ValueRef> &direct,
                  const std::function<bool(const Instruction *)> &excluded,
                  bool concatenates) {
  std::vector<ConcatenateCopy> copies;
  for (const Instruction *concat : computation.instructions()) {
    if (concat->opcode() != Opcode::Concatenate)
      continue;
    std::set<const Instruction *> seen;
    for (const Instruction *operand : concat->operands()) {
      if (!seen.insert(operand).second)
        continue;
      auto host = direct.find({operand, -1});
      if (host != direct.end() && host->second.instruction == concat)
        continue;
      copies.push_back({concat, operand,
                        copyReason(computation, concat, operand, excluded,
                                   concatenates)});
    }
  }
  return copies;
}

} // namespace

ConsumerHosts
consumerHosts(const ir::Computation &computation,
              const std::function<bool(const Instruction *)> &excluded,
              const std::function<bool(ValueRef)> &excludedValue,
              bool concatenates) {
  std::map<ValueRef, ValueRef> direct;
  std::set<ValueRef> fed; // guests another guest is computed into
  for (ValueRef value : candidateGuests(computation)) {
    if (excluded(value.instruction) || excludedValue(value))
      continue;
    if (std::optional<ValueRef> host =
            directHost(computation, value, excluded, concatenates)) {
      direct[value] = *host;
      fed.insert(*host);
    }
  }
  // A concatenate inside another concatenate's region would need the two
  // regions composed: its operands keep their bytes (and are copied).
  ConsumerHosts result;
  for (auto it = direct.begin(); it != direct.end();) {
    const Instruction *host = it->second.instruction;
    bool nested = false;
    if (host->opcode() == Opcode::Concatenate)
      for (ValueRef next = it->second; direct.count(next);) {
        next = direct.at(next);
        nested |= next.instruction->opcode() == Opcode::Concatenate;
      }
    if (!nested) {
      ++it;
      continue;
    }
    result.copies.push_back({host, it->first.instruction,
                             "the concatenate is itself in another "
                             "concatenate's bytes"});
    it = direct.erase(it);
  }
  fed.clear();
  for (const auto &[guest, host] : direct)
    fed.insert(host);
  // Follow chains to their last host: a guest that is itself a host passes
  // its own host on. The chain's head, fed by no guest, writes it first;
  // a concatenate has one head per operand in place: the others run after
  // the first, so the host is live from it.
  std::map<ValueRef, std::vector<const Instruction *>> heads;
  for (const auto &[guest, first] : direct) {
    ValueRef host = first;
    std::optional<ConcatenateRegion> region;
    if (first.instruction->opcode() == Opcode::Concatenate)
      region = regionIn(first.instruction,
                        size_t(std::find(first.instruction->operands().begin(),
                                         first.instruction->operands().end(),
                                         guest.instruction) -
                               first.instruction->operands().begin()));
    for (auto next = direct.find(host); next != direct.end();
         next = direct.find(host)) {
      if (next->second.instruction->opcode() == Opcode::Concatenate)
        region = regionIn(
            next->second.instruction,
            size_t(std::find(next->second.instruction->operands().begin(),
                             next->second.instruction->operands().end(),
                             host.instruction) -
                   next->second.instruction->operands().begin()));
      host = next->second;
    }
    result.hostOf[guest] = host;
    if (region)
      result.regionOf[guest] = *region;
    if (!fed.count(guest))
      heads[host].push_back(guest.instruction);
  }
  std::map<const Instruction *, size_t> position;
  for (const Instruction *instruction : computation.instructions())
    position.emplace(instruction, position.size());
  for (auto &[host, writers] : heads) {
    std::sort(writers.begin(), writers.end(),
              [&](const Instruction *a, const Instruction *b) {
                return position.at(a) < position.at(b);
              });
    result.firstWriter[host] = writers.front();
    for (size_t i = 1; i < writers.size(); ++i)
      result.runsAfter[writers[i]].push_back(writers.front());
  }
  std::set<std::pair<const Instruction *, const Instruction *>> nested;
  for (const ConcatenateCopy &copy : result.copies)
    nested.insert({copy.concatenate, copy.operand});
  for (const ConcatenateCopy &copy :
       concatenateCopies(computation, direct, excluded, concatenates))
    if (!nested.count({copy.concatenate, copy.operand}))
      result.copies.push_back(copy);
  return result;
}

// --- The Builder's side: views, owners and aliases -----------------------

/// The entry parameter a reshape reads in place: its operand is that
/// parameter or such a view, and no root element is it (results and
/// write-backs of a parameter's bytes are copied, as for the parameter).
const Instruction *
Builder::viewedArgument(const Instruction *instruction) const {
  if (role_ != Role::Entry || instruction->opcode() != Opcode::Reshape ||
      rootInstructions_.count(instruction))
    return nullptr;
  const Instruction *operand = instruction->operand(0);
  if (operand->opcode() == Opcode::Parameter)
    return operand;
  return viewedArgument(operand);
}

/// The entry parameter a while's state element `value` reads in place:
/// the while runs in the entry, its initial element is that parameter and
/// its body passes the element through unchanged (root element i is
/// parameter element i), so no trip writes it. The copy into the loop state
/// (a scan's whole input, every run) then disappears; like a parameter's
/// bytes, the element is copied when it is a result or written back.
const Instruction *Builder::argumentStateElement(ValueRef value) const {
  const Instruction *loop = value.instruction;
  if (role_ != Role::Entry || value.tupleIndex < 0 ||
      loop->opcode() != Opcode::While ||
      loop->operand(0)->opcode() != Opcode::Tuple)
    return nullptr;
  const Instruction *initial =
      loop->operand(0)->operand(size_t(value.tupleIndex));
  if (initial->opcode() != Opcode::Parameter || initial->shape().isTuple())
    return nullptr;
  const ir::Computation &body = *loop->calledComputations()[1];
  const Instruction *root = body.root();
  if (!root || root->opcode() != Opcode::Tuple || !body.parameter(0))
    return nullptr;
  const Instruction *passed = root->operand(size_t(value.tupleIndex));
  if (passed->opcode() != Opcode::GetTupleElement ||
      passed->operand(0) != body.parameter(0) ||
      passed->attrs().index != value.tupleIndex)
    return nullptr;
  return initial;
}

/// A host is live from its chain's first write.
void Builder::ownHostsFromGuests(
    const std::map<ValueRef, const Instruction *> &firstWriter) {
  for (const auto &[host, writer] : firstWriter)
    owner_[host] = writer;
}

/// A hosted value takes its host's slice, wherever that was placed; a
/// concatenate's guest only its part of it.
void Builder::aliasConsumerHosts() {
  for (const auto &[guest, host] : hosts_) {
    BufferSlice slice = slices_.at(host);
    if (auto region = regions_.find(guest); region != regions_.end()) {
      slice.offset += region->second.offset;
      slice.bytes = guest.instruction->shape().byteSize();
      slice.rowBytes = region->second.rowBytes;
      slice.rowStride = region->second.rowStride;
    }
    slices_[guest] = slice;
    placed_.push_back(guest); // a copy: shiftBy moves it too
  }
}

void Builder::collectConcatenates(
    std::map<ValueRef, const Instruction *> &guests,
    std::vector<ConcatenateCopy> &copies) const {
  for (const auto &[guest, region] : regions_)
    if (region.concatenate && hosts_.count(guest) &&
        std::find(region.concatenate->operands().begin(),
                  region.concatenate->operands().end(),
                  guest.instruction) != region.concatenate->operands().end())
      guests[guest] = region.concatenate;
  copies.insert(copies.end(), concatenateCopies_.begin(),
                concatenateCopies_.end());
  for (const CalleeBlock &block : calleeBlocks_)
    for (const auto &builder : block.builders)
      builder->collectConcatenates(guests, copies);
}

} // namespace kiln::analysis::buffers
