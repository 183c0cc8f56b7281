/* Hostile peers against the probe server and client over loopback: idle
 * and half-open connections, TICK floods, endless runs, oversize requests,
 * a second client while a session runs, a listener out of descriptors. */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "probe-child.h"

#define TIMEOUT_MS 1500

static struct rck_probe_result *run_tcp(unsigned int port, struct rck_probe_opts *o, unsigned int timeout_ms)
{
	struct rck_ctx *ctx = new_ctx(timeout_ms);
	struct rck_probe_result *res = NULL;

	o->transport = RCK_PROBE_TRANSPORT_TCP;
	o->port = port;
	assert_int_equal(rck_probe_run(ctx, "127.0.0.1", o, &res), 0);
	assert_non_null(res);
	rck_ctx_free(ctx);
	return res;
}

static void expect_status(const struct rck_probe_result *res, enum rck_probe_status want, const char *text)
{
	const char *err = rck_probe_result_error(res);

	if (rck_probe_result_status(res) != want || (text && (!err || !strstr(err, text))))
		fail_msg("status %s, error '%s'; wanted %s with '%s'",
			 rck_probe_status_name(rck_probe_result_status(res)), err ? err : "",
			 rck_probe_status_name(want), text ? text : "");
}

/* True when the server closed @fd (after an ERROR, or without) within @ms. */
static int closed_within(int fd, int ms)
{
	double until = now_s() + ms / 1e3;
	char b[256];

	while (now_s() < until) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, (int)((until - now_s()) * 1000) + 1) != 1)
			continue;
		n = recv(fd, b, sizeof(b), 0);
		if (n <= 0)
			return 1;
	}
	return 0;
}

/* Five connections that never say HELLO (one sends half a header) do not
 * keep a real client waiting; each is dropped at the HELLO deadline. */
static void test_idle_connections(void **state)
{
	struct rck_probe_opts so, o;
	struct rck_probe_result *res;
	struct child c;
	int idle[5];
	double t0, served, dropped;

	(void)state;
	rck_probe_opts_init(&so);
	so.hello_s = 0.5;
	c = serve_opts(2, &so, 10000, NULL);
	for (int i = 0; i < 5; i++)
		idle[i] = raw_connect(c.port);
	assert_int_equal(send(idle[4], "RCKP\0", 5, MSG_NOSIGNAL), 5);
	t0 = now_s();
	rck_probe_opts_init(&o);
	o.iters = 50;
	res = run_tcp(c.port, &o, (unsigned int)(1000 * slow()));
	served = now_s() - t0;
	expect_status(res, RCK_PROBE_OK, NULL);
	rck_probe_result_free(res);
	assert_int_equal(session_status(&c), RCK_PROBE_OK);
	print_message("real client behind 5 idle connections served in %.3f s (its timeout 1 s)\n", served);
	assert_true(served < 1.0 * slow());
	for (int i = 0; i < 5; i++) {
		assert_true(closed_within(idle[i], (int)(1500 * slow())));
		close(idle[i]);
	}
	dropped = now_s() - t0;
	print_message("idle connections dropped after %.3f s (HELLO deadline 0.5 s)\n", dropped);
	assert_true(dropped > 0.45 && dropped < 1.5 * slow());
	res = run_tcp(c.port, &o, (unsigned int)(1000 * slow()));
	expect_status(res, RCK_PROBE_OK, NULL);
	rck_probe_result_free(res);
	assert_int_equal(session_status(&c), RCK_PROBE_OK);
	reap(&c);
}

/* A fake server that takes the HELLO and then only sends TICKs: the
 * client gives up at its timeout, TICKs or not. */
