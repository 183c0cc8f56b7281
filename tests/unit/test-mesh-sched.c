/* Sweep plans and the scheduler, run in the discrete-event simulation:
 * coverage of every ordered pair exactly once and no NIC booked twice for
 * n = 2..130 hosts and 1, 2, 8 rails under random durations; the optimum
 * makespan with equal durations; incast groups; retests alone; a host
 * dying mid-sweep; quick and pairs patterns; unequal rail counts. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../mesh/plan.h"
#include "../../mesh/retest.h"
#include "../../mesh/sched.h"
#include "../../mesh/sim.h"
#include "rocecheck/mesh.h"

/* n hosts "h0".., each with @rails NICs "mlx5_<i>" port 1 on rail i. */
static struct rck_mesh *make_mesh(unsigned int n, unsigned int rails)
{
	struct rck_mesh *m;

	assert_int_equal(rck_mesh_new(&m), 0);
	for (unsigned int h = 0; h < n; h++) {
		char name[32], dev[32];

		snprintf(name, sizeof(name), "h%u", h);
		assert_int_equal(rck_mesh_add_host(m, name, NULL), 0);
		for (unsigned int r = 0; r < rails; r++) {
			struct rck_mesh_nic nic = {.size = sizeof(nic), .device = dev, .port = 1, .rail = -1,
						   .gid_index = 3};

			snprintf(dev, sizeof(dev), "mlx5_%u", r);
			assert_int_equal(rck_mesh_add_nic(m, h, &nic, NULL), 0);
		}
	}
	return m;
}

static struct mesh_plan *make_plan(const struct rck_mesh *m, enum mesh_pattern pat, enum mesh_rails rails,
				   unsigned int k)
{
	struct mesh_plan_opts o = {.pattern = pat, .rails = rails, .incast_k = k, .device = "mlx5_0"};
	struct mesh_plan *p;
	char err[256];

	if (mesh_plan_build(m, &o, &p, err, sizeof(err)))
		fail_msg("plan: %s", err);
	return p;
}

/* What the simulation checks while it runs. */
struct watch {
	const struct mesh_plan *p;
	uint8_t *busy;        /* per NIC */
	uint32_t *seen;       /* per (src, dst) NIC pair: tasks started */
	uint64_t rng;
	bool equal;           /* all durations 1 */
	unsigned int running;
	int dead_host;
	double dead_at;
	uint32_t suspect_src_host, suspect_dst_host;
	bool use_suspect;
	unsigned int retests, unreachable;
	bool fail;
	unsigned int flags;   /* mesh_sched_new() */
};

static uint64_t next_rand(uint64_t *x)
{
	/* xorshift64*: seeded, so every run sees the same durations. */
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ULL;
}

static double duration(void *arg, uint32_t unit, bool retest)
{
	struct watch *w = arg;

	(void)unit;
	(void)retest;
	if (w->equal)
		return 1.0;
	return 0.5 + (double)(next_rand(&w->rng) >> 11) / 9007199254740992.0 * 2.0;
}

static bool touches(const struct mesh_plan *p, uint32_t unit, uint32_t host)
{
	const struct mesh_unit *u = &p->units[unit];

	for (uint32_t k = 0; k < u->n_nics; k++)
		if (p->nic_host[p->unit_nics[u->first_nic + k]] == host)
			return true;
	return false;
}

static void on_event(void *arg, const struct mesh_event *ev, double now)
{
	struct watch *w = arg;
	const struct mesh_unit *u = &w->p->units[ev->unit];

	if (ev->kind == MESH_EV_UNREACHABLE) {
		w->unreachable++;
		if (w->dead_host < 0 || !touches(w->p, ev->unit, (uint32_t)w->dead_host))
			w->fail = true;
		return;
	}
	if (ev->kind == MESH_EV_RETEST) {
		/* Alone: nothing else runs. */
		if (w->running)
			w->fail = true;
		w->retests++;
	}
	if (w->dead_host >= 0 && now > w->dead_at && touches(w->p, ev->unit, (uint32_t)w->dead_host))
		w->fail = true;
	for (uint32_t k = 0; k < u->n_nics; k++) {
		uint32_t nic = w->p->unit_nics[u->first_nic + k];

		if (w->busy[nic])
			w->fail = true; /* a NIC booked twice at once */
		w->busy[nic] = 1;
	}
	if (ev->kind == MESH_EV_START)
		for (uint32_t t = u->first_task; t < u->first_task + u->n_tasks; t++)
			w->seen[(size_t)w->p->tasks[t].src * w->p->n_nics + w->p->tasks[t].dst]++;
	w->running++;
}

