//===- TfTensorListOps.cpp - TensorLists as static buffers ----------------===//
//
// A TensorList (a DT_VARIANT handle in TensorFlow) is lowered to the dense
// buffer it would hold at its bound: [bound, element...] of the element
// dtype. Reserve gives zeros (a broadcast: the object does not grow with
// the bound), FromTensor the tensor itself, GetItem/SetItem read and write
// one entry (dynamic-slice / dynamic-update-slice, in place inside a loop
// body), Stack the buffer, Length the bound. The bound must be a constant.
//
// A list reserved with an unknown element shape (TF2 writes -1) is a
// placeholder [bound] marked unshaped until a SetItem gives the shape; a
// While whose body does that is rebuilt with the shaped buffer as init
// (TfControlFlowOps.cpp).
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfOps.h"

#include "Common/LoopBuffers.h"

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

/// A new list of `bound` entries: zeros of the element shape when it is
/// known, else the unshaped placeholder.
void newList(TfNodeContext &ctx, std::optional<std::vector<int64_t>> element,
             int64_t bound, DType dtype) {
  GraphBuilder &b = ctx.builder();
  if (element) {
    ctx.setOutput(0, zeroBuffer(b, ir::Shape(dtype, *element), bound, 0));
    return;
  }
  Value placeholder = zeroBuffer(b, ir::Shape::scalar(dtype), bound, 0);
  ctx.markUnshapedList(placeholder, bound);
  ctx.setOutput(0, placeholder);
}

void lowerReserve(TfNodeContext &ctx) {
  std::optional<DType> dtype = elementType(ctx);
  std::optional<std::vector<int64_t>> count =
      ctx.constantInts(1, "num_elements (the list's bound)");
  if (!dtype || !count)
    return;
  if (count->size() != 1 || count->front() < 0)
    return void(ctx.fail(fmt::format("num_elements must be one count >= 0, "
                                     "not [{}]",
                                     fmt::join(*count, ","))));
  newList(ctx, knownElementShape(ctx, 0), count->front(), *dtype);
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
  if (std::optional<int64_t> bound = ctx.unshapedListBound(list))
    // The first write shapes the list: a fresh buffer of the item's shape
    // (its other entries are zeros, as TensorFlow reads unwritten ones).
    list = zeroBuffer(b, item->shape(), *bound, 0);
  std::vector<int64_t> element(list->shape().dims().begin() + 1,
                               list->shape().dims().end());
  if (ir::Shape(list->shape().dtype(), element) != item->shape())
    return void(ctx.fail(fmt::format(
        "the item is {} but the list holds {} entries of {}; kiln's lists "
        "keep one static element shape",
        item->shape().toString(), list->shape().dim(0),
        ir::Shape(list->shape().dtype(), element).toString())));
  ctx.setOutput(0, writeEntry(b, list, item, 0, b.convert(index, DType::S32)));
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
    ctx.setOutput(0, zeroBuffer(ctx.builder(), ir::Shape(*dtype, *element),
                                *bound, 0));
    return;
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
  std::optional<int64_t> bound = ctx.unshapedListBound(list);
  int64_t length = bound ? *bound : list->shape().dim(0);
  ctx.setOutput(0, ctx.builder().scalar(DType::S32, double(length)));
}

const TfOpRule kRules[] = {
    {"TensorListReserve", &lowerReserve},
    {"TensorListFromTensor", &lowerFromTensor},
    {"TensorListGetItem", &lowerGetItem},
    {"TensorListSetItem", &lowerSetItem},
    {"TensorListStack", &lowerStack},
    {"TensorListLength", &lowerLength},
};
} // namespace

std::span<const TfOpRule> tfTensorListRules() { return kRules; }

} // namespace kiln::import::tf
