//===- HloSyntax.cpp - Attribute table shared by HLO printer and parser ---===//
#include "HloSyntax.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace kiln::ir::syntax {

namespace {

// Spellings, indexed by AttrKey.
constexpr std::array<std::string_view, 46> kAttrNames = {
    "iota_dimension",       "dimensions",          "slice",
    "dynamic_slice_sizes",  "padding",             "window",
    "dim_labels",           "feature_group_count", "batch_group_count",
    "lhs_batch_dims",       "lhs_contracting_dims", "rhs_batch_dims",
    "rhs_contracting_dims", "offset_dims",         "collapsed_slice_dims",
    "start_index_map",      "index_vector_dim",    "slice_sizes",
    "direction",            "index",               "kind",
    "calls",                "reducer",             "k",
    "largest",              "descending",          "condition",
    "body",                 "to_apply",            "true_computation",
    "false_computation",    "branch_computations", "exponent_bits",
    "mantissa_bits",        "distribution",        "seed",
    // scatter
    "update_window_dims",   "inserted_window_dims",
    "scatter_dims_to_operand_dims", "input_batching_dims",
    "scatter_indices_batching_dims", "indices_are_sorted", "unique_indices",
    // select-and-scatter
    "select", "scatter",
    // compare
    "type"};
static_assert(kAttrNames.size() == size_t(AttrKey::ComparisonType) + 1);

using enum AttrKey;
constexpr Presence kReq = Presence::Required;
constexpr Presence kOpt = Presence::Optional;
constexpr Presence kDef = Presence::Defaulted;

// One row per opcode family; the order inside a row is the printing order.
constexpr AttrSpec kIota[] = {{IotaDimension, kReq}};
constexpr AttrSpec kDims[] = {{Dimensions, kReq}};
// Either reducer or to_apply (the parser requires exactly one; the printer
// writes the one the instruction has).
constexpr AttrSpec kReduce[] = {
    {Dimensions, kReq}, {Reducer, kOpt}, {ToApply, kOpt}};
// descending= (the fixed key order) or a to_apply comparator (the parser
// accepts at most one; the printer writes the one the instruction has).
constexpr AttrSpec kSort[] = {
    {Dimensions, kReq}, {Descending, kDef}, {ToApply, kOpt}};
constexpr AttrSpec kSlice[] = {{Slice, kReq}};
constexpr AttrSpec kDynamicSlice[] = {{DynamicSliceSizes, kReq}};
constexpr AttrSpec kPad[] = {{Padding, kReq}};
// Like reduce: a reducer kind or a to_apply computation.
constexpr AttrSpec kReduceWindow[] = {
    {Window, kReq}, {Reducer, kOpt}, {ToApply, kOpt}};
constexpr AttrSpec kConvolution[] = {{Window, kReq},
                                     {DimLabels, kReq},
                                     {FeatureGroupCount, kOpt},
                                     {BatchGroupCount, kOpt}};
constexpr AttrSpec kDot[] = {{LhsBatchDims, kOpt},
                             {LhsContractingDims, kReq},
                             {RhsBatchDims, kOpt},
                             {RhsContractingDims, kReq}};
constexpr AttrSpec kGather[] = {{OffsetDims, kReq},
                                {CollapsedSliceDims, kReq},
                                {StartIndexMap, kReq},
                                {IndexVectorDim, kReq},
                                {SliceSizes, kReq}};
// type= only when written (ByDType otherwise), as XLA prints it last.
constexpr AttrSpec kCompare[] = {{Direction, kReq}, {ComparisonType, kOpt}};
constexpr AttrSpec kGetTupleElement[] = {{Index, kReq}};
constexpr AttrSpec kFusion[] = {{Kind, kReq}, {Calls, kReq}};
constexpr AttrSpec kTopK[] = {{K, kReq}, {Largest, kDef}};
constexpr AttrSpec kWhile[] = {{Condition, kReq}, {Body, kReq}};
constexpr AttrSpec kCall[] = {{ToApply, kReq}};
constexpr AttrSpec kMap[] = {{Dimensions, kReq}, {ToApply, kReq}};
// A pred[] selector takes the true/false pair, an s32[] index the list;
// the printer writes the form that matches the selector, the parser
// accepts exactly one.
constexpr AttrSpec kConditional[] = {{TrueComputation, kOpt},
                                     {FalseComputation, kOpt},
                                     {BranchComputations, kOpt}};
constexpr AttrSpec kReducePrecision[] = {{ExponentBits, kReq},
                                         {MantissaBits, kReq}};
constexpr AttrSpec kRng[] = {{Distribution, kReq}, {Seed, kOpt}};
// XLA's order; the batching dims and the two hints only when used.
constexpr AttrSpec kScatter[] = {{UpdateWindowDims, kReq},
                                 {InsertedWindowDims, kReq},
                                 {ScatterDimsToOperandDims, kReq},
                                 {InputBatchingDims, kOpt},
                                 {ScatterIndicesBatchingDims, kOpt},
                                 {IndexVectorDim, kReq},
                                 {IndicesAreSorted, kOpt},
                                 {UniqueIndices, kOpt},
                                 {ToApply, kReq}};
constexpr AttrSpec kSelectAndScatter[] = {
    {Window, kReq}, {Select, kReq}, {Scatter, kReq}};

} // namespace

