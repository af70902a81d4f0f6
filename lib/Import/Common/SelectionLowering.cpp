//===- SelectionLowering.cpp - Data-dependent selections for the importers ===//
//
// Non-max suppression is a `while` of at most `bound` trips. Each trip
// picks the best live candidate (highest score, lowest index on ties: the
// order TensorFlow's priority queue pops them in), appends it, and kills
// every live box whose IoU with it is above the threshold. A box is killed
// exactly when the greedy kernel would suppress it against some selected
// box, so the selections are the kernel's, in its order; each trip is
// O(N) vector work instead of the kernel's pairwise loop.
//
// Where/NonZero stable-sorts the element indices by "is zero" (the nonzero
// ones first, in row-major order) and unravels them into coordinates.
//
//===----------------------------------------------------------------------===//
#include "Common/SelectionLowering.h"

#include "Common/ArrayLowering.h"
#include "Common/CalleeBuilder.h"
#include "Common/LoopBuffers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kiln::import {

namespace {
using ir::ComparisonDirection;
using ir::DType;
using ir::Opcode;

// --- Boxes --------------------------------------------------------------------

/// Each box as its low and high edge along both axes, and its area, as
/// f32[N] vectors (TensorFlow computes IoU in float for every T).
struct BoxEdges {
  Value lo0, lo1, hi0, hi1, area;
};

Value column(GraphBuilder &b, Value boxes, int64_t k) {
  return b.reshape(b.sliceDim(boxes, 1, k, k + 1),
                   {boxes->shape().dim(0)});
}

BoxEdges boxEdges(GraphBuilder &b, Value boxes, BoxEncoding encoding) {
  Value f = b.convert(boxes, DType::F32);
  Value c0 = column(b, f, 0), c1 = column(b, f, 1), c2 = column(b, f, 2),
        c3 = column(b, f, 3);
  BoxEdges e;
  if (encoding == BoxEncoding::Corners) {
    e.lo0 = b.binary(Opcode::Minimum, c0, c2);
    e.hi0 = b.binary(Opcode::Maximum, c0, c2);
    e.lo1 = b.binary(Opcode::Minimum, c1, c3);
    e.hi1 = b.binary(Opcode::Maximum, c1, c3);
  } else { // centre ± half the size, as ONNX Runtime does
    Value half0 = b.binary(Opcode::Divide, c2, b.like(c2, 2));
    Value half1 = b.binary(Opcode::Divide, c3, b.like(c3, 2));
    e.lo0 = b.binary(Opcode::Subtract, c0, half0);
    e.hi0 = b.binary(Opcode::Add, c0, half0);
    e.lo1 = b.binary(Opcode::Subtract, c1, half1);
    e.hi1 = b.binary(Opcode::Add, c1, half1);
  }
  e.area = b.binary(Opcode::Multiply, b.binary(Opcode::Subtract, e.hi0, e.lo0),
                    b.binary(Opcode::Subtract, e.hi1, e.lo1));
  return e;
}

/// Overlap of `lo..hi` with the interval `[clo, chi]`, at least 0.
Value overlap(GraphBuilder &b, Value lo, Value hi, Value clo, Value chi) {
  Value extent = b.binary(Opcode::Subtract, b.binary(Opcode::Minimum, hi, chi),
                          b.binary(Opcode::Maximum, lo, clo));
  return b.binary(Opcode::Maximum, extent, b.like(extent, 0));
}

/// IoU of every box with box `j` (all scalars of `c` are box j's), 0 when
/// either area is not positive; the sum is taken in TensorFlow's order
/// (the tested box's area first).
Value iouWith(GraphBuilder &b, const BoxEdges &all, const BoxEdges &c) {
  Value inter = b.binary(Opcode::Multiply, overlap(b, all.lo0, all.hi0, c.lo0, c.hi0),
                         overlap(b, all.lo1, all.hi1, c.lo1, c.hi1));
  Value unionArea = b.binary(Opcode::Subtract,
                             b.binary(Opcode::Add, all.area, c.area), inter);
  Value iou = b.binary(Opcode::Divide, inter, unionArea);
  Value degenerate = b.binary(
      Opcode::Or, b.compare(ComparisonDirection::LE, all.area, b.like(all.area, 0)),
      b.compare(ComparisonDirection::LE, c.area, b.like(c.area, 0)));
  return b.select(degenerate, b.like(iou, 0), iou);
}

// --- The loop -----------------------------------------------------------------

/// Positions in the loop state tuple.
enum StateElement : int64_t {
  kCount,     // s32[] selections so far
  kLive,      // pred[N] candidates neither selected nor suppressed
  kIndices,   // s32[bound] selected box indices
  kScores,    // T[bound] their scores
  kAllScores, // T[N]
  kLo0,
  kLo1,
  kHi0,
  kHi1,
  kArea,      // f32[N] box edges and areas
  kThreshold, // IoU threshold, in the scores' dtype
  kLimit,     // s32[] min(max output, bound)
  kStateSize
};

ir::Computation *buildCondition(GraphBuilder &b, const ir::Shape &state,
                                const std::string &node) {
  ir::Computation *condition = newComputation(b, node + ".nms_cond");
  GraphBuilder c(*condition);
  c.setSourceNode(node);
  std::vector<Value> s =
      c.tupleElements(c.parameter(0, state, condition->name() + ".state"));
  if (!c.ok())
    return finish(b, c, *condition, nullptr) ? condition : nullptr;
  Value room = c.compare(ComparisonDirection::LT, s[kCount], s[kLimit]);
  Value anyLive = c.reduce(s[kLive], {0}, ir::ReducerKind::Or);
  return finish(b, c, *condition, c.binary(Opcode::And, room, anyLive))
             ? condition
             : nullptr;
}

/// One trip: select the best live candidate, suppress what it overlaps.
ir::Computation *buildBody(GraphBuilder &b, const ir::Shape &state,
                           const NmsSpec &spec) {
  ir::Computation *body = newComputation(b, spec.nodeName + ".nms_step");
  GraphBuilder c(*body);
  c.setSourceNode(spec.nodeName);
  std::vector<Value> s =
      c.tupleElements(c.parameter(0, state, body->name() + ".state"));
  if (!c.ok())
    return finish(b, c, *body, nullptr) ? body : nullptr;
  int64_t n = s[kLive]->shape().dim(0);
  Value scores = s[kAllScores];
  Value lowest = c.like(scores, -INFINITY);
  Value best = c.reduce(c.select(s[kLive], scores, lowest), {0},
                        ir::ReducerKind::Max);
  Value index = iota(c, DType::S32, {n}, 0);
  Value atBest = c.binary(Opcode::And, s[kLive],
                          c.compare(ComparisonDirection::EQ, scores, best));
  Value j = c.reduce(c.select(atBest, index, c.scalar(DType::S32, double(n))),
                     {0}, ir::ReducerKind::Min);

  BoxEdges all{s[kLo0], s[kLo1], s[kHi0], s[kHi1], s[kArea]};
  BoxEdges chosen{readEntry(c, all.lo0, 0, j), readEntry(c, all.lo1, 0, j),
                  readEntry(c, all.hi0, 0, j), readEntry(c, all.hi1, 0, j),
                  readEntry(c, all.area, 0, j)};
  Value iou = c.convert(iouWith(c, all, chosen), s[kThreshold]->shape().dtype());
  // TensorFlow keeps a candidate whose weight `iou <= threshold ? 1 : 0` is
  // 1, which is false for a NaN IoU; ONNX Runtime drops it on `iou > t`.
  Value keep = spec.nanIouSuppresses
                   ? c.compare(ComparisonDirection::LE, iou, s[kThreshold])
                   : c.unary(Opcode::Not, c.compare(ComparisonDirection::GT,
                                                    iou, s[kThreshold]));
  Value notChosen = c.compare(ComparisonDirection::NE, index, j);
  std::vector<Value> next = s;
  next[kLive] = c.binary(Opcode::And, s[kLive], c.binary(Opcode::And, keep, notChosen));
  next[kIndices] = writeEntry(c, s[kIndices], j, 0, s[kCount]);
  next[kScores] = writeEntry(c, s[kScores], best, 0, s[kCount]);
  next[kCount] = c.binary(Opcode::Add, s[kCount], c.scalar(DType::S32, 1));
  return finish(b, c, *body, c.tuple(next)) ? body : nullptr;
}

/// Boxes that take part: score above the threshold (never NaN) and inside
/// a dynamic N's run-time size.
Value initialCandidates(GraphBuilder &b, Value boxes, Value scores,
                        const NmsSpec &spec) {
  Value live = spec.scoreThreshold
                   ? b.compare(ComparisonDirection::GT, scores,
                               b.convert(spec.scoreThreshold,
                                         scores->shape().dtype()))
                   : b.compare(ComparisonDirection::EQ, scores, scores);
  for (Value v : {boxes, scores})
    if (const DynamicDim *dim = b.dynamic().dim(v, 0)) {
      Value index = iota(b, DType::S32, {scores->shape().dim(0)}, 0);
      live = b.binary(Opcode::And, live,
                      b.compare(ComparisonDirection::LT, index,
                                b.convert(dim->size, DType::S32)));
    }
  return live;
}

/// Marks dim `dim` of `values` dynamic with `count` as size, `count`'s
/// form being a fresh symbol in [0, bound].
void markCounted(GraphBuilder &b, std::vector<Value> values, Value count,
                 int64_t bound, const std::string &node, int64_t dim = 0) {
  if (!b.ok())
    return;
  SizeForm form = b.dynamic().newSymbol(0, bound, node);
  for (Value v : values)
    b.dynamic().setDim(v, dim, {count, form});
  b.dynamic().setForms(count, {form});
}

bool checkNmsOperands(GraphBuilder &b, Value boxes, Value scores) {
  const ir::Shape &bs = boxes->shape(), &ss = scores->shape();
  if (bs.isTuple() || bs.rank() != 2 || bs.dim(1) != 4)
    return b.fail(fmt::format("boxes must be [num_boxes, 4], but they are {}",
                              bs.toString())),
           false;
  if (ss.isTuple() || ss.rank() != 1 || ss.dim(0) != bs.dim(0) ||
      !ir::isFloat(ss.dtype()) || !ir::isFloat(bs.dtype()))
    return b.fail(fmt::format("scores must be float [{}] like the boxes {}, "
                              "but they are {}",
                              bs.dim(0), bs.toString(), ss.toString())),
           false;
  return true;
}
} // namespace

