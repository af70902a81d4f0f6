/* blazeface_decode.h - turns the raw outputs of MediaPipe's BlazeFace front
 * model (128x128 input) into face boxes. C99, no heap.
 *
 * The model predicts, for each of 896 anchors, a score logit and 16 numbers:
 * the box centre offset from the anchor, the box width and height, and the
 * x, y of six keypoints, all in pixels of the 128x128 input. The anchors are
 * the centres of two grids: 16x16 cells (stride 8) with 2 anchors per cell,
 * and 8x8 cells (stride 16) with 6 anchors per cell, in row-major cell order
 * with a cell's anchors adjacent. */
#ifndef BLAZEFACE_DECODE_H
#define BLAZEFACE_DECODE_H

#define BLAZEFACE_INPUT_SIDE 128
#define BLAZEFACE_VALUES_PER_ANCHOR 16
#define BLAZEFACE_NUM_KEYPOINTS 6

/* One grid of anchors and the model outputs that belong to it. */
struct blazeface_grid {
  int side;               /* cells per row and column */
  int anchors_per_cell;
  const float *scores;    /* side*side*anchors_per_cell score logits */
  const float *regressors;/* the same count times BLAZEFACE_VALUES_PER_ANCHOR */
};

/* A detection in pixels of the 128x128 input. */
struct blazeface_face {
  float score; /* probability, the logistic of the logit */
  float x_min, y_min, x_max, y_max;
  float keypoints[BLAZEFACE_NUM_KEYPOINTS][2]; /* right eye, left eye, nose,
                                                  mouth, right ear, left ear */
};

/* The names of the keypoints, in the order above. */
extern const char *const blazeface_keypoint_names[BLAZEFACE_NUM_KEYPOINTS];

/* Decodes the anchor with the highest score over all `num_grids` grids into
 * *best. Returns the number of anchors examined (0 if there were none). */
int blazeface_best_face(const struct blazeface_grid *grids, int num_grids,
                        struct blazeface_face *best);

#endif /* BLAZEFACE_DECODE_H */
