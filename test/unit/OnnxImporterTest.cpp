//===- OnnxImporterTest.cpp - Reading ONNX models: tensors, graph, errors -===//
//
// Models are built with the project's own ModelProto classes and imported
// from memory. Expected element bytes are worked out by hand (IEEE bit
// patterns in the comments); nothing is compared with kiln's own output.
//
//===----------------------------------------------------------------------===//
#include "kiln/Import/Onnx.h"

#include "kiln/Import/GraphBuilder.h"
#include "kiln/Import/LiteralUtil.h"
#include "kiln/IR/Instruction.h"

#include "onnx/onnx.pb.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

using namespace kiln;
using namespace kiln::import;
using kiln::onnxpb::TensorProto;

namespace {
onnxpb::ModelProto makeModel(int64_t opset = 13) {
  onnxpb::ModelProto model;
  model.set_ir_version(8);
  onnxpb::OperatorSetIdProto *entry = model.add_opset_import();
  entry->set_domain("");
  entry->set_version(opset);
  model.mutable_graph()->set_name("g");
  return model;
}

void addValue(google::protobuf::RepeatedPtrField<onnxpb::ValueInfoProto> *list,
              const std::string &name, int32_t type,
              const std::vector<int64_t> &dims) {
  onnxpb::ValueInfoProto *info = list->Add();
  info->set_name(name);
  auto *tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(type);
  auto *shape = tensor->mutable_shape();
  for (int64_t dim : dims) {
    if (dim < 0)
      shape->add_dim()->set_dim_param("N");
    else
      shape->add_dim()->set_dim_value(dim);
  }
}

onnxpb::NodeProto *addNode(onnxpb::ModelProto &model, const std::string &op,
                           std::vector<std::string> inputs,
                           std::vector<std::string> outputs,
                           const std::string &name = "") {
  onnxpb::NodeProto *node = model.mutable_graph()->add_node();
  node->set_op_type(op);
  node->set_name(name);
  for (const std::string &input : inputs)
    node->add_input(input);
  for (const std::string &output : outputs)
    node->add_output(output);
  return node;
}

/// Imports `model` with an output "y" that is Identity(initializer "w").
Expected<ImportedModel> importProto(const onnxpb::ModelProto &model,
                               ImportOptions options = {}) {
  return importOnnxBytes(model.SerializeAsString(), "m.onnx", ".", options);
}

/// The literal a single-output model's root folds to.
ir::Literal rootConstant(const ImportedModel &model) {
  const ir::Literal *literal =
      GraphBuilder::constantValue(model.module->entry()->root());
  REQUIRE(literal);
  return *literal;
}

/// A model returning initializer `tensor` (named "w") through Identity.
onnxpb::ModelProto initializerModel(const TensorProto &tensor) {
  onnxpb::ModelProto model = makeModel();
  *model.mutable_graph()->add_initializer() = tensor;
  model.mutable_graph()->mutable_initializer(0)->set_name("w");
  addNode(model, "Identity", {"w"}, {"y"});
  std::vector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
  addValue(model.mutable_graph()->mutable_output(), "y", tensor.data_type(),
           dims);
  return model;
}

std::vector<uint8_t> bytesOf(const ImportedModel &model) {
  return rootConstant(model).bytes();
}
} // namespace

