//===- OnnxOpsets.cpp - Which pre-opset-7 models read as opset 7 ----------===//
//
// kiln's lowerings implement opsets 7-18. A model that imports an older
// opset (ONNX's own test generator stamps opset 1 or 6 on models whose op
// has not changed since) is still accepted when each of its ops reads the
// same at its opset as at opset 7: the op's definition as of opset 7 must be
// no newer than the model's opset. This table holds, for every op whose
// opset-7 definition is newer than opset 1, that definition's version
// (from onnx.defs.get_schema(op, 7).since_version).
//
//===----------------------------------------------------------------------===//
#include "Onnx/OnnxOps.h"

namespace kiln::import::onnx {

namespace {
struct OpVersion {
  std::string_view opType;
  int64_t versionAtOpset7;
};

const OpVersion kChangedBeforeOpset7[] = {
    {"GlobalLpPool", 2}, {"LpPool", 2}, {"Pad", 2}, {"Split", 2},
    {"Concat", 4}, {"Reshape", 5},
    // Opset 6 dropped the legacy `consumed_inputs` attribute.
    {"Abs", 6}, {"Cast", 6}, {"Ceil", 6}, {"Clip", 6}, {"Elu", 6},
    {"Exp", 6}, {"Floor", 6}, {"HardSigmoid", 6},
    {"InstanceNormalization", 6}, {"LeakyRelu", 6}, {"Log", 6}, {"Max", 6},
    {"Mean", 6}, {"Min", 6}, {"Neg", 6}, {"Reciprocal", 6}, {"Relu", 6},
    {"Selu", 6}, {"Sigmoid", 6}, {"Sqrt", 6}, {"Sum", 6}, {"Tanh", 6},
    {"Tile", 6},
    // Opset 7 introduced NumPy broadcasting and new op versions.
    {"Acos", 7}, {"Add", 7}, {"And", 7}, {"Asin", 7}, {"Atan", 7},
    {"AveragePool", 7}, {"BatchNormalization", 7}, {"Cos", 7}, {"Div", 7},
    {"Dropout", 7}, {"Equal", 7}, {"GRU", 7}, {"Gemm", 7}, {"Greater", 7},
    {"LSTM", 7}, {"Less", 7}, {"Mul", 7}, {"Multinomial", 7}, {"Or", 7},
    {"PRelu", 7}, {"Pow", 7}, {"RNN", 7}, {"Sin", 7}, {"Sub", 7},
    {"Tan", 7}, {"Upsample", 7}, {"Xor", 7},
};
} // namespace

bool readsAsOpset7(std::string_view opType, int64_t opset) {
  for (const OpVersion &entry : kChangedBeforeOpset7)
    if (entry.opType == opType)
      return entry.versionAtOpset7 <= opset;
  return true;
}

} // namespace kiln::import::onnx
