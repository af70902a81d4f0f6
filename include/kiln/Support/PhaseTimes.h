//===- PhaseTimes.h - Wall and CPU time of named compile phases -*- C++ -*-===//
//
// `kiln compile --time-phases` reports where compile time goes. A phase is
// timed by a PhaseTimer scope; the list keeps phases in the order they
// first ran and adds up repeated ones. CPU time is the whole process's
// (every thread), so a phase that runs LLVM on several threads shows more
// CPU than wall seconds.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_PHASETIMES_H
#define KILN_SUPPORT_PHASETIMES_H

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace kiln {

struct PhaseTime {
  std::string name;
  double wallSeconds = 0;
  double cpuSeconds = 0;
};

class PhaseTimes {
public:
  /// Adds a measurement to phase `name` (appended the first time).
  void add(const std::string &name, double wallSeconds, double cpuSeconds);
  /// Appends every phase of `other` after this list's own.
  void append(const PhaseTimes &other);
  const std::vector<PhaseTime> &phases() const { return phases_; }
  /// An aligned table: phase, wall seconds, CPU seconds, share of the total
  /// wall time; then the total.
  std::string table() const;

private:
  std::vector<PhaseTime> phases_;
};

/// Times its own lifetime as phase `name` of `times`.
class PhaseTimer {
public:
  PhaseTimer(PhaseTimes &times, std::string name);
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer &) = delete;
  PhaseTimer &operator=(const PhaseTimer &) = delete;

private:
  PhaseTimes &times_;
  std::string name_;
  std::chrono::steady_clock::time_point wallStart_;
  double cpuStart_;
};

/// Called with a phase's name whenever a PhaseTimer starts one, for the
/// progress line of long compiles (tools/kiln/ProgressLine.cpp); an empty
/// function (the default) turns it off. Set it before any work starts.
void setPhaseListener(std::function<void(const std::string &)> listener);

/// CPU seconds used so far by every thread of the process.
double processCpuSeconds();

} // namespace kiln

#endif // KILN_SUPPORT_PHASETIMES_H
