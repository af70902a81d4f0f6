//===- EvalSupport.cpp - Index and error helpers of the evaluator ---------===//
#include "EvalInternal.h"

#include <limits>

namespace kiln::eval::detail {

int64_t linearIndex(const std::vector<int64_t> &index,
                    const std::vector<int64_t> &dims) {
  int64_t offset = 0;
  for (size_t i = 0; i < dims.size(); ++i)
    offset = offset * dims[i] + index[i];
  return offset;
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i > 1; --i)
    strides[i - 2] = strides[i - 1] * dims[i - 1];
  return strides;
}

Expected<int64_t> loadIndex(const Literal &literal, int64_t i) {
  return visitDType(literal.shape().dtype(), [&](auto tag) -> Expected<int64_t> {
    constexpr DType kType = decltype(tag)::value;
    using C = ComputeT<kType>;
    if constexpr (!kIsInt<C>) {
      return makeError("index operand must be an integer, not {}",
                       ir::dtypeName(kType));
    } else {
      C value = load<kType>(literal, i);
      if constexpr (std::is_unsigned_v<C>)
        if (uint64_t(value) > uint64_t(std::numeric_limits<int64_t>::max()))
          return std::numeric_limits<int64_t>::max();
      return int64_t(value);
    }
  });
}

Error storeInt64(Literal &literal, int64_t i, int64_t value) {
  return visitDType(literal.shape().dtype(), [&](auto tag) -> Error {
    constexpr DType kType = decltype(tag)::value;
    using C = ComputeT<kType>;
    if constexpr (kIsBool<C>)
      store<kType>(literal, i, value != 0);
    else
      store<kType>(literal, i, C(value)); // int->int conversion wraps
    return Error::success();
  });
}

/// Size of the operand after base dilation and edge padding.
int64_t paddedSize(int64_t n, const ir::WindowDim &w) {
  int64_t dilated = n == 0 ? 0 : (n - 1) * w.baseDilation + 1;
  return dilated + w.padLow + w.padHigh;
}

/// Operand position of window tap `tap` of output `o`, or -1 on padding.
int64_t windowSource(int64_t o, int64_t tap, int64_t n,
                     const ir::WindowDim &w) {
  int64_t pos = o * w.stride + tap * w.windowDilation - w.padLow;
  int64_t dilated = n == 0 ? 0 : (n - 1) * w.baseDilation + 1;
  if (pos < 0 || pos >= dilated || pos % w.baseDilation != 0)
    return -1;
  return pos / w.baseDilation;
}

Error instructionError(const Instruction &instruction, const std::string &why) {
  return makeError("cannot evaluate %{} ({}): {}", instruction.name(),
                   ir::opcodeName(instruction.opcode()), why);
}

Error unsupportedType(const Instruction &instruction, DType type) {
  return instructionError(
      instruction, fmt::format("element type {} is not supported by this "
                               "opcode",
                               ir::dtypeName(type)));
}

Error expectDType(const Instruction &instruction, const Literal &operand,
                  DType type) {
  if (operand.shape().dtype() == type)
    return Error::success();
  return instructionError(
      instruction, fmt::format("operand has shape {} but {} was expected",
                               operand.shape().toString(), ir::dtypeName(type)));
}

} // namespace kiln::eval::detail
