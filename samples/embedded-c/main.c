/* main.c - face detection as a board would run it: BlazeFace (compiled by
 * kiln_add_model, CMakeLists.txt) on a 128x128 RGB photo, with every buffer
 * static, no heap, and the weights in the model object's read-only data.
 *
 * Usage: face_detect [IMAGE.rgb]
 *   IMAGE.rgb: 128*128*3 bytes, rows top to bottom, R G B per pixel. Without
 *   it, the photo built into the program (face.rgb, see README.md) is used.
 * Prints the best-scoring detection: its score, box and keypoints in pixels
 * of the 128x128 image, and whether it passes BlazeFace's usual threshold. */
#include "blazeface.h"
#include "blazeface_decode.h"

#include <kiln/runtime.h>
#include <stdint.h>
#include <stdio.h>

#define IMAGE_BYTES (BLAZEFACE_INPUT_SIDE * BLAZEFACE_INPUT_SIDE * 3)
#define FACE_THRESHOLD 0.75f /* MediaPipe's minimum score for the front model */

/* The header's results, in its order, are the stride-8 scores and boxes, then
 * the stride-16 boxes and scores (the model's own output order); a model with
 * other outputs fails to compile here (C99 has no static_assert). */
typedef char results_are_in_the_expected_order
    [(BLAZEFACE_RESULT0_SIZE == 512 * 4 && BLAZEFACE_RESULT1_SIZE == 512 * 16 * 4 &&
      BLAZEFACE_RESULT2_SIZE == 384 * 16 * 4 && BLAZEFACE_RESULT3_SIZE == 384 * 4 &&
      BLAZEFACE_ARG0_SIZE == IMAGE_BYTES * 4)
         ? 1
         : -1];

/* face_image.c, generated from face.rgb at build time. */
extern const uint8_t face_image[IMAGE_BYTES];

/* The model's scratch memory: static, aligned as the generated code needs. */
KILN_STATIC_ARENA(arena, BLAZEFACE_ARENA_SIZE);
static float input[BLAZEFACE_ARG0_SIZE / sizeof(float)];
static float scores_stride8[BLAZEFACE_RESULT0_SIZE / sizeof(float)];
static float boxes_stride8[BLAZEFACE_RESULT1_SIZE / sizeof(float)];
static float boxes_stride16[BLAZEFACE_RESULT2_SIZE / sizeof(float)];
static float scores_stride16[BLAZEFACE_RESULT3_SIZE / sizeof(float)];
static uint8_t file_image[IMAGE_BYTES];

/* Reads a raw image of exactly IMAGE_BYTES bytes into file_image. */
static int read_image(const char *path) {
  FILE *file = fopen(path, "rb");
  size_t got;
  int extra;
  if (file == NULL) {
    fprintf(stderr, "error: cannot open image '%s'\n", path);
    return 0;
  }
  got = fread(file_image, 1, IMAGE_BYTES, file);
  extra = fgetc(file);
  fclose(file);
  if (got != IMAGE_BYTES || extra != EOF) {
    fprintf(stderr, "error: image '%s' must be %d bytes (128x128 RGB), it is %s\n", path,
            IMAGE_BYTES, got != IMAGE_BYTES ? "shorter" : "longer");
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  const uint8_t *image = face_image;
  const void *args[BLAZEFACE_NUM_ARGS];
  void *results[BLAZEFACE_NUM_RESULTS];
  struct blazeface_grid grids[2];
  struct blazeface_face face;
  int i, status;

  if (argc > 2) {
    fprintf(stderr, "usage: face_detect [IMAGE.rgb]\n");
    return 1;
  }
  if (argc == 2) {
    if (!read_image(argv[1]))
      return 1;
    image = file_image;
  }
  if (kiln_check_abi(BLAZEFACE_ABI_VERSION) != KILN_OK) {
    fprintf(stderr, "error: %s\n", kiln_status_string(KILN_ERROR_ABI_MISMATCH));
    return 1;
  }

  /* BlazeFace takes RGB scaled to [-1, 1]. */
  for (i = 0; i < IMAGE_BYTES; ++i)
    input[i] = image[i] / 127.5f - 1.0f;
  /* The results in the header's order (BLAZEFACE_RESULTi_SIZE comments). */
  args[0] = input;
  results[0] = scores_stride8;
  results[1] = boxes_stride8;
  results[2] = boxes_stride16;
  results[3] = scores_stride16;
  status = blazeface_run(args, results, arena);
  if (status != KILN_OK) {
    fprintf(stderr, "error: blazeface_run: %s\n", kiln_status_string(status));
    return 1;
  }

  grids[0].side = 16;
  grids[0].anchors_per_cell = 2;
  grids[0].scores = scores_stride8;
  grids[0].regressors = boxes_stride8;
  grids[1].side = 8;
  grids[1].anchors_per_cell = 6;
  grids[1].scores = scores_stride16;
  grids[1].regressors = boxes_stride16;
  blazeface_best_face(grids, 2, &face);

  printf("%s: score %.4f\n", face.score >= FACE_THRESHOLD ? "face" : "no face", face.score);
  printf("box: x %.2f..%.2f y %.2f..%.2f (pixels of the 128x128 image)\n", face.x_min,
         face.x_max, face.y_min, face.y_max);
  for (i = 0; i < BLAZEFACE_NUM_KEYPOINTS; ++i)
    printf("%s: %.2f %.2f\n", blazeface_keypoint_names[i], face.keypoints[i][0],
           face.keypoints[i][1]);
  return 0;
}