static void on_done(void *arg, uint32_t unit, double now)
{
	struct watch *w = arg;
	const struct mesh_unit *u = &w->p->units[unit];

	(void)now;
	for (uint32_t k = 0; k < u->n_nics; k++)
		w->busy[w->p->unit_nics[u->first_nic + k]] = 0;
	w->running--;
}

static bool suspect(void *arg, uint32_t unit)
{
	struct watch *w = arg;
	const struct mesh_task *t = &w->p->tasks[w->p->units[unit].first_task];

	return w->use_suspect && w->p->nic_host[t->src] == w->suspect_src_host &&
	       w->p->nic_host[t->dst] == w->suspect_dst_host;
}

static void watch_init(struct watch *w, const struct mesh_plan *p, uint64_t seed)
{
	memset(w, 0, sizeof(*w));
	w->p = p;
	w->busy = calloc(p->n_nics, 1);
	w->seen = calloc((size_t)p->n_nics * p->n_nics, sizeof(*w->seen));
	assert_non_null(w->busy);
	assert_non_null(w->seen);
	w->rng = seed | 1;
	w->dead_host = -1;
}

static void watch_free(struct watch *w)
{
	free(w->busy);
	free(w->seen);
}

static int run(struct watch *w, struct mesh_sim_stats *st)
{
	struct mesh_sched *s;
	struct mesh_sim_opts o = {.arg = w, .duration = duration, .suspect = suspect, .on_event = on_event,
				  .on_done = on_done, .dead_host = w->dead_host, .dead_at = w->dead_at};
	int rc;

	assert_int_equal(mesh_sched_new(w->p, w->flags, &s), 0);
	rc = mesh_sim_run(s, &o, st);
	if (!rc && !mesh_sched_finished(s))
		rc = -EDEADLK;
	mesh_sched_free(s);
	return rc;
}

/* Full mesh, rails same: every ordered pair of NICs on one rail and on two
 * hosts exactly once, nothing else; never a NIC twice. */
static void check_full_with(unsigned int n, unsigned int rails, uint64_t seed, bool equal,
			    unsigned int flags)
{
	struct rck_mesh *m = make_mesh(n, rails);
	struct mesh_plan *p = make_plan(m, MESH_PATTERN_FULL, MESH_RAILS_SAME, 0);
	struct mesh_sim_stats st;
	struct watch w;

	watch_init(&w, p, seed);
	w.equal = equal;
	w.flags = flags;
	assert_int_equal(p->n_tasks, (size_t)n * (n - 1) * rails);
	assert_int_equal(run(&w, &st), 0);
	if (w.fail)
		fail_msg("n=%u rails=%u: a NIC booked twice", n, rails);
	for (unsigned int a = 0; a < p->n_nics; a++)
		for (unsigned int b = 0; b < p->n_nics; b++) {
			bool want = p->nic_host[a] != p->nic_host[b] && a % rails == b % rails;
			uint32_t got = w.seen[(size_t)a * p->n_nics + b];

			if (got != (want ? 1u : 0u))
				fail_msg("n=%u rails=%u: NIC %u -> %u probed %u times", n, rails, a, b, got);
		}
	assert_int_equal(st.started, (uint64_t)n * (n - 1) * rails);
	if (equal) {
		/* The optimum: every step keeps floor(n/2) disjoint pairs busy per
		 * rail, so n(n-1) probes take 2(n-1) steps for even n, 2n for odd. */
		double want = n % 2 ? 2.0 * n : 2.0 * (n - 1);

		if (st.makespan != want)
			fail_msg("n=%u rails=%u: makespan %.1f, want %.1f", n, rails, st.makespan, want);
	}
	watch_free(&w);
	mesh_plan_free(p);
	rck_mesh_free(m);
}

/* Under valgrind (ROCECHECK_WRAP names it) every 9th size is enough to find
 * memory errors; the plain and ASan runs cover every size. */
static unsigned int stride(void)
{
	const char *wrap = getenv("ROCECHECK_WRAP");

	return wrap && strstr(wrap, "valgrind") ? 9 : 1;
}

