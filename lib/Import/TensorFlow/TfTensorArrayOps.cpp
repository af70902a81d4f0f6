//===- TfTensorArrayOps.cpp - TF 1.x TensorArrays as static buffers -------===//
//
// A TensorArrayV3 is a resource handle plus a float scalar "flow" that
// orders its accesses: every op but Close takes the flow of the writes
// before it, and writes return a new one. kiln makes the flow the data: the
// static buffer [size, element...] a TensorList is (TfListBuffers.h), so a
// v1 loop (dynamic_rnn) carries the array through its flow loop variable
// and writes happen in place. The handle carries nothing (an s32[] of the
// size that no op reads); functionalization types handle and flow loop
// variables DT_VARIANT like a list (TfFunctionalizeLoops.cpp).
//
// The bound is the size when that is a compile-time constant and the
// array does not grow. A growing array (dynamic_size, as TF 1.x's
// tf.while_loop code writes `size=0, dynamic_size=True`) or one of a
// run-time size has no bound until it enters a loop: the While lowering
// gives it the loop's trip bound, as an EmptyTensorList with
// max_num_elements -1 (TfWhileOps.cpp). Its handle is then the run-time
// size, so an error can name the feed it comes from. SizeV3 of such an
// array is its bound: TF 1.x stacks through Gather(Range(0, SizeV3)), and
// a run-time count would make that Range run-time sized.
// The element shape comes from `element_shape` when it is fully known,
// else from the first write (an unshaped placeholder until then, rebuilt
// by the While lowering as for TensorLists).
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfOps.h"

#include "Common/ArrayLowering.h"
#include "Common/LoopBuffers.h"
#include "TensorFlow/TfListBuffers.h"

#include <fmt/format.h>

#include <numeric>

