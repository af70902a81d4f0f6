//===- OnnxTensorOps.cpp - ONNX shape, slicing, gather and padding ops ===//
#include "Onnx/OnnxOps.h"

namespace kiln::import::onnx {

namespace {
const OnnxOpRule kRules[] = {
    {"", nullptr}, // placeholder until the family's first rule lands
};
} // namespace

std::span<const OnnxOpRule> onnxTensorRules() { return std::span<const OnnxOpRule>(kRules).subspan(1); }

} // namespace kiln::import::onnx