static void test_client_against_tick_flood(void **state)
{
	struct rck_probe_result *res;
	struct rck_probe_opts o;
	unsigned int port;
	int lfd = listener(&port), ws;
	double t0, took;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = accept(lfd, NULL, NULL);
		double until = now_s() + 4;

		while (fd >= 0 && now_s() < until) {
			uint8_t hdr[XQ_HDR_LEN];

			put_hdr(hdr, XQ_VERSION, XQ_TICK, 0);
			if (send(fd, hdr, sizeof(hdr), MSG_NOSIGNAL) != sizeof(hdr))
				break;
			usleep(50000);
		}
		_exit(0);
	}
	close(lfd);
	rck_probe_opts_init(&o);
	o.iters = 10;
	t0 = now_s();
	res = run_tcp(port, &o, 500);
	took = now_s() - t0;
	print_message("client against a TICK flood gave up after %.3f s (timeout 0.5 s)\n", took);
	expect_status(res, RCK_PROBE_TIMEOUT, "no ACCEPT");
	assert_true(took < 0.5 + 0.7 * slow());
	rck_probe_result_free(res);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &ws, 0), pid);
}

/* A hand-made client: HELLO, ACCEPT, its TCP stream attached. */
struct fake {
	int ctl, stream;
};

static struct fake fake_session(unsigned int port, const struct xq_params *p)
{
	static union xq_msg m;
	struct fake f;
	uint16_t type;

	f.ctl = raw_connect(port);
	memset(&m, 0, sizeof(m));
	m.hello.p = *p;
	raw_send(f.ctl, XQ_HELLO, &m);
	assert_int_equal(raw_recv(f.ctl, &type, &m, 3000), 0);
	if (type != XQ_ACCEPT)
		fail_msg("server answered %s: %s", xq_type_name(type), type == XQ_ERROR ? m.error.text : "");
	f.stream = raw_connect(port);
	m.attach.cookie = m.accept.cookie;
	m.attach.index = 0;
	raw_send(f.stream, XQ_ATTACH, &m);
	return f;
}

/* Send TICKs on @f.ctl (and with @ping, ping-pong 2 bytes on the stream)
 * until the server closes the control connection; seconds it took. */
static double flood_until_closed(struct fake *f, bool ping, double max_s)
{
	double t0 = now_s(), next = 0;
	uint8_t hdr[XQ_HDR_LEN], b[2] = { 1, 2 };

	put_hdr(hdr, XQ_VERSION, XQ_TICK, 0);
	while (now_s() - t0 < max_s) {
		struct pollfd p = { .fd = f->ctl, .events = POLLIN };

		if (now_s() >= next) {
			if (send(f->ctl, hdr, sizeof(hdr), MSG_NOSIGNAL) != sizeof(hdr))
				break;
			next = now_s() + 0.05;
		}
		if (poll(&p, 1, ping ? 0 : 10) == 1)
			break;
		if (ping && (send(f->stream, b, 2, MSG_NOSIGNAL) != 2 ||
			     recv(f->stream, b, 2, MSG_WAITALL) != 2))
			break;
	}
	return now_s() - t0;
}

static void fake_close(struct fake *f)
{
	close(f->ctl);
	close(f->stream);
}

/* A client that floods TICKs instead of sending START: the session ends
 * at the server's timeout. */
static void test_server_against_tick_flood(void **state)
{
	struct xq_params p = { .test = RCK_PROBE_TEST_BW, .transport = RCK_PROBE_TRANSPORT_TCP, .size = 64,
			       .qps = 1, .tx_depth = 1, .iters = 10, .window_us = 100000, .tclass = -1 };
	struct child c = serve_opts(1, NULL, TIMEOUT_MS, NULL);
	struct fake f = fake_session(c.port, &p);
	double took = flood_until_closed(&f, false, 6);

	(void)state;
	print_message("server ended a TICK-flooding session after %.3f s (timeout %.1f s)\n", took,
		      TIMEOUT_MS / 1e3);
	assert_true(took < TIMEOUT_MS / 1e3 + 0.7 * slow());
	assert_int_equal(session_status(&c), RCK_PROBE_TIMEOUT);
	fake_close(&f);
	reap(&c);
}

/* A client that asks for a billion pings and keeps pinging (and ticking):
 * the server ends the run at its --max-duration plus the timeout. */
