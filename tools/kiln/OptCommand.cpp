//===- OptCommand.cpp - `kiln opt`: run passes on HLO text ----------------===//
#include "Command.h"

#include "kiln/Driver/Driver.h"

#include <iostream>
#include <memory>

namespace kiln::tool {

namespace {
struct OptFlags {
  driver::OptOptions options;
  std::string passes, printAfter;
};
} // namespace

void addOptCommand(CLI::App &app, Runner &runner) {
  auto flags = std::make_shared<OptFlags>();
  CLI::App *command = app.add_subcommand(
      "opt", "Run passes on an HLO module and print the result as HLO text");
  command->footer("Examples:\n"
                  "  kiln opt model.hlo                 # parse, verify, print\n"
                  "  kiln opt model.hlo --passes algebraic-simplifier,cse,dce -o out.hlo\n"
                  "  kiln opt model.hlo --print-after all 2> steps.txt");
  command->add_option("input", flags->options.input,
                      "HLO text file, or - for standard input (default)");
  command->add_option("--passes", flags->passes,
                      "Comma-separated pass names to run in order "
                      "(default: none, the module is only parsed, verified "
                      "and printed)");
  command->add_option("--print-after", flags->printAfter,
                      "Print the module to stderr after the named passes "
                      "(comma-separated) or after all of them");
  command->add_option("-o,--output", flags->options.output,
                      "Write the module to this file instead of stdout");
  addConstantBudgetOption(*command);
  command->callback([flags, &runner] {
    flags->options.passes = driver::splitList(flags->passes);
    flags->options.printAfter = driver::splitList(flags->printAfter);
    runner = [flags] {
      return driver::runOpt(flags->options, std::cout, std::cerr);
    };
  });
}

} // namespace kiln::tool
