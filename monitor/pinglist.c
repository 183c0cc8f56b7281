/* Pinglists: the peers one host probes (name, address, rate, leaf), from a
 * file's `NAME ADDRESS [rate=HZ] [leaf=LEAF]` lines or built from a host list. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"
#include "monitor_int.h"

#define PL_FILE_MAX (1u << 20)

RCK_EXPORT int rck_pinglist_new(struct rck_pinglist **out)
{
	if (!out)
		return -EINVAL;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

RCK_EXPORT void rck_pinglist_free(struct rck_pinglist *pl)
{
	if (!pl)
		return;
	for (unsigned int i = 0; i < pl->n; i++) {
		free(pl->peers[i].name);
		free(pl->peers[i].addr);
		free(pl->peers[i].leaf);
	}
	free(pl->peers);
	free(pl);
}

static bool name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > RCK_PINGLIST_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr("._:/@+-", *s)))
			return false;
	return true;
}

/* IP, IP:PORT or [IPv6]:PORT with a port in 1..65535. */
static bool addr_ok(const char *s)
{
	char buf[INET6_ADDRSTRLEN + 8];
	unsigned char bin[16];
	const char *port = NULL;
	size_t n = strlen(s);

	if (!n || n >= sizeof(buf))
		return false;
	if (s[0] == '[') {
		const char *e = strchr(s, ']');

		if (!e || e[1] != ':' || (size_t)(e - s - 1) >= sizeof(buf))
			return false;
		memcpy(buf, s + 1, (size_t)(e - s - 1));
		buf[e - s - 1] = 0;
		port = e + 2;
		if (inet_pton(AF_INET6, buf, bin) != 1)
			return false;
	} else if (inet_pton(AF_INET6, s, bin) == 1) {
		return true;
	} else {
		const char *c = strchr(s, ':');

		memcpy(buf, s, c ? (size_t)(c - s) : n);
		buf[c ? c - s : (long)n] = 0;
		if (inet_pton(AF_INET, buf, bin) != 1)
			return false;
		port = c ? c + 1 : NULL;
	}
	if (port) {
		unsigned long v = 0;

		if (!*port || strlen(port) > 5)
			return false;
		for (const char *p = port; *p; p++) {
			if (*p < '0' || *p > '9')
				return false;
			v = v * 10 + (unsigned long)(*p - '0');
		}
		if (!v || v > 65535)
			return false;
	}
	return true;
}

static int find(const struct rck_pinglist *pl, const char *name)
{
	for (unsigned int i = 0; i < pl->n; i++)
		if (!strcmp(pl->peers[i].name, name))
			return (int)i;
	return -1;
}

