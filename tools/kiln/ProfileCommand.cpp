//===- ProfileCommand.cpp - `kiln profile`: per-kernel timings ------------===//
#include "Command.h"

#include "kiln/Driver/Profile.h"

#include <cstdio>
#include <memory>

namespace kiln::tool {

void addProfileCommand(CLI::App &app, Runner &runner) {
  auto options = std::make_shared<driver::ProfileOptions>();
  CLI::App *command = app.add_subcommand(
      "profile", "Run a model on the host with per-kernel counters; write a "
                 "Chrome trace and print the most expensive kernels");
  addModelArgument(*command, options->model);
  addImportOptions(*command, options->import);
  addArenaBudgetOption(*command);
  addInputOption(*command, options->inputs,
                 "NAME=FILE.npy for a model input (repeat per input); "
                 "inputs not given get seeded values");
  command
      ->add_option("--seed", options->seed,
                   "Seed of the generated inputs: float32/float64 uniform "
                   "in [-1, 1), other dtypes zeros")
      ->capture_default_str();
  command
      ->add_option("--runs", options->runs,
                   "Timed runs, after one untimed warm-up run")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 30))
      ->capture_default_str();
  command->add_option("--top", options->top, "Kernels listed in the table")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command->add_option("-o,--output", options->tracePath,
                      "The Chrome trace-event JSON to write (default: the "
                      "model's stem + .trace.json in the current directory); "
                      "open it in chrome://tracing or ui.perfetto.dev");
  auto noOpt = std::make_shared<bool>(false);
  command->add_flag("--no-opt", *noOpt,
                    "Skip the optimization passes (docs/cli.md: pipeline)");
  addNoFusionFlag(*command, options->fusion);
  addNoWinogradFlag(*command, options->winograd);
  command->callback([options, noOpt, &runner] {
    options->optimize = !*noOpt;
    runner = [options]() -> Error {
      auto report = driver::profileModel(*options);
      if (!report)
        return report.takeError();
      std::printf("%s",
                  driver::formatProfileTable(*report, options->top).c_str());
      std::printf("wrote %s\n", report->tracePath.c_str());
      return Error::success();
    };
  });
}

} // namespace kiln::tool