TEST_CASE("typed initializer fields decode per ONNX's storage rules",
          "[import][onnx]") {
  TensorProto half;
  half.add_dims(2);
  half.set_data_type(TensorProto::FLOAT16);
  half.add_int32_data(0x3C00); // 1.0
  half.add_int32_data(0xC000); // -2.0
  Expected<ImportedModel> model = importProto(initializerModel(half));
  REQUIRE(model);
  CHECK(bytesOf(*model) == std::vector<uint8_t>{0x00, 0x3C, 0x00, 0xC0});

  TensorProto flags;
  flags.add_dims(3);
  flags.set_data_type(TensorProto::BOOL);
  for (int value : {0, 2, 1})
    flags.add_int32_data(value);
  model = importProto(initializerModel(flags));
  REQUIRE(model);
  CHECK(bytesOf(*model) == std::vector<uint8_t>{0, 1, 1});

  TensorProto small;
  small.add_dims(2);
  small.set_data_type(TensorProto::INT8);
  small.add_int32_data(-1);
  small.add_int32_data(127);
  model = importProto(initializerModel(small));
  REQUIRE(model);
  CHECK(bytesOf(*model) == std::vector<uint8_t>{0xFF, 0x7F});

  TensorProto wide;
  wide.add_dims(1);
  wide.set_data_type(TensorProto::UINT32);
  wide.add_uint64_data(0xDEADBEEF);
  model = importProto(initializerModel(wide));
  REQUIRE(model);
  CHECK(bytesOf(*model) == std::vector<uint8_t>{0xEF, 0xBE, 0xAD, 0xDE});

  TensorProto f64;
  f64.set_data_type(TensorProto::DOUBLE); // a scalar
  f64.add_double_data(0.5);               // 0x3FE0000000000000
  model = importProto(initializerModel(f64));
  REQUIRE(model);
  CHECK(bytesOf(*model) ==
        std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0xE0, 0x3F});
}

TEST_CASE("raw_data initializers keep their bytes; bfloat16 too",
          "[import][onnx]") {
  TensorProto tensor;
  tensor.add_dims(2);
  tensor.set_data_type(TensorProto::BFLOAT16);
  tensor.set_raw_data(std::string("\x80\x3F\x00\xC0", 4)); // 1.0, -2.0
  Expected<ImportedModel> model = importProto(initializerModel(tensor));
  REQUIRE(model);
  CHECK(bytesOf(*model) == std::vector<uint8_t>{0x80, 0x3F, 0x00, 0xC0});
  CHECK(rootConstant(*model).shape().toString() == "bf16[2]");

  tensor.set_raw_data(std::string("\x80\x3F", 2)); // too short
  model = importProto(initializerModel(tensor));
  REQUIRE(!model);
  CHECK(model.errorMessage() == "m.onnx: node 'y' (Identity): initializer "
                                "'w': raw_data has 2 bytes but bf16[2] needs 4");
}

TEST_CASE("external data is read at its offset from beside the model",
          "[import][onnx]") {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "kiln-onnx-external-test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir / "w.bin", std::ios::binary);
    out.write("skip\x01\x00\x02\x00", 8); // int16 {1, 2} after 4 bytes
  }
  TensorProto tensor;
  tensor.add_dims(2);
  tensor.set_data_type(TensorProto::INT16);
  tensor.set_data_location(TensorProto::EXTERNAL);
  for (auto [key, value] : {std::pair{"location", "w.bin"},
                            std::pair{"offset", "4"},
                            std::pair{"length", "4"}}) {
    auto *entry = tensor.add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  }
  Expected<ImportedModel> model =
      importOnnxBytes(initializerModel(tensor).SerializeAsString(), "m.onnx",
                      dir.string(), {});
  REQUIRE(model);
  CHECK(bytesOf(*model) == std::vector<uint8_t>{1, 0, 2, 0});
  std::filesystem::remove_all(dir);
}

TEST_CASE("graph inputs with initializers are constants, not args",
          "[import][onnx]") {
  onnxpb::ModelProto model = makeModel();
  auto *graph = model.mutable_graph();
  addValue(graph->mutable_input(), "x", TensorProto::FLOAT, {2});
  addValue(graph->mutable_input(), "bias", TensorProto::FLOAT, {2});
  TensorProto *bias = graph->add_initializer();
  bias->set_name("bias");
  bias->add_dims(2);
  bias->set_data_type(TensorProto::FLOAT);
  bias->add_float_data(1);
  bias->add_float_data(2);
  addNode(model, "Identity", {"x"}, {"y"});
  addNode(model, "Identity", {"bias"}, {"b"});
  addValue(graph->mutable_output(), "y", TensorProto::FLOAT, {2});
  addValue(graph->mutable_output(), "b", TensorProto::FLOAT, {2});
  Expected<ImportedModel> imported = importProto(model);
  REQUIRE(imported);
  REQUIRE(imported->args.size() == 1);
  CHECK(imported->args[0].name == "x");
  CHECK(imported->resultNames == std::vector<std::string>{"y", "b"});
  CHECK(imported->module->entry()->parameters().size() == 1);
  CHECK(imported->summary.weightBytes == 8);
  CHECK(imported->summary.opHistogram.at("Identity") == 2);
}

