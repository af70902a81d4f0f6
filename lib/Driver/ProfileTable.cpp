//===- ProfileTable.cpp - The table `kiln profile` prints -----------------===//
//
// The most expensive kernels first: a name short enough for a terminal
// (the root's instruction, cut to its end) with the number of source-model
// nodes the kernel computes, time per run, share of the run time
// (the whole entry call, so the shares of all kernels add up to a little
// under 100%: the rest is the clock reads between kernels), and what the
// kernel achieved against its static cost (CostAnalysis FLOPs and bytes).
// The kernels of loop bodies and branches are rows of their own, named
// after their while or conditional ("loop/body_dot"), with how often they
// ran per run.
//
//===----------------------------------------------------------------------===//
#include "kiln/Driver/Profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace kiln::driver {

namespace {

/// "12.34" GFLOP/s, or "-" for a kernel without arithmetic or time.
std::string gigaFlopsPerSecond(const KernelTime &kernel) {
  if (kernel.flops == 0 || kernel.seconds <= 0)
    return "-";
  return fmt::format("{:.2f}", double(kernel.flops) * double(kernel.calls) /
                                   kernel.seconds / 1e9);
}

std::string percent(double part, double whole) {
  return whole > 0 ? fmt::format("{:.1f}%", 100 * part / whole) : "-";
}

/// The widest kernel name the table prints: real models name instructions
/// after framework node paths of 100-280 characters, and a row must fit a
/// terminal. The trace keeps every name whole.
constexpr size_t kMaxNameWidth = 44;

/// `name` cut to kMaxNameWidth characters. The end is kept: a framework
/// path's last components say what the node is ("..._expand_relu_Relu6"),
/// its first ones only where it sits.
std::string shortName(const std::string &name) {
  if (name.size() <= kMaxNameWidth)
    return name;
  constexpr std::string_view ellipsis = "...";
  return std::string(ellipsis) +
         name.substr(name.size() - (kMaxNameWidth - ellipsis.size()));
}

/// How many source-model nodes a kernel computes: a fusion's whole list.
int64_t sourceCount(const KernelTime &kernel) {
  if (kernel.sources.empty())
    return 0;
  return 1 + std::count(kernel.sources.begin(), kernel.sources.end(), ',');
}

/// A kernel of a loop body or branch: named "caller/instruction" (HLO
/// names never hold '/').
bool isNested(const KernelTime &kernel) {
  return kernel.instruction.find('/') != std::string::npos;
}

} // namespace

std::string formatProfileTable(const ProfileReport &report, int64_t top) {
  double runs = double(std::max<int64_t>(report.runs, 1));
  std::vector<const KernelTime *> order;
  for (const KernelTime &kernel : report.kernels)
    order.push_back(&kernel);
  // Ties keep call order, so the table is stable for equal times.
  std::stable_sort(order.begin(), order.end(),
                   [](const KernelTime *a, const KernelTime *b) {
                     return a->seconds > b->seconds;
                   });
  size_t shown = std::min(order.size(), size_t(std::max<int64_t>(top, 0)));
  // A kernel inside a loop body or branch ("loop/body_dot") is timed
  // within its while's or conditional's kernel too: count it once.
  double kernelSeconds = 0;
  bool nested = false;
  for (const KernelTime *kernel : order) {
    if (isNested(*kernel))
      nested = true;
    else
      kernelSeconds += kernel->seconds;
  }

  std::string out =
      fmt::format("kiln profile: {}, {} runs, {:.3f} us per run (kernels {})\n",
                  report.model, report.runs, report.runSeconds / runs * 1e6,
                  percent(kernelSeconds, report.runSeconds));
  size_t nameWidth = 6;
  for (size_t i = 0; i < shown; ++i)
    nameWidth = std::max(nameWidth, shortName(order[i]->instruction).size());
  // With loops, how often each kernel ran per run (a body's kernels once
  // per iteration); FLOPs and bytes stay per call.
  std::string callsHeader = nested ? fmt::format(" {:>9}", "calls/run") : "";
  out += fmt::format("{:<{}}  {:<14} {:>5} {:>11} {:>6}{} {:>12} {:>11} {:>9}\n",
                     "kernel", nameWidth, "opcode", "nodes", "us per run",
                     "share", callsHeader, "FLOPs", "bytes", "GFLOP/s");
  for (size_t i = 0; i < shown; ++i) {
    const KernelTime &kernel = *order[i];
    std::string calls =
        nested ? fmt::format(" {:>9.4g}", double(kernel.calls) / runs) : "";
    out += fmt::format("{:<{}}  {:<14} {:>5} {:>11.3f} {:>6}{} {:>12} {:>11} "
                       "{:>9}\n",
                       shortName(kernel.instruction), nameWidth, kernel.opcode,
                       sourceCount(kernel), kernel.seconds / runs * 1e6,
                       percent(kernel.seconds, report.runSeconds), calls,
                       kernel.flops, kernel.bytes, gigaFlopsPerSecond(kernel));
  }
  if (shown < order.size()) {
    double rest = 0;
    for (size_t i = shown; i < order.size(); ++i)
      rest += order[i]->seconds;
    out += fmt::format("({} more kernels: {})\n", order.size() - shown,
                       percent(rest, report.runSeconds));
  }
  return out;
}

} // namespace kiln::driver
