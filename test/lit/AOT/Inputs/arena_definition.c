/* The arena as a bare-metal caller defines it, with the header's
 * attributes (bare-metal.test). */
#include MODEL_HEADER

unsigned char *arena_address(void);

static uint8_t arena[ARENA_SIZE] ARENA_ATTRIBUTES;

unsigned char *arena_address(void) { return arena; }
