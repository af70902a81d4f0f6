//===- EmitterContext.cpp - Buffers, element access and loops for emitters ===//
#include "EmitterContext.h"
#include "Emitters.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>

namespace kiln::codegen {

using analysis::BufferKind;
using analysis::ValueRef;
using ir::DType;
using llvm::Value;

int64_t BufferRef::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

EmitterContext::EmitterContext(llvm::Module &module, llvm::IRBuilder<> &builder,
                               const analysis::BufferAssignment &buffers,
                               const CodeGenOptions &options,
                               const TargetInfo &target)
    : module_(module), builder_(builder), buffers_(buffers), options_(options),
      target_(target) {}

unsigned EmitterContext::vectorLanes(DType dtype) const {
  unsigned bits = unsigned(computeTypeBits(dtype));
  return std::max(1u, target_.vectorBits / bits);
}

int64_t EmitterContext::computeTypeBits(DType dtype) {
  switch (dtype) {
  case DType::Pred:
    return 8; // i1 lanes are packed into byte-sized lanes by the backends
  case DType::F16:
  case DType::BF16:
    return 32;
  default:
    return int64_t(ir::byteSize(dtype)) * 8;
  }
}

llvm::Type *EmitterContext::storageType(DType dtype) {
  llvm::LLVMContext &c = context();
  switch (dtype) {
  case DType::F32:
    return llvm::Type::getFloatTy(c);
  case DType::F64:
    return llvm::Type::getDoubleTy(c);
  default:
    return llvm::Type::getIntNTy(c, unsigned(ir::byteSize(dtype)) * 8);
  }
}

llvm::Type *EmitterContext::computeType(DType dtype) {
  llvm::LLVMContext &c = context();
  switch (dtype) {
  case DType::Pred:
    return llvm::Type::getInt1Ty(c);
  case DType::F16:
  case DType::BF16:
  case DType::F32:
    return llvm::Type::getFloatTy(c);
  default:
    return storageType(dtype);
  }
}

llvm::Type *EmitterContext::computeType(DType dtype, unsigned lanes) {
  llvm::Type *scalar = computeType(dtype);
  return lanes > 1 ? llvm::FixedVectorType::get(scalar, lanes) : scalar;
}

// --- Buffers ----------------------------------------------------------------

void EmitterContext::beginFunction(llvm::Function &function,
                                   llvm::BasicBlock &prologue) {
  args_ = function.getArg(0);
  results_ = function.getArg(1);
  arena_ = function.getArg(2);
  prologue_ = &prologue;
  argPointers_.clear();
  resultPointers_.clear();
  generated_.clear(); // values of another function
}

EmitterContext::FunctionState EmitterContext::saveFunction() const {
  return {args_,     results_,     arena_,         pool_,
          prologue_, argPointers_, resultPointers_};
}

void EmitterContext::restoreFunction(FunctionState state) {
  args_ = state.args;
  results_ = state.results;
  arena_ = state.arena;
  pool_ = state.pool;
  prologue_ = state.prologue;
  argPointers_ = std::move(state.argPointers);
  resultPointers_ = std::move(state.resultPointers);
  generated_.clear(); // values of the other function
}

Value *EmitterContext::bufferPointer(std::map<int64_t, Value *> &cache,
                                     Value *array, int64_t index,
                                     const std::string &name) {
  auto found = cache.find(index);
  if (found != cache.end())
    return found->second;
  llvm::IRBuilder<> prologue(prologue_);
  llvm::Type *ptr = prologue.getPtrTy();
  Value *slot =
      prologue.CreateConstInBoundsGEP1_64(ptr, array, uint64_t(index));
  Value *pointer = prologue.CreateAlignedLoad(ptr, slot, pointerAlign(),
                                              name + std::to_string(index));
  cache[index] = pointer;
  return pointer;
}

ValueRef EmitterContext::resolve(ValueRef value) const {
  value = analysis::BufferAssignment::resolve(value);
  // A fused parameter stands for the fusion's operand.
  auto it = fusionParams_.find(value.instruction);
  if (it != fusionParams_.end())
    return resolve({it->second, -1});
  return value;
}

bool EmitterContext::isMaterialized(ValueRef value) const {
  return buffers_.hasSlice(resolve(value));
}

static const ir::Shape &valueShape(ValueRef value) {
  const ir::Shape &shape = value.instruction->shape();
  return value.tupleIndex < 0 ? shape
                              : shape.tupleElements()[size_t(value.tupleIndex)];
}

BufferRef EmitterContext::buffer(ValueRef value) {
  value = resolve(value);
  const analysis::BufferSlice &slice = buffers_.slice(value);
  const ir::Shape &shape = valueShape(value);
  BufferRef ref;
  ref.dtype = shape.dtype();
  ref.dims = shape.dims();
  ref.align = ir::byteSize(shape.dtype());
  switch (slice.kind) {
  case BufferKind::Arg:
    ref.address = bufferPointer(argPointers_, args_, slice.index, "arg");
    break;
  case BufferKind::Result:
    ref.address =
        bufferPointer(resultPointers_, results_, slice.index, "result");
    if (slice.offset != 0) // a part of a concatenate returned
      ref.address = builder_.CreateConstInBoundsGEP1_64(
          builder_.getInt8Ty(), ref.address, uint64_t(slice.offset));
    break;
  case BufferKind::Constant:
    ref.address = constantGlobal(*value.instruction);
    ref.align = analysis::BufferAssignment::kArenaAlignment;
    break;
  case BufferKind::Arena:
    ref.address = builder_.CreateConstInBoundsGEP1_64(
        builder_.getInt8Ty(), arena_, uint64_t(slice.offset));
    ref.align = analysis::BufferAssignment::kArenaAlignment;
    break;
  }
  if (slice.strided()) {
    int64_t element = int64_t(ir::byteSize(shape.dtype()));
    ref.rowLength = slice.rowBytes / element;
    ref.rowStride = slice.rowStride / element;
  }
  // A part of a concatenate starts where its operand's block does.
  while (ref.align > 1 && slice.offset % int64_t(ref.align) != 0)
    ref.align /= 2;
  return ref;
}

BufferRef EmitterContext::outputBuffer(const ir::Instruction &instruction,
                                       int64_t tupleIndex) {
  return buffer({&instruction, tupleIndex});
}

llvm::Value *EmitterContext::packingScratch(const ir::Instruction &dot) {
  const analysis::BufferSlice *slice = buffers_.packingScratch(&dot);
  if (!slice)
    return nullptr;
  return builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), arena_,
                                             uint64_t(slice->offset));
}

