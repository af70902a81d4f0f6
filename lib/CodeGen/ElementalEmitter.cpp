//===- ElementalEmitter.cpp - Element generators and fused loops ----------===//
//
// Every "elemental" opcode is lowered as a generator: given the index of one
// output element, produce its value from operand elements (ctx.elementOf).
// A top-level instruction is a loop over its output calling its generator;
// a fusion is a loop over the fused root's output, where operands that are
// themselves fused are generated on the fly instead of loaded. When the
// generator only needs the linear index (elementwise ops, reshapes, scalar
// broadcasts over dense buffers) the loop runs on <N x T> vectors.
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"
#include "Kernels/Kernels.h"
#include "Parallel.h"

#include <llvm/IR/Constants.h>

#include <algorithm>

namespace kiln::codegen {

using ir::Instruction;
using ir::Opcode;
using llvm::Value;

/// Element of operand `i` at `index` (an index into the operand's shape).
static Expected<Value *> operandAt(EmitterContext &ctx, const Instruction &inst,
                                   size_t i, ElementIndex index) {
  return ctx.elementOf(*inst.operand(i), index);
}

/// An operand index; with lanes > 1, a row run from indices.back().
static ElementIndex atIndices(std::vector<Value *> indices,
                              unsigned lanes = 1) {
  return ElementIndex{std::move(indices), nullptr, lanes};
}

static Expected<Value *> generateBroadcast(EmitterContext &ctx,
                                           const Instruction &inst,
                                           const ElementIndex &index) {
  const std::vector<int64_t> &map = inst.attrs().dimensions;
  if (inst.operand(0)->shape().rank() == 0) {
    Expected<Value *> scalar = operandAt(ctx, inst, 0, atIndices({}));
    if (!scalar)
      return scalar;
    return ctx.splat(*scalar, index.lanes);
  }
  std::vector<Value *> operandIndex;
  for (int64_t d : map)
    operandIndex.push_back(index.indices[size_t(d)]);
  // A row run stays a run in the operand when the output's innermost
  // dimension is the operand's innermost; otherwise one element repeats.
  bool alongRow = map.back() == inst.shape().rank() - 1;
  if (index.lanes == 1 || alongRow)
    return operandAt(ctx, inst, 0,
                     atIndices(std::move(operandIndex), index.lanes));
  Expected<Value *> element =
      operandAt(ctx, inst, 0, atIndices(std::move(operandIndex)));
  if (!element)
    return element;
  return ctx.splat(*element, index.lanes);
}

static Expected<Value *> generateReshape(EmitterContext &ctx,
                                         const Instruction &inst,
                                         const ElementIndex &index) {
  // Row-major reshape keeps the linear index.
  ElementIndex operandIndex{
      {}, ctx.linearOf(index, inst.shape().dims()), index.lanes};
  const std::vector<int64_t> &dims = inst.operand(0)->shape().dims();
  // A row run maps onto one operand row (rowVectorizable checked that
  // output rows nest inside operand rows). A scalar result has no indices
  // but its operand (all ones) may need them.
  if (!index.indices.empty() || inst.shape().rank() == 0)
    operandIndex.indices = ctx.delinearize(operandIndex.linear, dims);
  return operandAt(ctx, inst, 0, operandIndex);
}

static Expected<Value *> generateTranspose(EmitterContext &ctx,
                                           const Instruction &inst,
                                           const ElementIndex &index) {
  const std::vector<int64_t> &perm = inst.attrs().dimensions;
  std::vector<Value *> operandIndex(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    operandIndex[size_t(perm[i])] = index.indices[i];
  return operandAt(ctx, inst, 0,
                   atIndices(std::move(operandIndex), index.lanes));
}

static Expected<Value *> generateSlice(EmitterContext &ctx,
                                       const Instruction &inst,
                                       const ElementIndex &index) {
  llvm::IRBuilder<> &b = ctx.builder();
  std::vector<Value *> operandIndex;
  for (size_t d = 0; d < index.indices.size(); ++d) {
    const ir::SliceDim &s = inst.attrs().slice[d];
    Value *scaled = s.stride == 1
                        ? index.indices[d]
                        : b.CreateNUWMul(index.indices[d], ctx.i64(s.stride));
    operandIndex.push_back(b.CreateNUWAdd(scaled, ctx.i64(s.start)));
  }
  return operandAt(ctx, inst, 0,
                   atIndices(std::move(operandIndex), index.lanes));
}

static Expected<Value *> generateReverse(EmitterContext &ctx,
                                         const Instruction &inst,
                                         const ElementIndex &index) {
  std::vector<Value *> operandIndex = index.indices;
  const std::vector<int64_t> &dims = inst.shape().dims();
  for (int64_t d : inst.attrs().dimensions)
    operandIndex[size_t(d)] = ctx.builder().CreateSub(
        ctx.i64(dims[size_t(d)] - 1), operandIndex[size_t(d)]);
  return operandAt(ctx, inst, 0,
                   atIndices(std::move(operandIndex), index.lanes));
}

/// Every operand is read at a clamped (always in-bounds) index and the
/// right one is selected, so no control flow enters the loop body.
static Expected<Value *> generateConcatenate(EmitterContext &ctx,
                                             const Instruction &inst,
                                             const ElementIndex &index) {
  llvm::IRBuilder<> &b = ctx.builder();
  size_t dim = size_t(inst.attrs().dimensions.at(0));
  Value *result = nullptr;
  int64_t offset = 0;
  for (size_t i = 0; i < inst.operandCount(); ++i) {
    int64_t size = inst.operand(i)->shape().dim(dim);
    if (size == 0)
      continue;
    std::vector<Value *> operandIndex = index.indices;
    Value *local = b.CreateSub(index.indices[dim], ctx.i64(offset));
    Value *clamped =
        b.CreateSelect(b.CreateICmpSLT(local, ctx.i64(0)), ctx.i64(0), local);
    clamped = b.CreateSelect(b.CreateICmpSGT(clamped, ctx.i64(size - 1)),
                             ctx.i64(size - 1), clamped);
    operandIndex[dim] = clamped;
    Expected<Value *> value =
        operandAt(ctx, inst, i, atIndices(operandIndex, index.lanes));
    if (!value)
      return value;
    if (!result) {
      result = *value;
    } else {
      Value *inside = b.CreateICmpSGE(index.indices[dim], ctx.i64(offset));
      result = b.CreateSelect(inside, *value, result);
    }
    offset += size;
  }
  return result;
}

/// Output index o maps to operand index (o - low) / (interior + 1) when
/// that divides exactly and lands inside the operand; else the pad value.
static Expected<Value *> generatePad(EmitterContext &ctx,
                                     const Instruction &inst,
                                     const ElementIndex &index) {
  llvm::IRBuilder<> &b = ctx.builder();
  const ir::Shape &operandShape = inst.operand(0)->shape();
  Value *valid = b.getTrue();
  std::vector<Value *> operandIndex;
  for (size_t d = 0; d < index.indices.size(); ++d) {
    const ir::PadDim &p = inst.attrs().padding[d];
    int64_t size = operandShape.dim(d);
    Value *shifted = b.CreateSub(index.indices[d], ctx.i64(p.low));
    Value *position = shifted;
    if (p.interior > 0) {
      Value *step = ctx.i64(p.interior + 1);
      // shifted may be negative: test the remainder only when >= 0.
      Value *exact = b.CreateICmpEQ(b.CreateSRem(shifted, step), ctx.i64(0));
      valid = b.CreateAnd(valid, exact);
      position = b.CreateSDiv(shifted, step);
    }
    valid = b.CreateAnd(valid, b.CreateICmpSGE(shifted, ctx.i64(0)));
    valid = b.CreateAnd(valid, b.CreateICmpSLT(position, ctx.i64(size)));
    Value *clamped = b.CreateSelect(b.CreateICmpSLT(position, ctx.i64(0)),
                                    ctx.i64(0), position);
    clamped = b.CreateSelect(b.CreateICmpSGT(clamped, ctx.i64(size - 1)),
                             ctx.i64(std::max<int64_t>(size - 1, 0)), clamped);
    operandIndex.push_back(clamped);
  }
  Expected<Value *> padValue = operandAt(ctx, inst, 1, atIndices({}));
  if (!padValue)
    return padValue;
  Value *padLanes = ctx.splat(*padValue, index.lanes);
  if (operandShape.numElements() == 0)
    return padLanes;
  Expected<Value *> value =
      operandAt(ctx, inst, 0, atIndices(operandIndex, index.lanes));
  if (!value)
    return value;
  return b.CreateSelect(valid, *value, padLanes);
}

static Expected<Value *> generateIota(EmitterContext &ctx,
                                      const Instruction &inst,
                                      const ElementIndex &index) {
  size_t dim = size_t(inst.attrs().dimensions.at(0));
  Value *position = ctx.splat(index.indices[dim], index.lanes);
  if (index.lanes > 1 && dim + 1 == index.indices.size()) {
    // A row run along the iota dimension: start + <0, 1, ..., lanes-1>.
    std::vector<llvm::Constant *> steps;
    for (unsigned i = 0; i < index.lanes; ++i)
      steps.push_back(ctx.builder().getInt64(i));
    position =
        ctx.builder().CreateAdd(position, llvm::ConstantVector::get(steps));
  }
  return emitConvert(ctx, ir::DType::S64, inst.shape().dtype(), position);
}

/// Elementwise: operands at the same index, then the scalar/vector op.
static Expected<Value *> generateElementwise(EmitterContext &ctx,
                                             const Instruction &inst,
                                             const ElementIndex &index) {
  std::vector<Value *> operands;
  for (size_t i = 0; i < inst.operandCount(); ++i) {
    Expected<Value *> value = ctx.elementOf(*inst.operand(i), index);
    if (!value)
      return value;
    operands.push_back(*value);
  }
  return emitElementwiseInstruction(ctx, inst, operands);
}

Expected<Value *> emitElementwiseInstruction(EmitterContext &ctx,
                                             const Instruction &inst,
                                             llvm::ArrayRef<Value *> operands) {
  ir::DType from = inst.operand(0)->shape().dtype();
  ir::DType to = inst.shape().dtype();
  Value *result = nullptr;
  switch (inst.opcode()) {
  case Opcode::Convert:
    result = emitConvert(ctx, from, to, operands[0]);
    break;
  case Opcode::Compare:
    result = emitCompare(ctx, inst.attrs().direction,
                         inst.attrs().comparisonType, from, operands[0],
                         operands[1]);
    break;
  case Opcode::Select:
    result = ctx.builder().CreateSelect(operands[0], operands[1], operands[2]);
    break;
  case Opcode::IsFinite:
    result = emitElementwiseOp(ctx, inst.opcode(), from, operands);
    break;
  case Opcode::ReducePrecision:
    result = emitReducePrecision(ctx, from, inst.attrs().exponentBits,
                                 inst.attrs().mantissaBits, operands[0]);
    break;
  default:
    result = emitElementwiseOp(ctx, inst.opcode(), to, operands);
  }
  if (!result)
    return EmitterContext::unsupported(inst, "element type not supported");
  // f16/bf16 compute in float; round every op's result to its storage
  // precision, so a fused chain matches the same ops run one by one.
  if (to == ir::DType::F16 || to == ir::DType::BF16)
    result = ctx.toCompute(to, ctx.toStorage(to, result));
  return result;
}

Expected<Value *> generateElement(EmitterContext &ctx, const Instruction &inst,
                                  const ElementIndex &index) {
  if (ir::isElementwise(inst.opcode()))
    return generateElementwise(ctx, inst, index);
  switch (inst.opcode()) {
  case Opcode::Iota:
    return generateIota(ctx, inst, index);
  case Opcode::Rng:
    return generateRng(ctx, inst, index);
  case Opcode::BitcastConvert:
    return generateBitcastConvert(ctx, inst, index);
  case Opcode::Broadcast:
    return generateBroadcast(ctx, inst, index);
  case Opcode::Reshape:
  case Opcode::Copy:
    return generateReshape(ctx, inst, index);
  case Opcode::Transpose:
    return generateTranspose(ctx, inst, index);
  case Opcode::Slice:
    return generateSlice(ctx, inst, index);
  case Opcode::Concatenate:
    return generateConcatenate(ctx, inst, index);
  case Opcode::Pad:
    return generatePad(ctx, inst, index);
  case Opcode::Reverse:
    return generateReverse(ctx, inst, index);
  case Opcode::Gather:
    return generateGather(ctx, inst, index);
  case Opcode::DynamicSlice:
    return generateDynamicSlice(ctx, inst, index);
  case Opcode::Map:
    return generateMap(ctx, inst, index);
  case Opcode::GetTupleElement:
  case Opcode::Constant:
  case Opcode::Parameter:
    return ctx.elementOf(inst, index);
  default:
    return EmitterContext::unsupported(inst, "not an elemental opcode");
  }
}

/// Whether `inst`'s value at linear index i depends only on operand
/// elements at linear index i (so <N x T> loads apply) — checked through
/// the whole fused expression down to materialized values.
static bool isLinear(EmitterContext &ctx, const Instruction &inst, bool top) {
  if (!top && ctx.isMaterialized({&inst, -1}))
    return true;
  if (inst.opcode() == Opcode::Constant)
    return inst.shape().numElements() == 1;
  if (inst.opcode() == Opcode::Rng) // a function of the linear index
    return true;
  if (inst.opcode() == Opcode::Broadcast &&
      inst.operand(0)->shape().rank() == 0)
    return isLinear(ctx, *inst.operand(0), false);
  if (!ir::isElementwise(inst.opcode()) && inst.opcode() != Opcode::Reshape)
    return false;
  for (const Instruction *operand : inst.operands())
    if (!isLinear(ctx, *operand, false))
      return false;
  return true;
}

/// Whether the run of a row holds the same operand elements in order:
/// the operand's innermost dimension is the output's, or a multiple of it
/// (output rows then nest inside operand rows).
static bool reshapeKeepsRows(const Instruction &reshape) {
  const ir::Shape &in = reshape.operand(0)->shape();
  const ir::Shape &out = reshape.shape();
  if (in.rank() == 0 || out.rank() == 0 || out.dims().back() == 0)
    return false;
  return in.dims().back() % out.dims().back() == 0;
}

bool rowVectorizable(EmitterContext &ctx, const Instruction &inst, bool top) {
  if (!top && ctx.isMaterialized({&inst, -1}))
    return true; // contiguous along its innermost dimension
  int64_t last = inst.shape().rank() - 1;
  auto operandRows = [&](size_t i) {
    return rowVectorizable(ctx, *inst.operand(i), false);
  };
  auto allOperandRows = [&] {
    for (size_t i = 0; i < inst.operandCount(); ++i)
      if (!operandRows(i))
        return false;
    return true;
  };
  if (ir::isElementwise(inst.opcode()) && inst.opcode() != Opcode::Copy)
    return allOperandRows();
  const std::vector<int64_t> &dims = inst.attrs().dimensions;
  switch (inst.opcode()) {
  case Opcode::Constant:
    return inst.shape().numElements() == 1;
  case Opcode::Iota:
  case Opcode::Rng:
    return true;
  case Opcode::Broadcast:
    // Off the row, one operand element is splat (any generator does it).
    return dims.empty() || dims.back() != last || operandRows(0);
  case Opcode::Reshape:
  case Opcode::Copy:
    return reshapeKeepsRows(inst) && operandRows(0);
  case Opcode::Transpose:
    return !dims.empty() && dims.back() == last && operandRows(0);
  case Opcode::Slice:
    return last >= 0 && inst.attrs().slice[size_t(last)].stride == 1 &&
           operandRows(0);
  case Opcode::Reverse:
    return std::find(dims.begin(), dims.end(), last) == dims.end() &&
           operandRows(0);
  case Opcode::Concatenate:
    return !dims.empty() && dims[0] != last && allOperandRows();
  case Opcode::Gather:
    return gatherKeepsRows(inst) && operandRows(0);
  case Opcode::DynamicSlice:
    // A window row is a run of its operand's row from the clamped start.
    return last >= 0 && operandRows(0);
  case Opcode::Pad: {
    if (last < 0)
      return false;
    const ir::PadDim &p = inst.attrs().padding[size_t(last)];
    return p.low == 0 && p.high == 0 && p.interior == 0 && operandRows(0);
  }
  default:
    return false;
  }
}

/// Whether `root` concatenates along its innermost dimension operands that
/// can each be produced in row runs: a channel concat in NHWC (an FPN's
/// skip joins). Runs of the whole output cannot be vectors there (a run may
/// straddle two operands), so the generic loop would go element by element.
static bool concatenatesRows(EmitterContext &ctx, const Instruction &root) {
  const ir::Shape &shape = root.shape();
  if (root.opcode() != Opcode::Concatenate || shape.rank() == 0 ||
      root.attrs().dimensions[0] != shape.rank() - 1 ||
      shape.numElements() == 0 || shape.dtype() == ir::DType::Pred)
    return false;
  BufferRef layout{nullptr, shape.dtype(), shape.dims(), 1};
  if (ctx.rowLanes(layout) < 2)
    return false;
  for (const Instruction *operand : root.operands())
    if (!rowVectorizable(ctx, *operand))
      return false;
  return true;
}

/// Stores one row of `operand` (its outer indices `prefix`) into `out`,
/// in row runs of the operand's own vector width, the concatenated
/// dimension `axis` shifted by the operand's `offset`.
static Error copyOperandRow(EmitterContext &ctx, const BufferRef &out,
                            const Instruction &operand,
                            llvm::ArrayRef<Value *> prefix, size_t axis,
                            int64_t offset) {
  int64_t width = operand.shape().dims().back();
  BufferRef segment{nullptr, out.dtype, {width}, 1};
  unsigned lanes = std::max(ctx.rowLanes(segment), 1u);
  return ctx.emitRowRuns(width, lanes, [&](Value *j, unsigned count) -> Error {
    std::vector<Value *> indices(prefix.begin(), prefix.end());
    indices.push_back(j);
    Expected<Value *> value =
        ctx.elementOf(operand, ElementIndex{indices, nullptr, count});
    if (!value)
      return value.takeError();
    indices[axis] = ctx.builder().CreateAdd(indices[axis], ctx.i64(offset));
    ctx.storeElement(out, ctx.linearIndex(indices, out.dims), *value);
    return Error::success();
  });
}

/// A concatenate along the innermost dimension: per output row, each
/// operand's row segment in vectors of its own width (then narrower ones),
/// stored at the segment's offset. `units`: only those output rows.
static Error emitConcatenateRows(EmitterContext &ctx, const Instruction &writer,
                                 const Instruction &concat,
                                 const UnitRange *units) {
  BufferRef out = ctx.outputBuffer(writer);
  std::vector<int64_t> outer(out.dims.begin(), out.dims.end() - 1);
  auto rowBody = [&](llvm::ArrayRef<Value *> prefix) -> Error {
    int64_t offset = 0;
    for (const Instruction *operand : concat.operands()) {
      int64_t width = operand->shape().dims().back();
      if (ctx.buffers().inPlaceInConcatenate({operand, -1}, &concat)) {
        offset += width; // computed there already
        continue;
      }
      ctx.clearGenerated();
      if (Error e = copyOperandRow(ctx, out, *operand, prefix,
                                   out.dims.size() - 1, offset))
        return e;
      offset += width;
    }
    return Error::success();
  };
  if (!units)
    return ctx.emitLoopNest(outer, rowBody);
  return ctx.emitLoop(
      units->begin, units->end, 1,
      [&](Value *r) { return rowBody(ctx.delinearize(r, outer)); }, "r");
}

/// The loop writing `roots`' elements into `writer`'s outputs (output
/// `tupleIndices[i]` for root i; -1 for a non-tuple result): over the linear
/// index in vectors when every expression allows, else in row runs
/// (narrower vectors for rows narrower than a register: 8 channels still
/// run on 8 lanes), else element by element. The roots share one shape;
/// values they share (the producer a multi-output fusion exists for) are
/// generated once per index through the value cache. A loop large enough
/// is split into tasks over its units (Parallel.h).
static Error emitOutputLoop(EmitterContext &ctx, const Instruction &writer,
                            const std::vector<const Instruction *> &roots,
                            const std::vector<int64_t> &tupleIndices) {
  if (roots.size() == 1 && tupleIndices[0] < 0 &&
      concatenatesRows(ctx, *roots[0])) {
    const ir::Shape &shape = roots[0]->shape();
    int64_t rows = shape.numElements() / shape.dims().back();
    return emitSplitOrWhole(ctx, writer, rows, 0, [&](const UnitRange *units) {
      return emitConcatenateRows(ctx, writer, *roots[0], units);
    });
  }
  bool linear = true, rows = true;
  for (const Instruction *root : roots) {
    linear = linear && isLinear(ctx, *root, true);
    rows = rows && rowVectorizable(ctx, *root, true);
  }
  const ir::Shape &shape = roots[0]->shape();
  BufferRef layout{nullptr, shape.dtype(), shape.dims(), 1};
  unsigned lanes = ctx.rowLanes(layout);
  bool rowRuns = !linear && rows && lanes > 1;
  // Buffers are looked up where the loop is emitted, which is a kernel of
  // its own when the loop is split.
  auto emitLoop = [&](const UnitRange *units) -> Error {
    std::vector<BufferRef> outputs;
    for (int64_t tupleIndex : tupleIndices)
      outputs.push_back(ctx.outputBuffer(writer, tupleIndex));
    ctx.clearGenerated();
    // The loop stores the first output; the generator stores the others.
    // Several roots go through the value cache (one may use another).
    auto generator = [&](const ElementIndex &index) -> Expected<Value *> {
      if (roots.size() == 1)
        return generateElement(ctx, *roots[0], index);
      for (size_t i = 1; i < roots.size(); ++i) {
        Expected<Value *> value = ctx.elementOf(*roots[i], index);
        if (!value)
          return value;
        ctx.storeElement(outputs[i], index.linear, *value);
      }
      return ctx.elementOf(*roots[0], index);
    };
    if (rowRuns)
      return ctx.emitRowLoop(outputs[0], lanes, generator, units);
    return ctx.emitElementLoop(outputs[0], linear, generator, units);
  };
  int64_t units = 1;
  if (linear)
    units = EmitterContext::linearUnits(shape.numElements());
  else if (rowRuns)
    units = shape.numElements() / shape.dims().back();
  else if (shape.rank() > 0)
    units = EmitterContext::rowUnits(shape.dims());
  int64_t scalarSteps = linear || rowRuns ? 0 : shape.numElements();
  return emitSplitOrWhole(ctx, writer, units, scalarSteps, emitLoop);
}

/// Whether some operand of concatenate `concat` was computed in its part
/// of the concatenate's buffer (BufferAssignment::inPlaceInConcatenate).
static bool hasOperandsInPlace(EmitterContext &ctx, const Instruction &concat) {
  for (const Instruction *operand : concat.operands())
    if (ctx.buffers().inPlaceInConcatenate({operand, -1}, &concat))
      return true;
  return false;
}

/// A concatenate some of whose operands are already in its buffer: only
/// the others are copied, each in row runs of its own innermost dimension
/// stored at its offset along the concatenated dimension (nothing at all
/// when every operand is in place). Along the innermost dimension, the
/// copies go per output row, split into tasks as any row loop.
static Error emitConcatenateCopies(EmitterContext &ctx,
                                   const Instruction &concat) {
  const ir::Shape &shape = concat.shape();
  bool copies = false;
  for (const Instruction *operand : concat.operands())
    copies |= !ctx.buffers().inPlaceInConcatenate({operand, -1}, &concat) &&
              operand->shape().numElements() != 0;
  if (!copies)
    return Error::success();
  if (concat.attrs().dimensions[0] == shape.rank() - 1) {
    int64_t rows = shape.numElements() / shape.dims().back();
    return emitSplitOrWhole(ctx, concat, rows, 0, [&](const UnitRange *units) {
      return emitConcatenateRows(ctx, concat, concat, units);
    });
  }
  BufferRef out = ctx.outputBuffer(concat);
  size_t axis = size_t(concat.attrs().dimensions[0]);
  int64_t next = 0;
  for (const Instruction *operand : concat.operands()) {
    const std::vector<int64_t> &dims = operand->shape().dims();
    int64_t offset = next;
    next += dims[axis];
    if (ctx.buffers().inPlaceInConcatenate({operand, -1}, &concat) ||
        operand->shape().numElements() == 0)
      continue;
    std::vector<int64_t> outer(dims.begin(), dims.end() - 1);
    auto rowBody = [&](llvm::ArrayRef<Value *> prefix) -> Error {
      return copyOperandRow(ctx, out, *operand, prefix, axis, offset);
    };
    ctx.clearGenerated();
    if (Error e = ctx.emitLoopNest(outer, rowBody))
      return e;
  }
  return Error::success();
}

Error emitElemental(EmitterContext &ctx, const Instruction &instruction) {
  if (instruction.opcode() == Opcode::Concatenate &&
      hasOperandsInPlace(ctx, instruction))
    return emitConcatenateCopies(ctx, instruction);
  if (instruction.opcode() == Opcode::Transpose) {
    Expected<bool> kernel = kernels::emitTransposeKernel(ctx, instruction);
    if (!kernel)
      return kernel.takeError();
    if (*kernel)
      return Error::success();
  }
  return emitOutputLoop(ctx, instruction, {&instruction}, {-1});
}

/// Whether a multi-output fusion's outputs can come out of one loop: all
/// generated per element, with one shape and dtype (so one vector width).
static bool sharesOneLoop(const std::vector<const Instruction *> &roots) {
  if (roots.size() < 2)
    return false;
  for (const Instruction *root : roots)
    if (ir::inFusion(root->opcode()) != ir::InFusion::Generated ||
        root->shape().isTuple() || root->shape() != roots[0]->shape())
      return false;
  return true;
}

/// Materialized fused instructions are emitted in order by their own
/// emitters; then one loop per elemental root element writes the output.
Error emitFusion(EmitterContext &ctx, const Instruction &fusion) {
  // An output fusion runs as one contraction kernel with its chain applied
  // in registers, when a kernel applies.
  Expected<bool> kernel = kernels::emitOutputFusionKernel(ctx, fusion);
  if (!kernel)
    return kernel.takeError();
  if (*kernel)
    return Error::success();
  const ir::Computation *called = fusion.calledComputation();
  ctx.bindFusion(fusion);
  for (const Instruction *inner : called->instructions()) {
    if (ir::isElementalInFusion(inner->opcode()))
      continue;
    if (Error e = emitInstruction(ctx, *inner))
      return e;
  }
  const Instruction *root = called->root();
  std::vector<const Instruction *> roots;
  if (root->opcode() == Opcode::Tuple)
    roots.assign(root->operands().begin(), root->operands().end());
  else if (!root->shape().isTuple())
    roots.push_back(root);
  if (sharesOneLoop(roots)) {
    std::vector<int64_t> tupleIndices;
    for (size_t i = 0; i < roots.size(); ++i)
      tupleIndices.push_back(int64_t(i));
    if (Error e = emitOutputLoop(ctx, fusion, roots, tupleIndices))
      return e;
    ctx.unbindFusion(fusion);
    return Error::success();
  }
  for (size_t i = 0; i < roots.size(); ++i) {
    const Instruction *element = roots[i];
    if (!ir::isElementalInFusion(element->opcode()) ||
        element->opcode() == Opcode::Tuple)
      continue; // written in place by its own emitter
    int64_t tupleIndex = root->opcode() == Opcode::Tuple ? int64_t(i) : -1;
    if (Error e = emitOutputLoop(ctx, fusion, {element}, {tupleIndex}))
      return e;
  }
  ctx.unbindFusion(fusion);
  return Error::success();
}

} // namespace kiln::codegen
