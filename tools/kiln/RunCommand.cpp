//===- RunCommand.cpp - `kiln run`: execute a model on .npy inputs --------===//
#include "Command.h"

#include "kiln/Driver/Driver.h"

#include <iostream>
#include <memory>

namespace kiln::tool {

void addRunCommand(CLI::App &app, Runner &runner) {
  auto options = std::make_shared<driver::RunOptions>();
  CLI::App *command = app.add_subcommand(
      "run", "Execute a model on .npy inputs and write one .npy per result");
  command->footer("Examples:\n"
                  "  kiln run model.onnx --input x=x.npy --output-dir out\n"
                  "  kiln run model.pb --config model.config.pbtxt --input x=x.npy --reference\n"
                  "  kiln run model.onnx --freeze shape=1,-1 --input data=data.npy");
  addModelArgument(*command, options->model);
  addImportOptions(*command, options->import);
  addArenaBudgetOption(*command);
  addInputOption(*command, options->inputs,
                 "NAME=FILE.npy for each model input, NAME being the "
                 "entry parameter's name (repeat the flag per input)");
  command
      ->add_option("--output-dir", options->outputDir,
                   "Directory for the result files, created if missing; each "
                   "is named after its result")
      ->capture_default_str();
  command->add_flag("--reference", options->reference,
                    "Execute with the reference evaluator instead of the JIT");
  auto noOpt = std::make_shared<bool>(false);
  command->add_flag("--no-opt", *noOpt,
                    "JIT only: skip the optimization passes (--reference "
                    "never runs them)");
  addNoFusionFlag(*command, options->fusion);
  addNoWinogradFlag(*command, options->winograd);
  command->callback([options, noOpt, &runner] {
    options->optimize = !*noOpt;
    runner = [options]() -> Error {
      auto outputs = driver::runModel(*options);
      if (!outputs)
        return outputs.takeError();
      for (const driver::RunOutput &output : *outputs) {
        std::cout << output.name << ": " << output.shape.toString();
        if (output.bound)
          std::cout << " (count " << output.shape.dim(size_t(output.bound->dim))
                    << " along dim " << output.bound->dim << " of "
                    << output.bound->padded.toString() << ")";
        std::cout << " -> " << output.path << "\n";
      }
      return Error::success();
    };
  });
}

} // namespace kiln::tool
