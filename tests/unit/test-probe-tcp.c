/* Probes end to end over loopback with the TCP transport, and every way a
 * peer can fail: refused, silent, garbage, another version, oversize. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include <rocecheck/rocecheck.h>

#include "probe-child.h"

static struct rck_probe_result *run(struct rck_ctx *ctx, unsigned int port, struct rck_probe_opts *o)
{
	struct rck_probe_result *res = NULL;

	o->transport = RCK_PROBE_TRANSPORT_TCP;
	o->port = port;
	assert_int_equal(rck_probe_run(ctx, "127.0.0.1", o, &res), 0);
	assert_non_null(res);
	return res;
}

static json_t *as_json(const struct rck_probe_result *res)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_error_t err;
	json_t *j;

	assert_non_null(f);
	assert_int_equal(rck_probe_result_write(res, f, RCK_FORMAT_JSON), 0);
	fclose(f);
	j = json_loads(buf, 0, &err);
	if (!j)
		fail_msg("bad JSON at %d: %s\n%s", err.position, err.text, buf);
	free(buf);
	return j;
}

static void expect_ok(const struct rck_probe_result *res)
{
	if (rck_probe_result_status(res) != RCK_PROBE_OK)
		fail_msg("probe failed: %s", rck_probe_result_error(res));
}

/* One session against the child server that must measure. */
static struct rck_probe_result *run_ok(struct rck_ctx *ctx, struct child *c, struct rck_probe_opts *o)
{
	struct rck_probe_result *res = run(ctx, c->port, o);

	expect_ok(res);
	return res;
}

static void done(struct rck_probe_result *res, struct child *c)
{
	rck_probe_result_free(res);
	assert_int_equal(session_status(c), RCK_PROBE_OK);
}

static void test_measurements(void **state)
{
	struct rck_ctx *ctx = new_ctx(3000);
	struct child c = serve(5);
	struct rck_probe_result *res;
	struct rck_probe_opts o;
	const double *samples;
	size_t n;
	double v, p50, w;
	json_t *j;

	(void)state;
	rck_probe_opts_init(&o);
	o.iters = 300;
	res = run_ok(ctx, &c, &o);
	assert_int_equal(rck_probe_result_transport(res), RCK_PROBE_TRANSPORT_TCP);
	assert_true(rck_probe_result_messages(res) == 300);
	assert_true(rck_probe_result_bytes(res) == 300 * 65536ull);
	assert_true(rck_probe_result_gbps(res) > 0);
	assert_true(rck_probe_result_seconds(res) > 0);
	assert_true(rck_probe_result_msg_rate(res) > 0);
	assert_int_equal(rck_probe_result_latency(res, RCK_LAT_P50, &v), -ENOENT);
	j = as_json(res);
	assert_string_equal(json_string_value(json_object_get(j, "transport")), "tcp");
	assert_string_equal(json_string_value(json_object_get(j, "status")), "ok");
	assert_int_equal(json_integer_value(json_object_get(j, "messages")), 300);
	json_decref(j);
	done(res, &c);

	rck_probe_opts_init(&o);
	o.test = RCK_PROBE_TEST_LAT;
	o.iters = 200;
	o.warmup = 5;
	res = run_ok(ctx, &c, &o);
	samples = rck_probe_result_latency_samples(res, &n);
	assert_int_equal(n, 200);
	assert_non_null(samples);
	assert_int_equal(rck_probe_result_latency(res, RCK_LAT_P50, &p50), 0);
	assert_int_equal(rck_probe_result_latency(res, RCK_LAT_MIN, &v), 0);
	assert_true(v > 0 && v <= p50);
	assert_int_equal(rck_probe_result_latency(res, RCK_LAT_MAX, &v), 0);
	assert_true(v >= p50);
	assert_int_equal(rck_probe_result_opts(res)->msg_size, 2);
	j = as_json(res);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "latency_us"), "samples")), 200);
	json_decref(j);
	done(res, &c);

	rck_probe_opts_init(&o);
	o.test = RCK_PROBE_TEST_SEND_LAT;
	o.qps = 3;
	o.msg_size = 4096;
	o.iters = 90;
	res = run_ok(ctx, &c, &o);
	assert_true(rck_probe_result_messages(res) == 90);
	done(res, &c);

	rck_probe_opts_init(&o);
	o.bidirectional = true;
	o.qps = 2;
	o.duration_s = 0.4;
	o.window_s = 0.05;
	res = run_ok(ctx, &c, &o);
	assert_true(rck_probe_result_bidirectional(res));
	assert_true(rck_probe_result_seconds(res) >= 0.4);
	assert_int_equal(rck_probe_result_worst_window_gbps(res, &w), 0);
	assert_true(w >= 0 && w <= 1000);
	j = as_json(res);
	assert_non_null(json_object_get(j, "tx"));
	assert_non_null(json_object_get(j, "rx"));
	json_decref(j);
	done(res, &c);

	rck_probe_opts_init(&o);
	o.test = RCK_PROBE_TEST_LAT;
	o.duration_s = 0.2;
	res = run_ok(ctx, &c, &o);
	assert_true(rck_probe_result_messages(res) > 10);
	assert_true(rck_probe_result_seconds(res) >= 0.2);
	done(res, &c);

	reap(&c);
	rck_ctx_free(ctx);
}

