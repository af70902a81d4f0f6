//===- CheckModule.cpp - Probing every top-level value; f64 copies --------===//
#include "CheckModule.h"

#include "kiln/IR/Computation.h"
#include "kiln/IR/Verifier.h"
#include "kiln/Import/LiteralUtil.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace kiln::driver {

bool isProbed(const ir::Instruction &instruction) {
  ir::Opcode opcode = instruction.opcode();
  return !instruction.shape().isTuple() && opcode != ir::Opcode::Parameter &&
         opcode != ir::Opcode::Constant;
}

namespace {


std::string describeOp(const ir::Instruction &instruction) {
  std::string op(ir::opcodeName(instruction.opcode()));
  if (instruction.opcode() == ir::Opcode::Fusion)
    op += fmt::format("({})", ir::fusionKindName(instruction.attrs().fusionKind));
  return op;
}

/// The probes `instruction` reads: its probed operands, and through a
/// tuple-valued operand (a multi-output fusion) that operand's probes.
void collectOperandProbes(const ir::Instruction &instruction,
                          const std::map<const ir::Instruction *, size_t> &index,
                          std::set<size_t> &found) {
  for (const ir::Instruction *operand : instruction.operands()) {
    auto probe = index.find(operand);
    if (probe != index.end())
      found.insert(probe->second);
    else if (operand->shape().isTuple())
      collectOperandProbes(*operand, index, found);
  }
}

std::map<std::string, ir::Instruction *> byName(const ir::Computation &entry) {
  std::map<std::string, ir::Instruction *> names;
  for (ir::Instruction *instruction : entry.instructions())
    names[instruction->name()] = instruction;
  return names;
}

/// Adds `x + 1` (NOT x for pred) after `target` and makes its users read
/// that instead; returns the perturbed value.
ir::Instruction *perturb(ir::Computation &entry, ir::Instruction *target) {
  const ir::Shape &shape = target->shape();
  std::vector<ir::Instruction *> users = target->users();
  ir::Instruction *perturbed;
  if (shape.dtype() == ir::DType::Pred) {
    perturbed = entry.add(ir::Opcode::Not, shape, {target});
  } else {
    ir::Literal one = import::literalFromDoubles(ir::Shape(shape.dtype(), {}),
                                                 {1.0});
    ir::Instruction *scalar = entry.addConstant(std::move(one));
    ir::Instruction *ones = entry.add(ir::Opcode::Broadcast, shape, {scalar});
    perturbed = entry.add(ir::Opcode::Add, shape, {target, ones});
  }
  for (ir::Instruction *user : users)
    user->replaceOperand(target, perturbed);
  if (entry.root() == target)
    entry.setRoot(perturbed);
  return perturbed;
}

/// Perturbs the body instruction `name` (of a loop exposed by
/// exposeNestedValues) where it is computed, so every iteration reads the
/// perturbed value.
Error perturbInBody(ir::Module &module, const std::string &name) {
  for (ir::Computation *computation : module.computations())
    if (computation != module.entry())
      for (ir::Instruction *instruction : computation->instructions())
        if (instruction->name() == name) {
          perturb(*computation, instruction);
          computation->sortTopologically();
          return Error::success();
        }
  return makeError("internal error: --inject-error: loop value '{}' not found",
                   name);
}

/// The model's results as instructions of the entry: the root tuple's
/// operands, or the root itself.
Expected<std::vector<ir::Instruction *>> resultInstructions(
    const ir::Computation &entry) {
  ir::Instruction *root = entry.root();
  if (root->opcode() == ir::Opcode::Tuple)
    return root->operands();
  if (root->shape().isTuple())
    return makeError("kiln check compares array results only; the optimized "
                     "module's root '{}' is a tuple-valued {}",
                     root->name(), describeOp(*root));
  return std::vector<ir::Instruction *>{root};
}

/// Makes the root of `module` a tuple of `values`, in order.
Error setProbeRoot(ir::Module &module, const std::vector<std::string> &names,
                   const std::map<std::string, ir::Instruction *> &values) {
  ir::Computation &entry = *module.entry();
  std::vector<ir::Instruction *> operands;
  std::vector<ir::Shape> shapes;
  for (const std::string &name : names) {
    ir::Instruction *value = values.at(name);
    operands.push_back(value);
    shapes.push_back(value->shape());
  }
  ir::Instruction *tuple = entry.add(ir::Opcode::Tuple,
                                     ir::Shape::tuple(std::move(shapes)),
                                     std::move(operands));
  entry.setRoot(tuple);
  entry.removeDeadInstructions();
  entry.sortTopologically();
  if (Error error = ir::verifyModule(module))
    return makeError("internal error: the check module does not verify: {}",
                     error.message());
  return Error::success();
}

/// Every probe's name and what it computes, in post order: each array
/// value of the entry that `original` has (not the instructions exposing
/// loop values added), each exposed loop value, and every model result.
std::vector<Probe>
listProbes(const ir::Computation &entry, const std::set<std::string> &original,
           const std::map<std::string, const ExposedValue *> &loopValues,
           const std::set<const ir::Instruction *> &results,
           std::map<const ir::Instruction *, size_t> &index) {
  // The exposed loop values are read by nothing yet (setProbeRoot makes
  // them results): list them right after their while.
  std::vector<const ir::Instruction *> order;
  for (const ir::Instruction *instruction : entry.postOrder()) {
    order.push_back(instruction);
    for (const ir::Instruction *user : instruction->users())
      if (loopValues.count(user->name()))
        order.push_back(user);
  }
  std::vector<Probe> probes;
  for (const ir::Instruction *instruction : order) {
    auto loopValue = loopValues.find(instruction->name());
    bool own = isProbed(*instruction) && original.count(instruction->name());
    if (!own && loopValue == loopValues.end() && !results.count(instruction))
      continue;
    index[instruction] = probes.size();
    std::string op = describeOp(*instruction);
    if (loopValue != loopValues.end())
      op = fmt::format("{} in {}", loopValue->second->op,
                       loopValue->second->where);
    probes.push_back(
        {instruction->name(), op, instruction->shape().toString(), {}});
  }
  for (const auto &[instruction, probe] : index) {
    std::set<size_t> operands;
    collectOperandProbes(*instruction, index, operands);
    auto loopValue = loopValues.find(instruction->name());
    if (loopValue != loopValues.end())
      for (const std::string &name : loopValue->second->operands)
        for (const auto &[other, otherProbe] : index)
          if (other->name() == name)
            operands.insert(otherProbe);
    probes[probe].operands.assign(operands.begin(), operands.end());
  }
  return probes;
}

} // namespace

