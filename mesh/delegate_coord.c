/* The agents' schedule on the coordinator's side: each agent gets a probe
 * key and its task list, runs it, and reports; both ends' reports merge. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#include "agent_tasks_proto.h"
#include "coord_sweep.h"

#define LATE_NS 2000000000ull /* after STOP or the last batch: a bound for the rest */

enum dstate { D_PLAN, D_PLANNED, D_SENDING, D_GOING, D_LAST };

struct dhost {
	enum dstate st;
	uint32_t *ids;         /* its task ends, in plan order: id * 2 + role */
	size_t n_ids, sent;
	uint32_t *probe_port;  /* its standing listener per NIC */
	uint64_t heard;        /* GO sent or the last batch, while it runs */
};

/* One end's report kept until the other's comes: only its used counters. */
struct half {
	struct ag_tres r;      /* ctr[] cut to n_ctr entries */
};

struct delegate {
	struct dhost *dh;
	uint8_t key[AG_PROBE_KEY_LEN];
	uint32_t n_ids;        /* plan tasks x tests */
	uint8_t *got;          /* per id: 1 run end, 2 serve end, 4 recorded */
	struct ag_tres **half; /* per id: the first end's report */
	uint32_t recorded;
	struct ag_tres *batch; /* AG_TRES_PER_FRAME decoded entries */
	struct ag_task *chunk; /* AG_TASKS_PER_FRAME to encode */
	bool stopping;
};

RCK_EXPORT int rck_mesh_config_set_schedule(struct rck_mesh_config *c, enum rck_mesh_schedule schedule)
{
	if (!c || (schedule != RCK_MESH_SCHEDULE_COORDINATOR && schedule != RCK_MESH_SCHEDULE_AGENTS))
		return -EINVAL;
	c->schedule = schedule;
	return 0;
}

const char *delegate_close_reason(const struct sweep *s, const struct host *h)
{
	if (!s->dg || s->dg->dh[h - s->h].st != D_PLAN)
		return NULL;
	/* An empty PLAN is refused by every agent, current ones too. */
	if (s->c->transport != RCK_PROBE_TRANSPORT_TCP && !h->n_nics)
		return "its agent describes no RDMA NIC with a RoCE port: nothing to probe on that host";
	return "its agent closed the session on the agents' schedule (PLAN, agent message type 14): "
	       "it predates that feature of agent protocol 1; upgrade it or use the coordinator's schedule";
}

static bool alive(const struct sweep *s, uint32_t hi)
{
	return s->h[hi].st == H_READY;
}

/* Record id's test of its task; both ends' counters in @res when ok. */
static void finish(struct sweep *s, uint32_t id, enum rck_mesh_status st, const char *reason,
		   const struct ag_msg *res, double seconds)
{
	struct delegate *dg = s->dg;
	struct rtask *r = &s->rt[id / s->n_tests];
	uint64_t now = wire_now_ns();

	if (dg->got[id] & 4)
		return;
	dg->got[id] |= 4;
	dg->recorded++;
	r->test_i = (uint8_t)(id % s->n_tests);
	r->retest = false;
	r->started = seconds > 0 && seconds * 1e9 < (double)(now - s->t0) ? now - (uint64_t)(seconds * 1e9) : 0;
	coord_record(s, id / s->n_tests, st, reason, res);
	free(dg->half[id]); /* @reason may be in it */
	dg->half[id] = NULL;
}

/* Tell the agents still running that @hi's listeners are gone, so their
 * tasks with it fail now instead of after the wait. */
static void drop_peer(struct sweep *s, uint32_t hi)
{
	struct host *h = &s->h[hi];
	struct ag_peer gone[AG_MAX_NICS];
	unsigned int n = s->c->transport == RCK_PROBE_TRANSPORT_TCP ? 1 : h->n_nics;
	size_t len;

	if (s->dg->dh[hi].st < D_PLANNED || !h->nic_addr)
		return;
	for (unsigned int i = 0; i < n && i < AG_MAX_NICS; i++) {
		snprintf(gone[i].addr, sizeof(gone[i].addr), "%s",
			 s->c->transport == RCK_PROBE_TRANSPORT_RDMA && h->nic_addr[i][0] ? h->nic_addr[i]
											    : h->cfg->addr);
		gone[i].port = s->dg->dh[hi].probe_port[i];
	}
	if (ag_drop_encode(gone, n < AG_MAX_NICS ? n : AG_MAX_NICS, s->buf, AG_MAX_PAYLOAD, &len))
		return;
	for (size_t i = 0; i < s->n_h; i++)
		if (alive(s, (uint32_t)i) && s->dg->dh[i].st >= D_PLANNED && s->dg->dh[i].st != D_LAST)
			coord_queue(s, &s->h[i], AG_DROP, s->buf, len);
}

