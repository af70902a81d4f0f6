//===- GraphBuilder.h - Building HLO from framework graphs ------*- C++ -*-===//
//
// The one builder every importer lowers through. It wraps a Computation and
//  - infers every result shape with the verifier's rules,
//  - applies NumPy broadcasting for the binary/ternary helpers,
//  - folds an instruction whose operands are all constants into a constant
//    at once, so shape-computing subgraphs (Shape -> StridedSlice -> Pack ->
//    Reshape) are plain constants by the time a lowering needs them, and
//    weight-only arithmetic (dequantization, kernel transposes) is done at
//    compile time,
//  - keeps a sticky error like XLA's XlaBuilder: after the first failure
//    every method returns nullptr and does nothing, so a lowering is written
//    as straight-line code and checks `ok()` / `takeError()` once at the end.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORT_GRAPHBUILDER_H
#define KILN_IMPORT_GRAPHBUILDER_H

#include "kiln/IR/Computation.h"
#include "kiln/Import/DynamicShapes.h"
#include "kiln/Support/Error.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::import {

using Value = ir::Instruction *;

class GraphBuilder {
public:
  explicit GraphBuilder(ir::Computation &computation)
      : computation_(computation) {}

  ir::Computation &computation() { return computation_; }
  /// What is known of the run-time sized values built here
  /// (docs/architecture.md, "Run-time sized values").
  DynamicShapes &dynamic() { return dynamic_; }
  const DynamicShapes &dynamic() const { return dynamic_; }

  // --- Errors -----------------------------------------------------------
  bool ok() const { return !failed_; }
  /// Records `message` unless an error is already recorded; returns nullptr
  /// so lowerings can write `return b.fail("...")`.
  Value fail(std::string message);
  /// The recorded error (success if none) and clears it.
  Error takeError();

  /// False (and the error recorded) unless a table of `elements` values of
  /// `elementBytes` each, which a lowering is about to build on the host,
  /// fits the constant budget (--max-constant-bytes). nullopt elements: the
  /// count overflowed.
  bool hostTableFits(std::string_view what, std::optional<int64_t> elements,
                     int64_t elementBytes);

  /// Constant folding of all-constant instructions (on by default).
  void setFolding(bool enabled) { folding_ = enabled; }

  /// The source node being lowered: every instruction made from now on
  /// records it (ir::Instruction::sourceNode). Returns the previous one, so
  /// a nested lowering (a subgraph) can restore it.
  std::string setSourceNode(std::string node) {
    std::swap(node, sourceNode_);
    return node;
  }

  // --- Generic ----------------------------------------------------------
  /// Adds `opcode` with its shape inferred; `declared` supplies what the
  /// operands cannot (see ir::inferShape). Folds when every operand is a
  /// constant. Returns nullptr (and records the error) on failure or when
  /// any operand is nullptr.
  Value add(ir::Opcode opcode, std::vector<Value> operands,
            ir::Attributes attrs = {}, ir::Shape declared = {});
  /// Like add for an opcode that calls computations (while, conditional,
  /// call): its shape is inferred from `callees` too.
  Value addCalling(ir::Opcode opcode, std::vector<Value> operands,
                   std::vector<ir::Computation *> callees,
                   ir::Attributes attrs = {});
  Value parameter(int64_t number, ir::Shape shape, std::string name);
  Value constant(ir::Literal literal);
  /// A scalar constant of `dtype` holding `value` (converted as C++ does).
  Value scalar(ir::DType dtype, double value);
  /// A rank-1 constant of `dtype` from integers.
  Value ints(ir::DType dtype, const std::vector<int64_t> &values);

  // --- Tuples (loop state, branch results) -----------------------------
  Value tuple(std::vector<Value> elements);
  Value getTupleElement(Value x, int64_t index);
  /// Every element of tuple `x`, in order.
  std::vector<Value> tupleElements(Value x);

  // --- Element types ----------------------------------------------------
  /// `convert`, or `x` itself when it already has `dtype`.
  Value convert(Value x, ir::DType dtype);

  // --- Layout -----------------------------------------------------------
  Value reshape(Value x, std::vector<int64_t> dims);
  Value transpose(Value x, std::vector<int64_t> permutation);
  /// XLA broadcast: operand dim i becomes result dim `mapping[i]`.
  Value broadcastInDim(Value x, std::vector<int64_t> dims,
                       std::vector<int64_t> mapping);
  /// NumPy broadcast of `x` to `dims` (trailing alignment, size-1 expands).
  Value broadcastTo(Value x, const std::vector<int64_t> &dims);
  Value slice(Value x, std::vector<ir::SliceDim> dims);
  /// Slice of one dimension; other dimensions are kept whole.
  Value sliceDim(Value x, int64_t dim, int64_t start, int64_t limit,
                 int64_t stride = 1);
  Value concatenate(std::vector<Value> parts, int64_t dim);
  Value pad(Value x, Value padValue, std::vector<ir::PadDim> dims);
  Value reverse(Value x, std::vector<int64_t> dims);

  // --- Arithmetic with NumPy broadcasting ------------------------------
  /// The broadcast shape of two dimension lists, or an error message.
  static Expected<std::vector<int64_t>>
  broadcastDims(const std::vector<int64_t> &a, const std::vector<int64_t> &b);
  /// Any elementwise binary opcode (except compare); operands are broadcast
  /// to a common shape. Operand dtypes must already agree.
  Value binary(ir::Opcode opcode, Value a, Value b);
  Value compare(ir::ComparisonDirection direction, Value a, Value b);
  Value select(Value pred, Value onTrue, Value onFalse);
  Value unary(ir::Opcode opcode, Value x);
  /// A scalar constant with x's dtype, broadcast to x's shape lazily by
  /// binary(); use with binary(Opcode::Multiply, x, like(x, 0.5)).
  Value like(Value x, double value);

  // --- Reductions -------------------------------------------------------
  /// reduce over `dims` (any order, duplicates ignored) with the reducer's
  /// identity as init; `keepDims` reinserts size-1 dimensions.
  Value reduce(Value x, std::vector<int64_t> dims, ir::ReducerKind reducer,
               bool keepDims = false);

  // --- Constants --------------------------------------------------------
  /// The literal of a constant instruction, or nullptr.
  static const ir::Literal *constantValue(Value x);
  /// The elements of a constant integer (or integral float) tensor as
  /// int64_t; nullopt when `x` is not a constant.
  static std::optional<std::vector<int64_t>> constantInts(Value x);
  /// The elements of a constant tensor as doubles; nullopt if not constant.
  static std::optional<std::vector<double>> constantDoubles(Value x);

private:
  /// The result shape of `opcode` on `operands`, or nullopt after
  /// recording why (a null operand, a shape rule's error; or an earlier
  /// failure).
  std::optional<ir::Shape>
  resultShape(ir::Opcode opcode, const std::vector<Value> &operands,
              const ir::Attributes &attrs, const ir::Shape &declared,
              const std::vector<ir::Computation *> &callees);
  Value fold(Value instruction);
  /// Records the current source node on `instruction`; returns it.
  Value stamp(Value instruction);

  ir::Computation &computation_;
  bool failed_ = false;
  std::string message_;
  bool folding_ = true;
  std::string sourceNode_;
  DynamicShapes dynamic_;
};

/// Normalizes a possibly negative axis for a tensor of `rank`; nullopt when
/// it is outside [-rank, rank).
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

} // namespace kiln::import

#endif // KILN_IMPORT_GRAPHBUILDER_H
