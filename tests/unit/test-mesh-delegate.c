/* The agents' schedule against fake agents: both ends' reports merged with
 * each end's counters; an old agent named as such; a silent one dropped. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <rocecheck/rocecheck.h>

#include "../../mesh/agent_tasks_proto.h"
#include "../../probes/sock.h"
#include "wire.h"

#define N 3
#define SEC 1000000000ull

static int send_msg(int fd, uint16_t type, const uint8_t *p, size_t len)
{
	return wire_send(fd, &ag_proto, type, p, len, wire_now_ns() + 5 * SEC);
}

/* Report every end: the run end with a rate and counter RX_PACKETS, the
 * serve end with TX_PACKETS, each 100 + the task id. */
static void report_all(int fd, const uint32_t *ends, size_t n, uint8_t *buf)
{
	static struct ag_tres r[AG_TRES_PER_FRAME];
	size_t k = 0, len;

	for (size_t i = 0; i <= n; i++) {
		if (k == AG_TRES_PER_FRAME || i == n) {
			if (ag_tres_encode(r, k, i == n, buf, AG_MAX_PAYLOAD, &len) ||
			    send_msg(fd, AG_TRES, buf, len))
				_exit(1);
			k = 0;
		}
		if (i == n)
			break;
		memset(&r[k], 0, sizeof(r[k]));
		r[k].id = ends[i] / 2;
		r[k].role = (uint8_t)(ends[i] % 2);
		r[k].gbps = r[k].role == AG_ROLE_RUN ? 25.0 : NAN;
		r[k].lat_p50_us = r[k].lat_p99_us = NAN;
		r[k].seconds = 0.01;
		r[k].n_ctr = 1;
		r[k].ctr[0].id = r[k].role == AG_ROLE_RUN ? RCK_CTR_RX_PACKETS : RCK_CTR_TX_PACKETS;
		r[k].ctr[0].value = 100 + r[k].id;
		k++;
	}
}

enum fake { FAKE_OK, FAKE_OLD, FAKE_SILENT };

/* A fake agent on @lfd: one session; FAKE_OLD closes it on PLAN as an agent
 * from before the schedule does, FAKE_SILENT never reports after GO. */
static void fake_agent(int lfd, enum fake mode)
{
	static struct ag_msg m;
	static struct ag_task chunk[AG_TASKS_PER_FRAME];
	static uint32_t ends[4096];
	uint8_t *buf = malloc(AG_MAX_PAYLOAD);
	struct wire_frame f;
	size_t n_ends = 0, n, len;
	int fd = (fcntl(lfd, F_SETFL, 0), accept(lfd, NULL, NULL));

	wire_frame_init(&f, &ag_proto);
	while (fd >= 0 && wire_recv(fd, &f, wire_now_ns() + 20 * SEC) == 1) {
		struct ag_planned pl = { .n = 1, .probe_port = { 1 } };

		switch (f.h.type) {
		case AG_DESCRIBE:
			ag_msg_clear(&m);
			m.type = AG_HOST;
			strcpy(m.text, "fake");
			m.n_nics = 1;
			memset(&m.nics[0], 0, sizeof(m.nics[0]));
			strcpy(m.nics[0].device, "fake0");
			m.nics[0].port = 1;
			m.nics[0].gid_index = -1;
			m.nics[0].counters = 1ull << RCK_CTR_RX_PACKETS | 1ull << RCK_CTR_TX_PACKETS;
			if (ag_encode(&m, buf, AG_MAX_PAYLOAD, &len) || send_msg(fd, AG_HOST, buf, len))
				_exit(1);
			break;
		case AG_PLAN:
			if (mode == FAKE_OLD)
				_exit(0);
			if (ag_planned_encode(&pl, buf, AG_MAX_PAYLOAD, &len) || send_msg(fd, AG_PLANNED, buf, len))
				_exit(1);
			break;
		case AG_TASKS:
			if (ag_tasks_decode(f.payload, f.h.length, chunk, AG_TASKS_PER_FRAME, &n))
				_exit(1);
			for (size_t i = 0; i < n && n_ends < 4096; i++)
				ends[n_ends++] = chunk[i].id * 2 + chunk[i].role;
			break;
		case AG_GO:
			if (mode != FAKE_SILENT)
				report_all(fd, ends, n_ends, buf);
			break;
		case AG_DROP: /* a peer gone, or the coordinator's keepalive */
			break;
		default: /* CLOSE */
			_exit(0);
		}
		wire_frame_next(&f);
	}
	_exit(0);
}

