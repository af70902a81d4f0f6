//===- CompileCommand.cpp - `kiln compile`: model -> object, header, manifest
//-===//
#include "Command.h"
#include "ProgressLine.h"

#include "kiln/Driver/Compile.h"
#include "kiln/Driver/Driver.h"

#include <cstdio>
#include <memory>

namespace kiln::tool {

namespace {
/// Weights and arena by section, and the part's flash and RAM
/// (docs/cli.md, "Bare metal").
void addBareMetalOptions(CLI::App &command, driver::CompileOptions &options) {
  command.add_option("--weights-section", options.weightsSection,
                     "Put the weights in this section (default: the read-only "
                     "data, .rodata on ELF), e.g. .flash_weights");
  command.add_option("--arena-section", options.arenaSection,
                     "Section the header's NAME_ARENA_ATTRIBUTES puts the "
                     "caller's arena in, e.g. .bss.sram2");
  command
      .add_option("--max-flash", options.maxFlashBytes,
                  "Fail unless code, read-only data and initial values fit "
                  "this many bytes of flash")
      ->check(byteCount());
  command
      .add_option("--max-ram", options.maxRamBytes,
                  "Fail unless arena, inputs, results and writable data fit "
                  "this many bytes of RAM")
      ->check(byteCount());
}
} // namespace

void addCompileCommand(CLI::App &app, Runner &runner) {
  auto options = std::make_shared<driver::CompileOptions>();
  auto emit = std::make_shared<std::string>();
  CLI::App *command = app.add_subcommand(
      "compile", "Compile a model ahead of time into PREFIX.o, PREFIX.h "
                 "(C and C++ API) and PREFIX.json (manifest)");
  command->footer("Examples:\n"
                  "  kiln compile model.pb --config model.config.pbtxt -o build/mnist\n"
                  "  kiln compile model.onnx --shape input=1,3,224,224 --target aarch64-linux-gnu --cpu cortex-a72\n"
                  "  kiln compile model.onnx --freeze shape=shape.npy --emit hlo,report");
  addModelArgument(*command, options->model);
  addImportOptions(*command, options->import);
  addArenaBudgetOption(*command);
  command->add_option("--target", options->triple,
                      "Target triple, e.g. x86_64-linux-gnu, "
                      "aarch64-linux-gnu, arm64-apple-ios, aarch64-none-elf, "
                      "armv7a-linux-gnueabihf, thumbv7em-none-eabihf, "
                      "riscv64-linux-gnu (default: the host)");
  command->add_option("--cpu", options->cpu,
                      "Target CPU, e.g. cortex-a72, skylake, cortex-m7, native "
                      "(default: the host CPU for the host; cortex-m4, "
                      "cortex-a7, generic-rv64, ... for the 32-bit ARM and "
                      "RISC-V triples (docs/cli.md); generic for other cross "
                      "targets)");
  command->add_option("--features", options->features,
                      "Target features to add or remove, e.g. +neon,-sve");
  command->add_option("--name", options->name,
                      "C identifier of the model: NAME_run, NAME_ARENA_SIZE, "
                      "... (default: the output file's stem)");
  command->add_option("--namespace", options->cppNamespace,
                      "C++ namespace of the generated class, e.g. a::b");
  command->add_option("-o,--output", options->outputPrefix,
                      "Output prefix: writes PREFIX.o, PREFIX.h, PREFIX.json "
                      "(default: the model's stem in the current directory)");
  command->add_option("--emit", *emit,
                      "Extra outputs, comma-separated: llvm (PREFIX.ll), asm "
                      "(PREFIX.s), hlo (PREFIX.hlo), report "
                      "(PREFIX.report.txt and PREFIX.report.json), dot "
                      "(PREFIX.import.dot and PREFIX.opt.dot, and .svg of "
                      "both when Graphviz's dot is on PATH)");
  command->add_flag("--fast-math", options->fastMath,
                    "Allow floating-point reassociation and contraction "
                    "(default: IEEE-faithful)");
  auto noOpt = std::make_shared<bool>(false);
  command->add_flag("--no-opt", *noOpt,
                    "Skip the optimization passes (docs/cli.md: pipeline)");
  addNoFusionFlag(*command, options->fusion);
  addNoWinogradFlag(*command, options->winograd);
  command->add_flag("--profile", options->profile,
                    "Add per-kernel time and call counters to the object, "
                    "read through NAME_profile() (docs/abi.md)");
  addBareMetalOptions(*command, *options);
  auto timePhases = std::make_shared<bool>(false);
  command->add_flag("--time-phases", *timePhases,
                    "Print the wall and CPU seconds of every compile phase "
                    "to stderr");
  command->add_option("--threads", options->threads,
                      "Threads for LLVM optimization and machine code "
                      "(default: the hardware threads, at most 8); the output "
                      "does not depend on it")
      ->check(CLI::Range(1u, 256u));
  // Hidden, for tests: large modules are split by size alone; this puts
  // small ones through the same path.
  command
      ->add_option("--codegen-partitions", options->codegenPartitions,
                   "Generate machine code in this many partitions")
      ->check(CLI::Range(1u, 64u))
      ->group("");
  command->callback([options, emit, noOpt, timePhases, &runner] {
    options->optimize = !*noOpt;
    runner = [options, emit, timePhases]() -> Error {
      options->emit = driver::splitList(*emit);
      auto result = [&] {
        ProgressLine progress; // erased before anything below is printed
        return driver::compileModel(*options);
      }();
      if (!result)
        return result.takeError();
      for (const std::string &warning : result->warnings)
        std::fprintf(stderr, "warning: %s\n", warning.c_str());
      for (const std::string &note : result->notes)
        std::fprintf(stderr, "note: %s\n", note.c_str());
      for (const std::string &file : result->files)
        std::printf("wrote %s\n", file.c_str());
      if (*timePhases)
        std::fprintf(stderr, "%s", result->phases.table().c_str());
      return Error::success();
    };
  });
}

} // namespace kiln::tool
