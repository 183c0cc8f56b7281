/* Scheduler: greedy list scheduling in the plan's order. Each NIC keeps its
 * units in plan order; when NICs free, the first of their pending units
 * whose NICs are all free start, earliest in the plan first. No round
 * barriers: the circle order only decides who goes first. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

struct mesh_sched {
	const struct mesh_plan *p;
	uint8_t *state;     /* per unit, enum mesh_unit_state */
	uint8_t *busy;      /* per NIC */
	uint32_t *off;      /* per NIC: its units are list[off[n] .. off[n+1]) */
	uint32_t *list;
	uint32_t *head;     /* per NIC: list[off[n] .. head[n]) are all finished */
	uint32_t *dirty;    /* NICs freed since they were last looked at */
	uint8_t *in_dirty;
	size_t n_dirty;
	uint64_t *cand;     /* unit << 32 | NIC: candidates of one pass */
	uint8_t *dead;      /* per host */
	uint32_t *hoff, *hnics; /* NICs of each host */
	uint32_t *retest;   /* FIFO */
	size_t retest_head, retest_tail;
	uint32_t *unreach;  /* FIFO of UNREACHABLE events to deliver */
	size_t unreach_head, unreach_tail;
	size_t pending;     /* units in MESH_U_PENDING */
	unsigned int running;
};

int mesh_sched_new(const struct mesh_plan *p, struct mesh_sched **out)
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
	s->dead = calloc(p->n_hosts + 1, 1);
	s->hoff = calloc(p->n_hosts + 2, sizeof(*s->hoff));
	s->hnics = malloc((nn + 1) * sizeof(*s->hnics));
	s->retest = malloc((nu + 1) * sizeof(*s->retest));
	s->unreach = malloc((nu + 1) * sizeof(*s->unreach));
	if (!s->state || !s->busy || !s->off || !s->list || !s->head || !s->dirty || !s->in_dirty || !s->cand ||
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
	free(s->head);
	free(s->dirty);
	free(s->in_dirty);
	free(s->cand);
	free(s->dead);
	free(s->hoff);
	free(s->hnics);
	free(s->retest);
	free(s->unreach);
	free(s);
}

static const uint32_t *unit_nics(const struct mesh_sched *s, uint32_t u)
{
	return s->p->unit_nics + s->p->units[u].first_nic;
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
		s->busy[n[k]] = busy;
		if (!busy)
			mark_dirty(s, n[k]);
	}
}

/* The first pending unit of NIC @nic that can start, or UINT32_MAX. */
static uint32_t pick(struct mesh_sched *s, uint32_t nic)
{
	uint32_t end = s->off[nic + 1];

	/* Nothing on a free NIC is running, so the front is pending or finished. */
	while (s->head[nic] < end && s->state[s->list[s->head[nic]]] != MESH_U_PENDING)
		s->head[nic]++;
	for (uint32_t j = s->head[nic]; j < end; j++) {
		uint32_t u = s->list[j];

		if (s->state[u] == MESH_U_PENDING && unit_free(s, u))
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
				s->pending--;
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
				s->pending--;
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