Expected<CheckModules> buildCheckModules(const ir::Module &optimized,
                                         const std::string &injectError) {
  CheckModules check;
  std::set<std::string> original;
  for (const ir::Instruction *instruction : optimized.entry()->instructions())
    original.insert(instruction->name());
  std::unique_ptr<ir::Module> expanded = optimized.clone();
  std::vector<ExposedValue> exposed = exposeNestedValues(*expanded);
  std::map<std::string, const ExposedValue *> loopValues;
  for (const ExposedValue &value : exposed)
    loopValues[value.value] = &value;

  const ir::Computation &entry = *expanded->entry();
  Expected<std::vector<ir::Instruction *>> results = resultInstructions(entry);
  if (!results)
    return results.takeError();
  std::set<const ir::Instruction *> resultSet(results->begin(), results->end());
  std::map<const ir::Instruction *, size_t> index;
  check.probes = listProbes(entry, original, loopValues, resultSet, index);
  std::vector<std::string> names;
  for (const Probe &probe : check.probes)
    names.push_back(probe.name);
  for (const ir::Instruction *result : *results)
    check.outputs.push_back(index.at(result));

  check.reference = expanded->clone();
  check.compiled = expanded->clone();
  auto compiledValues = byName(*check.compiled->entry());
  if (!injectError.empty()) {
    auto target = compiledValues.find(injectError);
    if (target == compiledValues.end() || !isProbed(*target->second) ||
        std::find(names.begin(), names.end(), injectError) == names.end())
      return makeError("--inject-error: '{}' is not a compared instruction of "
                       "the optimized module",
                       injectError);
    auto loopValue = loopValues.find(injectError);
    if (loopValue == loopValues.end())
      target->second = perturb(*check.compiled->entry(), target->second);
    else if (Error error = perturbInBody(*check.compiled,
                                         loopValue->second->bodyValue))
      return error;
  }
  // The copies have the optimized module's names: probes are found by name.
  if (Error error = setProbeRoot(*check.reference, names,
                                 byName(*check.reference->entry())))
    return error;
  if (Error error = setProbeRoot(*check.compiled, names, compiledValues))
    return error;
  return check;
}

