/* Discrete-event sweep simulation: a min-heap of running units by finish
 * time; completions feed the scheduler, its events start new runs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "sim.h"

struct item {
	double t;
	uint32_t unit;
};

struct heap {
	struct item *a;
	size_t n, cap;
};

static int heap_push(struct heap *h, double t, uint32_t unit)
{
	size_t i;

	if (mesh_grow((void **)&h->a, &h->cap, h->n + 1, sizeof(*h->a)))
		return -ENOMEM;
	/* Ties go to the lower unit, so a run is the same on every machine. */
	for (i = h->n++; i > 0; i = (i - 1) / 2) {
		struct item *p = &h->a[(i - 1) / 2];

		if (p->t < t || (p->t == t && p->unit < unit))
			break;
		h->a[i] = *p;
	}
	h->a[i].t = t;
	h->a[i].unit = unit;
	return 0;
}

static struct item heap_pop(struct heap *h)
{
	struct item top = h->a[0], last = h->a[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && (h->a[c + 1].t < h->a[c].t ||
				     (h->a[c + 1].t == h->a[c].t && h->a[c + 1].unit < h->a[c].unit)))
			c++;
		if (last.t < h->a[c].t || (last.t == h->a[c].t && last.unit < h->a[c].unit))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	h->a[i] = last;
	return top;
}

int mesh_sim_run(struct mesh_sched *s, const struct mesh_sim_opts *o, struct mesh_sim_stats *st)
{
	struct mesh_event ev[256];
	struct heap h = {0};
	bool dead_done = o->dead_host < 0;
	double now = 0;
	int rc = 0;

	memset(st, 0, sizeof(*st));
	for (;;) {
		size_t n;

		n = mesh_sched_next(s, ev, sizeof(ev) / sizeof(ev[0]));
		for (size_t i = 0; i < n && !rc; i++) {
			if (o->on_event)
				o->on_event(o->arg, &ev[i], now);
			if (ev[i].kind == MESH_EV_UNREACHABLE) {
				st->unreachable++;
				continue;
			}
			if (ev[i].kind == MESH_EV_RETEST)
				st->retested++;
			else
				st->started++;
			rc = heap_push(&h, now + o->duration(o->arg, ev[i].unit, ev[i].kind == MESH_EV_RETEST),
				       ev[i].unit);
		}
		if (rc)
			break;
		if (h.n > st->max_running)
			st->max_running = (unsigned int)h.n;
		if (n)
			continue;
		if (!h.n) {
			if (!dead_done) {
				/* Nothing runs: the death comes now, if it was to come later. */
				dead_done = true;
				mesh_sched_host_dead(s, (uint32_t)o->dead_host);
				continue;
			}
			if (!mesh_sched_finished(s))
				rc = -EDEADLK;
			break;
		}
		if (!dead_done && h.a[0].t > o->dead_at) {
			dead_done = true;
			now = o->dead_at;
			mesh_sched_host_dead(s, (uint32_t)o->dead_host);
			continue;
		}
		/* Everything that ends at one instant ends before anything starts. */
		now = h.a[0].t;
		if (now > st->makespan)
			st->makespan = now;
		while (h.n && h.a[0].t == now && !rc) {
			struct item it = heap_pop(&h);
			bool suspect;

			if (o->on_done)
				o->on_done(o->arg, it.unit, now);
			suspect = o->suspect && mesh_sched_state(s, it.unit) == MESH_U_RUNNING &&
				  o->suspect(o->arg, it.unit);
			rc = mesh_sched_done(s, it.unit, suspect);
		}
		if (rc)
			break;
	}
	free(h.a);
	return rc;
}