TEST_CASE("Constant nodes become constants of ONNX's types",
          "[import][onnx]") {
  onnxpb::ModelProto model = makeModel();
  onnxpb::NodeProto *node = addNode(model, "Constant", {}, {"y"});
  onnxpb::AttributeProto *attr = node->add_attribute();
  attr->set_name("value_ints");
  attr->set_type(onnxpb::AttributeProto::INTS);
  attr->add_ints(3);
  attr->add_ints(-4);
  addValue(model.mutable_graph()->mutable_output(), "y", TensorProto::INT64,
           {2});
  Expected<ImportedModel> imported = importProto(model);
  REQUIRE(imported);
  ir::Literal value = rootConstant(*imported);
  CHECK(value.shape().toString() == "s64[2]");
  CHECK(literalToInts(value) == std::vector<int64_t>{3, -4});

  attr->Clear();
  attr->set_name("value_float");
  attr->set_type(onnxpb::AttributeProto::FLOAT);
  attr->set_f(0.25f);
  model.mutable_graph()->mutable_output(0)->mutable_type()
      ->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  model.mutable_graph()->mutable_output(0)->mutable_type()
      ->mutable_tensor_type()->mutable_shape()->clear_dim();
  imported = importProto(model);
  REQUIRE(imported);
  CHECK(rootConstant(*imported).shape().toString() == "f32[]");
  CHECK(literalToDoubles(rootConstant(*imported)) ==
        std::vector<double>{0.25});
}

TEST_CASE("--shape fixes symbolic dimensions; unknown ones are errors",
          "[import][onnx]") {
  onnxpb::ModelProto model = makeModel();
  addValue(model.mutable_graph()->mutable_input(), "x", TensorProto::FLOAT,
           {-1, 3});
  addNode(model, "Identity", {"x"}, {"y"});
  addValue(model.mutable_graph()->mutable_output(), "y", TensorProto::FLOAT,
           {-1, 3});
  Expected<ImportedModel> imported = importProto(model);
  REQUIRE(!imported);
  CHECK(imported.errorMessage() ==
        "m.onnx: input 'x' has an unknown dimension 0 in its shape [N,3]; "
        "fix it with --shape x=D0,D1,...");
  ImportOptions options;
  options.shapes = {"x=5,3"};
  imported = importProto(model, options);
  REQUIRE(imported);
  CHECK(imported->module->entry()->parameter(0)->shape().toString() ==
        "f32[5,3]");
}

TEST_CASE("errors name the file, the node and its op", "[import][onnx]") {
  onnxpb::ModelProto model = makeModel();
  addNode(model, "Identity", {"nothing"}, {"y"}, "copy");
  addValue(model.mutable_graph()->mutable_output(), "y", TensorProto::FLOAT,
           {1});
  Expected<ImportedModel> imported = importProto(model);
  REQUIRE(!imported);
  CHECK(imported.errorMessage() ==
        "m.onnx: node 'copy' (Identity): input 'nothing' is not a graph "
        "input, an initializer or the output of an earlier node");

  CHECK(!importProto(makeModel(19)));
  CHECK(!importOnnxBytes("\x0a\xff", "bad.onnx", ".", {}));
}

TEST_CASE("models below opset 7 are read when their ops did not change",
          "[import][onnx]") {
  onnxpb::ModelProto model = makeModel(1);
  addValue(model.mutable_graph()->mutable_input(), "x", TensorProto::FLOAT,
           {2});
  addNode(model, "Identity", {"x"}, {"y"});
  addValue(model.mutable_graph()->mutable_output(), "y", TensorProto::FLOAT,
           {2});
  CHECK(importProto(model)); // Identity-1 is still Identity at opset 7

  addNode(model, "Add", {"x", "y"}, {"z"}, "sum");
  Expected<ImportedModel> imported = importProto(model);
  REQUIRE(!imported);
  CHECK_THAT(imported.errorMessage(),
             Catch::Contains("which 'Add' is not"));
}
