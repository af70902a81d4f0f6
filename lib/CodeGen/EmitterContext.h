//===- EmitterContext.h - What every per-opcode emitter works with -*- C++ -*-===//
//
// Internal interface of lib/CodeGen. emitModule() builds one EmitterContext
// for the entry function and emits the scheduled instructions one by one,
// dispatching each opcode to an `OpEmitter` (lookupEmitter: emitElemental
// for the opcodes Opcodes.def marks Generated, else the Emitters.def row). An emitter reads its operands and writes its result through
// the context only, so the same emitter works at the top level (operands
// live in buffers) and inside a fusion (operands may be computed on the fly
// from the fused computation).
//
// Value representation inside generated code ("compute values"):
//   pred      -> i1            (stored as one byte 0/1)
//   sN / uN   -> iN            (signedness is a property of the opcode)
//   f16, bf16 -> float         (stored as raw i16 bits; converted in IR with
//                               round-to-nearest-even, no libcalls)
//   f32 / f64 -> float/double
// Scalars and fixed vectors <N x T> share one representation: every helper
// taking a compute value accepts either.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_EMITTERCONTEXT_H
#define KILN_LIB_CODEGEN_EMITTERCONTEXT_H

#include "kiln/Analysis/BufferAssignment.h"
#include "kiln/CodeGen/CodeGen.h"
#include "kiln/CodeGen/TargetInfo.h"
#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <map>
#include <tuple>
#include <vector>

namespace kiln::codegen {

namespace kernels {
struct TaskPair;
} // namespace kernels

/// A materialized array: where it starts, what it holds, and the alignment
/// loads and stores may claim (element size for caller buffers, 64 for the
/// arena and constants).
struct BufferRef {
  llvm::Value *address = nullptr; // ptr (opaque)
  ir::DType dtype = ir::DType::F32;
  std::vector<int64_t> dims;
  uint64_t align = 1;
  /// A value computed in its part of a concatenate's buffer: linear element
  /// i is at (i / rowLength) * rowStride + i % rowLength. 0: contiguous.
  int64_t rowLength = 0;
  int64_t rowStride = 0;
  int64_t numElements() const;
  bool strided() const { return rowLength != 0; }
};

/// Where an element is: the multi-dimensional index (i64 values, one per
/// dimension of the shape being produced) and its row-major linear index.
/// `lanes` > 1 means a vector of consecutive elements starting at `linear`.
/// With `indices` empty only linear-index-preserving generators apply; with
/// `indices` set, the lanes run along the innermost dimension from
/// indices.back() (a row run: see rowVectorizable in Emitters.h).
/// A run-time range [begin, end) of an output loop's units (i64 values):
/// the part of a loop one call of a split kernel computes (Parallel.h).
struct UnitRange {
  llvm::Value *begin = nullptr, *end = nullptr;
};

struct ElementIndex {
  std::vector<llvm::Value *> indices;
  llvm::Value *linear = nullptr;
  unsigned lanes = 1;
};

class EmitterContext {
public:
  EmitterContext(llvm::Module &module, llvm::IRBuilder<> &builder,
                 const analysis::BufferAssignment &buffers,
                 const CodeGenOptions &options, const TargetInfo &target);

  llvm::IRBuilder<> &builder() { return builder_; }
  /// The arena pointer of the function being emitted (set by
  /// beginFunction).
  llvm::Value *arena() const { return arena_; }
  llvm::Module &module() { return module_; }
  llvm::LLVMContext &context() { return module_.getContext(); }
  const CodeGenOptions &options() const { return options_; }
  const analysis::BufferAssignment &buffers() const { return buffers_; }

