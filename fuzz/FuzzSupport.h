//===- FuzzSupport.h - What every kiln fuzz target shares -------*- C++ -*-===//
//
// The readers that take a path (TensorFlow, TF.js, tf2xla configs) are fed
// through files in a scratch directory private to the fuzzing process, so
// each input is read exactly as `kiln compile` would read it. The checks
// below turn a broken contract into a crash libFuzzer records: a failure
// must carry a message, and a successful import must verify.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_FUZZ_FUZZSUPPORT_H
#define KILN_FUZZ_FUZZSUPPORT_H

#include "kiln/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::fuzz {

/// The fuzz input as text (readers take bytes in a std::string).
inline std::string_view asText(const uint8_t *data, size_t size) {
  return {reinterpret_cast<const char *>(data), size};
}

/// A directory created on first use and removed when the process exits.
const std::string &scratchDir();

/// Writes `bytes` to scratchDir()/name, replacing it; returns the path.
std::string writeScratchFile(const std::string &name, std::string_view bytes);

/// Silences libprotobuf's own stderr logging: malformed inputs are expected
/// and kiln reports them itself.
void silenceProtobufLogs();

/// Aborts (a finding) when a failure carries no message. Some readers leave
/// the "error: " prefix to the driver, so only emptiness is checked here.
void requireDiagnostic(const std::string &message);

} // namespace kiln::fuzz

#endif // KILN_FUZZ_FUZZSUPPORT_H
