//===- SectionPlacement.cpp - --weights-section and --arena-section -------===//
#include "SectionPlacement.h"
#include "Report.h"

#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>

namespace kiln::driver {

namespace {
constexpr size_t kMaxSectionName = 64;

bool isSectionCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$';
}
} // namespace

Error checkSectionName(std::string_view flag, const std::string &name,
                       const std::string &triple) {
  if (name.empty())
    return Error::success();
  if (llvm::Triple(triple).isOSBinFormatMachO())
    return makeError("{} is for ELF and COFF targets; '{}' writes Mach-O, "
                     "whose sections are placed by segment",
                     flag, triple);
  if (name.size() > kMaxSectionName ||
      !std::all_of(name.begin(), name.end(), isSectionCharacter))
    return makeError("invalid {} '{}': expected 1 to {} characters of "
                     "[A-Za-z0-9_.$], as in {} .flash_weights",
                     flag, name, kMaxSectionName, flag);
  return Error::success();
}

void placeWeights(llvm::Module &module, const std::string &section) {
  if (section.empty())
    return;
  for (llvm::GlobalVariable &global : module.globals())
    if (global.isConstant() && isWeightSymbol(global.getName()))
      global.setSection(section);
}

} // namespace kiln::driver
