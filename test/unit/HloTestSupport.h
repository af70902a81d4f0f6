//===- HloTestSupport.h - Modules from HLO text for unit tests --*- C++ -*-===//
//
// What the analysis tests share: parse a module from HLO text (failing the
// test with the parser's message) and look up an instruction by name.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TEST_UNIT_HLOTESTSUPPORT_H
#define KILN_TEST_UNIT_HLOTESTSUPPORT_H

#include "kiln/IR/Module.h"
#include "kiln/IR/Parser.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

namespace kiln::hlotest {

inline std::unique_ptr<ir::Module> parse(const std::string &text) {
  auto module = ir::parseModule(text, "test.hlo");
  if (!module)
    FAIL(module.errorMessage());
  return std::move(*module);
}

/// The instruction called `name` in any computation of `module`.
inline const ir::Instruction &find(const ir::Module &module,
                                   const std::string &name) {
  for (const ir::Computation *c : module.computations())
    for (const ir::Instruction *i : c->instructions())
      if (i->name() == name)
        return *i;
  FAIL("no instruction " << name);
  throw; // not reached: FAIL throws
}

} // namespace kiln::hlotest

#endif // KILN_TEST_UNIT_HLOTESTSUPPORT_H
