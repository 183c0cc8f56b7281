/* Slurm's topology.conf (the topology/tree plugin's SwitchName lines) into
 * the model: parsed and checked whole first, merged only when valid. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../mesh/hostlist.h"
#include "../mesh/grow.h"
#include "file.h"
#include "topo_int.h"

/* Most host names one file may expand to, over all its lines. */
#define SLURM_NAMES_MAX (4u << 20)

struct sl_entry {
	char *name;
	struct rck_hostlist *nodes, *switches;
	unsigned long speed;
	unsigned int line, col, sw_line, sw_col;
	uint32_t idx;                 /* switch index in the model, when merged */
	uint8_t state;                /* loop search: 0 new, 1 on the path, 2 done */
};

struct sl_parse {
	const char *name;
	char *err;
	size_t errlen;
	unsigned int max;             /* hostlist cap per expression */
	unsigned long names;
	struct sl_entry *e;
	size_t n, cap;
	/* The logical line being read: its bytes, and where each came from. */
	char *buf;
	unsigned int *bline, *bcol;
	size_t blen, bcap;
};

RCK_PRINTF(5, 6) static int sl_fail(struct sl_parse *p, int rc, unsigned int line, unsigned int col,
				    const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (col)
		return tp_fail(p->err, p->errlen, rc, "%s:%u:%u: %s", p->name, line, col, msg);
	return tp_fail(p->err, p->errlen, rc, "%s:%u: %s", p->name, line, msg);
}

