/* bounds.c — Wilson's score bounds on a proportion (bounds.h). */
#include "bounds.h"

#include <math.h>

double wilson_lower(uint64_t k, uint64_t n, double z)
{
	if (!n)
		return 0;
	double p = (double)k / (double)n, nn = (double)n, z2 = z * z;
	return (p + z2 / (2 * nn) -
		z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn))) /
	       (1 + z2 / nn);
}

double wilson_upper(uint64_t k, uint64_t n, double z)
{
	if (!n)
		return 1;
	double p = (double)k / (double)n, nn = (double)n, z2 = z * z;
	return (p + z2 / (2 * nn) +
		z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn))) /
	       (1 + z2 / nn);
}