namespace {

ir::Shape widenShape(const ir::Shape &shape) {
  if (shape.isTuple()) {
    std::vector<ir::Shape> elements;
    for (const ir::Shape &element : shape.tupleElements())
      elements.push_back(widenShape(element));
    return ir::Shape::tuple(std::move(elements));
  }
  if (shape.dtype() != ir::DType::F32)
    return shape;
  return ir::Shape(ir::DType::F64, shape.dims());
}

/// bitcast-convert and rng are defined by float32 bits and float32
/// arithmetic: made float64 they would give other values (a double's bytes,
/// a 53-bit unit value and other random numbers), not more precise ones.
bool staysFloat32(const ir::Instruction &instruction) {
  return instruction.opcode() == ir::Opcode::BitcastConvert ||
         instruction.opcode() == ir::Opcode::Rng;
}

/// The float32 operands of an instruction that stays float32, recorded
/// before widening makes them float64.
struct Float32Island {
  ir::Instruction *instruction;
  std::vector<size_t> float32Operands;
};

/// Reads the widened float32 operands through converts back to float32, and
/// gives the instruction's users (and its computation's root) a float64
/// conversion of its float32 result.
void convertAround(ir::Computation &computation, const Float32Island &island) {
  ir::Instruction *instruction = island.instruction;
  for (size_t i : island.float32Operands) {
    ir::Instruction *operand = instruction->operand(i);
    instruction->setOperand(
        i,
        computation.add(ir::Opcode::Convert,
                        operand->shape().withDType(ir::DType::F32), {operand}));
  }
  if (instruction->shape().dtype() != ir::DType::F32)
    return;
  ir::Instruction *wide = computation.add(
      ir::Opcode::Convert, widenShape(instruction->shape()), {instruction});
  for (ir::Instruction *user : std::vector<ir::Instruction *>(
           instruction->users().begin(), instruction->users().end()))
    if (user != wide)
      user->replaceOperand(instruction, wide);
  if (computation.root() == instruction)
    computation.setRoot(wide);
}

} // namespace

Expected<std::unique_ptr<ir::Module>> widenToF64(const ir::Module &module) {
  std::unique_ptr<ir::Module> wide = module.clone();
  for (ir::Computation *computation : wide->computations()) {
    std::vector<Float32Island> islands;
    for (ir::Instruction *instruction : computation->instructions()) {
      if (!staysFloat32(*instruction))
        continue;
      Float32Island island{instruction, {}};
      for (size_t i = 0; i < instruction->operandCount(); ++i)
        if (instruction->operand(i)->shape().dtype() == ir::DType::F32)
          island.float32Operands.push_back(i);
      islands.push_back(std::move(island));
    }
    for (ir::Instruction *instruction : computation->instructions()) {
      if (!staysFloat32(*instruction))
        instruction->setShape(widenShape(instruction->shape()));
      if (instruction->opcode() == ir::Opcode::Constant &&
          instruction->literal().shape().dtype() == ir::DType::F32)
        instruction->setLiteral(import::literalFromDoubles(
            instruction->shape(),
            import::literalToDoubles(instruction->literal())));
    }
    for (const Float32Island &island : islands)
      convertAround(*computation, island);
    if (!islands.empty())
      computation->sortTopologically();
  }
  if (Error error = ir::verifyModule(*wide))
    return makeError("cannot evaluate this model in float64: {}",
                     error.message());
  return wide;
}

} // namespace kiln::driver