static pid_t spawn(enum fake mode, unsigned int *port)
{
	int lfd;
	pid_t pid;

	assert_int_equal(psock_listen("127.0.0.1", 0, &lfd, port), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		fake_agent(lfd, mode);
	close(lfd);
	return pid;
}

/* Fake agents f0..f2, f1 of @mode. */
static struct rck_mesh *sweep(enum fake mode, unsigned int timeout_ms, pid_t *pid)
{
	struct rck_mesh_config *c;
	struct rck_ctx *ctx;
	struct rck_mesh *m = NULL;
	unsigned int port;

	assert_int_equal(rck_ctx_new(&ctx), 0);
	rck_ctx_set_log_priority(ctx, getenv("V") ? 7 : 0);
	rck_ctx_set_timeout_ms(ctx, timeout_ms);
	assert_int_equal(rck_mesh_config_new(&c), 0);
	for (int i = 0; i < N; i++) {
		char name[16];

		pid[i] = spawn(i == 1 ? mode : FAKE_OK, &port);
		snprintf(name, sizeof(name), "f%d", i);
		assert_int_equal(rck_mesh_config_add_host(c, name, "127.0.0.1", port, NULL, 0), 0);
	}
	assert_int_equal(rck_mesh_config_set_schedule(c, RCK_MESH_SCHEDULE_AGENTS), 0);
	assert_int_equal(rck_mesh_config_set_schedule(c, (enum rck_mesh_schedule)7), -EINVAL);
	assert_int_equal(rck_mesh_config_set_deadline(c, 30), 0);
	assert_int_equal(rck_mesh_run(ctx, c, &m), 0);
	rck_mesh_config_free(c);
	rck_ctx_free(ctx);
	for (int i = 0; i < N; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], NULL, 0);
	}
	return m;
}

static void test_merge(void **state)
{
	pid_t pid[N];
	struct rck_mesh *m = sweep(FAKE_OK, 5000, pid);

	(void)state;
	assert_int_equal(rck_mesh_cell_count(m), N * (N - 1));
	for (unsigned int i = 0; i < rck_mesh_cell_count(m); i++) {
		struct rck_mesh_meas me = { .size = sizeof(me) };
		uint64_t src_rx, src_tx, dst_rx, dst_tx;

		assert_int_equal(rck_mesh_cell_meas(m, i, 0, &me), 0);
		assert_int_equal(me.status, RCK_MESH_OK);
		assert_true(me.gbps == 25.0);
		assert_int_equal(rck_mesh_cell_counter(m, i, 0, RCK_MESH_SRC, RCK_CTR_RX_PACKETS, &src_rx), 0);
		assert_int_equal(rck_mesh_cell_counter(m, i, 0, RCK_MESH_SRC, RCK_CTR_TX_PACKETS, &src_tx), 0);
		assert_int_equal(rck_mesh_cell_counter(m, i, 0, RCK_MESH_DST, RCK_CTR_RX_PACKETS, &dst_rx), 0);
		assert_int_equal(rck_mesh_cell_counter(m, i, 0, RCK_MESH_DST, RCK_CTR_TX_PACKETS, &dst_tx), 0);
		/* The run end's counter at the source, the serve end's at the
		 * destination, both of the same task. */
		assert_true(src_rx >= 100 && src_tx == 0);
		assert_true(dst_tx == src_rx && dst_rx == 0);
	}
	rck_mesh_free(m);
}

static void test_old_agent(void **state)
{
	pid_t pid[N];
	struct rck_mesh *m = sweep(FAKE_OLD, 5000, pid);
	const char *why;
	unsigned int ok = 0;

	(void)state;
	why = rck_mesh_host_unreachable(m, 1);
	for (unsigned int h = 0; getenv("V") && h < N; h++)
		fprintf(stderr, "host %u: %s\n", h, rck_mesh_host_unreachable(m, h));
	assert_non_null(why);
	assert_non_null(strstr(why, "predates"));
	assert_null(rck_mesh_host_unreachable(m, 0));
	for (unsigned int i = 0; i < rck_mesh_cell_count(m); i++) {
		struct rck_mesh_meas me = { .size = sizeof(me) };

		assert_int_equal(rck_mesh_cell_meas(m, i, 0, &me), 0);
		ok += me.status == RCK_MESH_OK;
	}
	/* f0 <-> f2 both ways. */
	assert_int_equal(ok, 2);
	rck_mesh_free(m);
}

/* An agent that takes its list and never reports: dead after the silence
 * bound (3 timeouts + 1 s here), the sweep ends without a deadline. */
static void test_silent_agent(void **state)
{
	pid_t pid[N];
	uint64_t t0 = wire_now_ns();
	struct rck_mesh *m = sweep(FAKE_SILENT, 1000, pid);
	const char *why = rck_mesh_host_unreachable(m, 1);
	unsigned int ok = 0, unreachable = 0;

	(void)state;
	assert_non_null(why);
	assert_non_null(strstr(why, "reported nothing"));
	assert_true(wire_now_ns() - t0 < 20 * SEC);
	for (unsigned int i = 0; i < rck_mesh_cell_count(m); i++) {
		struct rck_mesh_meas me = { .size = sizeof(me) };

		assert_int_equal(rck_mesh_cell_meas(m, i, 0, &me), 0);
		ok += me.status == RCK_MESH_OK;
		unreachable += me.status == RCK_MESH_UNREACHABLE;
	}
	assert_int_equal(ok, 2);
	assert_int_equal(unreachable, 4);
	rck_mesh_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_old_agent),
		cmocka_unit_test(test_silent_agent),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
