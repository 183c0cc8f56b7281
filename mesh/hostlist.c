/* Host lists: comma lists, Slurm-style nodelists ("rack[1-2]-n[01-04]")
 * and hostfiles, expanded into an ordered list of distinct names. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "rocecheck/mesh.h"
#include "grow.h"
#include "hostlist.h"
#include "strset.h"

/* Nine digits keep every bound and count inside 32 bits. */
#define NUM_DIGITS_MAX 9
#define HOSTFILE_MAX (16u << 20)

struct rck_hostlist {
	struct strset set;
	unsigned int dups;
	unsigned int max; /* RCK_HOSTLIST_MAX, lower for fuzzing */
};

/* One parse: where messages go and the names expanded so far (added to the
 * list only when the whole input parsed). */
struct hl_parse {
	char *err;
	size_t errlen;
	const char *prefix; /* "NAME:LINE:" for hostfiles, "" otherwise */
	char **names;
	size_t n, cap;
	const struct strset *have; /* the list's names: they take no room */
	unsigned int room;         /* new names the list may still take */
	unsigned int max;
};

RCK_PRINTF(3, 4) static int fail(struct hl_parse *p, int rc, const char *fmt, ...)
{
	va_list ap;
	int o;

	if (!p->err || !p->errlen)
		return rc;
	o = snprintf(p->err, p->errlen, "%s", p->prefix);
	if (o < 0 || (size_t)o >= p->errlen)
		return rc;
	va_start(ap, fmt);
	vsnprintf(p->err + o, p->errlen - (size_t)o, fmt, ap);
	va_end(ap);
	return rc;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-' || c == ':' || c == '%';
}

