//===- LoopBuffers.h - Rows of the buffers loops read and write -*- C++ -*-===//
//
// Loops of both front ends carry whole arrays as state and touch one entry
// per trip: ONNX scan outputs and recurrent outputs, TensorFlow TensorLists
// (a list is a static buffer [bound, element...]). An entry is read with
// dynamic-slice and written with dynamic-update-slice, which buffer
// assignment performs in place inside a loop body.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_LOOPBUFFERS_H
#define KILN_LIB_IMPORT_COMMON_LOOPBUFFERS_H

#include "kiln/Import/GraphBuilder.h"

namespace kiln::import {

/// `update` written into `buffer` as entry `at` of dimension `axis` (the
/// update lacks that dimension).
Value writeEntry(GraphBuilder &b, Value buffer, Value update, int64_t axis,
                 Value at);

/// Entry `at` of dimension `axis` of `x`, without that dimension.
Value readEntry(GraphBuilder &b, Value x, int64_t axis, Value at);

/// `count` entries of `element`'s shape stacked along a new `axis`, zeros
/// until the loop writes them (a broadcast, not a constant).
Value zeroBuffer(GraphBuilder &b, const ir::Shape &element, int64_t count,
                 int64_t axis);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_LOOPBUFFERS_H
