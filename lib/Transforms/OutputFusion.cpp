//===- OutputFusion.cpp - The `output-fusion` pass -------------------------===//
//
// Forms XLA-style kOutput fusions in the entry computation: one `dot` or
// `convolution` with an f32/f64 result plus the chain of elementwise ops
// that consume only it (bias, per-channel scale and shift, activations,
// a residual add). Code generation then computes the contraction straight
// into the fusion's output buffer and applies the chain in place, element by
// element, instead of writing and re-reading one intermediate per op (buffer
// assignment gives the fused contraction no bytes of its own).
//
// The chain grows from the contraction C one value V at a time, while V is
// not a root value of the entry and its users form one of these steps (every
// new op has exactly C's shape):
//
//   - single user U = op(V, X) or op(X, V), op in add, subtract, multiply,
//     maximum, minimum, where X is a per-channel broadcast (a rank-1 value
//     broadcast along C's output feature dimension), a scalar or a
//     broadcast of a scalar, or, for add only, any other array value of
//     C's shape that is not a broadcast (a residual);
//   - single user U = clamp(lo, V, hi) with scalar(-broadcast) bounds;
//   - single user U = logistic, tanh or negate of V;
//   - leaky ReLU as the importers emit it: users {compare(V, s),
//     multiply(V, a), select(compare, multiply, V) or select(compare, V,
//     multiply)} with s scalar and a scalar or per-channel (PReLU);
//   - hard-swish as the importers emit it: users {A, multiply(V, G)} where
//     A starts a short single-user chain of scalar steps on V ending in G
//     (x * clamp(x * 1/6 + 0.5, 0, 1) as max/min or clamp).
//
// The fused computation takes, in order, the contraction's two operands,
// then the chain's outside operands: per-channel vectors (the broadcast is
// cloned inside), non-constant scalars and residuals. Scalar constants are
// cloned inside, and so is a residual that only widens a value along the
// output features with one scalar (a pad by a scalar constant, or a
// concatenate with splat constants on either side; read by nothing else):
// the fusion takes the value, pads it inside, and the padded copy is never
// written. The fusion replaces the last chain op and keeps its name.
// A final convert is not fused, nor are exp and other unary ops, nor
// contractions in non-entry computations or of other dtypes.
//
//===----------------------------------------------------------------------===//
#include "kiln/Transforms/Passes.h"

#include "TransformUtils.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace kiln {

namespace {
using ir::Instruction;
using ir::Opcode;

/// Side chains of hard-swish are at most this long (x*a, +b, max, min).
constexpr size_t kMaxSideChain = 4;

/// One output fusion being formed.
struct Chain {
  Instruction *contraction = nullptr;
  /// The elementwise ops, operands before users; the last is the result.
  std::vector<Instruction *> ops;
  std::set<const Instruction *> members; // contraction + ops
  int64_t featureDim = -1;               // -1: no feature dimension (rank 0)

