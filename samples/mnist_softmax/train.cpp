// train.cpp - Softmax regression on Fashion-MNIST with two kiln-compiled graphs.
//
// TensorFlow's classic softmax AOT sample, without TensorFlow: train_step.o
// is one SGD step (GradientDescentOptimizer(0.5) on the softmax cross
// entropy) that updates its writable variables W and b in place; infer.o is
// y = softmax(x W + b) reading the same W and b as read-only variables. The
// app only links the two objects and uses their generated headers.
//
//   train DATA_DIR [STEPS]
//
// DATA_DIR holds the idx files of (Fashion-)MNIST, gzipped as Debian's
// dataset-fashion-mnist ships them (read through zlib when built with
// KILN_SAMPLE_ZLIB) or already decompressed.
#include "infer.h"
#include "train_step.h"

#include <kiln/runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#ifdef KILN_SAMPLE_ZLIB
#include <zlib.h>
#endif

namespace {

constexpr int kBatch = 100;
constexpr int kPixels = 784;
constexpr int kClasses = 10;

bool readWhole(const std::string &path, std::vector<uint8_t> &out) {
#ifdef KILN_SAMPLE_ZLIB
  // gzread also reads files that are not compressed.
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file)
    return false;
  uint8_t chunk[1 << 16];
  int n;
  while ((n = gzread(file, chunk, sizeof chunk)) > 0)
    out.insert(out.end(), chunk, chunk + n);
  gzclose(file);
  return n == 0;
#else
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return false;
  uint8_t chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0)
    out.insert(out.end(), chunk, chunk + n);
  bool ok = !std::ferror(file);
  std::fclose(file);
  return ok;
#endif
}

uint32_t bigEndian(const uint8_t *p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 |
         uint32_t(p[3]);
}

/// The payload of an idx file (magic 0x0000080N: unsigned bytes, N dims),
/// tried as STEM.gz (with zlib) and STEM; exits with a message on failure.
std::vector<uint8_t> loadIdx(const std::string &dir, const std::string &stem,
                             uint32_t dims, uint32_t count) {
  std::vector<uint8_t> data;
  std::string path = dir + "/" + stem;
#ifdef KILN_SAMPLE_ZLIB
  if (!readWhole(path + ".gz", data))
#endif
    if (!readWhole(path, data)) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      std::exit(2);
    }
  size_t header = 4 + 4 * size_t(dims);
  if (data.size() < header || bigEndian(data.data()) != (0x800u | dims) ||
      bigEndian(data.data() + 4) != count) {
    std::fprintf(stderr, "%s: not an idx file of %u items\n", path.c_str(),
                 count);
    std::exit(2);
  }
  data.erase(data.begin(), data.begin() + long(header));
  return data;
}

struct Dataset {
  std::vector<uint8_t> images, labels;
  int count = 0;
};

Dataset loadSet(const std::string &dir, const std::string &prefix, int count) {
  Dataset set;
  set.count = count;
  set.images = loadIdx(dir, prefix + "-images-idx3-ubyte", 3, uint32_t(count));
  set.labels = loadIdx(dir, prefix + "-labels-idx1-ubyte", 1, uint32_t(count));
  if (set.images.size() != size_t(count) * kPixels ||
      set.labels.size() != size_t(count)) {
    std::fprintf(stderr, "%s: truncated data\n", prefix.c_str());
    std::exit(2);
  }
  return set;
}

/// Pixels scaled to [0, 1] and, when `onehot` is given, one-hot labels.
void fillBatch(const Dataset &set, const int *indices, float *x,
               float *onehot) {
  for (int i = 0; i < kBatch; ++i) {
    const uint8_t *image = &set.images[size_t(indices[i]) * kPixels];
    for (int p = 0; p < kPixels; ++p)
      x[i * kPixels + p] = float(image[p]) / 255.0f;
    if (!onehot)
      continue;
    for (int c = 0; c < kClasses; ++c)
      onehot[i * kClasses + c] = set.labels[size_t(indices[i])] == c ? 1.f : 0.f;
  }
}

/// A fixed-seed shuffle (xorshift32), the same on every platform.
std::vector<int> shuffled(int count, uint32_t seed) {
  std::vector<int> order(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i)
    order[size_t(i)] = i;
  for (int i = count - 1; i > 0; --i) {
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    std::swap(order[size_t(i)], order[seed % uint32_t(i + 1)]);
  }
  return order;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DATA_DIR [STEPS]\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  int steps = argc > 2 ? std::atoi(argv[2]) : 1000;
  if (kiln_check_abi(TRAIN_STEP_ABI_VERSION) != KILN_OK ||
      kiln_check_abi(INFER_ABI_VERSION) != KILN_OK) {
    std::fprintf(stderr, "the objects were generated for another ABI\n");
    return 1;
  }
  Dataset train = loadSet(dir, "train", 60000);
  Dataset test = loadSet(dir, "t10k", 10000);

  // The step owns every buffer, W and b included (zero-initialized, as the
  // graph's initializers would make them).
  mnist::TrainStep step;
  std::fill_n(step.var_W_data(), step.var_W_count(), 0.0f);
  std::fill_n(step.var_b_data(), step.var_b_count(), 0.0f);
  std::vector<int> order = shuffled(train.count, 42);
  for (int s = 0; s < steps; ++s) {
    const int *batch = &order[size_t(s * kBatch % train.count)];
    fillBatch(train, batch, step.arg_x_data(), step.arg_y_data());
    if (!step.Run()) {
      std::fprintf(stderr, "training step failed: %s\n", step.error_msg());
      return 1;
    }
    if (s % 100 == 0 || s == steps - 1)
      std::printf("step %4d  loss %.4f\n", s, double(step.result_loss()));
  }

  // The classifier reads the trained variables where the step left them.
  mnist::Infer infer(mnist::Infer::AllocMode::RESULTS_PROFILES_AND_TEMPS_ONLY);
  std::vector<float> x(size_t(kBatch) * kPixels);
  infer.set_arg_x_data(x.data());
  infer.set_var_W_data(step.var_W_data());
  infer.set_var_b_data(step.var_b_data());
  int correct = 0;
  std::vector<int> indices(kBatch);
  for (int start = 0; start < test.count; start += kBatch) {
    for (int i = 0; i < kBatch; ++i)
      indices[size_t(i)] = start + i;
    fillBatch(test, indices.data(), x.data(), nullptr);
    if (!infer.Run()) {
      std::fprintf(stderr, "inference failed: %s\n", infer.error_msg());
      return 1;
    }
    for (int i = 0; i < kBatch; ++i) {
      const float *y = infer.result_y_data() + i * kClasses;
      int best = int(std::max_element(y, y + kClasses) - y);
      correct += best == test.labels[size_t(start + i)];
    }
  }
  std::printf("test accuracy: %.4f\n", double(correct) / test.count);
  return 0;
}
