//===- PassManagerTest.cpp - Pass registry, pass manager, verify pass -----===//
#include "kiln/Transforms/Pass.h"

#include "kiln/Transforms/Passes.h"

#include <catch2/catch.hpp>

using namespace kiln;
using namespace kiln::ir;

namespace {
/// main(x: f32[2]) = negate(x)
std::unique_ptr<Module> makeNegateModule() {
  auto module = std::make_unique<Module>("m");
  Computation *main = module->addComputation("main");
  Instruction *x = main->addParameter(0, Shape(DType::F32, {2}), "x");
  main->setRoot(main->add(Opcode::Negate, Shape(DType::F32, {2}), {x}, {}, "y"));
  module->setEntry(main);
  return module;
}

/// A test pass that logs its runs and does what it is told.
class ScriptedPass final : public Pass {
public:
  enum class Action { Nothing, Rename, BreakShape, Fail };
  ScriptedPass(std::string name, Action action, std::vector<std::string> &log)
      : name_(std::move(name)), action_(action), log_(log) {}
  std::string_view name() const override { return name_; }
  Expected<bool> run(Module &module) override {
    log_.push_back("run " + name_);
    switch (action_) {
    case Action::Nothing:
      return false;
    case Action::Rename:
      module.setName(module.name() + "." + name_);
      return true;
    case Action::BreakShape: // negate's result no longer matches its operand
      module.entry()->root()->setShape(Shape(DType::F32, {3}));
      return true;
    case Action::Fail:
      return makeError("something went wrong");
    }
    return false;
  }

private:
  std::string name_;
  Action action_;
  std::vector<std::string> &log_;
};
} // namespace

TEST_CASE("the registry creates registered passes by name", "[passes]") {
  std::vector<std::string_view> names = registeredPassNames();
  REQUIRE(std::find(names.begin(), names.end(), "verify") != names.end());
  for (std::string_view name : names) {
    auto pass = createPass(name);
    REQUIRE(pass);
    CHECK((*pass)->name() == name);
  }
}

TEST_CASE("an unknown pass name is an error listing the registered passes",
          "[passes]") {
  auto pass = createPass("constant-folding-typo");
  REQUIRE(!pass);
  CHECK_THAT(pass.errorMessage(),
             Catch::StartsWith("unknown pass 'constant-folding-typo'; "
                               "registered passes: "));
  for (std::string_view name : registeredPassNames())
    CHECK_THAT(pass.errorMessage(), Catch::Contains(std::string(name)));
}

TEST_CASE("the verify pass accepts a valid module and rejects a broken one",
          "[passes]") {
  auto module = makeNegateModule();
  auto verify = createVerifyPass();
  Expected<bool> changed = verify->run(*module);
  REQUIRE(changed);
  CHECK(!*changed);

  module->entry()->root()->setShape(Shape(DType::F32, {3}));
  Expected<bool> broken = verify->run(*module);
  REQUIRE(!broken);
  CHECK_THAT(broken.errorMessage(), Catch::Contains("'y'"));
}

TEST_CASE("the pass manager runs passes in order and reports each to the "
          "hook",
          "[passes]") {
  using Action = ScriptedPass::Action;
  std::vector<std::string> log;
  PassManager manager;
  manager.addPass(std::make_unique<ScriptedPass>("a", Action::Rename, log));
  manager.addPass(std::make_unique<ScriptedPass>("b", Action::Nothing, log));
  manager.addPass(std::make_unique<ScriptedPass>("c", Action::Rename, log));
  manager.setAfterPassHook(
      [&](std::string_view name, const Module &module, bool changed) {
        log.push_back(std::string("after ") + std::string(name) + " " +
                      module.name() + (changed ? " changed" : " same"));
      });
  auto module = makeNegateModule();
  REQUIRE(!manager.run(*module));
  CHECK(log == std::vector<std::string>{"run a", "after a m.a changed",
                                        "run b", "after b m.a same", "run c",
                                        "after c m.a.c changed"});
}

TEST_CASE("the pass manager stops at a failing pass and names it",
          "[passes]") {
  using Action = ScriptedPass::Action;
  std::vector<std::string> log;
  PassManager manager;
  manager.addPass(std::make_unique<ScriptedPass>("boom", Action::Fail, log));
  manager.addPass(std::make_unique<ScriptedPass>("later", Action::Nothing, log));
  auto module = makeNegateModule();
  Error error = manager.run(*module);
  REQUIRE(error);
  CHECK(error.message() == "pass 'boom' failed: something went wrong");
  CHECK(log == std::vector<std::string>{"run boom"});
}

TEST_CASE("the pass manager verifies after each pass that changed the "
          "module",
          "[passes]") {
  using Action = ScriptedPass::Action;
  std::vector<std::string> log;
  auto module = makeNegateModule();
  PassManager manager;
  manager.addPass(std::make_unique<ScriptedPass>("breaker", Action::BreakShape, log));
  manager.addPass(std::make_unique<ScriptedPass>("later", Action::Nothing, log));
  Error error = manager.run(*module);
  REQUIRE(error);
  CHECK_THAT(error.message(),
             Catch::StartsWith("module is invalid after pass 'breaker': "));
  CHECK(log == std::vector<std::string>{"run breaker"});

  // With verification off the broken module goes on to the next pass.
  log.clear();
  auto other = makeNegateModule();
  PassManager unchecked;
  unchecked.setVerifyEach(false);
  unchecked.addPass(std::make_unique<ScriptedPass>("breaker", Action::BreakShape, log));
  unchecked.addPass(std::make_unique<ScriptedPass>("later", Action::Nothing, log));
  REQUIRE(!unchecked.run(*other));
  CHECK(log == std::vector<std::string>{"run breaker", "run later"});
}
