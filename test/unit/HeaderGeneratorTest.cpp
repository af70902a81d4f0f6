//===- HeaderGeneratorTest.cpp - PREFIX.h against reviewed golden files ---===//
#include "../golden/GoldenModels.h"
#include "GoldenFile.h"

#include <catch2/catch.hpp>

using namespace kiln;

using kiln::testing::readGolden;

TEST_CASE("headers match the golden files", "[aot][golden]") {
  CHECK(aot::generateHeader(golden::addRelu()) == readGolden("add_relu.h"));
  CHECK(aot::generateHeader(golden::detector()) == readGolden("detector.h"));
  CHECK(aot::generateHeader(golden::selector()) == readGolden("selector.h"));
}

TEST_CASE("a bounded result names its count; its static peers are unchanged",
          "[aot]") {
  aot::ModelInfo bounded = golden::selector();
  aot::ModelInfo plain = bounded;
  plain.bounded.clear();
  std::string header = aot::generateHeader(bounded);
  std::string before = aot::generateHeader(plain);
  CHECK(header.find("#define SELECTOR_RESULT0_COUNT_RESULT 2 ") !=
        std::string::npos);
  CHECK(header.find("#define SELECTOR_RESULT0_BOUNDED_DIM 0 ") !=
        std::string::npos);
  // result_indices_count() is the count result's element accessor only: the
  // padded result's element count by that name would not compile beside it.
  CHECK(header.find("static constexpr size_t result_indices_count()") ==
        std::string::npos);
  CHECK(before.find("static constexpr size_t result_indices_count()") !=
        std::string::npos);
  CHECK(header.find("int32_t& result_indices_count() {") != std::string::npos);
  CHECK(header.find("static constexpr size_t result0_count() { return 12; }") !=
        std::string::npos);
  // The static result's lines read as they do without any bounded result.
  for (std::string line : {"#define SELECTOR_RESULT1_SIZE 1 /* 'any': bool[] */\n",
                           "  // result 1 'any': bool[]\n"}) {
    CHECK(header.find(line) != std::string::npos);
    CHECK(before.find(line) != std::string::npos);
  }
}

TEST_CASE("names become valid C identifiers", "[aot]") {
  CHECK(aot::toCIdentifier("mnist") == "mnist");
  CHECK(aot::toCIdentifier("my-model.v2") == "my_model_v2");
  CHECK(aot::toCIdentifier("3d_unet") == "m3d_unet");
  CHECK(aot::toCIdentifier("") == "m");
  CHECK(aot::defaultClassName("add_relu") == "AddRelu");
  CHECK(aot::defaultClassName("my-model.v2") == "MyModelV2");
}

TEST_CASE("header details follow the model", "[aot]") {
  aot::ModelInfo info = golden::addRelu();
  info.name = "my-net";
  info.className = "Net";
  info.cppNamespace = "a::b::c";
  info.args.push_back(
      {"data", aot::ArgKind::Feed, true, ir::DType::F16, {5}, 10, {}});
  info.args.push_back({"x", aot::ArgKind::Feed, true, ir::DType::U8, {1}, 1, {}});
  std::string header = aot::generateHeader(info);
  CHECK(header.find("int my_net_run(const void* const* args") !=
        std::string::npos);
  CHECK(header.find("#define MY_NET_NUM_ARGS 3\n") != std::string::npos);
  CHECK(header.find("class Net {") != std::string::npos);
  CHECK(header.find("namespace a {\nnamespace b {\nnamespace c {\n") !=
        std::string::npos);
  // 16-bit floats are raw bits; reserved and duplicate names get suffixes.
  CHECK(header.find("uint16_t& arg_data_1(size_t i0)") != std::string::npos);
  CHECK(header.find("uint8_t* arg_x_2_data()") != std::string::npos);
  CHECK(header.find("{\"x\", \"data\", \"x\", nullptr}") != std::string::npos);
  CHECK(header.find("{{") == std::string::npos);
}
