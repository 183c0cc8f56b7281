/* Simulated agents of mesh-bench under the agents' schedule: PLAN gets
 * fake listener ports, the task list is kept, results are no-ops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh-sim-tasks.h"

#define FLUSH_NS 200000000ull

struct wire_sec *sim_sec;

static int send_payload(int fd, uint16_t type, const uint8_t *buf, size_t len)
{
	return wire_send_sec(fd, &ag_proto, sim_sec, type, buf, len, wire_now_ns() + 5000000000ull);
}

int sim_tasks_frame(struct sim_tasks *t, int fd, const struct wire_frame *f, uint8_t *buf)
{
	static struct ag_plan plan;
	static struct ag_task chunk[AG_TASKS_PER_FRAME];
	struct ag_planned pl = { 0 };
	size_t len, n;

	switch (f->h.type) {
	case AG_PLAN:
		if (ag_plan_decode(f->payload, f->h.length, &plan))
			return -1;
		pl.n = plan.n_nics;
		for (uint32_t i = 0; i < pl.n; i++)
			pl.probe_port[i] = 1;
		if (ag_planned_encode(&pl, buf, AG_MAX_PAYLOAD, &len))
			return -1;
		return send_payload(fd, AG_PLANNED, buf, len) ? -1 : 1;
	case AG_TASKS:
		if (ag_tasks_decode(f->payload, f->h.length, chunk, AG_TASKS_PER_FRAME, &n))
			return -1;
		if (t->n + n > t->cap) {
			size_t cap = (t->n + n) * 2;
			uint32_t *e = realloc(t->ends, cap * sizeof(*e));

			if (!e)
				return -1;
			t->ends = e;
			t->cap = cap;
		}
		for (size_t i = 0; i < n; i++)
			t->ends[t->n++] = chunk[i].id * 2 + chunk[i].role;
		return 1;
	case AG_GO:
		t->go = wire_now_ns();
		return 1;
	case AG_STOP:
		t->next = t->n; /* the rest is dropped: the coordinator skips it */
		return 1;
	case AG_DROP: /* a peer gone, or (naming none) the coordinator's keepalive */
		return 1;
	default:
		return 0;
	}
}

static int flush(struct sim_tasks *t, int fd, uint8_t *buf, bool last)
{
	static struct ag_tres r[AG_TRES_PER_FRAME];
	size_t len;

	for (size_t i = 0; i < t->n_pend; i++) {
		r[i].id = t->pend[i] / 2;
		r[i].role = (uint8_t)(t->pend[i] % 2);
		r[i].status = 0;
		r[i].text[0] = '\0';
		r[i].gbps = 1.0;
		r[i].lat_p50_us = r[i].lat_p99_us = NAN;
		r[i].seconds = 0.001;
		r[i].n_ctr = 0;
	}
	if (ag_tres_encode(r, t->n_pend, last, buf, AG_MAX_PAYLOAD, &len))
		return -1;
	t->n_pend = 0;
	return send_payload(fd, AG_TRES, buf, len);
}

bool sim_tasks_tick(struct sim_tasks *t, int fd, uint8_t *buf, uint64_t now, uint64_t per_task_ns)
{
	size_t due;

	if (!t->go || t->last_sent)
		return false;
	due = (size_t)((now - t->go) / per_task_ns);
	while (t->next < t->n && t->next < due) {
		if (!t->n_pend)
			t->first_pend = now;
		t->pend[t->n_pend++] = t->ends[t->next++];
		if (t->n_pend == AG_TRES_PER_FRAME)
			flush(t, fd, buf, false);
	}
	if (t->next == t->n) {
		flush(t, fd, buf, true);
		t->last_sent = true;
		return false;
	}
	if (t->n_pend && now - t->first_pend >= FLUSH_NS)
		flush(t, fd, buf, false);
	return true;
}

void sim_tasks_reset(struct sim_tasks *t)
{
	free(t->ends);
	memset(t, 0, sizeof(*t));
}
