/* Benchmark of the sweep coordinator on loopback: its overhead per round
 * with 256, 1024 and 10,000 simulated agents (a few processes answering
 * task lists with no-op results), the modelled time to a verdict, and
 * real agents (mesh-bench-real.c); the same sweeps with a key (sealed
 * frames) against those without. Prints ratios. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rocecheck/rocecheck.h>

#include "../mesh/agent_proto.h"
#include "../probes/sock.h"
#include "../mesh/plan.h"
#include "../mesh/retest.h"
#include "mesh-bench.h"
#include "mesh-sim-tasks.h"

#define PROCS 4
#define ROUND_TARGET_MS 2.0

/* The agents' schedule: each simulated agent reports one probe end per
 * this long after GO (no peers: its ends are no-ops). */
#define TASK_NS 1000000ull

struct conn {
	int fd;
	struct wire_frame f;
	struct sim_tasks st;
	bool authed;
	uint8_t nonce[WIRE_NONCE_LEN];
};

static int reply(int fd, struct ag_msg *m, uint8_t *buf)
{
	size_t len;

	if (ag_encode(m, buf, AG_MAX_PAYLOAD, &len))
		return -1;
	return wire_send_sec(fd, &ag_proto, sim_sec, m->type, buf, len, wire_now_ns() + 5000000000ull);
}

/* The simulated agents' key (NULL: none, nothing sealed). */
static const char *sim_key;
#define SIM_KEY "mesh-bench-simulated-agents-key"

/* With a key, a connection's first frame answers the challenge sent on
 * accept: check it, seal the rest of the session. 0 or -1. */
static int sim_auth(struct conn *c)
{
	uint8_t out[64];
	size_t len;

	if (c->f.h.type != WIRE_T_AUTH ||
	    wire_auth_check(&ag_proto, (const uint8_t *)sim_key, strlen(sim_key), c->nonce, c->f.payload,
			    c->f.h.length, out, sizeof(out), &len) ||
	    wire_frame_secure_server(&c->f, &ag_proto, (const uint8_t *)sim_key, strlen(sim_key), c->nonce,
				     c->f.payload, c->f.h.length) ||
	    wire_send(c->fd, &ag_proto, WIRE_T_AUTH_OK, out, len, wire_now_ns() + 5000000000ull))
		return -1;
	c->authed = true;
	return 0;
}

/* Accept agent @c's coordinator on @lfd; with a key, send the challenge. */
static void sim_accept(struct conn *c, int lfd, int ep, unsigned int i)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };
	uint8_t out[64];
	size_t len;

	if (c->fd >= 0 || (c->fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) < 0)
		return;
	epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
	c->authed = !sim_key;
	if (sim_key && (wire_auth_challenge(c->nonce, out, sizeof(out), &len) ||
			wire_send(c->fd, &ag_proto, WIRE_T_CHALLENGE, out, len, wire_now_ns() + 5000000000ull))) {
		close(c->fd);
		c->fd = -1;
	}
}

/* Close agent @c's session (its keys and task list go with it). */
static void sim_close(struct conn *c)
{
	close(c->fd);
	c->fd = -1;
	wire_frame_free(&c->f);
	sim_tasks_reset(&c->st);
}

/* Answer one request as an agent whose probes take no time. */
static int answer(int fd, const struct wire_frame *f, struct ag_msg *m, uint8_t *buf)
{
	uint32_t id;

	if (ag_decode(f->h.type, f->payload, f->h.length, m))
		return -1;
	id = m->id;
	memset(m, 0, sizeof(*m));
	m->id = id;
	switch (f->h.type) {
	case AG_DESCRIBE:
		m->type = AG_HOST;
		snprintf(m->text, sizeof(m->text), "sim");
		return reply(fd, m, buf);
	case AG_SERVE:
		m->type = AG_SERVING;
		m->probe_port = 1;
		if (reply(fd, m, buf))
			return -1;
		m->type = AG_SERVED;
		m->probe_port = 0;
		return reply(fd, m, buf);
	case AG_RUN:
		m->type = AG_RESULT;
		m->gbps = 1.0;
		m->lat_p50_us = m->lat_p99_us = NAN;
		return reply(fd, m, buf);
	default:
		return -1; /* CLOSE and anything else: drop the connection */
	}
}

