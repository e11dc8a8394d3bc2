/* dynbuf.c — the bounded growable buffer (sc.h). */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc.h"

/* The first allocation: most buffers are a line or a header block. */
#define DYN_FIRST 256

void sc_dyn_init(struct sc_dynbuf *b, size_t toobig)
{
	*b = (struct sc_dynbuf){ .toobig = toobig ? toobig : 1 };
}

/* Frees what B held and remembers ERR (see sc.h: a half-built string is
 * never used by mistake). */
static int dyn_fail(struct sc_dynbuf *b, int err)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->err = err;
	return err;
}

int sc_dyn_reserve(struct sc_dynbuf *b, size_t n)
{
	if (b->err)
		return b->err;
	if (n >= b->toobig - b->len)
		return dyn_fail(b, SC_E_LIMIT);
	size_t need = b->len + n + 1; /* at most toobig */
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : DYN_FIRST;
	while (cap < need)
		cap = cap > b->toobig / 2 ? b->toobig : 2 * cap;
	if (cap > b->toobig)
		cap = b->toobig;
	char *p = sc_realloc(b->p, cap);
	if (!p)
		return dyn_fail(b, SC_E_NOMEM);
	b->p = p;
	b->cap = cap;
	return 0;
}

void sc_dyn_setlen(struct sc_dynbuf *b, size_t len)
{
	if (!b->p)
		return; /* nothing reserved: only 0 is a valid length */
	assert(len < b->cap);
	b->len = len;
	b->p[len] = '\0';
}

int sc_dyn_add(struct sc_dynbuf *b, const void *data, size_t n)
{
	int rc = sc_dyn_reserve(b, n);
	if (rc)
		return rc;
	if (n)
		memcpy(b->p + b->len, data, n);
	sc_dyn_setlen(b, b->len + n);
	return 0;
}

int sc_dyn_add_str(struct sc_dynbuf *b, const char *s)
{
	return sc_dyn_add(b, s, strlen(s));
}

int sc_dyn_printf(struct sc_dynbuf *b, const char *fmt, ...)
{
	if (b->err)
		return b->err;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return dyn_fail(b, SC_E_INVAL);
	int rc = sc_dyn_reserve(b, (size_t)n);
	if (rc)
		return rc;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sc_dyn_setlen(b, b->len + (size_t)n);
	return 0;
}

void sc_dyn_reset(struct sc_dynbuf *b)
{
	b->err = 0;
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

void sc_dyn_free(struct sc_dynbuf *b)
{
	free(b->p);
	*b = (struct sc_dynbuf){ .toobig = b->toobig };
}
