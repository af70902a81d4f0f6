//===- ProgressLine.h - What a long compile is doing, on a terminal ------===//
//
// `kiln compile` on a large model takes seconds; when stderr is a terminal
// it shows one line naming the phase in progress (import, HLO passes, LLVM
// IR generation, LLVM optimization, machine code, writing), rewritten in
// place and erased when the command ends. Nothing is printed when stderr is
// a file or a pipe, so logs and tests see no difference.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_PROGRESSLINE_H
#define KILN_TOOLS_KILN_PROGRESSLINE_H

namespace kiln::tool {

/// Shows the line for every phase from now on, if stderr is a terminal.
/// The returned object erases it when destroyed (before any message the
/// command prints afterwards).
class ProgressLine {
public:
  ProgressLine();
  ~ProgressLine();
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;

private:
  bool active_ = false;
};

} // namespace kiln::tool

#endif // KILN_TOOLS_KILN_PROGRESSLINE_H
