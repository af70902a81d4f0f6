//===- TfGraphOps.cpp - Placeholder, Const, Identity and other graph plumbing ===//
#include "TensorFlow/TfOps.h"

namespace kiln::import::tf {

namespace {
const TfOpRule kRules[] = {
    {"", nullptr}, // placeholder until the family's first rule lands
};
} // namespace

std::span<const TfOpRule> tfGraphRules() { return std::span<const TfOpRule>(kRules).subspan(1); }

} // namespace kiln::import::tf
