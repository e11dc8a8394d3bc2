/* bounds.h — Wilson's score bounds on a proportion, for the learned
 * rules' gate (adapt-*.c) and the harvest floor (focus-explore.c). */
#ifndef SC_LEARN_BOUNDS_H
#define SC_LEARN_BOUNDS_H

#include <stdint.h>

/* Wilson's lower bound on a proportion: k successes of n, quantile z
 * (0 when n is 0). */
double wilson_lower(uint64_t k, uint64_t n, double z);
/* Wilson's upper bound on a proportion: k successes of n, quantile z
 * (1 when n is 0). */
double wilson_upper(uint64_t k, uint64_t n, double z);

#endif