  bool contains(const Instruction *i) const { return members.count(i) != 0; }
  void append(Instruction *i) {
    ops.push_back(i);
    members.insert(i);
  }
  Instruction *last() const { return ops.empty() ? contraction : ops.back(); }
};

bool isScalarLike(const Instruction *x) {
  if (x->shape().isTuple())
    return false;
  if (x->shape().rank() == 0)
    return true;
  return x->opcode() == Opcode::Broadcast &&
         x->operand(0)->shape().rank() == 0;
}

bool isPerChannel(const Chain &chain, const Instruction *x) {
  return chain.featureDim >= 0 && x->opcode() == Opcode::Broadcast &&
         x->operand(0)->shape().rank() == 1 &&
         x->attrs().dimensions == std::vector<int64_t>{chain.featureDim};
}

/// The scalar every element of `x` holds, when `x` is a constant of equal
/// elements (bit for bit) or a broadcast of a scalar constant.
std::optional<ir::Literal> splatScalar(const Instruction *x) {
  if (x->opcode() == Opcode::Broadcast && x->operand(0)->shape().rank() == 0)
    x = x->operand(0);
  if (x->opcode() != Opcode::Constant || x->shape().isTuple() ||
      x->shape().numElements() == 0)
    return std::nullopt;
  const std::vector<uint8_t> &bytes = x->literal().bytes();
  size_t width = ir::byteSize(x->shape().dtype());
  for (size_t at = width; at < bytes.size(); at += width)
    if (!std::equal(bytes.begin(), bytes.begin() + ptrdiff_t(width),
                    bytes.begin() + ptrdiff_t(at)))
      return std::nullopt;
  return ir::Literal(ir::Shape::scalar(x->shape().dtype()),
                     std::vector<uint8_t>(bytes.begin(),
                                          bytes.begin() + ptrdiff_t(width)));
}

/// A residual that widens one value along the output features only, with
/// one scalar: pad(v, c) (edges only), or concatenate(c..., v, c...) along
/// the features with splat constants of one value around v (BlazeFace's
/// shortcut, as its ONNX export writes it: the block input and a
/// ConstantOfShape of zeros). Read by nothing else, it joins the fusion as
/// a pad of v, which the kernels read per element (no padded copy).
struct ChannelWidening {
  Instruction *value = nullptr;
  ir::Literal fill;
  int64_t low = 0, high = 0;
};

std::optional<ChannelWidening> channelWidening(const Chain &chain,
                                               const Instruction *x) {
  if (chain.featureDim < 0 || x->users().size() != 1)
    return std::nullopt;
  size_t feature = size_t(chain.featureDim);
  ChannelWidening widening;
  if (x->opcode() == Opcode::Pad) {
    std::optional<ir::Literal> fill = splatScalar(x->operand(1));
    if (!fill)
      return std::nullopt;
    const std::vector<ir::PadDim> &padding = x->attrs().padding;
    for (size_t d = 0; d < padding.size(); ++d) {
      const ir::PadDim &pad = padding[d];
      if (pad.interior != 0 || pad.low < 0 || pad.high < 0 ||
          (d != feature && (pad.low != 0 || pad.high != 0)))
        return std::nullopt;
    }
    return ChannelWidening{x->operand(0), *fill, padding[feature].low,
                           padding[feature].high};
  }
  if (x->opcode() != Opcode::Concatenate ||
      x->attrs().dimensions != std::vector<int64_t>{chain.featureDim})
    return std::nullopt;
  std::optional<ir::Literal> fill;
  for (Instruction *operand : x->operands()) {
    std::optional<ir::Literal> splat = splatScalar(operand);
    int64_t width = operand->shape().dim(feature);
    if (!splat) {
      if (widening.value)
        return std::nullopt; // two values
      widening.value = operand;
      continue;
    }
    if (fill && !(*fill == *splat))
      return std::nullopt;
    fill = splat;
    (widening.value ? widening.high : widening.low) += width;
  }
  if (!widening.value || !fill)
    return std::nullopt;
  widening.fill = *fill;
  return widening;
}

/// X is a per-channel or scalar operand (bias, scale, shift, bound).
bool isSideOperand(const Chain &chain, const Instruction *x) {
  return isScalarLike(x) || isPerChannel(chain, x);
}

bool isBinaryChainOpcode(Opcode opcode) {
  switch (opcode) {
  case Opcode::Add:
  case Opcode::Subtract:
  case Opcode::Multiply:
  case Opcode::Maximum:
  case Opcode::Minimum:
    return true;
  default:
    return false;
  }
}

bool isUnaryChainOpcode(Opcode opcode) {
  return opcode == Opcode::Logistic || opcode == Opcode::Tanh ||
         opcode == Opcode::Negate;
}

/// The operand of binary `u` that is not `v`, or nullptr when `v` is not
/// exactly one of its operands.
Instruction *otherOperand(const Instruction *u, const Instruction *v) {
  if (u->operandCount() != 2 || (u->operand(0) == v) == (u->operand(1) == v))
    return nullptr;
  return u->operand(0) == v ? u->operand(1) : u->operand(0);
}

/// Whether `u` is a one-step extension of the chain at `v` whose other
/// operands are scalars only (`scalarOnly`, hard-swish side chains) or any
/// allowed operand (the main chain).
bool isChainStep(const Chain &chain, const Instruction *u, const Instruction *v,
                 bool scalarOnly) {
  if (u->shape() != chain.contraction->shape())
    return false;
  Opcode opcode = u->opcode();
  if (isUnaryChainOpcode(opcode))
    return u->operand(0) == v;
  if (opcode == Opcode::Clamp)
    return u->operand(1) == v && u->operand(0) != v && u->operand(2) != v &&
           isScalarLike(u->operand(0)) && isScalarLike(u->operand(2));
  if (!isBinaryChainOpcode(opcode))
    return false;
  const Instruction *x = otherOperand(u, v);
  if (!x || chain.contains(x))
    return false;
  if (scalarOnly)
    return isScalarLike(x);
  if (isSideOperand(chain, x))
    return true;
  // A residual: any other array of the same shape. It cannot depend on the
  // contraction: every user of a chain value is in the chain. A broadcast
  // along other dimensions is neither a bias nor a residual (per row, not
  // per channel): left unfused.
  return opcode == Opcode::Add && x->shape() == chain.contraction->shape() &&
         x->opcode() != Opcode::Broadcast;
}

class ChainBuilder {
public:
  explicit ChainBuilder(const ir::Computation &entry) {
    transforms::collectRootValues(entry.root(), rootValues_);
  }