void delegate_host_dead(struct sweep *s, uint32_t hi, const char *reason)
{
	struct delegate *dg = s->dg;
	struct dhost *d = &dg->dh[hi];

	drop_peer(s, hi);

	for (size_t i = 0; i < d->n_ids; i++)
		finish(s, d->ids[i] / 2, RCK_MESH_UNREACHABLE, reason, NULL, 0);
}

static void merge(struct sweep *s, uint32_t id, const struct ag_tres *run, const struct ag_tres *srv)
{
	struct ag_msg *m = s->msg;

	if (run->status != RCK_PROBE_OK) {
		finish(s, id, RCK_MESH_FAILED, run->text[0] ? run->text : srv->text[0] ? srv->text : "probe failed",
		       NULL, run->seconds);
		return;
	}
	ag_msg_clear(m);
	m->type = AG_RESULT;
	m->gbps = run->gbps;
	m->lat_p50_us = run->lat_p50_us;
	m->lat_p99_us = run->lat_p99_us;
	m->n_ctr[0] = run->n_ctr;
	memcpy(m->ctr[0], run->ctr, run->n_ctr * sizeof(run->ctr[0]));
	/* The serving end's counters are its own snapshot around the probe. */
	m->n_ctr[1] = srv->n_ctr;
	memcpy(m->ctr[1], srv->ctr, srv->n_ctr * sizeof(srv->ctr[0]));
	finish(s, id, RCK_MESH_OK, NULL, m, run->seconds);
}

static void one_report(struct sweep *s, uint32_t hi, const struct ag_tres *r)
{
	struct delegate *dg = s->dg;
	const struct mesh_task *task;
	uint8_t bit = r->role == AG_ROLE_RUN ? 1 : 2;
	struct ag_tres *other;

	if (r->id >= dg->n_ids)
		return;
	task = &s->plan->tasks[r->id / s->n_tests];
	if (coord_host_of(s, r->role == AG_ROLE_RUN ? task->src : task->dst) != hi ||
	    (dg->got[r->id] & (bit | 4)))
		return; /* not its end, a repeat, or already given up */
	if (dg->stopping && r->status != RCK_PROBE_OK)
		return; /* cut short by STOP: skipped below */
	dg->got[r->id] |= bit;
	other = dg->half[r->id];
	if (!other) {
		size_t sz = offsetof(struct ag_tres, ctr) + r->n_ctr * sizeof(r->ctr[0]);

		dg->half[r->id] = malloc(sz);
		if (dg->half[r->id])
			memcpy(dg->half[r->id], r, sz);
		else
			finish(s, r->id, RCK_MESH_FAILED, "out of memory", NULL, 0);
		return;
	}
	if (r->role == AG_ROLE_RUN)
		merge(s, r->id, r, other);
	else
		merge(s, r->id, other, r);
}

void delegate_frame(struct sweep *s, struct host *h, const struct wire_frame *f)
{
	struct delegate *dg = s->dg;
	uint32_t hi = (uint32_t)(h - s->h);
	struct dhost *d = &dg->dh[hi];
	struct ag_planned pl;
	size_t n;
	bool last;

	if (f->h.type == AG_PLANNED && d->st == D_PLAN) {
		if (ag_planned_decode(f->payload, f->h.length, &pl)) {
			coord_host_dead(s, h, "%s", "malformed PLANNED");
		} else if (pl.status) {
			coord_host_dead(s, h, "agent cannot run the agents' schedule: %s", pl.text);
		} else if (pl.n != (s->c->transport == RCK_PROBE_TRANSPORT_TCP ? 1 : h->n_nics)) {
			coord_host_dead(s, h, "%s", "agent listens for probes on the wrong number of NICs");
		} else {
			memcpy(d->probe_port, pl.probe_port, pl.n * sizeof(pl.probe_port[0]));
			d->st = D_PLANNED;
		}
		return;
	}
	if (f->h.type == AG_TRES && d->st >= D_GOING && d->st != D_LAST) {
		if (ag_tres_decode(f->payload, f->h.length, dg->batch, AG_TRES_PER_FRAME, &n, &last)) {
			coord_host_dead(s, h, "%s", "malformed task results");
			return;
		}
		d->heard = wire_now_ns();
		for (size_t i = 0; i < n; i++)
			one_report(s, hi, &dg->batch[i]);
		if (last)
			d->st = D_LAST;
		return;
	}
	if (f->h.type == AG_ERROR && !ag_decode(f->h.type, f->payload, f->h.length, s->msg)) {
		coord_host_dead(s, h, "agent refused the agents' schedule: %s", s->msg->text);
		return;
	}
	/* Late SERVED/RESULT of nothing we asked, or a stray frame. */
	coord_host_dead(s, h, "sent an unexpected %s during the agents' schedule", ag_task_type_name(f->h.type));
}

