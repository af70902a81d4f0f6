//===- TfControlFlowOps.cpp - While, If, Case and function calls ----------===//
//
// TensorFlow's functional control flow (v2) calls FunctionDefs of the
// graph's library (TfFunctions.h):
//
// - `PartitionedCall`, `StatefulPartitionedCall` and a node whose op is a
//   function name are inlined: the body is lowered into the caller's
//   computation, so its constants fold with the caller's.
// - `While`/`StatelessWhile` become a `while` over the tuple of loop
//   variables: `cond` and `body` each become a computation taking that
//   tuple. Every loop variable keeps one static shape. A trip bound TF2
//   writes as `loop_counter < maximum_iterations` (a constant loop
//   variable) is found by the passes: while-loop-simplifier sinks the
//   constant into the condition, where the trip-count analysis reads it.
// - `If`/`StatelessIf` inline the taken branch when the predicate folds to a
//   constant, else become a `conditional` on a `pred[]`; `Case` is an
//   `s32`-indexed `conditional` (an index out of range runs the last
//   branch, as in TensorFlow and kiln's conditional alike). Each branch
//   takes the tuple of the node's inputs after the selector.
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfOps.h"

#include "Common/CalleeBuilder.h"
#include "Common/LoopBuffers.h"
#include "TensorFlow/TfListBuffers.h"
#include "TensorFlow/TfLoopBounds.h"

#include "kiln/IR/Module.h"

#include <fmt/format.h>

#include <functional>
#include <map>

