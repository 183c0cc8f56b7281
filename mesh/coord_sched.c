/* The sweep's schedule on the coordinator: a pass handed to the agents as
 * task lists, their batched reports merged, deaths and cancels. */
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
	uint32_t *ids;         /* its task ends in this pass, in order: id * 2 + role */
	size_t n_ids, sent;
	uint32_t *probe_port;  /* its standing listeners, NIC-major, lanes per NIC */
	uint64_t heard;        /* GO sent or the last batch, while it runs */
};

struct delegate {
	struct dhost *dh;
	uint8_t key[AG_PROBE_KEY_LEN];
	uint32_t lanes;
	struct pass *p;        /* the pass running, NULL between passes */
	uint8_t *got;          /* per id: 1 run end, 2 serve end, 4 recorded */
	struct ag_tres **half; /* per id: the first end's report */
	uint32_t recorded;
	struct ag_tres *batch; /* AG_TRES_PER_FRAME decoded entries */
	struct ag_task *chunk; /* AG_TASKS_PER_FRAME to encode */
	bool stopping;
	size_t n_in[D_LAST + 1]; /* live hosts in each state */
	uint32_t *sending;     /* live hosts whose list is still being sent */
	size_t n_sending;
};

RCK_EXPORT int rck_mesh_config_set_schedule(struct rck_mesh_config *c, enum rck_mesh_schedule schedule)
{
	if (!c || (schedule != RCK_MESH_SCHEDULE_COORDINATOR && schedule != RCK_MESH_SCHEDULE_AGENTS))
		return -EINVAL;
	c->schedule = schedule; /* one engine: kept for one release, changes nothing */
	return 0;
}

static const char *close_reason(const struct sweep *s, const struct host *h)
{
	if (!s->dg || s->dg->dh[h - s->h].st != D_PLAN)
		return NULL;
	/* An empty PLAN is refused by every agent, current ones too. */
	if (s->c->transport != RCK_PROBE_TRANSPORT_TCP && !h->n_nics)
		return "its agent describes no RDMA NIC with a RoCE port: nothing to probe on that host";
	return "its agent closed the session on the agents' schedule (PLAN, agent message type 14): "
	       "it predates that feature of agent protocol 1; upgrade it";
}

static bool alive(const struct sweep *s, uint32_t hi)
{
	return s->h[hi].st == H_READY;
}

static void set_st(struct sweep *s, struct dhost *d, enum dstate st)
{
	s->dg->n_in[d->st]--;
	s->dg->n_in[st]++;
	d->st = st;
}

static bool is_tcp(const struct sweep *s)
{
	return s->c->transport == RCK_PROBE_TRANSPORT_TCP;
}

/* Listeners of host @h: one per lane on each NIC (one pseudo NIC with TCP). */
static unsigned int n_listen(const struct sweep *s, const struct host *h)
{
	return (is_tcp(s) ? 1 : h->n_nics) * s->dg->lanes;
}

/* Record id's test of its task; both ends' counters in @res when ok. The
 * probe lasted @seconds from @start (its serve end's measured start; 0:
 * @seconds before @end; @end 0: now). */
static void finish(struct sweep *s, uint32_t id, enum rck_mesh_status st, const char *reason,
		   const struct ag_msg *res, double seconds, uint64_t start, uint64_t end)
{
	struct delegate *dg = s->dg;
	struct pass *p = dg->p;
	struct rtask *r = &s->rt[p->task[id]];
	uint64_t now = end > s->t0 ? end : wire_now_ns();

	if (start > s->t0 && seconds > 0)
		now = start + (uint64_t)(seconds * 1e9);

	if (dg->got[id] & 4)
		return;
	dg->got[id] |= 4;
	dg->recorded++;
	r->test_i = p->test[id];
	r->retest = p->retest;
	r->started = seconds > 0 && seconds * 1e9 < (double)(now - s->t0) ? now - (uint64_t)(seconds * 1e9) : 0;
	r->ended = r->started ? now : 0;
	coord_record(s, p->task[id], st, reason, res);
	r->ended = 0;
	free(dg->half[id]); /* @reason may be in it */
	dg->half[id] = NULL;
}

/* Tell the agents still running that @hi's listeners are gone, so their
 * tasks with it fail now instead of after the wait. */
