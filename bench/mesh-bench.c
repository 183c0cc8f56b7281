/* Benchmark of the sweep coordinator on loopback: its overhead per round
 * with 256 and 1024 simulated agents (a few processes answering no-op
 * probes), and the idle RSS of a real `rocecheck agent`. Prints ratios. */
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

#define PROCS 4
#define ROUND_TARGET_MS 2.0
#define RSS_TARGET_KIB (8 * 1024)

struct conn {
	int fd;
	struct wire_frame f;
};

static int reply(int fd, struct ag_msg *m, uint8_t *buf)
{
	size_t len;

	if (ag_encode(m, buf, AG_MAX_PAYLOAD, &len))
		return -1;
	return wire_send(fd, &ag_proto, m->type, buf, len, wire_now_ns() + 5000000000ull);
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
		int k = epoll_wait(ep, evs, 256, -1);

		for (int e = 0; e < k; e++) {
			unsigned int i = evs[e].data.u32 & 0x7fffffffu;

			if (evs[e].data.u32 & 0x80000000u) {
				struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };

				if (c[i].fd < 0 && (c[i].fd = accept4(lfd[i], NULL, NULL, SOCK_NONBLOCK)) >= 0)
					epoll_ctl(ep, EPOLL_CTL_ADD, c[i].fd, &ev);
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
						wire_frame_next(&c[i].f);
					}
					break;
				}
				while (off < (size_t)got && rc >= 0) {
					rc = wire_frame_put(&c[i].f, in + off, (size_t)got - off, &used);
					off += used;
					if (rc == 1) {
						rc = answer(c[i].fd, &c[i].f, m, buf);
						wire_frame_next(&c[i].f);
					} else if (rc == 0) {
						break;
					}
				}
				if (rc < 0) {
					close(c[i].fd);
					c[i].fd = -1;
					wire_frame_next(&c[i].f);
					break;
				}
			}
		}
	}
}

struct prog {
	unsigned int done;
	double first, last;
};

/* Sweep @n simulated agents for @secs at most; ms per round of n/2 probes. */
static double round_ms(struct rck_ctx *ctx, unsigned int n, double secs, double *cpu_ms)
{
	unsigned int *port = calloc(n, sizeof(*port));
	int *lfd = calloc(n, sizeof(*lfd));
	pid_t pid[PROCS];
	struct rck_mesh_config *c;
	struct rck_mesh *m;
	struct prog pr = { 0 };
	double rounds, per, cpu;
	struct rusage ru0, ru1;

	for (unsigned int i = 0; i < n; i++)
		if (psock_listen("127.0.0.1", 0, &lfd[i], &port[i])) {
			fprintf(stderr, "mesh-bench: cannot listen (%u agents)\n", n);
			exit(1);
		}
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
	rck_mesh_config_set_deadline(c, secs);
	getrusage(RUSAGE_SELF, &ru0);
	if (rck_mesh_run(ctx, c, &m)) {
		fprintf(stderr, "mesh-bench: sweep of %u failed\n", n);
		exit(1);
	}
	/* Measured probes only (the deadline records the rest skipped), from
	 * the first one's end to the last one's. */
	pr.first = INFINITY;
	pr.last = 0;
	pr.done = 0;
	for (unsigned int i = 0; i < rck_mesh_cell_count(m); i++) {
		struct rck_mesh_meas me = { .size = sizeof(me) };

		if (rck_mesh_cell_meas(m, i, 0, &me) || me.status != RCK_MESH_OK)
			continue;
		pr.done++;
		pr.first = fmin(pr.first, me.start_s + me.seconds);
		pr.last = fmax(pr.last, me.start_s + me.seconds);
	}
	getrusage(RUSAGE_SELF, &ru1);
	cpu = (ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec + ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
	      (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec + ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
	rounds = pr.done / (n / 2.0);
	per = rounds > 1 ? (pr.last - pr.first) * 1000 / (rounds - 1) : NAN;
	printf("agents %u: %u probes measured in %.2f s after the first (%.1f rounds of %u), %.3f ms per round\n",
	       n, pr.done, pr.last - pr.first, rounds, n / 2, per);
	printf("agents %u: coordinator CPU (user+sys, whole sweep incl. connecting) %.2f s, %.3f ms per round\n",
	       n, cpu, cpu * 1000 / rounds);
	if (cpu_ms)
		*cpu_ms = cpu * 1000 / rounds;
	rck_mesh_free(m);
	rck_mesh_config_free(c);
	for (int k = 0; k < PROCS; k++) {
		kill(pid[k], SIGKILL);
		waitpid(pid[k], NULL, 0);
	}
	free(port);
	free(lfd);
	return per;
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

/* A real agent: idle RSS after start and after 200 sessions. */
static void agent_rss(const char *rck)
{
	char port[16];
	unsigned int p;
	int lfd;
	pid_t pid;
	long idle, after;

	psock_listen("127.0.0.1", 0, &lfd, &p);
	close(lfd);
	snprintf(port, sizeof(port), "127.0.0.1:%u", p);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		execl(rck, rck, "agent", "--listen", port, (char *)NULL);
		_exit(127);
	}
	usleep(300000);
	idle = rss_kib(pid);
	for (int i = 0; i < 200; i++) {
		struct ag_msg m = { .type = AG_CLOSE };
		uint8_t buf[64];
		size_t len;
		int fd;

		if (psock_connect("127.0.0.1", p, wire_now_ns() + 2000000000ull, &fd, &(struct sockaddr_storage){ 0 }, &(int){ 0 }))
			break;
		m.type = AG_DESCRIBE;
		ag_encode(&m, buf, sizeof(buf), &len);
		wire_send(fd, &ag_proto, AG_DESCRIBE, buf, len, wire_now_ns() + 1000000000ull);
		m.type = AG_CLOSE;
		ag_encode(&m, buf, sizeof(buf), &len);
		wire_send(fd, &ag_proto, AG_CLOSE, buf, len, wire_now_ns() + 1000000000ull);
		while (psock_wait(fd, POLLIN, wire_now_ns() + 1000000000ull) > 0 && recv(fd, buf, sizeof(buf), 0) > 0)
			;
		close(fd);
	}
	after = rss_kib(pid);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	printf("agent idle RSS: %ld KiB at start, %ld KiB after 200 sessions; ratio to the %d KiB target: %.2f\n",
	       idle, after, RSS_TARGET_KIB, (double)(after > idle ? after : idle) / RSS_TARGET_KIB);
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	struct rck_ctx *ctx;
	double r256, r1024, c256, c1024;

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
	r256 = round_ms(ctx, 256, 10, &c256);
	r1024 = round_ms(ctx, 1024, 20, &c1024);
	printf("wall ms per round at 1024 / at 256: %.2f (a round has 4x the probes)\n", r1024 / r256);
	printf("wall ms per round at 1024 / the %.1f ms target: %.2f (agents simulated on the same cores)\n",
	       ROUND_TARGET_MS, r1024 / ROUND_TARGET_MS);
	printf("coordinator CPU ms per round at 1024 / the %.1f ms target: %.2f; at 256: %.2f\n",
	       ROUND_TARGET_MS, c1024 / ROUND_TARGET_MS, c256 / ROUND_TARGET_MS);
	if (argc > 1)
		agent_rss(argv[1]);
	rck_ctx_free(ctx);
	return 0;
}
