//===- ProgressLine.cpp - What a long compile is doing, on a terminal ----===//
#include "ProgressLine.h"

#include "kiln/Support/PhaseTimes.h"

#include <cstdio>
#include <unistd.h>

namespace kiln::tool {

ProgressLine::ProgressLine() : active_(isatty(STDERR_FILENO) == 1) {
  if (!active_)
    return;
  setPhaseListener([](const std::string &phase) {
    // \r: back to the line's start; ESC[K: erase what a longer phase left.
    std::fprintf(stderr, "\rkiln: %s...\033[K", phase.c_str());
    std::fflush(stderr);
  });
}

ProgressLine::~ProgressLine() {
  if (!active_)
    return;
  setPhaseListener({});
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

} // namespace kiln::tool
