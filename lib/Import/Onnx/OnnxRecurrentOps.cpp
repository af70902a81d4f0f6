//===- OnnxRecurrentOps.cpp - ONNX RNN, GRU and LSTM ===//
//
// Each direction is a `while` over time (the program does not grow with the
// sequence length): the input projection X W^T + Wb of every time step is
// one matrix product before the loop, then each iteration reads its rows,
// adds H R^T + Rb and applies the cell's gate equations (ONNX's operator
// definitions; gate orders RNN: one, GRU: z r h, LSTM: i o f c, peepholes
// i o f), and writes its row of Y with dynamic-update-slice. Constant
// weights are cloned into the loop body, so their slices and transposes
// fold at import and they stay packed constants. sequence_lens masks the
// steps past a batch entry's length: its state stops changing and its Y
// rows are zero, which for the reverse direction also starts the
// recurrence at its last valid step.
//
//===----------------------------------------------------------------------===//
#include "Common/MatMulLowering.h"
#include "Onnx/OnnxOps.h"
#include "Onnx/OnnxWhile.h"

#include <fmt/format.h>

#include <cctype>

namespace kiln::import::onnx {

using ir::Opcode;

namespace {

enum class Cell { Rnn, Gru, Lstm };

// --- Activations --------------------------------------------------------------

struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

struct ActivationInfo {
  std::string_view name; // lower case
  int params;            // how many of alpha, beta it consumes
  double alpha, beta;    // defaults (ONNX Runtime's)
};

constexpr ActivationInfo kActivations[] = {
    {"relu", 0, 0, 0},          {"tanh", 0, 0, 0},
    {"sigmoid", 0, 0, 0},       {"softsign", 0, 0, 0},
    {"softplus", 0, 0, 0},      {"affine", 2, 1, 0},
    {"leakyrelu", 1, 0.01, 0},  {"thresholdedrelu", 1, 1, 0},
    {"scaledtanh", 2, 1, 1},    {"hardsigmoid", 2, 0.2, 0.5},
    {"elu", 1, 1, 0},
};

std::string lower(std::string s) {
  for (char &c : s)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Value activate(GraphBuilder &b, const Activation &a, Value x) {
  using D = ir::ComparisonDirection;
  const std::string &n = a.name;
  if (n == "sigmoid")
    return b.unary(Opcode::Logistic, x);
  if (n == "tanh")
    return b.unary(Opcode::Tanh, x);
  if (n == "relu")
    return b.binary(Opcode::Maximum, x, b.like(x, 0));
  if (n == "affine")
    return b.binary(Opcode::Add, b.binary(Opcode::Multiply, x, b.like(x, a.alpha)),
                    b.like(x, a.beta));
  if (n == "leakyrelu")
    return b.select(b.compare(D::LT, x, b.like(x, 0)),
                    b.binary(Opcode::Multiply, x, b.like(x, a.alpha)), x);
  if (n == "thresholdedrelu")
    return b.select(b.compare(D::GT, x, b.like(x, a.alpha)), x, b.like(x, 0));
  if (n == "scaledtanh")
    return b.binary(Opcode::Multiply, b.like(x, a.alpha),
                    b.unary(Opcode::Tanh, b.binary(Opcode::Multiply, x,
                                                   b.like(x, a.beta))));
  if (n == "hardsigmoid") {
    Value y = b.binary(Opcode::Add, b.binary(Opcode::Multiply, x, b.like(x, a.alpha)),
                       b.like(x, a.beta));
    return b.binary(Opcode::Minimum, b.binary(Opcode::Maximum, y, b.like(x, 0)),
                    b.like(x, 1));
  }
  if (n == "elu")
    return b.select(
        b.compare(D::LT, x, b.like(x, 0)),
        b.binary(Opcode::Multiply, b.like(x, a.alpha),
                 b.binary(Opcode::Subtract, b.unary(Opcode::Exp, x), b.like(x, 1))),
        x);
  if (n == "softsign")
    return b.binary(Opcode::Divide, x,
                    b.binary(Opcode::Add, b.unary(Opcode::Abs, x), b.like(x, 1)));
  if (n == "softplus") // log(1 + exp(x)) without overflow for large x
    return b.binary(
        Opcode::Add, b.binary(Opcode::Maximum, x, b.like(x, 0)),
        b.unary(Opcode::Log,
                b.binary(Opcode::Add, b.like(x, 1),
                         b.unary(Opcode::Exp,
                                 b.unary(Opcode::Negate, b.unary(Opcode::Abs, x))))));
  return b.fail(fmt::format("unsupported activation '{}'", n));
}

/// The activations of every direction: `perDirection` functions each, from
/// the `activations` attribute or the cell's defaults. activation_alpha/beta
/// are consumed in order by the functions that take them.
std::optional<std::vector<Activation>>
readActivations(OnnxNodeContext &ctx, std::vector<std::string> defaults,
                int64_t directions) {
  std::vector<std::string> names = ctx.attrStrings("activations");
  size_t per = defaults.size();
  if (names.empty())
    for (int64_t d = 0; d < directions; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  if (names.size() != per * size_t(directions)) {
    ctx.fail(fmt::format("expected {} activations but got {}",
                         per * size_t(directions), names.size()));
    return std::nullopt;
  }
  std::vector<double> alphas = ctx.attrFloats("activation_alpha");
  std::vector<double> betas = ctx.attrFloats("activation_beta");
  size_t ai = 0, bi = 0;
  std::vector<Activation> result;
  for (const std::string &name : names) {
    Activation a{lower(name)};
    const ActivationInfo *info = nullptr;
    for (const ActivationInfo &candidate : kActivations)
      if (candidate.name == a.name)
        info = &candidate;
    if (!info) {
      ctx.fail(fmt::format("unsupported activation '{}'", name));
      return std::nullopt;
    }
    a.alpha = info->params >= 1 && ai < alphas.size() ? alphas[ai++] : info->alpha;
    a.beta = info->params >= 2 && bi < betas.size() ? betas[bi++] : info->beta;
    result.push_back(a);
  }
  return result;
}

// --- The recurrence ------------------------------------------------------

/// Everything one direction's steps need.
struct Direction {
  Value xw;              ///< [seq * batch, G * hidden]: X W^T + Wb
  Value rt;              ///< [hidden, G * hidden]: R^T
  Value rb;              ///< [G * hidden]: Rb
  Value peep;            ///< [3 * hidden] (LSTM) or nullptr
  Value h, c;            ///< state [batch, hidden]
  const Activation *act; ///< f, g, h of this direction
};

struct Recurrence {
  Cell cell;
  int64_t seq = 0, batch = 0, hidden = 0;
  double clip = 0; ///< 0: no clipping
  bool linearBeforeReset = false, inputForget = false;
  Value lengths = nullptr; ///< [batch] s32/s64 or nullptr
};

Value gate(GraphBuilder &b, Value v, int64_t k, int64_t hidden) {
  return b.sliceDim(v, 1, k * hidden, (k + 1) * hidden);
}

Value clipped(GraphBuilder &b, const Recurrence &r, Value v) {
  if (r.clip <= 0)
    return v;
  return b.binary(Opcode::Minimum, b.binary(Opcode::Maximum, v, b.like(v, -r.clip)),
                  b.like(v, r.clip));
}

/// H R_k^T + Rb_k for gates [first, first + count).
Value recurrentPart(GraphBuilder &b, const Direction &d, Value h, int64_t first,
                    int64_t count, int64_t hidden) {
  Value rt = b.sliceDim(d.rt, 1, first * hidden, (first + count) * hidden);
  Value rb = b.sliceDim(d.rb, 0, first * hidden, (first + count) * hidden);
  return b.binary(Opcode::Add, matMul2d(b, h, rt, false, false),
                  b.reshape(rb, {1, count * hidden}));
}

/// One step; returns the new {h, c} (c only for LSTM).
std::pair<Value, Value> step(GraphBuilder &b, const Recurrence &r,
                             const Direction &d, Value xw) {
  int64_t n = r.hidden;
  auto pre = [&](Value v) { return clipped(b, r, v); };
  if (r.cell == Cell::Rnn) {
    Value sum = b.binary(Opcode::Add, xw, recurrentPart(b, d, d.h, 0, 1, n));
    return {activate(b, d.act[0], pre(sum)), nullptr};
  }
  if (r.cell == Cell::Gru) {
    Value zr = b.binary(Opcode::Add, b.sliceDim(xw, 1, 0, 2 * n),
                        recurrentPart(b, d, d.h, 0, 2, n));
    Value z = activate(b, d.act[0], pre(gate(b, zr, 0, n)));
    Value rg = activate(b, d.act[0], pre(gate(b, zr, 1, n)));
    Value hr = r.linearBeforeReset
                   ? b.binary(Opcode::Multiply, rg,
                              recurrentPart(b, d, d.h, 2, 1, n))
                   : recurrentPart(b, d, b.binary(Opcode::Multiply, rg, d.h),
                                   2, 1, n);
    Value hh = activate(b, d.act[1],
                        pre(b.binary(Opcode::Add, gate(b, xw, 2, n), hr)));
    // (1 - z) * hh + z * h = hh + z * (h - hh)
    Value h = b.binary(Opcode::Add, hh,
                       b.binary(Opcode::Multiply, z,
                                b.binary(Opcode::Subtract, d.h, hh)));
    return {h, nullptr};
  }
  Value all = b.binary(Opcode::Add, xw, recurrentPart(b, d, d.h, 0, 4, n));
  auto peephole = [&](Value v, int64_t k, Value cell) {
    if (!d.peep)
      return v;
    Value p = b.reshape(b.sliceDim(d.peep, 0, k * n, (k + 1) * n), {1, n});
    return b.binary(Opcode::Add, v, b.binary(Opcode::Multiply, p, cell));
  };
  Value i = activate(b, d.act[0], pre(peephole(gate(b, all, 0, n), 0, d.c)));
  Value f = r.inputForget
                ? b.binary(Opcode::Subtract, b.like(i, 1), i)
                : activate(b, d.act[0],
                           pre(peephole(gate(b, all, 2, n), 2, d.c)));
  Value g = activate(b, d.act[1], pre(gate(b, all, 3, n)));
  Value c = b.binary(Opcode::Add, b.binary(Opcode::Multiply, f, d.c),
                     b.binary(Opcode::Multiply, i, g));
  Value o = activate(b, d.act[0], pre(peephole(gate(b, all, 1, n), 1, c)));
  Value h = b.binary(Opcode::Multiply, o, activate(b, d.act[2], c));
  return {h, c};
}

/// Runs one direction as a `while` over time and returns its Y rows
/// [seq, batch, hidden]; d.h and d.c become the final state. The state is
/// (step, h, c for LSTM, Y, X W^T + Wb as [seq, batch, G * hidden], then
/// R^T, Rb, P and sequence_lens unless they are constants: constants are
/// cloned into the body so weights stay constants, packed at compile time).
Value runDirection(OnnxNodeContext &ctx, const Recurrence &r, Direction &d,
                   bool reverse) {
  GraphBuilder &b = ctx.builder();
  bool lstm = r.cell == Cell::Lstm;
  Value xw = b.reshape(d.xw, {r.seq, r.batch, d.xw->shape().dim(1)});
  Value ys = zeroBuffer(b, d.h->shape(), r.seq, 0);
  if (r.seq == 0 || !b.ok())
    return ys;
  std::vector<Value> init = {b.scalar(ir::DType::S64, 0), d.h};
  if (lstm)
    init.push_back(d.c);
  size_t ysAt = init.size(), xwAt = ysAt + 1;
  init.push_back(ys);
  init.push_back(xw);
  Value invariants[] = {d.rt, d.rb, d.peep, r.lengths};
  std::optional<size_t> at[4];
  for (size_t i = 0; i < 4; ++i)
    if (invariants[i] && invariants[i]->opcode() != Opcode::Constant) {
      at[i] = init.size();
      init.push_back(invariants[i]);
    }
  Value start = b.tuple(init);
  if (!start)
    return nullptr;
  ir::Computation *condition =
      buildCondition(ctx, start->shape(), std::nullopt, r.seq, std::nullopt);
  if (!condition)
    return nullptr;
  ir::Computation *body = newComputation(
      b, ctx.name() + (reverse ? ".reverse" : ".forward"));
  GraphBuilder c(*body);
  c.setSourceNode(ctx.name());
  std::vector<Value> s =
      c.tupleElements(c.parameter(0, start->shape(), body->name() + ".state"));
  auto bring = [&](size_t i) -> Value {
    if (!invariants[i])
      return nullptr;
    return at[i] ? s[*at[i]] : c.constant(invariants[i]->literal());
  };
  Direction inner = d;
  inner.rt = bring(0);
  inner.rb = bring(1);
  inner.peep = bring(2);
  inner.h = s[1];
  inner.c = lstm ? s[2] : nullptr;
  Recurrence ri = r;
  ri.lengths = bring(3);
  Value k = s[0];
  Value t = reverse ? c.binary(Opcode::Subtract,
                               c.scalar(ir::DType::S64, double(r.seq - 1)), k)
                    : k;
  auto [h, cell] = step(c, ri, inner, readEntry(c, s[xwAt], 0, t));
  Value y = h;
  if (ri.lengths) {
    // valid[b] = t < length[b], as [batch, 1]: past its length a batch
    // row keeps its state and gets zeros in Y.
    Value len = c.reshape(ri.lengths, {r.batch, 1});
    Value valid = c.compare(ir::ComparisonDirection::LT,
                            c.convert(t, len->shape().dtype()), len);
    h = c.select(valid, h, inner.h);
    if (lstm)
      cell = c.select(valid, cell, inner.c);
    y = c.select(valid, h, c.like(h, 0));
  }
  std::vector<Value> next = {
      c.binary(Opcode::Add, k, c.scalar(ir::DType::S64, 1)), h};
  if (lstm)
    next.push_back(cell);
  next.push_back(writeEntry(c, s[ysAt], y, 0, t));
  next.insert(next.end(), s.begin() + long(xwAt), s.end());
  if (!finish(b, c, *body, c.tuple(next)))
    return nullptr;
  std::vector<Value> final = b.tupleElements(
      b.addCalling(Opcode::While, {start}, {condition, body}));
  if (!b.ok())
    return nullptr;
  d.h = final[1];
  d.c = lstm ? final[2] : nullptr;
  return final[ysAt];
}

// --- Reading the node --------------------------------------------------------------

struct CellSpec {
  Cell cell;
  int64_t gates;
  std::vector<std::string> defaultActivations;
};

/// Slice `d` of a [dirs, ...] tensor, without the leading dimension.
Value direction(GraphBuilder &b, Value v, int64_t d) {
  if (!v)
    return nullptr;
  std::vector<int64_t> dims = v->shape().dims();
  Value s = b.sliceDim(v, 0, d, d + 1);
  dims.erase(dims.begin());
  return b.reshape(s, dims);
}

/// sequence_lens, or nullptr when absent or a constant equal to seq
/// everywhere (no masking needed).
Value readLengths(OnnxNodeContext &ctx, int64_t seq) {
  if (!ctx.hasInput(4))
    return nullptr;
  Value lengths = ctx.input(4);
  if (auto values = GraphBuilder::constantInts(lengths)) {
    bool full = true;
    for (int64_t v : *values)
      full = full && v == seq;
    if (full)
      return nullptr;
  }
  return lengths;
}

/// B, sequence_lens, initial_h, initial_c and P, where present, have the
/// shapes the direction count, batch and hidden size ask for.
Error checkOptionalInputs(OnnxNodeContext &ctx, const CellSpec &spec,
                          int64_t dirs, const Recurrence &r, bool batchMajor) {
  int64_t gh = spec.gates * r.hidden;
  std::vector<int64_t> state =
      batchMajor ? std::vector<int64_t>{r.batch, dirs, r.hidden}
                 : std::vector<int64_t>{dirs, r.batch, r.hidden};
  struct Expected {
    size_t input;
    const char *name;
    std::vector<int64_t> dims;
    bool lstmOnly;
  };
  const Expected expected[] = {
      {3, "B", {dirs, 2 * gh}, false},
      {4, "sequence_lens", {r.batch}, false},
      {5, "initial_h", state, false},
      {6, "initial_c", state, true},
      {7, "P", {dirs, 3 * r.hidden}, true},
  };
  for (const Expected &e : expected) {
    if (!ctx.hasInput(e.input) || (e.lstmOnly && spec.cell != Cell::Lstm))
      continue;
    Value v = ctx.input(e.input);
    if (!v)
      return makeError("input {} ({}) is missing", e.input, e.name);
    if (v->shape().dims() != e.dims)
      return makeError("input {} ({}) must be {} but is {}", e.input, e.name,
                       ir::Shape(v->shape().dtype(), e.dims).toString(),
                       v->shape().toString());
  }
  return Error::success();
}

void lowerRecurrent(OnnxNodeContext &ctx, const CellSpec &spec) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0), w = ctx.input(1), rw = ctx.input(2);
  if (!x || !w || !rw)
    return;
  bool batchMajor = ctx.attrInt("layout", 0) != 0;
  if (x->shape().rank() != 3 || w->shape().rank() != 3 || rw->shape().rank() != 3)
    return (void)ctx.fail("X, W and R must have rank 3");
  if (batchMajor)
    x = b.transpose(x, {1, 0, 2});
  std::string dirName = ctx.attrString("direction", "forward");
  if (dirName != "forward" && dirName != "reverse" && dirName != "bidirectional")
    return (void)ctx.fail(fmt::format("unsupported direction '{}'", dirName));
  int64_t dirs = dirName == "bidirectional" ? 2 : 1;
  Recurrence r{spec.cell};
  r.seq = x->shape().dim(0);
  r.batch = x->shape().dim(1);
  int64_t input = x->shape().dim(2);
  r.hidden = ctx.attrInt("hidden_size", rw->shape().dim(2));
  if (r.hidden != rw->shape().dim(2)) // R is [dirs, gates * hidden, hidden]
    return (void)ctx.fail(fmt::format(
        "hidden_size is {} but R {} has {} columns", r.hidden,
        rw->shape().toString(), rw->shape().dim(2)));
  r.clip = ctx.hasAttr("clip") ? ctx.attrFloat("clip", 0) : 0;
  r.linearBeforeReset = ctx.attrInt("linear_before_reset", 0) != 0;
  r.inputForget = ctx.attrInt("input_forget", 0) != 0;
  r.lengths = readLengths(ctx, r.seq);
  if (!b.ok())
    return;
  int64_t gh = spec.gates * r.hidden;
  if (w->shape().dims() != std::vector<int64_t>{dirs, gh, input} ||
      rw->shape().dims() != std::vector<int64_t>{dirs, gh, r.hidden})
    return (void)ctx.fail(fmt::format(
        "expected W [{0}, {1}, {2}] and R [{0}, {1}, {3}] but got {4} and {5}",
        dirs, gh, input, r.hidden, w->shape().toString(),
        rw->shape().toString()));
  if (Error error = checkOptionalInputs(ctx, spec, dirs, r, batchMajor)) {
    ctx.fail(error.message());
    return;
  }
  std::optional<std::vector<Activation>> acts =
      readActivations(ctx, spec.defaultActivations, dirs);
  if (!acts)
    return;
  ir::DType type = x->shape().dtype();
  Value x2 = b.reshape(x, {r.seq * r.batch, input});
  Value zerosState = b.broadcastTo(b.scalar(type, 0), {r.batch, r.hidden});
  Value h0 = ctx.hasInput(5) ? ctx.input(5) : nullptr;
  Value c0 = ctx.hasInput(6) && spec.cell == Cell::Lstm ? ctx.input(6) : nullptr;
  if (batchMajor) {
    h0 = h0 ? b.transpose(h0, {1, 0, 2}) : nullptr;
    c0 = c0 ? b.transpose(c0, {1, 0, 2}) : nullptr;
  }
  Value p = ctx.hasInput(7) && spec.cell == Cell::Lstm ? ctx.input(7) : nullptr;

  std::vector<Value> ys, hs, cs;
  for (int64_t k = 0; k < dirs && b.ok(); ++k) {
    Direction d;
    Value bias = ctx.hasInput(3) ? direction(b, ctx.input(3), k)
                                 : b.broadcastTo(b.scalar(type, 0), {2 * gh});
    d.xw = b.binary(Opcode::Add,
                    matMul2d(b, x2, direction(b, w, k), false, true),
                    b.reshape(b.sliceDim(bias, 0, 0, gh), {1, gh}));
    d.rt = b.transpose(direction(b, rw, k), {1, 0});
    d.rb = b.sliceDim(bias, 0, gh, 2 * gh);
    d.peep = p ? direction(b, p, k) : nullptr;
    d.h = h0 ? direction(b, h0, k) : zerosState;
    d.c = c0 ? direction(b, c0, k) : zerosState;
    d.act = acts->data() + size_t(k) * spec.defaultActivations.size();
    bool reverse = dirName == "reverse" || k == 1;
    Value y = runDirection(ctx, r, d, reverse);
    if (!y)
      return;
    ys.push_back(b.reshape(y, {r.seq, 1, r.batch, r.hidden}));
    hs.push_back(b.reshape(d.h, {1, r.batch, r.hidden}));
    cs.push_back(d.c ? b.reshape(d.c, {1, r.batch, r.hidden}) : nullptr);
  }
  if (!b.ok())
    return;
  // Y [seq, dirs, batch, hidden]: the directions side by side.
  Value y = b.concatenate(ys, 1);
  Value yh = b.concatenate(hs, 0);
  Value yc = spec.cell == Cell::Lstm ? b.concatenate(cs, 0) : nullptr;
  if (batchMajor) {
    y = b.transpose(y, {2, 0, 1, 3});
    yh = b.transpose(yh, {1, 0, 2});
    yc = yc ? b.transpose(yc, {1, 0, 2}) : nullptr;
  }
  if (ctx.outputCount() > 0 && ctx.wantsOutput(0))
    ctx.setOutput(0, y);
  if (ctx.outputCount() > 1 && ctx.wantsOutput(1))
    ctx.setOutput(1, yh);
  if (yc && ctx.outputCount() > 2 && ctx.wantsOutput(2))
    ctx.setOutput(2, yc);
}

void lowerRnn(OnnxNodeContext &ctx) {
  lowerRecurrent(ctx, {Cell::Rnn, 1, {"Tanh"}});
}
void lowerGru(OnnxNodeContext &ctx) {
  lowerRecurrent(ctx, {Cell::Gru, 3, {"Sigmoid", "Tanh"}});
}
void lowerLstm(OnnxNodeContext &ctx) {
  lowerRecurrent(ctx, {Cell::Lstm, 4, {"Sigmoid", "Tanh", "Tanh"}});
}

const OnnxOpRule kRules[] = {
    {"", nullptr}, // keeps the table non-empty; skipped below
    {"RNN", lowerRnn},
    {"GRU", lowerGru},
    {"LSTM", lowerLstm},
};
} // namespace

std::span<const OnnxOpRule> onnxRecurrentRules() {
  return std::span<const OnnxOpRule>(kRules).subspan(1);
}

} // namespace kiln::import::onnx