static void drop_peer(struct sweep *s, uint32_t hi)
{
	struct host *h = &s->h[hi];
	struct ag_peer gone[AG_MAX_NICS];
	unsigned int n = n_listen(s, h), k = 0;
	size_t len;

	if (s->dg->dh[hi].st < D_PLANNED || !h->nic_addr)
		return;
	while (k < n) {
		unsigned int m = 0;

		for (; k < n && m < AG_MAX_NICS; k++, m++) {
			unsigned int nic = k / s->dg->lanes;

			snprintf(gone[m].addr, sizeof(gone[m].addr), "%s",
				 !is_tcp(s) && h->nic_addr[nic][0] ? h->nic_addr[nic] : h->cfg->addr);
			gone[m].port = s->dg->dh[hi].probe_port[k];
		}
		if (ag_drop_encode(gone, m, s->buf, AG_MAX_PAYLOAD, &len))
			return;
		for (size_t i = 0; i < s->n_h; i++)
			if (alive(s, (uint32_t)i) && s->dg->dh[i].st >= D_SENDING && s->dg->dh[i].st != D_LAST)
				coord_queue(s, &s->h[i], AG_DROP, s->buf, len);
	}
}

static void host_dead(struct sweep *s, uint32_t hi, const char *reason)
{
	struct delegate *dg = s->dg;
	struct dhost *d = &dg->dh[hi];

	dg->n_in[d->st]--; /* it was live: every host live at the start was counted */
	drop_peer(s, hi);
	for (size_t i = 0; dg->p && i < d->n_ids; i++)
		finish(s, d->ids[i] / 2, RCK_MESH_UNREACHABLE, reason, NULL, 0, 0, 0);
}

static void merge(struct sweep *s, uint32_t id, const struct ag_tres *run, const struct ag_tres *srv)
{
	struct ag_msg *m = s->msg;

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
	/* A failed probe keeps both ends' counters: a port that fell during
	 * it shows in link_downed (analysis/link_flaps.c). */
	if (run->status != RCK_PROBE_OK)
		finish(s, id, RCK_MESH_FAILED, run->text[0] ? run->text : srv->text[0] ? srv->text : "probe failed",
		       m, run->seconds, 0, run->end_ns);
	else
		finish(s, id, RCK_MESH_OK, NULL, m, run->seconds, srv->start_ns, run->end_ns);
}

static void one_report(struct sweep *s, uint32_t hi, const struct ag_tres *r)
{
	struct delegate *dg = s->dg;
	const struct mesh_task *task;
	uint8_t bit = r->role == AG_ROLE_RUN ? 1 : 2;
	struct ag_tres *other;

	if (!dg->p || r->id >= dg->p->n_ids)
		return;
	task = &s->plan->tasks[dg->p->task[r->id]];
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
			finish(s, r->id, RCK_MESH_FAILED, "out of memory", NULL, 0, 0, 0);
		return;
	}
	if (r->role == AG_ROLE_RUN)
		merge(s, r->id, r, other);
	else
		merge(s, r->id, other, r);
}

