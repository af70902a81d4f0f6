//===- main.cpp - The kiln command-line tool: parse flags, call the driver ===//
//
// Holds no compiler logic: subcommands parse their flags and call
// lib/Driver. Errors go to stderr as "error: ..." with exit status 1; no
// exception leaves main.
//
//===----------------------------------------------------------------------===//
#include "Command.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string_view>

// Every subcommand, one line each; X(Name) is defined by NameCommand.cpp as
// kiln::tool::addNameCommand.
#define KILN_COMMANDS(X)                                                       \
  X(Opt)                                                                       \
  X(Run)                                                                       \
  X(Compile)                                                                   \
  X(Inspect)                                                                   \
  X(Profile)                                                                   \
  X(Check)

namespace kiln::tool {
#define KILN_DECLARE_COMMAND(Name) void add##Name##Command(CLI::App &, Runner &);
KILN_COMMANDS(KILN_DECLARE_COMMAND)
#undef KILN_DECLARE_COMMAND
} // namespace kiln::tool

namespace {
/// Driver messages that already carry a location and "error:" (parser and
/// verifier diagnostics) are printed as they are; others get the prefix.
void printError(std::string_view message) {
  std::string_view firstLine = message.substr(0, message.find('\n'));
  bool located = firstLine.find(": error: ") != std::string_view::npos;
  std::fprintf(stderr, "%s%.*s\n", located ? "" : "error: ",
               int(message.size()), message.data());
}

/// CLI11 reports an unknown subcommand as a missing one; name it instead.
bool checkCommandName(CLI::App &app, int argc, char **argv) {
  if (argc < 2 || argv[1][0] == '-')
    return true;
  std::string known;
  for (const CLI::App *command : app.get_subcommands({})) {
    if (command->get_name() == argv[1])
      return true;
    known += (known.empty() ? "" : ", ") + command->get_name();
  }
  std::fprintf(stderr, "error: unknown command '%s' (commands: %s)\n",
               argv[1], known.c_str());
  return false;
}

/// Flushes what the command printed; a write error on stdout (a full disk,
/// /dev/full, a closed pipe) fails the command like any other write.
int finishStdout() {
  std::cout.flush();
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || std::cout.fail()) {
    printError(std::string("cannot write to standard output: ") +
               std::strerror(errno ? errno : EIO));
    return 1;
  }
  return 0;
}

int runTool(int argc, char **argv) {
  kiln::import::routeProtobufLogs();
  CLI::App app{"kiln: an ahead-of-time compiler for tensor graphs. It reads "
               "TensorFlow GraphDefs (.pb, .pbtxt, .json), TensorFlow.js "
               "graph models (model.json), ONNX models (.onnx) and HLO text "
               "(.hlo), and compiles them to an object file, a C/C++ header "
               "and a JSON manifest for x86-64 and AArch64; it also runs, "
               "inspects and checks them on the host.",
               "kiln"};
  app.footer("Examples:\n"
             "  kiln compile model.pb --config model.config.pbtxt -o mnist\n"
             "  kiln run model.onnx --input x=x.npy --output-dir out\n"
             "  kiln check model.onnx --f64\n"
             "Run 'kiln <command> --help' for a command's flags; docs/cli.md "
             "has the details.");
  app.set_version_flag("--version", "kiln " KILN_VERSION_STRING
                                    " (LLVM " KILN_LLVM_VERSION_STRING ")");
  app.require_subcommand(1);
  kiln::tool::Runner runner;
#define KILN_ADD_COMMAND(Name) kiln::tool::add##Name##Command(app, runner);
  KILN_COMMANDS(KILN_ADD_COMMAND)
#undef KILN_ADD_COMMAND

  if (!checkCommandName(app, argc, argv))
    return 1;
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &success) {
    return app.exit(success); // --help, --version
  } catch (const CLI::ParseError &error) {
    printError(error.what());
    std::fprintf(stderr, "run 'kiln --help' or 'kiln <command> --help' for "
                         "usage\n");
    return 1;
  }
  if (!runner)
    return finishStdout();
  if (kiln::Error error = runner()) {
    printError(error.message());
    return 1;
  }
  return finishStdout();
}
} // namespace

int main(int argc, char **argv) {
  try {
    return runTool(argc, argv);
  } catch (const std::exception &exception) {
    printError(std::string("internal error: ") + exception.what());
  } catch (...) {
    printError("internal error: unknown exception");
  }
  return 1;
}
