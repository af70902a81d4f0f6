// classify.cpp - classifies Fashion-MNIST test images with the CNN that
// kiln_add_model compiled (CMakeLists.txt), through the generated C++ class
// sample::ml::FashionCnn, one image per Run().
//
// Usage: classify DATA_DIR [COUNT]
//   DATA_DIR holds t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz
//   (Debian: dataset-fashion-mnist, /usr/share/datasets/fashion-mnist).
// Prints one line per image, `image I: label L predicted P (NAME) probabilities ...`,
// then `accuracy: A (C of N)`.
#include "fashion_cnn.h"

#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char *const kClassNames[10] = {"T-shirt/top", "Trouser", "Pullover", "Dress",
                                     "Coat",        "Sandal",  "Shirt",    "Sneaker",
                                     "Bag",         "Ankle boot"};
constexpr int kImageSide = 28;

// The whole file, decompressed (gzread also reads plain files).
std::vector<unsigned char> readFile(const std::string &path) {
  std::vector<unsigned char> data;
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    std::fprintf(stderr, "error: cannot open '%s'\n", path.c_str());
    std::exit(1);
  }
  unsigned char chunk[1 << 16];
  int n;
  while ((n = gzread(file, chunk, sizeof chunk)) > 0)
    data.insert(data.end(), chunk, chunk + n);
  gzclose(file);
  return data;
}

// The payload of an idx file after its header of `headerBytes`, checked to
// hold at least `needed` bytes.
std::vector<unsigned char> readIdx(const std::string &path, size_t headerBytes, size_t needed) {
  std::vector<unsigned char> data = readFile(path);
  if (data.size() < headerBytes + needed) {
    std::fprintf(stderr, "error: '%s' has %zu bytes, expected at least %zu\n", path.c_str(),
                 data.size(), headerBytes + needed);
    std::exit(1);
  }
  return std::vector<unsigned char>(data.begin() + headerBytes, data.end());
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: classify DATA_DIR [COUNT]\n");
    return 1;
  }
  const std::string dir = argv[1];
  const long count = argc == 3 ? std::strtol(argv[2], nullptr, 10) : 100;
  if (count <= 0 || count > 10000) {
    std::fprintf(stderr, "error: COUNT must be 1..10000, got '%s'\n", argv[2]);
    return 1;
  }
  const size_t pixels = kImageSide * kImageSide;
  std::vector<unsigned char> images =
      readIdx(dir + "/t10k-images-idx3-ubyte.gz", 16, count * pixels);
  std::vector<unsigned char> labels = readIdx(dir + "/t10k-labels-idx1-ubyte.gz", 8, count);

  sample::ml::FashionCnn model; // allocates its input, output and arena
  static_assert(sample::ml::FashionCnn::arg0_count() == kImageSide * kImageSide,
                "the model was compiled for one 28x28 image per run");
  long correct = 0;
  for (long i = 0; i < count; ++i) {
    // The network was trained on pixels scaled to [0, 1].
    for (size_t p = 0; p < pixels; ++p)
      model.arg_input_data()[p] = images[i * pixels + p] / 255.0f;
    if (!model.Run()) {
      std::fprintf(stderr, "error: image %ld: %s\n", i, model.error_msg());
      return 1;
    }
    const float *probabilities = model.result_output_data();
    int best = 0;
    for (int c = 1; c < 10; ++c)
      if (probabilities[c] > probabilities[best])
        best = c;
    correct += best == labels[i];
    std::printf("image %ld: label %d predicted %d (%s) probabilities", i, labels[i], best,
                kClassNames[best]);
    for (int c = 0; c < 10; ++c)
      std::printf(" %.7g", probabilities[c]);
    std::printf("\n");
  }
  std::printf("accuracy: %.4f (%ld of %ld)\n", static_cast<double>(correct) / count, correct,
              count);
  return 0;
}