static void frame(struct sweep *s, struct host *h, const struct wire_frame *f)
{
	struct delegate *dg = s->dg;
	uint32_t hi = (uint32_t)(h - s->h);
	struct dhost *d = &dg->dh[hi];
	struct ag_planned *pl = (struct ag_planned *)dg->chunk; /* free while no list is sent */
	size_t n;
	bool last;

	if (f->h.type == AG_PLANNED && d->st == D_PLAN) {
		if (ag_planned_decode(f->payload, f->h.length, pl)) {
			coord_host_dead(s, h, "%s", "malformed PLANNED");
		} else if (pl->status) {
			coord_host_dead(s, h, "agent cannot run the agents' schedule: %s", pl->text);
		} else if (pl->n != n_listen(s, h)) {
			coord_host_dead(s, h, "%s", "agent listens for probes on the wrong number of NICs");
		} else {
			memcpy(d->probe_port, pl->probe_port, pl->n * sizeof(pl->probe_port[0]));
			set_st(s, d, D_PLANNED);
			coord_keep_start(h, pl->idle_ms);
		}
		return;
	}
	if (f->h.type == AG_TRES) {
		if (d->st != D_GOING)
			return; /* a batch after its pass ended (the late bound): given up */
		if (ag_tres_decode(f->payload, f->h.length, dg->batch, AG_TRES_PER_FRAME, &n, &last)) {
			coord_host_dead(s, h, "%s", "malformed task results");
			return;
		}
		d->heard = wire_now_ns();
		for (size_t i = 0; d->st == D_GOING && i < n; i++) {
			/* When it ended on our clock: the batch left @ago after. */
			dg->batch[i].end_ns = dg->batch[i].ago * 1e9 < (double)(d->heard - s->t0)
						      ? d->heard - (uint64_t)(dg->batch[i].ago * 1e9) : 0;
			dg->batch[i].start_ns = dg->batch[i].start_ago > 0 &&
							dg->batch[i].start_ago * 1e9 < (double)(d->heard - s->t0)
						? d->heard - (uint64_t)(dg->batch[i].start_ago * 1e9) : 0;
			one_report(s, hi, &dg->batch[i]);
		}
		if (last)
			set_st(s, d, D_LAST);
		return;
	}
	if (f->h.type == AG_ERROR && !ag_decode(f->h.type, f->payload, f->h.length, s->msg)) {
		coord_host_dead(s, h, "agent refused the agents' schedule: %s", s->msg->text);
		return;
	}
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
	p->lanes = s->dg->lanes;
	if (is_tcp(s))
		p->n_nics = 1;
	for (unsigned int i = 0; !is_tcp(s) && i < h->n_nics; i++) {
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

/* Every host's ends of the pass's ids, in order, and each end's place in
 * its NIC's queue (an incast group's serving ends share one). */
static int build_lists(struct sweep *s)
{
	struct delegate *dg = s->dg;
	struct pass *p = dg->p;
	uint32_t *at = calloc(s->plan->n_nics ? s->plan->n_nics : 1, sizeof(*at));

	if (!at)
		return -ENOMEM;
	for (int round = 0; round < 2; round++) {
		for (uint32_t id = 0; id < p->n_ids; id++) {
			const struct mesh_task *task = &s->plan->tasks[p->task[id]];
			uint32_t src = coord_host_of(s, task->src), dst = coord_host_of(s, task->dst);
			bool first = !p->group || p->group[id] == id;

			if (!round && (!alive(s, src) || !alive(s, dst))) {
				const char *why = rck_mesh_host_unreachable(s->m, alive(s, src) ? dst : src);

				finish(s, id, RCK_MESH_UNREACHABLE, why ? why : "host unreachable", NULL, 0, 0, 0);
			}
			if (dg->got[id] & 4)
				continue;
			if (round) {
				dg->dh[src].ids[dg->dh[src].n_ids++] = id * 2 + AG_ROLE_RUN;
				dg->dh[dst].ids[dg->dh[dst].n_ids++] = id * 2 + AG_ROLE_SERVE;
				p->pos[id * 2 + AG_ROLE_RUN] = at[task->src]++;
				p->pos[id * 2 + AG_ROLE_SERVE] = first ? at[task->dst]++ : at[task->dst] - 1;
			} else {
				dg->dh[src].n_ids++;
				dg->dh[dst].n_ids++;
			}
		}
		for (size_t h = 0; !round && h < s->n_h; h++) {
			if (dg->dh[h].n_ids > AG_MAX_TASKS) {
				rck_err(s->ctx, "mesh: %s has %zu tasks, above the agents' limit of %u", s->h[h].cfg->name,
					dg->dh[h].n_ids, AG_MAX_TASKS);
				free(at);
				return -E2BIG;
			}
			free(dg->dh[h].ids);
			dg->dh[h].ids = malloc((dg->dh[h].n_ids ? dg->dh[h].n_ids : 1) * sizeof(uint32_t));
			if (!dg->dh[h].ids) {
				free(at);
				return -ENOMEM;
			}
			dg->dh[h].n_ids = 0;
			dg->dh[h].sent = 0;
		}
	}
	free(at);
	return 0;
}

static void fill_task(struct sweep *s, uint32_t end, struct ag_task *t)
{
	struct pass *p = s->dg->p;
	uint32_t id = end / 2, role = end % 2, mine_pos = p->pos[end], peer_pos = p->pos[end ^ 1];
	const struct mesh_task *task = &s->plan->tasks[p->task[id]];
	uint32_t mine = role == AG_ROLE_RUN ? task->src : task->dst;
	uint32_t peer = role == AG_ROLE_RUN ? task->dst : task->src;
	struct host *ph = &s->h[coord_host_of(s, peer)];
	struct host *mh = &s->h[coord_host_of(s, mine)];
	uint32_t pn = peer - ph->first_nic;
	const char *addr = !is_tcp(s) && ph->nic_addr[pn][0] ? ph->nic_addr[pn] : ph->cfg->addr;
	struct rck_mesh_nic info = { .size = sizeof(info) };

	memset(t, 0, sizeof(*t));
	t->id = id;
	t->group = p->group ? p->group[id] : id;
	t->lane = p->lane ? p->lane[id] : 0;
	t->ahead = peer_pos > mine_pos ? peer_pos - mine_pos : 0;
	t->role = (uint8_t)role;
	t->test = s->tests[p->test[id]] == RCK_MESH_TEST_BW ? RCK_PROBE_TEST_BW : RCK_PROBE_TEST_LAT;
	t->nic = (uint8_t)(mine - mh->first_nic);
	snprintf(t->peer, sizeof(t->peer), "%s", addr);
	t->peer_port = s->dg->dh[ph - s->h].probe_port[pn * s->dg->lanes + t->lane];
	if (!is_tcp(s)) {
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
		set_st(s, d, D_GOING);
		d->heard = wire_now_ns();
	}
}

static size_t count(const struct sweep *s, enum dstate st)
{
	return s->dg->n_in[st];
}

/* Feed the hosts still being sent their lists; those done leave the list. */
static void feed_all(struct sweep *s)
{
	struct delegate *dg = s->dg;
	size_t k = 0;

	for (size_t i = 0; i < dg->n_sending; i++) {
		uint32_t hi = dg->sending[i];

		if (alive(s, hi))
			feed(s, &s->h[hi]);
		if (alive(s, hi) && dg->dh[hi].st == D_SENDING)
			dg->sending[k++] = hi;
	}
	dg->n_sending = k;
}

static void stop_all(struct sweep *s)
{
	s->dg->stopping = true;
	for (size_t i = 0; i < s->n_h; i++)
		if (alive(s, (uint32_t)i))
			coord_queue(s, &s->h[i], AG_STOP, NULL, 0);
}

/* An agent reports at least every second while it runs (an empty batch if
 * nothing finished); a task may keep its results back for its peer's wait
 * and its probe. Well past that it hangs. */
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

/* Every agent gets the probe key and its listeners start. */
static void plan_agents(struct sweep *s, uint64_t deadline)
{
	uint64_t until = wire_now_ns() + coord_answer_wait_ms(s) * 1000000ull;

	for (size_t i = 0; i < s->n_h; i++)
		if (alive(s, (uint32_t)i) && send_plan(s, &s->h[i]))
			coord_host_dead(s, &s->h[i], "%s", "out of memory");
	while (count(s, D_PLAN) && !coord_stopping(s, deadline) && wire_now_ns() < until)
		coord_poll_round(s, SLICE_MS);
	for (size_t i = 0; !coord_stopping(s, deadline) && i < s->n_h; i++)
		if (alive(s, (uint32_t)i) && s->dg->dh[i].st == D_PLAN)
			coord_host_dead(s, &s->h[i], "%s", "its agent did not answer the PLAN in time");
}

int sched_run_pass(struct sweep *s, struct pass *p, uint64_t deadline)
{
	struct delegate *dg = s->dg;
	uint64_t late = 0, next = 0;
	int rc;

	dg->got = calloc(p->n_ids ? p->n_ids : 1, 1);
	dg->half = calloc(p->n_ids ? p->n_ids : 1, sizeof(*dg->half));
	p->pos = malloc((p->n_ids ? p->n_ids : 1) * 2 * sizeof(*p->pos));
	if (!dg->got || !dg->half || !p->pos) {
		free(dg->got);
		free(dg->half);
		dg->got = NULL;
		dg->half = NULL;
		return -ENOMEM; /* p->pos: pass_free() */
	}
	dg->p = p;
	dg->recorded = 0;
	rc = build_lists(s);
	dg->n_sending = 0;
	for (size_t i = 0; !rc && i < s->n_h; i++)
		if (alive(s, (uint32_t)i)) {
			set_st(s, &dg->dh[i], D_SENDING);
			dg->sending[dg->n_sending++] = (uint32_t)i;
		}
	/* Until every agent sent its last batch, even with every cell recorded:
	 * the next pass's list must not reach an agent still in this one. */
	while (!rc) {
		if (!dg->stopping)
			feed_all(s);
		if (!dg->stopping && coord_stopping(s, deadline)) {
			stop_all(s);
			late = wire_now_ns() + LATE_NS;
		}
		/* Every agent sent its last batch: an end never reported stays failed. */
		if (!count(s, D_SENDING) && !count(s, D_GOING))
			break;
		if (late && wire_now_ns() >= late)
			break;
		coord_poll_round(s, SLICE_MS);
		check_silent(s, &next);
	}
	/* Ends never reported: skipped after a cancel or the deadline, failed otherwise. */
	if (dg->stopping)
		coord_skip_rest(s, atomic_load(&s->c->cancel) ? "cancelled" : "sweep deadline passed");
	for (uint32_t id = 0; !rc && !dg->stopping && id < p->n_ids; id++)
		if (!(dg->got[id] & 4))
			finish(s, id, RCK_MESH_FAILED, "no report from one end of the probe", NULL, 0, 0, 0);
	for (size_t i = 0; i < s->n_h; i++)
		if (alive(s, (uint32_t)i) && dg->dh[i].st == D_LAST)
			set_st(s, &dg->dh[i], D_PLANNED);
	for (uint32_t id = 0; id < p->n_ids; id++)
		free(dg->half[id]);
	free(dg->half);
	free(dg->got);
	dg->half = NULL;
	dg->got = NULL;
	dg->p = NULL;
	return rc;
}

/* The widest incast group: listeners each NIC needs. */
static int plan_lanes(struct sweep *s, uint32_t *lanes)
{
	*lanes = 1;
	for (size_t u = 0; u < s->plan->n_units; u++)
		if (s->plan->units[u].n_tasks > *lanes)
			*lanes = s->plan->units[u].n_tasks;
	if (*lanes > AG_MAX_LANES) {
		rck_err(s->ctx, "mesh: incast groups of %u senders to one NIC: at most %u", *lanes, AG_MAX_LANES);
		return -EINVAL;
	}
	return 0;
}


static const struct coord_ops ops = { .frame = frame, .host_dead = host_dead, .close_reason = close_reason };

int sched_begin(struct sweep *s, uint64_t deadline)
{
	struct delegate *dg = calloc(1, sizeof(*dg));
	int rc;

	if (!dg)
		return -ENOMEM;
	s->dg = dg;
	s->ops = &ops;
	rc = plan_lanes(s, &dg->lanes);
	dg->dh = calloc(s->n_h, sizeof(*dg->dh));
	dg->sending = calloc(s->n_h, sizeof(*dg->sending));
	for (size_t i = 0; i < s->n_h; i++)
		dg->n_in[D_PLAN] += alive(s, (uint32_t)i);
	dg->batch = malloc(AG_TRES_PER_FRAME * sizeof(*dg->batch));
	dg->chunk = malloc(AG_TASKS_PER_FRAME * sizeof(*dg->chunk) > sizeof(struct ag_planned)
			   ? AG_TASKS_PER_FRAME * sizeof(*dg->chunk) : sizeof(struct ag_planned));
	for (size_t i = 0; !rc && dg->dh && i < s->n_h; i++)
		if (!(dg->dh[i].probe_port = calloc(AG_MAX_NICS * dg->lanes, sizeof(uint32_t))))
			rc = -ENOMEM;
	if (!rc && (!dg->dh || !dg->batch || !dg->chunk || !dg->sending))
		rc = -ENOMEM;
	if (!rc && wire_random(dg->key, sizeof(dg->key)))
		rc = -EIO;
	if (rc)
		return rc;
	plan_agents(s, deadline);
	if (coord_stopping(s, deadline)) {
		dg->stopping = true;
		coord_skip_rest(s, atomic_load(&s->c->cancel) ? "cancelled" : "sweep deadline passed");
	}
	return 0;
}

bool sched_groups(const struct sweep *s)
{
	return s->dg->lanes > 1;
}

bool sched_stopped(const struct sweep *s)
{
	return s->dg->stopping;
}

void sched_end(struct sweep *s)
{
	struct delegate *dg = s->dg;

	for (size_t i = 0; dg && dg->dh && i < s->n_h; i++) {
		free(dg->dh[i].ids);
		free(dg->dh[i].probe_port);
	}
	if (dg) {
		memset(dg->key, 0, sizeof(dg->key));
		free(dg->dh);
		free(dg->batch);
		free(dg->chunk);
		free(dg->sending);
	}
	free(dg);
	s->dg = NULL;
	s->ops = NULL;
}
