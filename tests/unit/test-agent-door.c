/* The agent's front door on loopback: idle and slow peers never keep a
 * coordinator out, stop ends the agent within a second, two keys while one
 * is rolled, a coordinator that dies after SERVE, "busy" and only "busy". */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include <rocecheck/rocecheck.h>

#include "../../mesh/agent_proto.h"
#include "../../mesh/agent_tasks_proto.h"
#include "wire.h"

#define KEY "agent-door-key-0123456789"
#define KEY2 "agent-door-next-key-98765"
#define KEY3 "agent-door-third-key-5555"
#define SEC 1000000000ull

static uint64_t slow(uint64_t ns)
{
	const char *w = getenv("ROCECHECK_WRAP");

	return w && strstr(w, "valgrind") ? ns * 5 : ns;
}

static struct rck_ctx *new_ctx(void)
{
	struct rck_ctx *ctx;
	char root[4096];
	const char *fx = getenv("ROCECHECK_FIXTURES");

	assert_int_equal(rck_ctx_new(&ctx), 0);
	rck_ctx_set_log_priority(ctx, 0);
	snprintf(root, sizeof(root), "%s/sysfs/empty", fx ? fx : "tests/fixtures");
	rck_ctx_set_sysfs_root(ctx, root);
	return ctx;
}

struct inproc {
	struct rck_ctx *ctx;
	struct rck_agent *a;
	pthread_t t;
	int last_rc;
};

static void *serve_loop(void *arg)
{
	struct inproc *ip = arg;

	while ((ip->last_rc = rck_agent_serve(ip->a, -1)) != -EINTR)
		;
	return NULL;
}

static void start(struct inproc *ip, const char *key, const char *key_next)
{
	struct rck_agent_opts o;

	ip->ctx = new_ctx();
	rck_agent_opts_init(&o);
	o.bind_addr = "127.0.0.1";
	o.port = 0;
	o.key = (const uint8_t *)key;
	o.key_len = strlen(key);
	if (key_next) {
		o.key_next = (const uint8_t *)key_next;
		o.key_next_len = strlen(key_next);
	}
	assert_int_equal(rck_agent_new(ip->ctx, &o, &ip->a), 0);
	assert_int_equal(pthread_create(&ip->t, NULL, serve_loop, ip), 0);
}

/* Stop the agent; returns how long it took to end. */
static uint64_t stop(struct inproc *ip)
{
	uint64_t t0 = wire_now_ns();

	rck_agent_stop(ip->a);
	pthread_join(ip->t, NULL);
	t0 = wire_now_ns() - t0;
	rck_agent_free(ip->a);
	rck_ctx_free(ip->ctx);
	return t0;
}