static int send_plan(struct sweep *s, struct host *h)
{
	struct ag_plan *p = calloc(1, sizeof(*p));
	size_t len;
	int rc;

	if (!p)
		return -ENOMEM;
	memcpy(p->key, s->dg->key, sizeof(p->key));
	p->transport = s->c->transport;
	p->size = s->c->size;
	p->iters = s->c->iters;
	p->duration_ms = (uint32_t)(s->c->duration_s * 1000);
	p->timeout_ms = s->timeout_ms;
	if (s->c->transport == RCK_PROBE_TRANSPORT_TCP) {
		p->n_nics = 1;
	}
	for (unsigned int i = 0; s->c->transport != RCK_PROBE_TRANSPORT_TCP && i < h->n_nics; i++) {
		struct rck_mesh_nic info = { .size = sizeof(info) };

		rck_mesh_get_nic(s->m, h->first_nic + i, &info, NULL);
		snprintf(p->nics[i].device, sizeof(p->nics[i].device), "%s", info.device);
		p->nics[i].port = info.port;
		p->n_nics++;
	}
	rc = ag_plan_encode(p, s->buf, AG_MAX_PAYLOAD, &len) ?: coord_queue(s, h, AG_PLAN, s->buf, len);
	free(p);
	return rc;
}

/* Every host's ends of every test of every task, in plan order. */
static int build_lists(struct sweep *s)
{
	struct delegate *dg = s->dg;

	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t t = 0; t < s->plan->n_tasks; t++) {
			const struct mesh_task *task = &s->plan->tasks[t];
			uint32_t src = coord_host_of(s, task->src), dst = coord_host_of(s, task->dst);

			for (uint32_t i = 0; i < s->n_tests; i++) {
				uint32_t id = t * s->n_tests + i;

				if (!pass && (!alive(s, src) || !alive(s, dst))) {
					const char *why = rck_mesh_host_unreachable(s->m, alive(s, src) ? dst : src);

					finish(s, id, RCK_MESH_UNREACHABLE, why ? why : "host unreachable", NULL, 0);
				}
				if (dg->got[id] & 4)
					continue;
				if (pass) {
					dg->dh[src].ids[dg->dh[src].n_ids++] = id * 2 + AG_ROLE_RUN;
					dg->dh[dst].ids[dg->dh[dst].n_ids++] = id * 2 + AG_ROLE_SERVE;
				} else {
					dg->dh[src].n_ids++;
					dg->dh[dst].n_ids++;
				}
			}
		}
		for (size_t h = 0; !pass && h < s->n_h; h++) {
			if (dg->dh[h].n_ids > AG_MAX_TASKS) {
				rck_err(s->ctx, "mesh: %s has %zu tasks, above the agents' limit of %u", s->h[h].cfg->name,
					dg->dh[h].n_ids, AG_MAX_TASKS);
				return -E2BIG;
			}
			dg->dh[h].ids = malloc((dg->dh[h].n_ids ? dg->dh[h].n_ids : 1) * sizeof(uint32_t));
			if (!dg->dh[h].ids)
				return -ENOMEM;
			dg->dh[h].n_ids = 0;
		}
	}
	return 0;
}

