/* cmd-normalize.c — `sigcrawl normalize`: a filter, one URL per line.
 *
 * It streams: input is read in fixed blocks and a line longer than the
 * block is reported and skipped, so memory stays constant whatever the
 * input.  Exactly one output line is written per input line.
 *
 * It prints the URL it normalized, a password in its userinfo included:
 * masking (normalize.h, SPEC §4) is for what the crawl stores and logs,
 * and --mask-passwords asks for it here too. */
#include <ctype.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "normalize.h"

#define CMD "normalize"

/* Longest line read whole.  Longer lines cannot be URLs we keep
 * (NORM_INPUT_MAX); they are skipped with an error. */
#define LINE_MAX_BYTES (64 * 1024)

struct line_reader {
	FILE *f;
	size_t start, end;
	bool eof;
	char buf[LINE_MAX_BYTES];
};

/* Next line without its '\n'.  Returns false at the end of input.  A line
 * longer than the buffer is consumed and returned empty with *too_long. */
static bool read_line(struct line_reader *r, const char **line, size_t *len,
		      bool *too_long)
{
	*too_long = false;
	for (;;) {
		char *nl = memchr(r->buf + r->start, '\n', r->end - r->start);
		if (nl) {
			*line = r->buf + r->start;
			*len = (size_t)(nl - *line);
			r->start = (size_t)(nl - r->buf) + 1;
			if (*too_long)
				*len = 0;
			return true;
		}
		if (r->eof) {
			if (r->start == r->end && !*too_long)
				return false;
			*line = r->buf + r->start;
			*len = *too_long ? 0 : r->end - r->start;
			r->start = r->end;
			return true;
		}
		if (r->start == 0 && r->end == sizeof(r->buf)) {
			*too_long = true; /* drop what we have, keep reading */
			r->end = 0;
		} else if (r->start > 0) {
			memmove(r->buf, r->buf + r->start, r->end - r->start);
			r->end -= r->start;
			r->start = 0;
		}
		size_t got = fread(r->buf + r->end, 1, sizeof(r->buf) - r->end,
				   r->f);
		r->end += got;
		if (got == 0)
			r->eof = true;
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sigcrawl normalize [--profile P] [--steps LIST] [--base URL]\n"
		"                          [--mask-passwords]\n"
		"\n"
		"Reads URLs from stdin, one per line, and writes each one normalized\n"
		"on its own line to stdout.  An invalid URL gives an empty line and a\n"
		"message on stderr naming the line; the exit status is then 1.\n"
		"\n"
		"  -p, --profile P   strict, extended (default), aggressive, adaptive\n"
		"  -s, --steps LIST  adjust the profile: \"+step,-step,...\"\n"
		"  -b, --base URL    resolve relative references against URL\n"
		"  -m, --mask-passwords\n"
		"                    write a password in a URL as user:***@, as\n"
		"                    the crawl stores and logs it (by default the\n"
		"                    URL is written with its password)\n"
		"  -h, --help        this text\n"
		"\n"
		"steps, in the order they apply (S strict, E extended, A aggressive):\n");
	/* List in application order is documented in normalize.h; here in
	 * bit order with the profiles each belongs to. */
	uint32_t s = norm_profile_steps(NORM_PROFILE_STRICT);
	uint32_t e = norm_profile_steps(NORM_PROFILE_EXTENDED);
	uint32_t a = norm_profile_steps(NORM_PROFILE_AGGRESSIVE);
	for (int i = 0; i < NORM_STEP_COUNT; i++) {
		uint32_t bit = 1u << i;
		fprintf(f, "  %-26s %c%c%c\n", norm_step_name(bit),
			(s & bit) ? 'S' : '-', (e & bit) ? 'E' : '-',
			(a & bit) ? 'A' : '-');
	}
}

/* Print at most 60 bytes of a rejected line, control bytes as '?', so that
 * a hostile line cannot write escape sequences to the terminal. */
/* The password norm_url() masked in the line just normalized. */
struct password {
	bool got;
	size_t len;
	char s[NORM_PASSWORD_MAX + 1];
};

static void on_password(void *arg, const char *url, const struct norm_url *u,
			const char *password, size_t len)
{
	struct password *p = arg;
	(void)url;
	(void)u;
	if (len > NORM_PASSWORD_MAX)
		return;
	memcpy(p->s, password, len);
	p->len = len;
	p->got = true;
}

/* Write out (n bytes, its components u) with the masked password put
 * back in its userinfo, which ends in ":" NORM_PASSWORD_MASK. */
static void write_unmasked(const char *out, size_t n, const struct norm_url *u,
			   const struct password *p)
{
	size_t ml = sizeof(NORM_PASSWORD_MASK) - 1;
	size_t end = (size_t)u->user_off + u->user_len;
	if (!u->has_user || u->user_len < ml + 1 || end > n ||
	    memcmp(out + end - ml, NORM_PASSWORD_MASK, ml) != 0) {
		fwrite(out, 1, n, stdout);
		return;
	}
	fwrite(out, 1, end - ml, stdout);
	fwrite(p->s, 1, p->len, stdout);
	fwrite(out + end, 1, n - end, stdout);
}

/* Whether a line, which norm_url() wrote as out (its components u), took
 * its authority from the base: a reference with neither a scheme nor
 * "//" (RFC 3986 §4.2) whose result has the base's userinfo and host. */
