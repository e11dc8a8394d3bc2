/* batch.c — the wire form of a batch of links (cluster.h).
 *
 * Binary rather than JSON: a batch of a thousand links is one pass of
 * length-prefixed fields, each bounded, and a decoder of such fields has
 * little room for mistakes.  Anything off — a count, a length, a byte
 * outside a field's alphabet, bytes after the last link — rejects the
 * whole batch: it came from another machine and its producer is broken
 * or hostile. */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cluster.h"

#define MAGIC "SCLB"
#define VERSION 1
#define HEADER_LEN (4 + 1 + 1 + 2 + CLUSTER_BATCH_ID_LEN)

static bool category_ok(const char *s, size_t n)
{
	return sc_category_name_ok(s, n, CLUSTER_CATEGORY_MAX);
}

static bool url_ok(const char *s, size_t n)
{
	if (n == 0 || n > CLUSTER_URL_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

void cluster_batch_id_new(uint32_t origin_shard,
			  unsigned char id[CLUSTER_BATCH_ID_LEN])
{
	put_be32(id, origin_shard);
	size_t got = 0;
	while (got < CLUSTER_BATCH_ID_LEN - 4) {
		ssize_t r = getrandom(id + 4 + got,
				      CLUSTER_BATCH_ID_LEN - 4 - got, 0);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got < CLUSTER_BATCH_ID_LEN - 4) {
		/* getrandom() has not failed on Linux since 3.17 once the
		 * pool is ready; should it, mix the address and the clock
		 * rather than send a fixed id that dedup would swallow. */
		static uint64_t counter;
		uint64_t v = (uint64_t)(uintptr_t)id ^
			     ++counter * 0x9E3779B97F4A7C15ULL;
		put_be64(id + 4, v);
		put_be32(id + 12, (uint32_t)(v >> 17));
	}
}

int cluster_batch_encode(const unsigned char id[CLUSTER_BATCH_ID_LEN],
			 const struct cluster_link *links, size_t n,
			 struct sc_dynbuf *out)
{
	unsigned char h[HEADER_LEN];
	sc_dyn_reset(out);
	if (n == 0 || n > CLUSTER_BATCH_LINKS_MAX)
		return SC_E_INVAL;
	memcpy(h, MAGIC, 4);
	h[4] = VERSION;
	h[5] = 0;
	put_be16(h + 6, (uint16_t)n);
	memcpy(h + 8, id, CLUSTER_BATCH_ID_LEN);
	sc_dyn_add(out, h, sizeof(h));
	for (size_t i = 0; i < n; i++) {
		const struct cluster_link *l = &links[i];
		unsigned char f[3];
		if (!l->url || !l->category || !url_ok(l->url, l->url_len) ||
		    !category_ok(l->category, l->category_len)) {
			sc_dyn_reset(out);
			return SC_E_INVAL;
		}
		put_be16(f, l->depth);
		f[2] = (unsigned char)l->category_len;
		sc_dyn_add(out, f, 3);
		sc_dyn_add(out, l->category, l->category_len);
		put_be16(f, (uint16_t)l->url_len);
		sc_dyn_add(out, f, 2);
		sc_dyn_add(out, l->url, l->url_len);
		if (out->len > CLUSTER_BATCH_BYTES_MAX) {
			sc_dyn_reset(out);
			return SC_E_LIMIT;
		}
	}
	int rc = sc_dyn_error(out);
	if (rc) {
		sc_dyn_reset(out);
		return rc == SC_E_LIMIT ? SC_E_LIMIT : SC_E_NOMEM;
	}
	return 0;
}

void cluster_batch_free(struct cluster_batch *b)
{
	if (!b)
		return;
	free(b->links);
	free(b);
}

/* The len bytes at p + *off, copied to *s with a NUL after them: the
 * copy, with *s and *off moved past. */
static const char *take(char **s, const unsigned char *p, size_t *off,
			size_t len)
{
	char *out = *s;
	memcpy(out, p + *off, len);
	out[len] = '\0';
	*s += len + 1;
	*off += len;
	return out;
}

/* One pass to check every field and count the bytes the strings need,
 * then one allocation holds the struct, the links and the strings (each
 * followed by a NUL). */
int cluster_batch_decode(const void *data, size_t len,
			 struct cluster_batch **ret)
{
	const unsigned char *p = data;
	if (!data || len < HEADER_LEN || len > CLUSTER_BATCH_BYTES_MAX ||
	    memcmp(p, MAGIC, 4) != 0 || p[4] != VERSION || p[5] != 0)
		return SC_E_CORRUPT;
	size_t n = get_be16(p + 6);
	if (n == 0 || n > CLUSTER_BATCH_LINKS_MAX)
		return SC_E_CORRUPT;
	size_t off = HEADER_LEN, strings = 0;
	for (size_t i = 0; i < n; i++) {
		if (len - off < 3)
			return SC_E_CORRUPT;
		size_t cl = p[off + 2];
		off += 3;
		if (len - off < cl + 2 ||
		    !category_ok((const char *)p + off, cl))
			return SC_E_CORRUPT;
		off += cl;
		size_t ul = get_be16(p + off);
		off += 2;
		if (len - off < ul || !url_ok((const char *)p + off, ul))
			return SC_E_CORRUPT;
		off += ul;
		strings += cl + 1 + ul + 1;
	}
	if (off != len)
		return SC_E_CORRUPT;

	struct cluster_batch *b = calloc(1, sizeof(*b));
	if (!b)
		return SC_E_NOMEM;
	/* links and strings in one block, freed with b->links. */
	char *block = malloc(n * sizeof(struct cluster_link) + strings);
	if (!block) {
		free(b);
		return SC_E_NOMEM;
	}
	b->links = (struct cluster_link *)block;
	char *s = block + n * sizeof(struct cluster_link);
	memcpy(b->id, p + 8, CLUSTER_BATCH_ID_LEN);
	b->n = n;
	off = HEADER_LEN;
	for (size_t i = 0; i < n; i++) {
		struct cluster_link *l = &b->links[i];
		l->depth = get_be16(p + off);
		l->category_len = p[off + 2];
		off += 3;
		l->category = take(&s, p, &off, l->category_len);
		l->url_len = get_be16(p + off);
		off += 2;
		l->url = take(&s, p, &off, l->url_len);
	}
	*ret = b;
	return 0;
}
