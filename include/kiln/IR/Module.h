//===- Module.h - A compilation unit of HLO computations --------*- C++ -*-===//
//
// A module owns computations; the entry computation's parameters are the
// model's args and its root (a tuple for several) holds its results. Other
// computations are called by fusions. Instruction names are unique across
// the module.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_MODULE_H
#define KILN_IR_MODULE_H

#include "kiln/IR/Computation.h"

#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln::ir {

class Module {
public:
  explicit Module(std::string name) : name_(std::move(name)) {}
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  const std::string &name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }

  /// Takes ownership of `computation` and gives its instructions unique
  /// names. Computations a fusion calls must be added before the fusion's
  /// computation so the printed text lists callees first.
  Computation *addComputation(std::unique_ptr<Computation> computation);
  /// Like addComputation, but stores `computation` just before `before`
  /// (which must be in this module), so a pass can add a callee ahead of
  /// the computation that will call it.
  Computation *addComputationBefore(std::unique_ptr<Computation> computation,
                                    const Computation *before);
  /// Creates and adds an empty computation.
  Computation *addComputation(std::string name);
  /// Removes a computation nothing calls.
  void removeComputation(Computation *computation);

  Computation *entry() const { return entry_; }
  void setEntry(Computation *entry) { entry_ = entry; }
  std::vector<Computation *> computations() const;
  Computation *findComputation(std::string_view name) const;

  /// `base` if unused in this module, else `base.N` for the smallest free N.
  /// The returned name is reserved.
  std::string uniqueName(std::string_view base);
  /// Marks `name` as used (instructions named by hand, e.g. the parser).
  void reserveName(const std::string &name) { names_.insert(name); }

  /// A deep copy with the same names.
  std::unique_ptr<Module> clone() const;

private:
  std::string name_;
  std::vector<std::unique_ptr<Computation>> computations_;
  Computation *entry_ = nullptr;
  std::set<std::string, std::less<>> names_;
  /// Per base name, the suffix uniqueName tries first (see there).
  std::unordered_map<std::string, int64_t> nextSuffix_;
};

} // namespace kiln::ir

#endif // KILN_IR_MODULE_H