RCK_EXPORT int rck_pinglist_add(struct rck_pinglist *pl, const char *name, const char *addr,
				double rate_hz, const char *leaf)
{
	struct ml_peer *p;

	if (!pl || !name_ok(name) || !addr || !addr_ok(addr) || !isfinite(rate_hz) ||
	    rate_hz < 0.01 || rate_hz > 100 || (leaf && !name_ok(leaf)))
		return -EINVAL;
	if (pl->n >= RCK_PINGLIST_MAX)
		return -E2BIG;
	if (find(pl, name) >= 0)
		return -EEXIST;
	if (pl->n == pl->cap) {
		unsigned int cap = pl->cap ? 2 * pl->cap : 16;
		struct ml_peer *v = realloc(pl->peers, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		pl->peers = v;
		pl->cap = cap;
	}
	p = &pl->peers[pl->n];
	p->name = strdup(name);
	p->addr = strdup(addr);
	p->leaf = leaf ? strdup(leaf) : NULL;
	p->rate_hz = rate_hz;
	if (!p->name || !p->addr || (leaf && !p->leaf)) {
		free(p->name);
		free(p->addr);
		free(p->leaf);
		return -ENOMEM;
	}
	pl->n++;
	return 0;
}

RCK_EXPORT unsigned int rck_pinglist_count(const struct rck_pinglist *pl)
{
	return pl ? pl->n : 0;
}

RCK_EXPORT bool rck_pinglist_peer(const struct rck_pinglist *pl, unsigned int i, const char **name,
				  const char **addr, double *rate_hz, const char **leaf)
{
	if (!pl || i >= pl->n)
		return false;
	if (name)
		*name = pl->peers[i].name;
	if (addr)
		*addr = pl->peers[i].addr;
	if (rate_hz)
		*rate_hz = pl->peers[i].rate_hz;
	if (leaf)
		*leaf = pl->peers[i].leaf;
	return true;
}

static int fail(char *err, size_t errlen, const char *name, unsigned int line, const char *fmt, ...)
	RCK_PRINTF(5, 6);
static int fail(char *err, size_t errlen, const char *name, unsigned int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return -EINVAL;
	n = snprintf(err, errlen, "%s:%u: ", name, line);
	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	/* the name is the caller's: keep the message one line */
	for (char *p = err; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return -EINVAL;
}

#define PL_FIELDS 4

/* Split one line (NUL-terminated, comment removed) into at most PL_FIELDS
 * blank-separated words; -1 when there are more. */
static int split(char *s, char **w)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			*s++ = 0;
		if (!*s)
			return n;
		if (n == PL_FIELDS)
			return -1;
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
	}
}

static int parse_line(struct rck_pinglist *pl, char *s, const char *name, unsigned int ln,
		      char *err, size_t errlen)
{
	char *w[PL_FIELDS], *leaf = NULL, *end;
	double rate = RCK_PINGLIST_OTHER_HZ;
	bool have_rate = false;
	int n = split(s, w), rc;

	if (n == 0)
		return 0;
	if (n < 0)
		return fail(err, errlen, name, ln, "too many fields (NAME ADDRESS [rate=HZ] [leaf=LEAF])");
	if (n < 2)
		return fail(err, errlen, name, ln, "a peer needs NAME and ADDRESS");
	for (int i = 2; i < n; i++) {
		if (!strncmp(w[i], "rate=", 5) && !have_rate) {
			errno = 0;
			rate = strtod(w[i] + 5, &end);
			if (errno || end == w[i] + 5 || *end || !isfinite(rate) || rate < 0.01 || rate > 100)
				return fail(err, errlen, name, ln, "rate must be 0.01 to 100 probes/s");
			have_rate = true;
		} else if (!strncmp(w[i], "leaf=", 5) && !leaf) {
			leaf = w[i] + 5;
			if (!name_ok(leaf))
				return fail(err, errlen, name, ln, "bad leaf name");
		} else {
			return fail(err, errlen, name, ln, "unknown or repeated option (rate=HZ, leaf=LEAF)");
		}
	}
	if (!name_ok(w[0]))
		return fail(err, errlen, name, ln, "bad peer name (1-127 of A-Z a-z 0-9 . _ : / @ + -)");
	if (!addr_ok(w[1]))
		return fail(err, errlen, name, ln, "bad address (IP, IP:PORT or [IPv6]:PORT)");
	rc = rck_pinglist_add(pl, w[0], w[1], rate, leaf);
	if (rc == -EEXIST)
		return fail(err, errlen, name, ln, "peer listed twice");
	if (rc == -E2BIG) {
		fail(err, errlen, name, ln, "more than %u peers", RCK_PINGLIST_MAX);
		return -E2BIG;
	}
	return rc;
}

RCK_EXPORT int rck_pinglist_parse(const char *text, size_t len, const char *name,
				  struct rck_pinglist **out, char *err, size_t errlen)
{
	struct rck_pinglist *pl;
	unsigned int ln = 0;
	char line[1024];
	size_t pos = 0;
	int rc = 0;

	if (!out || (!text && len))
		return -EINVAL;
	if (!name)
		name = "pinglist";
	if (len > PL_FILE_MAX) {
		fail(err, errlen, name, 0, "larger than 1 MiB");
		return -E2BIG;
	}
	if ((rc = rck_pinglist_new(&pl)))
		return rc;
	while (pos < len && !rc) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		char *hash;

