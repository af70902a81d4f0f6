//===- ManifestTest.cpp - PREFIX.json against reviewed golden files -------===//
#include "../golden/GoldenModels.h"
#include "GoldenFile.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace kiln;

using kiln::testing::readGolden;

TEST_CASE("manifests match the golden files", "[aot][golden]") {
  CHECK(aot::generateManifest(golden::addRelu()) ==
        readGolden("add_relu.json"));
  CHECK(aot::generateManifest(golden::detector()) ==
        readGolden("detector.json"));
  CHECK(aot::generateManifest(golden::selector()) ==
        readGolden("selector.json"));
}

TEST_CASE("the manifest marks a bounded result and its count", "[aot]") {
  auto json = nlohmann::ordered_json::parse(
      aot::generateManifest(golden::selector()));
  const auto &results = json["results"];
  CHECK(results[0]["bounded"] ==
        nlohmann::ordered_json{{"dim", 0}, {"count", "indices_count"},
                       {"count_result", 2}});
  CHECK(results[2]["count_of"] ==
        nlohmann::ordered_json{{"name", "indices"}, {"result", 0}});
  CHECK(results[2]["dtype"] == "int32");
  CHECK(results[2]["shape"] == nlohmann::json::array());
  // A static result has neither field.
  CHECK(!results[1].contains("bounded"));
  CHECK(!results[1].contains("count_of"));
}

TEST_CASE("the manifest is JSON with the documented keys in order", "[aot]") {
  aot::ModelInfo info = golden::detector();
  info.args[0].name = "quote\"back\\slash\nline";
  auto json = nlohmann::ordered_json::parse(aot::generateManifest(info));
  std::vector<std::string> keys;
  for (auto &item : json.items())
    keys.push_back(item.key());
  CHECK(keys == std::vector<std::string>{"format", "version", "name", "entry",
                                         "parallel_entry", "target", "arena",
                                         "weights_bytes", "sizes", "placement",
                                         "args", "results", "kernels",
                                         "required_symbols"});
  CHECK(json["args"][0]["name"] == "quote\"back\\slash\nline");
  CHECK(json["args"][2]["kind"] == "variable");
  CHECK(json["results"][1]["dtype"] == "bool");
  CHECK(json["entry"] == "detector_run");
  CHECK(json["required_symbols"] == nlohmann::json::array({"memcpy"}));
  CHECK(json["sizes"]["flash_bytes"] == 36544);
  CHECK(json["placement"]["arena_section"] == ".bss.sram2");
  info.arenaSection.clear();
  json = nlohmann::ordered_json::parse(aot::generateManifest(info));
  CHECK(json["placement"]["arena_section"].is_null());
}