static bool base_authority(const char *line, size_t len, const char *out,
			   const struct norm_url *u, const struct norm_base *b)
{
	size_t i = 0;
	while (i < len && (unsigned char)line[i] <= 0x20)
		i++;
	if (len - i >= 2 && (line[i] == '/' || line[i] == '\\') &&
	    (line[i + 1] == '/' || line[i + 1] == '\\'))
		return false;
	if (i < len && isalpha((unsigned char)line[i])) {
		size_t k = i + 1;
		while (k < len &&
		       (isalnum((unsigned char)line[k]) || line[k] == '+' ||
			line[k] == '-' || line[k] == '.'))
			k++;
		if (k < len && line[k] == ':')
			return false;
	}
	const struct norm_url *bu = &b->u;
	if (!u->has_user || !bu->has_user)
		return false;
	size_t n = (size_t)(u->path_off - u->user_off);
	return n == (size_t)(bu->path_off - bu->user_off) &&
	       memcmp(out + u->user_off, b->buf + bu->user_off, n) == 0;
}

static void print_excerpt(const char *s, size_t n)
{
	size_t k = n > 60 ? 60 : n;
	fputs(" \"", stderr);
	for (size_t i = 0; i < k; i++) {
		unsigned char c = (unsigned char)s[i];
		fputc(c < 0x20 || c == 0x7f ? '?' : c, stderr);
	}
	fputs(n > k ? "...\"\n" : "\"\n", stderr);
}

int cmd_normalize(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "steps", required_argument, NULL, 's' },
		{ "base", required_argument, NULL, 'b' },
		{ "mask-passwords", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *profile_name = "extended", *steps_list = NULL,
		   *base_url = NULL;
	bool mask = false;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:s:b:mh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'p': profile_name = optarg; break;
		case 's': steps_list = optarg; break;
		case 'b': base_url = optarg; break;
		case 'm': mask = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		default:
			sc_errorf(CMD, "bad option '%s' (see --help)",
				  argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		sc_errorf(CMD,
			  "unexpected argument '%s': URLs are read from stdin",
			  argv[optind]);
		return EXIT_USAGE;
	}

	enum norm_profile profile;
	if (norm_profile_parse(profile_name, &profile)) {
		sc_errorf(
			CMD,
			"unknown profile '%s' (strict, extended, aggressive, adaptive)",
			profile_name);
		return EXIT_USAGE;
	}
	static struct password pw;
	struct norm_opts opts = { .steps = norm_profile_steps(profile) };
	if (!mask) {
		opts.on_password = on_password;
		opts.on_password_arg = &pw;
	}
	if (steps_list) {
		const char *bad;
		size_t bad_len;
		if (norm_steps_parse(steps_list, &opts.steps, &bad, &bad_len)) {
			sc_errorf(CMD,
				  "unknown step '%.*s' in --steps (see --help)",
				  (int)bad_len, bad);
			return EXIT_USAGE;
		}
	}

	static struct norm_base base;
	/* The base's own password: norm_base_set() keeps the base masked,
	 * so a relative reference that takes the base's authority gets
	 * "***" and no callback; it is put back from here. */
	static struct password base_pw;
	if (base_url) {
		int rc = norm_base_set(&base, NULL, base_url, strlen(base_url));
		if (rc) {
			sc_errorf(CMD, "invalid --base '%s': %s", base_url,
				  sc_strerror(rc));
			return EXIT_USAGE;
		}
		if (!mask) {
			struct norm_opts bo = { .on_password = on_password,
						.on_password_arg = &base_pw };
			char tmp[NORM_URL_MAX + 1];
			if (norm_url(&bo, NULL, base_url, strlen(base_url), tmp,
				     sizeof(tmp), NULL) != 0)
				base_pw.got = false;
		}
	}

	static struct line_reader reader;
	static char outbuf[1 << 16];
	reader.f = stdin;
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));

	char out[NORM_URL_MAX + 2];
	struct norm_url u;
	const char *line;
	size_t len, lineno = 0, bad = 0;
	bool too_long;
	while (read_line(&reader, &line, &len, &too_long)) {
		lineno++;
		pw.got = false;
		int rc = too_long ? SC_E_TOOLONG
				  : norm_url(&opts, base_url ? &base : NULL,
					     line, len, out, sizeof(out) - 1,
					     &u);
		if (rc) {
			bad++;
			fprintf(stderr,
				"sigcrawl normalize: line %zu: %s:", lineno,
				sc_strerror(rc));
			print_excerpt(line, len);
			fputc('\n', stdout);
			continue;
		}
		size_t n = strlen(out);
		if (pw.got)
			write_unmasked(out, n, &u, &pw);
		else if (base_pw.got &&
			 base_authority(line, len, out, &u, &base))
			write_unmasked(out, n, &u, &base_pw);
		else
			fwrite(out, 1, n, stdout);
		fputc('\n', stdout);
	}
	if (ferror(stdin)) {
		sc_errorf(CMD, "reading stdin failed");
		return EXIT_RUNTIME;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		sc_errorf(CMD, "writing stdout failed");
		return EXIT_RUNTIME;
	}
	return bad ? EXIT_RUNTIME : EXIT_OK;
}
