//===- TfImportTest.cpp - The TensorFlow importer through its public API --===//
//
// Small GraphDefs written as text to a temporary directory, imported with
// importTensorFlow, and checked on the resulting module: constant decoding
// (TensorFlow's fill rules), graph order, feeds that cut the graph, names
// and argument metadata. Expected values are written out by hand.
//
//===----------------------------------------------------------------------===//
#include "kiln/Import/TensorFlow.h"

#include "kiln/IR/Module.h"
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace kiln;

namespace {
// A fresh temporary directory per test case, removed afterwards.
class TempDir {
public:
  TempDir() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("kiln-tf-import-test-" + std::to_string(::getpid()) + "-" +
             std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string write(const std::string &name, const std::string &text) const {
    std::string file = (path_ / name).string();
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }

private:
  std::filesystem::path path_;
};

std::string constNode(const std::string &name, const std::string &tensor) {
  return "node { name: \"" + name +
         "\" op: \"Const\" attr { key: \"value\" value { tensor { " + tensor +
         " } } } }\n";
}

// Imports `graph` (text) with `config` (text, optional) and returns it.
import::ImportedModel importText(const TempDir &dir, const std::string &graph,
                                 const std::string &config = "",
                                 std::vector<std::string> shapes = {}) {
  import::ImportOptions options;
  if (!config.empty())
    options.configPath = dir.write("config.pbtxt", config);
  options.shapes = std::move(shapes);
  Expected<import::ImportedModel> model =
      import::importTensorFlow(dir.write("graph.pbtxt", graph), options);
  INFO((model ? std::string() : model.errorMessage()));
  REQUIRE(model);
  return std::move(*model);
}

std::string importError(const TempDir &dir, const std::string &graph,
                        const std::string &config = "") {
  import::ImportOptions options;
  if (!config.empty())
    options.configPath = dir.write("config.pbtxt", config);
  Expected<import::ImportedModel> model =
      import::importTensorFlow(dir.write("graph.pbtxt", graph), options);
  REQUIRE_FALSE(model);
  return model.errorMessage();
}

const ir::Literal &rootLiteral(const import::ImportedModel &model) {
  const ir::Instruction *root = model.module->entry()->root();
  REQUIRE(root->opcode() == ir::Opcode::Constant);
  return root->literal();
}
} // namespace

TEST_CASE("Const values follow TensorFlow's fill rules", "[tf-import]") {
  TempDir dir;
  SECTION("fewer values than elements repeat the last") {
    auto model = importText(
        dir, constNode("c", "dtype: DT_INT32 tensor_shape { dim { size: 4 } } "
                            "int_val: 1 int_val: 7"));
    const ir::Literal &value = rootLiteral(model);
    CHECK(value.shape() == ir::Shape(ir::DType::S32, {4}));
    const int32_t *data = value.data<int32_t>();
    CHECK(std::vector<int32_t>(data, data + 4) == std::vector<int32_t>{1, 7, 7, 7});
  }
  SECTION("no values mean zeros") {
    auto model = importText(
        dir, constNode("c", "dtype: DT_FLOAT tensor_shape { dim { size: 2 } }"));
    const float *data = rootLiteral(model).data<float>();
    CHECK(data[0] == 0.0f);
    CHECK(data[1] == 0.0f);
  }
  SECTION("tensor_content holds raw little-endian elements") {
    // int16 values 258 (0x0102) and -1 (0xffff).
    auto model = importText(
        dir, constNode("c", "dtype: DT_INT16 tensor_shape { dim { size: 2 } } "
                            "tensor_content: \"\\002\\001\\377\\377\""));
    const int16_t *data = rootLiteral(model).data<int16_t>();
    CHECK(data[0] == 258);
    CHECK(data[1] == -1);
  }
  SECTION("half values are bit patterns; bools and int64") {
    auto half = importText(
        dir, constNode("c", "dtype: DT_HALF tensor_shape { } half_val: 15360"));
    CHECK(rootLiteral(half).data<uint16_t>()[0] == 0x3C00); // 1.0
    auto flag = importText(
        dir, constNode("c", "dtype: DT_BOOL tensor_shape { dim { size: 2 } } "
                            "bool_val: false bool_val: true"));
    CHECK(rootLiteral(flag).data<uint8_t>()[1] == 1);
    auto wide = importText(
        dir, constNode("c", "dtype: DT_INT64 tensor_shape { } "
                            "int64_val: -9000000000"));
    CHECK(rootLiteral(wide).data<int64_t>()[0] == -9000000000LL);
  }
  SECTION("more values than elements is an error naming the node") {
    std::string message = importError(
        dir, constNode("c", "dtype: DT_FLOAT tensor_shape { dim { size: 1 } } "
                            "float_val: 1 float_val: 2"));
    CHECK_THAT(message, Catch::Contains("graph.pbtxt: node 'c' (Const): error: "
                                        "attribute 'value': tensor holds 2 "
                                        "values but its shape f32[1] has 1"));
  }
  SECTION("string tensors are refused") {
    std::string message = importError(
        dir, constNode("c", "dtype: DT_STRING tensor_shape { } string_val: \"a\""));
    CHECK_THAT(message, Catch::Contains("tensors of type DT_STRING are not supported"));
  }
}

TEST_CASE("nodes may appear in any order in the file", "[tf-import]") {
  TempDir dir;
  auto model = importText(dir, R"(
    node { name: "y" op: "Identity" input: "x" }
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { unknown_rank: true } } } }
  )", "", {"x=2,5"});
  const ir::Computation &entry = *model.module->entry();
  REQUIRE(entry.parameters().size() == 1);
  CHECK(entry.parameter(0)->shape() == ir::Shape(ir::DType::F32, {2, 5}));
  CHECK(entry.root() == entry.parameter(0));
  CHECK(model.args.size() == 1);
  CHECK(model.args[0].name == "x");
  CHECK(model.resultNames == std::vector<std::string>{"y"});
}

