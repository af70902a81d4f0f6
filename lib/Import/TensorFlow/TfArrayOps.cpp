//===- TfArrayOps.cpp - TensorFlow shape, slicing, gather and padding ops ===//
#include "TensorFlow/TfOps.h"

namespace kiln::import::tf {

namespace {
const TfOpRule kRules[] = {
    {"", nullptr}, // placeholder until the family's first rule lands
};
} // namespace

std::span<const TfOpRule> tfArrayRules() { return std::span<const TfOpRule>(kRules).subspan(1); }

} // namespace kiln::import::tf
