/* Scheduler: greedy list scheduling in the plan's order. Each NIC keeps its
 * units in plan order; when NICs free, the first of their pending units
 * whose NICs are all free start, earliest in the plan first. No round
 * barriers: the circle order only decides who goes first.
 *
 * In a busy sweep few NICs are free at a time (about 3 of 128 with 10%
 * spread in probe durations), while a NIC's list holds 2(n-1) units mostly
 * blocked by busy partners. So a freed NIC of a plan of two-NIC units asks
 * the pair index about each free NIC instead of scanning its list, when
 * that is shorter: the per-probe cost stays flat as n grows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pairidx.h"
#include "sched.h"

/* List entries looked at before the pair index is asked. */
#define PICK_WINDOW 4
/* Largest plan (in NICs) given the dense pair table: 4096^2 x 4 bytes. */
#define DENSE_MAX_NICS 4096

struct mesh_sched {
	const struct mesh_plan *p;
	uint8_t *state;     /* per unit, enum mesh_unit_state */
	uint8_t *busy;      /* per NIC */
	uint32_t *off;      /* per NIC: its units are list[off[n] .. off[n+1]) */
	uint32_t *list;
	uint32_t *partner;  /* pairs_only: per list entry the unit's other NIC */
	uint32_t *head;     /* per NIC: list[off[n] .. head[n]) are all finished */
	uint32_t *dirty;    /* NICs freed since they were last looked at */
	uint8_t *in_dirty;
	size_t n_dirty;
	uint64_t *cand;     /* unit << 32 | NIC: candidates of one pass */
	uint32_t *freeset;  /* NICs not busy, in no order */
	uint32_t *freepos;  /* per NIC: its place in freeset */
	size_t n_free;
	bool pairs_only;    /* every unit has two NICs: the pair index works */
	struct pairidx idx;
	/* pairs_only with at most DENSE_MAX_NICS NICs: per NIC pair (row u,
	 * column v) the earliest pending unit joining them, UINT32_MAX none.
	 * A row is contiguous, so asking it about the free NICs stays in cache. */
	uint32_t *dense;
	uint32_t *pair_next; /* with dense: the next unit of the same NIC pair */
	uint8_t *dead;      /* per host */
	uint32_t *hoff, *hnics; /* NICs of each host */
	uint32_t *retest;   /* FIFO */
	size_t retest_head, retest_tail;
	uint32_t *unreach;  /* FIFO of UNREACHABLE events to deliver */
	size_t unreach_head, unreach_tail;
	size_t pending;     /* units in MESH_U_PENDING */
	unsigned int running;
};

static const uint32_t *unit_nics(const struct mesh_sched *s, uint32_t u)
{
	return s->p->unit_nics + s->p->units[u].first_nic;
}

