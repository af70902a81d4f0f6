//===- FuzzTfConfig.cpp - libFuzzer target: a tf2xla (tfcompile) config ---===//
//
// The input is the config (text proto, or JSON when it looks like JSON) for
// a fixed small graph whose node names the dictionary knows: two float
// placeholders, a variable and a few ops, so feeds, fetches and variables
// can name real nodes and tensors.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "ImportCheck.h"

#include "kiln/Import/TensorFlow.h"

namespace {
constexpr std::string_view kGraph = R"pb(
node { name: "x" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
node { name: "y" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 3 } dim { size: 2 } } } } }
node { name: "w" op: "VarHandleOp"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 2 } dim { size: 2 } } } } }
node { name: "w_read" op: "ReadVariableOp" input: "w"
  attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "mm" op: "MatMul" input: "x" input: "y"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "sum" op: "AddV2" input: "mm" input: "w_read"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "split" op: "Unpack" input: "sum"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "num" value { i: 2 } }
  attr { key: "axis" value { i: 0 } } }
node { name: "assign" op: "AssignVariableOp" input: "w" input: "sum"
  attr { key: "dtype" value { type: DT_FLOAT } } }
)pb";
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  kiln::fuzz::silenceProtobufLogs();
  kiln::fuzz::writeScratchFile("graph.pbtxt", kGraph);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kiln::import::ImportOptions options;
  options.configPath = kiln::fuzz::writeScratchFile(
      "config.pbtxt", kiln::fuzz::asText(data, size));
  auto model = kiln::import::importTensorFlow(
      kiln::fuzz::scratchDir() + "/graph.pbtxt", options);
  kiln::fuzz::checkImport(model);
  return 0;
}