/* A process simulating @n agents on the listeners @lfd: epoll, data.u32
 * is the agent index, with bit 31 set for its listener. */
static void sim_agents(const int *lfd, unsigned int n)
{
	struct conn *c = calloc(n, sizeof(*c));
	struct ag_msg *m = malloc(sizeof(*m));
	uint8_t *buf = malloc(AG_MAX_PAYLOAD);
	static uint8_t in[65536];
	int ep = epoll_create1(0);

	for (unsigned int i = 0; i < n; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i | 0x80000000u };

		c[i].fd = -1;
		wire_frame_init(&c[i].f, &ag_proto);
		epoll_ctl(ep, EPOLL_CTL_ADD, lfd[i], &ev);
	}
	for (;;) {
		struct epoll_event evs[256];
		bool going = false;
		uint64_t now = wire_now_ns();
		int k;

		for (unsigned int i = 0; i < n; i++)
			if (c[i].fd >= 0) {
				sim_sec = c[i].f.sec;
				going |= sim_tasks_tick(&c[i].st, c[i].fd, buf, now, TASK_NS);
			}
		k = epoll_wait(ep, evs, 256, going ? 1 : -1);

		for (int e = 0; e < k; e++) {
			unsigned int i = evs[e].data.u32 & 0x7fffffffu;

			if (evs[e].data.u32 & 0x80000000u) {
				sim_accept(&c[i], lfd[i], ep, i);
				continue;
			}
			for (;;) {
				ssize_t got = recv(c[i].fd, in, sizeof(in), MSG_DONTWAIT);
				size_t off = 0, used;
				int rc = 0;

				if (got <= 0) {
					if (got == 0 || (errno != EAGAIN && errno != EINTR))
						sim_close(&c[i]);
					break;
				}
				while (off < (size_t)got && rc >= 0) {
					rc = wire_frame_put(&c[i].f, in + off, (size_t)got - off, &used);
					off += used;
					if (rc == 1 && !c[i].authed) {
						rc = sim_auth(&c[i]);
						wire_frame_next(&c[i].f);
					} else if (rc == 1) {
						sim_sec = c[i].f.sec;
						rc = sim_tasks_frame(&c[i].st, c[i].fd, &c[i].f, buf);
						if (rc == 0)
							rc = answer(c[i].fd, &c[i].f, m, buf);
						wire_frame_next(&c[i].f);
					} else if (rc == 0) {
						break;
					}
				}
				if (rc < 0) {
					sim_close(&c[i]);
					break;
				}
			}
		}
	}
}

/* Samples taken from the progress callback every round of probes, from the
 * second round on (connecting and planning excluded) until the deadline
 * (then the rest is recorded skipped at once, which is no round). */
struct sample {
	unsigned int done;
	double wall, user, sys;
};

struct prog {
	unsigned int per_round;
	double deadline_s;
	bool have_first;
	struct sample first, last;
	const pid_t *pid;       /* the simulated agents' processes */
	double agents_first;    /* their CPU seconds at the first sample */
};

static double tv(const struct timeval *t)
{
	return t->tv_sec + t->tv_usec / 1e6;
}

/* CPU seconds (user + system) of process @pid so far. */
static double proc_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return NAN;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	/* After the command: state, then fields 4..13, then utime stime. */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return NAN;
	return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}

static double agents_cpu(const pid_t *pid)
{
	double sum = 0;

	for (int k = 0; k < PROCS; k++)
		sum += proc_cpu(pid[k]);
	return sum;
}

