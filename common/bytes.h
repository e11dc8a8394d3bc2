/* bytes.h — big-endian integers in stored values, and hex digits: the
 * byte-level helpers every module that writes LMDB values or prints
 * digests shares (one copy, not one per module). */
#ifndef SC_BYTES_H
#define SC_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* Big-endian, so that LMDB's byte order of keys is their numeric order and
 * a store reads the same on every machine. */
static inline void put_be16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static inline void put_be32(unsigned char *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static inline void put_be64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static inline uint16_t get_be16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t get_be64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* Write n bytes as 2n lower-case hex digits and a NUL into out (2n + 1
 * bytes).  Returns out. */
char *sc_hex(const unsigned char *bytes, size_t n, char *out);

#endif