  /// The longest chain from `contraction` (possibly empty).
  Chain grow(Instruction *contraction) const {
    Chain chain;
    chain.contraction = contraction;
    chain.members.insert(contraction);
    int64_t rank = contraction->shape().rank();
    if (contraction->opcode() == Opcode::Dot)
      chain.featureDim = rank > 0 ? rank - 1 : -1;
    else
      chain.featureDim = contraction->attrs().conv.outputFeature;
    for (Instruction *v = contraction; !isRoot(v);) {
      const std::vector<Instruction *> &users = v->users();
      if (users.size() == 1 && isChainStep(chain, users[0], v, false)) {
        chain.append(users[0]);
      } else if (!extendLeakyRelu(chain, v) && !extendHardSwish(chain, v)) {
        break;
      }
      v = chain.ops.back();
    }
    return chain;
  }

private:
  bool isRoot(const Instruction *v) const { return rootValues_.count(v) != 0; }
  bool isInner(const Instruction *i, const Instruction *user) const {
    return !isRoot(i) && i->users().size() == 1 && i->users()[0] == user;
  }

  /// users(v) = {compare(v, s), multiply(v, a), select(compare, ...)}.
  bool extendLeakyRelu(Chain &chain, Instruction *v) const {
    const std::vector<Instruction *> &users = v->users();
    if (users.size() != 3)
      return false;
    Instruction *cmp = nullptr, *mul = nullptr, *sel = nullptr;
    for (Instruction *u : users) {
      if (u->opcode() == Opcode::Compare && !cmp)
        cmp = u;
      else if (u->opcode() == Opcode::Multiply && !mul)
        mul = u;
      else if (u->opcode() == Opcode::Select && !sel)
        sel = u;
    }
    if (!cmp || !mul || !sel || sel->shape() != chain.contraction->shape() ||
        mul->shape() != chain.contraction->shape())
      return false;
    const Instruction *threshold = otherOperand(cmp, v);
    const Instruction *alpha = otherOperand(mul, v);
    if (!threshold || !isScalarLike(threshold) || !alpha ||
        !isSideOperand(chain, alpha))
      return false;
    bool branches = (sel->operand(1) == v && sel->operand(2) == mul) ||
                    (sel->operand(1) == mul && sel->operand(2) == v);
    if (sel->operand(0) != cmp || !branches || !isInner(cmp, sel) ||
        !isInner(mul, sel))
      return false;
    chain.append(cmp);
    chain.append(mul);
    chain.append(sel);
    return true;
  }

