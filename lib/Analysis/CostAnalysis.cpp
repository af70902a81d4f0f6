//===- CostAnalysis.cpp - FLOPs and memory traffic of HLO -----------------===//
#include "kiln/Analysis/CostAnalysis.h"

#include "kiln/Analysis/TripCount.h"
#include "kiln/Support/ResourceLimits.h"

#include <algorithm>
#include <bit>

#include <set>

namespace kiln::analysis {

namespace {
using ir::Instruction;
using ir::Opcode;

/// Product of `shape`'s dimensions listed in `dims`.
int64_t product(const std::vector<int64_t> &dims, const ir::Shape &shape) {
  int64_t result = 1;
  for (int64_t dim : dims)
    result = saturatingMul(result, shape.dim(size_t(dim)));
  return result;
}

/// Bytes of every array in `shape` (a tuple's elements, recursively).
int64_t arrayBytes(const ir::Shape &shape) {
  if (!shape.isTuple())
    return shape.byteSize();
  int64_t bytes = 0;
  for (const ir::Shape &element : shape.tupleElements())
    bytes = saturatingAdd(bytes, arrayBytes(element));
  return bytes;
}

int64_t computationFlops(const ir::Computation &computation);

/// rng's floating-point operations per element (docs/hlo.md, Random
/// numbers): uniform a + (b - a) * u; normal a + b * (sqrt(-2 * log(1 - u1))
/// * cos(2 pi * u2)), each function one like an elementwise op. The integer
/// mixing that makes u is not counted, like index arithmetic.
constexpr int64_t kUniformRngFlops = 3;
constexpr int64_t kNormalRngFlops = 9;

int64_t instructionFlops(const Instruction &instruction) {
  const ir::Shape &shape = instruction.shape();
  switch (instruction.opcode()) {
  case Opcode::Dot: // one multiply and one add per contracted pair
    return saturatingMul(saturatingMul(2, shape.numElements()),
                         product(instruction.attrs().dot.lhsContracting,
                                 instruction.operand(0)->shape()));
  case Opcode::Convolution: {
    const ir::ConvolutionDimensionNumbers &conv = instruction.attrs().conv;
    const ir::Shape &kernel = instruction.operand(1)->shape();
    return saturatingMul(
        saturatingMul(saturatingMul(2, shape.numElements()),
                      product(conv.kernelSpatial, kernel)),
        kernel.dim(size_t(conv.kernelInputFeature)));
  }
  case Opcode::Reduce:
    if (const ir::Computation *callee = instruction.calledComputation())
      return saturatingMul(instruction.operand(0)->shape().numElements(),
                           computationFlops(*callee));
    [[fallthrough]];
  case Opcode::ArgMax:
  case Opcode::ArgMin:
    return instruction.operand(0)->shape().numElements();
  case Opcode::ReduceWindow: {
    int64_t taps = 1;
    for (const ir::WindowDim &dim : instruction.attrs().window)
      taps = saturatingMul(taps, dim.size);
    const ir::Shape &out =
        shape.isTuple() ? shape.tupleElements().front() : shape;
    int64_t perTap = 1; // a reducer kind: one operation
    if (const ir::Computation *callee = instruction.calledComputation())
      perTap = computationFlops(*callee);
    return saturatingMul(saturatingMul(out.numElements(), taps), perTap);
  }
  case Opcode::Fusion:
  case Opcode::Call:
    return computationFlops(*instruction.calledComputation());
  case Opcode::Sort: // a comparator: about log2(length) calls per element
    if (const ir::Computation *comparator = instruction.calledComputation()) {
      const ir::Shape &keys = instruction.operand(0)->shape();
      int64_t length = keys.dim(size_t(instruction.attrs().dimensions.at(0)));
      int64_t rounds = std::max<int64_t>(1, std::bit_width(uint64_t(length)));
      return saturatingMul(saturatingMul(keys.numElements(), rounds),
                           computationFlops(*comparator));
    }
    return 0; // kiln's key order: comparisons, not arithmetic
  case Opcode::SelectAndScatter: { // select per tap, scatter per window
    int64_t taps = 1;
    for (const ir::WindowDim &dim : instruction.attrs().window)
      taps = saturatingMul(taps, dim.size);
    const auto &callees = instruction.calledComputations();
    return saturatingMul(
        instruction.operand(1)->shape().numElements(),
        saturatingAdd(saturatingMul(taps, computationFlops(*callees[0])),
                      computationFlops(*callees[1])));
  }
  case Opcode::Map: // the callee once per element
    return saturatingMul(shape.numElements(),
                         computationFlops(*instruction.calledComputation()));
  case Opcode::While: {
    // A loop of unknown count is counted as one iteration.
    int64_t trips = whileTripCount(instruction).value_or(1);
    const auto &callees = instruction.calledComputations();
    return saturatingAdd(
        saturatingMul(trips, computationFlops(*callees[1])),
        saturatingMul(saturatingAdd(trips, 1), computationFlops(*callees[0])));
  }
  case Opcode::Conditional: { // the costliest branch
    int64_t flops = 0;
    for (const ir::Computation *branch : instruction.calledComputations())
      flops = std::max(flops, computationFlops(*branch));
    return flops;
  }
  case Opcode::Copy:
  case Opcode::BitcastConvert: // moves bits, like a reshape
    return 0;
  case Opcode::Rng: // counted like elementwise ops: one per operation
    return saturatingMul(shape.numElements(),
                         instruction.attrs().distribution ==
                                 ir::RngDistribution::Normal
                             ? kNormalRngFlops
                             : kUniformRngFlops);
  default:
    return ir::isElementwise(instruction.opcode()) ? shape.numElements() : 0;
  }
}

int64_t computationFlops(const ir::Computation &computation) {
  int64_t flops = 0;
  for (const Instruction *instruction : computation.instructions())
    flops = saturatingAdd(flops, instructionFlops(*instruction));
  return flops;
}

/// Whether the instruction reads only the elements it selects from operand
/// 0, so that operand costs what the result does.
bool readsSelectedElementsOnly(Opcode opcode) {
  return opcode == Opcode::Slice || opcode == Opcode::DynamicSlice ||
         opcode == Opcode::Gather;
}

/// Parameters, constants, tuples and get-tuple-element (InFusion `Read`)
/// compute nothing: they read and write no bytes of their own.
bool movesNoBytes(const Instruction &instruction) {
  return ir::inFusion(instruction.opcode()) == ir::InFusion::Read;
}

/// Bytes a loop fusion reads of its operand `k`: what its selecting
/// readers select (a scan's fused dynamic-slice reads one row of its input
/// per trip) when they are the parameter's only readers and read it as the
/// value operand, else the whole operand.
int64_t fusionOperandBytes(const Instruction &fusion, size_t k) {
  int64_t whole = arrayBytes(fusion.operand(k)->shape());
  if (fusion.attrs().fusionKind != ir::FusionKind::Loop)
    return whole;
  const Instruction *parameter =
      fusion.calledComputation()->parameter(int64_t(k));
  if (!parameter || parameter->users().empty())
    return whole;
  int64_t selected = 0;
  for (const Instruction *user : parameter->users()) {
    if (!readsSelectedElementsOnly(user->opcode()) ||
        user->operand(0) != parameter)
      return whole;
    for (size_t i = 1; i < user->operandCount(); ++i)
      if (user->operand(i) == parameter)
        return whole; // also read as indices
    selected = saturatingAdd(selected, arrayBytes(user->shape()));
  }
  return std::min(selected, whole);
}

int64_t bytesRead(const Instruction &instruction) {
  if (movesNoBytes(instruction))
    return 0;
  bool selective = readsSelectedElementsOnly(instruction.opcode());
  bool fusion = instruction.opcode() == Opcode::Fusion &&
                instruction.calledComputation() != nullptr;
  std::set<const Instruction *> counted;
  int64_t bytes = 0;
  for (size_t i = 0; i < instruction.operandCount(); ++i) {
    const Instruction *operand = instruction.operand(i);
    if (!counted.insert(operand).second)
      continue;
    int64_t read = arrayBytes(operand->shape());
    if (i == 0 && selective)
      read = arrayBytes(instruction.shape());
    else if (fusion)
      read = fusionOperandBytes(instruction, i);
    bytes = saturatingAdd(bytes, read);
  }
  return bytes;
}

int64_t bytesWritten(const Instruction &instruction) {
  return movesNoBytes(instruction) ? 0 : arrayBytes(instruction.shape());
}
} // namespace

Cost instructionCost(const Instruction &instruction) {
  return {instructionFlops(instruction), bytesRead(instruction),
          bytesWritten(instruction)};
}

bool affordableToFold(const Instruction &instruction) {
  return instructionCost(instruction).flops <= ResourceLimits::kMaxFoldFlops;
}

Cost moduleCost(const ir::Module &module) {
  Cost total;
  for (const Instruction *instruction : module.entry()->instructions())
    total += instructionCost(*instruction);
  return total;
}

} // namespace kiln::analysis