		ln++;
		if (n >= sizeof(line)) {
			rc = fail(err, errlen, name, ln, "line longer than %zu bytes", sizeof(line) - 1);
			break;
		}
		if (memchr(text + pos, 0, n)) {
			rc = fail(err, errlen, name, ln, "NUL byte");
			break;
		}
		memcpy(line, text + pos, n);
		line[n] = 0;
		if (n && line[n - 1] == '\r')
			line[n - 1] = 0;
		if ((hash = strchr(line, '#')))
			*hash = 0;
		rc = parse_line(pl, line, name, ln, err, errlen);
		pos += n + 1;
	}
	if (rc) {
		rck_pinglist_free(pl);
		return rc;
	}
	*out = pl;
	return 0;
}

RCK_EXPORT int rck_pinglist_load(const char *path, struct rck_pinglist **out, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (!path || !out)
		return -EINVAL;
	rc = rck_file_read(path, false, PL_FILE_MAX, &buf, &len);
	if (rc) {
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, rc == -EFBIG ?
				 "larger than 1 MiB" : rck_strerror(rc));
		return rc == -EFBIG ? -E2BIG : rc == -RCK_ENOTREG ? -EINVAL : rc;
	}
	rc = rck_pinglist_parse(buf, len, path, out, err, errlen);
	free(buf);
	return rc;
}

RCK_EXPORT int rck_pinglist_build(const struct rck_pinglist *hosts, const char *self, double leaf_hz,
				  double other_hz, unsigned int sample, unsigned int round,
				  struct rck_pinglist **out)
{
	struct rck_pinglist *pl;
	const char *leaf;
	unsigned int n_other = 0, start, taken = 0;
	int me, rc;

	if (!hosts || !self || !out)
		return -EINVAL;
	if ((me = find(hosts, self)) < 0)
		return -ENOENT;
	leaf = hosts->peers[me].leaf;
	if ((rc = rck_pinglist_new(&pl)))
		return rc;
	for (unsigned int i = 0; i < hosts->n && !rc; i++) {
		const struct ml_peer *p = &hosts->peers[i];

		if ((int)i == me)
			continue;
		if (leaf && p->leaf && !strcmp(leaf, p->leaf))
			rc = rck_pinglist_add(pl, p->name, p->addr, leaf_hz, p->leaf);
		else
			n_other++;
	}
	if (!rc && n_other && sample) {
		if (sample > n_other)
			sample = n_other;
		start = (unsigned int)(((uint64_t)round * sample) % n_other);
		/* the others in list order, from start, wrapping: k-th other is taken
		 * when (k - start) mod n_other < sample */
		for (unsigned int i = 0, k = 0; i < hosts->n && !rc && taken < sample; i++) {
			const struct ml_peer *p = &hosts->peers[i];

			if ((int)i == me || (leaf && p->leaf && !strcmp(leaf, p->leaf)))
				continue;
			if ((k + n_other - start) % n_other < sample) {
				rc = rck_pinglist_add(pl, p->name, p->addr, other_hz, p->leaf);
				taken++;
			}
			k++;
		}
	}
	if (rc) {
		rck_pinglist_free(pl);
		return rc;
	}
	*out = pl;
	return 0;
}

RCK_EXPORT int rck_pinglist_write(const struct rck_pinglist *pl, FILE *out)
{
	if (!pl || !out)
		return -EINVAL;
	fputs("# rocecheck pinglist: NAME ADDRESS [rate=HZ] [leaf=LEAF]\n", out);
	for (unsigned int i = 0; i < pl->n; i++) {
		fprintf(out, "%s %s rate=%.17g", pl->peers[i].name, pl->peers[i].addr, pl->peers[i].rate_hz);
		if (pl->peers[i].leaf)
			fprintf(out, " leaf=%s", pl->peers[i].leaf);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}
