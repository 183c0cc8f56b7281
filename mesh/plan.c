/* Sweep plans: the rails rule decides which NICs of two hosts probe each
 * other, the pattern which hosts and in which order and grouping. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "internal.h"
#include "plan.h"
#include "plan_topo.h"
#include "result.h"

struct builder {
	const struct rck_mesh *m;
	const struct mesh_plan_opts *o;
	struct mesh_plan *p;
	size_t cap_tasks, cap_units, cap_nics;
	/* Per host its NICs taking part, sorted by rail (ties: order added). */
	uint32_t **hnics;
	unsigned int *hn;
	/* Scratch pairs of one host pair. */
	struct mesh_task *pairs;
	size_t n_pairs, cap_pairs;
	char *err;
	size_t errlen;
};

RCK_PRINTF(3, 4) static int fail(struct builder *b, int rc, const char *fmt, ...)
{
	va_list ap;

	if (b->err && b->errlen) {
		va_start(ap, fmt);
		vsnprintf(b->err, b->errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

void mesh_circle_pair(unsigned int n, unsigned int r, unsigned int i, unsigned int *a, unsigned int *b)
{
	unsigned int m = n + (n & 1), k = m - 1;

	/* Host m-1 stays put, the others turn one place a round. */
	if (i == 0) {
		*a = m - 1;
		*b = r % k;
	} else {
		*a = (r + i) % k;
		*b = (r + k - i) % k;
	}
}

/* Start a unit; its tasks follow with add_task(), end_unit() closes it. */
static int begin_unit(struct builder *b)
{
	struct mesh_plan *p = b->p;
	int rc = mesh_grow((void **)&p->units, &b->cap_units, p->n_units + 1, sizeof(*p->units));

	if (rc)
		return rc;
	p->units[p->n_units].first_task = (uint32_t)p->n_tasks;
	p->units[p->n_units].n_tasks = 0;
	return 0;
}

static int add_task(struct builder *b, uint32_t src, uint32_t dst)
{
	struct mesh_plan *p = b->p;
	int rc;

	if (p->n_tasks >= MESH_PLAN_MAX_TASKS)
		return fail(b, -E2BIG, "more than %u probes", MESH_PLAN_MAX_TASKS);
	rc = mesh_grow((void **)&p->tasks, &b->cap_tasks, p->n_tasks + 1, sizeof(*p->tasks));
	if (rc)
		return rc;
	p->tasks[p->n_tasks].src = src;
	p->tasks[p->n_tasks].dst = dst;
	p->n_tasks++;
	p->units[p->n_units].n_tasks++;
	return 0;
}

static bool has_nic(const uint32_t *set, size_t n, uint32_t nic)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == nic)
			return true;
	return false;
}

/* The unit's NICs: every distinct end of its tasks. An empty unit is dropped. */
static int end_unit(struct builder *b)
{
	struct mesh_plan *p = b->p;
	struct mesh_unit *u = &p->units[p->n_units];
	int rc;

	if (!u->n_tasks)
		return 0;
	rc = mesh_grow((void **)&p->unit_nics, &b->cap_nics, p->n_unit_nics + 2 * (size_t)u->n_tasks,
		  sizeof(*p->unit_nics));
	if (rc)
		return rc;
	u->first_nic = (uint32_t)p->n_unit_nics;
	u->n_nics = 0;
	for (uint32_t t = u->first_task; t < u->first_task + u->n_tasks; t++) {
		uint32_t ends[2] = {p->tasks[t].src, p->tasks[t].dst};

		for (int k = 0; k < 2; k++)
			if (!has_nic(p->unit_nics + u->first_nic, u->n_nics, ends[k]))
				p->unit_nics[u->first_nic + u->n_nics++] = ends[k];
	}
	p->n_unit_nics += u->n_nics;
	p->n_units++;
	return 0;
}

static int add_pair(struct builder *b, uint32_t src, uint32_t dst)
{
	int rc = mesh_grow((void **)&b->pairs, &b->cap_pairs, b->n_pairs + 1, sizeof(*b->pairs));

	if (rc)
		return rc;
	b->pairs[b->n_pairs].src = src;
	b->pairs[b->n_pairs].dst = dst;
	b->n_pairs++;
	return 0;
}

static int rail_of(const struct builder *b, uint32_t nic)
{
	return b->m->nics[nic].rail;
}

/* The NIC pairs from host @a to host @c under the rails rule, into b->pairs:
 * same: rails both have, in rail order; all: every pair, ordered shift by
 * shift (NIC i with NIC (i + s) mod Rc) so each shift is a matching;
 * device: the hosts' NICs of that device, first with first. */
static int host_pairs(struct builder *b, unsigned int a, unsigned int c)
{
	const uint32_t *na = b->hnics[a], *nc = b->hnics[c];
	unsigned int ra = b->hn[a], rc_ = b->hn[c];
	int rc = 0;

	b->n_pairs = 0;
	switch (b->o->rails) {
	case MESH_RAILS_SAME:
		for (unsigned int i = 0, j = 0; i < ra && j < rc_ && !rc;) {
			int x = rail_of(b, na[i]), y = rail_of(b, nc[j]);

			if (x == y)
				rc = add_pair(b, na[i++], nc[j++]);
			else if (x < y)
				i++;
			else
				j++;
		}
		break;
	case MESH_RAILS_ALL:
		for (unsigned int s = 0; s < rc_ && !rc; s++)
			for (unsigned int i = 0; i < ra && !rc; i++)
				rc = add_pair(b, na[i], nc[(i + s) % rc_]);
		break;
	case MESH_RAILS_DEVICE:
		for (unsigned int i = 0; i < ra && i < rc_ && !rc; i++)
			rc = add_pair(b, na[i], nc[i]);
		break;
	}
	return rc;
}

/* Every NIC pair of @a -> @c as a unit of its own, with its reverse in the
 * same unit when @both (the rails rules pair NICs symmetrically). */
static int add_pairs(struct builder *b, unsigned int a, unsigned int c, bool both)
{
	int rc = host_pairs(b, a, c);

	for (size_t k = 0; k < b->n_pairs && !rc; k++) {
		rc = begin_unit(b);
		if (!rc)
			rc = add_task(b, b->pairs[k].src, b->pairs[k].dst);
		if (!rc && both)
			rc = add_task(b, b->pairs[k].dst, b->pairs[k].src);
		if (!rc)
			rc = end_unit(b);
	}
	return rc;
}

static int add_host_pair(struct builder *b, unsigned int a, unsigned int c)
{
	return add_pairs(b, a, c, false);
}

static int plan_full(struct builder *b)
{
	unsigned int n = b->p->n_hosts, m = n + (n & 1);
	int rc = 0;

	for (unsigned int r = 0; b->o->bidir && r + 1 < m && !rc; r++)
		for (unsigned int i = 0; i < m / 2 && !rc; i++) {
			unsigned int x, y;

			mesh_circle_pair(n, r, i, &x, &y);
			if (x < n && y < n)
				rc = add_pairs(b, x, y, true);
		}
	for (unsigned int r = 0; !b->o->bidir && r + 1 < m && !rc; r++)
		for (int dir = 0; dir < 2 && !rc; dir++)
			for (unsigned int i = 0; i < m / 2 && !rc; i++) {
				unsigned int x, y;

				mesh_circle_pair(n, r, i, &x, &y);
				if (x >= n || y >= n)
					continue; /* paired with the dummy: idle this round */
				rc = dir ? add_host_pair(b, y, x) : add_host_pair(b, x, y);
			}
	return rc;
}

static int plan_quick(struct builder *b)
{
	unsigned int n = b->p->n_hosts, h = n / 2;
	int rc = 0;

	for (int dir = 0; dir < 2 && !rc; dir++) {
		for (unsigned int i = 0; i < h && !rc; i++)
			rc = dir ? add_host_pair(b, h + i, i) : add_host_pair(b, i, h + i);
		/* Odd n: the last host would go unprobed; it pairs with host 0. */
		if (!rc && (n & 1))
			rc = dir ? add_host_pair(b, 0, n - 1) : add_host_pair(b, n - 1, 0);
	}
	return rc;
}

/* For each receiver host in turn and each of its NICs: the K hosts after it
 * send at once to that NIC, through the NICs the rails rule pairs it with. */
static int plan_incast(struct builder *b)
{
	unsigned int n = b->p->n_hosts, k = b->o->incast_k;
	int rc = 0;

	if (k < 1 || k >= n)
		return fail(b, -EINVAL, "incast:%u needs 1 <= K <= hosts - 1 (%u)", k, n - 1);
	for (unsigned int r = 0; r < n && !rc; r++)
		for (unsigned int x = 0; x < b->hn[r] && !rc; x++) {
			uint32_t rx = b->hnics[r][x];

			rc = begin_unit(b);
			for (unsigned int s = 1; s <= k && !rc; s++) {
				rc = host_pairs(b, (r + s) % n, r);
				for (size_t q = 0; q < b->n_pairs && !rc; q++)
					if (b->pairs[q].dst == rx)
						rc = add_task(b, b->pairs[q].src, rx);
			}
			if (!rc)
				rc = end_unit(b);
		}
	return rc;
}

/* "HOST" or "HOST/DEVICE": the host, and the NIC (or UINT32_MAX for none). */
static int pairs_end(struct builder *b, const char *w, size_t len, unsigned int line,
		     unsigned int *host, uint32_t *nic)
{
	const char *slash = memchr(w, '/', len);
	size_t hl = slash ? (size_t)(slash - w) : len;
	char name[RCK_HOST_NAME_MAX + 1];
	const struct mesh_host *h;

	if (!hl || hl > RCK_HOST_NAME_MAX)
		return fail(b, -EINVAL, "%s:%u: bad host '%.*s'", b->o->pairs_name, line, (int)(len > 60 ? 60 : len), w);
	memcpy(name, w, hl);
	name[hl] = '\0';
	if (rck_mesh_find_host(b->m, name, host))
		return fail(b, -EINVAL, "%s:%u: unknown host '%s'", b->o->pairs_name, line, name);
	*nic = UINT32_MAX;
	if (!slash)
		return 0;
	h = &b->m->hosts[*host];
	for (unsigned int i = 0; i < h->n_nics; i++) {
		const char *dev = b->m->nics[h->nics[i]].device;

		if (strlen(dev) == len - hl - 1 && !memcmp(dev, slash + 1, len - hl - 1)) {
			*nic = h->nics[i];
			return 0;
		}
	}
	return fail(b, -EINVAL, "%s:%u: host %s has no device '%.*s'", b->o->pairs_name, line, name,
		    (int)(len - hl - 1 > 60 ? 60 : len - hl - 1), slash + 1);
}

/* One line "SRC DST" of a pairs file; blank lines and '#' comments skipped. */
static int pairs_line(struct builder *b, const char *s, size_t len, unsigned int line)
{
	const char *w[3];
	size_t wl[3], i = 0;
	unsigned int nw = 0, hs, hd;
	uint32_t ns, nd;
	int rc;

	while (i < len) {
		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i >= len || s[i] == '#')
			break;
		if (nw == 3)
			break;
		w[nw] = s + i;
		while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '#')
			i++;
		wl[nw] = (size_t)(s + i - w[nw]);
		nw++;
	}
	if (nw == 0)
		return 0;
	if (nw != 2)
		return fail(b, -EINVAL, "%s:%u: expected two words, SRC DST", b->o->pairs_name, line);
	rc = pairs_end(b, w[0], wl[0], line, &hs, &ns);
	if (!rc)
		rc = pairs_end(b, w[1], wl[1], line, &hd, &nd);
	if (rc)
		return rc;
	if (hs == hd)
		return fail(b, -EINVAL, "%s:%u: a host cannot probe itself", b->o->pairs_name, line);
	if ((ns == UINT32_MAX) != (nd == UINT32_MAX))
		return fail(b, -EINVAL, "%s:%u: name a device on both ends or on neither",
			    b->o->pairs_name, line);
	if (ns == UINT32_MAX)
		return add_host_pair(b, hs, hd);
	rc = begin_unit(b);
	if (!rc)
		rc = add_task(b, ns, nd);
	if (!rc)
		rc = end_unit(b);
	return rc;
}

