//===- OnnxSelectionOps.cpp - NonMaxSuppression and NonZero ---------------===//
//
// Ops whose output length depends on the data, lowered through
// Common/SelectionLowering.h to a result padded at a compile-time bound
// with a run-time count (docs/architecture.md, "Run-time sized values").
//
//===----------------------------------------------------------------------===//
#include "Onnx/OnnxOps.h"

#include "Common/ArrayLowering.h"
#include "Common/LoopBuffers.h"
#include "Common/SelectionLowering.h"

#include <fmt/format.h>

namespace kiln::import::onnx {

namespace {
using ir::ComparisonDirection;
using ir::DType;
using ir::Opcode;

/// Rows (batch, class, box) of one class's selections as s64
/// [bound, 3], zero rows after the class's count.
Value selectionRows(GraphBuilder &b, const NmsResult &r, int64_t batch,
                    int64_t cls) {
  int64_t bound = r.indices->shape().dim(0);
  Value box = b.reshape(b.convert(r.indices, DType::S64), {bound, 1});
  Value rows = b.concatenate(
      {b.broadcastTo(b.scalar(DType::S64, double(batch)), {bound, 1}),
       b.broadcastTo(b.scalar(DType::S64, double(cls)), {bound, 1}), box},
      1);
  Value valid = b.compare(ComparisonDirection::LT,
                          iota(b, DType::S32, {bound, 3}, 0), r.count);
  return b.select(valid, rows, b.like(rows, 0));
}

/// The bound of max_output_boxes_per_class (absent: 0, no output), or
/// nullopt after recording why.
std::optional<int64_t> boundPerClass(OnnxNodeContext &ctx) {
  if (!ctx.hasInput(2))
    return 0;
  std::optional<int64_t> bound = maxOutputBound(ctx.builder(), ctx.input(2));
  if (!bound) // neither a constant nor a bounded size: say how to freeze it
    ctx.constantInts(2, "max_output_boxes_per_class");
  return bound;
}

/// NonMaxSuppression: boxes [batches, N, 4], scores [batches, classes, N];
/// one suppression per (batch, class), their rows concatenated in that
/// order into [batches * classes * bound, 3] with the total count.
void lowerNonMaxSuppression(OnnxNodeContext &ctx) {
  if (!ctx.requireInputs(2))
    return;
  GraphBuilder &b = ctx.builder();
  Value boxes = ctx.input(0), scores = ctx.input(1);
  if (!boxes || !scores)
    return;
  const ir::Shape &bs = boxes->shape(), &ss = scores->shape();
  if (bs.rank() != 3 || bs.dim(2) != 4 || ss.rank() != 3 ||
      ss.dim(0) != bs.dim(0) || ss.dim(2) != bs.dim(1))
    return void(ctx.fail(fmt::format(
        "expected boxes [batches, boxes, 4] and scores [batches, classes, "
        "boxes], but they are {} and {}",
        bs.toString(), ss.toString())));
  int64_t centerPointBox = ctx.attrInt("center_point_box", 0);
  if (centerPointBox != 0 && centerPointBox != 1)
    return void(ctx.fail(fmt::format(
        "center_point_box must be 0 or 1, but it is {}", centerPointBox)));
  std::optional<int64_t> bound = boundPerClass(ctx);
  if (!bound)
    return;
  Value iouThreshold = ctx.hasInput(3) ? ctx.input(3) : b.scalar(DType::F32, 0);
  if (auto value = GraphBuilder::constantDoubles(iouThreshold);
      value && value->size() == 1 && !((*value)[0] >= 0 && (*value)[0] <= 1))
    return void(ctx.fail(fmt::format(
        "iou_threshold must be in [0, 1], but it is {}", (*value)[0])));
  int64_t batches = bs.dim(0), classes = ss.dim(1), n = bs.dim(1);
  int64_t perClass = std::min(*bound, n);
  int64_t total = batches * classes * perClass;
  if (perClass == 0) {
    b.setFolding(false);
    ctx.setOutput(0, b.broadcastTo(b.scalar(DType::S64, 0), {0, 3}));
    b.setFolding(true);
    return;
  }
  NmsSpec spec;
  spec.encoding = centerPointBox ? BoxEncoding::CenterSize : BoxEncoding::Corners;
  spec.maxOutput = ctx.hasInput(2) ? b.reshape(ctx.input(2), {}) : nullptr;
  spec.maxOutputBound = perClass;
  spec.iouThreshold = b.reshape(iouThreshold, {});
  spec.scoreThreshold = ctx.hasInput(4) ? b.reshape(ctx.input(4), {}) : nullptr;
  spec.nanIouSuppresses = false;
  spec.nodeName = ctx.name();
  // Each class's rows are written at the running count of the earlier
  // ones; its zero padding is overwritten by the next class's rows.
  Value out = zeroBuffer(b, ir::Shape(DType::S64, {3}), total, 0);
  Value offset = b.scalar(DType::S32, 0);
  for (int64_t batch = 0; batch < batches && b.ok(); ++batch)
    for (int64_t cls = 0; cls < classes && b.ok(); ++cls) {
      Value classBoxes = b.reshape(b.sliceDim(boxes, 0, batch, batch + 1), {n, 4});
      Value classScores = b.reshape(
          b.slice(scores, {{batch, batch + 1, 1}, {cls, cls + 1, 1}, {0, n, 1}}),
          {n});
      NmsResult r = nonMaxSuppression(b, classBoxes, classScores, spec);
      if (!r.indices)
        return;
      out = b.add(Opcode::DynamicUpdateSlice,
                  {out, selectionRows(b, r, batch, cls), offset,
                   b.scalar(DType::S32, 0)});
      offset = b.binary(Opcode::Add, offset, r.count);
    }
  if (!b.ok())
    return;
  b.dynamic().setDim(out, 0,
                     {offset, b.dynamic().newSymbol(0, total, ctx.name())});
  b.dynamic().setForms(offset, {b.dynamic().dim(out, 0)->form});
  ctx.setOutput(0, out);
}

/// NonZero: [rank, count] coordinates; a scalar counts as one element
/// (NumPy's and ONNX Runtime's rule).
void lowerNonZero(OnnxNodeContext &ctx) {
  if (!ctx.requireInputs(1))
    return;
  Value x = ctx.input(0);
  if (x && x->shape().rank() == 0)
    x = ctx.builder().reshape(x, {1});
  WhereResult r = nonzeroCoordinates(ctx.builder(), x, false, ctx.name());
  if (r.coordinates)
    ctx.setOutput(0, r.coordinates);
}

const OnnxOpRule kRules[] = {
    {"NonMaxSuppression", &lowerNonMaxSuppression},
    {"NonZero", &lowerNonZero},
};
} // namespace

std::span<const OnnxOpRule> onnxSelectionRules() { return kRules; }

} // namespace kiln::import::onnx
