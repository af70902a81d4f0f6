//===- CheckCommand.cpp - `kiln check`: compiled code vs the evaluator ----===//
#include "Command.h"

#include "kiln/Driver/Check.h"

#include <iostream>
#include <memory>

namespace kiln::tool {

void addCheckCommand(CLI::App &app, Runner &runner) {
  auto options = std::make_shared<driver::CheckOptions>();
  auto tolerance = std::make_shared<std::string>();
  CLI::App *command = app.add_subcommand(
      "check", "Golden check: run the compiled model (host JIT) and the "
               "reference evaluator on the same inputs and compare every "
               "instruction; exit 0 when all agree");
  command->footer("Examples:\n"
                  "  kiln check model.onnx                        # seeded inputs\n"
                  "  kiln check model.onnx --input x=x.npy --expect y=onnxruntime_y.npy\n"
                  "  kiln check model.json --f64 --tolerance 1e-4,1e-6");
  addModelArgument(*command, options->model);
  addImportOptions(*command, options->import);
  addArenaBudgetOption(*command);
  addInputOption(*command, options->inputs,
                 "NAME=FILE.npy for each model input (default: seeded "
                 "random inputs, mulberry32 seed 1)");
  command
      ->add_option("--expect", options->expect,
                   "NAME=FILE.npy: also compare result NAME with another "
                   "runtime's saved output (repeat per result)")
      ->allow_extra_args(false);
  command->add_flag("--f64", options->f64,
                    "Also evaluate in float64 and show each path's error "
                    "against it, and the error growth per instruction");
  command->add_option("--tolerance", *tolerance,
                      "RTOL[,ATOL]: an element agrees when |got - want| <= "
                      "ATOL + RTOL*|want| (default: 1e-3,1e-4)");
  addNoFusionFlag(*command, options->fusion);
  addNoWinogradFlag(*command, options->winograd);
  // Test-only: proves that the check finds a wrong instruction.
  command->add_option("--inject-error", options->injectError)
      ->group("");
  command->callback([options, tolerance, &runner] {
    runner = [options, tolerance]() -> Error {
      if (!tolerance->empty())
        if (Error error = driver::parseTolerance(*tolerance, *options))
          return error;
      Expected<bool> agree = driver::runCheck(*options, std::cout);
      if (!agree)
        return agree.takeError();
      if (!*agree)
        return makeError("the compiled model and the reference disagree "
                         "(see above)");
      return Error::success();
    };
  });
}

} // namespace kiln::tool
