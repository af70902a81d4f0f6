/* profile_table.c - Prints the kernel table of the model compiled as `chain`
 * with --profile (profile-large-table.test): its size and every kernel's
 * instruction and opcode, one line each. Nothing runs. */
#include "chain.h"

#include <kiln/profile.h>

#include <stdio.h>

int main(void) {
  const kiln_profile *p = chain_profile();
  uint64_t i;
  printf("model %s, %u kernels\n", p->model, (unsigned)p->num_kernels);
  for (i = 0; i < p->num_kernels; ++i)
    printf("kernel %u %s %s\n", (unsigned)i, p->kernels[i].instruction,
           p->kernels[i].opcode);
  return 0;
}