static void check_full(unsigned int n, unsigned int rails, uint64_t seed, bool equal)
{
	check_full_with(n, rails, seed, equal, 0);
}

static void test_circle(void **state)
{
	(void)state;
	for (unsigned int n = 2; n <= 130; n++) {
		unsigned int m = n + (n & 1);
		uint8_t *pair = calloc((size_t)m * m, 1);

		assert_non_null(pair);
		for (unsigned int r = 0; r + 1 < m; r++) {
			uint8_t *used = calloc(m, 1);

			assert_non_null(used);
			for (unsigned int i = 0; i < m / 2; i++) {
				unsigned int a, b;

				mesh_circle_pair(n, r, i, &a, &b);
				assert_true(a < m && b < m && a != b);
				assert_false(used[a] || used[b]); /* a round is a matching */
				used[a] = used[b] = 1;
				pair[a * m + b]++;
				pair[b * m + a]++;
			}
			free(used);
		}
		for (unsigned int a = 0; a < m; a++)
			for (unsigned int b = 0; b < m; b++)
				assert_int_equal(pair[a * m + b], a != b ? 1 : 0);
		free(pair);
	}
}

static void test_full_coverage(void **state)
{
	unsigned int st = stride();

	(void)state;
	for (unsigned int n = 2; n <= 130; n += st)
		check_full(n, 1, 1000 + n, false);
	/* More rails: every n up to 40, then a spread up to 130. */
	for (unsigned int n = 2; n <= 130; n = n < 40 ? n + st : n + 13 * st) {
		check_full(n, 2, 2000 + n, false);
		check_full(n, 8, 8000 + n, false);
	}
	check_full(130, 2, 2130, false);
	check_full(130, 8, 8130, false);
	/* The other two ways to find a NIC's next unit (pair hash, list scan). */
	for (unsigned int n = 2; n <= 70; n += 17)
		for (unsigned int r = 1; r <= 2; r++) {
			check_full_with(n, r, 3000 + n, false, MESH_SCHED_NO_DENSE);
			check_full_with(n, r, 3000 + n, true, MESH_SCHED_NO_DENSE);
			check_full_with(n, r, 4000 + n, false, MESH_SCHED_NO_PAIRIDX);
			check_full_with(n, r, 4000 + n, true, MESH_SCHED_NO_PAIRIDX);
		}
}

static void test_full_makespan(void **state)
{
	(void)state;
	for (unsigned int n = 2; n <= 130; n += stride())
		check_full(n, 1, 1, true);
	for (unsigned int n = 2; n <= 33; n += stride())
		check_full(n, 8, 1, true);
}

/* Rails all: every NIC with every NIC of the other host, R x R per ordered
 * host pair; ordered shift by shift, the steps stay perfect matchings. */
static void test_rails_all(void **state)
{
	(void)state;
	for (unsigned int n = 2; n <= 12; n++)
		for (unsigned int r = 1; r <= 4; r++) {
			struct rck_mesh *m = make_mesh(n, r);
			struct mesh_plan *p = make_plan(m, MESH_PATTERN_FULL, MESH_RAILS_ALL, 0);
			struct mesh_sim_stats st;
			struct watch w;
			double want = (n % 2 ? 2.0 * n : 2.0 * (n - 1)) * r;

			watch_init(&w, p, n * 10 + r);
			w.equal = true;
			assert_int_equal(run(&w, &st), 0);
			assert_false(w.fail);
			for (unsigned int a = 0; a < p->n_nics; a++)
				for (unsigned int b = 0; b < p->n_nics; b++)
					assert_int_equal(w.seen[(size_t)a * p->n_nics + b],
							 p->nic_host[a] != p->nic_host[b] ? 1 : 0);
			if (st.makespan != want)
				fail_msg("all n=%u R=%u: makespan %.1f want %.1f", n, r, st.makespan, want);
			watch_free(&w);
			mesh_plan_free(p);
			rck_mesh_free(m);
		}
}