TEST_CASE("feeds cut the graph and name the parameters", "[tf-import]") {
  TempDir dir;
  // 'z:1' is fed: neither 'z' nor the unfed placeholder 'x' is needed
  // (fetching 'z:0' would need both).
  std::string graph = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "c" op: "Const" attr { key: "value" value { tensor {
           dtype: DT_FLOAT tensor_shape { } float_val: 3 } } } }
    node { name: "z" op: "IdentityN" input: "c" input: "x" }
    node { name: "out/final" op: "Identity" input: "z:1" }
  )";
  auto model = importText(dir, graph, R"(
    feed { id { node_name: "z" output_index: 1 } type: DT_INT8
           shape { dim { size: 3 } } name: "the feed/0" }
    fetch { id { node_name: "out/final" } }
    fetch { id { node_name: "c" } name: "constant" }
  )");
  const ir::Computation &entry = *model.module->entry();
  REQUIRE(entry.parameters().size() == 1);
  const ir::Instruction *parameter = entry.parameter(0);
  CHECK(parameter->shape() == ir::Shape(ir::DType::S8, {3}));
  CHECK(parameter->name() == "the_feed_0"); // HLO-safe
  CHECK(model.args[0].name == "the feed/0"); // the config's name, unchanged
  CHECK_FALSE(model.args[0].variable);
  CHECK(model.resultNames == std::vector<std::string>{"out/final:0", "constant"});
  REQUIRE(entry.root()->opcode() == ir::Opcode::Tuple);
  CHECK(entry.root()->operand(0) == parameter);
  CHECK(entry.root()->operand(1)->opcode() == ir::Opcode::Constant);
  // Only what the fetches need, up to the feed, is in the pruned graph.
  CHECK(model.summary.opHistogram ==
        std::map<std::string, int64_t>{{"Const", 1}, {"Identity", 1}});
}

TEST_CASE("output names of the source become HLO instruction names",
          "[tf-import]") {
  TempDir dir;
  auto model = importText(dir, constNode("weights/kernel:0x",
                                         "dtype: DT_FLOAT tensor_shape { } "
                                         "float_val: 1"));
  CHECK(model.module->entry()->root()->name() == "weights_kernel_0x");
}

TEST_CASE("a fetch of a missing output names the node and the count",
          "[tf-import]") {
  TempDir dir;
  std::string message = importError(dir,
                                    constNode("c", "dtype: DT_FLOAT tensor_shape "
                                                   "{ } float_val: 1"),
                                    "fetch { id { node_name: \"c\" output_index: 2 } }");
  CHECK_THAT(message, Catch::Contains("graph.pbtxt: error: fetch 'c:2' uses "
                                      "output 2 of node 'c' (Const), which "
                                      "produced 1 output"));
}

TEST_CASE("summarizeTensorFlow lists unsupported ops without failing",
          "[tf-import]") {
  TempDir dir;
  std::string path = dir.write("graph.pbtxt", R"(
    node { name: "c" op: "Const" attr { key: "value" value { tensor {
           dtype: DT_FLOAT tensor_shape { dim { size: 4 } } float_val: 3 } } } }
    node { name: "l" op: "LoopCond" input: "c" }
  )");
  Expected<import::SourceSummary> summary = import::summarizeTensorFlow(path, {});
  REQUIRE(summary);
  CHECK(summary->format == "TensorFlow GraphDef (text)");
  CHECK(summary->opHistogram.at("Const") == 1);
  CHECK(summary->weightBytes == 16);
  REQUIRE(summary->unsupported.size() == 1);
  CHECK(summary->unsupported[0].op == "LoopCond");
  CHECK(summary->unsupported[0].nodes == std::vector<std::string>{"l"});
  CHECK_THAT(summary->unsupported[0].reason, Catch::Contains("control flow"));
}
