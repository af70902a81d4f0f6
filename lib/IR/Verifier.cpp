//===- Verifier.cpp - Structural checks of computations and modules -------===//
//
// verifyComputation checks one computation's structure (root, operand order,
// parameter numbering, names, tuple usage, fusion callees) and every
// instruction's declared shape against inferShape; verifyModule adds the
// module-wide rules (entry, unique names, call graph, entry root shape).
//
//===----------------------------------------------------------------------===//
#include "kiln/IR/Verifier.h"

#include "kiln/IR/CallGraph.h"

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
/// several values; parameters may take a tuple (loop state). Everything
/// else is an array.
bool mayHaveTupleShape(Opcode opcode) {
  switch (opcode) {
  case Opcode::Tuple:
  case Opcode::Sort:
  case Opcode::TopK:
  case Opcode::Reduce: // N > 1 inputs with to_apply
  case Opcode::ReduceWindow:
  case Opcode::GetTupleElement: // of a nested tuple
  case Opcode::Fusion:
  case Opcode::Parameter: // loop state and branch operands come in tuples
  case Opcode::While:
  case Opcode::Conditional:
  case Opcode::Call:
  case Opcode::Scatter: // of several operands
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

/// Only opcodes with callees call computations; each callee is a
/// computation of the module (when the computation belongs to one) other
/// than the caller itself. Counts and parameter shapes are checked by shape
/// inference, the call graph (cycles, the entry, contexts) by verifyModule.
Error checkCallees(const Computation &computation,
                   const Instruction &instruction) {
  const std::vector<Computation *> &callees = instruction.calledComputations();
  if (calleeCount(instruction.opcode()) == 0)
    return callees.empty()
               ? Error::success()
               : makeError("{}only fusion, while, conditional, call, "
                           "reduce, reduce-window, map, scatter, sort and "
                           "select-and-scatter may call a computation",
                           where(computation, instruction));
  const Module *module = computation.parent();
  std::vector<Computation *> all;
  if (module)
    all = module->computations();
  for (const Computation *callee : callees) {
    if (!callee)
      return makeError("{}has a missing called computation",
                       where(computation, instruction));
    if (callee == &computation)
      return makeError("{}calls its own computation",
                       where(computation, instruction));
    if (module && std::find(all.begin(), all.end(), callee) == all.end())
      return makeError("{}called computation '{}' is not in module '{}'",
                       where(computation, instruction), callee->name(),
                       module->name());
  }
  return Error::success();
}

/// The declared shape is well formed, allowed to be a tuple, and equal to
/// the inferred one.
Error checkShape(const Computation &computation,
                 const Instruction &instruction) {
  if (instruction.shape().isTuple() && !mayHaveTupleShape(instruction.opcode()))
    return makeError("{}has tuple shape {} but only parameter, tuple, sort, "
                     "top-k, reduce, reduce-window, get-tuple-element, "
                     "fusion, while, conditional, call and scatter may have "
                     "tuple shapes",
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
    if (Error e = checkCallees(computation, instruction))
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

/// The entry takes and returns arrays: its parameters are arrays (the C
/// ABI passes one buffer each), its root an array or a flat tuple of arrays.
Error checkEntrySignature(const Computation &entry) {
  for (const Instruction *parameter : entry.parameters())
    if (parameter->shape().isTuple())
      return makeError("{}parameter '{}' has tuple shape {}; the entry "
                       "computation takes arrays (pass each element as a "
                       "parameter of its own)",
                       where(entry), parameter->name(),
                       parameter->shape().toString());
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
  // Cycles, calls of the entry, mixed contexts and nesting depth.
  if (Expected<CallGraph> graph = CallGraph::build(module); !graph)
    return graph.takeError();
  return checkEntrySignature(*entry);
}

} // namespace kiln::ir