BufferRef EmitterContext::resultBuffer(int64_t i) {
  const ir::Shape &shape = valueShape(buffers_.resultValue(i));
  return {bufferPointer(resultPointers_, results_, i, "result"), shape.dtype(),
          shape.dims(),
          ir::byteSize(shape.dtype())};
}

Value *EmitterContext::elementPointer(const BufferRef &buffer, Value *linear) {
  if (buffer.strided()) {
    Value *length = i64(buffer.rowLength);
    linear = builder_.CreateNUWAdd(
        builder_.CreateNUWMul(builder_.CreateUDiv(linear, length),
                              i64(buffer.rowStride)),
        builder_.CreateURem(linear, length));
  }
  return builder_.CreateInBoundsGEP(storageType(buffer.dtype), buffer.address,
                                    linear);
}

/// Whether `lanes` consecutive elements from a multiple of `lanes` may
/// straddle two rows of a strided buffer (then each lane has its own
/// address).
static bool mayStraddleRows(const BufferRef &buffer, unsigned lanes) {
  return lanes > 1 && buffer.strided() && buffer.rowLength % lanes != 0;
}

Value *EmitterContext::loadElement(const BufferRef &buffer, Value *linear,
                                   unsigned lanes) {
  llvm::Type *type = storageType(buffer.dtype);
  // Only the element size is guaranteed for an arbitrary element address.
  llvm::Align align(ir::byteSize(buffer.dtype));
  if (mayStraddleRows(buffer, lanes)) {
    Value *stored = llvm::PoisonValue::get(
        llvm::FixedVectorType::get(type, lanes));
    for (unsigned lane = 0; lane < lanes; ++lane) {
      Value *at = builder_.CreateNUWAdd(linear, i64(lane));
      stored = builder_.CreateInsertElement(
          stored,
          builder_.CreateAlignedLoad(type, elementPointer(buffer, at), align),
          uint64_t(lane));
    }
    return toCompute(buffer.dtype, stored);
  }
  if (lanes > 1)
    type = llvm::FixedVectorType::get(type, lanes);
  Value *stored =
      builder_.CreateAlignedLoad(type, elementPointer(buffer, linear), align);
  return toCompute(buffer.dtype, stored);
}

void EmitterContext::storeElement(const BufferRef &buffer, Value *linear,
                                  Value *value) {
  llvm::Align align(ir::byteSize(buffer.dtype));
  Value *stored = toStorage(buffer.dtype, value);
  auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(stored->getType());
  if (vector && mayStraddleRows(buffer, vector->getNumElements())) {
    for (unsigned lane = 0; lane < vector->getNumElements(); ++lane)
      builder_.CreateAlignedStore(
          builder_.CreateExtractElement(stored, uint64_t(lane)),
          elementPointer(buffer, builder_.CreateNUWAdd(linear, i64(lane))),
          align);
    return;
  }
  builder_.CreateAlignedStore(stored, elementPointer(buffer, linear), align);
}

