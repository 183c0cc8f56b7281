/* Benchmark of the sweep coordinator on loopback: its overhead per round
 * with 256 and 1024 simulated agents (a few processes answering no-op
 * probes), and the idle RSS of a real `rocecheck agent`. Prints ratios. */
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
#include "mesh-sim-tasks.h"

#define PROCS 4
#define ROUND_TARGET_MS 2.0
#define RSS_TARGET_KIB (8 * 1024)

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
				struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };

				if (c[i].fd < 0 && (c[i].fd = accept4(lfd[i], NULL, NULL, SOCK_NONBLOCK)) >= 0) {
					epoll_ctl(ep, EPOLL_CTL_ADD, c[i].fd, &ev);
					c[i].authed = !sim_key;
					if (sim_key) {
						uint8_t out[64];
						size_t len;

						wire_auth_challenge(c[i].nonce, out, sizeof(out), &len);
						wire_send(c[i].fd, &ag_proto, WIRE_T_CHALLENGE, out, len,
							  wire_now_ns() + 5000000000ull);
					}
				}
				continue;
			}
			for (;;) {
				ssize_t got = recv(c[i].fd, in, sizeof(in), MSG_DONTWAIT);
				size_t off = 0, used;
				int rc = 0;

				if (got <= 0) {
					if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
						close(c[i].fd);
						c[i].fd = -1;
						wire_frame_free(&c[i].f);
						sim_tasks_reset(&c[i].st);
					}
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
					close(c[i].fd);
					c[i].fd = -1;
					wire_frame_free(&c[i].f);
					sim_tasks_reset(&c[i].st);
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

/* Sweep @n simulated agents for @secs at most: per round of n/2 probes, the
 * wall time, the coordinator's CPU (user, system) and the agents' CPU. */
static void sweep_bench(struct rck_ctx *ctx, unsigned int n, double secs, enum rck_mesh_schedule sched,
			bool keyed, struct per_round *out)
{
	unsigned int *port = calloc(n, sizeof(*port));
	int *lfd = calloc(n, sizeof(*lfd));
	pid_t pid[PROCS];
	struct rck_mesh_config *c;
	struct rck_mesh *m;
	struct prog pr = { .per_round = n / 2, .deadline_s = secs, .pid = pid };
	double rounds, agents_end;

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

		snprintf(name, sizeof(name), "sim%04u", i);
		rck_mesh_config_add_host(c, name, "127.0.0.1", port[i], NULL, 0);
	}
	rck_mesh_config_set_probe(c, RCK_PROBE_TRANSPORT_TCP, 0, 1, 0);
	if (keyed)
		rck_mesh_config_set_key(c, (const uint8_t *)SIM_KEY, strlen(SIM_KEY));
	rck_mesh_config_set_deadline(c, secs);
	rck_mesh_config_set_schedule(c, sched);
	rck_mesh_config_set_progress(c, on_progress, &pr);
	if (rck_mesh_run(ctx, c, &m)) {
		fprintf(stderr, "mesh-bench: sweep of %u failed\n", n);
		exit(1);
	}
	/* The agents wait idle once the probes end: their CPU now is theirs
	 * up to the last sample. */
	agents_end = agents_cpu(pid);
	rounds = pr.have_first ? (double)(pr.last.done - pr.first.done) / pr.per_round : 0;
	if (rounds < 1) {
		fprintf(stderr, "mesh-bench: fewer than 3 rounds of %u agents in %.0f s\n", n, secs);
		exit(1);
	}
	out->wall = (pr.last.wall - pr.first.wall) * 1000 / rounds;
	out->user = (pr.last.user - pr.first.user) * 1000 / rounds;
	out->sys = (pr.last.sys - pr.first.sys) * 1000 / rounds;
	out->agents = (agents_end - pr.agents_first) * 1000 / rounds;
	printf("%s schedule%s, agents %u: %.0f rounds of %u probes measured (from the third round on), per round: "
	       "%.3f ms wall, coordinator CPU %.3f ms (user %.3f, system %.3f), "
	       "simulated agents' CPU %.3f ms\n",
	       sched == RCK_MESH_SCHEDULE_AGENTS ? "agents'" : "coordinator's", keyed ? " (key, sealed frames)" : "",
	       n, rounds, n / 2, out->wall, out->user + out->sys, out->user, out->sys, out->agents);
	rck_mesh_free(m);
	rck_mesh_config_free(c);
	for (int k = 0; k < PROCS; k++) {
		kill(pid[k], SIGKILL);
		waitpid(pid[k], NULL, 0);
	}
	free(port);
	free(lfd);
}

