//===- EvalInternal.h - Shared helpers of the reference evaluator -*- C++ -*-===//
//
// Element-type traits (storage vs. compute type), a dtype dispatcher, index
// iteration and the per-family entry points the evaluator's files provide.
// Everything here is private to lib/Eval.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_EVAL_EVALINTERNAL_H
#define KILN_LIB_EVAL_EVALINTERNAL_H

#include "kiln/IR/Instruction.h"
#include "kiln/Support/Error.h"
#include "kiln/Support/Float16.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

namespace kiln::eval::detail {

using ir::DType;
using ir::Instruction;
using ir::Literal;
using ir::Shape;
using Operands = std::vector<const Literal *>;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// Storage is the in-memory element; Compute is what arithmetic runs on
/// (f16/bf16 compute through f32, pred through bool).
template <typename S, typename C = S> struct PlainTraits {
  using Storage = S;
  using Compute = C;
  static C fromStorage(S value) { return C(value); }
  static S toStorage(C value) { return S(value); }
};

template <DType D> struct DTypeTraits;
template <> struct DTypeTraits<DType::S8> : PlainTraits<int8_t> {};
template <> struct DTypeTraits<DType::S16> : PlainTraits<int16_t> {};
template <> struct DTypeTraits<DType::S32> : PlainTraits<int32_t> {};
template <> struct DTypeTraits<DType::S64> : PlainTraits<int64_t> {};
template <> struct DTypeTraits<DType::U8> : PlainTraits<uint8_t> {};
template <> struct DTypeTraits<DType::U16> : PlainTraits<uint16_t> {};
template <> struct DTypeTraits<DType::U32> : PlainTraits<uint32_t> {};
template <> struct DTypeTraits<DType::U64> : PlainTraits<uint64_t> {};
template <> struct DTypeTraits<DType::F32> : PlainTraits<float> {};
template <> struct DTypeTraits<DType::F64> : PlainTraits<double> {};
template <> struct DTypeTraits<DType::Pred> {
  using Storage = uint8_t;
  using Compute = bool;
  static bool fromStorage(uint8_t value) { return value != 0; }
  static uint8_t toStorage(bool value) { return value ? 1 : 0; }
};
template <> struct DTypeTraits<DType::F16> {
  using Storage = uint16_t;
  using Compute = float;
  static float fromStorage(uint16_t bits) { return halfToFloat(bits); }
  static uint16_t toStorage(float value) { return floatToHalf(value); }
};
template <> struct DTypeTraits<DType::BF16> {
  using Storage = uint16_t;
  using Compute = float;
  static float fromStorage(uint16_t bits) { return bfloat16ToFloat(bits); }
  static uint16_t toStorage(float value) { return floatToBfloat16(value); }
};

template <DType D> using ComputeT = typename DTypeTraits<D>::Compute;

template <typename C> inline constexpr bool kIsBool = std::is_same_v<C, bool>;
template <typename C>
inline constexpr bool kIsFloat = std::is_floating_point_v<C>;
template <typename C>
inline constexpr bool kIsInt = std::is_integral_v<C> && !kIsBool<C>;

template <DType D> ComputeT<D> load(const Literal &literal, int64_t i) {
  using Traits = DTypeTraits<D>;
  return Traits::fromStorage(
      literal.data<typename Traits::Storage>()[size_t(i)]);
}

template <DType D> void store(Literal &literal, int64_t i, ComputeT<D> value) {
  using Traits = DTypeTraits<D>;
  literal.data<typename Traits::Storage>()[size_t(i)] =
      Traits::toStorage(value);
}

template <DType D> using DTypeTag = std::integral_constant<DType, D>;

/// Calls `fn(DTypeTag<D>{})` for the array dtype `type`. `fn` must return
/// Error or an Expected; a tuple dtype yields an error of that type.
template <typename F> auto visitDType(DType type, F &&fn) {
  using Result = decltype(fn(DTypeTag<DType::F32>{}));
  switch (type) {
  case DType::Pred: return fn(DTypeTag<DType::Pred>{});
  case DType::S8: return fn(DTypeTag<DType::S8>{});
  case DType::S16: return fn(DTypeTag<DType::S16>{});
  case DType::S32: return fn(DTypeTag<DType::S32>{});
  case DType::S64: return fn(DTypeTag<DType::S64>{});
  case DType::U8: return fn(DTypeTag<DType::U8>{});
  case DType::U16: return fn(DTypeTag<DType::U16>{});
  case DType::U32: return fn(DTypeTag<DType::U32>{});
  case DType::U64: return fn(DTypeTag<DType::U64>{});
  case DType::F16: return fn(DTypeTag<DType::F16>{});
  case DType::BF16: return fn(DTypeTag<DType::BF16>{});
  case DType::F32: return fn(DTypeTag<DType::F32>{});
  case DType::F64: return fn(DTypeTag<DType::F64>{});
  case DType::Tuple: break;
  }
  return Result(makeError("a tuple value was used where an array is needed"));
}

//===----------------------------------------------------------------------===//
// Indices
//===----------------------------------------------------------------------===//

/// Calls `fn(index)` for every multi-index of `dims`, row-major.
template <typename F>
void forEachIndex(const std::vector<int64_t> &dims, F &&fn) {
  for (int64_t d : dims)
    if (d <= 0)
      return;
  std::vector<int64_t> index(dims.size(), 0);
  while (true) {
    fn(const_cast<const std::vector<int64_t> &>(index));
    size_t axis = dims.size();
    while (axis > 0) {
      --axis;
      if (++index[axis] < dims[axis])
        break;
      index[axis] = 0;
      if (axis == 0)
        return;
    }
    if (dims.empty())
      return;
  }
}

/// Row-major linear offset of `index` in an array of `dims`.
int64_t linearIndex(const std::vector<int64_t> &index,
                    const std::vector<int64_t> &dims);

/// Row-major element strides of an array of `dims`: linearIndex(index, dims)
/// is the sum of index[i] * strides[i].
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &dims);

