//===- Partitions.cpp - Splitting LLVM work over threads ------------------===//
#include "Partitions.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace kiln::target {

namespace {
constexpr uint64_t kInstructionsPerPartition = 4000;
/// More than the usual thread count, so that functions, dealt out by size,
/// balance across threads.
constexpr unsigned kMaxPartitions = 8;
} // namespace

unsigned partitionCount(const llvm::Module &module) {
  uint64_t instructions = 0;
  for (const llvm::Function &function : module)
    instructions += function.getInstructionCount();
  uint64_t wanted = instructions / kInstructionsPerPartition + 1;
  return unsigned(std::min<uint64_t>(wanted, kMaxPartitions));
}

void parallelFor(unsigned count, unsigned threads,
                 const std::function<void(unsigned)> &work) {
  std::atomic<unsigned> next{0};
  auto worker = [&] {
    for (unsigned i = next++; i < count; i = next++)
      work(i);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min(threads, count); ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread &thread : pool)
    thread.join();
}

std::string toBitcode(const llvm::Module &module) {
  std::string bytes;
  llvm::raw_string_ostream stream(bytes);
  llvm::WriteBitcodeToFile(module, stream);
  stream.flush();
  return bytes;
}

Expected<std::unique_ptr<llvm::Module>>
fromBitcode(const std::string &bytes, llvm::LLVMContext &context) {
  llvm::MemoryBufferRef buffer(bytes, "partition");
  auto module = llvm::parseBitcodeFile(buffer, context);
  if (!module)
    return makeError("internal error: cannot read back an LLVM partition: {}",
                     llvm::toString(module.takeError()));
  return std::move(*module);
}

} // namespace kiln::target