static bool sep_char(char c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

struct range {
	uint32_t lo, hi;
	unsigned int width; /* zero padding of the lower bound, 0 for none */
};

struct group {
	struct range *r;
	unsigned int n;
	uint64_t count;
};

/* A segment of a token: literal text, then optionally a bracket group. */
struct seg {
	const char *lit;
	size_t lit_len;
	struct group g; /* g.n == 0: no group */
};

static int parse_num(struct hl_parse *p, const char *s, size_t len, size_t *i, uint32_t *val,
		     unsigned int *digits, size_t col0)
{
	size_t start = *i;
	uint32_t v = 0;

	while (*i < len && isdigit((unsigned char)s[*i])) {
		if (*i - start >= NUM_DIGITS_MAX)
			return fail(p, -EINVAL, "column %zu: number longer than %d digits",
				    col0 + start + 1, NUM_DIGITS_MAX);
		v = v * 10 + (uint32_t)(s[*i] - '0');
		(*i)++;
	}
	if (*i == start)
		return fail(p, -EINVAL, "column %zu: expected a number in brackets", col0 + start + 1);
	*val = v;
	*digits = (unsigned int)(*i - start);
	return 0;
}

/* "[1-3,07-10]" starting at s[*i] == '['; *i ends after ']'. */
static int parse_group(struct hl_parse *p, const char *s, size_t len, size_t *i, struct group *g,
		       size_t col0)
{
	size_t open = *i;
	int rc;

	(*i)++;
	for (;;) {
		struct range r;
		unsigned int dlo, dhi;
		size_t at = *i;
		struct range *nr;

		rc = parse_num(p, s, len, i, &r.lo, &dlo, col0);
		if (rc)
			return rc;
		r.hi = r.lo;
		if (*i < len && s[*i] == '-') {
			(*i)++;
			rc = parse_num(p, s, len, i, &r.hi, &dhi, col0);
			if (rc)
				return rc;
			if (r.hi < r.lo)
				return fail(p, -EINVAL, "column %zu: descending range %.*s",
					    col0 + at + 1, (int)(*i - at), s + at);
		}
		/* Slurm's rule: a lower bound written with a leading zero sets the
		 * width of every number of the range. */
		r.width = dlo > 1 && s[at] == '0' ? dlo : 0;
		g->count += (uint64_t)r.hi - r.lo + 1;
		if (g->count > p->max)
			return fail(p, -E2BIG, "column %zu: bracket group expands to more than %u hosts",
				    col0 + open + 1, p->max);
		nr = realloc(g->r, (g->n + 1) * sizeof(*g->r));
		if (!nr)
			return -ENOMEM;
		g->r = nr;
		g->r[g->n++] = r;
		if (*i >= len)
			return fail(p, -EINVAL, "column %zu: '[' without ']'", col0 + open + 1);
		if (s[*i] == ']') {
			(*i)++;
			return 0;
		}
		if (s[*i] != ',')
			return fail(p, -EINVAL, "column %zu: unexpected '%c' in brackets", col0 + *i + 1,
				    isprint((unsigned char)s[*i]) ? s[*i] : '?');
		(*i)++;
	}
}

/* NAME:PORT names an agent on another port: one colon, then 1 to 65535.
 * More than one colon is only an IPv6 address (with a %zone or not).
 * Checked here, so that a bad port is refused before any name is looked up. */
static int check_port(struct hl_parse *p, const char *name, size_t col)
{
	const char *colon = strchr(name, ':');
	char addr[RCK_HOST_NAME_MAX + 1];
	struct in6_addr a6;
	unsigned long port = 0;
	size_t i, n;

	if (!colon)
		return 0;
	if (strchr(colon + 1, ':')) {
		n = strcspn(name, "%");
		snprintf(addr, sizeof(addr), "%.*s", (int)n, name);
		if (inet_pton(AF_INET6, addr, &a6) == 1)
			return 0;
		return fail(p, -EINVAL, "column %zu: '%s': more than one ':' and not an IPv6 address "
			    "(NAME:PORT has one)", col + 1, name);
	}
	for (i = 1; colon[i] && i <= 6; i++) {
		if (!isdigit((unsigned char)colon[i]))
			break;
		port = port * 10 + (unsigned long)(colon[i] - '0');
	}
	if (colon == name)
		return fail(p, -EINVAL, "column %zu: '%s': no host name before ':'", col + 1, name);
	if (i == 1 || colon[i] || port < 1 || port > 65535)
		return fail(p, -EINVAL, "column %zu: '%s': the port after ':' must be 1 to 65535", col + 1,
			    name);
	return 0;
}

static int push_name(struct hl_parse *p, const char *name)
{
	char *copy;

	if (strset_find(p->have, name, NULL) != 0) {
		if (!p->room)
			return fail(p, -E2BIG, "more than %u hosts", p->max);
		p->room--;
	}
	if (mesh_grow((void **)&p->names, &p->cap, p->n + 1, sizeof(*p->names)))
		return -ENOMEM;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	p->names[p->n++] = copy;
	return 0;
}

/* Every combination of the groups' numbers in the order of Slurm's
 * `scontrol show hostnames`: the last group turns fastest, then the first,
 * the second, ... and the one before the last slowest ("a[1-2]b[3-4]c[5-6]":
 * a1b3c5 a1b3c6 a2b3c5 a2b3c6 a1b4c5 ...). */
static int expand(struct hl_parse *p, const struct seg *segs, unsigned int nseg, size_t col)
{
	unsigned int pos[64] = {0};      /* range index per segment */
	uint32_t val[64] = {0};          /* current number per segment */
	unsigned int spin[64];           /* segments with a group, fastest first */
	unsigned int ngroups = 0;
	char name[RCK_HOST_NAME_MAX + 2];
	int rc;

	for (unsigned int k = 0; k < nseg; k++)
		if (segs[k].g.n) {
			val[k] = segs[k].g.r[0].lo;
			spin[ngroups++] = k;
		}
	if (ngroups > 1) {
		unsigned int last = spin[ngroups - 1];

		memmove(spin + 1, spin, (ngroups - 1) * sizeof(*spin));
		spin[0] = last;
	}
	for (;;) {
		size_t o = 0;

		for (unsigned int k = 0; k < nseg; k++) {
			int w = 0;

			if (o + segs[k].lit_len > RCK_HOST_NAME_MAX)
				goto toolong;
			memcpy(name + o, segs[k].lit, segs[k].lit_len);
			o += segs[k].lit_len;
			if (segs[k].g.n) {
				const struct range *r = &segs[k].g.r[pos[k]];

				w = snprintf(name + o, sizeof(name) - o, "%0*u", (int)r->width, val[k]);
				if (w < 0 || o + (size_t)w > RCK_HOST_NAME_MAX)
					goto toolong;
				o += (size_t)w;
			}
		}
		name[o] = '\0';
		if (name[0] == '-')
			return fail(p, -EINVAL, "column %zu: host name starts with '-': %s", col + 1, name);
		rc = check_port(p, name, col);
		if (!rc)
			rc = push_name(p, name);
		if (rc)
			return rc;
		/* Odometer step in the order of spin[]. */
		for (unsigned int s = 0;; s++) {
			unsigned int k;

			if (s == ngroups)
				return 0;
			k = spin[s];
			if (val[k] < segs[k].g.r[pos[k]].hi) {
				val[k]++;
				break;
			}
			if (pos[k] + 1 < segs[k].g.n) {
				pos[k]++;
				val[k] = segs[k].g.r[pos[k]].lo;
				break;
			}
			pos[k] = 0;
			val[k] = segs[k].g.r[0].lo;
		}
	}
toolong:
	return fail(p, -EINVAL, "column %zu: host name longer than %d characters", col + 1,
		    RCK_HOST_NAME_MAX);
}

/* One token (no top-level separators) from s[start] to s[end]. */
static int parse_token(struct hl_parse *p, const char *s, size_t start, size_t end, size_t col0)
{
	struct seg segs[64];
	unsigned int nseg = 0;
	uint64_t total = 1;
	size_t i = start;
	int rc = 0;

	memset(segs, 0, sizeof(segs));
	while (i < end) {
		struct seg *sg;

		if (nseg == RCK_ARRAY_SIZE(segs)) {
			rc = fail(p, -EINVAL, "column %zu: too many bracket groups", col0 + i + 1);
			goto out;
		}
		sg = &segs[nseg++];
		sg->lit = s + i;
		while (i < end && name_char(s[i]))
			i++;
		sg->lit_len = (size_t)(s + i - sg->lit);
		if (i < end && s[i] == '[') {
			rc = parse_group(p, s, end, &i, &sg->g, col0);
			if (rc)
				goto out;
			total *= sg->g.count;
			if (total > p->max) {
				rc = fail(p, -E2BIG, "column %zu: expands to more than %u hosts",
					  col0 + start + 1, p->max);
				goto out;
			}
		} else if (i < end) {
			if (s[i] == ']')
				rc = fail(p, -EINVAL, "column %zu: ']' without '['", col0 + i + 1);
			else if (isprint((unsigned char)s[i]))
				rc = fail(p, -EINVAL, "column %zu: '%c' is not allowed in a host name",
					  col0 + i + 1, s[i]);
			else
				rc = fail(p, -EINVAL, "column %zu: byte 0x%02x is not allowed in a host name",
					  col0 + i + 1, (unsigned char)s[i]);
			goto out;
		}
	}
	rc = expand(p, segs, nseg, col0 + start);
out:
	for (unsigned int k = 0; k < nseg; k++)
		free(segs[k].g.r);
	return rc;
}

/* Tokens split at top-level commas and white space (not inside brackets). */
static int parse_expr(struct hl_parse *p, const char *s, size_t len, size_t col0)
{
	size_t i = 0;

	while (i < len) {
		size_t start;
		int depth = 0, rc;

		while (i < len && sep_char(s[i]))
			i++;
		if (i >= len)
			break;
		start = i;
		while (i < len && (depth || !sep_char(s[i]))) {
			if (s[i] == '[')
				depth = 1;
			else if (s[i] == ']')
				depth = 0;
			else if (depth && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
				break;
			i++;
		}
		rc = parse_token(p, s, start, i, col0);
		if (rc)
			return rc;
	}
	return 0;
}

static void parse_init(struct hl_parse *p, const struct rck_hostlist *hl, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->err = err;
	p->errlen = errlen;
	p->prefix = "";
	p->have = &hl->set;
	p->max = hl->max;
	p->room = hl->max - hl->set.n;
	if (err && errlen)
		err[0] = '\0';
}

static void parse_drop(struct hl_parse *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->names[i]);
	free(p->names);
}

/* Move the parsed names into the list; duplicates are counted and dropped. */
static int commit(struct rck_hostlist *hl, struct hl_parse *p)
{
	int rc = strset_reserve(&hl->set, hl->set.n + (unsigned int)p->n);

	if (rc)
		return rc;
	for (size_t i = 0; i < p->n; i++) {
		/* Room was reserved: the set takes the name or says it has it. */
		if (strset_add(&hl->set, p->names[i], NULL) == -EEXIST) {
			hl->dups++;
			free(p->names[i]);
		}
		p->names[i] = NULL;
	}
	p->n = 0;
	return 0;
}

RCK_EXPORT int rck_hostlist_new(struct rck_hostlist **out)
{
	struct rck_hostlist *hl;

	if (!out)
		return -EINVAL;
	hl = calloc(1, sizeof(*hl));
	if (!hl)
		return -ENOMEM;
	hl->max = RCK_HOSTLIST_MAX;
	*out = hl;
	return 0;
}

RCK_EXPORT void rck_hostlist_free(struct rck_hostlist *hl)
{
	if (!hl)
		return;
	strset_free(&hl->set);
	free(hl);
}

RCK_EXPORT int rck_hostlist_add(struct rck_hostlist *hl, const char *expr, char *err, size_t errlen)
{
	struct hl_parse p;
	int rc;

	if (!hl || !expr)
		return -EINVAL;
	parse_init(&p, hl, err, errlen);
	rc = parse_expr(&p, expr, strlen(expr), 0);
	if (!rc && !p.n)
		rc = fail(&p, -EINVAL, "no host names");
	if (!rc)
		rc = commit(hl, &p);
	parse_drop(&p);
	return rc;
}

/* The word ends at white space, '#' or the end of the line. */
static size_t word_end(const char *line, size_t len, size_t i)
{
	while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '#')
		i++;
	return i;
}