namespace kiln::import::tf {

namespace {
using ir::DType;

/// The fully known `element_shape` attribute, or nullopt.
std::optional<std::vector<int64_t>> knownAttrShape(TfNodeContext &ctx,
                                                   std::string_view key) {
  std::optional<std::vector<int64_t>> dims = ctx.attrShape(key);
  if (dims)
    for (int64_t dim : *dims)
      if (dim < 0)
        return std::nullopt;
  return dims;
}

/// The flow input `input` as a shaped buffer, unless it is unshaped: then
/// nullptr after recording that `what` needs an element shape first.
Value shapedFlow(TfNodeContext &ctx, size_t input, std::string_view what) {
  Value flow = ctx.input(input);
  if (flow && ctx.unshapedListBound(flow))
    return ctx.fail(fmt::format(
        "{} a TensorArray whose element shape is unknown: nothing wrote an "
        "entry first, and its element_shape attribute is not a full shape",
        what));
  return flow;
}

/// Whether `indices` are 0, 1, ..., count - 1.
bool isIota(const std::vector<int64_t> &indices, int64_t count) {
  if (int64_t(indices.size()) != count)
    return false;
  for (size_t i = 0; i < indices.size(); ++i)
    if (indices[i] != int64_t(i))
      return false;
  return true;
}

/// The array's bound: its size when that is a compile-time constant and
/// the array does not grow, else kUnboundedList (the loop that writes it
/// gives one). Nullopt after recording a bad size.
std::optional<int64_t> arrayBound(TfNodeContext &ctx) {
  Value size = ctx.input(0);
  if (!size)
    return std::nullopt;
  if (ctx.attrBool("dynamic_size", false) || !GraphBuilder::constantInts(size))
    return kUnboundedList;
  return constantBound(ctx, 0, "size, the TensorArray's bound");
}

void lowerTensorArray(TfNodeContext &ctx) {
  std::optional<DType> dtype = ctx.attrType("dtype");
  std::optional<int64_t> bound = arrayBound(ctx);
  if (!dtype || !bound)
    return;
  GraphBuilder &b = ctx.builder();
  // The handle carries nothing an op reads; for an unbounded array it is
  // the requested size, which names its run-time sources in errors.
  ctx.setOutput(0, *bound == kUnboundedList
                       ? b.convert(ctx.input(0), DType::S32)
                       : b.scalar(DType::S32, double(*bound)));
  ctx.setOutput(1, newListBuffer(ctx, knownAttrShape(ctx, "element_shape"),
                                 *bound, *dtype));
}

/// Records that the array behind `handle` has no bound where it is
/// accessed (`what`): it is written outside the loop that would give one.
void failUnbounded(TfNodeContext &ctx, Value handle, std::string_view what) {
  std::string size =
      GraphBuilder::constantInts(handle)
          ? std::string("it has dynamic_size")
          : fmt::format("its size is computed at run time, from {} (--freeze "
                        "that to its value)",
                        runTimeSources(handle));
  ctx.fail(fmt::format(
      "{} a TensorArray without a bound: {}, and only a loop that writes it "
      "gives it one (the loop's trip bound); or create it with a constant "
      "size and dynamic_size=False",
      what, size));
}

/// The buffer a write of entries `item` goes into (writableBuffer), unless
/// the array has no bound yet: then null after recording that.
Value arrayBuffer(TfNodeContext &ctx, Value flow, const ir::Shape &item) {
  if (ctx.unshapedListBound(flow) != kUnboundedList)
    return writableBuffer(ctx, flow, item);
  failUnbounded(ctx, ctx.input(0), "writes to");
  return nullptr;
}

void lowerWrite(TfNodeContext &ctx) {
  Value index = ctx.input(1), value = ctx.input(2), flow = ctx.input(3);
  if (!index || !value || !flow)
    return;
  Value buffer = arrayBuffer(ctx, flow, value->shape());
  if (!buffer)
    return;
  GraphBuilder &b = ctx.builder();
  ctx.setOutput(0, writeEntry(b, buffer, value, 0, b.convert(index, DType::S32)));
}

void lowerRead(TfNodeContext &ctx) {
  Value index = ctx.input(1), flow = shapedFlow(ctx, 2, "reads");
  if (!index || !flow)
    return;
  GraphBuilder &b = ctx.builder();
  ctx.setOutput(0, readEntry(b, flow, 0, b.convert(index, DType::S32)));
}

void lowerGather(TfNodeContext &ctx) {
  Value indices = ctx.input(1), flow = ctx.input(2);
  if (!indices || !flow)
    return;
  GraphBuilder &b = ctx.builder();
  if (ctx.unshapedListBound(flow)) {
    // Nothing was written: TensorFlow gives zeros of element_shape.
    std::optional<std::vector<int64_t>> element =
        knownAttrShape(ctx, "element_shape");
    std::optional<DType> dtype = ctx.attrType("dtype");
    if (!element || !dtype || indices->shape().rank() != 1)
      return void(shapedFlow(ctx, 2, "gathers from"));
    ctx.setOutput(0, zeroBuffer(b, ir::Shape(*dtype, *element),
                                indices->shape().dim(0), 0));
    return;
  }
  std::optional<std::vector<int64_t>> known = GraphBuilder::constantInts(indices);
  if (known && isIota(*known, flow->shape().dim(0)) &&
      indices->shape().rank() == 1)
    return ctx.setOutput(0, flow); // stack(): every entry in order
  ctx.setOutput(0, gatherAxis(b, flow, indices, 0, 0, false));
}

/// `block` ([n, element...]) written into `buffer` from entry 0 on.
Value writeLeading(GraphBuilder &b, Value buffer, Value block) {
  if (block->shape() == buffer->shape())
    return block;
  std::vector<Value> operands = {buffer, block};
  for (int64_t d = 0; d < buffer->shape().rank(); ++d)
    operands.push_back(b.scalar(DType::S32, 0));
  return b.add(ir::Opcode::DynamicUpdateSlice, std::move(operands));
}

void lowerScatter(TfNodeContext &ctx) {
  Value value = ctx.input(2), flow = ctx.input(3);
  std::optional<std::vector<int64_t>> rows =
      ctx.constantInts(1, "indices, the entries written");
  if (!value || !flow || !rows)
    return;
  if (value->shape().rank() == 0 ||
      value->shape().dim(0) != int64_t(rows->size()))
    return void(ctx.fail(fmt::format("{} indices for a value of {}; it needs "
                                     "one row per index",
                                     rows->size(), value->shape().toString())));
  std::vector<int64_t> element = entryDims(value);
  Value buffer =
      arrayBuffer(ctx, flow, ir::Shape(value->shape().dtype(), element));
  if (!buffer)
    return;
  GraphBuilder &b = ctx.builder();
  if (isIota(*rows, int64_t(rows->size())) &&
      int64_t(rows->size()) <= buffer->shape().dim(0))
    return ctx.setOutput(0, writeLeading(b, buffer, value)); // unstack()
  // scatterRows works on [rows, columns]: entries flattened.
  int64_t width = std::accumulate(element.begin(), element.end(), int64_t(1),
                                  std::multiplies<>());
  Value flat = scatterRows(
      b, b.reshape(buffer, {buffer->shape().dim(0), width}),
      b.reshape(value, {int64_t(rows->size()), width}), *rows,
      ScatterReduction::None);
  if (flat)
    ctx.setOutput(0, b.reshape(flat, buffer->shape().dims()));
}

void lowerSplit(TfNodeContext &ctx) {
  Value value = ctx.input(1), flow = ctx.input(3);
  std::optional<std::vector<int64_t>> lengths =
      ctx.constantInts(2, "lengths, the rows of each entry");
  if (!value || !flow || !lengths)
    return;
  if (value->shape().rank() == 0 || lengths->empty())
    return void(ctx.fail(fmt::format("splits {} into {} entries; it needs a "
                                     "value of rank >= 1 and some lengths",
                                     value->shape().toString(),
                                     lengths->size())));
  int64_t rows = lengths->front(), count = int64_t(lengths->size());
  for (int64_t length : *lengths)
    if (length != rows)
      return void(ctx.fail(fmt::format(
          "lengths [{}] differ, but kiln's TensorArrays keep one static "
          "element shape: split into equal lengths",
          fmt::join(*lengths, ","))));
  if (rows * count != value->shape().dim(0))
    return void(ctx.fail(fmt::format("lengths add up to {} but the value "
                                     "has {} rows",
                                     rows * count, value->shape().dim(0))));
  std::vector<int64_t> element = entryDims(value);
  element.insert(element.begin(), rows);
  Value buffer =
      arrayBuffer(ctx, flow, ir::Shape(value->shape().dtype(), element));
  if (!buffer)
    return;
  // As in TensorFlow, a split fills the whole (static-size) array.
  if (count != buffer->shape().dim(0))
    return void(ctx.fail(fmt::format("splits into {} entries but the "
                                     "TensorArray has {}",
                                     count, buffer->shape().dim(0))));
  element.insert(element.begin(), count);
  ctx.setOutput(0, ctx.builder().reshape(value, element));
}

void lowerConcat(TfNodeContext &ctx) {
  Value flow = shapedFlow(ctx, 1, "concatenates");
  if (!flow)
    return;
  if (flow->shape().rank() < 2)
    return void(ctx.fail("concatenates a TensorArray of scalars; its "
                         "entries need a first dimension"));
  GraphBuilder &b = ctx.builder();
  std::vector<int64_t> dims = entryDims(flow);
  int64_t count = flow->shape().dim(0), rows = dims.front();
  dims.front() = count * rows;
  ctx.setOutput(0, b.reshape(flow, dims));
  ctx.setOutput(1, b.ints(DType::S64, std::vector<int64_t>(size_t(count), rows)));
}

void lowerSize(TfNodeContext &ctx) {
  Value flow = ctx.input(1);
  if (!flow)
    return;
  if (ctx.unshapedListBound(flow) == kUnboundedList)
    return failUnbounded(ctx, ctx.input(0), "asks for the size of");
  ctx.setOutput(0, ctx.builder().scalar(DType::S32,
                                        double(listBound(ctx, flow))));
}

/// Close frees the array in TensorFlow; a static buffer needs nothing.
void lowerClose(TfNodeContext &) {}

const TfOpRule kRules[] = {
    {"TensorArrayV3", &lowerTensorArray},
    {"TensorArrayWriteV3", &lowerWrite},
    {"TensorArrayReadV3", &lowerRead},
    {"TensorArrayGatherV3", &lowerGather},
    {"TensorArrayScatterV3", &lowerScatter},
    {"TensorArraySplitV3", &lowerSplit},
    {"TensorArrayConcatV3", &lowerConcat},
    {"TensorArraySizeV3", &lowerSize},
    {"TensorArrayCloseV3", &lowerClose},
};
} // namespace

std::span<const TfOpRule> tfTensorArrayRules() { return kRules; }

} // namespace kiln::import::tf
