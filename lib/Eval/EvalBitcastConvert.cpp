//===- EvalBitcastConvert.cpp - bitcast-convert: the same bytes retyped ---===//
//
// A row-major array's bytes read as another dtype. When the widths differ
// the minor dimension holds the narrow elements of one wide element, least
// significant first (little-endian, the byte order of every kiln target),
// which is exactly the order of the wide element's bytes in a little-endian
// host's memory: the result is a copy of the operand's bytes.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"

#include <bit>

namespace kiln::eval::detail {

static_assert(std::endian::native == std::endian::little,
              "bitcast-convert's evaluation copies bytes, which gives kiln's "
              "little-endian semantics only on a little-endian host");

Expected<Literal> evalBitcastConvert(const Instruction &inst,
                                     const Literal &operand) {
  Literal out(inst.shape());
  if (out.bytes().size() != operand.bytes().size())
    return instructionError(
        inst, fmt::format("operand {} and result {} differ in byte size",
                          operand.shape().toString(), inst.shape().toString()));
  out.bytes() = operand.bytes();
  return out;
}

} // namespace kiln::eval::detail