static long rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

static long fds_of(pid_t pid)
{
	char path[64];
	long n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n - 2; /* . and .. */
}

/* One authenticated session with the agent on @port: DESCRIBE, its HOST
 * reply read, CLOSE. 0 or -1. */
static int agent_session(unsigned int port, const char *key)
{
	struct ag_msg m = { .type = AG_DESCRIBE };
	uint8_t buf[64], in[65536];
	struct wire_frame f;
	size_t len;
	char err[256];
	int fd, rc = -1;

	if (psock_connect("127.0.0.1", port, wire_now_ns() + 2000000000ull, &fd, &(struct sockaddr_storage){ 0 },
			  &(int){ 0 }))
		return -1;
	wire_frame_init(&f, &ag_proto);
	if (wire_auth_client_sec(fd, &ag_proto, (const uint8_t *)key, strlen(key), wire_now_ns() + 2000000000ull,
				 &f, err, sizeof(err)) == 0 &&
	    ag_encode(&m, buf, sizeof(buf), &len) == 0 &&
	    wire_send_sec(fd, &ag_proto, f.sec, AG_DESCRIBE, buf, len, wire_now_ns() + 1000000000ull) == 0 &&
	    wire_recv(fd, &f, wire_now_ns() + 2000000000ull) == 1) {
		m.type = AG_CLOSE;
		if (ag_encode(&m, buf, sizeof(buf), &len) == 0)
			rc = wire_send_sec(fd, &ag_proto, f.sec, AG_CLOSE, buf, len, wire_now_ns() + 1000000000ull);
	}
	wire_frame_free(&f);
	while (psock_wait(fd, POLLIN, wire_now_ns() + 1000000000ull) > 0 && recv(fd, in, sizeof(in), 0) > 0)
		;
	close(fd);
	return rc;
}

/* A real agent with a key: RSS and open descriptors after start and after
 * 200 and 2000 authenticated sessions (flat: the same descriptors, little
 * growth from 200 to 2000). */
static void agent_rss(const char *rck)
{
	static const char key[] = "mesh-bench-agent-key-0123456789abcdef";
	char port[16], keyfile[] = "/tmp/mesh-bench-key.XXXXXX";
	long rss[3], fds[3];
	unsigned int p, done = 0;
	int lfd, kfd;
	pid_t pid;

	kfd = mkstemp(keyfile);
	if (kfd < 0 || write(kfd, key, strlen(key)) != (ssize_t)strlen(key)) {
		printf("agent RSS: cannot write a key file\n");
		return;
	}
	close(kfd);
	psock_listen("127.0.0.1", 0, &lfd, &p);
	close(lfd);
	snprintf(port, sizeof(port), "127.0.0.1:%u", p);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		execl(rck, rck, "agent", "--listen", port, "--key-file", keyfile, (char *)NULL);
		_exit(127);
	}
	usleep(300000);
	rss[0] = rss_kib(pid);
	fds[0] = fds_of(pid);
	for (int phase = 1; phase < 3; phase++) {
		for (unsigned int i = 0; i < (phase == 1 ? 200u : 1800u); i++)
			done += agent_session(p, key) == 0;
		rss[phase] = rss_kib(pid);
		fds[phase] = fds_of(pid);
	}
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	unlink(keyfile);
	printf("agent idle RSS: %ld KiB at start, %ld KiB after 200 sessions, %ld KiB after 2000 "
	       "(%u of 2000 authenticated sessions answered); ratio to the %d KiB target: %.2f\n",
	       rss[0], rss[1], rss[2], done, RSS_TARGET_KIB,
	       (double)(rss[2] > rss[1] ? rss[2] : rss[1]) / RSS_TARGET_KIB);
	printf("agent flat over sessions: RSS after 2000 / after 200: %.3f; open descriptors %ld, %ld, %ld\n",
	       (double)rss[2] / rss[1], fds[0], fds[1], fds[2]);
}

