// use_golden.cpp - instantiates the golden headers' classes and calls their
// methods against the hand-written fakes in fake_models.c; exits non-zero on
// the first wrong value.
#include "add_relu.h"
#include "detector.h"
#include "kiln/runtime.h"
#include "selector.h"

#include <cstdio>
#include <cstring>

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::printf("%s:%d: expected %s\n", __FILE__, __LINE__, #cond);          \
      return 1;                                                                \
    }                                                                          \
  } while (0)

static int testAddRelu() {
  AddRelu model;
  static_assert(AddRelu::kNumArgs == 1 && AddRelu::kNumResults == 1, "");
  static_assert(AddRelu::arg0_size() == 24 && AddRelu::arg_x_count() == 6, "");
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      model.arg0(i, j) = float(i * 3 + j) - 2.5f; // -2.5 .. 2.5
  EXPECT(model.arg_x_data()[4] == 1.5f);
  EXPECT(model.Run());
  EXPECT(std::strcmp(model.error_msg(), "") == 0);
  EXPECT(model.result0(0, 0) == 0.0f && model.result_r(1, 2) == 2.5f);
  EXPECT(model.result_r_data()[3] == 0.5f);
  EXPECT(AddRelu::LookupArgIndex("x") == 0 && AddRelu::LookupArgIndex("y") == -1);
  EXPECT(AddRelu::LookupResultIndex("r") == 0);
  return 0;
}

// A kiln_parallel that runs tasks in reverse order on the calling thread
// and counts them.
static void reverseFor(void *ctx, int64_t n, void (*fn)(void *, int64_t),
                       void *arg) {
  for (int64_t i = n; i-- > 0;)
    fn(arg, i);
  *static_cast<int64_t *>(ctx) += n;
}

static int testThreadPool() {
  AddRelu model;
  int64_t tasks = 0;
  kiln_parallel pool = {reverseFor, &tasks};
  for (int i = 0; i < 6; ++i)
    model.arg_x_data()[i] = float(i) - 2.5f;
  EXPECT(model.Run() && tasks == 0);
  model.set_thread_pool(&pool);
  EXPECT(model.Run() && tasks == 6);
  EXPECT(model.result_r(0, 1) == 0.0f && model.result_r(1, 2) == 2.5f);
  model.set_thread_pool(nullptr);
  EXPECT(model.Run() && tasks == 6);
  return 0;
}

static int testDetector() {
  using vision::models::Detector;
  static_assert(Detector::kNumArgs == 3 && Detector::kNumVariables == 1, "");
  static_assert(Detector::kArenaSize == 12288 && Detector::kNumResults == 2, "");
  KILN_STATIC_ARENA(arena, DETECTOR_ARENA_SIZE);
  // Args provided by the caller, the arena borrowed.
  Detector model(Detector::AllocMode::RESULTS_PROFILES_AND_TEMPS_ONLY, arena);
  EXPECT(!model.Run()); // args not set yet
  EXPECT(std::strcmp(model.error_msg(), "an argument buffer is not set") == 0);
  float image[1][4][4][3] = {};
  image[0][0][0][0] = 1.0f;
  image[0][0][0][1] = 0.25f;
  image[0][0][0][2] = 3.0f;
  float threshold = 0.5f;
  long long steps = 41;
  model.set_arg_image_data(image);
  model.set_arg1_data(&threshold);
  model.set_var_step_count_data(&steps);
  EXPECT(model.arg_image(0, 0, 0, 2) == 3.0f && model.arg0(0, 0, 0, 1) == 0.25f);
  EXPECT(model.arg_threshold() == 0.5f && model.var_step_count() == 41);
  EXPECT(model.Run());
  EXPECT(model.result0(0, 0, 0) == 0.5f && model.result_boxes(0, 0, 2) == 1.5f);
  EXPECT(model.result_boxes_count() == 8 && model.result_boxes_size() == 32);
  EXPECT(model.result1(0) && !model.result_keep_0(1));
  // The writable variable is updated in place, in the caller's buffer.
  EXPECT(model.var_step_count() == 42 && steps == 42);
  EXPECT(model.Run() && steps == 43);
  EXPECT(Detector::LookupArgIndex("step.count") == 2);
  EXPECT(Detector::LookupResultIndex("keep:0") == 1);
  EXPECT(Detector::LookupResultIndex("keep_0") == -1);

  // Everything owned: args allocated too, zero-sized arena rules respected.
  Detector owned;
  owned.arg_threshold() = 2.0f;
  owned.arg_image(0, 0, 0, 0) = 4.0f;
  owned.var_step_count() = 0;
  const Detector &view = owned;
  EXPECT(view.arg_threshold_data()[0] == 2.0f);
  EXPECT(owned.Run() && owned.result_boxes(0, 0, 0) == 8.0f);
  EXPECT(owned.var_step_count() == 1);
  return 0;
}

static int testSelector() {
  static_assert(Selector::kNumResults == 3 && SELECTOR_RESULT0_BOUNDED_DIM == 0, "");
  // The padded result keeps its element count by index; by name,
  // result_indices_count() is the count result: the valid rows.
  static_assert(Selector::result0_count() == 12 && Selector::result2_count() == 1, "");
  Selector model;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      model.arg_mask(i, j) = (i + j) % 2 == 1; // (0,1), (1,0), (1,2)
  EXPECT(model.Run());
  EXPECT(model.result_indices_count() == 3 && model.result2() == 3);
  EXPECT(model.result_indices(0, 1) == 1 && model.result_indices(1, 0) == 1);
  EXPECT(model.result_indices(2, 0) == 1 && model.result_indices(2, 1) == 2);
  EXPECT(model.result_any());
  EXPECT(Selector::LookupResultIndex("indices_count") == SELECTOR_RESULT0_COUNT_RESULT);
  const Selector &view = model;
  EXPECT(view.result_indices_count() == 3);
  return 0;
}

int main() {
  if (int failed = testAddRelu())
    return failed;
  if (int failed = testDetector())
    return failed;
  if (int failed = testThreadPool())
    return failed;
  if (int failed = testSelector())
    return failed;
  std::printf("golden classes ok\n");
  return 0;
}