static void fill_task(struct sweep *s, uint32_t end, struct ag_task *t)
{
	uint32_t id = end / 2, role = end % 2;
	const struct mesh_task *task = &s->plan->tasks[id / s->n_tests];
	uint32_t mine = role == AG_ROLE_RUN ? task->src : task->dst;
	uint32_t peer = role == AG_ROLE_RUN ? task->dst : task->src;
	struct host *ph = &s->h[coord_host_of(s, peer)];
	struct host *mh = &s->h[coord_host_of(s, mine)];
	uint32_t pn = peer - ph->first_nic;
	const char *addr = s->c->transport == RCK_PROBE_TRANSPORT_RDMA && ph->nic_addr[pn][0]
				   ? ph->nic_addr[pn] : ph->cfg->addr;
	struct rck_mesh_nic info = { .size = sizeof(info) };

	memset(t, 0, sizeof(*t));
	t->id = id;
	t->role = (uint8_t)role;
	t->test = s->tests[id % s->n_tests] == RCK_MESH_TEST_BW ? RCK_PROBE_TEST_BW : RCK_PROBE_TEST_LAT;
	t->nic = (uint8_t)(mine - mh->first_nic);
	snprintf(t->peer, sizeof(t->peer), "%s", addr);
	t->peer_port = s->dg->dh[ph - s->h].probe_port[pn];
	if (s->c->transport == RCK_PROBE_TRANSPORT_RDMA) {
		rck_mesh_get_nic(s->m, peer, &info, NULL);
		snprintf(t->peer_device, sizeof(t->peer_device), "%s", info.device);
		t->peer_ib_port = info.port;
	}
}

/* A host's next chunk once its previous one has left (a 1024-host full
 * mesh would otherwise queue 200 MB of task lists at once); GO after the
 * last. */
static void feed(struct sweep *s, struct host *h)
{
	struct delegate *dg = s->dg;
	struct dhost *d = &dg->dh[h - s->h];
	size_t n = 0, len;

	if (d->st != D_SENDING || h->out_len)
		return;
	while (d->sent < d->n_ids && n < AG_TASKS_PER_FRAME)
		fill_task(s, d->ids[d->sent++], &dg->chunk[n++]);
	if (n && (ag_tasks_encode(dg->chunk, n, s->buf, AG_MAX_PAYLOAD, &len) ||
		  coord_queue(s, h, AG_TASKS, s->buf, len))) {
		coord_host_dead(s, h, "%s", "cannot encode its task list");
		return;
	}
	if (d->sent == d->n_ids) {
		coord_queue(s, h, AG_GO, NULL, 0);
		d->st = D_GOING;
		d->heard = wire_now_ns();
	}
}

static size_t count(const struct sweep *s, enum dstate st)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_h; i++)
		n += alive(s, (uint32_t)i) && s->dg->dh[i].st == st;
	return n;
}

static void stop_all(struct sweep *s)
{
	s->dg->stopping = true;
	for (size_t i = 0; i < s->n_h; i++)
		if (alive(s, (uint32_t)i))
			coord_queue(s, &s->h[i], AG_STOP, NULL, 0);
}

/* An agent reports at least every 200 ms while results are pending; a task
 * may keep it silent for its peer's wait (timeout + 2 durations) plus its
 * probe (a duration + timeout). Well past that it hangs. */
static void check_silent(struct sweep *s, uint64_t *next)
{
	uint64_t now = wire_now_ns(), dur = (uint64_t)(s->c->duration_s * 1e9);
	uint64_t limit = 3ull * s->timeout_ms * 1000000ull + 4 * dur + 1000000000ull;

	if (now < *next)
		return;
	*next = now + SLICE_MS * 1000000ull;
	for (size_t i = 0; i < s->n_h; i++)
		if (alive(s, (uint32_t)i) && s->dg->dh[i].st == D_GOING && now - s->dg->dh[i].heard > limit)
			coord_host_dead(s, &s->h[i], "its agent reported nothing for %.0f s", limit / 1e9);
}