static void on_progress(void *data, const struct rck_mesh_progress *p)
{
	struct prog *pr = data;
	struct sample smp;
	struct rusage ru;

	if (p->done % pr->per_round || p->done < 2 * pr->per_round || p->elapsed_s >= pr->deadline_s)
		return;
	getrusage(RUSAGE_SELF, &ru);
	smp.done = p->done;
	smp.wall = p->elapsed_s;
	smp.user = tv(&ru.ru_utime);
	smp.sys = tv(&ru.ru_stime);
	if (!pr->have_first) {
		pr->first = smp;
		pr->have_first = true;
		pr->agents_first = agents_cpu(pr->pid);
	}
	pr->last = smp;
}

struct per_round {
	double wall, user, sys, agents;
};

/* The first @rounds circle-method rounds of @n hosts "simNNNNN" as a pairs
 * file, one direction: rounds of n/2 probes without the full plan's n^2. */
static char *circle_pairs(unsigned int n, unsigned int rounds, size_t *len)
{
	size_t cap = (size_t)rounds * (n / 2) * 24 + 1, off = 0;
	char *t = malloc(cap);

	for (unsigned int r = 0; t && r < rounds; r++)
		for (unsigned int i = 0; i < n / 2; i++) {
			unsigned int a, b;

			mesh_circle_pair(n, r, i, &a, &b);
			off += (size_t)snprintf(t + off, cap - off, "sim%05u sim%05u\n", a, b);
		}
	*len = off;
	return t;
}

static long peak_rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* Sweep @n simulated agents for @secs at most (@rounds > 0: only that many
 * circle rounds, as pairs; @keyed: the agents authenticate with a key and
 * every later frame is sealed): per round of n/2 probes, the wall time, the
 * coordinator's CPU (user, system) and the agents' CPU. 0, or -1 (said on
 * stderr) when probes measured did not all end ok. */