int mesh_sched_new(const struct mesh_plan *p, unsigned int flags, struct mesh_sched **out)
{
	struct mesh_sched *s;
	size_t nn, nu;

	if (!p || !out)
		return -EINVAL;
	nn = p->n_nics;
	nu = p->n_units;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->p = p;
	s->state = calloc(nu + 1, 1);
	s->busy = calloc(nn + 1, 1);
	s->off = calloc(nn + 2, sizeof(*s->off));
	s->list = malloc((p->n_unit_nics + 1) * sizeof(*s->list));
	s->head = malloc((nn + 1) * sizeof(*s->head));
	s->dirty = malloc((nn + 1) * sizeof(*s->dirty));
	s->in_dirty = calloc(nn + 1, 1);
	s->cand = malloc((nn + 1) * sizeof(*s->cand));
	s->freeset = malloc((nn + 1) * sizeof(*s->freeset));
	s->freepos = malloc((nn + 1) * sizeof(*s->freepos));
	s->dead = calloc(p->n_hosts + 1, 1);
	s->hoff = calloc(p->n_hosts + 2, sizeof(*s->hoff));
	s->hnics = malloc((nn + 1) * sizeof(*s->hnics));
	s->retest = malloc((nu + 1) * sizeof(*s->retest));
	s->unreach = malloc((nu + 1) * sizeof(*s->unreach));
	if (!s->state || !s->busy || !s->off || !s->list || !s->head || !s->dirty || !s->in_dirty || !s->cand || !s->freeset || !s->freepos ||
	    !s->dead || !s->hoff || !s->hnics || !s->retest || !s->unreach) {
		mesh_sched_free(s);
		return -ENOMEM;
	}
	/* Counting sort of the units onto their NICs, keeping plan order. */
	for (size_t u = 0; u < nu; u++)
		for (uint32_t k = 0; k < p->units[u].n_nics; k++)
			s->off[p->unit_nics[p->units[u].first_nic + k] + 1]++;
	for (size_t n = 0; n < nn; n++)
		s->off[n + 1] += s->off[n];
	for (size_t n = 0; n < nn; n++)
		s->head[n] = s->off[n];
	for (size_t u = 0; u < nu; u++)
		for (uint32_t k = 0; k < p->units[u].n_nics; k++)
			s->list[s->head[p->unit_nics[p->units[u].first_nic + k]]++] = (uint32_t)u;
	for (size_t n = 0; n < nn; n++) {
		s->head[n] = s->off[n];
		/* Last first, so the stack hands out NIC 0 first. */
		s->dirty[s->n_dirty++] = (uint32_t)(nn - 1 - n);
		s->in_dirty[n] = 1;
	}
	for (size_t n = 0; n < nn; n++)
		s->hoff[p->nic_host[n] + 1]++;
	for (size_t h = 0; h < p->n_hosts; h++)
		s->hoff[h + 1] += s->hoff[h];
	{
		uint32_t *fill = calloc(p->n_hosts + 1, sizeof(*fill));

		if (!fill) {
			mesh_sched_free(s);
			return -ENOMEM;
		}
		for (size_t n = 0; n < nn; n++) {
			uint32_t h = p->nic_host[n];

			s->hnics[s->hoff[h] + fill[h]++] = (uint32_t)n;
		}
		free(fill);
	}
	for (size_t n = 0; n < nn; n++) {
		s->freeset[n] = (uint32_t)n;
		s->freepos[n] = (uint32_t)n;
	}
	s->n_free = nn;
	s->pairs_only = !(flags & MESH_SCHED_NO_PAIRIDX);
	for (size_t u = 0; u < nu && s->pairs_only; u++)
		s->pairs_only = p->units[u].n_nics == 2;
	if (s->pairs_only) {
		/* The partner beside each entry: a check touches no unit record. */
		s->partner = malloc((p->n_unit_nics + 1) * sizeof(*s->partner));
		if (!s->partner || pairidx_build(&s->idx, p)) {
			mesh_sched_free(s);
			return -ENOMEM;
		}
		for (size_t n = 0; n < nn; n++)
			for (uint32_t j = s->off[n]; j < s->off[n + 1]; j++) {
				const uint32_t *un = unit_nics(s, s->list[j]);

				s->partner[j] = un[0] == n ? un[1] : un[0];
			}
		if (nn <= DENSE_MAX_NICS && !(flags & MESH_SCHED_NO_DENSE)) {
			s->dense = malloc(nn * nn * sizeof(*s->dense) + 1);
			if (!s->dense) {
				mesh_sched_free(s);
				return -ENOMEM;
			}
			memset(s->dense, 0xff, nn * nn * sizeof(*s->dense));
			s->pair_next = malloc((nu + 1) * sizeof(*s->pair_next));
			if (!s->pair_next) {
				mesh_sched_free(s);
				return -ENOMEM;
			}
			/* Units are in plan order: the first seen per pair is the earliest. */
			for (size_t u = nu; u-- > 0;) {
				const uint32_t *un = unit_nics(s, (uint32_t)u);

				s->pair_next[u] = s->dense[un[0] * nn + un[1]];
				s->dense[un[0] * nn + un[1]] = (uint32_t)u;
				s->dense[un[1] * nn + un[0]] = (uint32_t)u;
			}
		}
	}
	s->pending = nu;
	*out = s;
	return 0;
}

void mesh_sched_free(struct mesh_sched *s)
{
	if (!s)
		return;
	free(s->state);
	free(s->busy);
	free(s->off);
	free(s->list);
	free(s->partner);
	free(s->head);
	free(s->dirty);
	free(s->in_dirty);
	free(s->cand);
	free(s->freeset);
	free(s->freepos);
	free(s->dense);
	free(s->pair_next);
	pairidx_free(&s->idx);
	free(s->dead);
	free(s->hoff);
	free(s->hnics);
	free(s->retest);
	free(s->unreach);
	free(s);
}