#define REAL_HOSTS 4
#define REAL_PROBE_S 0.3
#define SWEEP_TARGET 1.10

/* Seconds of the @src -> @dst bw probe (hosts by index), NAN if none ok. */
static double probe_secs(const struct rck_mesh *m, unsigned int src, unsigned int dst)
{
	struct rck_mesh_meas me = { .size = sizeof(me) };
	unsigned int a, b, cell;

	if (rck_mesh_host_nic(m, src, 0, &a) || rck_mesh_host_nic(m, dst, 0, &b) ||
	    rck_mesh_find_cell(m, RCK_MESH_TEST_BW, a, b, &cell) ||
	    rck_mesh_cell_meas(m, cell, 0, &me) || me.status != RCK_MESH_OK)
		return NAN;
	return me.seconds;
}

/* A full sweep of 4 real agents on loopback with TCP probes of fixed
 * length: its wall time (first probe's start to last one's end) against
 * the sum over circle-method steps (n/2 disjoint probes each, 2(n-1) steps)
 * of the step's slowest probe, i.e. a sweep with a barrier after each step
 * and no cost between probes. */
static int sweep_real(struct rck_ctx *ctx, const char *rck)
{
	const unsigned int n = REAL_HOSTS;
	pid_t pid[REAL_HOSTS];
	unsigned int port[REAL_HOSTS];
	struct rck_mesh_config *c;
	struct rck_mesh *m = NULL;
	double first = INFINITY, last = 0, ref = 0;
	unsigned int ok = 0;
	int rc = 0;

	for (unsigned int i = 0; i < n; i++) {
		char listen[32];
		int lfd;

		psock_listen("127.0.0.1", 0, &lfd, &port[i]);
		close(lfd);
		snprintf(listen, sizeof(listen), "127.0.0.1:%u", port[i]);
		pid[i] = fork();
		if (pid[i] == 0) {
			execl(rck, rck, "agent", "--listen", listen, "--insecure", (char *)NULL);
			_exit(127);
		}
	}
	usleep(300000);
	rck_mesh_config_new(&c);
	for (unsigned int i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "real%u", i);
		rck_mesh_config_add_host(c, name, "127.0.0.1", port[i], NULL, 0);
	}
	rck_mesh_config_set_tests(c, 1u << RCK_MESH_TEST_BW);
	rck_mesh_config_set_probe(c, RCK_PROBE_TRANSPORT_TCP, 65536, 0, REAL_PROBE_S);
	rck_mesh_config_set_deadline(c, 60);
	if (rck_mesh_run(ctx, c, &m)) {
		fprintf(stderr, "mesh-bench: the sweep of %u real agents failed\n", n);
		rc = -1;
	}
	for (unsigned int i = 0; m && i < rck_mesh_cell_count(m); i++) {
		struct rck_mesh_meas me = { .size = sizeof(me) };

		if (rck_mesh_cell_meas(m, i, 0, &me) || me.status != RCK_MESH_OK)
			continue;
		ok++;
		first = fmin(first, me.start_s);
		last = fmax(last, me.start_s + me.seconds);
	}
	/* Circle method: host n-1 fixed, the others turn; each round's pairs
	 * one way (a step), then the other way (a step). */
	for (unsigned int r = 0; m && r < n - 1; r++)
		for (int dir = 0; dir < 2; dir++) {
			double slow = 0;

			for (unsigned int k = 0; k < n / 2; k++) {
				unsigned int a = k ? (r + k) % (n - 1) : n - 1;
				unsigned int b = k ? (r + n - 1 - k) % (n - 1) : r;

				slow = fmax(slow, dir ? probe_secs(m, b, a) : probe_secs(m, a, b));
			}
			ref += slow;
		}
	if (!rc && ok != n * (n - 1)) {
		fprintf(stderr, "mesh-bench: %u of %u probes ok among real agents\n", ok, n * (n - 1));
		rc = -1;
	}
	if (!rc) {
		printf("sweep of %u real agents (TCP probes of %.1f s): %.3f s wall, sum over steps of the slowest "
		       "probe %.3f s, %u steps of the nominal probe %.3f s\n",
		       n, REAL_PROBE_S, last - first, ref, 2 * (n - 1), 2 * (n - 1) * REAL_PROBE_S);
		printf("sweep wall / sum of the slowest probe per step: %.3f (target %.2f); / nominal steps: %.3f\n",
		       (last - first) / ref, SWEEP_TARGET, (last - first) / (2 * (n - 1) * REAL_PROBE_S));
	}
	rck_mesh_free(m);
	rck_mesh_config_free(c);
	for (unsigned int i = 0; i < n; i++) {
		kill(pid[i], SIGTERM);
		waitpid(pid[i], NULL, 0);
	}
	return rc;
}

