/* error.c — messages for enum sc_err. */
#include "sc.h"

const char *sc_strerror(int err)
{
	switch ((enum sc_err)err) {
	case SC_OK: return "success";
	case SC_E_EMPTY: return "empty URL";
	case SC_E_SCHEME:
		return "unsupported scheme (only http and https are crawled)";
	case SC_E_NOHOST: return "missing host";
	case SC_E_PORT: return "bad port";
	case SC_E_HOST_PERCENT: return "invalid percent-encoding in host";
	case SC_E_IPV6: return "bad IPv6 literal";
	case SC_E_IDN: return "invalid internationalized domain name";
	case SC_E_TOOLONG:
		return "URL longer than 2048 bytes after normalization";
	case SC_E_HOST: return "invalid host";
	case SC_E_RELATIVE: return "relative reference without a base URL";
	case SC_E_STEP: return "unknown normalization step or profile";
	case SC_E_NOMEM: return "out of memory";
	case SC_E_INVAL: return "invalid argument";
	case SC_E_NOSPC: return "buffer too small";
	case SC_E_IO: return "input/output error";
	case SC_E_DB: return "database error";
	case SC_E_NOTFOUND: return "not found";
	case SC_E_CORRUPT: return "stored data is corrupt";
	case SC_E_AGAIN: return "nothing ready yet";
	case SC_E_LIMIT: return "input exceeds a processing limit";
	case SC_E_PROFILE:
		return "the store was crawled with another normalization";
	case SC_E_FULL: return "database full";
	case SC_E_NET: return "cluster messaging failed (NATS)";
	case SC_E_TIMEOUT: return "timed out";
	case SC_E_FORMAT:
		return "the store was written by a newer sigcrawl, in a format "
		       "this version does not read";
	}
	return "unknown error";
}
