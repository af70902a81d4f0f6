//===- Epilogue.h - Fused chains applied in registers -----------*- C++ -*-===//
//
// An output fusion (kind=kOutput) holds one dot or convolution and the
// elementwise ops that consume only it: bias adds, per-channel scale and
// shift, activations, a residual add. A kernel applies that chain to its
// accumulators while they are still in registers and stores once.
//
// The chain reads three kinds of memory ("leaves"), each passed to the
// kernel function as a pointer:
//   per-channel  broadcast of a rank-1 array along the output features
//   full         an array of the output's shape (a residual), read at the
//                output element's own position
//   scalar       broadcast of a rank-0 array that is not a constant
//   padded       a pad, along the output features only, of an array (a
//                residual with fewer channels, as BlazeFace's shortcut
//                widens its input with zero channels): read at the same
//                pixel, the pad value where a feature falls outside it,
//                so the padded residual is never materialized
// Scalar constants become immediates. Anything else makes the fusion fall
// back to the generic fusion emitter.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_KERNELS_EPILOGUE_H
#define KILN_LIB_CODEGEN_KERNELS_EPILOGUE_H

#include "../EmitterContext.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::codegen::kernels {

class Epilogue {
public:
  /// No fused ops: the accumulators are stored as they are.
  Epilogue() = default;

  /// The chain of output fusion `fusion` after `contraction` (which must be
  /// in its computation, with the output features as its last dimension),
  /// or nullopt when some op or operand does not fit the kinds above.
  static std::optional<Epilogue> analyze(const ir::Instruction &fusion,
                                         const ir::Instruction &contraction);

  bool empty() const { return chain_.empty(); }
  size_t leafCount() const { return leaves_.size(); }
  /// Leaf pointers as the caller sees them; the fusion must be bound
  /// (EmitterContext::bindFusion) and the builder in the caller.
  std::vector<llvm::Value *> leafPointers(EmitterContext &ctx) const;

  /// A structural key: equal keys compute the same function of the
  /// accumulators and leaves (scalar constants included, weights not).
  std::string key() const;
  /// The fused ops, e.g. "add,maximum" (for reports).
  std::string describe() const;

  /// The output value for accumulator vector `acc` (lanes consecutive
  /// output features starting at feature index `feature`, of which `valid`
  /// exist) at output element `linear` (for full leaves). `leaves` are the
  /// kernel's leaf arguments, in leafPointers order.
  Expected<llvm::Value *> apply(EmitterContext &ctx, llvm::Value *acc,
                                llvm::Value *linear, llvm::Value *feature,
                                int64_t lanes, int64_t valid,
                                llvm::ArrayRef<llvm::Value *> leaves) const;

private:
  enum class LeafKind { PerChannel, Full, Scalar, Padded };
  struct Leaf {
    const ir::Instruction *use = nullptr;  // the fused value it replaces
    const ir::Instruction *data = nullptr; // whose buffer holds the numbers
    LeafKind kind = LeafKind::Full;
  };
  std::optional<Leaf> classifyLeaf(const ir::Instruction &operand) const;
  bool isChannelPad(const ir::Instruction &operand) const;
  Expected<llvm::Value *> loadPadded(EmitterContext &ctx, const Leaf &leaf,
                                     llvm::Value *data, llvm::Value *linear,
                                     llvm::Value *feature, int64_t lanes,
                                     int64_t valid) const;

  const ir::Instruction *contraction_ = nullptr;
  const ir::Instruction *fusion_ = nullptr;
  std::vector<const ir::Instruction *> chain_; // in computation order
  std::vector<Leaf> leaves_;
};

} // namespace kiln::codegen::kernels

#endif // KILN_LIB_CODEGEN_KERNELS_EPILOGUE_H