  /// What the kernels choose from: vector width, registers, FMA, caches.
  const TargetInfo &target() const { return target_; }
  /// Widest vector register of the target in bits (512 avx512f, 256 avx,
  /// 128 SSE/NEON) and how many elements of `dtype`'s compute type fit.
  unsigned vectorBits() const { return target_.vectorBits; }
  /// The alignment of a pointer in an array of pointers (args, results,
  /// task frames): 8 bytes on 64-bit targets, 4 on 32-bit ARM.
  llvm::Align pointerAlign() const {
    return module_.getDataLayout().getPointerABIAlignment(0);
  }
  /// Whether llvm.floor/ceil/trunc/roundeven are single instructions on the
  /// target (AArch64, x86 with SSE4.1); otherwise they would be libm calls
  /// and the math emitter rounds with integer-free float tricks instead.
  bool nativeRounding() const { return target_.nativeRounding; }
  /// Whether f32 transcendentals are computed in f32 only (MathSingle.cpp)
  /// rather than in f64 and rounded once: on targets without a
  /// double-precision FPU, where every f64 operation is a library call.
  bool singlePrecisionMath() const { return !target_.doubleFpu; }
  /// Whether the target has a fused multiply-add instruction (AArch64, x86
  /// with FMA3). Dot and convolution then accumulate with llvm.fma: the
  /// product is exact and each step rounds once, which is faster and more
  /// accurate; without it they multiply and add (two roundings), because a
  /// libm fma call per step would be far slower.
  /// `type` is the accumulator's (scalar or vector) type: single-precision
  /// FPUs fuse f32 only.
  bool fusedMultiplyAdd(const llvm::Type *type) const {
    return type->getScalarType()->isDoubleTy() ? target_.fmaDouble
                                               : target_.fma;
  }
  unsigned vectorLanes(ir::DType dtype) const;
  /// Bits of one lane of dtype's compute type when vectorized.
  static int64_t computeTypeBits(ir::DType dtype);

  /// Storage type of one element in memory (pred -> i8, f16/bf16 -> i16).
  llvm::Type *storageType(ir::DType dtype);
  /// Type computations use (pred -> i1, f16/bf16 -> float).
  llvm::Type *computeType(ir::DType dtype);
  /// computeType, or <lanes x computeType> when lanes > 1.
  llvm::Type *computeType(ir::DType dtype, unsigned lanes);
  llvm::Value *i64(int64_t value) { return builder_.getInt64(uint64_t(value)); }

  // --- Buffers ------------------------------------------------------------
  /// Called by emitModule before emitting into `function`, whose first
  /// three arguments are the entry's (args, results, arena). Buffer
  /// pointers are loaded on first use into `prologue`, a block without
  /// terminator that every other block of the function follows, so each
  /// load dominates its uses and a function loads only what it touches.
  /// Forgets the pointers loaded for the previous function.
  void beginFunction(llvm::Function &function, llvm::BasicBlock &prologue);
  /// What beginFunction sets, saved so an emitter can emit a function of
  /// its own (a split kernel's, Parallel.h) in the middle of another and
  /// then continue the first.
  struct FunctionState {
    llvm::Value *args = nullptr, *results = nullptr, *arena = nullptr;
    llvm::Value *pool = nullptr;
    llvm::BasicBlock *prologue = nullptr;
    std::map<int64_t, llvm::Value *> argPointers, resultPointers;
  };
  FunctionState saveFunction() const;
  /// Back to `state`; forgets the values generated since.
  void restoreFunction(FunctionState state);
  /// Whether `value` has memory of its own (top-level values, fusion
  /// parameters, values materialized inside a fusion).
  bool isMaterialized(analysis::ValueRef value) const;
  /// The instruction whose value `value` is: itself, or for a fusion
  /// parameter the fusion's operand (and through get-tuple-element).
  const ir::Instruction &underlying(const ir::Instruction &value) const {
    return *resolve({&value, -1}).instruction;
  }
  /// Typed view of the memory holding `value` (resolving get-tuple-element
  /// and fusion parameters). Precondition: isMaterialized(value).
  BufferRef buffer(analysis::ValueRef value);
  /// Typed pointer (opaque `ptr`) into args/results/arena/constant global.
  llvm::Value *bufferAddress(analysis::ValueRef value) {
    return buffer(value).address;
  }
  /// The buffer an instruction writes its result into (element
  /// `tupleIndex` for tuple-shaped results such as sort and top-k).
  BufferRef outputBuffer(const ir::Instruction &instruction,
                         int64_t tupleIndex = -1);
  /// The arena bytes buffer assignment reserved for packing `dot`'s rhs at
  /// run time (an address in the entry function), or nullptr.
  llvm::Value *packingScratch(const ir::Instruction &dot);
  /// The caller's result buffer `i` (typed like BufferAssignment's result).
  BufferRef resultBuffer(int64_t i);
  /// Address of element `linear` of `buffer`.
  llvm::Value *elementPointer(const BufferRef &buffer, llvm::Value *linear);