static int parse_line(struct hl_parse *p, const char *line, size_t len)
{
	size_t i = 0, e;
	bool first = true;

	for (;;) {
		while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
			i++;
		if (i >= len || line[i] == '#')
			return 0;
		e = word_end(line, len, i);
		if (first) {
			/* A hostfile word is one expression: commas inside are fine. */
			int rc = parse_expr(p, line + i, e - i, i);

			if (rc)
				return rc;
			first = false;
		} else {
			const char *eq = memchr(line + i, '=', e - i);

			if (!eq || eq == line + i)
				return fail(p, -EINVAL, "column %zu: expected key=value after the host, got '%.*s'",
					    i + 1, (int)(e - i > 40 ? 40 : e - i), line + i);
		}
		i = e;
	}
}

RCK_EXPORT int rck_hostlist_add_text(struct rck_hostlist *hl, const char *text, size_t len,
				     const char *name, char *err, size_t errlen)
{
	struct hl_parse p;
	char prefix[300];
	unsigned int lineno = 0;
	size_t i = 0;
	int rc = 0;

	if (!hl || (!text && len))
		return -EINVAL;
	if (!name)
		name = "hostfile";
	parse_init(&p, hl, err, errlen);
	p.prefix = prefix;
	while (i < len && !rc) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len;

		lineno++;
		snprintf(prefix, sizeof(prefix), "%s:%u:", name, lineno);
		if (memchr(text + i, '\0', end - i))
			rc = fail(&p, -EINVAL, " a NUL byte in the line");
		else
			rc = parse_line(&p, text + i, end - i);
		i = end + 1;
	}
	if (!rc && !p.n) {
		snprintf(prefix, sizeof(prefix), "%s: ", name);
		rc = fail(&p, -EINVAL, "no host names");
	}
	if (!rc)
		rc = commit(hl, &p);
	parse_drop(&p);
	return rc;
}

RCK_EXPORT int rck_hostlist_add_file(struct rck_hostlist *hl, const char *path, char *err,
				     size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd, rc = 0;

	if (!hl || !path)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		rc = -errno;
		goto out;
	}
	if (st.st_size > HOSTFILE_MAX) {
		rc = -EFBIG;
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			goto out;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	rc = rck_hostlist_add_text(hl, buf, got, path, err, errlen);
out:
	if (rc && rc != -EINVAL && rc != -E2BIG && err && errlen)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

RCK_EXPORT unsigned int rck_hostlist_count(const struct rck_hostlist *hl)
{
	return hl ? hl->set.n : 0;
}

RCK_EXPORT const char *rck_hostlist_get(const struct rck_hostlist *hl, unsigned int i)
{
	return hl && i < hl->set.n ? hl->set.names[i] : NULL;
}

RCK_EXPORT unsigned int rck_hostlist_duplicates(const struct rck_hostlist *hl)
{
	return hl ? hl->dups : 0;
}

void hostlist_set_max(struct rck_hostlist *hl, unsigned int max)
{
	if (max >= hl->set.n && max <= RCK_HOSTLIST_MAX)
		hl->max = max;
}
