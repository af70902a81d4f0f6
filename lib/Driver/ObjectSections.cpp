//===- ObjectSections.cpp - The emitted object's flash and RAM bytes ------===//
//
// Measured on the object's section headers, like `llvm-size`: the linker
// places sections, so what a linker script has to fit is their sizes.
//
//===----------------------------------------------------------------------===//
#include "PartBudget.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"

namespace kiln::driver {

namespace {

using llvm::object::SectionRef;

/// An ELF section by its flags; sections without SHF_ALLOC are not loaded.
void addElfSection(const SectionRef &section, ObjectFootprint &footprint) {
  llvm::object::ELFSectionRef elf(section);
  uint64_t flags = elf.getFlags();
  if (!(flags & llvm::ELF::SHF_ALLOC))
    return;
  int64_t bytes = int64_t(section.getSize());
  if (flags & llvm::ELF::SHF_EXECINSTR)
    footprint.codeBytes += bytes;
  else if (elf.getType() == llvm::ELF::SHT_NOBITS)
    footprint.zeroedDataBytes += bytes;
  else if (flags & llvm::ELF::SHF_WRITE)
    footprint.initializedDataBytes += bytes;
  else
    footprint.readOnlyBytes += bytes;
}

/// A Mach-O or COFF section: code, zero-filled, or (any other data) read-only.
void addOtherSection(const SectionRef &section, ObjectFootprint &footprint) {
  if (section.isDebugSection())
    return;
  int64_t bytes = int64_t(section.getSize());
  if (section.isText())
    footprint.codeBytes += bytes;
  else if (section.isBSS())
    footprint.zeroedDataBytes += bytes;
  else if (section.isData())
    footprint.readOnlyBytes += bytes;
}

} // namespace

Expected<ObjectFootprint> readObjectFootprint(std::string_view object) {
  llvm::MemoryBufferRef buffer(llvm::StringRef(object.data(), object.size()),
                               "object");
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> file =
      llvm::object::ObjectFile::createObjectFile(buffer);
  if (!file)
    return makeError("cannot read the emitted object: {}",
                     llvm::toString(file.takeError()));
  ObjectFootprint footprint;
  for (const SectionRef &section : (*file)->sections()) {
    if ((*file)->isELF())
      addElfSection(section, footprint);
    else
      addOtherSection(section, footprint);
  }
  return footprint;
}

} // namespace kiln::driver