std::optional<int64_t> maxOutputBound(const GraphBuilder &b, Value maxOutput) {
  if (!maxOutput)
    return std::nullopt;
  if (std::optional<std::vector<int64_t>> value =
          GraphBuilder::constantInts(maxOutput);
      value && value->size() == 1)
    return std::max<int64_t>((*value)[0], 0);
  if (const std::vector<SizeForm> *forms = b.dynamic().forms(maxOutput);
      forms && forms->size() == 1)
    return std::max<int64_t>(b.dynamic().upperBound((*forms)[0]), 0);
  return std::nullopt;
}

NmsResult nonMaxSuppression(GraphBuilder &b, Value boxes, Value scores,
                            const NmsSpec &spec) {
  if (!boxes || !scores || !spec.maxOutput || !spec.iouThreshold ||
      !checkNmsOperands(b, boxes, scores))
    return {};
  int64_t n = boxes->shape().dim(0);
  int64_t bound = std::clamp<int64_t>(spec.maxOutputBound, 0, n);
  DType scoreType = scores->shape().dtype();
  if (bound == 0) // nothing can be selected: no loop
    return {zeroBuffer(b, ir::Shape::scalar(DType::S32), 0, 0),
            zeroBuffer(b, ir::Shape::scalar(scoreType), 0, 0),
            b.scalar(DType::S32, 0)};

  BoxEdges edges = boxEdges(b, boxes, spec.encoding);
  // min(max output, bound) in max output's own type: an s64 maximum may
  // not fit s32. A negative maximum selects nothing.
  Value maxOutput = b.reshape(spec.maxOutput, {});
  Value limit = b.convert(
      b.binary(Opcode::Maximum,
               b.binary(Opcode::Minimum, maxOutput, b.like(maxOutput, double(bound))),
               b.like(maxOutput, 0)),
      DType::S32);
  std::vector<Value> init(kStateSize);
  init[kCount] = b.scalar(DType::S32, 0);
  init[kLive] = initialCandidates(b, boxes, scores, spec);
  init[kIndices] = zeroBuffer(b, ir::Shape::scalar(DType::S32), bound, 0);
  init[kScores] = zeroBuffer(b, ir::Shape::scalar(scoreType), bound, 0);
  init[kAllScores] = scores;
  init[kLo0] = edges.lo0;
  init[kLo1] = edges.lo1;
  init[kHi0] = edges.hi0;
  init[kHi1] = edges.hi1;
  init[kArea] = edges.area;
  init[kThreshold] = b.reshape(b.convert(spec.iouThreshold, scoreType), {});
  init[kLimit] = limit;
  Value start = b.tuple(init);
  if (!start)
    return {};
  ir::Computation *condition = buildCondition(b, start->shape(), spec.nodeName);
  ir::Computation *body = condition ? buildBody(b, start->shape(), spec) : nullptr;
  if (!body)
    return {};
  std::vector<Value> final =
      b.tupleElements(b.addCalling(Opcode::While, {start}, {condition, body}));
  if (!b.ok())
    return {};
  NmsResult result{final[kIndices], final[kScores], final[kCount]};
  markCounted(b,
              spec.dynamicResult ? std::vector<Value>{result.indices,
                                                      result.scores}
                                 : std::vector<Value>{},
              result.count, bound, spec.nodeName);
  return result;
}

