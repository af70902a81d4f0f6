// use_class.cpp - the C++ class of a real generated header (sum_squares.hlo
// compiled with --name my-model.v2 --namespace acme::ml), run natively.
#include "m.h"

#include <cstdio>

int main() {
  acme::ml::MyModelV2 model;
  const float v[4] = {1, -2, 3, 0.5f};
  for (int i = 0; i < 4; ++i)
    model.arg_v(i) = v[i];
  model.arg_k() = 2;
  if (!model.Run()) {
    std::printf("error: %s\n", model.error_msg());
    return 1;
  }
  std::printf("sq %g %g %g %g total %g index %d\n", model.result_sq(0),
              model.result0(1), model.result_sq_data()[2], model.result_sq(3),
              model.result_total(), acme::ml::MyModelV2::LookupResultIndex("total"));
  return 0;
}