static void test_server_ends_endless_run(void **state)
{
	struct xq_params p = { .test = RCK_PROBE_TEST_LAT, .transport = RCK_PROBE_TRANSPORT_TCP, .size = 2,
			       .qps = 1, .tx_depth = 1, .iters = 1000000000, .window_us = 100000, .tclass = -1 };
	struct rck_probe_opts so;
	union xq_msg m;
	uint16_t type;
	struct child c;
	struct fake f;
	double took;

	(void)state;
	rck_probe_opts_init(&so);
	so.max_duration_s = 0.5;
	c = serve_opts(1, &so, TIMEOUT_MS, NULL);
	f = fake_session(c.port, &p);
	raw_send(f.ctl, XQ_START, NULL);
	assert_int_equal(raw_recv(f.ctl, &type, &m, 3000), 0);
	assert_int_equal(type, XQ_START);
	took = flood_until_closed(&f, true, 8);
	print_message("server ended an endless ping run after %.3f s (max duration 0.5 s + timeout %.1f s)\n",
		      took, TIMEOUT_MS / 1e3);
	assert_true(took > 0.4 && took < 0.5 + TIMEOUT_MS / 1e3 + 0.7 * slow());
	assert_int_equal(raw_recv(f.ctl, &type, &m, 1000), 0);
	assert_int_equal(type, XQ_ERROR);
	assert_non_null(strstr(m.error.text, "max-duration"));
	assert_int_equal(session_status(&c), RCK_PROBE_TIMEOUT);
	fake_close(&f);
	reap(&c);
}

/* HELLO above a cap: the answer to it is the refusal naming the cap, so
 * nothing was allocated or opened for it (ACCEPT would come after). */
static void expect_refused(unsigned int port, const struct xq_params *p, const char *cap)
{
	static union xq_msg m;
	uint16_t type;
	int fd = raw_connect(port);

	memset(&m, 0, sizeof(m));
	m.hello.p = *p;
	raw_send(fd, XQ_HELLO, &m);
	assert_int_equal(raw_recv(fd, &type, &m, 3000), 0);
	assert_int_equal(type, XQ_ERROR);
	assert_int_equal(m.error.status, RCK_PROBE_INVALID);
	if (!strstr(m.error.text, cap))
		fail_msg("server said '%s', wanted '%s'", m.error.text, cap);
	close(fd);
}

static void test_caps(void **state)
{
	struct xq_params tcp = { .test = RCK_PROBE_TEST_LAT, .transport = RCK_PROBE_TRANSPORT_TCP,
				 .size = 1u << 30, .qps = 1, .tx_depth = 1, .iters = 10, .window_us = 100000,
				 .tclass = -1 };
	struct xq_params rdma = tcp;
	struct rck_probe_result *res;
	struct rck_probe_opts o;
	struct child c = serve_opts(5, NULL, TIMEOUT_MS, NULL);

	(void)state;
	/* The TCP pong side reads (and answers from) one whole message. */
	expect_refused(c.port, &tcp, "1073741824-byte messages on 1 QPs need 1073741824 bytes of buffers, "
		       "this server allows at most 67108864 (--max-size)");
	assert_int_equal(session_status(&c), RCK_PROBE_INVALID);
	rdma.test = RCK_PROBE_TEST_BW;
	rdma.transport = RCK_PROBE_TRANSPORT_RDMA;
	rdma.size = 64;
	rdma.qps = 256;
	rdma.tclass = 106;
	expect_refused(c.port, &rdma, "256 QPs asked, this server allows at most 16 (--max-qps)");
	assert_int_equal(session_status(&c), RCK_PROBE_INVALID);
	rdma.qps = 1;
	rdma.iters = 0;
	rdma.duration_ms = 3600000;
	expect_refused(c.port, &rdma, "(--max-duration)");
	assert_int_equal(session_status(&c), RCK_PROBE_INVALID);
	rdma.duration_ms = 0;
	rdma.iters = 10;
	/* Pinned: a tx and an rx region, each rounded up to pages. */
	rdma.size = (32u << 20) + 1;
	expect_refused(c.port, &rdma, "need 67117056 bytes of buffers, this server allows at most 67108864");
	assert_int_equal(session_status(&c), RCK_PROBE_INVALID);
	/* The library's client says it the same way. */
	rck_probe_opts_init(&o);
	o.test = RCK_PROBE_TEST_SEND_LAT;
	o.msg_size = 1u << 30;
	res = run_tcp(c.port, &o, TIMEOUT_MS);
	expect_status(res, RCK_PROBE_INVALID, "this server allows at most 67108864 (--max-size)");
	rck_probe_result_free(res);
	assert_int_equal(session_status(&c), RCK_PROBE_INVALID);
	reap(&c);
}