llvm::GlobalVariable *EmitterContext::constantGlobal(
    const ir::Instruction &constant) {
  auto it = constants_.find(&constant);
  if (it != constants_.end())
    return it->second;
  const std::vector<uint8_t> &bytes = constant.literal().bytes();
  llvm::Constant *data = llvm::ConstantDataArray::get(
      context(), llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()));
  // Internal, not private: a local symbol with its size in the object, so
  // `--emit report` and `nm --size-sort` see every weight.
  auto *global = new llvm::GlobalVariable(
      module_, data->getType(), /*isConstant=*/true,
      llvm::GlobalValue::InternalLinkage, data, "const." + constant.name());
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  global->setAlignment(llvm::Align(analysis::BufferAssignment::kArenaAlignment));
  constants_[&constant] = global;
  weightsBytes_ += int64_t(bytes.size());
  return global;
}

// --- Element access -----------------------------------------------------------

Value *EmitterContext::linearOf(const ElementIndex &index,
                                llvm::ArrayRef<int64_t> dims) {
  return index.linear ? index.linear : linearIndex(index.indices, dims);
}

/// A single-element constant as an immediate, so it folds and splats.
Value *EmitterContext::scalarConstant(const ir::Instruction &constant) {
  const ir::Literal &literal = constant.literal();
  DType dtype = literal.shape().dtype();
  llvm::Type *type = storageType(dtype);
  unsigned bits = unsigned(ir::byteSize(dtype)) * 8;
  uint64_t raw = 0;
  std::memcpy(&raw, literal.bytes().data(), ir::byteSize(dtype));
  llvm::APInt value(bits, raw);
  llvm::Constant *stored =
      type->isFloatingPointTy()
          ? llvm::ConstantFP::get(context(),
                                  llvm::APFloat(type->getFltSemantics(), value))
          : static_cast<llvm::Constant *>(llvm::ConstantInt::get(type, value));
  return toCompute(dtype, stored);
}

Value *EmitterContext::splat(Value *value, unsigned lanes) {
  if (lanes <= 1 || value->getType()->isVectorTy())
    return value;
  return builder_.CreateVectorSplat(lanes, value);
}

Expected<Value *> EmitterContext::elementOf(const ir::Instruction &value,
                                            const ElementIndex &index) {
  auto overridden = overrides_.find(&value);
  if (overridden != overrides_.end())
    return overridden->second;
  ValueRef ref = resolve({&value, -1});
  const ir::Instruction &target = *ref.instruction;
  if (target.opcode() == ir::Opcode::Constant &&
      target.shape().numElements() == 1)
    return splat(scalarConstant(target), index.lanes);
  if (buffers_.hasSlice(ref)) {
    BufferRef buf = buffer(ref);
    return loadElement(buf, linearOf(index, buf.dims), index.lanes);
  }
  if (ref.tupleIndex >= 0)
    return makeError("codegen: '%{}' element {} has no buffer", target.name(),
                     ref.tupleIndex);
  GeneratedKey key{&target, index.lanes, index.linear, index.indices};
  auto cached = generated_.find(key);
  if (cached != generated_.end()) {
    auto *made = llvm::dyn_cast<llvm::Instruction>(cached->second);
    if (!made || made->getParent() == builder_.GetInsertBlock())
      return cached->second;
  }
  Expected<Value *> element = generateElement(*this, target, index);
  if (element)
    generated_[key] = *element;
  return element;
}

Expected<Value *> EmitterContext::operandElement(
    const ir::Instruction &instruction, size_t operand,
    llvm::ArrayRef<Value *> indices) {
  ElementIndex index;
  index.indices.assign(indices.begin(), indices.end());
  return elementOf(*instruction.operand(operand), index);
}

std::optional<BufferRef>
EmitterContext::operandBuffer(const ir::Instruction &instruction,
                              size_t operand) {
  ValueRef ref{instruction.operand(operand), -1};
  if (!isMaterialized(ref))
    return std::nullopt;
  return buffer(ref);
}

// --- Fusion -------------------------------------------------------------------

void EmitterContext::bindFusion(const ir::Instruction &fusion) {
  for (const ir::Instruction *param : fusion.calledComputation()->parameters())
    fusionParams_[param] = fusion.operand(size_t(param->parameterNumber()));
}

void EmitterContext::unbindFusion(const ir::Instruction &fusion) {
  for (const ir::Instruction *param : fusion.calledComputation()->parameters())
    fusionParams_.erase(param);
}

Error EmitterContext::unsupported(const ir::Instruction &instruction,
                                  std::string_view what) {
  return makeError("codegen: cannot lower '%{}' ({} {}){}{}", instruction.name(),
                   ir::opcodeName(instruction.opcode()),
                   instruction.shape().toString(), what.empty() ? "" : ": ",
                   what);
}

} // namespace kiln::codegen
