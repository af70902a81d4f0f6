//===- Command.h - What every kiln subcommand file provides -----*- C++ -*-===//
//
// Each <Name>Command.cpp defines add<Name>Command(app, runner): it adds its
// subcommand and flags to `app` and, when that subcommand is selected, sets
// `runner` to a call into lib/Driver. main.cpp lists the subcommands.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_COMMAND_H
#define KILN_TOOLS_KILN_COMMAND_H

#include "kiln/Import/Import.h"
#include "kiln/Support/Error.h"
#include "kiln/Support/ResourceLimits.h"

#include <CLI/CLI.hpp>
#include <charconv>
#include <functional>
#include <string>
#include <vector>

namespace kiln::tool {

/// The selected subcommand's work, run after parsing succeeds.
using Runner = std::function<Error()>;

/// The budgets' values: a positive whole number of bytes that fits
/// int64_t. CLI::PositiveNumber answered "4G" with the range of a double.
inline CLI::Validator byteCount() {
  return CLI::Validator(
      [](std::string &text) -> std::string {
        int64_t value = 0;
        const char *end = text.data() + text.size();
        auto [stop, status] = std::from_chars(text.data(), end, value);
        if (status == std::errc() && stop == end && value > 0)
          return "";
        return "expects a positive whole number of bytes (no K/M/G "
               "suffix), got '" +
               text + "'";
      },
      "BYTES");
}

/// --max-constant-bytes: the process's constant budget (ResourceLimits).
inline void addConstantBudgetOption(CLI::App &command) {
  command
      .add_option("--max-constant-bytes", resourceLimits().maxConstantBytes,
                  "Most bytes any one constant, weight or host-side table "
                  "read or built from the model may take (default 2 GiB)")
      ->check(byteCount());
}

/// --max-arena: the process's budget for inputs, results, intermediate
/// values and the arena (ResourceLimits), on the subcommands that compile
/// or run a model.
inline void addArenaBudgetOption(CLI::App &command) {
  command
      .add_option("--max-arena", resourceLimits().maxArenaBytes,
                  "Most bytes any one input, result or intermediate value, "
                  "and the arena of intermediate values, may take (default "
                  "4 GiB)")
      ->check(byteCount());
}

/// --config, --shape, --freeze, the caller layouts and the resource limits, shared by every subcommand
/// that imports a model.
inline void addImportOptions(CLI::App &command, import::ImportOptions &options) {
  addConstantBudgetOption(command);
  command.add_flag("--allow-external-paths",
                   resourceLimits().allowExternalPaths,
                   "Let ONNX external data and TF.js weight shards name "
                   "files outside the model's directory");
  command.add_option("--config", options.configPath,
                     "tfcompile feed/fetch config (tf2xla.Config as text "
                     "proto or JSON); default: the model's own inputs and "
                     "outputs");
  command.add_option("--shape", options.shapes,
                     "NAME=D0,D1,... fixes the dynamic dimensions of input "
                     "NAME (repeat per input)")
      ->allow_extra_args(false);
  command.add_option("--freeze", options.freeze,
                     "NAME=FILE.npy or NAME=V0,V1,... binds input NAME to "
                     "that constant at import (it leaves the ABI); for "
                     "shape-setting inputs (repeat per input)")
      ->allow_extra_args(false);
  command.add_option("--input-layout", options.inputLayouts,
                     "NAME=nhwc|nchw|P0,P1,... : the caller's buffer for "
                     "input NAME holds its dims in this order (nhwc: the "
                     "model's N,C,H,W as N,H,W,C); repeat per input")
      ->allow_extra_args(false);
  command.add_option("--output-layout", options.outputLayouts,
                     "NAME=nhwc|nchw|P0,P1,... : the caller's buffer for "
                     "output NAME holds its dims in this order; repeat per "
                     "output")
      ->allow_extra_args(false);
}

/// The positional model file of every subcommand that reads a model.
inline void addModelArgument(CLI::App &command, std::string &model) {
  command
      .add_option("model", model,
                  "Model file: .hlo, .pb, .pbtxt, .json (GraphDef or "
                  "TF.js model.json), .onnx")
      ->required();
}

/// -i/--input NAME=FILE.npy, repeated per input; `help` says what happens
/// to inputs not given (an error for `run`, seeded values elsewhere).
inline void addInputOption(CLI::App &command, std::vector<std::string> &inputs,
                           const std::string &help) {
  command.add_option("-i,--input", inputs, help)->allow_extra_args(false);
}

/// --no-fusion: compile without the output, loop and input fusions.
inline void addNoFusionFlag(CLI::App &command, bool &fusion) {
  command.add_flag(
      "--no-fusion", [&fusion](int64_t) { fusion = false; },
      "Skip the fusion passes only (output, loop and input fusions)");
}

/// --no-winograd: every convolution on the direct kernel (numerics checks,
/// timing comparisons).
inline void addNoWinogradFlag(CLI::App &command, bool &winograd) {
  command.add_flag(
      "--no-winograd", [&winograd](int64_t) { winograd = false; },
      "Run 3x3 convolutions on the direct kernel, never as Winograd "
      "F(4x4, 3x3) (docs/performance.md)");
}

} // namespace kiln::tool

#endif // KILN_TOOLS_KILN_COMMAND_H
