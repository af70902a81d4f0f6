//===- ParallelCodeGen.cpp - Machine code on several threads --------------===//
//
// The object must be one relocatable file and kiln has no linker, so the
// partitions cannot each become an object of their own. Instead:
//
//  1. The module's functions are dealt out to partitions by size (largest
//     first, each to the least loaded partition); how many partitions
//     depends on the module's size only (Partitions.h).
//  2. Each partition is cloned with the definitions of its functions only
//     (every other function and every global is a declaration) and
//     compiled to *assembly* in an LLVMContext and on a thread of its own:
//     instruction selection, scheduling and register allocation, where the
//     time goes, run in parallel.
//  3. The partitions' local labels (`.L...`: basic blocks, constant pools,
//     function ends) are numbered per module, so each partition's get a
//     prefix of their own; then the texts are joined in partition order.
//  4. The original module, with its function bodies removed, carries the
//     joined text as module-level inline assembly and is compiled once, on
//     this thread: the integrated assembler turns the text into code in the
//     same object, and the weights are emitted as data directly (as text
//     they would be megabytes of `.long` lines to parse).
//
// Every step depends on the module only, so the object is the same with 1
// thread or 64. Symbols keep their binding: a function that was internal
// is defined in the joined text without `.globl`, so it stays local, and
// the other partitions reach it by name within the one assembly.
//
//===----------------------------------------------------------------------===//
#include "kiln/Target/Target.h"

#include "Partitions.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <algorithm>
#include <map>
#include <vector>

namespace kiln::target {

namespace {

/// Partition index of every defined function: largest first, each to the
/// partition with the fewest instructions so far (ties to the lowest index).
std::map<const llvm::Function *, unsigned>
assignFunctions(const llvm::Module &module, unsigned count) {
  std::vector<const llvm::Function *> functions;
  for (const llvm::Function &function : module)
    if (!function.isDeclaration())
      functions.push_back(&function);
  std::stable_sort(functions.begin(), functions.end(),
                   [](const llvm::Function *a, const llvm::Function *b) {
                     return a->getInstructionCount() >
                            b->getInstructionCount();
                   });
  std::vector<uint64_t> load(count, 0);
  std::map<const llvm::Function *, unsigned> out;
  for (const llvm::Function *function : functions) {
    unsigned least = unsigned(std::min_element(load.begin(), load.end()) -
                              load.begin());
    load[least] += function->getInstructionCount() + 1;
    out[function] = least;
  }
  return out;
}

/// Private globals are printed with the local-label prefix (`.L`) where
/// they are defined but by their plain name where another partition
/// declares them; internal linkage gives them one name everywhere and the
/// same local binding.
void makePrivateGlobalsInternal(llvm::Module &module) {
  for (llvm::GlobalValue &value : module.global_values()) {
    if (!value.hasPrivateLinkage())
      continue;
    value.setLinkage(llvm::GlobalValue::InternalLinkage);
    if (!value.hasName())
      value.setName("kiln.private");
  }
}

/// Bitcode of the partition that defines the functions `assigned` to
/// `index`; everything else is declared. A declaration of a local symbol
/// stays dso_local, so code reaches it directly, not through the GOT/PLT.
std::string partitionBitcode(
    const llvm::Module &module, unsigned index,
    const std::map<const llvm::Function *, unsigned> &assigned) {
  llvm::ValueToValueMapTy map;
  std::unique_ptr<llvm::Module> part =
      llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
        auto *function = llvm::dyn_cast<llvm::Function>(value);
        return function && assigned.at(function) == index;
      });
  return toBitcode(*part);
}

bool isSymbolCharacter(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '.' || c == '$' || c == '@';
}

/// `text` with every local label `.Lx` renamed `.Lp<index>_x`, and the
/// `.file` directives (one per partition) removed.
std::string localizeLabels(llvm::StringRef text, unsigned index) {
  std::string prefix = ".Lp" + std::to_string(index) + "_";
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  llvm::SmallVector<llvm::StringRef, 0> lines;
  text.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (line.ltrim().starts_with(".file"))
      continue;
    for (size_t i = 0; i < line.size(); ++i) {
      bool label = line[i] == '.' && i + 1 < line.size() &&
                   line[i + 1] == 'L' &&
                   (i == 0 || !isSymbolCharacter(line[i - 1]));
      if (label) {
        out += prefix;
        ++i; // past the 'L'
      } else {
        out += line[i];
      }
    }
    out += '\n';
  }
  return out;
}