  /// Loads/stores element `linearIndex` as a compute value; with lanes > 1,
  /// `lanes` consecutive elements as a vector.
  llvm::Value *loadElement(const BufferRef &buffer, llvm::Value *linearIndex,
                           unsigned lanes = 1);
  void storeElement(const BufferRef &buffer, llvm::Value *linearIndex,
                    llvm::Value *value);
  /// Storage <-> compute conversions (f16/bf16 rounding, pred bytes).
  llvm::Value *toCompute(ir::DType dtype, llvm::Value *stored);
  llvm::Value *toStorage(ir::DType dtype, llvm::Value *computed);

  // --- Element access that works at top level and inside fusions ---------
  /// The element of `value` at `index` (index into value's own shape):
  /// loaded from its buffer when materialized, otherwise generated from the
  /// fused computation that defines it.
  Expected<llvm::Value *> elementOf(const ir::Instruction &value,
                                    const ElementIndex &index);
  /// index.linear, or the linear index of index.indices in `dims`.
  llvm::Value *linearOf(const ElementIndex &index, llvm::ArrayRef<int64_t> dims);
  /// A single-element constant as an immediate compute value.
  llvm::Value *scalarConstant(const ir::Instruction &constant);
  /// Broadcasts a scalar to `lanes` lanes (identity for lanes == 1).
  llvm::Value *splat(llvm::Value *value, unsigned lanes);
  /// elementOf(instruction.operand(operand), index).
  Expected<llvm::Value *> operandElement(const ir::Instruction &instruction,
                                         size_t operand,
                                         llvm::ArrayRef<llvm::Value *> indices);
  /// The buffer of an operand when it is materialized (nullopt inside a
  /// fusion when the operand is computed on the fly: use operandElement).
  std::optional<BufferRef> operandBuffer(const ir::Instruction &instruction,
                                         size_t operand);

  // --- Loops and indices ---------------------------------------------------
  using LoopBody = llvm::function_ref<Error(llvm::ArrayRef<llvm::Value *>)>;
  /// One counted loop over the run-time range [begin, end) by `step`
  /// (guarded: emits no iteration when the range is empty). Static bounds
  /// give the unguarded loop above.
  Error emitLoop(llvm::Value *begin, llvm::Value *end, int64_t step,
                 llvm::function_ref<Error(llvm::Value *)> body,
                 llvm::StringRef name = "i");
  /// Emits counted loops over `dims` (outermost first, static trip counts)
  /// and calls `body` with the i64 induction variables; the builder is left
  /// after the nest. A zero-sized dimension emits no iteration.
  Error emitLoopNest(llvm::ArrayRef<int64_t> dims, LoopBody body,
                     llvm::StringRef name = "i");
  /// One counted loop over [begin, end) by `step`; body gets the induction
  /// value. Emits nothing when the range is empty.
  Error emitLoop(int64_t begin, int64_t end, int64_t step,
                 llvm::function_ref<Error(llvm::Value *)> body,
                 llvm::StringRef name = "i");
  /// Row-major linear index of `indices` in `dims`.
  llvm::Value *linearIndex(llvm::ArrayRef<llvm::Value *> indices,
                           llvm::ArrayRef<int64_t> dims);
  /// Inverse of linearIndex. dims[0] <= 0: the outermost extent is not
  /// known (the index there is not bounded by it). On 32-bit targets the
  /// divisions are 32-bit when the product of dims allows (LoopEmitter.cpp).
  std::vector<llvm::Value *> delinearize(llvm::Value *linear,
                                         llvm::ArrayRef<int64_t> dims);

  /// The units a split output loop (Parallel.h) is cut into. The linear
  /// (vectorizable) element loop: blocks of kLinearUnit elements.
  static constexpr int64_t kLinearUnit = 1024; // a multiple of any lanes
  static int64_t linearUnits(int64_t elements);
  /// Loops element by element (emitRowsLoop): rows, that is every
  /// dimension but the innermost; the elements of a rank-1 array; 1 for a
  /// scalar.
  static int64_t rowUnits(llvm::ArrayRef<int64_t> dims);