/* A peer that accepts one client, says @reply and waits for it to go. */
static pid_t fake_peer(const void *reply, size_t len, unsigned int *port)
{
	int lfd = listener(port);
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		char junk[4096];
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0 || write(fd, reply, len) != (ssize_t)len)
			_exit(1);
		while (read(fd, junk, sizeof(junk)) > 0)
			;
		_exit(0);
	}
	close(lfd);
	return pid;
}

static void expect_failure(unsigned int port, enum rck_probe_status want, const char *text, double max_s)
{
	struct rck_ctx *ctx = new_ctx(400);
	struct rck_probe_result *res;
	struct rck_probe_opts o;
	double t0 = now_s();

	rck_probe_opts_init(&o);
	o.iters = 10;
	res = run(ctx, port, &o);
	assert_true(now_s() - t0 < max_s);
	if (rck_probe_result_status(res) != want || !strstr(rck_probe_result_error(res), text))
		fail_msg("status %s, error '%s'; wanted %s with '%s'",
			 rck_probe_status_name(rck_probe_result_status(res)), rck_probe_result_error(res),
			 rck_probe_status_name(want), text);
	rck_probe_result_free(res);
	rck_ctx_free(ctx);
}

static void test_bad_peers(void **state)
{
	uint8_t hdr[XQ_HDR_LEN];
	unsigned int port;
	pid_t pid;
	int fd, ws;

	(void)state;
	/* Nobody listens. */
	fd = listener(&port);
	close(fd);
	expect_failure(port, RCK_PROBE_UNREACHABLE, "Connection refused", 2);

	/* A listener that never answers: the timeout, not a hang. */
	fd = listener(&port);
	expect_failure(port, RCK_PROBE_TIMEOUT, "no ACCEPT from", 3);
	close(fd);

	pid = fake_peer("HTTP/1.1 400 Bad Request\r\n\r\n", 28, &port);
	expect_failure(port, RCK_PROBE_PROTOCOL, "does not speak the rocecheck probe protocol", 3);
	assert_int_equal(waitpid(pid, &ws, 0), pid);

	put_hdr(hdr, 2, XQ_ACCEPT, 0);
	pid = fake_peer(hdr, sizeof(hdr), &port);
	expect_failure(port, RCK_PROBE_PROTOCOL, "version 2", 3);
	assert_int_equal(waitpid(pid, &ws, 0), pid);

	put_hdr(hdr, XQ_VERSION, XQ_ACCEPT, 1u << 24);
	pid = fake_peer(hdr, sizeof(hdr), &port);
	expect_failure(port, RCK_PROBE_PROTOCOL, "above the 65536-byte limit", 3);
	assert_int_equal(waitpid(pid, &ws, 0), pid);
}

/* Talk to our server by hand: whatever we send, it answers with an
 * ERROR of its own protocol version and ends the session. */
static void expect_server_error(const void *msg, size_t len, enum rck_probe_status want, const char *text)
{
	struct child c = serve(1);
	int fd = raw_connect(c.port);
	uint16_t type;
	union xq_msg m;

	assert_int_equal(write(fd, msg, len), (ssize_t)len);
	assert_int_equal(raw_recv(fd, &type, &m, 5000), 0);
	assert_int_equal(type, XQ_ERROR);
	assert_int_equal(m.error.status, want);
	if (!strstr(m.error.text, text))
		fail_msg("server said '%s', wanted '%s'", m.error.text, text);
	close(fd);
	assert_int_equal(session_status(&c), want);
	reap(&c);
}

static void test_server_refusals(void **state)
{
	static union xq_msg in;
	static uint8_t buf[XQ_HDR_LEN + XQ_MAX_PAYLOAD];
	uint8_t hdr[XQ_HDR_LEN];
	size_t len;

	(void)state;
	expect_server_error("GET / HTTP/1.0\r\n\r\n", 18, RCK_PROBE_PROTOCOL,
			    "does not speak the rocecheck probe protocol");
	put_hdr(hdr, 9, XQ_HELLO, 0);
	expect_server_error(hdr, sizeof(hdr), RCK_PROBE_PROTOCOL, "version 9");
	put_hdr(hdr, XQ_VERSION, XQ_HELLO, 1u << 30);
	expect_server_error(hdr, sizeof(hdr), RCK_PROBE_PROTOCOL, "above the 65536-byte limit");

	memset(&in, 0, sizeof(in));
	in.hello.p = (struct xq_params){ .transport = 1, .size = 64, .qps = 0, .tx_depth = 1, .iters = 1,
					 .window_us = 100000, .tclass = -1 };
	assert_int_equal(xq_encode(XQ_HELLO, &in, buf, sizeof(buf), &len), 0);
	expect_server_error(buf, len, RCK_PROBE_INVALID, "QP count 0 out of range");
	/* A HELLO whose payload is cut short (and its header says so). */
	put_hdr(buf, XQ_VERSION, XQ_HELLO, (uint32_t)(len - XQ_HDR_LEN - 4));
	expect_server_error(buf, len - 4, RCK_PROBE_PROTOCOL, "malformed HELLO");
}

