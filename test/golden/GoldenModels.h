//===- GoldenModels.h - The models whose header/manifest are golden files -===//
//
// Shared by the unit tests (generate and compare with test/golden/*.h and
// *.json) and by nothing else: the compile tests use the files themselves.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TEST_GOLDEN_GOLDENMODELS_H
#define KILN_TEST_GOLDEN_GOLDENMODELS_H

#include "kiln/AOT/ModelInfo.h"

namespace kiln::golden {

/// One feed, one fetch, no arena, host-like target, no namespace.
inline aot::ModelInfo addRelu() {
  aot::ModelInfo info;
  info.name = "add_relu";
  info.triple = "x86_64-unknown-linux-gnu";
  info.cpu = "generic";
  info.args = {{"x", aot::ArgKind::Feed, true, ir::DType::F32, {2, 3}, 24, {}}};
  info.results = {{"r", aot::ArgKind::Feed, true, ir::DType::F32, {2, 3}, 24, {}}};
  return info;
}

/// Several args (rank 4, rank 0, a writable variable with a dotted name,
/// updated in place so it is not a result), several
/// dtypes, an arena, weights, a namespace and a required symbol.
inline aot::ModelInfo detector() {
  aot::ModelInfo info;
  info.name = "detector";
  info.cppNamespace = "vision::models";
  info.triple = "aarch64-unknown-linux-gnu";
  info.cpu = "cortex-a72";
  info.features = "+neon";
  info.arenaBytes = 12288;
  info.peakLiveBytes = 11264;
  info.weightsBytes = 31400;
  info.codeBytes = 5120;
  info.objectWeightBytes = 31360;
  // Compiled for a microcontroller: code + weights + literal pools in flash;
  // arena, args and results in RAM; the bare-metal placement flags.
  info.flashBytes = 36544;
  info.ramBytes = 12526;
  info.weightsSection = ".flash_weights";
  info.arenaSection = ".bss.sram2";
  info.args = {
      {"image", aot::ArgKind::Feed, true, ir::DType::F32, {1, 4, 4, 3}, 192, {}},
      {"threshold", aot::ArgKind::Feed, true, ir::DType::F32, {}, 4, {}},
      {"step.count", aot::ArgKind::Variable, false, ir::DType::S64, {}, 8, {}}};
  info.results = {
      {"boxes", aot::ArgKind::Feed, true, ir::DType::F32, {1, 2, 4}, 32, {}},
      {"keep:0", aot::ArgKind::Feed, true, ir::DType::Pred, {2}, 2, {}}};
  info.requiredSymbols = {"memcpy"};
  return info;
}

/// A bounded result (a Where: the indices of true elements, padded at 6
/// rows) with its count as the last result, and a static result between
/// them that must read as in any other header.
inline aot::ModelInfo selector() {
  aot::ModelInfo info;
  info.name = "selector";
  info.triple = "x86_64-unknown-linux-gnu";
  info.cpu = "generic";
  info.args = {{"mask", aot::ArgKind::Feed, true, ir::DType::Pred, {2, 3}, 6, {}}};
  info.results = {
      {"indices", aot::ArgKind::Feed, true, ir::DType::S64, {6, 2}, 96, {}},
      {"any", aot::ArgKind::Feed, true, ir::DType::Pred, {}, 1, {}},
      {"indices_count", aot::ArgKind::Feed, true, ir::DType::S32, {}, 4, {}}};
  info.bounded = {{0, 0, 2}};
  return info;
}

} // namespace kiln::golden

#endif // KILN_TEST_GOLDEN_GOLDENMODELS_H