/// Copies element `from` of `src` to element `to` of `dst` (same dtype).
inline void copyElement(Literal &dst, int64_t to, const Literal &src,
                        int64_t from) {
  size_t size = ir::byteSize(src.shape().dtype());
  std::memcpy(dst.bytes().data() + size_t(to) * size,
              src.bytes().data() + size_t(from) * size, size);
}

/// Element `linear` of `array` as a scalar literal (the argument of an
/// applied computation).
inline Literal scalarAt(const Literal &array, int64_t linear) {
  size_t size = ir::byteSize(array.shape().dtype());
  auto begin = array.bytes().begin() + std::ptrdiff_t(size_t(linear) * size);
  return Literal(Shape::scalar(array.shape().dtype()),
                 std::vector<uint8_t>(begin, begin + std::ptrdiff_t(size)));
}

/// Writes scalar `value` as element `linear` of `array` (same dtype).
inline void storeScalar(Literal &array, int64_t linear, const Literal &value) {
  size_t size = value.bytes().size();
  std::memcpy(array.bytes().data() + size_t(linear) * size,
              value.bytes().data(), size);
}

/// Reads element `i` of an integer literal as int64 (unsigned values above
/// INT64_MAX saturate); errors for non-integer literals.
Expected<int64_t> loadIndex(const Literal &literal, int64_t i);
/// Stores `value` into element `i`, converted like `convert` from s64.
Error storeInt64(Literal &literal, int64_t i, int64_t value);

/// Size of a window operand dimension of `n` elements after base dilation
/// and edge padding.
int64_t paddedSize(int64_t n, const ir::WindowDim &window);
/// Operand position read by window tap `tap` of output position `o`, or -1
/// when the tap lands on padding or a base-dilation hole.
int64_t windowSource(int64_t o, int64_t tap, int64_t n,
                     const ir::WindowDim &window);