static int sweep_bench(struct rck_ctx *ctx, unsigned int n, double secs, unsigned int rounds_only,
			bool keyed, struct per_round *out)
{
	unsigned int *port = calloc(n, sizeof(*port));
	int *lfd = calloc(n, sizeof(*lfd));
	pid_t pid[PROCS];
	struct rck_mesh_config *c;
	struct rck_mesh *m;
	struct prog pr = { .per_round = n / 2, .deadline_s = secs, .pid = pid };
	double rounds, agents_end;
	unsigned int ok = 0;
	int rc = 0;
	char why[256] = "";

	for (unsigned int i = 0; i < n; i++)
		if (psock_listen("127.0.0.1", 0, &lfd[i], &port[i])) {
			fprintf(stderr, "mesh-bench: cannot listen (%u agents)\n", n);
			exit(1);
		}
	sim_key = keyed ? SIM_KEY : NULL;
	for (int k = 0; k < PROCS; k++) {
		pid[k] = fork();
		if (pid[k] < 0) {
			perror("mesh-bench: fork");
			exit(1);
		}
		if (pid[k] == 0)
			sim_agents(lfd + k * (n / PROCS), n / PROCS);
	}
	for (unsigned int i = 0; i < n; i++)
		close(lfd[i]);
	rck_mesh_config_new(&c);
	for (unsigned int i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "sim%05u", i);
		rck_mesh_config_add_host(c, name, "127.0.0.1", port[i], NULL, 0);
	}
	rck_mesh_config_set_probe(c, RCK_PROBE_TRANSPORT_TCP, 0, 1, 0);
	if (keyed && rck_mesh_config_set_key(c, (const uint8_t *)SIM_KEY, strlen(SIM_KEY))) {
		fprintf(stderr, "mesh-bench: cannot set the simulated agents' key\n");
		exit(1);
	}
	rck_mesh_config_set_deadline(c, secs);
	if (rounds_only) {
		size_t len;
		char *text = circle_pairs(n, rounds_only, &len);

		if (!text || rck_mesh_config_set_pattern(c, "pairs", text, len, "circle rounds")) {
			fprintf(stderr, "mesh-bench: cannot plan %u rounds of %u agents\n", rounds_only, n);
			exit(1);
		}
		free(text);
	}
	rck_mesh_config_set_progress(c, on_progress, &pr);
	if (rck_mesh_run(ctx, c, &m)) {
		fprintf(stderr, "mesh-bench: sweep of %u failed\n", n);
		exit(1);
	}
	/* The agents wait idle once the probes end: their CPU now is theirs
	 * up to the last sample. */
	agents_end = agents_cpu(pid);
	for (unsigned int i = 0; i < rck_mesh_cell_count(m); i++) {
		struct rck_mesh_meas me = { .size = sizeof(me) };

		if (!rck_mesh_cell_meas(m, i, 0, &me) && me.status == RCK_MESH_OK)
			ok++;
		else if (!why[0])
			snprintf(why, sizeof(why), "%s", me.reason ? me.reason : "?");
	}
	/* A sweep whose probes fail (a refused handshake) runs fast and would
	 * read as a cheap one. */
	if (!pr.have_first || ok < pr.last.done) {
		fprintf(stderr, "mesh-bench: FAILED: %u agents%s: %u probes ok of %u measured (first failure: %s)\n",
			n, keyed ? " with a key" : "", ok, pr.have_first ? pr.last.done : 0, why);
		printf("agents %u%s: not measured, its probes failed (%s)\n", n, keyed ? " (key, sealed frames)" : "",
		       why);
		rc = -1;
		goto out;
	}
	rounds = pr.have_first ? (double)(pr.last.done - pr.first.done) / pr.per_round : 0;
	if (rounds < 1) {
		fprintf(stderr, "mesh-bench: fewer than 3 rounds of %u agents in %.0f s\n", n, secs);
		exit(1);
	}
	out->wall = (pr.last.wall - pr.first.wall) * 1000 / rounds;
	out->user = (pr.last.user - pr.first.user) * 1000 / rounds;
	out->sys = (pr.last.sys - pr.first.sys) * 1000 / rounds;
	out->agents = (agents_end - pr.agents_first) * 1000 / rounds;
	printf("agents %u%s: %.0f rounds of %u probes measured (from the third round on), per round: "
	       "%.3f ms wall, coordinator CPU %.3f ms (user %.3f, system %.3f), "
	       "simulated agents' CPU %.3f ms\n",
	       n, keyed ? " (key, sealed frames)" : "", rounds, n / 2, out->wall, out->user + out->sys, out->user, out->sys, out->agents);
out:
	rck_mesh_free(m);
	rck_mesh_config_free(c);
	for (int k = 0; k < PROCS; k++) {
		kill(pid[k], SIGKILL);
		waitpid(pid[k], NULL, 0);
	}
	free(port);
	free(lfd);
	return rc;
}

#define PROBE_TARGET_US 2.0
#define VERDICT_TARGET_S 110.0
#define RETEST_SHARE 0.01 /* the model's suspects: 1% of the probes, retested twice */

/* The steps a retest pass of @share of a 1024-host --bidir full plan's
 * probes takes, from the coordinator's own plan of it (mesh/retest.c):
 * the suspects are whole pairs, both directions (a bad link or NIC slows
 * both), so with @bidir each pair is one step, else each direction one. */
