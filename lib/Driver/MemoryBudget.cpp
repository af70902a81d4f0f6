//===- MemoryBudget.cpp - Model sizes against --max-arena -----------------===//
#include "MemoryBudget.h"

#include "kiln/IR/ShapeBytes.h"
#include "kiln/Support/Allocation.h"
#include "kiln/Support/ResourceLimits.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/Target/TargetMachine.h"

namespace kiln::driver {

namespace {

/// " from node 'n'" when the importer recorded a source node that the
/// value's own name does not already say.
std::string sourceNote(const ir::Instruction &instruction,
                       std::string_view shownName) {
  const std::string &node = instruction.sourceNode();
  if (node.empty() || node == shownName)
    return "";
  return fmt::format(" from node '{}'", node);
}

/// "KIND 'NAME' from node 'n' of type T needs N bytes, ..." unless the
/// value `instruction` computes fits --max-arena.
Error checkValue(std::string_view kind, std::string_view name,
                 const ir::Instruction &instruction) {
  const ir::Shape &shape = instruction.shape();
  return checkArenaBytes(fmt::format("{} '{}'{} of type {}", kind, name,
                                     sourceNote(instruction, name),
                                     shape.toString()),
                         ir::checkedValueBytes(shape));
}

Error checkInputs(const import::ImportedModel &model) {
  const ir::Computation &entry = *model.module->entry();
  for (size_t i = 0; i < model.args.size(); ++i) {
    const ir::Instruction &parameter = *entry.parameter(int64_t(i));
    if (Error e = checkValue("input", model.args[i].name, parameter))
      return e;
  }
  return Error::success();
}

/// The name results are known by: the importer's when it names each one,
/// else the instruction's.
std::string resultName(const import::ImportedModel &model, size_t index,
                       size_t count, const ir::Instruction &result) {
  if (model.resultNames.size() == count)
    return model.resultNames[index];
  return "%" + result.name();
}

/// Results as the root lists them: a tuple instruction's operands, else the
/// root itself.
Error checkResults(const import::ImportedModel &model) {
  const ir::Instruction &root = *model.module->entry()->root();
  if (root.opcode() != ir::Opcode::Tuple)
    return checkValue("result", resultName(model, 0, 1, root), root);
  size_t count = root.operands().size();
  for (size_t i = 0; i < count; ++i) {
    const ir::Instruction &result = *root.operands()[i];
    if (Error e =
            checkValue("result", resultName(model, i, count, result), result))
      return e;
  }
  return Error::success();
}

/// Every value an instruction computes, in every computation: the
/// evaluator materializes each, and compiled code each unfused one.
/// Constants are left to --max-constant-bytes: they are read-only data,
/// never in the arena.
Error checkInstructions(const ir::Module &module) {
  for (const ir::Computation *computation : module.computations())
    for (const ir::Instruction *instruction : computation->instructions()) {
      if (instruction->opcode() == ir::Opcode::Constant)
        continue;
      if (Error e = checkValue("instruction", "%" + instruction->name(),
                               *instruction))
        return e;
    }
  return Error::success();
}

} // namespace

std::string largestArenaValue(const analysis::BufferAssignment &buffers) {
  std::optional<analysis::ValueRef> largest;
  int64_t largestBytes = -1;
  for (analysis::ValueRef value : buffers.arenaValues())
    if (int64_t bytes = buffers.slice(value).bytes; bytes > largestBytes)
      std::tie(largest, largestBytes) = std::pair(value, bytes);
  if (!largest)
    return "write-back copies only";
  const ir::Instruction &instruction = *largest->instruction;
  std::string name = "%" + instruction.name();
  if (largest->tupleIndex >= 0)
    name += fmt::format(" element {}", largest->tupleIndex);
  return fmt::format("the largest is {}{}, {} bytes", name,
                     sourceNote(instruction, name), largestBytes);
}

Error checkDeclaredSizes(const import::ImportedModel &model) {
  if (Error e = checkInputs(model))
    return e;
  if (Error e = checkResults(model))
    return e;
  return checkInstructions(*model.module);
}

Error checkArenaSize(const analysis::BufferAssignment &buffers) {
  if (buffers.arenaBytes() <= resourceLimits().maxArenaBytes)
    return Error::success();
  return checkArenaBytes(fmt::format("the arena of the intermediate values "
                                     "({})",
                                     largestArenaValue(buffers)),
                         buffers.arenaBytes());
}

Error checkAddressSpace(const analysis::BufferAssignment &buffers,
                        const ir::Module &module,
                        const llvm::TargetMachine &machine) {
  if (machine.createDataLayout().getPointerSizeInBits() > 32)
    return Error::success();
  // Signed 32-bit offsets address 2 GiB from a base pointer.
  constexpr int64_t kLimit = (int64_t(1) << 31) - 1;
  std::string triple = machine.getTargetTriple().str();
  if (buffers.arenaBytes() > kLimit)
    return makeError("target '{}' has 32-bit pointers: the arena of the "
                     "intermediate values ({} bytes; {}) does not fit its "
                     "2 GiB address range",
                     triple, buffers.arenaBytes(), largestArenaValue(buffers));
  for (const ir::Computation *computation : module.computations())
    for (const ir::Instruction *instruction : computation->instructions()) {
      std::optional<int64_t> bytes =
          ir::checkedValueBytes(instruction->shape());
      if (bytes && *bytes <= kLimit)
        continue;
      std::string name = "%" + instruction->name();
      return makeError("target '{}' has 32-bit pointers: {}{} of type {} "
                       "needs more than its 2 GiB address range",
                       triple, name, sourceNote(*instruction, name),
                       instruction->shape().toString());
    }
  return Error::success();
}

Expected<ir::Literal> allocateLiteral(const ir::Shape &shape,
                                      std::string_view what) {
  Expected<std::vector<uint8_t>> bytes =
      allocateVector<uint8_t>(shape.byteSize(), what);
  if (!bytes)
    return bytes.takeError();
  return ir::Literal(shape, std::move(*bytes));
}

} // namespace kiln::driver
