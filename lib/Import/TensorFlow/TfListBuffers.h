//===- TfListBuffers.h - The buffers TensorLists and TensorArrays share -*- C++ -*-===//
//
// A TensorList (TfTensorListOps.cpp) and a TensorArray's flow
// (TfTensorArrayOps.cpp) are the same static buffer [bound, element...];
// one whose element shape is not known yet is an unshaped placeholder
// [bound] (TfNodeContext::unshapedListBound) until the first write.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFLISTBUFFERS_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFLISTBUFFERS_H

#include "TensorFlow/TfOps.h"

namespace kiln::import::tf {

/// The bound of an unshaped list that has none yet (EmptyTensorList with
/// max_num_elements -1): the loop it enters gives its trip bound
/// (TfWhileOps.cpp).
constexpr int64_t kUnboundedList = -1;

/// A new buffer of `bound` entries: zeros of `element` when it is known,
/// else the unshaped placeholder (also for kUnboundedList).
Value newListBuffer(TfNodeContext &ctx,
                    const std::optional<std::vector<int64_t>> &element,
                    int64_t bound, ir::DType dtype);

/// The shaped buffer an entry `item` is written into: `list`, or for an unshaped
/// one a fresh buffer of the item's shape (the first write shapes it; its
/// other entries are zeros, as TensorFlow reads unwritten ones). Null after
/// recording an item of another shape, or a list without a bound.
Value writableBuffer(TfNodeContext &ctx, Value list, const ir::Shape &item);

/// The run-time sources `value` is computed from, as messages name them:
/// "feed 'n'" (the name --freeze takes), "loop variable 2 of 'while'".
std::string runTimeSources(Value value);

/// The bound that input `input` (`what`, a scalar count >= 0) gives, or
/// nullopt after recording why not: a count computed at run time names the
/// feeds and loop variables it comes from and how to freeze it.
std::optional<int64_t> constantBound(TfNodeContext &ctx, size_t input,
                                     std::string_view what);

/// The number of entries of `list`, shaped or not.
int64_t listBound(TfNodeContext &ctx, Value list);

/// The dimensions of one entry of shaped buffer `list`.
std::vector<int64_t> entryDims(Value list);

} // namespace kiln::import::tf

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFLISTBUFFERS_H
