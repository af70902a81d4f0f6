//===- Profile.h - `kiln profile`: per-kernel timings on the host -*- C++
//-*-===//
//
// Compiles a model for the host with --profile's counters, runs it through
// the JIT on seeded (or given) inputs, and reports where the time goes: a
// Chrome trace-event timeline (the JSON kiln/profile.h writes on a device)
// and a table of the most expensive kernels.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_PROFILE_H
#define KILN_DRIVER_PROFILE_H

#include "kiln/Import/Import.h"
#include "kiln/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::driver {

struct ProfileOptions {
  std::string model;
  import::ImportOptions import;    ///< --config, --shape
  std::vector<std::string> inputs; ///< "NAME=FILE.npy"; others are seeded
  uint64_t seed = 1;               ///< --seed for the generated inputs
  int64_t runs = 10;               ///< --runs: timed runs, after a warm-up
  int64_t top = 10;                ///< --top: rows of the table
  std::string tracePath;           ///< -o; empty: MODEL's stem.trace.json
  bool optimize = true;            ///< --no-opt turns it off
  bool fusion = true;              ///< --no-fusion turns it off
  bool winograd = true;            ///< --no-winograd turns it off
};

/// What one kernel took over all timed runs.
struct KernelTime {
  std::string instruction, opcode, sources;
  int64_t flops = 0, bytes = 0; ///< per call (CostAnalysis)
  uint64_t calls = 0;
  double seconds = 0; ///< all calls
};

struct ProfileReport {
  std::string model;     ///< the model file
  std::string tracePath; ///< the trace written
  int64_t runs = 0;
  double runSeconds = 0;           ///< all timed runs, entry to return
  std::vector<KernelTime> kernels; ///< in call order
};

/// `kiln profile`: writes the trace (all-or-nothing) and returns the timings.
Expected<ProfileReport> profileModel(const ProfileOptions &options);

/// The table `kiln profile` prints: the `top` kernels by time, with their
/// share of the run time, FLOPs and bytes per call and achieved GFLOP/s.
std::string formatProfileTable(const ProfileReport &report, int64_t top);

} // namespace kiln::driver

#endif // KILN_DRIVER_PROFILE_H
