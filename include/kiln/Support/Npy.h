//===- Npy.h - NumPy .npy file reading and writing --------------*- C++ -*-===//
//
// Reads and writes .npy format versions 1.0-3.0 for the element types kiln
// knows (bool, int8..int64, uint8..uint64, float16, float32, float64, and
// bfloat16 as written by ml_dtypes). Data is little-endian and C order;
// Fortran-order arrays of rank >= 2 are transposed to C order on read.
// Big-endian, object and structured dtypes are rejected with a clear error.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_NPY_H
#define KILN_SUPPORT_NPY_H

#include "kiln/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

struct NpyArray {
  std::string dtype;          // NumPy name: "float32", "int64", "bool", ...
  std::vector<int64_t> shape; // empty for a scalar
  std::vector<uint8_t> data;  // dense C-order little-endian elements
};

/// What an .npy header says about the array, without its data.
struct NpyHeader {
  std::string dtype;          // NumPy name, as in NpyArray
  std::vector<int64_t> shape; // empty for a scalar
};

/// Parses .npy bytes; `fileName` is used in error messages.
Expected<NpyArray> parseNpy(const std::vector<uint8_t> &bytes,
                            const std::string &fileName);
Expected<NpyArray> readNpyFile(const std::string &path);
/// Reads and checks only the header of an .npy file (the data, which may be
/// large, is not read, nor checked against the shape).
Expected<NpyHeader> readNpyHeader(const std::string &path);
/// Serializes as .npy version 1.0.
std::vector<uint8_t> serializeNpy(const NpyArray &array);
Error writeNpyFile(const std::string &path, const NpyArray &array);

} // namespace kiln

#endif // KILN_SUPPORT_NPY_H
