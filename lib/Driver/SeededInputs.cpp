//===- SeededInputs.cpp - mulberry32 inputs, as the model tests draw them -===//
#include "SeededInputs.h"

#include "kiln/Import/LiteralUtil.h"
#include "kiln/Support/Allocation.h"

#include <cmath>
#include <cstdint>

namespace kiln::driver {

namespace {

/// mulberry32: the generator of the reference runners; next() is uniform
/// in [0,1) with 32 bits.
class Mulberry32 {
public:
  explicit Mulberry32(uint32_t seed) : state_(seed) {}
  double next() {
    state_ += 0x6D2B79F5u;
    uint32_t t = (state_ ^ (state_ >> 15)) * (state_ | 1u);
    t = (t + ((t ^ (t >> 7)) * (t | 61u))) ^ t;
    return double(t ^ (t >> 14)) / 4294967296.0;
  }

private:
  uint32_t state_;
};

} // namespace

Expected<std::vector<ir::Literal>> seededInputs(const ir::Module &module) {
  Mulberry32 random(1);
  std::vector<ir::Literal> inputs;
  for (const ir::Instruction *parameter : module.entry()->parameters()) {
    const ir::Shape &shape = parameter->shape();
    // Drawn as doubles first: 8 bytes per element whatever the dtype.
    Expected<std::vector<double>> drawn = allocateVector<double>(
        shape.numElements(),
        fmt::format("the seeded values of input '{}'", parameter->name()));
    if (!drawn)
      return drawn.takeError();
    std::vector<double> &values = *drawn;
    for (double &value : values) {
      double u = random.next();
      if (shape.dtype() == ir::DType::Pred)
        value = u < 0.5;
      else if (shape.dtype() == ir::DType::S8) // wraps as NumPy's astype
        value = double(int8_t(int64_t(std::floor(u * 256))));
      else if (ir::isInteger(shape.dtype()))
        value = std::floor(u * 256);
      else
        value = u;
    }
    inputs.push_back(import::literalFromDoubles(shape, values));
  }
  return inputs;
}

} // namespace kiln::driver