  /// users(v) = {a1, multiply(v, g)} with a1 -> ... -> g scalar steps.
  bool extendHardSwish(Chain &chain, Instruction *v) const {
    const std::vector<Instruction *> &users = v->users();
    if (users.size() != 2)
      return false;
    for (size_t j = 0; j < 2; ++j) {
      Instruction *join = users[j], *start = users[1 - j];
      if (join->opcode() != Opcode::Multiply ||
          join->shape() != chain.contraction->shape())
        continue;
      Instruction *gate = otherOperand(join, v);
      if (!gate)
        continue;
      std::vector<Instruction *> side;
      const Instruction *previous = v;
      for (Instruction *step = start; side.size() < kMaxSideChain;) {
        if (!isChainStep(chain, step, previous, true) || isRoot(step) ||
            step->users().size() != 1)
          break;
        side.push_back(step);
        if (step == gate) {
          if (step->users()[0] != join)
            break;
          for (Instruction *s : side)
            chain.append(s);
          chain.append(join);
          return true;
        }
        previous = step;
        step = step->users()[0];
      }
    }
    return false;
  }

  std::set<const Instruction *> rootValues_;
};

/// Builds the fused computation and replaces the chain by one fusion.
class FusionBuilder {
public:
  FusionBuilder(ir::Module &module, ir::Computation &entry, const Chain &chain)
      : module_(module), entry_(entry), chain_(chain) {}

  void run() {
    planOperands();
    auto fused = std::make_unique<ir::Computation>("fused_output");
    for (size_t i = 0; i < operands_.size(); ++i)
      params_.push_back(fused->addParameter(int64_t(i), operands_[i]->shape(),
                                            "param_" + std::to_string(i)));
    Instruction *c = chain_.contraction;
    inner_[c] = fused->add(c->opcode(), c->shape(), {params_[0], params_[1]},
                           c->attrs(), c->name());
    inner_[c]->setSourceNode(c->sourceNode());
    for (Instruction *op : chain_.ops) {
      std::vector<Instruction *> operands;
      for (Instruction *operand : op->operands())
        operands.push_back(innerValue(*fused, operand));
      inner_[op] = fused->add(op->opcode(), op->shape(), std::move(operands),
                              op->attrs(), op->name());
      inner_[op]->setSourceNode(op->sourceNode());
    }
    Instruction *last = chain_.last();
    fused->setRoot(inner_.at(last));
    ir::Computation *called =
        module_.addComputationBefore(std::move(fused), &entry_);

    ir::Attributes attrs;
    attrs.fusionKind = ir::FusionKind::Output;
    Instruction *fusion =
        entry_.add(Opcode::Fusion, last->shape(), operands_, attrs);
    fusion->setCalledComputation(called);
    fusion->setSourceNode(last->sourceNode());
    last->replaceAllUsesWith(fusion);
    if (entry_.root() == last)
      entry_.setRoot(fusion);
    std::string name = last->name();
    for (auto it = chain_.ops.rbegin(); it != chain_.ops.rend(); ++it)
      entry_.removeInstruction(*it);
    entry_.removeInstruction(c);
    fusion->setName(std::move(name));
    removeDeadLeaves();
    entry_.sortTopologically();
  }

private:
  /// Fusion operands: the contraction's two, then every outside value the
  /// fused computation reads at run time, first use first.
  void planOperands() {
    operands_ = {chain_.contraction->operand(0),
                 chain_.contraction->operand(1)};
    for (Instruction *op : chain_.ops)
      for (Instruction *operand : op->operands()) {
        if (chain_.contains(operand))
          continue;
        leaves_.push_back(operand);
        Instruction *source = operand;
        if (operand->opcode() == Opcode::Broadcast &&
            operand->operand(0)->shape().rank() <= 1) {
          source = operand->operand(0);
          leaves_.push_back(source);
        }
        if (auto widening = channelWidening(chain_, operand)) {
          source = widening->value; // the fill is cloned inside
          for (Instruction *edge : operand->operands()) {
            if (edge == source)
              continue;
            leaves_.push_back(edge);
            if (edge->opcode() == Opcode::Broadcast)
              leaves_.push_back(edge->operand(0)); // after it: removed later
          }
        }
        if (source->opcode() == Opcode::Constant &&
            source->shape().rank() == 0)
          continue; // cloned inside
        if (std::find(operands_.begin() + 2, operands_.end(), source) ==
            operands_.end())
          operands_.push_back(source);
      }
  }

