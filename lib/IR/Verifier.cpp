//===- Verifier.cpp - Structural checks of computations and modules -------===//
//
// verifyComputation checks one computation's structure (root, operand order,
// parameter numbering, names, tuple usage, fusion callees) and every
// instruction's declared shape against inferShape; verifyModule adds the
// module-wide rules (entry, unique names, call graph, entry root shape).
//
//===----------------------------------------------------------------------===//
#include "kiln/IR/Verifier.h"

#include "ShapeInferenceRules.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <unordered_map>

namespace kiln::ir {

namespace {

std::string where(const Computation &computation) {
  return fmt::format("in computation '{}': ", computation.name());
}

/// Names the source op too when the instruction has one (an importer's
/// node, or op_name from XLA text's metadata), so that the user can find it
/// in the model they wrote.
std::string where(const Computation &computation,
                  const Instruction &instruction) {
  std::string source;
  if (!instruction.sourceNode().empty())
    source = fmt::format("; source op '{}'", instruction.sourceNode());
  return fmt::format("in computation '{}': instruction '{}' ({}{}): ",
                     computation.name(), instruction.name(),
                     detail::opcodeNameOrUnknown(instruction.opcode()), source);
}

/// Opcodes whose result may be a tuple: they build, produce or forward
/// several values. Everything else, parameters included, is an array.
bool mayHaveTupleShape(Opcode opcode) {
  switch (opcode) {
  case Opcode::Tuple:
  case Opcode::Sort:
  case Opcode::TopK:
  case Opcode::GetTupleElement: // of a nested tuple
  case Opcode::Fusion:
    return true;
  default:
    return false;
  }
}

/// Operands exist in this computation and precede their user.
Error checkOperands(
    const Computation &computation, const Instruction &instruction,
    size_t position,
    const std::unordered_map<const Instruction *, size_t> &positions) {
  for (size_t i = 0; i < instruction.operandCount(); ++i) {
    const Instruction *operand = instruction.operand(i);
    auto it = positions.find(operand);
    if (it == positions.end())
      return makeError("{}operand {} '{}' is not an instruction of this "
                       "computation",
                       where(computation, instruction), i, operand->name());
    if (it->second >= position)
      return makeError("{}operand {} '{}' is defined after its user",
                       where(computation, instruction), i, operand->name());
  }
  return Error::success();
}

/// A fusion calls a non-entry computation of its own module (when the
/// computation belongs to one), never the computation it is in.
Error checkCallee(const Computation &computation,
                  const Instruction &instruction) {
  if (instruction.opcode() != Opcode::Fusion)
    return instruction.calledComputation()
               ? makeError("{}only fusion may call a computation",
                           where(computation, instruction))
               : Error::success();
  const Computation *callee = instruction.calledComputation();
  if (!callee)
    return makeError("{}fusion has no called computation",
                     where(computation, instruction));
  if (callee == &computation)
    return makeError("{}fusion calls its own computation",
                     where(computation, instruction));
  const Module *module = computation.parent();
  if (!module)
    return Error::success();
  std::vector<Computation *> all = module->computations();
  if (std::find(all.begin(), all.end(), callee) == all.end())
    return makeError("{}called computation '{}' is not in module '{}'",
                     where(computation, instruction), callee->name(),
                     module->name());
  if (callee == module->entry())
    return makeError("{}fusion calls the entry computation '{}'",
                     where(computation, instruction), callee->name());
  return Error::success();
}

/// The declared shape is well formed, allowed to be a tuple, and equal to
/// the inferred one.
Error checkShape(const Computation &computation,
                 const Instruction &instruction) {
  if (instruction.shape().isTuple() && !mayHaveTupleShape(instruction.opcode()))
    return makeError("{}has tuple shape {} but only tuple, sort, top-k, "
                     "get-tuple-element and fusion may produce tuples",
                     where(computation, instruction),
                     instruction.shape().toString());
  Expected<Shape> inferred = inferShape(instruction);
  if (!inferred)
    return inferred.takeError();
  if (*inferred != instruction.shape())
    return makeError("{}declared shape {} does not match inferred shape {}",
                     where(computation, instruction),
                     instruction.shape().toString(), inferred->toString());
  return Error::success();
}

/// Parameters are numbered 0..n-1, each number used once.
Error checkParameters(const Computation &computation) {
  std::map<int64_t, const Instruction *> byNumber;
  for (const Instruction *instruction : computation.instructions()) {
    if (instruction->opcode() != Opcode::Parameter)
      continue;
    auto [it, fresh] =
        byNumber.emplace(instruction->parameterNumber(), instruction);
    if (!fresh)
      return makeError("{}parameter number {} is used by both '{}' and '{}'",
                       where(computation), it->first, it->second->name(),
                       instruction->name());
  }
  int64_t expected = 0;
  for (const auto &[number, parameter] : byNumber) {
    if (number != expected)
      return makeError("{}parameters must be numbered 0..{} without gaps but "
                       "parameter {} is missing",
                       where(computation), int64_t(byNumber.size()) - 1,
                       expected);
    ++expected;
  }
  return Error::success();
}

} // namespace

Error verifyComputation(const Computation &computation) {
  const Instruction *root = computation.root();
  if (!root)
    return makeError("{}no root instruction", where(computation));
  std::vector<Instruction *> instructions = computation.instructions();
  // Positions of all instructions first, so an operand that comes later is
  // reported as out of order rather than as foreign.
  std::unordered_map<const Instruction *, size_t> positions;
  for (size_t position = 0; position < instructions.size(); ++position)
    positions.emplace(instructions[position], position);
  std::map<std::string, const Instruction *, std::less<>> names;
  for (size_t position = 0; position < instructions.size(); ++position) {
    const Instruction &instruction = *instructions[position];
    if (instruction.parent() != &computation)
      return makeError("{}instruction '{}' has a different parent "
                       "computation",
                       where(computation), instruction.name());
    if (instruction.name().empty())
      return makeError("{}instruction {} ({}) has no name", where(computation),
                       position,
                       detail::opcodeNameOrUnknown(instruction.opcode()));
    if (!names.emplace(instruction.name(), &instruction).second)
      return makeError("{}instruction name '{}' is used twice",
                       where(computation), instruction.name());
    if (Error e = checkOperands(computation, instruction, position, positions))
      return e;
    if (Error e = checkCallee(computation, instruction))
      return e;
    if (Error e = checkShape(computation, instruction))
      return e;
  }
  if (!positions.count(root))
    return makeError("{}root '{}' is not an instruction of this computation",
                     where(computation), root->name());
  return checkParameters(computation);
}

namespace {

/// Instruction names are unique across the module, not just per computation.
Error checkModuleNames(const Module &module) {
  std::map<std::string, const Computation *, std::less<>> owner;
  std::map<std::string, const Computation *, std::less<>> computationNames;
  for (const Computation *computation : module.computations()) {
    if (!computationNames.emplace(computation->name(), computation).second)
      return makeError("module '{}': computation name '{}' is used twice",
                       module.name(), computation->name());
    for (const Instruction *instruction : computation->instructions()) {
      auto [it, fresh] = owner.emplace(instruction->name(), computation);
      if (!fresh)
        return makeError("{}instruction name '{}' is already used in "
                         "computation '{}'",
                         where(*computation), instruction->name(),
                         it->second->name());
    }
  }
  return Error::success();
}

/// Fusions must not call each other in a cycle: passes and the emitter walk
/// callees recursively. Iterative three-colour DFS over the call graph.
Error checkCallGraph(const Module &module) {
  enum Colour { White, Grey, Black };
  std::unordered_map<const Computation *, Colour> colour;
  std::unordered_map<const Computation *, std::vector<const Computation *>>
      callees;
  for (const Computation *computation : module.computations())
    for (const Instruction *instruction : computation->instructions())
      if (instruction->calledComputation())
        callees[computation].push_back(instruction->calledComputation());
  for (const Computation *start : module.computations()) {
    if (colour[start] != White)
      continue;
    std::vector<std::pair<const Computation *, size_t>> stack{{start, 0}};
    colour[start] = Grey;
    while (!stack.empty()) {
      auto &[node, next] = stack.back();
      const std::vector<const Computation *> &out = callees[node];
      if (next == out.size()) {
        colour[node] = Black;
        stack.pop_back();
        continue;
      }
      const Computation *callee = out[next++];
      if (colour[callee] == Grey)
        return makeError("{}fusion call cycle through computation '{}'",
                         where(*node), callee->name());
      if (colour[callee] == White) {
        colour[callee] = Grey;
        stack.push_back({callee, 0});
      }
    }
  }
  return Error::success();
}

/// How deep fusions may nest: the entry's fusion may call a computation
/// holding fusions, but no deeper. Buffer assignment and the emitter handle
/// that much; deeper nesting only comes from hand-written or corrupt input.
constexpr int64_t kMaxFusionDepth = 2;

/// Fusions nest at most kMaxFusionDepth levels. Runs after checkCallGraph
/// (no cycles), computing each computation's depth iteratively so a long
/// chain of computations cannot overflow the stack.
Error checkFusionDepth(const Module &module) {
  std::unordered_map<const Computation *, int64_t> depth;
  for (const Computation *start : module.computations()) {
    std::vector<const Computation *> stack{start};
    while (!stack.empty()) {
      const Computation *node = stack.back();
      if (depth.count(node)) {
        stack.pop_back();
        continue;
      }
      int64_t deepest = 0;
      bool ready = true;
      for (const Instruction *instruction : node->instructions()) {
        const Computation *callee = instruction->calledComputation();
        if (!callee)
          continue;
        auto known = depth.find(callee);
        if (known == depth.end()) {
          stack.push_back(callee);
          ready = false;
        } else if (ready) {
          deepest = std::max(deepest, known->second + 1);
          if (deepest > kMaxFusionDepth)
            return makeError("{}fusion '{}' nests fusions {} levels deep; "
                             "kiln allows at most {}",
                             where(*node), instruction->name(), deepest,
                             kMaxFusionDepth);
        }
      }
      if (ready) {
        depth[node] = deepest;
        stack.pop_back();
      }
    }
  }
  return Error::success();
}

/// The entry returns arrays: its root is an array or a flat tuple of arrays.
Error checkEntryRoot(const Computation &entry) {
  const Shape &shape = entry.root()->shape();
  if (!shape.isTuple())
    return Error::success();
  for (size_t i = 0; i < shape.tupleElements().size(); ++i)
    if (shape.tupleElements()[i].isTuple())
      return makeError("{}root '{}' has shape {}; the entry computation must "
                       "return an array or a tuple of arrays (element {} is "
                       "a tuple)",
                       where(entry), entry.root()->name(), shape.toString(), i);
  return Error::success();
}

} // namespace

Error verifyModule(const Module &module) {
  const Computation *entry = module.entry();
  if (!entry)
    return makeError("module '{}' has no entry computation", module.name());
  std::vector<Computation *> all = module.computations();
  if (std::find(all.begin(), all.end(), entry) == all.end())
    return makeError("module '{}': entry computation '{}' is not in the "
                     "module",
                     module.name(), entry->name());
  for (const Computation *computation : all) {
    if (computation->parent() != &module)
      return makeError("{}computation belongs to a different module",
                       where(*computation));
    if (Error e = verifyComputation(*computation))
      return e;
  }
  if (Error e = checkModuleNames(module))
    return e;
  if (Error e = checkCallGraph(module))
    return e;
  if (Error e = checkFusionDepth(module))
    return e;
  return checkEntryRoot(*entry);
}

} // namespace kiln::ir
