//===- TfWhileOps.cpp - While and StatelessWhile as `while` ---------------===//
//
// `While`/`StatelessWhile` become a `while` over the tuple of loop
// variables: `cond` and `body` each become a computation taking that tuple
// (TfCallees.h). Every loop variable keeps one static shape. A trip bound
// TF2 writes as `loop_counter < maximum_iterations` (a constant loop
// variable) is found by the passes: while-loop-simplifier sinks the
// constant into the condition, where the trip-count analysis reads it.
//
// TensorLists in the state (TfTensorListOps.cpp): one of unknown element
// shape that the body writes makes the loop be built again with the shaped
// buffer as its init; a counted list's length is an extra loop variable;
// one without a bound takes the loop's trip bound (TfLoopBounds.h), and so
// does a TensorArray without one (TfTensorArrayOps.cpp; the body writes it
// by index, which dynamic-update-slice clamps into the bound).
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfCallees.h"

#include "Common/LoopBuffers.h"
#include "TensorFlow/TfListBuffers.h"
#include "TensorFlow/TfLoopBounds.h"

#include "kiln/IR/Computation.h"
#include "kiln/IR/Module.h"

#include <fmt/format.h>

#include <algorithm>

namespace kiln::import::tf {

namespace {
using ir::DType;

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

/// Why a loop gives an unbounded list no bound: it may push more than once
/// per trip (`overfilled`), its limit is a run-time value (`unknownLimit`),
/// or no counted test was found.
std::string whyNoBound(bool overfilled, Value unknownLimit) {
  if (overfilled)
    return "the body may push onto it more than once per trip, so the "
           "loop's trip bound does not bound it";
  if (unknownLimit)
    return fmt::format("the loop's limit is computed at run time, from {} "
                       "(--freeze it to give the loop a trip bound)",
                       runTimeSources(unknownLimit));
  return "kiln finds no trip bound for the loop: a condition `counter < "
         "limit` with a counter stepped by 1 from a constant and a constant "
         "limit (or maximum_iterations)";
}

/// Gives each list or TensorArray among `init` without a bound
/// (kUnboundedList) the loop's trip bound, found on callees built once for
/// that with a one-entry placeholder in its place (TfLoopBounds.h); the
/// body must push onto a list at most once per trip. False after recording why there is none.
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
    auto at = std::find(counted.begin(), counted.end(), i);
    if (at == counted.end())
      continue; // a TensorArray: written by index, not pushed
    int64_t length = int64_t(probe.size()) + (at - counted.begin());
    if (!stepsByOne(*step, length) && !keepsElement(*step, length))
      overfilled = i;
  }
  discardCallee(ctx, test);
  discardCallee(ctx, step);
  if (!bound || overfilled) {
    size_t i = overfilled.value_or(unbounded.front());
    bool array = std::find(counted.begin(), counted.end(), i) == counted.end();
    ctx.fail(fmt::format(
        "loop variable {} is {}, and {}; or {}, or the loop a "
        "constant maximum_iterations",
        i,
        array ? "a TensorArray without a bound (dynamic_size, or a size "
                "that is not a compile-time constant)"
              : "a TensorList without a bound (EmptyTensorList with "
                "max_num_elements -1)",
        whyNoBound(overfilled.has_value(), unknownLimit),
        array ? "give the array a constant size"
              : "give the list a max_num_elements"));
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
    {"While", &lowerWhile},
    {"StatelessWhile", &lowerWhile},
};
} // namespace

std::span<const TfOpRule> tfWhileRules() { return kRules; }

} // namespace kiln::import::tf
