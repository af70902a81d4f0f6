//===- CalleeBuilder.cpp - New computations for loops, branches, calls ----===//
#include "Common/CalleeBuilder.h"

#include "kiln/IR/Module.h"

#include <fmt/format.h>

#include <cctype>
#include <memory>

namespace kiln::import {

std::string computationName(const std::string &text) {
  std::string name;
  for (char c : text)
    name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                    c == '.' || c == '-'
                ? c
                : '_';
  // Names start with a letter or '_': an unnamed node's ".cond" too.
  if (name.empty() ||
      !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    name = "node_" + name;
  return name;
}

ir::Computation *newComputation(GraphBuilder &b, const std::string &name) {
  ir::Module *module = b.computation().parent();
  std::string unique = module->uniqueName(computationName(name));
  return module->addComputationBefore(std::make_unique<ir::Computation>(unique),
                                      &b.computation());
}

bool finish(GraphBuilder &b, GraphBuilder &callee, ir::Computation &computation,
            Value root) {
  if (Error error = callee.takeError()) {
    b.fail(fmt::format("building '{}': {}", computation.name(),
                       error.message()));
    return false;
  }
  computation.setRoot(root);
  return true;
}

} // namespace kiln::import