static void run_pass(struct sweep *s, uint64_t deadline)
{
	struct delegate *dg = s->dg;
	uint64_t until = wire_now_ns() + (uint64_t)s->timeout_ms * 1000000ull, late = 0, next = 0;

	for (size_t i = 0; i < s->n_h; i++)
		if (alive(s, (uint32_t)i) && send_plan(s, &s->h[i]))
			coord_host_dead(s, &s->h[i], "%s", "out of memory");
	while (count(s, D_PLAN) && !coord_stopping(s, deadline) && wire_now_ns() < until)
		coord_poll_round(s, SLICE_MS);
	if (coord_stopping(s, deadline)) {
		dg->stopping = true; /* nothing ran: all skipped */
		return;
	}
	for (size_t i = 0; i < s->n_h; i++)
		if (alive(s, (uint32_t)i) && dg->dh[i].st == D_PLAN)
			coord_host_dead(s, &s->h[i], "%s", "its agent did not answer the PLAN in time");
	if (build_lists(s))
		return;
	for (size_t i = 0; i < s->n_h; i++)
		if (alive(s, (uint32_t)i))
			dg->dh[i].st = D_SENDING;
	while (dg->recorded < dg->n_ids) {
		for (size_t i = 0; !dg->stopping && i < s->n_h; i++)
			if (alive(s, (uint32_t)i))
				feed(s, &s->h[i]);
		if (!dg->stopping && coord_stopping(s, deadline)) {
			stop_all(s);
			late = wire_now_ns() + LATE_NS;
		}
		/* Every agent sent its last batch: an end never reported stays failed. */
		if (!count(s, D_PLANNED) && !count(s, D_SENDING) && !count(s, D_GOING))
			break;
		if (late && wire_now_ns() >= late)
			break;
		coord_poll_round(s, SLICE_MS);
		check_silent(s, &next);
	}
}

/* Suspect tasks probed again alone, as the coordinator's schedule does,
 * but in rounds of disjoint pairs, driven by the coordinator. */
static void retest_suspects(struct sweep *s, uint64_t deadline)
{
	uint32_t *tasks = malloc((s->plan->n_tasks + 1) * sizeof(*tasks));
	uint32_t *round = malloc((s->plan->n_tasks + 1) * sizeof(*round));
	long nt = 0;

	for (uint32_t t = 0; tasks && round && t < s->plan->n_tasks; t++) {
		const struct mesh_task *task = &s->plan->tasks[t];

		if (alive(s, coord_host_of(s, task->src)) && alive(s, coord_host_of(s, task->dst)) &&
		    coord_suspect(s, t))
			tasks[nt++] = t;
	}
	if (nt && !coord_stopping(s, deadline))
		coord_run_rounds(s, tasks, nt, round, deadline);
	free(tasks);
	free(round);
}

int delegate_run(struct sweep *s, uint64_t deadline)
{
	struct delegate dg = { 0 };
	int rc = 0;

	for (size_t u = 0; u < s->plan->n_units; u++)
		if (s->plan->units[u].n_tasks != 1) {
			rck_err(s->ctx, "mesh: the agents' schedule runs one probe at a time per NIC; "
				"incast groups need the coordinator's schedule");
			return -EOPNOTSUPP;
		}
	dg.n_ids = (uint32_t)(s->plan->n_tasks * s->n_tests);
	dg.dh = calloc(s->n_h, sizeof(*dg.dh));
	dg.got = calloc(dg.n_ids ? dg.n_ids : 1, 1);
	dg.half = calloc(dg.n_ids ? dg.n_ids : 1, sizeof(*dg.half));
	dg.batch = malloc(AG_TRES_PER_FRAME * sizeof(*dg.batch));
	dg.chunk = malloc(AG_TASKS_PER_FRAME * sizeof(*dg.chunk));
	for (size_t i = 0; dg.dh && i < s->n_h; i++)
		if (!(dg.dh[i].probe_port = calloc(AG_MAX_NICS, sizeof(uint32_t))))
			rc = -ENOMEM;
	if (!dg.dh || !dg.got || !dg.half || !dg.batch || !dg.chunk)
		rc = -ENOMEM;
	if (!rc && wire_random(dg.key, sizeof(dg.key)))
		rc = -EIO;
	if (!rc) {
		s->dg = &dg;
		run_pass(s, deadline);
		/* Ends never reported: skipped after a cancel or the deadline,
		 * failed otherwise. */
		if (dg.stopping)
			coord_skip_rest(s, atomic_load(&s->c->cancel) ? "cancelled" : "sweep deadline passed");
		for (uint32_t id = 0; !dg.stopping && id < dg.n_ids; id++)
			if (!(dg.got[id] & 4))
				finish(s, id, RCK_MESH_FAILED, "no report from one end of the probe", NULL, 0);
		s->dg = NULL;
		retest_suspects(s, deadline);
	}
	for (uint32_t id = 0; dg.half && id < dg.n_ids; id++)
		free(dg.half[id]);
	for (size_t i = 0; dg.dh && i < s->n_h; i++) {
		free(dg.dh[i].ids);
		free(dg.dh[i].probe_port);
	}
	memset(dg.key, 0, sizeof(dg.key));
	free(dg.dh);
	free(dg.got);
	free(dg.half);
	free(dg.batch);
	free(dg.chunk);
	return rc;
}
