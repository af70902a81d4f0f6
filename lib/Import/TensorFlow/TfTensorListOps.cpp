//===- TfTensorListOps.cpp - TensorLists as static buffers ----------------===//
//
// A TensorList (a DT_VARIANT handle in TensorFlow) is lowered to the dense
// buffer it would hold at its bound: [bound, element...] of the element
// dtype. Reserve gives zeros (a broadcast: the object does not grow with
// the bound), FromTensor the tensor itself, GetItem/SetItem read and write
// one entry (dynamic-slice / dynamic-update-slice, in place inside a loop
// body), Stack the buffer, Length the bound. The bound must be a constant.
//
// A list EmptyTensorList makes (bound: max_num_elements, or with -1 the
// trip bound of the loop it enters: TfLoopBounds.h) also has a length,
// an s32[] that PushBack (writes entry `length`) and PopBack (reads entry
// `length - 1` and zeros it) move; TfNodeContext::listLength holds it and
// a loop carries it as an extra loop variable (TfWhileOps.cpp).
// Entries from the length on are zeros, so Stack can give the whole
// buffer when the length is not an import-time constant.
//
// A list reserved with an unknown element shape (TF2 writes -1) is a
// placeholder [bound] marked unshaped until a SetItem gives the shape; a
// While whose body does that is rebuilt with the shaped buffer as init
// (TfWhileOps.cpp).
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfOps.h"

#include "Common/LoopBuffers.h"
#include "TensorFlow/TfListBuffers.h"

#include <fmt/format.h>

