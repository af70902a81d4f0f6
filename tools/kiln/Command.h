//===- Command.h - What every kiln subcommand file provides -----*- C++ -*-===//
//
// Each <Name>Command.cpp defines add<Name>Command(app, runner): it adds its
// subcommand and flags to `app` and, when that subcommand is selected, sets
// `runner` to a call into lib/Driver. main.cpp lists the subcommands.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_COMMAND_H
#define KILN_TOOLS_KILN_COMMAND_H

#include "kiln/Support/Error.h"

#include <CLI/CLI.hpp>
#include <functional>

namespace kiln::tool {

/// The selected subcommand's work, run after parsing succeeds.
using Runner = std::function<Error()>;

} // namespace kiln::tool

#endif // KILN_TOOLS_KILN_COMMAND_H
