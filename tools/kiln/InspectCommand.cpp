//===- InspectCommand.cpp - `kiln inspect`: what a model is and costs -----===//
#include "Command.h"

#include "kiln/Driver/Inspect.h"

#include <iostream>
#include <memory>

namespace kiln::tool {

void addInspectCommand(CLI::App &app, Runner &runner) {
  auto options = std::make_shared<driver::InspectOptions>();
  CLI::App *command = app.add_subcommand(
      "inspect", "Show a model's inputs, outputs, ops, unsupported ops, "
                 "weight bytes, FLOPs and arena size");
  command->footer("Examples:\n"
                  "  kiln inspect model.onnx\n"
                  "  kiln inspect model.json --json\n"
                  "  kiln inspect model.pb --config model.config.pbtxt --shape x=8,784");
  addModelArgument(*command, options->model);
  addImportOptions(*command, options->import);
  command->add_flag("--json", options->json,
                    "Print one JSON object instead of text");
  command->add_option("--dot", options->dot,
                      "Print the Graphviz of the HLO instead of the report: "
                      "import (as imported) or opt (after the optimization "
                      "passes, as compiled); pipe to 'dot -Tsvg'");
  command->callback([options, &runner] {
    runner = [options] { return driver::runInspect(*options, std::cout); };
  });
}

} // namespace kiln::tool