static void test_incast(void **state)
{
	(void)state;
	for (unsigned int n = 2; n <= 9; n++)
		for (unsigned int k = 1; k < n; k++) {
			struct rck_mesh *m = make_mesh(n, 2);
			struct mesh_plan *p = make_plan(m, MESH_PATTERN_INCAST, MESH_RAILS_SAME, k);
			struct mesh_sim_stats st;
			struct watch w;
			unsigned int *recv = calloc(p->n_nics, sizeof(*recv));

			assert_non_null(recv);
			/* One group per receiving NIC: K senders of K other hosts, same rail. */
			assert_int_equal(p->n_units, (size_t)n * 2);
			for (size_t u = 0; u < p->n_units; u++) {
				const struct mesh_unit *g = &p->units[u];
				uint32_t rx = p->tasks[g->first_task].dst;

				assert_int_equal(g->n_tasks, k);
				assert_int_equal(g->n_nics, k + 1);
				recv[rx]++;
				for (uint32_t t = g->first_task; t < g->first_task + g->n_tasks; t++) {
					assert_int_equal(p->tasks[t].dst, rx);
					assert_int_equal(p->tasks[t].src % 2, rx % 2);
					assert_int_not_equal(p->nic_host[p->tasks[t].src], p->nic_host[rx]);
				}
			}
			for (unsigned int x = 0; x < p->n_nics; x++)
				assert_int_equal(recv[x], 1);
			watch_init(&w, p, n * 100 + k);
			assert_int_equal(run(&w, &st), 0);
			assert_false(w.fail);
			assert_int_equal(st.started, p->n_units);
			free(recv);
			watch_free(&w);
			mesh_plan_free(p);
			rck_mesh_free(m);
		}
	{
		struct rck_mesh *m = make_mesh(4, 1);
		struct mesh_plan_opts o = {.pattern = MESH_PATTERN_INCAST, .incast_k = 4};
		struct mesh_plan *p;
		char err[128];

		assert_int_equal(mesh_plan_build(m, &o, &p, err, sizeof(err)), -EINVAL);
		assert_string_equal(err, "incast:4 needs 1 <= K <= hosts - 1 (3)");
		rck_mesh_free(m);
	}
}

/* Suspects run again after the sweep, one at a time with nothing else, and
 * the result keeps both outcomes. */
static void test_retest_alone(void **state)
{
	struct rck_mesh *m = make_mesh(8, 2);
	struct mesh_plan *p = make_plan(m, MESH_PATTERN_FULL, MESH_RAILS_SAME, 0);
	struct mesh_sim_stats st;
	struct watch w;

	(void)state;
	watch_init(&w, p, 77);
	w.use_suspect = true;
	w.suspect_src_host = 3;
	w.suspect_dst_host = 5;
	assert_int_equal(run(&w, &st), 0);
	assert_false(w.fail);
	assert_int_equal(w.retests, 2); /* h3 -> h5 on both rails */
	assert_int_equal(st.retested, 2);
	assert_int_equal(st.started, 8 * 7 * 2);
	watch_free(&w);

	/* Through the scheduler by hand: the retest waits for the sweep. */
	{
		struct rck_mesh *m2 = make_mesh(3, 1);
		struct mesh_plan *p2 = make_plan(m2, MESH_PATTERN_FULL, MESH_RAILS_SAME, 0);
		struct mesh_sched *s;
		struct mesh_event ev[16];
		size_t n;
		uint32_t first;

		assert_int_equal(mesh_sched_new(p2, 0, &s), 0);
		/* 3 hosts: one pair per step, the third idle. */
		n = mesh_sched_next(s, ev, 16);
		assert_int_equal(n, 1);
		first = ev[0].unit;
		assert_int_equal(mesh_sched_done(s, first, true), 0);
		assert_int_equal(mesh_sched_state(s, first), MESH_U_RETEST_QUEUED);
		assert_int_equal(mesh_sched_done(s, first, false), -EINVAL);
		for (int guard = 0; guard < 16 && !mesh_sched_finished(s); guard++) {
			n = mesh_sched_next(s, ev, 16);
			for (size_t i = 0; i < n; i++) {
				if (ev[i].kind == MESH_EV_RETEST) {
					assert_int_equal(ev[i].unit, first);
					assert_int_equal(mesh_sched_running(s), 1);
					for (size_t u = 0; u < p2->n_units; u++)
						if (u != first)
							assert_int_equal(mesh_sched_state(s, (uint32_t)u), MESH_U_DONE);
				}
				assert_int_equal(mesh_sched_done(s, ev[i].unit, false), 0);
			}
		}
		assert_true(mesh_sched_finished(s));
		assert_int_equal(mesh_sched_state(s, first), MESH_U_RETESTED);
		mesh_sched_free(s);
		mesh_plan_free(p2);
		rck_mesh_free(m2);
	}

	/* The result keeps both attempts of a retested cell. */
	{
		struct rck_mesh_meas a = {.size = sizeof(a), .status = RCK_MESH_OK, .gbps = 41,
					  .lat_p50_us = NAN, .lat_p99_us = NAN, .seconds = 1};
		struct rck_mesh_meas b = a, got = {.size = sizeof(got)};
		unsigned int cell;

		b.gbps = 96;
		assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 6, 10, 1, &b, &cell), -ENOENT);
		assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 6, 10, 0, &a, &cell), 0);
		assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 6, 10, 1, &b, NULL), 0);
		assert_int_equal(rck_mesh_cell_attempts(m, cell), 2);
		assert_int_equal(rck_mesh_cell_meas(m, cell, 0, &got), 0);
		assert_true(got.gbps == 41);
		assert_int_equal(rck_mesh_cell_meas(m, cell, 1, &got), 0);
		assert_true(got.gbps == 96);
	}
	mesh_plan_free(p);
	rck_mesh_free(m);
}