static bool unit_free(const struct mesh_sched *s, uint32_t u)
{
	const uint32_t *n = unit_nics(s, u);

	for (uint32_t k = 0; k < s->p->units[u].n_nics; k++)
		if (s->busy[n[k]])
			return false;
	return true;
}

static bool unit_dead(const struct mesh_sched *s, uint32_t u)
{
	const uint32_t *n = unit_nics(s, u);

	for (uint32_t k = 0; k < s->p->units[u].n_nics; k++)
		if (s->dead[s->p->nic_host[n[k]]])
			return true;
	return false;
}

/* Unit @u is no longer pending: its pair's entry moves to the next one. */
static void left_pending(struct mesh_sched *s, uint32_t u)
{
	const uint32_t *un;
	uint32_t next;

	s->pending--;
	if (!s->dense)
		return;
	un = unit_nics(s, u);
	if (s->dense[(size_t)un[0] * s->p->n_nics + un[1]] != u)
		return;
	next = s->pair_next[u];
	while (next != UINT32_MAX && s->state[next] != MESH_U_PENDING)
		next = s->pair_next[next];
	s->dense[(size_t)un[0] * s->p->n_nics + un[1]] = next;
	s->dense[(size_t)un[1] * s->p->n_nics + un[0]] = next;
}

static void mark_dirty(struct mesh_sched *s, uint32_t nic)
{
	if (!s->in_dirty[nic]) {
		s->in_dirty[nic] = 1;
		s->dirty[s->n_dirty++] = nic;
	}
}

static void book(struct mesh_sched *s, uint32_t u, uint8_t busy)
{
	const uint32_t *n = unit_nics(s, u);

	for (uint32_t k = 0; k < s->p->units[u].n_nics; k++) {
		uint32_t nic = n[k];

		s->busy[nic] = busy;
		if (busy) {
			/* Out of the free set: the last one takes its place. */
			uint32_t last = s->freeset[--s->n_free];

			s->freeset[s->freepos[nic]] = last;
			s->freepos[last] = s->freepos[nic];
		} else {
			s->freepos[nic] = (uint32_t)s->n_free;
			s->freeset[s->n_free++] = nic;
			mark_dirty(s, nic);
		}
	}
}

/* The first pending unit of NIC @nic that can start, or UINT32_MAX. */
static uint32_t pick(struct mesh_sched *s, uint32_t nic)
{
	uint32_t end = s->off[nic + 1], j;

	/* Nothing on a free NIC is running, so the front is pending or finished. */
	while (s->head[nic] < end && s->state[s->list[s->head[nic]]] != MESH_U_PENDING)
		s->head[nic]++;
	/* Usually the first few are it (all NICs freed at once, or a partner
	 * freed just before): look there first. */
	for (j = s->head[nic]; j < end && j < s->head[nic] + PICK_WINDOW; j++) {
		uint32_t u = s->list[j];

		if (s->state[u] == MESH_U_PENDING &&
		    (s->partner ? !s->busy[s->partner[j]] : unit_free(s, u)))
			return u;
	}
	if (s->dense && end - j > s->n_free) {
		const uint32_t *row = s->dense + (size_t)nic * s->p->n_nics;
		uint32_t best = UINT32_MAX;

		for (size_t i = 0; i < s->n_free; i++)
			if (row[s->freeset[i]] < best)
				best = row[s->freeset[i]];
		return best;
	}
	if (s->pairs_only && end - j > s->n_free) {
		uint32_t best = UINT32_MAX;

		for (size_t i = 0; i < s->n_free; i++) {
			uint32_t v = s->freeset[i], n;
			const uint32_t *us = v == nic ? NULL : pairidx_get(&s->idx, nic, v, &n);

			/* Ascending: the first pending one is the pair's earliest. */
			for (uint32_t k = 0; us && k < n; k++)
				if (s->state[us[k]] == MESH_U_PENDING) {
					if (us[k] < best)
						best = us[k];
					break;
				}
		}
		return best;
	}
	for (; j < end; j++) {
		uint32_t u = s->list[j];

		if (s->state[u] == MESH_U_PENDING &&
		    (s->partner ? !s->busy[s->partner[j]] : unit_free(s, u)))
			return u;
	}
	return UINT32_MAX;
}

