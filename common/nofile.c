/* nofile.c — the descriptor limit (sc.h, sc_raise_nofile()). */
#include "sc.h"

#include <limits.h>
#include <sys/resource.h>

unsigned long long sc_raise_nofile(unsigned long long *raised_from)
{
	if (raised_from)
		*raised_from = 0;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		/* The kernel refuses more than fs.nr_open (2^20 by
		 * default): an unlimited hard limit is not a number. */
		rlim_t want = rl.rlim_max == RLIM_INFINITY ||
					      rl.rlim_max > (1u << 20)
				      ? (1u << 20)
				      : rl.rlim_max;
		struct rlimit n = { want, rl.rlim_max };
		if (want > rl.rlim_cur && setrlimit(RLIMIT_NOFILE, &n) == 0) {
			if (raised_from)
				*raised_from = (unsigned long long)rl.rlim_cur;
			rl.rlim_cur = want;
		}
	}
	return rl.rlim_cur == RLIM_INFINITY ? ULLONG_MAX
					    : (unsigned long long)rl.rlim_cur;
}