/* Host 4 of 10 dies at t = 3.5: its pending units are reported
 * unreachable, nothing of it starts later, everything else still runs. */
/* Retest rounds: cells as plan tasks (one per NIC pair, full cells left
 * out), packed into rounds where no NIC is twice, as few as a NIC's load
 * needs on the circle's own order; a NIC in more than 64 tasks overflows. */
static void test_retest_rounds(void **state)
{
	for (unsigned int n = 2; n <= 90; n += 11) {
		struct rck_mesh *m = make_mesh(n, 1);
		struct mesh_plan *p = make_plan(m, MESH_PATTERN_FULL, MESH_RAILS_SAME, 0);
		unsigned int *cells = calloc(p->n_tasks + 1, sizeof(*cells)), nc = 0;
		uint32_t *tasks = calloc(p->n_tasks + 1, sizeof(*tasks));
		uint32_t *round = calloc(p->n_tasks + 1, sizeof(*round));
		uint8_t *seen;
		long nt, nr;

		for (size_t t = 0; t < p->n_tasks; t++) {
			struct rck_mesh_meas x = {.size = sizeof(x), .status = RCK_MESH_OK, .gbps = 1};

			for (unsigned int test = 0; test < 2; test++)
				assert_int_equal(rck_mesh_set_result(m, test, p->tasks[t].src, p->tasks[t].dst, 0,
								     &x, &cells[nc]), 0);
			nc++; /* every task's lat cell, and its bw cell below */
			if (t == 0)
				for (unsigned int k = 1; k <= RCK_MESH_RETEST_MAX; k++)
					assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, p->tasks[t].src,
									     p->tasks[t].dst, k, &x, NULL), 0);
		}
		nt = mesh_retest_tasks(p, m, cells, nc, tasks);
		assert_int_equal(nt, p->n_tasks - 1); /* task 0's bw cell is full */
		nr = mesh_retest_rounds(p, tasks, (size_t)nt, round);
		assert_true(nr >= 2 * (long)(n - 1) - 1);
		seen = calloc((size_t)nr * n + 1, 1);
		for (long i = 0; i < nt; i++) {
			const struct mesh_task *t = &p->tasks[tasks[i]];

			assert_true(round[i] < (uint32_t)nr);
			assert_false(seen[round[i] * n + t->src]);
			assert_false(seen[round[i] * n + t->dst]);
			seen[round[i] * n + t->src] = seen[round[i] * n + t->dst] = 1;
		}
		free(seen);
		free(cells);
		free(tasks);
		free(round);
		mesh_plan_free(p);
		rck_mesh_free(m);
	}
	(void)state;
}

