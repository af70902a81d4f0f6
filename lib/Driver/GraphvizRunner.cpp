//===- GraphvizRunner.cpp - SVG from Graphviz text through `dot -Tsvg` ----===//
//
// kiln does not link Graphviz: it runs the `dot` program found on PATH,
// through temporary files so the SVG joins the caller's all-or-nothing set
// of output files.
//
//===----------------------------------------------------------------------===//
#include "Graphviz.h"

#include "kiln/Support/FileUtils.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

#include <fstream>
#include <optional>

namespace kiln::driver {

namespace {

/// A temporary file removed when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

Error createTemp(TempFile &file, const char *suffix) {
  if (std::error_code error = llvm::sys::fs::createTemporaryFile(
          "kiln-graphviz", suffix, file.path))
    return makeError("cannot create a temporary file for Graphviz: {}",
                     error.message());
  return Error::success();
}

std::string firstLine(const std::string &text) {
  return text.substr(0, text.find('\n'));
}

} // namespace

bool graphvizAvailable() {
  return static_cast<bool>(llvm::sys::findProgramByName("dot"));
}

Expected<std::string> renderSvg(const std::string &dot,
                                const std::string &what) {
  llvm::ErrorOr<std::string> program = llvm::sys::findProgramByName("dot");
  if (!program)
    return makeError("cannot draw {} as SVG: Graphviz's 'dot' is not on PATH",
                     what);
  TempFile input, output, errors;
  for (auto [file, suffix] : {std::pair{&input, "dot"}, {&output, "svg"},
                              {&errors, "txt"}})
    if (Error error = createTemp(*file, suffix))
      return error;
  {
    std::ofstream stream(input.path.str().str(), std::ios::binary);
    stream << dot;
    if (!stream)
      return makeError("cannot write the temporary file '{}'",
                       input.path.str().str());
  }
  llvm::SmallVector<llvm::StringRef, 5> args = {*program, "-Tsvg",
                                                input.path, "-o", output.path};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, std::nullopt,
                                                llvm::StringRef(errors.path)};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*program, args, std::nullopt,
                                         redirects, 0, 0, &message);
  if (status != 0) {
    Expected<std::string> said = readTextFile(errors.path.str().str());
    std::string detail = said ? firstLine(*said) : said.errorMessage();
    return makeError("'{} -Tsvg' failed on {} (exit status {}): {}", *program,
                     what, status, message.empty() ? detail : message);
  }
  return readTextFile(output.path.str().str());
}

} // namespace kiln::driver