  /// The fused counterpart of `outside`: a chain op, a parameter, or a
  /// clone of a scalar constant or of a scalar/per-channel broadcast.
  Instruction *innerValue(ir::Computation &fused, Instruction *outside) {
    auto it = inner_.find(outside);
    if (it != inner_.end())
      return it->second;
    Instruction *value = nullptr;
    auto param = std::find(operands_.begin() + 2, operands_.end(), outside);
    if (param != operands_.end()) {
      value = params_[size_t(param - operands_.begin())];
    } else if (outside->opcode() == Opcode::Constant) {
      value = fused.addConstant(outside->literal(), outside->name());
    } else if (auto widening = channelWidening(chain_, outside)) {
      ir::Attributes attrs;
      attrs.padding.assign(size_t(outside->shape().rank()), ir::PadDim{});
      attrs.padding[size_t(chain_.featureDim)] = {widening->low,
                                                   widening->high, 0};
      Instruction *fill = fused.addConstant(widening->fill,
                                            outside->name() + "_fill");
      fill->setSourceNode(outside->sourceNode());
      value = fused.add(Opcode::Pad, outside->shape(),
                        {innerValue(fused, widening->value), fill}, attrs,
                        outside->name());
    } else {
      assert(outside->opcode() == Opcode::Broadcast);
      value = fused.add(Opcode::Broadcast, outside->shape(),
                        {innerValue(fused, outside->operand(0))},
                        outside->attrs(), outside->name());
    }
    if (value->opcode() != Opcode::Parameter)
      value->setSourceNode(outside->sourceNode());
    inner_[outside] = value;
    return value;
  }

  /// Broadcasts and constants only the chain used.
  void removeDeadLeaves() {
    for (Instruction *leaf : leaves_) {
      if (removed_.count(leaf) || !leaf->users().empty() ||
          leaf == entry_.root() || leaf->opcode() == Opcode::Parameter ||
          (leaf->opcode() != Opcode::Broadcast &&
           leaf->opcode() != Opcode::Constant && leaf->opcode() != Opcode::Pad &&
           leaf->opcode() != Opcode::Concatenate))
        continue;
      removed_.insert(leaf);
      entry_.removeInstruction(leaf);
    }
  }

  ir::Module &module_;
  ir::Computation &entry_;
  const Chain &chain_;
  std::vector<Instruction *> operands_;
  std::vector<Instruction *> params_;
  std::vector<Instruction *> leaves_; // broadcasts before their operands
  std::map<const Instruction *, Instruction *> inner_;
  std::set<const Instruction *> removed_;
};

bool isFusibleContraction(const Instruction *instruction) {
  if (instruction->opcode() != Opcode::Dot &&
      instruction->opcode() != Opcode::Convolution)
    return false;
  ir::DType dtype = instruction->shape().dtype();
  return dtype == ir::DType::F32 || dtype == ir::DType::F64;
}

class OutputFusionPass final : public Pass {
public:
  std::string_view name() const override { return "output-fusion"; }
  Expected<bool> run(ir::Module &module) override {
    bool changed = false;
    for (ir::Computation *computation :
         transforms::runWholeComputations(module))
      changed |= fuseIn(module, computation);
    return changed;
  }

private:
  /// Fuses the contractions of one computation that runs whole.
  static bool fuseIn(ir::Module &module, ir::Computation *entry) {
    if (!entry->root())
      return false;
    std::vector<Instruction *> contractions;
    for (Instruction *instruction : entry->instructions())
      if (isFusibleContraction(instruction))
        contractions.push_back(instruction);
    bool changed = false;
    for (Instruction *contraction : contractions) {
      // Root values change as fusions replace them, so look again each time.
      Chain chain = ChainBuilder(*entry).grow(contraction);
      if (chain.ops.empty())
        continue; // a bare contraction stays as it is
      FusionBuilder(module, *entry, chain).run();
      changed = true;
    }
    return changed;
  }
};
} // namespace

std::unique_ptr<Pass> createOutputFusionPass() {
  return std::make_unique<OutputFusionPass>();
}

} // namespace kiln
