/* mesh-bench with real agents: a `rocecheck agent`'s idle RSS over
 * sessions, the sweep wall of 4 agents against its steps' slowest probes,
 * and the start spread of incast groups. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rocecheck/rocecheck.h>

#include "../mesh/agent_proto.h"
#include "../probes/sock.h"
#include "mesh-bench.h"

#define RSS_TARGET_KIB (8 * 1024)

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

/*
 * `rck agent --listen 127.0.0.1:0` (with @keyfile, or without a key): the
 * agent binds a port of the kernel's choosing and says which on stderr,
 * read here from an unlinked file within 5 s. (Asking for a free port,
 * closing it and passing the number raced: two agents were given the same
 * port once, and one could not listen.) 0, or -1 with nothing left running.
 */
static int spawn_agent(const char *rck, const char *keyfile, pid_t *pid, unsigned int *port)
{
	char path[] = "/tmp/mesh-bench-agent.XXXXXX", buf[4096];
	int fd = mkostemp(path, O_CLOEXEC);

	if (fd < 0)
		return -1;
	unlink(path);
	*pid = fork();
	if (*pid < 0) {
		close(fd);
		return -1;
	}
	if (*pid == 0) {
		dup2(fd, 2);
		if (keyfile)
			execl(rck, rck, "agent", "--listen", "127.0.0.1:0", "--key-file", keyfile, (char *)NULL);
		else
			execl(rck, rck, "agent", "--listen", "127.0.0.1:0", "--insecure", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		const char *at;

		buf[n > 0 ? n : 0] = 0;
		if ((at = strstr(buf, "listening on port ")) && sscanf(at, "listening on port %u", port) == 1) {
			close(fd);
			return 0;
		}
		usleep(10000);
	}
	close(fd);
	fprintf(stderr, "mesh-bench: agent %d said no port in 5 s: %s\n", (int)*pid, buf);
	kill(*pid, SIGKILL);
	waitpid(*pid, NULL, 0);
	return -1;
}

/* A real agent with a key: RSS and open descriptors after start and after
 * 200 and 2000 authenticated sessions (flat: the same descriptors, little
 * growth from 200 to 2000). */
void bench_agent_rss(const char *rck)
{
	static const char key[] = "mesh-bench-agent-key-0123456789abcdef";
	char keyfile[] = "/tmp/mesh-bench-key.XXXXXX";
	long rss[3], fds[3];
	unsigned int p, done = 0;
	int kfd;
	pid_t pid;

	kfd = mkstemp(keyfile);
	if (kfd < 0 || write(kfd, key, strlen(key)) != (ssize_t)strlen(key)) {
		printf("agent RSS: cannot write a key file\n");
		return;
	}
	close(kfd);
	if (spawn_agent(rck, keyfile, &pid, &p)) {
		unlink(keyfile);
		printf("agent RSS: the agent did not start\n");
		return;
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

/* REAL_HOSTS agents of @rck on loopback ports, without a key; 0 or -1
 * (none left running). */
static int start_agents(const char *rck, pid_t *pid, unsigned int *port)
{
	for (unsigned int i = 0; i < REAL_HOSTS; i++)
		if (spawn_agent(rck, NULL, &pid[i], &port[i])) {
			while (i--) {
				kill(pid[i], SIGTERM);
				waitpid(pid[i], NULL, 0);
			}
			return -1;
		}
	return 0;
}

static void stop_agents(const pid_t *pid)
{
	for (unsigned int i = 0; i < REAL_HOSTS; i++) {
		kill(pid[i], SIGTERM);
		waitpid(pid[i], NULL, 0);
	}
}

static struct rck_mesh_config *real_config(const unsigned int *port)
{
	struct rck_mesh_config *c;

	rck_mesh_config_new(&c);
	for (unsigned int i = 0; i < REAL_HOSTS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "real%u", i);
		rck_mesh_config_add_host(c, name, "127.0.0.1", port[i], NULL, 0);
	}
	rck_mesh_config_set_tests(c, 1u << RCK_MESH_TEST_BW);
	rck_mesh_config_set_probe(c, RCK_PROBE_TRANSPORT_TCP, 65536, 0, REAL_PROBE_S);
	rck_mesh_config_set_deadline(c, 60);
	return c;
}

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
int bench_sweep_real(struct rck_ctx *ctx, const char *rck)
{
	const unsigned int n = REAL_HOSTS;
	pid_t pid[REAL_HOSTS];
	unsigned int port[REAL_HOSTS];
	struct rck_mesh_config *c;
	struct rck_mesh *m = NULL;
	double first = INFINITY, last = 0, ref = 0;
	unsigned int ok = 0;
	int rc = 0;

	if (start_agents(rck, pid, port)) {
		fprintf(stderr, "mesh-bench: %u real agents did not start\n", n);
		return -1;
	}
	c = real_config(port);
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
	stop_agents(pid);
	return rc;
}


#define SPREAD_TARGET_MS 10.0

/* incast:3 among the 4 agents: each receiver's 3 senders start together;
 * the spread of a group is its latest start minus its earliest (the
 * coordinator's view of each probe's start: its report's end less the
 * probe's own length). */
int bench_incast_spread(struct rck_ctx *ctx, const char *rck)
{
	pid_t pid[REAL_HOSTS];
	unsigned int port[REAL_HOSTS], groups = 0, ok = 0;
	struct rck_mesh_config *c;
	struct rck_mesh *m = NULL;
	double worst = 0, sum = 0;
	int rc = 0;

	if (start_agents(rck, pid, port)) {
		fprintf(stderr, "mesh-bench: %u real agents did not start\n", REAL_HOSTS);
		return -1;
	}
	c = real_config(port);
	rck_mesh_config_set_pattern(c, "incast:3", NULL, 0, NULL);
	if (rck_mesh_run(ctx, c, &m)) {
		fprintf(stderr, "mesh-bench: the incast sweep of real agents failed\n");
		rc = -1;
	}
	for (unsigned int dst = 0; m && dst < rck_mesh_nic_count(m); dst++) {
		double lo = INFINITY, hi = -INFINITY;

		for (unsigned int i = 0; i < rck_mesh_cell_count(m); i++) {
			struct rck_mesh_meas me = { .size = sizeof(me) };
			unsigned int d;

			rck_mesh_cell(m, i, NULL, NULL, &d);
			if (d != dst || rck_mesh_cell_meas(m, i, 0, &me) || me.status != RCK_MESH_OK)
				continue;
			ok++;
			lo = fmin(lo, me.start_s);
			hi = fmax(hi, me.start_s);
		}
		if (hi >= lo) {
			groups++;
			worst = fmax(worst, hi - lo);
			sum += hi - lo;
		}
	}
	if (!rc && ok != REAL_HOSTS * (REAL_HOSTS - 1)) {
		fprintf(stderr, "mesh-bench: %u of %u incast probes ok among real agents\n", ok,
			REAL_HOSTS * (REAL_HOSTS - 1));
		rc = -1;
	}
	if (!rc)
		printf("incast:3 on %u real agents: %u groups, start spread mean %.2f ms, worst %.2f ms; "
		       "worst / the %.0f ms target: %.2f\n", REAL_HOSTS, groups, sum / groups * 1000, worst * 1000,
		       SPREAD_TARGET_MS, worst * 1000 / SPREAD_TARGET_MS);
	rck_mesh_free(m);
	rck_mesh_config_free(c);
	stop_agents(pid);
	return rc;
}