std::string_view attrName(AttrKey key) { return kAttrNames[size_t(key)]; }

std::optional<AttrKey> parseAttrName(std::string_view name) {
  for (size_t i = 0; i < kAttrNames.size(); ++i)
    if (kAttrNames[i] == name)
      return AttrKey(i);
  return std::nullopt;
}

std::span<const AttrSpec> opcodeAttributes(Opcode opcode) {
  switch (opcode) {
  case Opcode::Iota:
    return kIota;
  case Opcode::Broadcast:
  case Opcode::Transpose:
  case Opcode::Reverse:
  case Opcode::Concatenate:
  case Opcode::ArgMax:
  case Opcode::ArgMin:
    return kDims;
  case Opcode::Reduce:
    return kReduce;
  case Opcode::Sort:
    return kSort;
  case Opcode::Slice:
    return kSlice;
  case Opcode::DynamicSlice:
    return kDynamicSlice;
  case Opcode::Pad:
    return kPad;
  case Opcode::ReduceWindow:
    return kReduceWindow;
  case Opcode::Convolution:
    return kConvolution;
  case Opcode::Dot:
    return kDot;
  case Opcode::Gather:
    return kGather;
  case Opcode::Compare:
    return kCompare;
  case Opcode::GetTupleElement:
    return kGetTupleElement;
  case Opcode::Fusion:
    return kFusion;
  case Opcode::TopK:
    return kTopK;
  case Opcode::While:
    return kWhile;
  case Opcode::Call:
    return kCall;
  case Opcode::Map:
    return kMap;
  case Opcode::Conditional:
    return kConditional;
  case Opcode::ReducePrecision:
    return kReducePrecision;
  case Opcode::Rng:
    return kRng;
  case Opcode::Scatter:
    return kScatter;
  case Opcode::SelectAndScatter:
    return kSelectAndScatter;
  default:
    return {};
  }
}

bool isDefaultAttr(AttrKey key, const Attributes &attrs) {
  switch (key) {
  case FeatureGroupCount:
    return attrs.featureGroupCount == 1;
  case BatchGroupCount:
    return attrs.batchGroupCount == 1;
  case LhsBatchDims:
    return attrs.dot.lhsBatch.empty();
  case RhsBatchDims:
    return attrs.dot.rhsBatch.empty();
  case Largest:
    return attrs.largest;
  case Descending:
    return !attrs.descending;
  case Seed:
    return attrs.seed == 0;
  case InputBatchingDims:
    return attrs.scatter.inputBatchingDims.empty();
  case ScatterIndicesBatchingDims:
    return attrs.scatter.scatterIndicesBatchingDims.empty();
  case IndicesAreSorted:
    return !attrs.scatter.indicesAreSorted;
  case UniqueIndices:
    return !attrs.scatter.uniqueIndices;
  case ComparisonType:
    return attrs.comparisonType == ir::ComparisonType::ByDType;
  default:
    return false;
  }
}