static long retest_rounds_1024(double share, bool bidir)
{
	struct rck_mesh *m;
	struct mesh_plan *p;
	struct mesh_plan_opts o = { .pattern = MESH_PATTERN_FULL, .rails = MESH_RAILS_SAME, .bidir = true };
	uint32_t *tasks, *round;
	long *mate;
	uint64_t x = 88172645463325252ull;
	size_t nt = 0;
	long nr;
	char err[256];

	rck_mesh_new(&m);
	for (unsigned int h = 0; h < 1024; h++) {
		char name[16];
		struct rck_mesh_nic nic = { .size = sizeof(nic), .device = "mlx5_0", .port = 1, .rail = -1,
					    .gid_index = -1 };

		snprintf(name, sizeof(name), "h%04u", h);
		rck_mesh_add_host(m, name, NULL);
		rck_mesh_add_nic(m, h, &nic, NULL);
	}
	if (mesh_plan_build(m, &o, &p, err, sizeof(err))) {
		rck_mesh_free(m);
		return -1;
	}
	tasks = malloc(p->n_tasks * sizeof(*tasks));
	round = malloc(p->n_tasks * sizeof(*round));
	mate = malloc(p->n_tasks * sizeof(*mate));
	/* A bidir unit is a pair's two directions: @share of the pairs is
	 * @share of the probes. */
	for (size_t u = 0; tasks && u < p->n_units; u++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if ((double)(x % 1000000) < share * 1e6)
			for (uint32_t k = 0; k < p->units[u].n_tasks; k++)
				tasks[nt++] = p->units[u].first_task + k;
	}
	nr = tasks && round && mate ? mesh_retest_steps(p, tasks, nt, bidir, mate, round) : -1;
	free(tasks);
	free(round);
	free(mate);
	mesh_plan_free(p);
	rck_mesh_free(m);
	return nr;
}

/* The same sweeps with a key (every frame after the handshake sealed,
 * lib/wire_sec.c), shorter runs, against @r256 and @r1024 without one.
 * 0, or -1 when a keyed sweep's probes failed (nothing to compare). */
