//===- ObjectSymbols.cpp - Symbol sizes of the emitted object -------------===//
//
// The size report measures the object kiln writes, not an estimate from
// the IR: what the linker gets is what `nm --size-sort` shows.
//
//===----------------------------------------------------------------------===//
#include "Report.h"

#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <map>

namespace kiln::driver {

namespace {

using llvm::object::ObjectFile;
using llvm::object::SymbolRef;

/// A defined function or data symbol before its size is known.
struct Placed {
  std::string name;
  bool isFunction = false;
  uint64_t address = 0;
  int64_t elfSize = -1; ///< st_size on ELF; -1 elsewhere
  llvm::object::SectionRef section;
};

Expected<std::optional<Placed>> placedSymbol(const ObjectFile &file,
                                             const SymbolRef &symbol) {
  auto fail = [](llvm::Error error) {
    return makeError("cannot read the emitted object's symbols: {}",
                     llvm::toString(std::move(error)));
  };
  llvm::Expected<SymbolRef::Type> type = symbol.getType();
  if (!type)
    return fail(type.takeError());
  if (*type != SymbolRef::ST_Function && *type != SymbolRef::ST_Data)
    return std::optional<Placed>();
  llvm::Expected<llvm::object::section_iterator> section = symbol.getSection();
  if (!section)
    return fail(section.takeError());
  if (*section == file.section_end())
    return std::optional<Placed>(); // undefined or absolute
  llvm::Expected<llvm::StringRef> name = symbol.getName();
  if (!name)
    return fail(name.takeError());
  llvm::Expected<uint64_t> address = symbol.getAddress();
  if (!address)
    return fail(address.takeError());
  Placed placed;
  placed.name = name->str();
  // Mach-O spells C names with a leading underscore.
  if (file.isMachO() && !placed.name.empty() && placed.name[0] == '_')
    placed.name.erase(0, 1);
  placed.isFunction = *type == SymbolRef::ST_Function;
  placed.address = *address;
  placed.section = **section;
  if (file.isELF())
    placed.elfSize = int64_t(llvm::object::ELFSymbolRef(symbol).getSize());
  return std::optional<Placed>(std::move(placed));
}

/// Formats without symbol sizes (Mach-O): a symbol reaches the next one of
/// its section, or the section's end.
void sizeByDistance(std::vector<Placed> &placed,
                    std::vector<ObjectSymbol> &out) {
  std::stable_sort(placed.begin(), placed.end(),
                   [](const Placed &a, const Placed &b) {
                     return a.address < b.address;
                   });
  for (size_t i = 0; i < placed.size(); ++i) {
    uint64_t end = placed[i].section.getAddress() + placed[i].section.getSize();
    for (size_t j = i + 1; j < placed.size(); ++j)
      if (placed[j].section == placed[i].section &&
          placed[j].address > placed[i].address) {
        end = placed[j].address;
        break;
      }
    out.push_back({placed[i].name, int64_t(end - placed[i].address),
                   placed[i].isFunction});
  }
}

/// The emitted object, parsed (it refers to `object`'s bytes).
Expected<std::unique_ptr<ObjectFile>> openObject(std::string_view object) {
  llvm::MemoryBufferRef buffer(llvm::StringRef(object.data(), object.size()),
                               "object");
  llvm::Expected<std::unique_ptr<ObjectFile>> file =
      ObjectFile::createObjectFile(buffer);
  if (!file)
    return makeError("cannot read the emitted object: {}",
                     llvm::toString(file.takeError()));
  return std::move(*file);
}

} // namespace

Expected<std::vector<ObjectSymbol>> readObjectSymbols(std::string_view object) {
  Expected<std::unique_ptr<ObjectFile>> file = openObject(object);
  if (!file)
    return file.takeError();
  std::vector<Placed> placed;
  for (const SymbolRef &symbol : (*file)->symbols()) {
    Expected<std::optional<Placed>> one = placedSymbol(**file, symbol);
    if (!one)
      return one.takeError();
    if (*one)
      placed.push_back(std::move(**one));
  }
  std::vector<ObjectSymbol> symbols;
  if ((*file)->isELF()) {
    for (const Placed &symbol : placed)
      symbols.push_back({symbol.name, symbol.elfSize, symbol.isFunction});
  } else {
    sizeByDistance(placed, symbols);
  }
  std::sort(symbols.begin(), symbols.end(),
            [](const ObjectSymbol &a, const ObjectSymbol &b) {
              return a.name < b.name;
            });
  return symbols;
}

Expected<std::vector<std::string>>
readUndefinedSymbols(std::string_view object) {
  Expected<std::unique_ptr<ObjectFile>> file = openObject(object);
  if (!file)
    return file.takeError();
  std::vector<std::string> names;
  for (const SymbolRef &symbol : (*file)->symbols()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    if (!flags || !name)
      return makeError(
          "cannot read the emitted object's symbols: {}",
          llvm::toString(flags ? name.takeError() : flags.takeError()));
    if (!(*flags & SymbolRef::SF_Undefined) || name->empty())
      continue;
    std::string text = name->str();
    if ((*file)->isMachO() && text[0] == '_')
      text.erase(0, 1);
    names.push_back(std::move(text));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

} // namespace kiln::driver