namespace kiln::import::tf {

namespace {
using ir::DType;

/// The element shape an `element_shape` input gives, or nullopt when it
/// is not fully known (-1 anywhere, or a scalar -1: unknown rank).
std::optional<std::vector<int64_t>> knownElementShape(TfNodeContext &ctx,
                                                      size_t input) {
  std::optional<std::vector<int64_t>> dims =
      GraphBuilder::constantInts(ctx.input(input));
  if (!dims || ctx.input(input)->shape().rank() == 0)
    return std::nullopt;
  for (int64_t dim : *dims)
    if (dim < 0)
      return std::nullopt;
  return dims;
}

std::optional<DType> elementType(TfNodeContext &ctx) {
  std::optional<DType> dtype = ctx.attrType("element_dtype");
  if (!dtype && ctx.builder().ok())
    ctx.fail("missing attribute 'element_dtype'");
  return dtype;
}

void lowerReserve(TfNodeContext &ctx) {
  std::optional<DType> dtype = elementType(ctx);
  std::optional<int64_t> count =
      constantBound(ctx, 1, "num_elements, the list's bound");
  if (!dtype || !count)
    return;
  ctx.setOutput(0, newListBuffer(ctx, knownElementShape(ctx, 0), *count,
                                 *dtype));
}

void lowerFromTensor(TfNodeContext &ctx) {
  Value tensor = ctx.input(0);
  if (!tensor)
    return;
  if (tensor->shape().rank() == 0)
    return void(ctx.fail("the tensor to split into a list is a scalar"));
  ctx.setOutput(0, tensor);
}

/// The list input, unless it is unshaped and `what` needs its entries.
Value shapedList(TfNodeContext &ctx, std::string_view what) {
  Value list = ctx.input(0);
  if (list && ctx.unshapedListBound(list))
    return ctx.fail(fmt::format(
        "{} a TensorList whose element shape is unknown: nothing wrote an "
        "entry first, and its element_shape is not a constant shape",
        what));
  return list;
}

void lowerGetItem(TfNodeContext &ctx) {
  Value list = ctx.input(0), index = ctx.input(1);
  if (!list || !index)
    return;
  if (std::optional<int64_t> bound = ctx.unshapedListBound(list)) {
    // Read before any write: TensorFlow gives zeros of element_shape.
    std::optional<std::vector<int64_t>> element = knownElementShape(ctx, 2);
    std::optional<DType> dtype = elementType(ctx);
    if (!element || !dtype)
      return void(shapedList(ctx, "reads"));
    ctx.setOutput(0, ctx.builder().broadcastTo(
                         ctx.builder().scalar(*dtype, 0), *element));
    return;
  }
  ctx.setOutput(0, readEntry(ctx.builder(), list, 0, index));
}

void lowerSetItem(TfNodeContext &ctx) {
  Value list = ctx.input(0), index = ctx.input(1), item = ctx.input(2);
  if (!list || !index || !item)
    return;
  GraphBuilder &b = ctx.builder();
  Value buffer = writableBuffer(ctx, list, item->shape());
  if (!buffer)
    return;
  Value written = writeEntry(b, buffer, item, 0, b.convert(index, DType::S32));
  ctx.setListLength(written, ctx.listLength(list));
  ctx.setOutput(0, written);
}

void lowerEmpty(TfNodeContext &ctx) {
  std::optional<DType> dtype = elementType(ctx);
  Value max = ctx.input(1);
  if (!dtype || !max)
    return;
  // -1: no bound until the list enters a loop, whose trip bound it takes.
  std::optional<std::vector<int64_t>> unbounded = GraphBuilder::constantInts(max);
  bool none = unbounded && unbounded->size() == 1 && unbounded->front() == -1;
  std::optional<int64_t> bound =
      none ? kUnboundedList
           : constantBound(ctx, 1, "max_num_elements, the list's bound");
  if (!bound)
    return;
  Value list = newListBuffer(ctx, knownElementShape(ctx, 0), *bound, *dtype);
  ctx.setListLength(list, ctx.builder().scalar(DType::S32, 0));
  ctx.setOutput(0, list);
}

void lowerPushBack(TfNodeContext &ctx) {
  Value list = ctx.input(0), item = ctx.input(1);
  if (!list || !item)
    return;
  Value length = ctx.listLength(list);
  if (!length)
    return void(ctx.fail(
        "pushes onto a full list: kiln's lists are static buffers, and one "
        "from TensorListReserve or TensorListFromTensor has no entry past "
        "its bound (an EmptyTensorList with max_num_elements has room)"));
  GraphBuilder &b = ctx.builder();
  Value buffer = writableBuffer(ctx, list, item->shape());
  if (!buffer)
    return;
  // Past the bound (where TensorFlow fails) dynamic-update-slice clamps
  // the write to the last entry.
  Value pushed = writeEntry(b, buffer, item, 0, length);
  ctx.setListLength(pushed, b.binary(ir::Opcode::Add, length,
                                     b.scalar(DType::S32, 1)));
  ctx.setOutput(0, pushed);
}

void lowerPopBack(TfNodeContext &ctx) {
  Value list = shapedList(ctx, "pops from");
  if (!list)
    return;
  GraphBuilder &b = ctx.builder();
  Value length = ctx.listLength(list);
  if (!length) // a full list: its length is its bound
    length = b.scalar(DType::S32, double(list->shape().dim(0)));
  // An empty list (where TensorFlow fails) pops entry 0, which is zeros,
  // and stays empty.
  Value last = b.binary(ir::Opcode::Maximum,
                        b.binary(ir::Opcode::Subtract, length,
                                 b.scalar(DType::S32, 1)),
                        b.scalar(DType::S32, 0));
  Value item = readEntry(b, list, 0, last);
  // The popped entry goes back to zeros, so entries from the length on stay
  // zeros for Stack.
  Value zeros = b.broadcastTo(b.like(item, 0), item->shape().dims());
  Value popped = writeEntry(b, list, zeros, 0, last);
  ctx.setListLength(popped, last);
  ctx.setOutput(0, popped);
  ctx.setOutput(1, item);
}

void lowerElementShape(TfNodeContext &ctx) {
  Value list = shapedList(ctx, "asks for the element shape of");
  std::optional<DType> type = ctx.attrType("shape_type");
  if (!list)
    return;
  ctx.setOutput(0, ctx.builder().ints(type.value_or(DType::S32),
                                      entryDims(list)));
}

void lowerStack(TfNodeContext &ctx) {
  Value list = ctx.input(0);
  if (!list)
    return;
  if (std::optional<int64_t> bound = ctx.unshapedListBound(list)) {
    std::optional<std::vector<int64_t>> element = knownElementShape(ctx, 1);
    std::optional<DType> dtype = elementType(ctx);
    if (!element || !dtype)
      return void(shapedList(ctx, "stacks"));
    // Nothing was written: zeros, as many as the list's length.
    std::optional<std::vector<int64_t>> length;
    if (Value counted = ctx.listLength(list))
      length = GraphBuilder::constantInts(counted);
    int64_t rows = length ? length->front() : *bound;
    if (rows < 0)
      return void(ctx.fail("stacks a TensorList without a bound (an "
                           "EmptyTensorList with max_num_elements -1)"));
    ctx.setOutput(0, zeroBuffer(ctx.builder(), ir::Shape(*dtype, *element),
                                rows, 0));
    return;
  }
  if (Value length = ctx.listLength(list)) {
    // Only the first `length` entries are the list's; the rest are zeros,
    // which a run-time length leaves in (the static bound).
    if (std::optional<std::vector<int64_t>> known =
            GraphBuilder::constantInts(length))
      list = ctx.builder().sliceDim(list, 0, 0, known->front());
    return ctx.setOutput(0, list);
  }
  int64_t expected = ctx.attrInt("num_elements", -1);
  if (expected >= 0 && expected != list->shape().dim(0))
    return void(ctx.fail(fmt::format("num_elements is {} but the list has "
                                     "{} entries",
                                     expected, list->shape().dim(0))));
  ctx.setOutput(0, list);
}

void lowerLength(TfNodeContext &ctx) {
  Value list = ctx.input(0);
  if (!list)
    return;
  if (Value length = ctx.listLength(list))
    return ctx.setOutput(0, length);
  ctx.setOutput(0,
                ctx.builder().scalar(DType::S32, double(listBound(ctx, list))));
}

const TfOpRule kRules[] = {
    {"TensorListReserve", &lowerReserve},
    {"TensorListFromTensor", &lowerFromTensor},
    {"TensorListGetItem", &lowerGetItem},
    {"TensorListSetItem", &lowerSetItem},
    {"TensorListStack", &lowerStack},
    {"TensorListLength", &lowerLength},
    {"EmptyTensorList", &lowerEmpty},
    {"TensorListPushBack", &lowerPushBack},
    {"TensorListPopBack", &lowerPopBack},
    {"TensorListElementShape", &lowerElementShape},
};
} // namespace

std::span<const TfOpRule> tfTensorListRules() { return kRules; }

} // namespace kiln::import::tf
