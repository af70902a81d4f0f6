//===- Attributes.h - Opcode-specific instruction attributes ----*- C++ -*-===//
//
// Plain structs for the attributes that opcodes carry. Which opcode reads
// which field is listed in docs/hlo.md; fields an opcode does not use stay at
// their defaults and are neither printed nor compared.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_ATTRIBUTES_H
#define KILN_IR_ATTRIBUTES_H

#include "kiln/IR/Opcode.h"

#include <cstdint>
#include <vector>

namespace kiln::ir {

/// One dimension of `slice`: elements start, start+stride, ... below limit.
struct SliceDim {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
  bool operator==(const SliceDim &) const = default;
};

/// One dimension of `pad`: edge padding may be negative (cropping); interior
/// padding inserts that many pad values between adjacent elements.
struct PadDim {
  int64_t low = 0;
  int64_t high = 0;
  int64_t interior = 0;
  bool operator==(const PadDim &) const = default;
};

/// One spatial dimension of a convolution or reduce-window window.
struct WindowDim {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padLow = 0;
  int64_t padHigh = 0;
  int64_t baseDilation = 1;   // lhs_dilate: holes between input elements
  int64_t windowDilation = 1; // rhs_dilate: holes between window taps
  bool operator==(const WindowDim &) const = default;
};

/// `dot`: result dims are batch dims, then lhs free dims, then rhs free dims.
struct DotDimensionNumbers {
  std::vector<int64_t> lhsBatch, rhsBatch;
  std::vector<int64_t> lhsContracting, rhsContracting;
  bool operator==(const DotDimensionNumbers &) const = default;
};

/// `convolution` operand roles, spelled in text as dim_labels=b01f_01io->b01f.
struct ConvolutionDimensionNumbers {
  int64_t inputBatch = 0, inputFeature = 0;
  std::vector<int64_t> inputSpatial;
  int64_t kernelInputFeature = 0, kernelOutputFeature = 0;
  std::vector<int64_t> kernelSpatial;
  int64_t outputBatch = 0, outputFeature = 0;
  std::vector<int64_t> outputSpatial;
  bool operator==(const ConvolutionDimensionNumbers &) const = default;
};

/// `gather`, with XLA's semantics.
struct GatherDimensionNumbers {
  std::vector<int64_t> offsetDims;
  std::vector<int64_t> collapsedSliceDims;
  std::vector<int64_t> startIndexMap;
  int64_t indexVectorDim = 0;
  bool operator==(const GatherDimensionNumbers &) const = default;
};

/// `scatter`, with XLA's semantics (docs/hlo.md). The two hints change no
/// value; they are kept so text round-trips.
struct ScatterDimensionNumbers {
  std::vector<int64_t> updateWindowDims;
  std::vector<int64_t> insertedWindowDims;
  std::vector<int64_t> scatterDimsToOperandDims;
  int64_t indexVectorDim = 0;
  std::vector<int64_t> inputBatchingDims;
  std::vector<int64_t> scatterIndicesBatchingDims;
  bool indicesAreSorted = false;
  bool uniqueIndices = false;
  bool operator==(const ScatterDimensionNumbers &) const = default;
};

/// All attributes an instruction may carry.
struct Attributes {
  /// broadcast (operand dim i maps to result dim dimensions[i]), transpose
  /// (result dim i is operand dim dimensions[i]), reduce, reverse,
  /// concatenate (one dim), iota (one dim), sort (one dim), arg-max/min.
  std::vector<int64_t> dimensions;
  std::vector<SliceDim> slice;      // slice
  std::vector<int64_t> sizes;       // dynamic-slice sizes, gather slice sizes
  std::vector<PadDim> padding;      // pad
  std::vector<WindowDim> window;    // convolution, reduce-window
  DotDimensionNumbers dot;          // dot
  ConvolutionDimensionNumbers conv; // convolution
  int64_t featureGroupCount = 1;    // convolution
  int64_t batchGroupCount = 1;      // convolution
  GatherDimensionNumbers gather;    // gather
  ScatterDimensionNumbers scatter;  // scatter
  ComparisonDirection direction = ComparisonDirection::EQ; // compare
  ComparisonType comparisonType = ComparisonType::ByDType;  // compare
  ReducerKind reducer = ReducerKind::Add; // reduce, reduce-window
  FusionKind fusionKind = FusionKind::Loop; // fusion
  int64_t index = 0;       // parameter number, get-tuple-element index
  int64_t k = 0;           // top-k
  bool largest = true;     // top-k: largest (true) or smallest k
  bool descending = false; // sort order of the first operand
  int64_t exponentBits = 0;                                // reduce-precision
  int64_t mantissaBits = 0;                                // reduce-precision
  RngDistribution distribution = RngDistribution::Uniform; // rng
  int64_t seed = 0; // rng: the generator's key, as its 64 bits

  bool operator==(const Attributes &) const = default;
};

} // namespace kiln::ir

#endif // KILN_IR_ATTRIBUTES_H