static int plan_pairs(struct builder *b)
{
	const char *s = b->o->pairs;
	size_t len = b->o->pairs_len, i = 0;
	unsigned int line = 0;
	int rc = 0;

	if (!s && len)
		return -EINVAL;
	if (!b->o->pairs_name)
		return fail(b, -EINVAL, "pairs: no file name");
	while (i < len && !rc) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - s) : len;

		line++;
		if (memchr(s + i, '\0', end - i))
			return fail(b, -EINVAL, "%s:%u: a NUL byte in the line", b->o->pairs_name, line);
		rc = pairs_line(b, s + i, end - i, line);
		i = end + 1;
	}
	if (!rc && !b->p->n_tasks)
		rc = fail(b, -EINVAL, "%s: no pairs", b->o->pairs_name);
	return rc;
}

/* Which NICs take part, per host sorted by rail; who lacks what. */
static int collect_nics(struct builder *b)
{
	const struct rck_mesh *m = b->m;
	struct mesh_plan *p = b->p;
	bool *rails = calloc(RCK_MESH_RAIL_MAX + 1, sizeof(*rails));
	size_t cap_missing = 0;
	int rc = 0;

	b->hnics = calloc(p->n_hosts, sizeof(*b->hnics));
	b->hn = calloc(p->n_hosts, sizeof(*b->hn));
	p->nic_host = calloc(m->n_nics ? m->n_nics : 1, sizeof(*p->nic_host));
	if (!rails || !b->hnics || !b->hn || !p->nic_host) {
		free(rails);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < m->n_nics; i++)
		p->nic_host[i] = m->nics[i].host;
	for (unsigned int h = 0; h < p->n_hosts && !rc; h++) {
		const struct mesh_host *host = &m->hosts[h];
		uint32_t *l = calloc(host->n_nics ? host->n_nics : 1, sizeof(*l));
		unsigned int n = 0;

		if (!l) {
			rc = -ENOMEM;
			break;
		}
		b->hnics[h] = l;
		for (unsigned int i = 0; i < host->n_nics; i++) {
			const struct mesh_nic *nic = &m->nics[host->nics[i]];
			unsigned int j;

			if (b->o->rails == MESH_RAILS_DEVICE && strcmp(nic->device, b->o->device))
				continue;
			if (b->o->rails == MESH_RAILS_SAME) {
				/* One NIC per rail: a second NIC claiming a rail is left out. */
				bool dup = false;

				for (j = 0; j < n && !dup; j++)
					dup = m->nics[l[j]].rail == nic->rail;
				if (dup)
					continue;
			}
			/* Insertion sort by rail, stable. */
			for (j = n; j > 0 && m->nics[l[j - 1]].rail > nic->rail; j--)
				l[j] = l[j - 1];
			l[j] = host->nics[i];
			n++;
			rails[nic->rail] = true;
		}
		b->hn[h] = n;
	}
	/* Missing: a rail some host has and this one not; or no such device. */
	for (unsigned int h = 0; h < p->n_hosts && !rc; h++)
		for (int r = 0; r <= RCK_MESH_RAIL_MAX && !rc; r++) {
			bool here = false;

			if (b->o->rails == MESH_RAILS_ALL)
				break;
			if (b->o->rails == MESH_RAILS_DEVICE) {
				if (b->hn[h])
					break;
			} else {
				if (!rails[r])
					continue;
				for (unsigned int j = 0; j < b->hn[h] && !here; j++)
					here = rail_of(b, b->hnics[h][j]) == r;
				if (here)
					continue;
			}
			rc = mesh_grow((void **)&p->missing, &cap_missing, p->n_missing + 1, sizeof(*p->missing));
			if (rc)
				break;
			p->missing[p->n_missing].host = h;
			p->missing[p->n_missing].rail = b->o->rails == MESH_RAILS_DEVICE ? -1 : r;
			p->n_missing++;
			if (b->o->rails == MESH_RAILS_DEVICE)
				break;
		}
	free(rails);
	return rc;
}