WhereResult nonzeroCoordinates(GraphBuilder &b, Value x, bool rowsFirst,
                               const std::string &nodeName) {
  if (!x)
    return {};
  const ir::Shape &shape = x->shape();
  int64_t rank = shape.rank(), n = shape.numElements();
  auto orient = [&](std::vector<int64_t> dims) {
    return rowsFirst ? dims : std::vector<int64_t>{dims[1], dims[0]};
  };
  if (n == 0 || rank == 0) { // no element, or coordinates without columns
    Value zero = b.scalar(DType::S64, 0);
    b.setFolding(false);
    Value coordinates = b.broadcastTo(zero, orient({n, rank}));
    b.setFolding(true);
    if (n == 0)
      return {coordinates, b.scalar(DType::S32, 0)};
    Value count = b.convert(
        b.compare(ComparisonDirection::NE, x, b.like(x, 0)), DType::S32);
    markCounted(b, {coordinates}, count, n, nodeName, rowsFirst ? 0 : 1);
    return {coordinates, count};
  }
  Value mask = shape.dtype() == DType::Pred
                   ? x
                   : b.compare(ComparisonDirection::NE, x, b.like(x, 0));
  for (int64_t d = 0; d < rank; ++d) // padding past a run-time size is zero
    if (const DynamicDim *dim = b.dynamic().dim(x, d))
      mask = b.binary(Opcode::And, mask,
                      b.compare(ComparisonDirection::LT,
                                iota(b, DType::S32, shape.dims(), d),
                                b.convert(dim->size, DType::S32)));
  Value flat = b.reshape(mask, {n});
  Value count = b.reduce(b.convert(flat, DType::S32), {0}, ir::ReducerKind::Add);
  // Key 0 for nonzero, 1 for zero: a stable sort keeps each group in
  // row-major order.
  Value key = b.select(flat, b.scalar(DType::S32, 0), b.scalar(DType::S32, 1));
  Value position = iota(b, DType::S64, {n}, 0);
  ir::Attributes sortAttrs;
  sortAttrs.dimensions = {0};
  Value sorted = b.getTupleElement(
      b.add(Opcode::Sort, {key, position}, sortAttrs), 1);
  Value valid = b.compare(ComparisonDirection::LT, iota(b, DType::S32, {n}, 0),
                          count);
  sorted = b.select(valid, sorted, b.like(sorted, 0));
  std::vector<Value> columns;
  std::vector<int64_t> strides = shape.strides();
  for (int64_t d = 0; d < rank; ++d) {
    Value coordinate = b.binary(
        Opcode::Remainder,
        b.binary(Opcode::Divide, sorted,
                 b.scalar(DType::S64, double(strides[size_t(d)]))),
        b.scalar(DType::S64, double(shape.dim(size_t(d)))));
    columns.push_back(b.reshape(coordinate, orient({n, 1})));
  }
  Value coordinates = b.concatenate(columns, rowsFirst ? 1 : 0);
  markCounted(b, {coordinates}, count, n, nodeName, rowsFirst ? 0 : 1);
  return {coordinates, count};
}

} // namespace kiln::import
