//===- PassRegistry.cpp - Creating passes by their registered name --------===//
//
// The registry is the table generated from Passes.def, so adding a pass is
// one line there plus its factory; nothing here changes.
//
//===----------------------------------------------------------------------===//
#include "kiln/Transforms/Pass.h"
#include "kiln/Transforms/Passes.h"

#include <fmt/format.h>

namespace kiln {

namespace {
struct PassEntry {
  std::string_view name;
  std::unique_ptr<Pass> (*factory)();
};

constexpr PassEntry kPassTable[] = {
#define KILN_PASS(Name, Factory) {Name, &Factory},
#include "kiln/Transforms/Passes.def"
};
} // namespace

std::vector<std::string_view> registeredPassNames() {
  std::vector<std::string_view> names;
  for (const PassEntry &entry : kPassTable)
    names.push_back(entry.name);
  return names;
}

Expected<std::unique_ptr<Pass>> createPass(std::string_view name) {
  for (const PassEntry &entry : kPassTable)
    if (entry.name == name)
      return entry.factory();
  return makeError("unknown pass '{}'; registered passes: {}", name,
                   fmt::join(registeredPassNames(), ", "));
}

} // namespace kiln