int mesh_plan_build(const struct rck_mesh *m, const struct mesh_plan_opts *o, struct mesh_plan **out,
		    char *err, size_t errlen)
{
	struct builder b = {.m = m, .o = o, .err = err, .errlen = errlen};
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!m || !o || !out || (o->rails == MESH_RAILS_DEVICE && (!o->device || !*o->device)))
		return -EINVAL;
	if (m->names.n < 2)
		return fail(&b, -EINVAL, "a sweep needs at least 2 hosts, got %u", m->names.n);
	b.p = calloc(1, sizeof(*b.p));
	if (!b.p)
		return -ENOMEM;
	b.p->n_hosts = m->names.n;
	b.p->n_nics = m->n_nics;
	rc = collect_nics(&b);
	if (!rc) {
		switch (o->pattern) {
		case MESH_PATTERN_FULL:
			rc = plan_full(&b);
			break;
		case MESH_PATTERN_QUICK:
			rc = plan_quick(&b);
			break;
		case MESH_PATTERN_INCAST:
			rc = plan_incast(&b);
			break;
		case MESH_PATTERN_PAIRS:
			rc = plan_pairs(&b);
			break;
		case MESH_PATTERN_TOPO:
			rc = mesh_plan_topo(m, o, b.hnics, b.hn, b.p, err, errlen);
			break;
		default:
			rc = -EINVAL;
		}
	}
	for (unsigned int h = 0; b.hnics && h < b.p->n_hosts; h++)
		free(b.hnics[h]);
	free(b.hnics);
	free(b.hn);
	free(b.pairs);
	if (rc) {
		mesh_plan_free(b.p);
		return rc;
	}
	*out = b.p;
	return 0;
}

void mesh_plan_free(struct mesh_plan *p)
{
	if (!p)
		return;
	free(p->tasks);
	free(p->units);
	free(p->unit_nics);
	free(p->missing);
	free(p->nic_host);
	free(p->step_first_unit);
	free(p);
}
