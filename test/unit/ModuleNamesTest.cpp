//===- ModuleNamesTest.cpp - Module::uniqueName ---------------------------===//
//
// uniqueName resumes each base name where it stopped instead of probing
// from 1 (an unrolled loop names thousands of values alike); these pin
// that the answer is still "base, else base.N for the smallest free N",
// including around names reserved by hand.
//
//===----------------------------------------------------------------------===//
#include "kiln/IR/Module.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace kiln::ir;

TEST_CASE("uniqueName: base first, then .1, .2, ... per base", "[module]") {
  Module module("m");
  CHECK(module.uniqueName("add") == "add");
  CHECK(module.uniqueName("add") == "add.1");
  CHECK(module.uniqueName("mul") == "mul");
  CHECK(module.uniqueName("add") == "add.2");
  CHECK(module.uniqueName("mul") == "mul.1");
  CHECK(module.uniqueName("") == "v");
  CHECK(module.uniqueName("") == "v.1");
}

TEST_CASE("uniqueName: skips names reserved by hand", "[module]") {
  Module module("m");
  module.reserveName("x");
  module.reserveName("x.1");
  module.reserveName("x.3");
  CHECK(module.uniqueName("x") == "x.2");
  CHECK(module.uniqueName("x") == "x.4");
  // A reservation behind the resume point changes nothing; one ahead of
  // it is skipped when reached.
  module.reserveName("x.6");
  CHECK(module.uniqueName("x") == "x.5");
  CHECK(module.uniqueName("x") == "x.7");
}

TEST_CASE("uniqueName: a suffixed base is its own base", "[module]") {
  Module module("m");
  CHECK(module.uniqueName("a") == "a");
  CHECK(module.uniqueName("a") == "a.1");
  // "a.1" is taken, so asking for it yields "a.1.1", not a clash.
  CHECK(module.uniqueName("a.1") == "a.1.1");
  CHECK(module.uniqueName("a") == "a.2");
}

TEST_CASE("uniqueName: many alike stay distinct", "[module]") {
  Module module("m");
  std::set<std::string> seen;
  for (int i = 0; i < 20000; ++i)
    REQUIRE(seen.insert(module.uniqueName("body")).second);
  CHECK(seen.count("body.19999") == 1);
}