static void test_option_refusals(void **state)
{
	struct rck_ctx *ctx = new_ctx(500);
	struct rck_probe_result *res = NULL;
	struct rck_probe_opts o;

	(void)state;
	rck_probe_opts_init(&o);
	o.qps = 0;
	assert_int_equal(rck_probe_run(ctx, "127.0.0.1", &o, &res), -EINVAL);
	rck_probe_opts_init(&o);
	o.iters = 5;
	o.duration_s = 1;
	assert_int_equal(rck_probe_run(ctx, "127.0.0.1", &o, &res), -EINVAL);
	rck_probe_opts_init(&o);
	o.transport = RCK_PROBE_TRANSPORT_TCP;
	o.cm = true;
	assert_int_equal(rck_probe_run(ctx, "127.0.0.1", &o, &res), -EINVAL);
	rck_probe_opts_init(&o);
	o.test = RCK_PROBE_TEST_LAT;
	o.bidirectional = true;
	assert_int_equal(rck_probe_run(ctx, "127.0.0.1", &o, &res), -EINVAL);
	rck_probe_opts_init(&o);
	o.udp_sport = 65535;
	o.qps = 2;
	assert_int_equal(rck_probe_run(ctx, "127.0.0.1", &o, &res), -EINVAL);
	rck_probe_opts_init(&o);
	o.size = 4;
	assert_int_equal(rck_probe_run(ctx, "127.0.0.1", &o, &res), -EINVAL);
	assert_null(res);
	/* Older callers' shorter structs are fine. */
	rck_probe_opts_init(&o);
	o.size = offsetof(struct rck_probe_opts, cm);
	o.transport = RCK_PROBE_TRANSPORT_TCP;
	o.port = 1;
	assert_int_equal(rck_probe_run(ctx, "127.0.0.1", &o, &res), 0);
	assert_int_equal(rck_probe_result_status(res), RCK_PROBE_UNREACHABLE);
	rck_probe_result_free(res);
	rck_ctx_free(ctx);
}

static void test_rdma_without_device(void **state)
{
	struct rck_ctx *ctx = new_ctx(1000);
	struct child c;
	struct rck_probe_result *res = NULL;
	struct rck_probe_opts o;

	(void)state;
	if (access("/sys/class/infiniband", F_OK) == 0)
		skip();
	c = serve(1);
	rck_probe_opts_init(&o);
	o.port = c.port;
	o.iters = 10;
	assert_int_equal(rck_probe_run(ctx, "127.0.0.1", &o, &res), 0);
	assert_int_equal(rck_probe_result_status(res), RCK_PROBE_RDMA);
	assert_non_null(strstr(rck_probe_result_error(res), "no RDMA device"));
	rck_probe_result_free(res);
	/* The client told the server why it gave up. */
	assert_int_equal(session_status(&c), RCK_PROBE_RDMA);
	reap(&c);
	rck_ctx_free(ctx);
}

/* Server and client in this process: a TCP probe on loopback measures, a
 * bad option is refused before anything listens, a bad address fails. */
static void test_loopback(void **state)
{
	struct rck_ctx *ctx = new_ctx(2000);
	struct rck_probe_result *res = NULL;
	struct rck_probe_opts o;

	(void)state;
	rck_probe_opts_init(&o);
	o.transport = RCK_PROBE_TRANSPORT_TCP;
	o.iters = 16;
	assert_int_equal(rck_probe_loopback(ctx, "127.0.0.1", &o, &res), 0);
	assert_int_equal(rck_probe_result_status(res), RCK_PROBE_OK);
	assert_true(rck_probe_result_gbps(res) > 0);
	rck_probe_result_free(res);
	res = NULL;
	o.qps = 100000;
	assert_int_equal(rck_probe_loopback(ctx, "127.0.0.1", &o, &res), -EINVAL);
	assert_null(res);
	o.qps = 1;
	assert_true(rck_probe_loopback(ctx, "192.0.2.1", &o, &res) < 0);
	assert_int_equal(rck_probe_loopback(ctx, NULL, &o, &res), -EINVAL);
	assert_null(res);
	rck_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_measurements),
		cmocka_unit_test(test_bad_peers),
		cmocka_unit_test(test_server_refusals),
		cmocka_unit_test(test_option_refusals),
		cmocka_unit_test(test_rdma_without_device),
		cmocka_unit_test(test_loopback),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
