/* blazeface_decode.c - see blazeface_decode.h. */
#include "blazeface_decode.h"

#include <math.h>

const char *const blazeface_keypoint_names[BLAZEFACE_NUM_KEYPOINTS] = {
    "right eye", "left eye", "nose", "mouth", "right ear", "left ear"};

/* The box and keypoints of anchor `index` of `grid`, whose cell centre is
 * (anchor_x, anchor_y) in pixels. */
static void decode_anchor(const struct blazeface_grid *grid, int index, float anchor_x,
                          float anchor_y, struct blazeface_face *face) {
  const float *r = grid->regressors + (long)index * BLAZEFACE_VALUES_PER_ANCHOR;
  float centre_x = anchor_x + r[0], centre_y = anchor_y + r[1];
  int k;

  face->score = 1.0f / (1.0f + expf(-grid->scores[index]));
  face->x_min = centre_x - r[2] / 2;
  face->x_max = centre_x + r[2] / 2;
  face->y_min = centre_y - r[3] / 2;
  face->y_max = centre_y + r[3] / 2;
  for (k = 0; k < BLAZEFACE_NUM_KEYPOINTS; ++k) {
    face->keypoints[k][0] = anchor_x + r[4 + 2 * k];
    face->keypoints[k][1] = anchor_y + r[5 + 2 * k];
  }
}

int blazeface_best_face(const struct blazeface_grid *grids, int num_grids,
                        struct blazeface_face *best) {
  const struct blazeface_grid *best_grid = 0;
  int best_index = 0, best_cell = 0, examined = 0, g;

  for (g = 0; g < num_grids; ++g) {
    int count = grids[g].side * grids[g].side * grids[g].anchors_per_cell, i;
    for (i = 0; i < count; ++i, ++examined) {
      if (best_grid == 0 || grids[g].scores[i] > best_grid->scores[best_index]) {
        best_grid = &grids[g];
        best_index = i;
        best_cell = i / grids[g].anchors_per_cell;
      }
    }
  }
  if (best_grid != 0) {
    float cell_pixels = (float)BLAZEFACE_INPUT_SIDE / best_grid->side;
    float anchor_x = (best_cell % best_grid->side + 0.5f) * cell_pixels;
    float anchor_y = (best_cell / best_grid->side + 0.5f) * cell_pixels;
    decode_anchor(best_grid, best_index, anchor_x, anchor_y, best);
  }
  return examined;
}