static void test_dead_host(void **state)
{
	(void)state;
	for (unsigned int rails = 1; rails <= 2; rails++) {
		struct rck_mesh *m = make_mesh(10, rails);
		struct mesh_plan *p = make_plan(m, MESH_PATTERN_FULL, MESH_RAILS_SAME, 0);
		struct mesh_sim_stats st;
		struct watch w;
		unsigned int with_dead = 0;

		watch_init(&w, p, 5);
		w.equal = true;
		w.dead_host = 4;
		w.dead_at = 3.5;
		/* A suspect of the dead host is not retested. */
		w.use_suspect = true;
		w.suspect_src_host = 4;
		w.suspect_dst_host = 0;
		assert_int_equal(run(&w, &st), 0);
		assert_false(w.fail);
		for (size_t u = 0; u < p->n_units; u++)
			with_dead += touches(p, (uint32_t)u, 4);
		assert_int_equal(with_dead, 2 * 9 * rails);
		/* Steps 0..3 ran before the death: h4 was in one probe a step. */
		assert_int_equal(w.unreachable, with_dead - 4 * rails);
		assert_int_equal(st.started + st.unreachable, p->n_units);
		for (unsigned int a = 0; a < p->n_nics; a++)
			for (unsigned int b = 0; b < p->n_nics; b++)
				if (p->nic_host[a] != 4 && p->nic_host[b] != 4 && p->nic_host[a] != p->nic_host[b] &&
				    a % rails == b % rails)
					assert_int_equal(w.seen[(size_t)a * p->n_nics + b], 1);
		assert_int_equal(w.retests, 0);
		watch_free(&w);
		mesh_plan_free(p);
		rck_mesh_free(m);
	}
}

static void test_quick(void **state)
{
	(void)state;
	for (unsigned int n = 2; n <= 9; n++) {
		struct rck_mesh *m = make_mesh(n, 1);
		struct mesh_plan *p = make_plan(m, MESH_PATTERN_QUICK, MESH_RAILS_SAME, 0);
		struct mesh_sim_stats st;
		struct watch w;
		unsigned int pairs = n / 2 + (n & 1);

		assert_int_equal(p->n_tasks, 2 * pairs);
		watch_init(&w, p, n);
		w.equal = true;
		assert_int_equal(run(&w, &st), 0);
		assert_false(w.fail);
		/* Every host in a probe; two steps, three when odd n reuses host 0. */
		for (unsigned int h = 0; h < n; h++) {
			unsigned int in = 0;

			for (size_t t = 0; t < p->n_tasks; t++)
				in += p->tasks[t].src == h || p->tasks[t].dst == h;
			assert_true(in >= 2);
		}
		assert_true(st.makespan == (n & 1 ? 4.0 : 2.0) || (n == 3 && st.makespan == 4.0));
		watch_free(&w);
		mesh_plan_free(p);
		rck_mesh_free(m);
	}
}

static void test_pairs(void **state)
{
	static const char good[] = "# explicit pairs\n"
				   "h0 h1\n"
				   "\n"
				   "h2/mlx5_1   h0/mlx5_0  # cross rail\n"
				   "h1 h2";
	static const struct {
		const char *text, *err;
	} bad[] = {
		{"h0 h1\nh0\n", "pf:2: expected two words, SRC DST"},
		{"h0 h1 h2\n", "pf:1: expected two words, SRC DST"},
		{"h0 h9\n", "pf:1: unknown host 'h9'"},
		{"h0/mlx5_7 h1/mlx5_0\n", "pf:1: host h0 has no device 'mlx5_7'"},
		{"h0 h0\n", "pf:1: a host cannot probe itself"},
		{"h0/mlx5_0 h1\n", "pf:1: name a device on both ends or on neither"},
		{"# nothing\n", "pf: no pairs"},
		{"/x h1\n", "pf:1: bad host '/x'"},
	};
	struct rck_mesh *m = make_mesh(3, 2);
	struct mesh_plan_opts o = {.pattern = MESH_PATTERN_PAIRS, .rails = MESH_RAILS_SAME,
				   .pairs = good, .pairs_len = strlen(good), .pairs_name = "pf"};
	struct mesh_plan *p;
	char err[256];

	(void)state;
	assert_int_equal(mesh_plan_build(m, &o, &p, err, sizeof(err)), 0);
	/* h0 -> h1 on both rails, h2/mlx5_1 (NIC 5) -> h0/mlx5_0 (NIC 0), h1 -> h2 on both. */
	assert_int_equal(p->n_tasks, 5);
	assert_int_equal(p->tasks[0].src, 0);
	assert_int_equal(p->tasks[0].dst, 2);
	assert_int_equal(p->tasks[2].src, 5);
	assert_int_equal(p->tasks[2].dst, 0);
	mesh_plan_free(p);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o.pairs = bad[i].text;
		o.pairs_len = strlen(bad[i].text);
		assert_int_equal(mesh_plan_build(m, &o, &p, err, sizeof(err)), -EINVAL);
		if (strcmp(err, bad[i].err))
			fail_msg("case %zu: '%s', want '%s'", i, err, bad[i].err);
	}
	rck_mesh_free(m);
}