static int buf_put(struct sl_parse *p, char c, unsigned int line, unsigned int col)
{
	if (p->blen + 2 > p->bcap) {
		size_t cap = p->bcap ? 2 * p->bcap : 256;
		char *b = realloc(p->buf, cap);
		unsigned int *l, *k;

		if (!b)
			return -ENOMEM;
		p->buf = b;
		l = realloc(p->bline, cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		p->bline = l;
		k = realloc(p->bcol, cap * sizeof(*k));
		if (!k)
			return -ENOMEM;
		p->bcol = k;
		p->bcap = cap;
	}
	p->buf[p->blen] = c;
	p->bline[p->blen] = line;
	p->bcol[p->blen] = col;
	p->blen++;
	p->buf[p->blen] = 0;
	return 0;
}

static struct rck_hostlist *expand(struct sl_parse *p, const char *val, size_t vi, int *rc)
{
	struct rck_hostlist *hl;
	char msg[256];

	*rc = rck_hostlist_new(&hl);
	if (*rc)
		return NULL;
	hostlist_set_max(hl, p->max);
	*rc = rck_hostlist_add(hl, val, msg, sizeof(msg));
	if (!*rc) {
		p->names += rck_hostlist_count(hl);
		if (p->names > SLURM_NAMES_MAX)
			*rc = sl_fail(p, -E2BIG, p->bline[vi], 0, "more than %u names in the file",
				      SLURM_NAMES_MAX);
	} else if (*rc != -ENOMEM) {
		/* The hostlist's own "column N" counts within the value. */
		*rc = sl_fail(p, *rc, p->bline[vi], p->bcol[vi], "bad list '%.60s': %s", val, msg);
	}
	if (*rc) {
		rck_hostlist_free(hl);
		return NULL;
	}
	return hl;
}

/* One logical line (comments gone, continuations joined) into an entry. */
static int parse_logical(struct sl_parse *p)
{
	struct sl_entry en = { 0 };
	char *s = p->buf;
	size_t i = 0;
	int rc = 0;

	while (!rc) {
		size_t ks, ke, vs, ve;
		unsigned int kl, kc;
		char *val;

		while (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')
			i++;
		if (!s[i])
			break;
		ks = i;
		kl = p->bline[ks];
		kc = p->bcol[ks];
		while (s[i] && s[i] != '=' && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			i++;
		ke = i;
		if (s[i] != '=') {
			if (ke - ks == 7 && !strncasecmp(s + ks, "include", 7))
				rc = sl_fail(p, -EINVAL, kl, kc, "Include is not supported: give the included file");
			else
				rc = sl_fail(p, -EINVAL, kl, kc, "expected Key=Value, got '%.*s'",
					     (int)(ke - ks > 40 ? 40 : ke - ks), s + ks);
			break;
		}
		i++;
		if (s[i] == '"') {
			vs = ++i;
			while (s[i] && s[i] != '"')
				i++;
			if (!s[i]) {
				rc = sl_fail(p, -EINVAL, p->bline[vs - 1], p->bcol[vs - 1], "unterminated quote");
				break;
			}
			ve = i++;
		} else {
			vs = i;
			while (s[i] && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
				i++;
			ve = i;
		}
		if (ve == vs) {
			rc = sl_fail(p, -EINVAL, kl, kc, "%.*s has no value", (int)(ke - ks), s + ks);
			break;
		}
		val = strndup(s + vs, ve - vs);
		if (!val) {
			rc = -ENOMEM;
			break;
		}
#define KEY(k) (ke - ks == strlen(k) && !strncasecmp(s + ks, k, ke - ks))
		if (KEY("SwitchName")) {
			if (en.name)
				rc = sl_fail(p, -EINVAL, kl, kc, "SwitchName given twice");
			else if (strchr(val, ',') || strchr(val, '['))
				rc = sl_fail(p, -EINVAL, p->bline[vs], p->bcol[vs], "SwitchName is one name, got '%.60s'", val);
			else {
				en.name = val;
				val = NULL;
				en.line = kl;
				en.col = kc;
			}
		} else if (KEY("Nodes") || KEY("Switches")) {
			struct rck_hostlist **hl = KEY("Nodes") ? &en.nodes : &en.switches;

			if (*hl)
				rc = sl_fail(p, -EINVAL, kl, kc, "%.*s given twice", (int)(ke - ks), s + ks);
			else
				*hl = expand(p, val, vs, &rc);
			if (!rc && hl == &en.switches) {
				en.sw_line = p->bline[vs];
				en.sw_col = p->bcol[vs];
			}
		} else if (KEY("LinkSpeed")) {
			char *end;

			errno = 0;
			en.speed = strtoul(val, &end, 10);
			if (!isdigit((unsigned char)val[0]) || *end || errno || en.speed > UINT32_MAX)
				rc = sl_fail(p, -EINVAL, p->bline[vs], p->bcol[vs],
					     "LinkSpeed is a whole number, got '%.40s'", val);
		} else if (KEY("BlockName") || KEY("BlockSizes")) {
			rc = sl_fail(p, -EINVAL, kl, kc, "topology/block lines are not supported, only topology/tree");
		} else {
			rc = sl_fail(p, -EINVAL, kl, kc, "unknown key '%.*s'", (int)(ke - ks > 40 ? 40 : ke - ks),
				     s + ks);
		}
#undef KEY
		free(val);
	}
	if (!rc && (en.nodes || en.switches || en.speed) && !en.name)
		rc = sl_fail(p, -EINVAL, p->bline[0], p->bcol[0], "a line without SwitchName");
	if (!rc && en.name) {
		if (en.nodes && en.switches)
			rc = sl_fail(p, -EINVAL, en.line, en.col, "switch %s has both Nodes and Switches", en.name);
		else if (!en.nodes && !en.switches)
			rc = sl_fail(p, -EINVAL, en.line, en.col, "switch %s has neither Nodes nor Switches", en.name);
		else if (mesh_grow((void **)&p->e, &p->cap, p->n + 1, sizeof(*p->e)))
			rc = -ENOMEM;
		else {
			p->e[p->n++] = en;
			return 0;
		}
	}
	free(en.name);
	rck_hostlist_free(en.nodes);
	rck_hostlist_free(en.switches);
	return rc;
}

/* Split the text into logical lines: '#' to the end of the line is a
 * comment unless escaped (\#), a backslash ending a line joins the next. */
static int parse_text(struct sl_parse *p, const char *text, size_t len)
{
	unsigned int line = 1, col = 1;
	bool comment = false;
	int rc;

	p->blen = 0;
	for (size_t i = 0; i <= len; i++) {
		char c = i < len ? text[i] : '\n';

		if (c == '\0')
			return sl_fail(p, -EINVAL, line, col, "a NUL byte");
		if (c == '\n') {
			/* A trailing backslash (before any comment) continues. */
			size_t e = p->blen;

			while (e && (p->buf[e - 1] == ' ' || p->buf[e - 1] == '\t' || p->buf[e - 1] == '\r'))
				e--;
			if (!comment && e && p->buf[e - 1] == '\\' && i < len) {
				p->blen = e - 1;
				p->buf[p->blen] = 0;
			} else {
				if (p->blen) {
					rc = parse_logical(p);
					if (rc)
						return rc;
				}
				p->blen = 0;
			}
			comment = false;
			line++;
			col = 1;
			continue;
		}
		if (!comment) {
			if (c == '#' && p->blen && p->buf[p->blen - 1] == '\\')
				p->buf[p->blen - 1] = '#';
			else if (c == '#')
				comment = true;
			else if (buf_put(p, c, line, col))
				return -ENOMEM;
		}
		col++;
	}
	return 0;
}

/* Children must be defined, names unique, and no switch its own ancestor. */
static int check(struct sl_parse *p, struct strset *names)
{
	int rc;

	for (size_t i = 0; i < p->n; i++) {
		char *k = strdup(p->e[i].name);

		if (!k)
			return -ENOMEM;
		rc = strset_add(names, k, NULL);
		if (rc == -EEXIST) {
			free(k);
			return sl_fail(p, -EINVAL, p->e[i].line, p->e[i].col, "switch %s defined again",
				       p->e[i].name);
		}
		if (rc) {
			free(k);
			return rc;
		}
	}
	for (size_t i = 0; i < p->n; i++)
		for (unsigned int j = 0; p->e[i].switches && j < rck_hostlist_count(p->e[i].switches); j++)
			if (strset_find(names, rck_hostlist_get(p->e[i].switches, j), NULL))
				return sl_fail(p, -EINVAL, p->e[i].sw_line, p->e[i].sw_col,
					       "switch %s: child switch %s is not defined", p->e[i].name,
					       rck_hostlist_get(p->e[i].switches, j));
	/* Loops: follow children without recursion, an explicit stack. */
	for (size_t r = 0; r < p->n; r++) {
		size_t *stack, *pos, depth = 0;

		if (p->e[r].state)
			continue;
		stack = malloc(p->n * sizeof(*stack));
		pos = malloc(p->n * sizeof(*pos));
		if (!stack || !pos) {
			free(stack);
			free(pos);
			return -ENOMEM;
		}
		stack[depth] = r;
		pos[depth++] = 0;
		p->e[r].state = 1;
		rc = 0;
		while (depth && !rc) {
			struct sl_entry *e = &p->e[stack[depth - 1]];
			unsigned int nc = e->switches ? rck_hostlist_count(e->switches) : 0;
			unsigned int c;

			if (pos[depth - 1] >= nc) {
				e->state = 2;
				depth--;
				continue;
			}
			/* The names went into the set in entry order: index = entry. */
			if (strset_find(names, rck_hostlist_get(e->switches, (unsigned int)pos[depth - 1]++), &c))
				continue;
			if (p->e[c].state == 1)
				rc = sl_fail(p, -EINVAL, e->sw_line, e->sw_col, "switch %s: a loop through %s",
					     e->name, p->e[c].name);
			else if (!p->e[c].state) {
				p->e[c].state = 1;
				stack[depth] = (size_t)c;
				pos[depth++] = 0;
			}
		}
		free(stack);
		free(pos);
		if (rc)
			return rc;
	}
	return 0;
}

static int merge(struct rck_topology *t, struct sl_parse *p)
{
	uint16_t src;
	int rc = tp_source(t, p->name, &src);

	for (size_t i = 0; !rc && i < p->n; i++) {
		rc = tp_switch(t, p->e[i].name, true, &p->e[i].idx);
		if (!rc)
			rc = tp_set_tier(t, p->e[i].idx, p->e[i].nodes ? RCK_SWITCH_TIER_LEAF : RCK_SWITCH_TIER_SPINE, src);
		if (!rc && p->e[i].speed)
			t->sw[p->e[i].idx].slurm_speed = (double)p->e[i].speed;
	}
	for (size_t i = 0; !rc && i < p->n; i++) {
		const struct sl_entry *e = &p->e[i];

		for (unsigned int j = 0; !rc && e->nodes && j < rck_hostlist_count(e->nodes); j++) {
			struct tp_cabling c = { .host = rck_hostlist_get(e->nodes, j), .sw = (int32_t)e->idx,
						.port = TP_NONE, .rail = TP_NONE, .src = src };

			rc = tp_cable(t, &c);
		}
		for (unsigned int j = 0; !rc && e->switches && j < rck_hostlist_count(e->switches); j++) {
			uint32_t child;

			rc = tp_switch(t, rck_hostlist_get(e->switches, j), true, &child);
			if (!rc)
				rc = tp_uplink(t, child, e->idx, TP_NONE, TP_NONE, src);
		}
	}
	return rc ? rc : tp_check_hosts(t);
}

int tp_slurm_parse(struct rck_topology *t, const char *text, size_t len, const char *name,
		   unsigned int max, char *err, size_t errlen)
{
	struct sl_parse p = { .name = name ? name : "topology.conf", .err = err, .errlen = errlen,
			      .max = max };
	struct strset names = { 0 };
	int rc;

	if (!t || (!text && len))
		return -EINVAL;
	if (len > TP_FILE_MAX)
		return tp_fail(err, errlen, -E2BIG, "%s: larger than %u bytes", p.name, TP_FILE_MAX);
	rc = parse_text(&p, text, len);
	if (!rc && !p.n)
		rc = tp_fail(err, errlen, -EINVAL, "%s: no SwitchName line", p.name);
	if (!rc)
		rc = check(&p, &names);
	if (!rc)
		rc = merge(t, &p);
	strset_free(&names);
	for (size_t i = 0; i < p.n; i++) {
		free(p.e[i].name);
		rck_hostlist_free(p.e[i].nodes);
		rck_hostlist_free(p.e[i].switches);
	}
	free(p.e);
	free(p.buf);
	free(p.bline);
	free(p.bcol);
	return rc;
}

RCK_EXPORT int rck_topology_add_slurm(struct rck_topology *t, const char *text, size_t len,
				      const char *name, char *err, size_t errlen)
{
	return tp_slurm_parse(t, text, len, name, RCK_HOSTLIST_MAX, err, errlen);
}

int tp_load(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	int rc = rck_file_read(path, false, TP_FILE_MAX, buf, len);

	if (rc)
		return tp_fail(err, errlen, rc, "%s: %s", path, rc == -EFBIG ? "larger than 16 MiB" : rck_strerror(rc));
	return 0;
}

int tp_load_add(struct rck_topology *t, const char *path, tp_add_fn add, char *err, size_t errlen)
{
	size_t len;
	char *buf;
	int rc;

	if (!t || !path)
		return -EINVAL;
	rc = tp_load(path, &buf, &len, err, errlen);
	if (rc)
		return rc;
	rc = add(t, buf, len, path, err, errlen);
	free(buf);
	return rc;
}

RCK_EXPORT int rck_topology_load_slurm(struct rck_topology *t, const char *path, char *err,
				       size_t errlen)
{
	return tp_load_add(t, path, rck_topology_add_slurm, err, errlen);
}
