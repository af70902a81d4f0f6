//===- PhaseTimes.cpp - Wall and CPU time of named compile phases ---------===//
#include "kiln/Support/PhaseTimes.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

namespace kiln {

double processCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

void PhaseTimes::add(const std::string &name, double wallSeconds,
                     double cpuSeconds) {
  auto it = std::find_if(phases_.begin(), phases_.end(),
                         [&](const PhaseTime &p) { return p.name == name; });
  if (it == phases_.end())
    it = phases_.insert(phases_.end(), PhaseTime{name, 0, 0});
  it->wallSeconds += wallSeconds;
  it->cpuSeconds += cpuSeconds;
}

void PhaseTimes::append(const PhaseTimes &other) {
  for (const PhaseTime &phase : other.phases_)
    add(phase.name, phase.wallSeconds, phase.cpuSeconds);
}

std::string PhaseTimes::table() const {
  PhaseTime total{"total", 0, 0};
  size_t width = total.name.size();
  for (const PhaseTime &phase : phases_) {
    total.wallSeconds += phase.wallSeconds;
    total.cpuSeconds += phase.cpuSeconds;
    width = std::max(width, phase.name.size());
  }
  auto row = [&](const PhaseTime &phase) {
    double share =
        total.wallSeconds > 0 ? 100 * phase.wallSeconds / total.wallSeconds : 0;
    return fmt::format("{:<{}}  {:>8.3f}  {:>8.3f}  {:>5.1f}%\n", phase.name,
                       width, phase.wallSeconds, phase.cpuSeconds, share);
  };
  std::string out = fmt::format("{:<{}}  {:>8}  {:>8}  {:>6}\n", "phase", width,
                                "wall s", "cpu s", "share");
  for (const PhaseTime &phase : phases_)
    out += row(phase);
  return out + row(total);
}

namespace {
std::function<void(const std::string &)> &phaseListener() {
  static std::function<void(const std::string &)> listener;
  return listener;
}
} // namespace

void setPhaseListener(std::function<void(const std::string &)> listener) {
  phaseListener() = std::move(listener);
}

PhaseTimer::PhaseTimer(PhaseTimes &times, std::string name)
    : times_(times), name_(std::move(name)),
      wallStart_(std::chrono::steady_clock::now()),
      cpuStart_(processCpuSeconds()) {
  if (phaseListener())
    phaseListener()(name_);
}

PhaseTimer::~PhaseTimer() {
  std::chrono::duration<double> wall =
      std::chrono::steady_clock::now() - wallStart_;
  times_.add(name_, wall.count(), processCpuSeconds() - cpuStart_);
}

} // namespace kiln