namespace kiln::import::tf {

namespace {
using ir::DType;

/// The node's inputs from `first` on; empty after recording an error if one
/// is missing.
std::optional<std::vector<Value>> inputsFrom(TfNodeContext &ctx, size_t first) {
  std::vector<Value> values;
  for (size_t i = first; i < ctx.inputCount(); ++i) {
    Value value = ctx.input(i);
    if (!value)
      return std::nullopt;
    values.push_back(value);
  }
  return values;
}

std::vector<ir::Shape> shapesOf(const std::vector<Value> &values) {
  std::vector<ir::Shape> shapes;
  for (Value value : values)
    shapes.push_back(value->shape());
  return shapes;
}

std::string describeShapes(const std::vector<ir::Shape> &shapes) {
  std::vector<std::string> texts;
  for (const ir::Shape &shape : shapes)
    texts.push_back(shape.toString());
  return fmt::format("({})", fmt::join(texts, ", "));
}

/// TensorFlow's truth value of a condition tensor: a scalar is true when
/// nonzero; a tensor of any other rank when it has elements (a static
/// fact).
Value truthValue(GraphBuilder &b, Value x) {
  const ir::Shape &shape = x->shape();
  if (shape.rank() != 0)
    return b.scalar(DType::Pred, shape.numElements() > 0 ? 1 : 0);
  if (shape.dtype() == DType::Pred)
    return x;
  return b.compare(ir::ComparisonDirection::NE, x,
                   b.scalar(shape.dtype(), 0));
}

/// Sets the node's outputs to `values`.
void setOutputs(TfNodeContext &ctx, const std::vector<Value> &values) {
  for (size_t i = 0; i < values.size(); ++i)
    ctx.setOutput(i, values[i]);
}

/// Removes a callee built but not called (a failed, provisional or
/// superseded build), and what was recorded about its lists.
void discardCallee(TfNodeContext &ctx, ir::Computation *callee) {
  ctx.forgetLists(*callee);
  callee->parent()->removeComputation(callee);
}

/// What a callee computation returns, made from the function's outputs in
/// the callee's builder (nullptr after recording why).
using RootOf = std::function<Value(GraphBuilder &, const std::vector<Value> &)>;

/// Per argument, the bound of a TensorList of unknown element shape
/// (TfTensorListOps.cpp), or nullopt.
using UnshapedLists = std::vector<std::optional<int64_t>>;

UnshapedLists unshapedListsOf(TfNodeContext &ctx,
                              const std::vector<Value> &values) {
  UnshapedLists bounds;
  for (Value value : values)
    bounds.push_back(ctx.unshapedListBound(value));
  return bounds;
}

/// The indices of the values that are TensorLists with a length
/// (TfNodeContext::listLength). A loop carries each length as an extra loop
/// variable after the function's own, in this order.
std::vector<size_t> countedListsOf(TfNodeContext &ctx,
                                   const std::vector<Value> &values) {
  std::vector<size_t> counted;
  for (size_t i = 0; i < values.size(); ++i)
    if (ctx.listLength(values[i]))
      counted.push_back(i);
  return counted;
}

/// What a callee's arguments are as TensorLists.
struct CalleeLists {
  UnshapedLists unshaped;      ///< stay unshaped lists in the callee
  std::vector<size_t> counted; ///< lengths follow the function's arguments
};

/// A computation of one tuple parameter of `parameters` applying
/// `function` to its elements; `rootOf` makes its root. The last
/// `lists.counted.size()` elements are the lengths of the counted lists,
/// not arguments of the function. Null after recording the error on the
/// node.
ir::Computation *buildCallee(TfNodeContext &ctx, const std::string &function,
                             const std::vector<ir::Shape> &parameters,
                             const std::string &role, const RootOf &rootOf,
                             const CalleeLists &lists = {}) {
  GraphBuilder &b = ctx.builder();
  ir::Computation *callee = newComputation(b, ctx.name() + "." + role);
  GraphBuilder c(*callee);
  c.setSourceNode(ctx.name());
  Value parameter = c.parameter(0, ir::Shape::tuple(parameters),
                                callee->name() + ".args");
  std::vector<Value> arguments = c.tupleElements(parameter);
  size_t own = arguments.size() - lists.counted.size();
  for (size_t k = 0; k < lists.counted.size(); ++k)
    ctx.setListLength(arguments[lists.counted[k]], arguments[own + k]);
  arguments.resize(own);
  for (size_t i = 0; i < lists.unshaped.size() && i < arguments.size(); ++i)
    if (lists.unshaped[i])
      ctx.markUnshapedList(arguments[i], *lists.unshaped[i]);
  std::optional<std::vector<Value>> outputs =
      ctx.callFunction(function, arguments, c);
  Value root = outputs ? rootOf(c, *outputs) : nullptr;
  if (!outputs || !finish(b, c, *callee, root)) {
    // Nothing calls it; a half-built computation must not reach the
    // verifier or a dump.
    discardCallee(ctx, callee);
    return nullptr;
  }
  return callee;
}


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

// --- Loops -----------------------------------------------------------------

/// The lengths of the counted lists `counted` among `values`, for the
/// state after the loop variables; nullopt after recording which one lacks
/// its length.
std::optional<std::vector<Value>> lengthsOf(TfNodeContext &ctx,
                                            GraphBuilder &c,
                                            const std::vector<Value> &values,
                                            const std::vector<size_t> &counted,
                                            const std::string &body) {
  std::vector<Value> lengths;
  for (size_t i : counted) {
    Value length = ctx.listLength(values[i]);
    if (!length) {
      c.fail(fmt::format("loop variable {} enters as a TensorList with a "
                         "length (EmptyTensorList) but body '{}' returns a "
                         "list without one (Reserve, FromTensor)",
                         i, body));
      return std::nullopt;
    }
    lengths.push_back(length);
  }
  return lengths;
}

/// The body of a While over `init`; the lengths of the counted lists
/// `counted` among `init` follow the loop variables in the state. A loop
/// variable that is a TensorList of unknown element shape and that the
/// body writes (so returns shaped) gets a shaped zero buffer as its init in
/// `init`, and the body is built again (`reshaped` says so; at most once
/// per such variable). Null after recording an error.
ir::Computation *buildBody(TfNodeContext &ctx, const std::string &body,
                           std::vector<Value> &init,
                           const std::vector<size_t> &counted,
                           bool &reshaped) {
  std::vector<ir::Shape> state = shapesOf(init);
  for (size_t k = 0; k < counted.size(); ++k)
    state.push_back(ir::Shape::scalar(DType::S32));
  size_t variables = init.size();
  UnshapedLists unshaped = unshapedListsOf(ctx, init);
  std::vector<std::pair<size_t, ir::Shape>> shaped;
  ir::Computation *step = buildCallee(
      ctx, body, state, "body",
      [&](GraphBuilder &c, const std::vector<Value> &outputs) -> Value {
        if (outputs.size() != variables)
          return c.fail(fmt::format("body '{}' returns {} values for {} loop "
                                    "variables",
                                    body, outputs.size(), variables));
        for (size_t i = 0; i < variables; ++i) {
          if (outputs[i]->shape() == state[i])
            continue;
          if (unshaped[i] && !ctx.unshapedListBound(outputs[i])) {
            shaped.emplace_back(i, outputs[i]->shape());
            continue;
          }
          return c.fail(fmt::format(
              "loop variable {} is {} on entry but body '{}' returns {}; "
              "kiln needs every loop variable to keep one static shape",
              i, state[i].toString(), body, outputs[i]->shape().toString()));
        }
        std::optional<std::vector<Value>> lengths =
            lengthsOf(ctx, c, outputs, counted, body);
        if (!lengths)
          return nullptr;
        std::vector<Value> next = outputs;
        next.insert(next.end(), lengths->begin(), lengths->end());
        return c.tuple(next);
      },
      {unshaped, counted});
  reshaped = step && !shaped.empty();
  if (!reshaped)
    return step;
  discardCallee(ctx, step);
  GraphBuilder &b = ctx.builder();
  for (const auto &[i, shape] : shaped) {
    std::vector<int64_t> element(shape.dims().begin() + 1, shape.dims().end());
    Value length = ctx.listLength(init[i]);
    init[i] = zeroBuffer(b, ir::Shape(shape.dtype(), element), shape.dim(0), 0);
    ctx.setListLength(init[i], length);
  }
  return nullptr;
}

/// Gives each list among `init` without a bound (kUnboundedList) the loop's
/// trip bound, found on callees built once for that with a one-entry
/// placeholder in its place (TfLoopBounds.h); the body must push onto it at
/// most once per trip. False after recording why there is none.
bool boundListsByLoop(TfNodeContext &ctx, const std::string &cond,
                      const std::string &body, std::vector<Value> &init,
                      const std::vector<size_t> &counted) {
  std::vector<size_t> unbounded;
  for (size_t i = 0; i < init.size(); ++i)
    if (ctx.unshapedListBound(init[i]) == kUnboundedList)
      unbounded.push_back(i);
  if (unbounded.empty())
    return true;
  std::vector<Value> probe = init;
  auto placeholderFor = [&](size_t i, int64_t bound) {
    Value list = newListBuffer(ctx, std::nullopt, bound,
                               init[i]->shape().dtype());
    ctx.setListLength(list, ctx.listLength(init[i]));
    return list;
  };
  for (size_t i : unbounded)
    probe[i] = placeholderFor(i, 1);
  std::optional<std::vector<Value>> lengths =
      lengthsOf(ctx, ctx.builder(), probe, counted, body);
  if (!lengths)
    return false;
  std::vector<Value> state = probe;
  state.insert(state.end(), lengths->begin(), lengths->end());
  CalleeLists lists{unshapedListsOf(ctx, probe), counted};
  ir::Computation *test = buildCallee(
      ctx, cond, shapesOf(state), "bound_cond",
      [](GraphBuilder &c, const std::vector<Value> &outputs) {
        return outputs.size() == 1 ? truthValue(c, outputs.front())
                                   : c.tuple(outputs);
      },
      lists);
  ir::Computation *step =
      test ? buildCallee(
                 ctx, body, shapesOf(state), "bound_body",
                 [&](GraphBuilder &c, const std::vector<Value> &outputs) {
                   std::optional<std::vector<Value>> next =
                       lengthsOf(ctx, c, outputs, counted, body);
                   if (!next || outputs.size() != probe.size())
                     return c.tuple(outputs);
                   next->insert(next->begin(), outputs.begin(), outputs.end());
                   return c.tuple(*next);
                 },
                 lists)
           : nullptr;
  if (!step) {
    if (test)
      discardCallee(ctx, test);
    return false;
  }
  Value unknownLimit = nullptr;
  std::optional<int64_t> bound =
      loopTripBound(*test, *step, state, unknownLimit);
  std::optional<size_t> overfilled;
  for (size_t i : unbounded) {
    int64_t length = int64_t(probe.size()) +
                     (std::find(counted.begin(), counted.end(), i) -
                      counted.begin());
    if (!stepsByOne(*step, length) && !keepsElement(*step, length))
      overfilled = i;
  }
  discardCallee(ctx, test);
  discardCallee(ctx, step);
  if (!bound || overfilled) {
    size_t i = overfilled.value_or(unbounded.front());
    ctx.fail(fmt::format(
        "loop variable {} is a TensorList without a bound (EmptyTensorList "
        "with max_num_elements -1), and {}; or give the list a "
        "max_num_elements, or the loop a constant maximum_iterations",
        i,
        overfilled ? std::string("the body may push onto it more than once "
                                 "per trip, so the loop's trip bound does "
                                 "not bound it")
        : unknownLimit
            ? fmt::format("the loop's limit is computed at run time, from {} "
                          "(--freeze it to give the loop a trip bound)",
                          runTimeSources(unknownLimit))
            : std::string("kiln finds no trip bound for the loop: a "
                          "condition `counter < limit` with a counter "
                          "stepped by 1 from a constant and a constant limit "
                          "(or maximum_iterations)")));
    return false;
  }
  for (size_t i : unbounded)
    init[i] = placeholderFor(i, *bound);
  return true;
}

void lowerWhile(TfNodeContext &ctx) {
  std::optional<std::string> cond = ctx.attrFunction("cond");
  std::optional<std::string> body = ctx.attrFunction("body");
  std::optional<std::vector<Value>> init = inputsFrom(ctx, 0);
  if (!cond || !body || !init)
    return;
  if (init->empty())
    return void(ctx.fail("the loop has no loop variables"));
  std::vector<size_t> counted = countedListsOf(ctx, *init);
  if (!boundListsByLoop(ctx, *cond, *body, *init, counted))
    return;
  ir::Computation *step = nullptr;
  // Each rebuild shapes at least one more list, so this ends.
  for (size_t round = 0; round <= init->size() && !step; ++round) {
    bool reshaped = false;
    step = buildBody(ctx, *body, *init, counted, reshaped);
    if (!reshaped && !step)
      return;
  }
  if (!step)
    return void(ctx.fail("the loop's TensorLists did not settle on static "
                         "element shapes"));
  UnshapedLists unshaped = unshapedListsOf(ctx, *init);
  GraphBuilder &b = ctx.builder();
  std::vector<Value> state = *init;
  std::optional<std::vector<Value>> lengths =
      lengthsOf(ctx, b, *init, counted, *body);
  if (!lengths)
    return;
  state.insert(state.end(), lengths->begin(), lengths->end());
  ir::Computation *test = buildCallee(
      ctx, *cond, shapesOf(state), "cond",
      [&](GraphBuilder &c, const std::vector<Value> &outputs) -> Value {
        if (outputs.size() != 1)
          return c.fail(fmt::format("cond '{}' returns {} values, not one",
                                    *cond, outputs.size()));
        return truthValue(c, outputs.front());
      },
      {unshaped, counted});
  if (!test)
    return;
  Value loop = b.addCalling(ir::Opcode::While, {b.tuple(state)}, {test, step});
  if (!loop)
    return;
  std::vector<Value> outputs = b.tupleElements(loop);
  for (size_t k = 0; k < counted.size(); ++k)
    ctx.setListLength(outputs[counted[k]], outputs[init->size() + k]);
  outputs.resize(init->size());
  // A list the body never writes stays unshaped after the loop.
  for (size_t i = 0; i < outputs.size(); ++i)
    if (unshaped[i])
      ctx.markUnshapedList(outputs[i], *unshaped[i]);
  setOutputs(ctx, outputs);
}

const TfOpRule kRules[] = {
    {"PartitionedCall", &lowerPartitionedCall},
    {"StatefulPartitionedCall", &lowerPartitionedCall},
    {"If", &lowerIf},
    {"StatelessIf", &lowerIf},
    {"Case", &lowerCase},
    {"StatelessCase", &lowerCase},
    {"While", &lowerWhile},
    {"StatelessWhile", &lowerWhile},
};
} // namespace

void lowerFunctionOp(TfNodeContext &ctx) {
  if (std::optional<std::vector<Value>> arguments = inputsFrom(ctx, 0))
    inlineCall(ctx, ctx.op(), *arguments);
}

std::span<const TfOpRule> tfControlFlowRules() { return kRules; }

} // namespace kiln::import::tf
