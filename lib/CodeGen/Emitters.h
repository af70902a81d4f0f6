//===- Emitters.h - Declarations of every per-opcode emitter ----*- C++ -*-===//
//
// The functions named in Emitters.def, plus the scalar/vector building
// blocks other emitters reuse (e.g. a reduce combining with `maximum` must
// propagate NaN exactly like the elementwise op does).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_EMITTERS_H
#define KILN_LIB_CODEGEN_EMITTERS_H

#include "EmitterContext.h"

namespace kiln::codegen {

#define KILN_EMITTER(Op, Function)                                             \
  Error Function(EmitterContext &ctx, const ir::Instruction &instruction);
#include "Emitters.def"
// Rows may share a function; redeclaring is harmless.

/// The emitter of every opcode whose InFusion column in Opcodes.def is
/// Generated (elementwise ops, iota, index-only data movement): one loop
/// over the output calling generateElement, vectorized when it can be.
Error emitElemental(EmitterContext &ctx, const ir::Instruction &instruction);

/// reduce with a to_apply computation (AppliedReduceEmitter.cpp); emitReduce
/// hands it every reduce that calls one.
Error emitAppliedReduce(EmitterContext &ctx, const ir::Instruction &reduce);
/// reduce-window with to_apply (AppliedReduceWindowEmitter.cpp).
Error emitAppliedReduceWindow(EmitterContext &ctx,
                              const ir::Instruction &reduceWindow);

/// Copies `source` into `target` (same dtype and element count) with a
/// generated loop.
Error copyValue(EmitterContext &ctx, const BufferRef &target,
                const BufferRef &source);

/// The function computing one instruction of a schedule (CodeGen.cpp), or
/// two: a depthwise convolution (`paired`) run in one job with the
/// pointwise convolution `instruction` (Kernels/TaskPair.h).
struct Piece {
  const ir::Instruction *instruction = nullptr;
  llvm::Function *function = nullptr;
  const ir::Instruction *paired = nullptr;
};

/// One call of a callee's piece, for --profile.
struct PieceCall {
  const ir::Instruction *instruction = nullptr;
  llvm::CallInst *call = nullptr;
  const ir::Instruction *paired = nullptr;
};

/// The code of a while or conditional (ControlFlow.cpp), in the function
/// being emitted: `calleePieces[k]` are the pieces running callee k's
/// schedule (condition, body; or each branch), called in order. Each call
/// it makes is appended to `calls`.
Error emitControlFlow(EmitterContext &ctx, const ir::Instruction &instruction,
                      const std::vector<std::vector<Piece>> &calleePieces,
                      std::vector<PieceCall> &calls);

/// Applies elementwise opcode `opcode` (not compare/convert, which need more
/// than the operand dtype) to compute values `operands` of dtype `dtype`.
/// Works for scalars and vectors. Returns nullptr when the opcode/dtype pair
/// is not lowered.
llvm::Value *emitElementwiseOp(EmitterContext &ctx, ir::Opcode opcode,
                               ir::DType dtype,
                               llvm::ArrayRef<llvm::Value *> operands);
/// An elementwise instruction (any, compare/convert/select included) of
/// compute values `operands`, its f16/bf16 result rounded to storage
/// precision: what generateElement computes once it has the operands.
Expected<llvm::Value *>
emitElementwiseInstruction(EmitterContext &ctx, const ir::Instruction &inst,
                           llvm::ArrayRef<llvm::Value *> operands);
/// `compare` with kiln's semantics: float compares are ordered except NE;
/// type TOTALORDER compares floats in IEEE totalOrder.
llvm::Value *emitCompare(EmitterContext &ctx, ir::ComparisonDirection direction,
                         ir::ComparisonType type, ir::DType dtype,
                         llvm::Value *lhs, llvm::Value *rhs);
/// `convert` from compute values of `from` to compute values of `to`.
llvm::Value *emitConvert(EmitterContext &ctx, ir::DType from, ir::DType to,
                         llvm::Value *value);
/// The element of an elemental opcode (InFusion Generated: elementwise,
/// iota, broadcast, reshape, transpose, slice, concatenate, pad, reverse,
/// gather, dynamic-slice; or Read: constant, parameter, get-tuple-element, through ctx.elementOf) at
/// `index`, reading operands through ctx.elementOf. Errors for other opcodes.
Expected<llvm::Value *> generateElement(EmitterContext &ctx,
                                        const ir::Instruction &instruction,
                                        const ElementIndex &index);
/// Whether generateElement can produce `instruction`'s elements as row runs
/// (ElementIndex with indices and lanes > 1): every value it reads, through
/// the fused expression down to materialized buffers, is then read
/// contiguously along its own innermost dimension. `top`: `instruction` is
/// the value being produced (so its own buffer does not count).
bool rowVectorizable(EmitterContext &ctx, const ir::Instruction &instruction,
                     bool top = false);
/// generateElement for `gather` (IndexingEmitter.cpp): the start indices at
/// the element's batch position, clamped, plus its offsets.
Expected<llvm::Value *> generateGather(EmitterContext &ctx,
                                       const ir::Instruction &instruction,
                                       const ElementIndex &index);
/// generateElement for `dynamic-slice` (IndexingEmitter.cpp): the clamped
/// start indices plus the element's index; row runs along the window row.
Expected<llvm::Value *> generateDynamicSlice(EmitterContext &ctx,
                                             const ir::Instruction &instruction,
                                             const ElementIndex &index);
/// generateElement for `rng` (RngEmitter.cpp): the counter-based generator
/// at the element's linear index; any number of lanes.
Expected<llvm::Value *> generateRng(EmitterContext &ctx,
                                    const ir::Instruction &instruction,
                                    const ElementIndex &index);
/// generateElement for `bitcast-convert` (BitcastConvertEmitter.cpp): one
/// element (lanes == 1) from the operand element(s) holding its bits.
Expected<llvm::Value *>
generateBitcastConvert(EmitterContext &ctx, const ir::Instruction &instruction,
                       const ElementIndex &index);
/// `reduce-precision` of compute values `x` of float `dtype`
/// (ReducePrecisionEmitter.cpp); nullptr for other dtypes or widths the
/// verifier rejects.
llvm::Value *emitReducePrecision(EmitterContext &ctx, ir::DType dtype,
                                 int64_t exponentBits, int64_t mantissaBits,
                                 llvm::Value *x);
/// generateElement for `map` (AppliedComputation.cpp): the to_apply
/// computation inlined on the operands' elements; one lane.
Expected<llvm::Value *> generateMap(EmitterContext &ctx,
                                    const ir::Instruction &instruction,
                                    const ElementIndex &index);
/// Whether a gather's row runs read operand rows: its output's innermost
/// dimension is an offset dimension over the operand's innermost one.
bool gatherKeepsRows(const ir::Instruction &instruction);

} // namespace kiln::codegen

#endif // KILN_LIB_CODEGEN_EMITTERS_H
