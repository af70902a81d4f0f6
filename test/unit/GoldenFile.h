//===- GoldenFile.h - Reading the reviewed golden files of test/golden -*- C++ -*-===//
//
// The golden tests (HeaderGeneratorTest.cpp, ManifestTest.cpp) compare
// generated text with files under test/golden; this reads one of them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TEST_UNIT_GOLDENFILE_H
#define KILN_TEST_UNIT_GOLDENFILE_H

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace kiln::testing {

/// The whole text of test/golden/`name`; fails the test if it cannot be read.
inline std::string readGolden(const std::string &name) {
  std::ifstream in(std::string(KILN_TEST_SOURCE_DIR) + "/golden/" + name);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace kiln::testing

#endif // KILN_TEST_UNIT_GOLDENFILE_H
