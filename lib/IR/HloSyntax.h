//===- HloSyntax.h - Attribute table shared by HLO printer and parser -----===//
//
// Internal to lib/IR. Which attributes each opcode carries, in the fixed order
// the printer writes them, lives in one table here so the printer and the
// parser can never disagree about the text format (docs/hlo.md).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IR_HLOSYNTAX_H
#define KILN_LIB_IR_HLOSYNTAX_H

#include "kiln/IR/Attributes.h"
#include "kiln/IR/Opcode.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kiln::ir::syntax {

/// Every attribute spelling of the text format.
enum class AttrKey {
  IotaDimension,
  Dimensions,
  Slice,
  DynamicSliceSizes,
  Padding,
  Window,
  DimLabels,
  FeatureGroupCount,
  BatchGroupCount,
  LhsBatchDims,
  LhsContractingDims,
  RhsBatchDims,
  RhsContractingDims,
  OffsetDims,
  CollapsedSliceDims,
  StartIndexMap,
  IndexVectorDim,
  SliceSizes,
  Direction,
  Index,
  Kind,
  Calls,
  Reducer,
  K,
  Largest,
  Descending,
  Condition,
  Body,
  ToApply,
  TrueComputation,
  FalseComputation,
  BranchComputations,
  ExponentBits,
  MantissaBits,
  Distribution,
  Seed,
  UpdateWindowDims,
  InsertedWindowDims,
  ScatterDimsToOperandDims,
  InputBatchingDims,
  ScatterIndicesBatchingDims,
  IndicesAreSorted,
  UniqueIndices,
  Select,
  Scatter,
  ComparisonType,
};

/// How an attribute appears in text.
enum class Presence {
  Required, // must be written; always printed
  Optional, // may be omitted; printed only when it differs from the default
  Defaulted // may be omitted on input; always printed (explicit is clearer)
};

struct AttrSpec {
  AttrKey key;
  Presence presence;
};

std::string_view attrName(AttrKey key);
std::optional<AttrKey> parseAttrName(std::string_view name);

/// The attributes `opcode` takes, in printing order (empty for parameter and
/// constant, whose payload sits between the parentheses).
std::span<const AttrSpec> opcodeAttributes(Opcode opcode);

/// Whether an Optional attribute holds its default value (and is not printed).
bool isDefaultAttr(AttrKey key, const Attributes &attrs);

/// Whether `key` names called computations (Instruction::calledComputations).
bool isCalleeAttr(AttrKey key);
/// The calledComputations slot a single-callee attribute fills: calls,
/// to_apply, condition, true_computation and select 0; body,
/// false_computation and scatter 1. branch_computations fills every slot from 0.
size_t calleeSlot(AttrKey key);

/// Opcodes whose `dimensions` attribute names exactly one dimension.
bool takesSingleDimension(Opcode opcode);

/// Text of composite attribute values, e.g. "0_0_0x1_2_1".
std::string formatPadding(std::span<const PadDim> padding);
std::string formatWindow(std::span<const WindowDim> window);
std::string formatDimLabels(const ConvolutionDimensionNumbers &dnums);
std::string formatSlice(std::span<const SliceDim> slice);

} // namespace kiln::ir::syntax

#endif // KILN_LIB_IR_HLOSYNTAX_H
