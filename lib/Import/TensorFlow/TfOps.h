//===- TfOps.h - The interface between the TF importer and op lowerings ---===//
//
// The importer (TfImporter.cpp) walks the pruned graph in topological order
// and calls one lowering per node through a TfNodeContext. Lowerings live in
// one file per op family (TfElementwiseOps.cpp, TfArrayOps.cpp,
// TfNnOps.cpp, TfTrainingOps.cpp, ...), each exposing a table of rules that
// TfOpTable.cpp concatenates. A lowering reads inputs and attributes, builds
// HLO with the GraphBuilder (whose errors are sticky) and sets its outputs;
// the importer prefixes any error with the file, node name and op.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFOPS_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFOPS_H

#include "Common/NodeContext.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::import::tf {

/// A TensorFlow node: the shared NodeContext plus dtype, shape and bool
/// attributes and tfcompile variables.
class TfNodeContext : public NodeContext {
public:
  /// The node's op (its `op` field).
  virtual const std::string &op() const = 0;

  // --- Attributes only TensorFlow has -------------------------------------
  virtual bool attrBool(std::string_view key, bool fallback) = 0;
  /// A `type` attribute (T, DstT, ...) as an IR dtype; unsupported
  /// TensorFlow dtypes (string, complex, resource) record an error.
  virtual std::optional<ir::DType> attrType(std::string_view key) = 0;
  /// A `shape` attribute; nullopt when absent or of unknown rank, -1 for
  /// unknown dimensions.
  virtual std::optional<std::vector<int64_t>>
  attrShape(std::string_view key) = 0;

  // --- Variables (tfcompile `variable` entries) ---------------------------
  /// The config name of the variable that input i refers to (a VariableV2
  /// ref or a VarHandleOp resource, possibly through Identity), or nullopt.
  /// Reading the input gives the variable's value at the start of the step.
  virtual std::optional<std::string> variableOf(size_t i) const = 0;
  /// Records the variable's value after the step (Assign, AssignVariableOp,
  /// ApplyGradientDescent, ...). The last update wins; a variable that the
  /// config marks readonly makes this an error.
  virtual void updateVariable(const std::string &variable, Value value) = 0;
  /// The variable's latest value in this step: the last updateVariable
  /// value recorded by a node lowered before this one (nodes are lowered in
  /// a topological order that respects control inputs), else its value at
  /// the start of the step. For reads ordered after updates
  /// (ReadVariableOp after AssignVariableOp, two AssignAdds).
  virtual Value currentValue(const std::string &variable) = 0;

  // --- Functions (the graph's FunctionDef library) -----------------------
  /// The function a `func` attribute names (While's `body`, If's
  /// `then_branch`, PartitionedCall's `f`); nullopt after recording an
  /// error when it is absent.
  virtual std::optional<std::string> attrFunction(std::string_view key) = 0;
  /// The functions of a list attribute (Case's `branches`).
  virtual std::vector<std::string> attrFunctions(std::string_view key) = 0;
  /// Lowers library function `function` applied to `arguments` into `into`:
  /// the node's own builder inlines it; a callee computation's builder
  /// makes it that computation's body (the arguments then being its
  /// parameter's elements). Returns the function's outputs, or nullopt
  /// after recording why on this node.
  virtual std::optional<std::vector<Value>>
  callFunction(const std::string &function, const std::vector<Value> &arguments,
               GraphBuilder &into) = 0;

  // --- TensorLists (TfTensorListOps.cpp) -----------------------------------
  /// A list is a static buffer [bound, element...]. One whose element shape
  /// is not known yet (reserved with an unknown element_shape, before the
  /// first SetItem gives it) is a placeholder [bound] recorded here; the
  /// loop lowering rebuilds a body whose SetItem shaped one.
  virtual std::optional<int64_t> unshapedListBound(Value list) const = 0;
  virtual void markUnshapedList(Value list, int64_t bound) = 0;
  /// The current length (s32[]) of a list that EmptyTensorList made and
  /// PushBack/PopBack change: entries from it on are zeros. Nullptr for a
  /// list that is full (Reserve, FromTensor: its length is its bound).
  virtual Value listLength(Value list) const = 0;
  virtual void setListLength(Value list, Value length) = 0;
  /// Drops what is recorded about the values of `computation`, which the
  /// caller is about to remove (a later instruction may reuse an address).
  virtual void forgetLists(const ir::Computation &computation) = 0;

protected:
  explicit TfNodeContext(GraphBuilder &builder) : NodeContext(builder) {}
  std::string_view notConstantHint() const override {
    return "depends on a feed; freeze that feed to its value with --freeze "
           "NAME=FILE.npy or NAME=V0,V1,..., or fix the shapes with --shape";
  }
};

using TfLowering = void (*)(TfNodeContext &);

struct TfOpRule {
  std::string_view op;
  TfLowering lower;
};

// One table per op family; TfOpTable.cpp looks ops up across all of them.
std::span<const TfOpRule> tfElementwiseRules(); // math, compare, cast, reductions
std::span<const TfOpRule> tfArrayRules();       // shape, slicing, gather, pad
std::span<const TfOpRule> tfNnRules();          // conv, matmul, pool, norm, resize
std::span<const TfOpRule> tfTrainingRules();    // variables, gradients, apply ops
std::span<const TfOpRule> tfGraphRules();       // Placeholder, Const, Identity, NoOp
std::span<const TfOpRule> tfControlFlowRules(); // If, Case, calls
std::span<const TfOpRule> tfWhileRules();       // While, StatelessWhile
std::span<const TfOpRule> tfTensorListRules();  // TensorList* as static buffers
std::span<const TfOpRule> tfTensorArrayRules(); // TensorArray*V3, the same
std::span<const TfOpRule> tfSelectionRules();   // NonMaxSuppression*, Where

/// A node whose op is a library function: a call of it, inlined (as
/// PartitionedCall).
void lowerFunctionOp(TfNodeContext &ctx);

/// The lowering for `op`, or nullptr when kiln does not support it.
TfLowering findTfLowering(std::string_view op);
/// Why an op is out of scope (control flow, strings, ...), or empty.
std::string_view tfUnsupportedReason(std::string_view op);

} // namespace kiln::import::tf

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFOPS_H
