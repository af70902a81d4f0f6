//===- OptDriver.cpp - `kiln opt`: run named passes on HLO text -----------===//
#include "kiln/Driver/Driver.h"

#include "kiln/IR/Printer.h"
#include "kiln/Support/FileUtils.h"
#include "kiln/Transforms/Pass.h"

#include <algorithm>
#include <ostream>

namespace kiln::driver {

namespace {
/// Rejects --print-after names that are neither "all" nor a pass that runs,
/// since a typo there would otherwise silently print nothing.
Error checkPrintAfter(const OptOptions &options) {
  for (const std::string &name : options.printAfter) {
    if (name == "all")
      continue;
    if (std::find(options.passes.begin(), options.passes.end(), name) ==
        options.passes.end())
      return makeError("--print-after names pass '{}', which is not in "
                       "--passes ({})",
                       name, fmt::join(options.passes, ","));
  }
  return Error::success();
}

bool shouldPrintAfter(const OptOptions &options, std::string_view pass) {
  return std::any_of(options.printAfter.begin(), options.printAfter.end(),
                     [&](const std::string &name) {
                       return name == "all" || name == pass;
                     });
}
} // namespace

Error runOpt(const OptOptions &options, std::ostream &out, std::ostream &log) {
  if (Error error = checkPrintAfter(options))
    return error;
  // Build every pass before loading so a misspelt name fails fast.
  PassManager manager;
  for (const std::string &name : options.passes) {
    Expected<std::unique_ptr<Pass>> pass = createPass(name);
    if (!pass)
      return pass.takeError();
    manager.addPass(std::move(*pass));
  }
  if (!options.printAfter.empty())
    manager.setAfterPassHook(
        [&](std::string_view pass, const ir::Module &module, bool changed) {
          if (!shouldPrintAfter(options, pass))
            return;
          log << "// ----- IR after " << pass
              << (changed ? "" : " (unchanged)") << " ----- //\n"
              << ir::printModule(module);
        });

  Expected<std::unique_ptr<ir::Module>> module = loadModule(options.input);
  if (!module)
    return module.takeError();
  if (Error error = manager.run(**module))
    return error;

  std::string text = ir::printModule(**module);
  if (options.output.empty() || options.output == "-") {
    out << text;
    out.flush();
    return Error::success();
  }
  AtomicFileSet files;
  files.add(options.output, std::move(text));
  return files.commit();
}

} // namespace kiln::driver
