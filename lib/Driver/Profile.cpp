//===- Profile.cpp - `kiln profile`: per-kernel timings through the JIT ---===//
//
// The model is compiled exactly as `kiln compile --profile` would compile it
// for the host, loaded into the JIT, and given a clock of our own
// (CLOCK_MONOTONIC nanoseconds) through NAME_profile_set_clock, so times are
// real time without calibrating a cycle counter. After one untimed warm-up
// run (first-touch page faults, cold caches) the counters are reset and each
// timed run is added to the trace with kiln/profile.h: the same code that
// writes a board's trace writes this one.
//
//===----------------------------------------------------------------------===//
#include "kiln/Driver/Profile.h"

#include "MemoryBudget.h"

#include "kiln/AOT/ModelInfo.h"
#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/CodeGen/CodeGen.h"
#include "kiln/Driver/Compile.h"
#include "kiln/Driver/Driver.h"
#include "kiln/Driver/Optimize.h"
#include "kiln/Support/Allocation.h"
#include "kiln/Support/FileUtils.h"
#include "kiln/Target/Jit.h"


#include <kiln/profile.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

namespace kiln::driver {

namespace {

constexpr uint64_t kNanosecondsPerSecond = 1'000'000'000;

/// The clock handed to the generated code: CLOCK_MONOTONIC on Linux.
uint64_t monotonicNanoseconds(void *) {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

/// Seeded values for an input the user did not give: uniform in [-1, 1)
/// for float32 and float64 (a 64-bit LCG, as the e2e drivers use), zeros
/// for every other dtype (valid indices, no NaN bit patterns). An error
/// when its memory cannot be allocated.
Expected<ir::Literal> seededLiteral(const std::string &name,
                                    const ir::Shape &shape, uint64_t &state) {
  Expected<ir::Literal> allocated =
      allocateLiteral(shape, fmt::format("the seeded input '{}'", name));
  if (!allocated)
    return allocated.takeError();
  ir::Literal &literal = *allocated;
  std::vector<uint8_t> &bytes = literal.bytes();
  ir::DType dtype = shape.dtype();
  if (dtype != ir::DType::F32 && dtype != ir::DType::F64)
    return literal;
  for (int64_t i = 0; i < shape.numElements(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double value = double(state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    if (dtype == ir::DType::F64) {
      std::memcpy(bytes.data() + 8 * i, &value, 8);
    } else {
      float single = float(value);
      std::memcpy(bytes.data() + 4 * i, &single, 4);
    }
  }
  return literal;
}

/// The given "NAME=FILE.npy" inputs, checked as `kiln run` checks them.
Expected<std::map<std::string, ir::Literal>>
givenInputs(const import::ImportedModel &model,
            const std::vector<std::string> &specs) {
  std::map<std::string, const ir::Instruction *> parameters;
  for (size_t i = 0; i < model.args.size(); ++i)
    parameters[model.args[i].name] =
        model.module->entry()->parameter(int64_t(i));
  std::vector<std::string> argNames;
  for (const import::ArgMetadata &arg : model.args)
    argNames.push_back(arg.name);
  std::map<std::string, ir::Literal> given;
  for (const std::string &spec : specs) {
    size_t equals = spec.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == spec.size())
      return makeError("--input expects NAME=FILE.npy, got '{}'", spec);
    std::string name = spec.substr(0, equals), file = spec.substr(equals + 1);
    auto parameter = parameters.find(name);
    if (parameter == parameters.end())
      return makeError("the model has no input named '{}' (its inputs: {})",
                       name, fmt::join(argNames, ", "));
    if (given.count(name))
      return makeError("--input '{}' is given more than once", name);
    Expected<NpyArray> array = readNpyFile(file);
    if (!array)
      return array.takeError();
    const ir::Shape &expected = parameter->second->shape();
    if (array->dtype != ir::numpyName(expected.dtype()) ||
        array->shape != expected.dims())
      return makeError(
          "input '{}' is {} but the model expects {} (file '{}')", name,
          describeArrayType(array->dtype, array->shape),
          describeArrayType(ir::numpyName(expected.dtype()), expected.dims()),
          file);
    Expected<ir::Literal> literal = literalFromNpy(*array);
    if (!literal)
      return literal.takeError();
    given.emplace(name, std::move(*literal));
  }
  return given;
}

/// One literal per entry parameter: given, else seeded.
Expected<std::vector<ir::Literal>>
profileInputs(const import::ImportedModel &model,
              const ProfileOptions &options) {
  auto given = givenInputs(model, options.inputs);
  if (!given)
    return given.takeError();
  uint64_t state = options.seed;
  std::vector<ir::Literal> args;
  for (size_t i = 0; i < model.args.size(); ++i) {
    auto found = given->find(model.args[i].name);
    const ir::Instruction *parameter =
        model.module->entry()->parameter(int64_t(i));
    if (parameter->shape().isTuple())
      return makeError("input '{}' has tuple type {}; kiln profile takes "
                       "array inputs only",
                       model.args[i].name, parameter->shape().toString());
    if (found != given->end()) {
      args.push_back(std::move(found->second));
      continue;
    }
    Expected<ir::Literal> seeded =
        seededLiteral(model.args[i].name, parameter->shape(), state);
    if (!seeded)
      return seeded.takeError();
    args.push_back(std::move(*seeded));
  }
  return args;
}

/// The model compiled with profiling counters and loaded into the JIT.
struct ProfiledModel {
  std::unique_ptr<target::Jit> jit;
  target::EntryFunction run = nullptr;
  const kiln_profile *profile = nullptr;
  int64_t arenaBytes = 0;
  std::vector<int64_t> resultBytes;
};

/// `name` (a C identifier) names the symbols, NAME_run and NAME_profile, and
/// the run events of the trace.
Expected<ProfiledModel> compileProfiled(const import::ImportedModel &model,
                                        const std::string &name,
                                        bool winograd) {
  std::vector<analysis::ArgWriteBack> writeBacks;
  for (const import::VariableUpdate &update : model.variableUpdates)
    writeBacks.push_back({int64_t(update.result), int64_t(update.arg)});
  auto buffers =
      analysis::BufferAssignment::build(*model.module, writeBacks, winograd);
  if (!buffers)
    return buffers.takeError();
  if (Error error = checkArenaSize(*buffers))
    return error;
  codegen::CodeGenOptions options;
  options.entryName = name + "_run";
  options.profile = true;
  options.winograd = winograd;
  auto jit = compileForHostJit(*model.module, *buffers, options);
  if (!jit)
    return jit.takeError();
  ProfiledModel profiled;
  auto run = (*jit)->lookup(options.entryName);
  auto profile = (*jit)->lookupAddress(name + "_profile");
  auto setClock = (*jit)->lookupAddress(name + "_profile_set_clock");
  if (!run)
    return run.takeError();
  if (!profile)
    return profile.takeError();
  if (!setClock)
    return setClock.takeError();
  profiled.run = *run;
  profiled.profile = reinterpret_cast<const kiln_profile *(*)()>(*profile)();
  reinterpret_cast<void (*)(kiln_profile_clock, void *)> (*setClock)(
      &monotonicNanoseconds, nullptr);
  profiled.arenaBytes = buffers->arenaBytes();
  for (int64_t i = 0; i < buffers->resultCount(); ++i)
    profiled.resultBytes.push_back(
        buffers->slice(buffers->resultValue(i)).bytes);
  profiled.jit = std::move(*jit);
  return profiled;
}

struct FreeDeleter {
  void operator()(void *pointer) const { std::free(pointer); }
};

/// Appends kiln/profile.h's trace text to a std::string.
void appendToString(void *ctx, const char *data, size_t size) {
  static_cast<std::string *>(ctx)->append(data, size);
}

/// Runs the model once untimed, then `runs` times into `trace`; returns
/// the report's timings (from the counters of all timed runs).
Expected<ProfileReport> timeRuns(ProfiledModel &model,
                                 std::vector<ir::Literal> &args, int64_t runs,
                                 std::string &trace) {
  std::vector<const void *> argPointers;
  for (ir::Literal &arg : args)
    argPointers.push_back(arg.bytes().data());
  std::vector<std::vector<uint8_t>> results;
  std::vector<void *> resultPointers;
  for (int64_t bytes : model.resultBytes) {
    Expected<std::vector<uint8_t>> result = allocateVector<uint8_t>(
        std::max<int64_t>(bytes, 1), fmt::format("result {}", results.size()));
    if (!result)
      return result.takeError();
    results.push_back(std::move(*result));
  }
  for (std::vector<uint8_t> &result : results)
    resultPointers.push_back(result.data());
  constexpr size_t align = analysis::BufferAssignment::kArenaAlignment;
  size_t arenaSize = (size_t(model.arenaBytes) + align) / align * align;
  std::unique_ptr<void, FreeDeleter> arena(
      std::aligned_alloc(align, arenaSize));
  if (!arena)
    return allocationError("the arena", model.arenaBytes);

  auto runOnce = [&]() -> Error {
    if (int status =
            model.run(argPointers.data(), resultPointers.data(), arena.get()))
      return makeError("the generated code returned status {}", status);
    return Error::success();
  };
  if (Error error = runOnce()) // warm-up, not timed
    return error;
  const kiln_profile *profile = model.profile;
  kiln_profile_reset(profile);
  kiln_trace writer;
  kiln_trace_begin(&writer, appendToString, &trace, kNanosecondsPerSecond);
  for (int64_t run = 0; run < runs; ++run) {
    if (Error error = runOnce())
      return error;
    kiln_trace_add_run(&writer, profile, uint64_t(run));
  }
  kiln_trace_end(&writer);

  ProfileReport report;
  report.runs = runs;
  report.runSeconds = double(profile->run->ticks) / kNanosecondsPerSecond;
  for (uint64_t i = 0; i < profile->num_kernels; ++i) {
    const kiln_profile_kernel &kernel = profile->kernels[i];
    report.kernels.push_back(
        {kernel.instruction, kernel.opcode, kernel.sources,
         int64_t(kernel.flops),
         int64_t(kernel.bytes_read + kernel.bytes_written),
         profile->counters[i].calls,
         double(profile->counters[i].ticks) / kNanosecondsPerSecond});
  }
  return report;
}

} // namespace

Expected<ProfileReport> profileModel(const ProfileOptions &options) {
  if (options.runs < 1)
    return makeError("--runs must be at least 1, got {}", options.runs);
  std::string stem = std::filesystem::path(options.model).stem().string();
  std::string tracePath =
      options.tracePath.empty() ? stem + ".trace.json" : options.tracePath;
  std::error_code ignored;
  if (std::filesystem::is_directory(tracePath, ignored))
    return makeError("cannot write '{}': it is a directory", tracePath);
  auto model =
      importWithInputShapes(options.model, options.import, options.inputs);
  if (!model)
    return model.takeError();
  if (Error error = checkDeclaredSizes(*model))
    return error;
  auto args = profileInputs(*model, options);
  if (!args)
    return args.takeError();
  auto optimized = optimizedCopy(*model, options.optimize, options.fusion);
  if (!optimized)
    return optimized.takeError();
  auto profiled = compileProfiled(*optimized, aot::toCIdentifier(stem),
                                  options.winograd);
  if (!profiled)
    return profiled.takeError();
  std::string trace;
  auto report = timeRuns(*profiled, *args, options.runs, trace);
  if (!report)
    return report.takeError();
  AtomicFileSet files;
  files.add(tracePath, std::move(trace));
  if (Error error = files.commit())
    return error;
  report->model = options.model;
  report->tracePath = tracePath;
  return report;
}

} // namespace kiln::driver
