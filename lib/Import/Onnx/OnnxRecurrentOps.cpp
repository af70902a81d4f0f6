//===- OnnxRecurrentOps.cpp - ONNX RNN, GRU and LSTM ===//
#include "Onnx/OnnxOps.h"

namespace kiln::import::onnx {

namespace {
const OnnxOpRule kRules[] = {
    {"", nullptr}, // placeholder until the family's first rule lands
};
} // namespace

std::span<const OnnxOpRule> onnxRecurrentRules() { return std::span<const OnnxOpRule>(kRules).subspan(1); }

} // namespace kiln::import::onnx