/* Server options out of range are refused by the library, with the reason. */
static void test_server_option_refusals(void **state)
{
	struct rck_ctx *ctx = new_ctx(1000);
	struct rck_probe_server *srv = NULL;
	struct rck_probe_opts o;

	(void)state;
	for (int i = 0; i < 4; i++) {
		rck_probe_opts_init(&o);
		o.port = 0;
		if (i == 0)
			o.max_qps = 0;
		else if (i == 1)
			o.max_duration_s = 1.0 / 0.0;
		else if (i == 2)
			o.max_size = 1;
		else
			o.hello_s = 0;
		assert_int_equal(rck_probe_server_new(ctx, &o, &srv), -EINVAL);
	}
	assert_null(srv);
	rck_ctx_free(ctx);
}

/* A second client while a session runs hears "server busy" at once, and
 * is served when it tries again after the first. */
static void test_busy(void **state)
{
	struct child c = serve_opts(2, NULL, 3000, NULL);
	struct rck_probe_result *res;
	struct rck_probe_opts o;
	double t0, took;
	int ws;
	pid_t first;

	(void)state;
	first = fork();
	assert_true(first >= 0);
	if (first == 0) {
		rck_probe_opts_init(&o);
		o.test = RCK_PROBE_TEST_LAT;
		o.duration_s = 1.2 * slow();
		res = run_tcp(c.port, &o, 3000);
		ws = rck_probe_result_status(res);
		rck_probe_result_free(res);
		_exit(ws);
	}
	usleep((useconds_t)(300000 * slow()));
	rck_probe_opts_init(&o);
	o.iters = 10;
	t0 = now_s();
	res = run_tcp(c.port, &o, 3000);
	took = now_s() - t0;
	print_message("second client answered after %.3f s\n", took);
	expect_status(res, RCK_PROBE_UNREACHABLE, "server busy");
	assert_true(took < 0.5 * slow());
	rck_probe_result_free(res);
	assert_int_equal(waitpid(first, &ws, 0), first);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == RCK_PROBE_OK);
	assert_int_equal(session_status(&c), RCK_PROBE_OK);
	res = run_tcp(c.port, &o, 3000);
	expect_status(res, RCK_PROBE_OK, NULL);
	rck_probe_result_free(res);
	assert_int_equal(session_status(&c), RCK_PROBE_OK);
	reap(&c);
}

/* The child server may open three more descriptors: accept() fails with
 * EMFILE while idle peers hold them, and the listener lives on. */
static void few_fds(void)
{
	int top = dup(0);
	struct rlimit rl;

	assert_true(top >= 0);
	close(top);
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = (rlim_t)top + 3;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

static void test_out_of_descriptors(void **state)
{
	struct rck_probe_result *res;
	struct rck_probe_opts so, o;
	struct child c;
	int idle[8];

	(void)state;
	rck_probe_opts_init(&so);
	so.hello_s = 0.2;
	c = serve_opts(1, &so, TIMEOUT_MS, few_fds);
	for (int i = 0; i < 8; i++)
		idle[i] = raw_connect(c.port);
	usleep((useconds_t)(700000 * slow()));
	for (int i = 0; i < 8; i++)
		close(idle[i]);
	usleep((useconds_t)(300000 * slow()));
	rck_probe_opts_init(&o);
	o.iters = 20;
	res = run_tcp(c.port, &o, (unsigned int)(1000 * slow()));
	expect_status(res, RCK_PROBE_OK, NULL);
	rck_probe_result_free(res);
	assert_int_equal(session_status(&c), RCK_PROBE_OK);
	reap(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_connections),
		cmocka_unit_test(test_client_against_tick_flood),
		cmocka_unit_test(test_server_against_tick_flood),
		cmocka_unit_test(test_server_ends_endless_run),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_server_option_refusals),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_out_of_descriptors),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
