//===- TfCallees.h - Library functions lowered as callee computations -*- C++ -*-===//
//
// While (TfWhileOps.cpp), If and Case (TfControlFlowOps.cpp) lower library
// functions into computations of one tuple parameter. TensorLists crossing
// into them keep what the lowering knows about them (TfNodeContext's
// TensorList hooks): an unshaped list stays unshaped, and a counted list's
// length travels as an extra tuple element after the function's arguments.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFCALLEES_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFCALLEES_H

#include "TensorFlow/TfOps.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln::import::tf {

/// The node's inputs from `first` on; nullopt after recording an error if
/// one is missing.
std::optional<std::vector<Value>> inputsFrom(TfNodeContext &ctx, size_t first);

std::vector<ir::Shape> shapesOf(const std::vector<Value> &values);
/// "(f32[2], s32[])" for messages.
std::string describeShapes(const std::vector<ir::Shape> &shapes);

/// TensorFlow's truth value of a condition tensor: a scalar is true when
/// nonzero; a tensor of any other rank when it has elements (a static
/// fact).
Value truthValue(GraphBuilder &b, Value x);

/// Sets the node's outputs to `values`.
void setOutputs(TfNodeContext &ctx, const std::vector<Value> &values);

/// Removes a callee built but not called (a failed, provisional or
/// superseded build), and what was recorded about its lists.
void discardCallee(TfNodeContext &ctx, ir::Computation *callee);

/// What a callee computation returns, made from the function's outputs in
/// the callee's builder (nullptr after recording why).
using RootOf = std::function<Value(GraphBuilder &, const std::vector<Value> &)>;

/// Per argument, the bound of a TensorList of unknown element shape
/// (TfTensorListOps.cpp), or nullopt.
using UnshapedLists = std::vector<std::optional<int64_t>>;
UnshapedLists unshapedListsOf(TfNodeContext &ctx,
                              const std::vector<Value> &values);

/// The indices of the values that are TensorLists with a length
/// (TfNodeContext::listLength). A loop carries each length as an extra loop
/// variable after the function's own, in this order.
std::vector<size_t> countedListsOf(TfNodeContext &ctx,
                                   const std::vector<Value> &values);

/// What a callee's arguments are as TensorLists.
struct CalleeLists {
  UnshapedLists unshaped;      ///< stay unshaped lists in the callee
  std::vector<size_t> counted; ///< lengths follow the function's arguments
};

/// A computation of one tuple parameter of `parameters` applying
/// `function` to its elements, named after the node and `role`; `rootOf`
/// makes its root. The last `lists.counted.size()` elements are the lengths
/// of the counted lists, not arguments of the function. Null after
/// recording the error on the node.
ir::Computation *buildCallee(TfNodeContext &ctx, const std::string &function,
                             const std::vector<ir::Shape> &parameters,
                             const std::string &role, const RootOf &rootOf,
                             const CalleeLists &lists = {});

} // namespace kiln::import::tf

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFCALLEES_H