static int cmp_cand(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Start units on the NICs freed since last time, lowest plan position
 * first: every dirty NIC names its best candidate, the candidates start in
 * plan order, and a NIC whose candidate lost its NICs to an earlier one
 * looks again. So the plan's order wins ties, whatever order NICs freed in. */
static size_t start_sweep(struct mesh_sched *s, struct mesh_event *ev, size_t n, size_t max)
{
	while (n < max && s->n_dirty) {
		size_t nc = 0;

		while (s->n_dirty) {
			uint32_t nic = s->dirty[--s->n_dirty], u;

			s->in_dirty[nic] = 0;
			if (s->busy[nic] || s->off[nic] == s->off[nic + 1])
				continue;
			u = pick(s, nic);
			if (u != UINT32_MAX)
				s->cand[nc++] = (uint64_t)u << 32 | nic;
		}
		if (!nc)
			break;
		qsort(s->cand, nc, sizeof(*s->cand), cmp_cand);
		for (size_t i = 0; i < nc; i++) {
			uint32_t u = (uint32_t)(s->cand[i] >> 32), nic = (uint32_t)s->cand[i];

			if (n < max && s->state[u] == MESH_U_PENDING && unit_free(s, u)) {
				s->state[u] = MESH_U_RUNNING;
				left_pending(s, u);
				s->running++;
				book(s, u, 1);
				ev[n].unit = u;
				ev[n++].kind = MESH_EV_START;
			} else if (!s->busy[nic]) {
				mark_dirty(s, nic);
			}
		}
	}
	return n;
}

size_t mesh_sched_next(struct mesh_sched *s, struct mesh_event *ev, size_t max)
{
	size_t n = 0;

	while (n < max && s->unreach_head < s->unreach_tail) {
		ev[n].unit = s->unreach[s->unreach_head++];
		ev[n++].kind = MESH_EV_UNREACHABLE;
	}
	if (s->pending)
		return start_sweep(s, ev, n, max);
	/* The sweep is over once nothing runs: then retests, one at a time. */
	while (n < max && !s->running && s->retest_head < s->retest_tail) {
		uint32_t u = s->retest[s->retest_head++];

		if (s->state[u] != MESH_U_RETEST_QUEUED)
			continue;
		s->state[u] = MESH_U_RETEST_RUNNING;
		s->running++;
		book(s, u, 1);
		ev[n].unit = u;
		ev[n++].kind = MESH_EV_RETEST;
	}
	return n;
}

int mesh_sched_done(struct mesh_sched *s, uint32_t unit, bool suspect)
{
	if (!s || unit >= s->p->n_units)
		return -EINVAL;
	switch (s->state[unit]) {
	case MESH_U_RUNNING:
		if (suspect && !unit_dead(s, unit)) {
			s->state[unit] = MESH_U_RETEST_QUEUED;
			s->retest[s->retest_tail++] = unit;
		} else {
			s->state[unit] = MESH_U_DONE;
		}
		break;
	case MESH_U_RETEST_RUNNING:
		s->state[unit] = MESH_U_RETESTED;
		break;
	default:
		return -EINVAL;
	}
	s->running--;
	book(s, unit, 0);
	return 0;
}

int mesh_sched_host_dead(struct mesh_sched *s, uint32_t host)
{
	int count = 0;

	if (!s || host >= s->p->n_hosts)
		return -EINVAL;
	if (s->dead[host])
		return 0;
	s->dead[host] = 1;
	for (uint32_t i = s->hoff[host]; i < s->hoff[host + 1]; i++) {
		uint32_t nic = s->hnics[i];

		/* From the start: queued retests may sit before the head. */
		for (uint32_t j = s->off[nic]; j < s->off[nic + 1]; j++) {
			uint32_t u = s->list[j];

			if (s->state[u] == MESH_U_PENDING) {
				s->state[u] = MESH_U_UNREACHABLE;
				left_pending(s, u);
				s->unreach[s->unreach_tail++] = u;
				count++;
			} else if (s->state[u] == MESH_U_RETEST_QUEUED) {
				s->state[u] = MESH_U_DONE;
			}
		}
	}
	return count;
}

bool mesh_sched_finished(const struct mesh_sched *s)
{
	return !s->pending && !s->running && s->unreach_head == s->unreach_tail &&
	       s->retest_head == s->retest_tail;
}

unsigned int mesh_sched_running(const struct mesh_sched *s)
{
	return s->running;
}

enum mesh_unit_state mesh_sched_state(const struct mesh_sched *s, uint32_t unit)
{
	return (enum mesh_unit_state)s->state[unit];
}
