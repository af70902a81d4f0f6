//===- SectionPlacement.h - --weights-section and --arena-section -*- C++ -*-===//
//
// On a microcontroller the weights belong in flash and the arena in one of
// the part's RAM banks; the linker script decides both by section name.
// --weights-section puts every weight constant of the object (the const.*
// and packed.* globals) in the named section; --arena-section names the
// section the generated header's NAME_ARENA_ATTRIBUTES places the caller's
// arena in (the arena is the caller's memory, never in the object).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DRIVER_SECTIONPLACEMENT_H
#define KILN_LIB_DRIVER_SECTIONPLACEMENT_H

#include "kiln/Support/Error.h"

#include <string>
#include <string_view>

namespace llvm {
class Module;
} // namespace llvm

namespace kiln::driver {

/// `name`, given to `flag`, is a section name every object format of
/// `triple` and a C string literal accept: 1 to 64 characters of
/// [A-Za-z0-9_.$]. Mach-O names sections "segment,section" and is not a
/// bare-metal format, so there the flags are refused.
Error checkSectionName(std::string_view flag, const std::string &name,
                       const std::string &triple);

/// Moves every weight global of `module` to `section` (empty: leaves them
/// in the object format's read-only data, .rodata on ELF).
void placeWeights(llvm::Module &module, const std::string &section);

} // namespace kiln::driver

#endif // KILN_LIB_DRIVER_SECTIONPLACEMENT_H
