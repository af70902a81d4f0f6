//===- TfControlFlowOps.cpp - If, Case and function calls -----------------===//
//
// TensorFlow's functional control flow (v2) calls FunctionDefs of the
// graph's library (TfFunctions.h):
//
// - `PartitionedCall`, `StatefulPartitionedCall` and a node whose op is a
//   function name are inlined: the body is lowered into the caller's
//   computation, so its constants fold with the caller's.
// - `While`/`StatelessWhile`: TfWhileOps.cpp.
// - `If`/`StatelessIf` inline the taken branch when the predicate folds to a
//   constant, else become a `conditional` on a `pred[]`; `Case` is an
//   `s32`-indexed `conditional` (an index out of range runs the last
//   branch, as in TensorFlow and kiln's conditional alike). Each branch
//   takes the tuple of the node's inputs after the selector.
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfCallees.h"

#include "Common/LoopBuffers.h"

#include <fmt/format.h>

#include <map>

namespace kiln::import::tf {

namespace {
using ir::DType;

// --- Calls -----------------------------------------------------------------

void inlineCall(TfNodeContext &ctx, const std::string &function,
                const std::vector<Value> &arguments) {
  if (std::optional<std::vector<Value>> outputs =
          ctx.callFunction(function, arguments, ctx.builder()))
    setOutputs(ctx, *outputs);
}

void lowerPartitionedCall(TfNodeContext &ctx) {
  std::optional<std::string> function = ctx.attrFunction("f");
  std::optional<std::vector<Value>> arguments = inputsFrom(ctx, 0);
  if (function && arguments)
    inlineCall(ctx, *function, *arguments);
}

// --- Branches --------------------------------------------------------------

/// Per branch output, the shape a branch returning it as an unshaped list
/// returns instead: zeros of the shape another branch gives it by writing
/// it (nothing was written to the list where it is still unshaped).
using ShapedOutputs = std::map<size_t, ir::Shape>;

/// The branch computations, `functions` each on the tuple of `arguments`
/// (unshaped lists stay unshaped inside); outputs `shaped` names become
/// zeros of their shape when unshaped. `unshaped` gets, per branch and
/// output, the bound of an output left an unshaped list. Nullopt after
/// recording an error.
std::optional<std::vector<ir::Computation *>>
buildBranches(TfNodeContext &ctx, const std::vector<std::string> &functions,
              const std::vector<Value> &arguments,
              const std::vector<std::string> &roles, const ShapedOutputs &shaped,
              std::vector<UnshapedLists> &unshaped) {
  std::vector<ir::Computation *> branches;
  unshaped.clear();
  for (size_t i = 0; i < functions.size(); ++i) {
    UnshapedLists &left = unshaped.emplace_back();
    ir::Computation *branch = buildCallee(
        ctx, functions[i], shapesOf(arguments), roles[i],
        [&](GraphBuilder &c, const std::vector<Value> &outputs) {
          std::vector<Value> values = outputs;
          for (size_t k = 0; k < values.size(); ++k) {
            std::optional<int64_t> bound = ctx.unshapedListBound(values[k]);
            auto it = shaped.find(k);
            if (bound && it != shaped.end()) {
              std::vector<int64_t> entry(it->second.dims().begin() + 1,
                                         it->second.dims().end());
              values[k] = zeroBuffer(c, ir::Shape(it->second.dtype(), entry),
                                     it->second.dim(0), 0);
              bound.reset();
            }
            left.push_back(bound);
          }
          return c.tuple(values);
        },
        {unshapedListsOf(ctx, arguments), {}});
    if (!branch) {
      for (ir::Computation *built : branches)
        discardCallee(ctx, built);
      return std::nullopt;
    }
    branches.push_back(branch);
  }
  return branches;
}

/// The outputs some branch returns as an unshaped list and others write
/// (shaped, all alike, of the same bound), with that shape.
ShapedOutputs writtenInSomeBranches(
    const std::vector<ir::Computation *> &branches,
    const std::vector<UnshapedLists> &unshaped) {
  ShapedOutputs shaped;
  size_t outputs = unshaped.front().size();
  for (size_t k = 0; k < outputs; ++k) {
    std::optional<ir::Shape> written;
    bool alike = true, left = false;
    for (size_t i = 0; i < branches.size(); ++i) {
      if (unshaped[i][k]) {
        left = true;
        continue;
      }
      const ir::Shape &shape = branches[i]->root()->shape().tupleElements()[k];
      alike = alike && (!written || *written == shape);
      written = shape;
    }
    if (left && written && alike && written->rank() > 0)
      shaped[k] = *written;
  }
  return shaped;
}

/// A `conditional` on `selector` (pred[] or s32[]) running one of
/// `functions`, each on the tuple of `arguments`; sets the node's outputs.
/// A TensorList of unknown element shape that only some branches write
/// comes back shaped from all (the others' built again to return zeros).
void lowerBranches(TfNodeContext &ctx, Value selector,
                   const std::vector<std::string> &functions,
                   const std::vector<Value> &arguments,
                   const std::vector<std::string> &roles) {
  GraphBuilder &b = ctx.builder();
  std::vector<size_t> counted = countedListsOf(ctx, arguments);
  if (!counted.empty())
    return void(ctx.fail(fmt::format(
        "input {} is a TensorList that EmptyTensorList made (its length "
        "changes with PushBack/PopBack); kiln carries such a list through "
        "loops but not into a branch",
        counted.front() + 1)));
  std::vector<UnshapedLists> unshaped;
  std::optional<std::vector<ir::Computation *>> branches =
      buildBranches(ctx, functions, arguments, roles, {}, unshaped);
  if (!branches)
    return;
  ShapedOutputs shaped = writtenInSomeBranches(*branches, unshaped);
  if (!shaped.empty()) {
    for (ir::Computation *built : *branches)
      discardCallee(ctx, built);
    branches = buildBranches(ctx, functions, arguments, roles, shaped, unshaped);
    if (!branches)
      return;
  }
  const ir::Shape &first = branches->front()->root()->shape();
  for (size_t i = 1; i < branches->size(); ++i) {
    const ir::Shape &other = (*branches)[i]->root()->shape();
    if (other != first)
      return void(ctx.fail(fmt::format(
          "branch '{}' returns {} but branch '{}' returns {}; the branch "
          "taken depends on the inputs, so an ahead-of-time compiler needs "
          "every branch to return the same shapes",
          functions.front(), describeShapes(first.tupleElements()), functions[i],
          describeShapes(other.tupleElements()))));
  }
  std::vector<Value> operands = {selector};
  Value packed = b.tuple(arguments);
  operands.insert(operands.end(), branches->size(), packed);
  Value result = b.addCalling(ir::Opcode::Conditional, std::move(operands),
                              std::move(*branches));
  if (!result)
    return;
  std::vector<Value> outputs = b.tupleElements(result);
  // A list no branch writes stays unshaped after the conditional.
  for (size_t k = 0; k < outputs.size(); ++k)
    if (unshaped.front()[k])
      ctx.markUnshapedList(outputs[k], *unshaped.front()[k]);
  setOutputs(ctx, outputs);
}

void lowerIf(TfNodeContext &ctx) {
  std::optional<std::string> onTrue = ctx.attrFunction("then_branch");
  std::optional<std::string> onFalse = ctx.attrFunction("else_branch");
  Value condition = ctx.input(0);
  std::optional<std::vector<Value>> arguments = inputsFrom(ctx, 1);
  if (!onTrue || !onFalse || !condition || !arguments)
    return;
  Value predicate = truthValue(ctx.builder(), condition);
  if (std::optional<std::vector<int64_t>> known =
          GraphBuilder::constantInts(predicate))
    return inlineCall(ctx, known->front() ? *onTrue : *onFalse, *arguments);
  lowerBranches(ctx, predicate, {*onTrue, *onFalse}, *arguments,
                {"then", "else"});
}

void lowerCase(TfNodeContext &ctx) {
  std::vector<std::string> functions = ctx.attrFunctions("branches");
  Value index = ctx.input(0);
  std::optional<std::vector<Value>> arguments = inputsFrom(ctx, 1);
  if (!index || !arguments)
    return;
  if (functions.empty())
    return void(ctx.fail("attribute 'branches' lists no functions"));
  if (index->shape() != ir::Shape::scalar(DType::S32))
    return void(ctx.fail(fmt::format(
        "input 0 (branch_index) must be an int32 scalar but is {}",
        index->shape().toString())));
  if (std::optional<std::vector<int64_t>> known =
          GraphBuilder::constantInts(index)) {
    int64_t taken = known->front();
    if (taken < 0 || taken >= int64_t(functions.size()))
      taken = int64_t(functions.size()) - 1; // TensorFlow's default branch
    return inlineCall(ctx, functions[size_t(taken)], *arguments);
  }
  std::vector<std::string> roles;
  for (size_t i = 0; i < functions.size(); ++i)
    roles.push_back(fmt::format("branch{}", i));
  lowerBranches(ctx, index, functions, *arguments, roles);
}

const TfOpRule kRules[] = {
    {"PartitionedCall", &lowerPartitionedCall},
    {"StatefulPartitionedCall", &lowerPartitionedCall},
    {"If", &lowerIf},
    {"StatelessIf", &lowerIf},
    {"Case", &lowerCase},
    {"StatelessCase", &lowerCase},
};
} // namespace

void lowerFunctionOp(TfNodeContext &ctx) {
  if (std::optional<std::vector<Value>> arguments = inputsFrom(ctx, 0))
    inlineCall(ctx, ctx.op(), *arguments);
}

std::span<const TfOpRule> tfControlFlowRules() { return kRules; }

} // namespace kiln::import::tf