static int dial(unsigned int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static int send_msg(int fd, struct wire_frame *f, const struct ag_msg *m)
{
	uint8_t buf[1024];
	size_t len;

	assert_int_equal(ag_encode(m, buf, sizeof(buf), &len), 0);
	return wire_send_sec(fd, &ag_proto, f->sec, m->type, buf, len, wire_now_ns() + SEC);
}

/* Authenticate with @key: the connection, its frame reader secured. */
static int login(unsigned int port, const char *key, struct wire_frame *f, int *rc)
{
	char err[200];
	int fd = dial(port);

	wire_frame_init(f, &ag_proto);
	*rc = wire_auth_client_sec(fd, &ag_proto, (const uint8_t *)key, strlen(key),
				   wire_now_ns() + slow(2 * SEC), f, err, sizeof(err));
	return fd;
}

/* A whole coordinator session with @key: DESCRIBE answered, CLOSE. */
static int session(unsigned int port, const char *key)
{
	struct ag_msg m = { .type = AG_DESCRIBE };
	struct wire_frame f;
	char buf[16];
	int rc, fd = login(port, key, &f, &rc);

	if (!rc && !(rc = send_msg(fd, &f, &m))) {
		rc = wire_recv(fd, &f, wire_now_ns() + slow(2 * SEC));
		rc = rc == 1 && f.h.type == AG_HOST ? 0 : rc == 1 ? -EPROTO : rc;
	}
	if (!rc) {
		m.type = AG_CLOSE;
		send_msg(fd, &f, &m);
		(void)!recv(fd, buf, sizeof(buf), 0);
	}
	wire_frame_free(&f);
	close(fd);
	return rc;
}

static void test_idle_peers(void **state)
{
	struct inproc ip;
	int idle[3], flood[80], slowfd;
	uint64_t t0;

	(void)state;
	start(&ip, KEY, NULL);
	for (int i = 0; i < 3; i++)
		idle[i] = dial(rck_agent_port(ip.a));
	/* A slow peer: half a header, then nothing. */
	slowfd = dial(rck_agent_port(ip.a));
	assert_int_equal(send(slowfd, "RCKA\0", 5, 0), 5);
	t0 = wire_now_ns();
	assert_int_equal(session(rck_agent_port(ip.a), KEY), 0);
	assert_true(wire_now_ns() - t0 < slow(2 * SEC));
	/* More silent peers than the door holds: the oldest go, we get in. */
	for (int i = 0; i < 80; i++)
		flood[i] = dial(rck_agent_port(ip.a));
	assert_int_equal(session(rck_agent_port(ip.a), KEY), 0);
	/* Stop with peers still waiting at the door: within a second. */
	assert_true(stop(&ip) < slow(SEC));
	for (int i = 0; i < 80; i++)
		close(flood[i]);
	for (int i = 0; i < 3; i++)
		close(idle[i]);
	close(slowfd);
}

static void test_two_keys(void **state)
{
	struct inproc ip;

	(void)state;
	start(&ip, KEY, KEY2);
	assert_int_equal(session(rck_agent_port(ip.a), KEY), 0);
	assert_int_equal(session(rck_agent_port(ip.a), KEY2), 0);
	assert_int_equal(session(rck_agent_port(ip.a), KEY3), -EACCES);
	assert_int_equal(session(rck_agent_port(ip.a), KEY2), 0);
	stop(&ip);
}

/* SERVE with a long timeout; returns the connection after SERVING came. */
static int serve_request(unsigned int port, struct wire_frame *f)
{
	struct ag_msg m;
	int rc, fd = login(port, KEY, f, &rc);

	assert_int_equal(rc, 0);
	ag_msg_clear(&m);
	m.type = AG_SERVE;
	m.id = 7;
	m.test = RCK_PROBE_TEST_BW;
	m.transport = RCK_PROBE_TRANSPORT_TCP;
	m.size = 4096;
	m.iters = 10;
	m.timeout_ms = 60000;
	assert_int_equal(send_msg(fd, f, &m), 0);
	assert_int_equal(wire_recv(fd, f, wire_now_ns() + slow(5 * SEC)), 1);
	assert_int_equal(f->h.type, AG_SERVING);
	wire_frame_next(f);
	return fd;
}

static void test_coordinator_dies_after_serve(void **state)
{
	struct wire_frame f;
	struct inproc ip;
	uint64_t t0;
	int fd;

	(void)state;
	start(&ip, KEY, NULL);
	fd = serve_request(rck_agent_port(ip.a), &f);
	close(fd); /* the coordinator dies before its RUN */
	wire_frame_free(&f);
	t0 = wire_now_ns();
	assert_int_equal(session(rck_agent_port(ip.a), KEY), 0);
	assert_true(wire_now_ns() - t0 < slow(2 * SEC));
	/* A stop during a SERVE waiting for its client: within a second. */
	fd = serve_request(rck_agent_port(ip.a), &f);
	assert_true(stop(&ip) < slow(SEC));
	wire_frame_free(&f);
	close(fd);
}

static void test_busy_only(void **state)
{
	struct ag_msg *m = malloc(sizeof(*m));
	struct wire_frame f, g;
	struct inproc ip;
	int rc, fd, fd2;

	(void)state;
	start(&ip, KEY, NULL);
	fd = login(rck_agent_port(ip.a), KEY, &f, &rc);
	assert_int_equal(rc, 0);
	fd2 = dial(rck_agent_port(ip.a));
	wire_frame_init(&g, &ag_proto);
	assert_int_equal(wire_recv(fd2, &g, wire_now_ns() + slow(2 * SEC)), 1);
	assert_int_equal(g.h.type, AG_ERROR);
	assert_int_equal(ag_decode(g.h.type, g.payload, g.h.length, m), 0);
	assert_int_equal(m->status, AG_ERR_BUSY);
	assert_string_equal(m->text, "busy");
	wire_frame_free(&g);
	close(fd2);
	/* CLOSE and reconnect at once, 20 times: never "busy". */
	for (int i = 0; i < 20; i++) {
		ag_msg_clear(m);
		m->type = AG_CLOSE;
		send_msg(fd, &f, m);
		wire_frame_free(&f);
		fd2 = login(rck_agent_port(ip.a), KEY, &f, &rc);
		assert_int_equal(rc, 0);
		close(fd);
		fd = fd2;
	}
	wire_frame_free(&f);
	close(fd);
	free(m);
	stop(&ip);
}

/* A PLAN is held to the limits SERVE and RUN are. */
static void test_plan_limits(void **state)
{
	struct ag_plan *pl = calloc(1, sizeof(*pl));
	struct ag_planned *rep = calloc(1, sizeof(*rep));
	uint8_t *buf = malloc(AG_MAX_PAYLOAD);
	struct wire_frame f;
	struct inproc ip;
	size_t len;
	int rc, fd;

	(void)state;
	start(&ip, KEY, NULL);
	for (int k = 0; k < 2; k++) {
		fd = login(rck_agent_port(ip.a), KEY, &f, &rc);
		assert_int_equal(rc, 0);
		memset(pl, 0, sizeof(*pl));
		pl->transport = RCK_PROBE_TRANSPORT_TCP;
		pl->size = 4096;
		pl->iters = k == 0 ? 1000000000000ull : 10;
		pl->timeout_ms = k == 1 ? 49u * 86400u * 1000u : 2000;
		pl->n_nics = 1;
		pl->nics[0].port = 1;
		assert_int_equal(ag_plan_encode(pl, buf, AG_MAX_PAYLOAD, &len), 0);
		assert_int_equal(wire_send_sec(fd, &ag_proto, f.sec, AG_PLAN, buf, len, wire_now_ns() + SEC), 0);
		assert_int_equal(wire_recv(fd, &f, wire_now_ns() + slow(2 * SEC)), 1);
		assert_int_equal(f.h.type, AG_PLANNED);
		assert_int_equal(ag_planned_decode(f.payload, f.h.length, rep), 0);
		assert_int_equal(rep->status, RCK_PROBE_INVALID);
		assert_non_null(strstr(rep->text, "above"));
		wire_frame_free(&f);
		close(fd);
	}
	free(buf);
	free(pl);
	free(rep);
	stop(&ip);
}

/* Numbers from agents: NaN, infinite or negative ones are protocol errors. */
static void test_numbers(void **state)
{
	static const double bad[][4] = { { NAN, NAN, NAN, 1 },        { INFINITY, NAN, NAN, 1 },
					 { 10, -1, NAN, 1 },          { NAN, 5, INFINITY, 1 },
					 { 10, NAN, NAN, -INFINITY }, { -0.5, NAN, NAN, 1 } };
	struct ag_msg *m = calloc(1, sizeof(*m)), *d = calloc(1, sizeof(*d));
	struct ag_tres r[1];
	uint8_t *buf = malloc(AG_MAX_PAYLOAD);
	size_t len, n;
	bool last;

	(void)state;
	for (size_t i = 0; i <= sizeof(bad) / sizeof(bad[0]); i++) {
		bool good = i == sizeof(bad) / sizeof(bad[0]);

		ag_msg_clear(m);
		m->type = AG_RESULT;
		m->status = RCK_PROBE_OK;
		m->gbps = good ? 95.5 : bad[i][0];
		m->lat_p50_us = good ? NAN : bad[i][1];
		m->lat_p99_us = good ? NAN : bad[i][2];
		m->seconds = good ? 1 : bad[i][3];
		assert_int_equal(ag_encode(m, buf, AG_MAX_PAYLOAD, &len), 0);
		assert_int_equal(ag_decode(AG_RESULT, buf, len, d), good ? 0 : -EBADMSG);
		memset(r, 0, sizeof(r));
		r[0].role = AG_ROLE_RUN;
		r[0].status = RCK_PROBE_OK;
		r[0].gbps = m->gbps;
		r[0].lat_p50_us = m->lat_p50_us;
		r[0].lat_p99_us = m->lat_p99_us;
		r[0].seconds = m->seconds;
		assert_int_equal(ag_tres_encode(r, 1, true, buf, AG_MAX_PAYLOAD, &len), 0);
		assert_int_equal(ag_tres_decode(buf, len, r, 1, &n, &last), good ? 0 : -EBADMSG);
	}
	/* A serve end reports counters, no rate: fine. */
	memset(r, 0, sizeof(r));
	r[0].role = AG_ROLE_SERVE;
	r[0].status = RCK_PROBE_OK;
	r[0].gbps = r[0].lat_p50_us = r[0].lat_p99_us = NAN;
	assert_int_equal(ag_tres_encode(r, 1, true, buf, AG_MAX_PAYLOAD, &len), 0);
	assert_int_equal(ag_tres_decode(buf, len, r, 1, &n, &last), 0);
	/* A failed probe carries no numbers: fine. */
	ag_msg_clear(m);
	m->type = AG_RESULT;
	m->status = RCK_PROBE_TIMEOUT;
	m->gbps = m->lat_p50_us = m->lat_p99_us = NAN;
	assert_int_equal(ag_encode(m, buf, AG_MAX_PAYLOAD, &len), 0);
	assert_int_equal(ag_decode(AG_RESULT, buf, len, d), 0);
	/* A port rate of +inf. */
	ag_msg_clear(m);
	m->type = AG_HOST;
	m->n_nics = 1;
	snprintf(m->nics[0].device, sizeof(m->nics[0].device), "mlx5_0");
	m->nics[0].port = 1;
	m->nics[0].gid_index = -1;
	m->nics[0].rate_gbps = INFINITY;
	assert_int_equal(ag_encode(m, buf, AG_MAX_PAYLOAD, &len), 0);
	assert_int_equal(ag_decode(AG_HOST, buf, len, d), -EBADMSG);
	m->nics[0].rate_gbps = 100;
	assert_int_equal(ag_encode(m, buf, AG_MAX_PAYLOAD, &len), 0);
	assert_int_equal(ag_decode(AG_HOST, buf, len, d), 0);
	free(buf);
	free(m);
	free(d);
}

/* Hosts without RDMA NICs under the agents' schedule: said so, current
 * agents never blamed as too old. */
static void test_no_nics(void **state)
{
	struct rck_mesh_config *c;
	struct rck_mesh *m = NULL;
	struct inproc ip[2];
	struct rck_ctx *ctx = new_ctx();

	(void)state;
	assert_int_equal(rck_mesh_config_new(&c), 0);
	for (int i = 0; i < 2; i++) {
		start(&ip[i], KEY, NULL);
		assert_int_equal(rck_mesh_config_add_host(c, i ? "h1" : "h0", "127.0.0.1",
							  rck_agent_port(ip[i].a), NULL, 0), 0);
	}
	rck_ctx_set_timeout_ms(ctx, 3000);
	assert_int_equal(rck_mesh_config_set_key(c, (const uint8_t *)KEY, strlen(KEY)), 0);
	assert_int_equal(rck_mesh_config_set_schedule(c, RCK_MESH_SCHEDULE_AGENTS), 0);
	assert_int_equal(rck_mesh_config_set_probe(c, RCK_PROBE_TRANSPORT_RDMA, 4096, 20, 0), 0);
	rck_mesh_run(ctx, c, &m);
	for (unsigned int h = 0; m && h < rck_mesh_host_count(m); h++) {
		const char *why = rck_mesh_host_unreachable(m, h);

		if (!why || strstr(why, "predates") || !strstr(why, "no RDMA NIC"))
			fail_msg("host %u: \"%s\"", h, why ? why : "(none)");
	}
	rck_mesh_free(m);
	rck_mesh_config_free(c);
	rck_ctx_free(ctx);
	for (int i = 0; i < 2; i++)
		stop(&ip[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_peers),
		cmocka_unit_test(test_two_keys),
		cmocka_unit_test(test_coordinator_dies_after_serve),
		cmocka_unit_test(test_busy_only),
		cmocka_unit_test(test_plan_limits),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_no_nics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
