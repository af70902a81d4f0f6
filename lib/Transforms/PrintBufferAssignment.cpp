//===- PrintBufferAssignment.cpp - Print where every value lives ----------===//
//
// An analysis pass: computes the buffer assignment code generation would
// use and prints it (arena offsets, live ranges, args, results, copies) so
// memory behaviour is testable as text with `kiln opt --passes=...`. The
// module is left unchanged.
//
//===----------------------------------------------------------------------===//
#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/Transforms/Passes.h"

#include <iostream>

namespace kiln {

namespace {
class PrintBufferAssignmentPass final : public Pass {
public:
  explicit PrintBufferAssignmentPass(std::ostream &out) : out_(out) {}
  std::string_view name() const override { return "print-buffer-assignment"; }
  Expected<bool> run(ir::Module &module) override {
    Expected<analysis::BufferAssignment> buffers =
        analysis::BufferAssignment::build(module);
    if (!buffers)
      return buffers.takeError();
    out_ << "// buffer assignment of module " << module.name() << "\n"
         << buffers->toString();
    out_.flush();
    return false;
  }

private:
  std::ostream &out_;
};
} // namespace

std::unique_ptr<Pass> createPrintBufferAssignmentPass() {
  return std::make_unique<PrintBufferAssignmentPass>(std::cout);
}

} // namespace kiln