/* Sealing and checking one frame of @len bytes (both ends' work), in µs. */
static double seal_us(size_t len)
{
	static const char key[] = "mesh-bench-seal-key-0123456789";
	uint8_t sn[WIRE_NONCE_LEN] = { 1 }, chal[64], auth[128], cn[WIRE_NONCE_LEN], sn2[WIRE_NONCE_LEN];
	uint8_t *payload = calloc(1, len), *out = malloc(wire_sealed_len(len));
	struct wire_frame c, s;
	size_t clen, alen, used;
	uint64_t t0;
	int n = 20000;

	wire_auth_challenge(sn, chal, sizeof(chal), &clen);
	wire_auth_answer(&ag_proto, (const uint8_t *)key, strlen(key), chal, clen, sn2, cn, auth, sizeof(auth), &alen);
	wire_frame_init(&c, &ag_proto);
	wire_frame_init(&s, &ag_proto);
	wire_frame_secure_client(&c, &ag_proto, (const uint8_t *)key, strlen(key), sn, cn);
	wire_frame_secure_server(&s, &ag_proto, (const uint8_t *)key, strlen(key), sn, auth, alen);
	t0 = wire_now_ns();
	for (int i = 0; i < n; i++) {
		wire_seal(c.sec, &ag_proto, AG_RESULT, payload, len, out);
		wire_frame_next(&s);
		if (wire_frame_put(&s, out, wire_sealed_len(len), &used) != 1) {
			n = 1;
			break;
		}
	}
	t0 = wire_now_ns() - t0;
	wire_frame_free(&c);
	wire_frame_free(&s);
	free(payload);
	free(out);
	return t0 / 1e3 / n;
}