/* Host a has rails 0, 1, 2; b has 0 and 2; c has only 1 (set explicitly). */
static double unit_one(void *arg, uint32_t unit, bool retest)
{
	(void)arg;
	(void)unit;
	(void)retest;
	return 1.0;
}

/* Bidirectional full mesh: each unit a NIC pair and its reverse, every
 * ordered pair once, and n-1 steps (n for odd n) instead of 2(n-1). */
/* --bidir retest steps: every direction of a full bidir plan asked for, a
 * pair's two in one step (mates each other's, one round), so the pass
 * takes the bidir sweep's steps, about half the rounds of one direction
 * at a time; without bidir, or a direction asked for alone, no mate. */
static void test_retest_steps_bidir(void **state)
{
	(void)state;
	for (unsigned int n = 2; n <= 41; n += 13) {
		struct rck_mesh *m = make_mesh(n, 1);
		struct mesh_plan_opts o = {.pattern = MESH_PATTERN_FULL, .rails = MESH_RAILS_SAME, .bidir = true};
		struct mesh_plan *p;
		char err[256];
		uint32_t *tasks, *round;
		long *mate, nr, nr1;
		uint8_t *seen;

		assert_int_equal(mesh_plan_build(m, &o, &p, err, sizeof(err)), 0);
		tasks = calloc(p->n_tasks + 1, sizeof(*tasks));
		round = calloc(p->n_tasks + 1, sizeof(*round));
		mate = calloc(p->n_tasks + 1, sizeof(*mate));
		seen = calloc((size_t)p->n_tasks * n + 1, 1);
		/* The plan's order reversed: a pair's members far apart. */
		for (size_t t = 0; t < p->n_tasks; t++)
			tasks[t] = (uint32_t)(p->n_tasks - 1 - t);
		nr1 = mesh_retest_steps(p, tasks, p->n_tasks, false, mate, round);
		for (size_t i = 0; i < p->n_tasks; i++)
			assert_int_equal(mate[i], -1);
		nr = mesh_retest_steps(p, tasks, p->n_tasks, true, mate, round);
		assert_true(nr >= (long)(n - 1 + n % 2) && nr <= nr1 / 2 + 1);
		for (size_t i = 0; i < p->n_tasks; i++) {
			const struct mesh_task *t = &p->tasks[tasks[i]], *r;

			assert_true(mate[i] >= 0 && mate[mate[i]] == (long)i);
			r = &p->tasks[tasks[mate[i]]];
			assert_int_equal(t->src, r->dst);
			assert_int_equal(t->dst, r->src);
			assert_int_equal(round[i], round[mate[i]]);
			/* Each NIC sends once and receives once per step. */
			assert_false(seen[round[i] * n + t->src]++);
		}
		/* The last direction alone: no mate, its pair's other one has none. */
		nr = mesh_retest_steps(p, tasks, p->n_tasks - 1, true, mate, round);
		assert_true(nr > 0);
		for (size_t i = 0; i + 1 < p->n_tasks; i++)
			assert_true(mate[i] >= 0 || p->tasks[tasks[i]].dst == p->tasks[tasks[p->n_tasks - 1]].src);
		free(tasks);
		free(round);
		free(mate);
		free(seen);
		mesh_plan_free(p);
		rck_mesh_free(m);
	}
}

static void test_full_bidir(void **state)
{
	(void)state;
	for (unsigned int n = 2; n <= 40; n += stride())
		for (unsigned int rails = 1; rails <= 2; rails++) {
			struct rck_mesh *m = make_mesh(n, rails);
			struct mesh_plan_opts o = {.pattern = MESH_PATTERN_FULL, .rails = MESH_RAILS_SAME, .bidir = true};
			struct mesh_sim_opts so = {.duration = unit_one, .dead_host = -1};
			struct mesh_sim_stats st;
			struct mesh_sched *sc;
			struct mesh_plan *p;
			uint8_t *seen = calloc((size_t)n * rails * n * rails, 1);
			char err[256];

			assert_int_equal(mesh_plan_build(m, &o, &p, err, sizeof(err)), 0);
			assert_int_equal(p->n_tasks, (size_t)n * (n - 1) * rails);
			assert_int_equal(p->n_units, p->n_tasks / 2);
			for (size_t u = 0; u < p->n_units; u++) {
				const struct mesh_task *t = &p->tasks[p->units[u].first_task];

				assert_int_equal(p->units[u].n_tasks, 2);
				assert_int_equal(t[0].src, t[1].dst);
				assert_int_equal(t[0].dst, t[1].src);
				for (int k = 0; k < 2; k++)
					assert_int_equal(seen[(size_t)t[k].src * n * rails + t[k].dst]++, 0);
			}
			assert_int_equal(mesh_sched_new(p, 0, &sc), 0);
			assert_int_equal(mesh_sim_run(sc, &so, &st), 0);
			if (st.makespan != (n % 2 ? (double)n : (double)(n - 1)))
				fail_msg("n=%u rails=%u: bidir makespan %.1f", n, rails, st.makespan);
			mesh_sched_free(sc);
			mesh_plan_free(p);
			rck_mesh_free(m);
			free(seen);
		}
}