bool isCalleeAttr(AttrKey key) {
  switch (key) {
  case Calls:
  case Condition:
  case Body:
  case ToApply:
  case TrueComputation:
  case FalseComputation:
  case BranchComputations:
  case Select:
  case Scatter:
    return true;
  default:
    return false;
  }
}

size_t calleeSlot(AttrKey key) {
  return key == Body || key == FalseComputation || key == Scatter ? 1 : 0;
}

bool takesSingleDimension(Opcode opcode) {
  return opcode == Opcode::Concatenate || opcode == Opcode::Sort ||
         opcode == Opcode::ArgMax || opcode == Opcode::ArgMin;
}

std::string formatPadding(std::span<const PadDim> padding) {
  if (padding.empty())
    return "{}";
  std::string text;
  for (size_t i = 0; i < padding.size(); ++i)
    text += fmt::format("{}{}_{}_{}", i ? "x" : "", padding[i].low,
                        padding[i].high, padding[i].interior);
  return text;
}

/// "2x2" from one field of every window dimension.
template <typename Field>
static std::string joinWindowField(std::span<const WindowDim> window,
                                   Field field) {
  std::string text;
  for (size_t i = 0; i < window.size(); ++i)
    text += fmt::format("{}{}", i ? "x" : "", field(window[i]));
  return text;
}

std::string formatWindow(std::span<const WindowDim> window) {
  if (window.empty())
    return "{}";
  auto all = [&](auto pred) {
    return std::all_of(window.begin(), window.end(), pred);
  };
  std::string text = "{size=" + joinWindowField(window, [](const WindowDim &w) {
                       return w.size;
                     });
  if (!all([](const WindowDim &w) { return w.stride == 1; }))
    text += " stride=" + joinWindowField(window, [](const WindowDim &w) {
              return w.stride;
            });
  if (!all([](const WindowDim &w) { return w.padLow == 0 && w.padHigh == 0; })) {
    text += " pad=";
    for (size_t i = 0; i < window.size(); ++i)
      text += fmt::format("{}{}_{}", i ? "x" : "", window[i].padLow,
                          window[i].padHigh);
  }
  if (!all([](const WindowDim &w) { return w.baseDilation == 1; }))
    text += " lhs_dilate=" + joinWindowField(window, [](const WindowDim &w) {
              return w.baseDilation;
            });
  if (!all([](const WindowDim &w) { return w.windowDilation == 1; }))
    text += " rhs_dilate=" + joinWindowField(window, [](const WindowDim &w) {
              return w.windowDilation;
            });
  return text + "}";
}

/// Writes one operand's labels: `roles` maps a dimension index to its letter.
/// Indices outside the operand (only in malformed IR) are skipped and unset
/// positions print as '?', so printing never fails.
static std::string labelString(
    std::initializer_list<std::pair<int64_t, char>> roles,
    const std::vector<int64_t> &spatial) {
  int64_t rank = int64_t(roles.size() + spatial.size());
  std::string text(size_t(rank), '?');
  for (auto [index, letter] : roles)
    if (index >= 0 && index < rank)
      text[size_t(index)] = letter;
  for (size_t i = 0; i < spatial.size(); ++i)
    if (spatial[i] >= 0 && spatial[i] < rank)
      text[size_t(spatial[i])] = i < 10 ? char('0' + i) : '?';
  return text;
}

std::string formatDimLabels(const ConvolutionDimensionNumbers &d) {
  return labelString({{d.inputBatch, 'b'}, {d.inputFeature, 'f'}},
                     d.inputSpatial) +
         "_" +
         labelString({{d.kernelInputFeature, 'i'}, {d.kernelOutputFeature, 'o'}},
                     d.kernelSpatial) +
         "->" +
         labelString({{d.outputBatch, 'b'}, {d.outputFeature, 'f'}},
                     d.outputSpatial);
}

std::string formatSlice(std::span<const SliceDim> slice) {
  std::string text = "{";
  for (size_t i = 0; i < slice.size(); ++i) {
    text += fmt::format("{}[{}:{}", i ? ", " : "", slice[i].start,
                        slice[i].limit);
    if (slice[i].stride != 1)
      text += fmt::format(":{}", slice[i].stride);
    text += "]";
  }
  return text + "}";
}

} // namespace kiln::ir::syntax
