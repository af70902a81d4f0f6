//===- TfListBuffers.cpp - The buffers TensorLists and TensorArrays share -===//
#include "TensorFlow/TfListBuffers.h"

#include "Common/LoopBuffers.h"

#include "kiln/IR/Instruction.h"

#include <fmt/format.h>

#include <set>

namespace kiln::import::tf {

namespace {
/// At most a few sources of `value`, in the order found.
std::vector<std::string> sourcesOf(Value value) {
  constexpr size_t kMaxSources = 3, kMaxVisited = 10000;
  std::vector<std::string> sources;
  std::set<const ir::Instruction *> visited;
  std::vector<const ir::Instruction *> pending = {value};
  while (!pending.empty() && sources.size() < kMaxSources &&
         visited.size() < kMaxVisited) {
    const ir::Instruction *at = pending.back();
    pending.pop_back();
    if (!visited.insert(at).second)
      continue;
    bool element = at->opcode() == ir::Opcode::GetTupleElement &&
                   at->operand(0)->opcode() == ir::Opcode::Parameter;
    if (element) {
      sources.push_back(fmt::format("loop variable {} of '{}'",
                                    at->attrs().index,
                                    at->operand(0)->sourceNode()));
      continue;
    }
    if (at->opcode() == ir::Opcode::Parameter) {
      sources.push_back(fmt::format("feed '{}'", at->sourceNode()));
      continue;
    }
    for (const ir::Instruction *operand : at->operands())
      pending.push_back(operand);
  }
  return sources;
}
} // namespace

std::string runTimeSources(Value value) {
  std::vector<std::string> sources = sourcesOf(value);
  return sources.empty() ? std::string("values kiln cannot trace")
                         : fmt::format("{}", fmt::join(sources, ", "));
}

std::optional<int64_t> constantBound(TfNodeContext &ctx, size_t input,
                                     std::string_view what) {
  Value count = ctx.input(input);
  if (!count)
    return std::nullopt;
  std::optional<std::vector<int64_t>> known = GraphBuilder::constantInts(count);
  if (!known) {
    ctx.fail(fmt::format(
        "input {} ({}) is computed at run time, from {}; kiln needs it as a "
        "compile-time constant to size a static buffer: --freeze that feed "
        "to its value (NAME=FILE.npy or NAME=V0,V1,...), or for a loop "
        "variable give the loop a constant maximum_iterations and size the "
        "buffer with it",
        input, what, runTimeSources(count)));
    return std::nullopt;
  }
  if (known->size() != 1 || known->front() < 0) {
    ctx.fail(fmt::format("input {} ({}) must be one count >= 0, not [{}]",
                         input, what, fmt::join(*known, ",")));
    return std::nullopt;
  }
  return known->front();
}

Value newListBuffer(TfNodeContext &ctx,
                    const std::optional<std::vector<int64_t>> &element,
                    int64_t bound, ir::DType dtype) {
  GraphBuilder &b = ctx.builder();
  if (element && bound != kUnboundedList)
    return zeroBuffer(b, ir::Shape(dtype, *element), bound, 0);
  Value placeholder = zeroBuffer(b, ir::Shape::scalar(dtype),
                                 bound == kUnboundedList ? 1 : bound, 0);
  ctx.markUnshapedList(placeholder, bound);
  return placeholder;
}

int64_t listBound(TfNodeContext &ctx, Value list) {
  std::optional<int64_t> bound = ctx.unshapedListBound(list);
  return bound ? *bound : list->shape().dim(0);
}

std::vector<int64_t> entryDims(Value list) {
  return {list->shape().dims().begin() + 1, list->shape().dims().end()};
}

Value writableBuffer(TfNodeContext &ctx, Value list, const ir::Shape &item) {
  std::optional<int64_t> bound = ctx.unshapedListBound(list);
  if (bound == kUnboundedList)
    return ctx.fail(
        "writes to a TensorList without a bound: its EmptyTensorList has "
        "max_num_elements -1, and only a loop it enters gives it one (the "
        "loop's maximum_iterations); give it a max_num_elements");
  if (bound)
    return zeroBuffer(ctx.builder(), item, *bound, 0);
  ir::Shape entry(list->shape().dtype(), entryDims(list));
  if (entry != item)
    return ctx.fail(fmt::format(
        "the item is {} but the {} holds {} entries of {}; kiln keeps one "
        "static element shape per list",
        item.toString(),
        ctx.op().starts_with("TensorArray") ? "TensorArray" : "list",
        list->shape().dim(0), entry.toString()));
  return list;
}

} // namespace kiln::import::tf
