/* key.c — the URL key shared by the LMDB databases (see sc.h). */
#include <xxhash.h>

#include "sc.h"

void sc_url_key(const char *url, size_t len, unsigned char key[SC_KEY_LEN])
{
	XXH128_hash_t h = XXH3_128bits(url, len);
	XXH128_canonicalFromHash((XXH128_canonical_t *)key, h);
}
