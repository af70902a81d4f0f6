//===- MemoryBudget.h - Model sizes against --max-arena ---------*- C++ -*-===//
//
// Every command that runs or compiles a model checks, right after import
// and before anything is allocated, each size the model declares: its
// inputs, its results and every instruction's value (the evaluator holds
// each one; compiled code keeps the unfused ones in the arena). After
// buffer assignment the arena is checked too. Each size must fit
// --max-arena (ResourceLimits::maxArenaBytes); the error names the value,
// its source node where known, and its bytes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DRIVER_MEMORYBUDGET_H
#define KILN_LIB_DRIVER_MEMORYBUDGET_H

#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/IR/Literal.h"
#include "kiln/Import/Import.h"
#include "kiln/Support/Error.h"

#include <string>
#include <string_view>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace kiln::driver {

/// Every input, result and instruction value of `model` fits --max-arena.
Error checkDeclaredSizes(const import::ImportedModel &model);

/// The arena `buffers` assigns fits --max-arena.
Error checkArenaSize(const analysis::BufferAssignment &buffers);

/// "the largest is %x from node 'n', N bytes": where to look first when
/// the arena is over a budget (--max-arena, --max-ram).
std::string largestArenaValue(const analysis::BufferAssignment &buffers);

/// On targets with 32-bit pointers (32-bit ARM), the arena and every value
/// must be addressable: below 4 GiB, or an error naming the target.
Error checkAddressSpace(const analysis::BufferAssignment &buffers,
                        const ir::Module &module,
                        const llvm::TargetMachine &machine);

/// A zero-filled literal of the array `shape`, or an error naming `what`
/// when the memory is not there (sizes within a raised --max-arena may
/// still be more than the machine has).
Expected<ir::Literal> allocateLiteral(const ir::Shape &shape,
                                      std::string_view what);

} // namespace kiln::driver

#endif // KILN_LIB_DRIVER_MEMORYBUDGET_H
