//===- ShapeInferenceRules.h - Per-opcode shape rules (internal) -*- C++
//-*-===//
//
// Shared by the ShapeInference*.cpp files: the input every rule reads,
// checked arithmetic and attribute validation helpers, and one rule function
// per opcode family. Every helper validates indices before using them, so
// garbage attributes (a dimension of 1000 or -5) produce errors, not UB.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IR_SHAPEINFERENCERULES_H
#define KILN_LIB_IR_SHAPEINFERENCERULES_H

#include "kiln/IR/Computation.h"
#include "kiln/IR/Verifier.h"

#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace kiln::ir::detail {

/// Everything a shape rule may read.
struct InferenceInput {
  Opcode opcode;
  const std::vector<Shape> &operands;
  const Attributes &attrs;
  const Shape &declared;
  /// The instruction's callees (Instruction::calledComputations).
  std::vector<const Computation *> called;
};

/// Rules of the opcodes that call computations (ShapeInferenceCalls.cpp).
Expected<Shape> inferFusion(const InferenceInput &in);
Expected<Shape> inferWhile(const InferenceInput &in);
Expected<Shape> inferConditional(const InferenceInput &in);
Expected<Shape> inferCall(const InferenceInput &in);
/// reduce with a to_apply computation (ShapeInferenceApplied.cpp).
Expected<Shape> inferAppliedReduce(const InferenceInput &in);
Expected<Shape> inferAppliedReduceWindow(const InferenceInput &in);
/// select-and-scatter: operand, source of the window's output dimensions,
/// init; select (T, T) -> pred[], scatter (T, T) -> T.
Expected<Shape> inferSelectAndScatter(const InferenceInput &in);
Expected<Shape> inferMap(const InferenceInput &in);
/// sort's to_apply comparator: 2N scalar parameters (lhs then rhs of each
/// operand, of its dtype), a pred[] root.
Error checkSortComparator(const InferenceInput &in);

/// opcodeName, or "unknown" for a value outside Opcodes.def (a corrupted
/// instruction must still produce a message, not an out-of-bounds read).
inline std::string_view opcodeNameOrUnknown(Opcode opcode) {
  return size_t(opcode) < std::size(kAllOpcodes) ? opcodeName(opcode)
                                                 : "unknown";
}

/// a + b and a * b, or nullopt on int64_t overflow.
std::optional<int64_t> checkedAdd(int64_t a, int64_t b);
std::optional<int64_t> checkedMul(int64_t a, int64_t b);

/// "[2,3]" for error messages.
std::string formatDims(const std::vector<int64_t> &dims);

/// An array shape after checking its element count does not overflow.
Expected<Shape> makeArray(DType dtype, std::vector<int64_t> dims);

/// Fails unless operand `i` has an array (non-tuple) shape.
Error requireArray(const InferenceInput &in, size_t i);
/// Fails unless operand `i` is a scalar array.
Error requireScalar(const InferenceInput &in, size_t i, std::string_view role);
/// Fails unless `dim` is in [0, rank); `what` names it ("reduce dimension").
Error requireDimInRange(int64_t dim, int64_t rank, std::string_view what);
/// Fails unless every entry is in [0, rank) and no entry repeats.
Error requireUniqueDims(const std::vector<int64_t> &dims, int64_t rank,
                        std::string_view what);
/// Fails unless `dims` holds exactly one dimension in [0, rank).
Expected<int64_t> requireSingleDim(const std::vector<int64_t> &dims,
                                   int64_t rank, std::string_view what);
/// Fails unless operands `a` and `b` have the same dtype.
Error requireSameDType(const InferenceInput &in, size_t a, size_t b);
/// Fails unless operand `i`'s dtype is in the opcode's Accepts column.
Error requireAcceptedDType(const InferenceInput &in, size_t i);
/// Fails unless the declared shape is an array.
Error checkDeclaredArray(const InferenceInput &in);

/// Output size of one window dimension (XLA's StridedBound over the padded,
/// base-dilated input); validates the window's fields. `i` names the dim.
Expected<int64_t> windowOutputSize(int64_t inputSize, const WindowDim &window,
                                   size_t i);
/// The result dimensions of a window over `operand` (reduce-window), one
/// window dimension per operand dimension (ShapeInferenceCompute.cpp).
Expected<std::vector<int64_t>>
windowedDims(const Shape &operand, const std::vector<WindowDim> &window);

// Rules, grouped by the file that implements them.
// ShapeInference.cpp
Expected<Shape> inferElementwise(const InferenceInput &in);
Expected<Shape> inferCompare(const InferenceInput &in);
// ShapeInferenceLayout.cpp
Expected<Shape> inferBroadcast(const InferenceInput &in);
Expected<Shape> inferReshape(const InferenceInput &in);
Expected<Shape> inferTranspose(const InferenceInput &in);
Expected<Shape> inferSlice(const InferenceInput &in);
Expected<Shape> inferDynamicSlice(const InferenceInput &in);
Expected<Shape> inferDynamicUpdateSlice(const InferenceInput &in);
Expected<Shape> inferConcatenate(const InferenceInput &in);
Expected<Shape> inferPad(const InferenceInput &in);
Expected<Shape> inferReverse(const InferenceInput &in);
Expected<Shape> inferGather(const InferenceInput &in);
// ShapeInferenceCompute.cpp
Expected<Shape> inferReduce(const InferenceInput &in);
Expected<Shape> inferReduceWindow(const InferenceInput &in);
Expected<Shape> inferArgMinMax(const InferenceInput &in);
Expected<Shape> inferDot(const InferenceInput &in);
Expected<Shape> inferConvolution(const InferenceInput &in);
Expected<Shape> inferSort(const InferenceInput &in);
Expected<Shape> inferTopK(const InferenceInput &in);
// ShapeInferenceBitsAndRandom.cpp
Expected<Shape> inferBitcastConvert(const InferenceInput &in);
Expected<Shape> inferReducePrecision(const InferenceInput &in);
Expected<Shape> inferRng(const InferenceInput &in);
// ShapeInferenceScatter.cpp
Expected<Shape> inferScatter(const InferenceInput &in);

} // namespace kiln::ir::detail

#endif // KILN_LIB_IR_SHAPEINFERENCERULES_H