static void test_unequal_rails(void **state)
{
	static const int rails[3][3] = {{0, 1, 2}, {0, 2, -1}, {1, -1, -1}};
	struct rck_mesh *m;
	struct mesh_plan *p;

	(void)state;
	assert_int_equal(rck_mesh_new(&m), 0);
	for (unsigned int h = 0; h < 3; h++) {
		char name[8] = {(char)('a' + h), 0};

		assert_int_equal(rck_mesh_add_host(m, name, NULL), 0);
		for (unsigned int i = 0; i < 3 && rails[h][i] >= 0; i++) {
			char dev[16];
			struct rck_mesh_nic nic = {.size = sizeof(nic), .device = dev, .port = 1,
						   .rail = rails[h][i], .gid_index = -1};

			snprintf(dev, sizeof(dev), "mlx5_%d", rails[h][i]);
			assert_int_equal(rck_mesh_add_nic(m, h, &nic, NULL), 0);
		}
	}
	/* same: a<->b on rails 0 and 2, a<->c on rail 1, b and c share none. */
	p = make_plan(m, MESH_PATTERN_FULL, MESH_RAILS_SAME, 0);
	assert_int_equal(p->n_tasks, 2 * 2 + 2 * 1);
	assert_int_equal(p->n_missing, 3); /* b lacks 1, c lacks 0 and 2 */
	assert_int_equal(p->missing[0].host, 1);
	assert_int_equal(p->missing[0].rail, 1);
	assert_int_equal(p->missing[1].host, 2);
	assert_int_equal(p->missing[1].rail, 0);
	assert_int_equal(p->missing[2].rail, 2);
	mesh_plan_free(p);
	/* all: 3x2 + 3x1 + 2x1 NIC pairs, both directions. */
	p = make_plan(m, MESH_PATTERN_FULL, MESH_RAILS_ALL, 0);
	assert_int_equal(p->n_tasks, 2 * (6 + 3 + 2));
	assert_int_equal(p->n_missing, 0);
	mesh_plan_free(p);
	/* device mlx5_0: only a and b have it; c is missing it. */
	p = make_plan(m, MESH_PATTERN_FULL, MESH_RAILS_DEVICE, 0);
	assert_int_equal(p->n_tasks, 2);
	assert_int_equal(p->n_missing, 1);
	assert_int_equal(p->missing[0].host, 2);
	assert_int_equal(p->missing[0].rail, -1);
	mesh_plan_free(p);
	rck_mesh_free(m);

	/* Fewer than 2 hosts is no sweep. */
	{
		struct mesh_plan_opts o = {.pattern = MESH_PATTERN_FULL};
		char err[128];

		m = make_mesh(1, 1);
		assert_int_equal(mesh_plan_build(m, &o, &p, err, sizeof(err)), -EINVAL);
		assert_string_equal(err, "a sweep needs at least 2 hosts, got 1");
		rck_mesh_free(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_circle),
		cmocka_unit_test(test_full_coverage),
		cmocka_unit_test(test_full_makespan),
		cmocka_unit_test(test_rails_all),
		cmocka_unit_test(test_incast),
		cmocka_unit_test(test_retest_alone),
		cmocka_unit_test(test_retest_rounds),
		cmocka_unit_test(test_dead_host),
		cmocka_unit_test(test_quick),
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_unequal_rails),
		cmocka_unit_test(test_full_bidir),
		cmocka_unit_test(test_retest_steps_bidir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