  /// Fills `output` (an array of `dims`) with generator(index) for every
  /// element; vectorized with a scalar tail when `vectorizable`. With
  /// `units`, only the elements of those units (linearUnits when
  /// vectorizable, else rowUnits), each with
  /// the instructions the whole loop would use for it.
  Error emitElementLoop(
      const BufferRef &output, bool vectorizable,
      llvm::function_ref<Expected<llvm::Value *>(const ElementIndex &)>
          generator,
      const UnitRange *units = nullptr);
  /// Like emitElementLoop, vectorized along the innermost dimension only:
  /// a loop nest over the outer dimensions, then row runs of vector width
  /// with a scalar tail. For generators that need the multi-dimensional
  /// index (a bias broadcast over NHWC) but read rows contiguously.
  /// `lanes`: the vector width of the runs (rows narrower than the
  /// target's vectors use narrower vectors; see rowLanes).
  /// With `units`, only those rows.
  Error
  emitRowLoop(const BufferRef &output, unsigned lanes,
              llvm::function_ref<Expected<llvm::Value *>(const ElementIndex &)>
                  generator,
              const UnitRange *units = nullptr);
  /// One row of `row` elements in runs: run(j, lanes) for j = 0, lanes,
  /// ... while a whole vector fits, then run(j, 1) for the tail.
  Error emitRowRuns(int64_t row, unsigned lanes,
                    llvm::function_ref<Error(llvm::Value *, unsigned)> run);
  /// Calls `body` with the index of every element of the units `units`
  /// (rowUnits) of an array of `dims` (rank >= 1): a loop over the rows,
  /// each delinearized into the outer indices, around a loop over the row;
  /// for rank 1, one loop over the elements.
  Error emitRowsLoop(llvm::ArrayRef<int64_t> dims, const UnitRange &units,
                     LoopBody body, llvm::StringRef name = "i");
  /// The widest power-of-two vector of `output`'s dtype that fits its
  /// innermost dimension and the target's registers (1: too narrow).
  unsigned rowLanes(const BufferRef &output) const;

  // --- Fusion support (used by the fusion emitter) --------------------------
  /// While emitting a fused computation: inner parameter -> the fusion's
  /// operand, and inner root -> the fusion's own output.
  void bindFusion(const ir::Instruction &fusion);
  void unbindFusion(const ir::Instruction &fusion);

  // --- Kernels (lib/CodeGen/Kernels) ---------------------------------------
  /// While a kernel applies a fusion's epilogue to accumulators in
  /// registers: elementOf(value) returns `replacement` (a compute value of
  /// the lanes being produced) instead of loading or generating it.
  /// Forgets the generated values (at the start of every generated loop).
  void clearGenerated() { generated_.clear(); }
  void setOverride(const ir::Instruction &value, llvm::Value *replacement) {
    overrides_[&value] = replacement;
    generated_.clear();
  }
  /// Drops the override of `value` (an applied computation's instruction).
  void clearOverride(const ir::Instruction &value) {
    overrides_.erase(&value);
    generated_.clear();
  }
  void clearOverrides() {
    overrides_.clear();
    generated_.clear();
  }
  /// Kernel functions by structural key, so layers of the same shape and
  /// epilogue share one function; packed weights by constant and layout.
  std::map<std::string, llvm::Function *> &kernelFunctions() {
    return kernelFunctions_;
  }
  std::map<std::string, llvm::GlobalVariable *> &packedWeights() {
    return packedWeights_;
  }
  /// Counts bytes of constant data emitted outside constantGlobal.
  void addWeightsBytes(int64_t bytes) { weightsBytes_ += bytes; }
  /// The tile choices of every kernel, for the manifest and report.
  std::vector<KernelRecord> &kernelRecords() { return kernelRecords_; }
  /// The entry function (kernels copy its target attributes).
  llvm::Function *entryFunction() const { return entry_; }
  void setEntryFunction(llvm::Function *entry) { entry_ = entry; }
  /// The `const kiln_parallel *` argument of the function being emitted
  /// (null at run time from NAME_run), or nullptr when it has none: split
  /// kernels then always run serially (Parallel.h).
  llvm::Value *parallelPool() const { return pool_; }
  void setParallelPool(llvm::Value *pool) { pool_ = pool; }
  /// The depthwise/pointwise pair being emitted as one job, or null
  /// (Kernels/TaskPair.h).
  kernels::TaskPair *taskPair() const { return taskPair_; }
  void setTaskPair(kernels::TaskPair *pair) { taskPair_ = pair; }