/// Compiles one partition to assembly in a context of its own.
Expected<std::string> partitionAssembly(const std::string &bitcode,
                                        const ResolvedTarget &target,
                                        unsigned index) {
  llvm::LLVMContext context;
  Expected<std::unique_ptr<llvm::Module>> part = fromBitcode(bitcode, context);
  if (!part)
    return part.takeError();
  auto machine = createTargetMachine(target);
  if (!machine)
    return machine.takeError();
  // Comments only lengthen the text the assembler parses again.
  (*machine)->Options.MCOptions.AsmVerbose = false;
  Expected<std::string> text =
      emitModule(**part, **machine, OutputKind::Assembly);
  if (!text)
    return text.takeError();
  return localizeLabels(*text, index);
}

/// Removes every function body from `module`; a function that a global's
/// initializer still refers to stays as a declaration (the joined assembly
/// defines it).
void dropFunctionBodies(llvm::Module &module) {
  for (llvm::Function &function : llvm::make_early_inc_range(module)) {
    if (function.isDeclaration())
      continue;
    function.deleteBody();
    if (function.use_empty())
      function.eraseFromParent();
  }
}

/// Turns errors the integrated assembler reports through the context into
/// an Error (the default handler would print and exit).
class AssemblerDiagnostics {
public:
  explicit AssemblerDiagnostics(llvm::LLVMContext &context)
      : context_(context),
        saved_(context.getDiagnosticHandlerCallBack()),
        savedContext_(context.getDiagnosticContext()) {
    context.setDiagnosticHandlerCallBack(&AssemblerDiagnostics::handle, this);
  }
  ~AssemblerDiagnostics() {
    context_.setDiagnosticHandlerCallBack(saved_, savedContext_);
  }
  Error error() const {
    if (messages_.empty())
      return Error::success();
    return makeError("internal error: the assembler rejected the code of the "
                     "parallel partitions: {}",
                     messages_);
  }

private:
  static void handle(const llvm::DiagnosticInfo *info, void *self) {
    if (info->getSeverity() != llvm::DS_Error)
      return;
    std::string text;
    llvm::raw_string_ostream stream(text);
    llvm::DiagnosticPrinterRawOStream printer(stream);
    info->print(printer);
    static_cast<AssemblerDiagnostics *>(self)->messages_ += text + "; ";
  }

  llvm::LLVMContext &context_;
  llvm::DiagnosticHandler::DiagnosticHandlerTy saved_;
  void *savedContext_;
  std::string messages_;
};

} // namespace

Expected<std::string> emitObjectInParallel(llvm::Module &module,
                                           llvm::TargetMachine &machine,
                                           const ResolvedTarget &target,
                                           unsigned threads,
                                           unsigned partitions) {
  unsigned count = partitions ? partitions : partitionCount(module);
  if (count == 1)
    return emitModule(module, machine, OutputKind::Object);

  module.setTargetTriple(machine.getTargetTriple().str());
  module.setDataLayout(machine.createDataLayout());
  makePrivateGlobalsInternal(module);
  std::map<const llvm::Function *, unsigned> assigned =
      assignFunctions(module, count);
  std::vector<std::string> bitcode;
  for (unsigned i = 0; i < count; ++i)
    bitcode.push_back(partitionBitcode(module, i, assigned));

  std::vector<std::unique_ptr<Expected<std::string>>> assembly(count);
  parallelFor(count, std::max(threads, 1u), [&](unsigned i) {
    assembly[i] = std::make_unique<Expected<std::string>>(
        partitionAssembly(bitcode[i], target, i));
  });
  std::string joined;
  for (std::unique_ptr<Expected<std::string>> &text : assembly) {
    if (!*text)
      return text->takeError();
    joined += **text;
  }

  dropFunctionBodies(module);
  module.setModuleInlineAsm(joined);
  AssemblerDiagnostics diagnostics(module.getContext());
  Expected<std::string> object =
      emitModule(module, machine, OutputKind::Object);
  if (Error error = diagnostics.error())
    return error;
  return object;
}

} // namespace kiln::target
