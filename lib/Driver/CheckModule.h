//===- CheckModule.h - The module `kiln check` compiles and evaluates -*- C++ -*-===//
//
// To see every intermediate value of compiled code, `kiln check` compiles a
// copy of the optimized module whose root is a tuple of all its top-level
// array values (the "probes": every instruction of the entry computation
// but parameters, constants and tuple-valued ones; a fusion is one probe,
// its fused internals are not). The compiled code is then exactly the
// optimized module's kernels, each writing its value to a result buffer
// instead of an arena slot. The evaluator runs an identical copy, so both
// sides compute every probe from their own operands. Values inside loop
// bodies are probed as their first iteration computed them, values inside
// branches as the branch taken computed them (CheckNested.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DRIVER_CHECKMODULE_H
#define KILN_LIB_DRIVER_CHECKMODULE_H

#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::driver {

struct Probe {
  /// The instruction in the optimized module. Importers name each node's
  /// final value after the node output (TensorFlow "node" / "node:1",
  /// ONNX the output name; characters HLO names do not allow become '_'),
  /// and a fusion keeps the name of the value it computes last, so this is
  /// the source node for every value a node produces.
  std::string name;
  std::string op;     ///< "add", "fusion(loop)", ...
  std::string shape;  ///< "f32[1,8]"
  /// Probes this one reads, directly or through tuple-valued values (a
  /// multi-output fusion's get-tuple-element reads the fusion's operands).
  std::vector<size_t> operands;
};

struct CheckModules {
  std::unique_ptr<ir::Module> compiled;  ///< root: tuple of the probes
  std::unique_ptr<ir::Module> reference; ///< the same, never perturbed
  std::vector<Probe> probes;             ///< in schedule (post) order
  std::vector<size_t> outputs; ///< the probe of each model result
};

/// Builds both copies of `optimized`. `injectError` (a test-only flag)
/// names a probe whose compiled value is perturbed (x + 1, or NOT x for
/// pred) before its users read it; empty: none.
Expected<CheckModules> buildCheckModules(const ir::Module &optimized,
                                         const std::string &injectError);

/// Whether kiln check compares `instruction`'s value: every array value
/// but parameters and constants.
bool isProbed(const ir::Instruction &instruction);

/// A value of a loop body or branch, compared as the entry value `value`
/// that holds what it computed on the loop's first iteration, or in the
/// branch taken (zeros otherwise; CheckNested.cpp).
struct ExposedValue {
  std::string value;     ///< the get-tuple-element in the entry
  std::string bodyValue; ///< the instruction in the body
  /// "while loop (iteration 1)", "conditional c, true branch"; nested
  /// ones joined by " > "
  std::string where;
  std::string op;        ///< the body instruction's opcode
  std::vector<std::string> operands; ///< exposed values it reads
};

/// Widens every while and conditional of `module` (nested ones too) so
/// that their callees' values are read after them as entry values.
std::vector<ExposedValue> exposeNestedValues(ir::Module &module);

/// `module` with every f32 value (shapes, constants, inside fusions too)
/// made f64, for evaluating the same graph in double precision, except
/// bitcast-convert and rng: defined by float32 bits and arithmetic, they
/// stay float32 between converts, so the f64 run sees the same bits and
/// the same random values.
Expected<std::unique_ptr<ir::Module>> widenToF64(const ir::Module &module);

} // namespace kiln::driver

#endif // KILN_LIB_DRIVER_CHECKMODULE_H