/// "cannot evaluate %name (opcode): reason".
Error instructionError(const Instruction &instruction, const std::string &why);
/// The error for an opcode that does not accept `type`.
Error unsupportedType(const Instruction &instruction, DType type);
/// Checks that operand `i` is an array of dtype `type`.
Error expectDType(const Instruction &instruction, const Literal &operand,
                  DType type);

//===----------------------------------------------------------------------===//
// Families: each evaluates one array-producing instruction.
//===----------------------------------------------------------------------===//

Expected<Literal> evalElementwise(const Instruction &instruction,
                                  const Operands &operands);
Expected<Literal> evalConvert(const Instruction &instruction,
                              const Literal &operand);
Expected<Literal> evalLayout(const Instruction &instruction,
                             const Operands &operands);
Expected<Literal> evalGather(const Instruction &instruction,
                             const Operands &operands);
Expected<Literal> evalReduction(const Instruction &instruction,
                                const Operands &operands);
Expected<Literal> evalConvolution(const Instruction &instruction,
                                  const Literal &lhs, const Literal &rhs);
Expected<Literal> evalContraction(const Instruction &instruction,
                                  const Operands &operands);
Expected<Literal> evalBitcastConvert(const Instruction &instruction,
                                     const Literal &operand);
/// The combiner of a scatter: (current values..., update values...) as
/// scalars to the N new values.
using ScatterCombiner = std::function<Expected<std::vector<Literal>>(
    std::vector<Literal> arguments)>;
/// scatter's N results (EvalScatter.cpp).
Expected<std::vector<Literal>> evalScatter(const Instruction &instruction,
                                           const Operands &operands,
                                           const ScatterCombiner &combine);
Expected<Literal> evalRng(const Instruction &instruction,
                          const Operands &operands);
/// reduce-precision's kernel (EvalElementwise.cpp's table runs it).
Error runReducePrecision(const Instruction &instruction,
                         const Operands &operands, Literal &out);
/// sort and top-k: one literal per result (top-k gives values, indices).
/// map: the to_apply computation per element (EvalMap.cpp).
Expected<Literal> evalMap(const Instruction &instruction,
                          const Operands &operands);
/// reduce with to_apply: one literal per input (EvalAppliedReduce.cpp).
Expected<std::vector<Literal>> evalAppliedReduce(const Instruction &instruction,
                                                 const Operands &operands);
/// The init values (operands N..2N-1) of a variadic reduction.
std::vector<Literal> initialAccumulators(const Operands &operands);
/// One step of a variadic reduction: acc = callee(acc..., elements...), run
/// by the evaluator (EvalAppliedReduce.cpp).
Error foldApplied(const ir::Computation &callee, std::vector<Literal> &acc,
                  std::vector<Literal> elements);
/// reduce-window with to_apply: one literal per input
/// (EvalAppliedReduceWindow.cpp).
Expected<std::vector<Literal>>
evalAppliedReduceWindow(const Instruction &instruction,
                        const Operands &operands);
Expected<std::vector<Literal>> evalOrdering(const Instruction &instruction,
                                            const Operands &operands);
/// select-and-scatter, both computations run by the evaluator
/// (EvalSelectAndScatter.cpp).
Expected<Literal> evalSelectAndScatter(const Instruction &instruction,
                                       const Operands &operands);
/// The stable order of positions 0..n-1 of one row of sort's operands
/// (element offsets first + i * stride) under its to_apply comparator, run
/// by the evaluator (EvalSortComparator.cpp).
Expected<std::vector<int64_t>>
orderRowByComparator(const ir::Computation &comparator,
                     const Operands &operands, int64_t first, int64_t stride,
                     int64_t n);

} // namespace kiln::eval::detail

#endif // KILN_LIB_EVAL_EVALINTERNAL_H