static void seal_bench(void)
{
	double small = seal_us(64), big = seal_us(2048);

	/* A probe of the coordinator's schedule: SERVE, SERVING, RUN, SERVED
	 * (small) and RESULT (with both ends' counters), each sealed by one
	 * side and checked by the other. */
	printf("sealed frames: %.2f us per 64-byte frame, %.2f us per 2 KiB frame (seal + check); "
	       "a round of 512 probes: %.3f ms of CPU on both sides together / the %.1f ms target: %.3f\n",
	       small, big, 512 * (4 * small + big) / 1e3, ROUND_TARGET_MS,
	       512 * (4 * small + big) / 1e3 / ROUND_TARGET_MS);
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	struct rck_ctx *ctx;
	struct per_round r256, r1024, d256, d1024, k1024, kd1024;
	double c1024;
	int rc;

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
	/* `mesh-bench ROCECHECK --real`: only the sweep of real agents. */
	if (argc > 2 && !strcmp(argv[2], "--real")) {
		rc = sweep_real(ctx, argv[1]);
		rck_ctx_free(ctx);
		return rc ? 1 : 0;
	}
	seal_bench();
	sweep_bench(ctx, 256, 10, RCK_MESH_SCHEDULE_COORDINATOR, false, &r256);
	sweep_bench(ctx, 1024, 20, RCK_MESH_SCHEDULE_COORDINATOR, false, &r1024);
	sweep_bench(ctx, 256, 10, RCK_MESH_SCHEDULE_AGENTS, false, &d256);
	sweep_bench(ctx, 1024, 20, RCK_MESH_SCHEDULE_AGENTS, false, &d1024);
	sweep_bench(ctx, 1024, 20, RCK_MESH_SCHEDULE_COORDINATOR, true, &k1024);
	sweep_bench(ctx, 1024, 20, RCK_MESH_SCHEDULE_AGENTS, true, &kd1024);
	c1024 = r1024.user + r1024.sys;
	printf("sealed frames (a key) / none, coordinator CPU per round at 1024: coordinator's schedule %.2f "
	       "(user only %.2f), agents' schedule %.2f; with a key / the %.1f ms target: %.2f, %.3f\n",
	       (k1024.user + k1024.sys) / c1024, k1024.user / r1024.user,
	       (kd1024.user + kd1024.sys) / (d1024.user + d1024.sys), ROUND_TARGET_MS,
	       (k1024.user + k1024.sys) / ROUND_TARGET_MS, (kd1024.user + kd1024.sys) / ROUND_TARGET_MS);
	printf("wall ms per round at 1024 / at 256: %.2f (a round has 4x the probes)\n", r1024.wall / r256.wall);
	printf("wall ms per round at 1024 / the %.1f ms target: %.2f (agents simulated on the same 2 cores)\n",
	       ROUND_TARGET_MS, r1024.wall / ROUND_TARGET_MS);
	/* On loopback the sender's system time includes the receiver's TCP
	 * input path, so the coordinator's system time also pays for the
	 * agents' receiving; its user time is its own code alone. */
	printf("coordinator CPU ms per round at 1024 / the %.1f ms target: %.2f (user only: %.2f); at 256: %.2f\n",
	       ROUND_TARGET_MS, c1024 / ROUND_TARGET_MS, r1024.user / ROUND_TARGET_MS,
	       (r256.user + r256.sys) / ROUND_TARGET_MS);
	/* The agents' schedule: the simulated agents pace a round at
	 * TASK_NS, so its wall time is theirs unless the coordinator lags. */
	printf("agents' schedule: coordinator CPU ms per round / the %.1f ms target: at 256 %.3f, at 1024 %.3f "
	       "(user only %.3f); wall per round / target: %.2f, %.2f (simulated probes of %.1f ms)\n",
	       ROUND_TARGET_MS, (d256.user + d256.sys) / ROUND_TARGET_MS, (d1024.user + d1024.sys) / ROUND_TARGET_MS,
	       d1024.user / ROUND_TARGET_MS, d256.wall / ROUND_TARGET_MS, d1024.wall / ROUND_TARGET_MS, TASK_NS / 1e6);
	printf("coordinator CPU per round, agents' / coordinator's schedule: at 256 %.3f, at 1024 %.3f\n",
	       (d256.user + d256.sys) / (r256.user + r256.sys), (d1024.user + d1024.sys) / c1024);
	printf("coordinator share of the CPU per round at 1024: %.2f (coordinator / (coordinator + agents))\n",
	       c1024 / (c1024 + r1024.agents));
	/* Issue 10's model: a 1024-host full mesh is 2(n-1) circle steps of
	 * 0.1 s probes, each step paying the overhead measured above;
	 * analysis-bench adds the retest passes and the analysis itself. */
	printf("model, 1024 hosts, 0.1 s probes: %d rounds x (0.1 s + %.1f ms measured) = %.1f s to the sweep's end;"
	       " probes alone %.1f s: ratio %.3f (analysis-bench: retests and analysis on top)\n",
	       2 * 1023, r1024.wall, 2 * 1023 * (0.1 + r1024.wall / 1000), 2 * 1023 * 0.1,
	       (0.1 + r1024.wall / 1000) / 0.1);
	if (argc > 1) {
		agent_rss(argv[1]);
		if (sweep_real(ctx, argv[1]))
			return 1;
	}
	rck_ctx_free(ctx);
	return 0;
}
