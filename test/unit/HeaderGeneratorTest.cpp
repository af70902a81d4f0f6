//===- HeaderGeneratorTest.cpp - PREFIX.h against reviewed golden files ---===//
#include "../golden/GoldenModels.h"
#include "GoldenFile.h"

#include <catch2/catch.hpp>

using namespace kiln;

using kiln::testing::readGolden;

TEST_CASE("headers match the golden files", "[aot][golden]") {
  CHECK(aot::generateHeader(golden::addRelu()) == readGolden("add_relu.h"));
  CHECK(aot::generateHeader(golden::detector()) == readGolden("detector.h"));
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
      {"data", aot::ArgKind::Feed, true, ir::DType::F16, {5}, 10});
  info.args.push_back({"x", aot::ArgKind::Feed, true, ir::DType::U8, {1}, 1});
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