static int bench_keyed(struct rck_ctx *ctx, const struct per_round *r256, const struct per_round *r1024)
{
	const struct per_round *plain[2] = { r256, r1024 };
	struct per_round keyed[2];
	const unsigned int n[2] = { 256, 1024 };

	if (sweep_bench(ctx, 256, 6, 0, true, &keyed[0]) | sweep_bench(ctx, 1024, 12, 0, true, &keyed[1]))
		return -1;
	for (int k = 0; k < 2; k++) {
		double kc = keyed[k].user + keyed[k].sys, pc = plain[k]->user + plain[k]->sys;

		printf("agents %u, per round, with a key / without: coordinator CPU %.3f / %.3f ms (ratio %.2f), "
		       "wall %.3f / %.3f ms (ratio %.2f)\n",
		       n[k], kc, pc, kc / pc, keyed[k].wall, plain[k]->wall, keyed[k].wall / plain[k]->wall);
	}
	printf("coordinator CPU ms per round with a key / the %.1f ms target: at 256 %.3f, at 1024 %.3f "
	       "(user only %.3f); wall per round / target: %.2f, %.2f\n",
	       ROUND_TARGET_MS, (keyed[0].user + keyed[0].sys) / ROUND_TARGET_MS,
	       (keyed[1].user + keyed[1].sys) / ROUND_TARGET_MS, keyed[1].user / ROUND_TARGET_MS,
	       keyed[0].wall / ROUND_TARGET_MS, keyed[1].wall / ROUND_TARGET_MS);
	return 0;
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	struct rck_ctx *ctx;
	struct per_round r256, r1024, r10k;
	long rss_before, rounds_re, rounds_one;
	double steps, model, over;
	int rc, keyed_rc;

	signal(SIGPIPE, SIG_IGN);
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < 4200) {
		printf("mesh-bench: needs 4200 descriptors, the limit is %llu; skipped\n",
		       (unsigned long long)rl.rlim_cur);
		return 77;
	}
	rck_ctx_new(&ctx);
	rck_ctx_set_log_priority(ctx, 3);
	rck_ctx_set_timeout_ms(ctx, 20000);
	/* `mesh-bench ROCECHECK --real`: only the sweeps of real agents. */
	if (argc > 2 && !strcmp(argv[2], "--real")) {
		rc = bench_sweep_real(ctx, argv[1]) || bench_incast_spread(ctx, argv[1]);
		rck_ctx_free(ctx);
		return rc ? 1 : 0;
	}
	/* 10,000 agents first, so the peak RSS is theirs: each simulated
	 * process holds every listener until it forks and 2,500 sessions, the
	 * coordinator 10,000 sessions and some. */
	rss_before = peak_rss_kib();
	if (rl.rlim_cur >= 10000 + 2500 + 256) {
		if (sweep_bench(ctx, 10000, 60, 60, false, &r10k))
			return 1;
		printf("10,000 agents: coordinator CPU per probe %.3f us (target %.1f: ratio %.3f), wall per round "
		       "%.2f ms; coordinator peak RSS %ld KiB (%ld KiB before the sweep; 60 rounds, 300,000 probes)\n",
		       (r10k.user + r10k.sys) * 1000 / 5000, PROBE_TARGET_US,
		       (r10k.user + r10k.sys) * 1000 / 5000 / PROBE_TARGET_US, r10k.wall, peak_rss_kib(), rss_before);
	} else {
		printf("10,000 agents: not run, the descriptor limit is %llu\n", (unsigned long long)rl.rlim_cur);
	}
	if (sweep_bench(ctx, 256, 10, 0, false, &r256) || sweep_bench(ctx, 1024, 20, 0, false, &r1024))
		return 1;
	printf("wall ms per round at 1024 / at 256: %.2f (a round has 4x the probes)\n", r1024.wall / r256.wall);
	/* The simulated agents pace a round at TASK_NS, so its wall time is
	 * theirs unless the coordinator lags. */
	printf("coordinator CPU ms per round / the %.1f ms target: at 256 %.3f, at 1024 %.3f (user only %.3f); "
	       "wall per round / target: %.2f, %.2f (simulated probes of %.1f ms)\n",
	       ROUND_TARGET_MS, (r256.user + r256.sys) / ROUND_TARGET_MS, (r1024.user + r1024.sys) / ROUND_TARGET_MS,
	       r1024.user / ROUND_TARGET_MS, r256.wall / ROUND_TARGET_MS, r1024.wall / ROUND_TARGET_MS, TASK_NS / 1e6);
	printf("coordinator share of the CPU per round at 1024: %.2f (coordinator / (coordinator + agents))\n",
	       (r1024.user + r1024.sys) / (r1024.user + r1024.sys + r1024.agents));
	keyed_rc = bench_keyed(ctx, &r256, &r1024);
	/* The model: a 1024-host full mesh is n-1 circle steps with --bidir
	 * (2(n-1) without) of 0.1 s probes, each step paying the overhead per
	 * round measured above (its wall less the 1 ms simulated probe); then
	 * retest passes of 1% of the probes each, in the steps the coordinator
	 * plans for them (a pair's two directions in one with --bidir); without
	 * --bidir each direction is a step of its own. */
	rounds_re = retest_rounds_1024(RETEST_SHARE, true);
	rounds_one = retest_rounds_1024(RETEST_SHARE, false);
	printf("retest pass of 1%% of a 1024-host --bidir plan's probes (whole pairs): %ld steps with both "
	       "directions at once, %ld one direction at a time (ratio %.2f)\n", rounds_re, rounds_one,
	       (double)rounds_re / rounds_one);
	over = fmax(0, r1024.wall - TASK_NS / 1e6) / 1000;
	for (int passes = 1; passes <= 2; passes++) {
		steps = 1023 + passes * (double)rounds_re;
		model = steps * (0.1 + over);
		printf("model, 1024 hosts, 0.1 s probes, --bidir, %d retest pass%s of 1%%: (1023 steps + %d x %ld "
		       "rounds) x (0.1 s + %.2f ms measured) = %.1f s to a verdict (target %.0f s: ratio %.3f); "
		       "without --bidir %.1f s\n", passes, passes > 1 ? "es" : "", passes, rounds_re, over * 1000,
		       model, VERDICT_TARGET_S, model / VERDICT_TARGET_S,
		       (2 * 1023 + passes * (double)rounds_one) * (0.1 + over));
	}
	if (argc > 1) {
		bench_agent_rss(argv[1]);
		if (bench_sweep_real(ctx, argv[1]) || bench_incast_spread(ctx, argv[1]))
			return 1;
	}
	rck_ctx_free(ctx);
	return keyed_rc ? 1 : 0;
}
