//===- OnnxNnOps.cpp - ONNX convolution, gemm, pooling, normalization, resize ===//
#include "Onnx/OnnxOps.h"

namespace kiln::import::onnx {

namespace {
const OnnxOpRule kRules[] = {
    {"", nullptr}, // placeholder until the family's first rule lands
};
} // namespace

std::span<const OnnxOpRule> onnxNnRules() { return std::span<const OnnxOpRule>(kRules).subspan(1); }

} // namespace kiln::import::onnx