  /// Constant globals, created on first use (private, unnamed_addr, 64-byte
  /// aligned); the total bytes are reported as weightsBytes.
  llvm::GlobalVariable *constantGlobal(const ir::Instruction &constant);
  int64_t weightsBytes() const { return weightsBytes_; }

  /// Error naming the instruction, for opcode/dtype pairs not lowered.
  static Error unsupported(const ir::Instruction &instruction,
                           std::string_view what = {});

private:
  analysis::ValueRef resolve(analysis::ValueRef value) const;
  /// The caller's pointer `index` of the array `array` (args or results),
  /// loaded once per function in its prologue.
  llvm::Value *bufferPointer(std::map<int64_t, llvm::Value *> &cache,
                             llvm::Value *array, int64_t index,
                             const std::string &name);

  llvm::Module &module_;
  llvm::IRBuilder<> &builder_;
  const analysis::BufferAssignment &buffers_;
  const CodeGenOptions &options_;
  const TargetInfo &target_;
  // The function being emitted: its pointer arguments, its prologue and
  // the buffer pointers loaded there (valid in this function only).
  llvm::Value *args_ = nullptr, *results_ = nullptr, *arena_ = nullptr;
  llvm::BasicBlock *prologue_ = nullptr;
  std::map<int64_t, llvm::Value *> argPointers_;
  std::map<int64_t, llvm::Value *> resultPointers_;
  // Module-wide: constant globals are shared by every function.
  std::map<const ir::Instruction *, llvm::GlobalVariable *> constants_;
  // Inner parameter -> fusion operand; inner root -> fusion (aliases).
  std::map<const ir::Instruction *, const ir::Instruction *> fusionParams_;
  int64_t weightsBytes_ = 0;
  std::map<const ir::Instruction *, llvm::Value *> overrides_;
  /// Values generated inside a fusion, so a value two fused users read at
  /// the same index is computed once. Keyed by the instruction and the
  /// index's IR values; an entry is reused only in the block it was made
  /// in, where it dominates everything emitted after it.
  struct GeneratedKey {
    const ir::Instruction *instruction;
    unsigned lanes;
    llvm::Value *linear;
    std::vector<llvm::Value *> indices;
    bool operator<(const GeneratedKey &other) const {
      return std::tie(instruction, lanes, linear, indices) <
             std::tie(other.instruction, other.lanes, other.linear,
                      other.indices);
    }
  };
  std::map<GeneratedKey, llvm::Value *> generated_;
  std::map<std::string, llvm::Function *> kernelFunctions_;
  std::map<std::string, llvm::GlobalVariable *> packedWeights_;
  std::vector<KernelRecord> kernelRecords_;
  llvm::Function *entry_ = nullptr;
  llvm::Value *pool_ = nullptr;
  kernels::TaskPair *taskPair_ = nullptr;
};

/// One emitter per opcode: emits code computing `instruction` into
/// ctx.outputBuffer(instruction). Rows live in Emitters.def, except the
/// generated ones (emitElemental for every InFusion Generated opcode).
using OpEmitter = Error (*)(EmitterContext &ctx,
                            const ir::Instruction &instruction);

/// The emitter registered for `opcode`, or nullptr when the opcode has no
/// row yet (emitModule then reports "codegen: opcode 'x' is not supported
/// yet" naming the instruction).
OpEmitter lookupEmitter(ir::Opcode opcode);

/// Emits `instruction` through its table row (errors for missing rows).
Error emitInstruction(EmitterContext &ctx, const ir::Instruction &instruction);

} // namespace kiln::codegen

#endif // KILN_LIB_CODEGEN_EMITTERCONTEXT_H
