/* The HTTP /metrics exporter on loopback: a page promtool accepts, other
 * paths and methods refused, slow and flooding clients survived. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "rocecheck/exporter.h"

/* promtool refuses a quantile label on a gauge: the RTT quantiles are a
 * summary (without _sum and _count, which promtool accepts). */
#define PAGE                                                                                       \
	"# HELP rocecheck_monitor_up The monitor runs.\n"                                          \
	"# TYPE rocecheck_monitor_up gauge\n"                                                      \
	"rocecheck_monitor_up 1\n"                                                                 \
	"# HELP rocecheck_monitor_rtt_seconds Probe round-trip time per peer.\n"                   \
	"# TYPE rocecheck_monitor_rtt_seconds summary\n"                                           \
	"rocecheck_monitor_rtt_seconds{device=\"mlx5_0\",port=\"1\",peer=\"node2/mlx5_0\","        \
	"quantile=\"0.5\"} 8.5e-06\n"                                                              \
	"rocecheck_monitor_rtt_seconds{device=\"mlx5_0\",port=\"1\",peer=\"node2/mlx5_0\","        \
	"quantile=\"0.99\"} 2.1e-05\n"                                                             \
	"# HELP rocecheck_monitor_probes_lost_total Probes without an answer.\n"                   \
	"# TYPE rocecheck_monitor_probes_lost_total counter\n"                                     \
	"rocecheck_monitor_probes_lost_total{device=\"mlx5_0\",port=\"1\",peer=\"node2/mlx5_0\"} 3\n"

static atomic_int scrapes;

static int render_page(void *arg, FILE *out)
{
	(void)arg;
	atomic_fetch_add(&scrapes, 1);
	return fputs(PAGE, out) < 0 ? -EIO : 0;
}

static int render_fail(void *arg, FILE *out)
{
	(void)arg;
	fputs("# half a page\n", out);
	return -EIO;
}

static int render_big(void *arg, FILE *out)
{
	(void)arg;
	for (int i = 0; i < 100000; i++)
		if (fprintf(out, "rocecheck_monitor_up{i=\"%d\"} 1\n", i) < 0)
			break;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int dial(unsigned int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { .tv_sec = 5 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* Send @req on a new connection and read the answer until the server
 * closes it or @timeout_ms passes. Returns the status code, or -1. */
static int http(unsigned int port, const char *req, char *resp, size_t cap, int timeout_ms)
{
	double end = now_s() + timeout_ms / 1000.0;
	size_t len = 0;
	int fd = dial(port), status = -1;

	resp[0] = '\0';
	if (fd < 0)
		return -1;
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req)) {
		close(fd);
		return -1;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)((end - now_s()) * 1000);
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) <= 0 || len + 1 >= cap)
			break;
		n = recv(fd, resp + len, cap - 1 - len, 0);
		if (n <= 0) {
			if (n == 0)
				status = 0;
			break;
		}
		len += (size_t)n;
	}
	close(fd);
	resp[len] = '\0';
	if (status == 0 && sscanf(resp, "HTTP/1.%*d %d", &status) != 1)
		status = -1;
	return status;
}

static const char *body_of(const char *resp)
{
	const char *b = strstr(resp, "\r\n\r\n");

	return b ? b + 4 : "";
}

static struct rck_exporter *start(rck_exporter_render_fn fn, unsigned int timeout_s, unsigned int max_conn)
{
	struct rck_exporter_config cfg;
	struct rck_exporter *e = NULL;

	rck_exporter_config_init(&cfg);
	cfg.addr = "127.0.0.1";
	cfg.render = fn;
	if (timeout_s)
		cfg.timeout_s = timeout_s;
	if (max_conn)
		cfg.max_connections = max_conn;
	assert_int_equal(rck_exporter_new(&cfg, &e), 0);
	assert_non_null(e);
	assert_true(rck_exporter_port(e) > 0);
	return e;
}

#define GET_METRICS "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"

static void promtool_check(const char *body)
{
	char path[] = "/tmp/test-exporter-XXXXXX", cmd[256];
	const char *ci = getenv("CI");
	int fd, rc;

	if (system("command -v promtool >/dev/null 2>&1") != 0) {
		if (ci && strcmp(ci, "true") == 0)
			fail_msg("promtool not installed (Debian package prometheus)");
		printf("promtool not installed: the page is not checked by it\n");
		return;
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, body, strlen(body)), (ssize_t)strlen(body));
	close(fd);
	snprintf(cmd, sizeof(cmd), "promtool check metrics <%s", path);
	rc = system(cmd);
	unlink(path);
	assert_int_equal(rc, 0);
}

static void test_metrics(void **state)
{
	static char resp[65536];
	struct rck_exporter *e = start(render_page, 0, 0);
	unsigned int port = rck_exporter_port(e);

	(void)state;
	assert_int_equal(http(port, GET_METRICS, resp, sizeof(resp), 5000), 200);
	assert_non_null(strcasestr(resp, "\r\nContent-Type: text/plain; version=0.0.4"));
	assert_string_equal(body_of(resp), PAGE);
	promtool_check(body_of(resp));
	/* A query string (Prometheus' params) is the same page. */
	assert_int_equal(http(port, "GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", resp,
			      sizeof(resp), 5000), 200);
	assert_string_equal(body_of(resp), PAGE);
	/* HTTP/1.0 without Host, and HEAD (headers alone). */
	assert_int_equal(http(port, "GET /metrics HTTP/1.0\r\n\r\n", resp, sizeof(resp), 5000), 200);
	assert_int_equal(http(port, "HEAD /metrics HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", resp,
			      sizeof(resp), 5000), 200);
	assert_string_equal(body_of(resp), "");
	rck_exporter_free(e);
}

static void test_refused(void **state)
{
	static const char *const paths[] = { "/", "/metricsx", "/metrics/", "/Metrics", "/favicon.ico" };
	static const char *const methods[] = { "POST", "PUT", "DELETE", "OPTIONS", "PATCH" };
	static char resp[65536];
	struct rck_exporter *e = start(render_page, 0, 0);
	unsigned int port = rck_exporter_port(e);
	char req[256];
	int before;

	(void)state;
	before = atomic_load(&scrapes);
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", paths[i]);
		assert_int_equal(http(port, req, resp, sizeof(resp), 5000), 404);
	}
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		snprintf(req, sizeof(req),
			 "%s /metrics HTTP/1.1\r\nHost: a\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello",
			 methods[i]);
		assert_int_equal(http(port, req, resp, sizeof(resp), 5000), 405);
		assert_non_null(strcasestr(resp, "\r\nAllow: GET, HEAD"));
	}
	/* Not HTTP at all, and headers past max_request: refused, never served. */
	assert_true(http(port, "HELLO\r\n\r\n", resp, sizeof(resp), 5000) != 200);
	{
		static const char head[] = "GET /metrics HTTP/1.1\r\nHost: a\r\nX-Big: ";
		size_t n = 64 * 1024, h = strlen(head);
		char *big = malloc(h + n + 8);

		assert_non_null(big);
		memcpy(big, head, h);
		memset(big + h, 'x', n);
		strcpy(big + h + n, "\r\n\r\n");
		assert_true(http(port, big, resp, sizeof(resp), 5000) != 200);
		free(big);
	}
	assert_int_equal(atomic_load(&scrapes), before);
	assert_int_equal(http(port, GET_METRICS, resp, sizeof(resp), 5000), 200);
	rck_exporter_free(e);
}

static void test_render_errors(void **state)
{
	static char resp[65536];
	struct rck_exporter_config cfg;
	struct rck_exporter *e = start(render_fail, 0, 0);

	(void)state;
	assert_int_equal(http(rck_exporter_port(e), GET_METRICS, resp, sizeof(resp), 5000), 500);
	assert_null(strstr(resp, "half a page"));
	rck_exporter_free(e);

	rck_exporter_config_init(&cfg);
	cfg.render = render_big;
	cfg.max_body = 64 * 1024;
	assert_int_equal(rck_exporter_new(&cfg, &e), 0);
	assert_int_equal(http(rck_exporter_port(e), GET_METRICS, resp, sizeof(resp), 5000), 500);
	rck_exporter_free(e);
}

static void test_config(void **state)
{
	static const char *const bad[] = { "localhost", "", "1.2.3", "::1]", "[::1", "fe80::1%lo", "127.0.0.1:80" };
	struct rck_exporter_config cfg;
	struct rck_exporter *e = NULL, *e2 = NULL;
	int rc;

	(void)state;
	rck_exporter_config_init(&cfg);
	assert_int_equal(rck_exporter_new(&cfg, &e), -EINVAL); /* no render callback */
	cfg.render = render_page;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cfg.addr = bad[i];
		assert_int_equal(rck_exporter_new(&cfg, &e), -EINVAL);
	}
	assert_null(e);
	cfg.addr = NULL;
	cfg.port = 70000;
	assert_int_equal(rck_exporter_new(&cfg, &e), -EINVAL);
	cfg.port = 0;
	cfg.max_connections = 0;
	assert_int_equal(rck_exporter_new(&cfg, &e), -EINVAL);
	cfg.max_connections = 32;
	cfg.max_request = 100;
	assert_int_equal(rck_exporter_new(&cfg, &e), -EINVAL);
	cfg.max_request = 16 * 1024;
	cfg.size = 8;
	assert_int_equal(rck_exporter_new(&cfg, &e), -EINVAL);
	cfg.size = sizeof(cfg);

	/* NULL is loopback; a second exporter on the same port is EADDRINUSE. */
	assert_int_equal(rck_exporter_new(&cfg, &e), 0);
	cfg.addr = "127.0.0.1";
	cfg.port = rck_exporter_port(e);
	assert_int_equal(rck_exporter_new(&cfg, &e2), -EADDRINUSE);
	assert_null(e2);
	rck_exporter_free(e);
	rck_exporter_free(NULL);

	/* IPv6 loopback, bracketed or not, where the host has it. */
	cfg.port = 0;
	cfg.addr = "[::1]";
	rc = rck_exporter_new(&cfg, &e);
	if (rc == -EADDRNOTAVAIL || rc == -EAFNOSUPPORT) {
		printf("no IPv6 loopback here: ::1 not served\n");
	} else {
		assert_int_equal(rc, 0);
		rck_exporter_free(e);
		cfg.addr = "::1";
		assert_int_equal(rck_exporter_new(&cfg, &e), 0);
		rck_exporter_free(e);
	}
}

/* Clients that connect and send nothing, or half a line, hold no one up:
 * a scrape is answered long before their timeout. */
static void test_slow_client(void **state)
{
	static char resp[65536];
	struct rck_exporter *e = start(render_page, 30, 0);
	unsigned int port = rck_exporter_port(e);
	int silent = dial(port), half = dial(port);
	double t0;

	(void)state;
	assert_true(silent >= 0 && half >= 0);
	assert_int_equal(send(half, "GET /metr", 9, MSG_NOSIGNAL), 9);
	t0 = now_s();
	assert_int_equal(http(port, GET_METRICS, resp, sizeof(resp), 5000), 200);
	assert_string_equal(body_of(resp), PAGE);
	assert_true(now_s() - t0 < 2.0);
	/* Freeing with them still open closes them and returns at once. */
	t0 = now_s();
	rck_exporter_free(e);
	assert_true(now_s() - t0 < 5.0);
	close(silent);
	close(half);
}

/* 300 connections at once, silent, half-sent or garbage, against 32 slots
 * and a 1 s idle timeout: the exporter lives, a scrape gets through while
 * they are still open (the idle ones time out), and at once when they go. */
static void test_flood(void **state)
{
	enum { FLOOD = 300 };
	/* half a request, and a TLS hello where HTTP is spoken */
	static const char half[] = "GET /metrics HTTP/1.1\r\nHo";
	static const char tls[] = "\x16\x03\x01\x02\x00garbage\r\n\r\n";
	static char resp[65536];
	struct rck_exporter *e = start(render_page, 1, 32);
	unsigned int port = rck_exporter_port(e);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fds[FLOOD], ok = 0;
	double t0, end;

	(void)state;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int i = 0; i < FLOOD; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		assert_true(fds[i] >= 0);
		if (connect(fds[i], (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS &&
		    errno != EAGAIN)
			fail_msg("connect %d: %s", i, strerror(errno));
		if (i % 3 == 1)
			(void)send(fds[i], half, sizeof(half) - 1, MSG_NOSIGNAL);
		else if (i % 3 == 2)
			(void)send(fds[i], tls, sizeof(tls) - 1, MSG_NOSIGNAL);
	}
	t0 = now_s();
	end = t0 + 15.0;
	while (now_s() < end) {
		if (http(port, GET_METRICS, resp, sizeof(resp), 2000) == 200) {
			ok = 1;
			break;
		}
		usleep(100 * 1000);
	}
	printf("scrape answered %.2f s into a flood of %d connections\n", now_s() - t0, FLOOD);
	assert_true(ok);
	assert_string_equal(body_of(resp), PAGE);
	for (int i = 0; i < FLOOD; i++)
		close(fds[i]);
	t0 = now_s();
	assert_int_equal(http(port, GET_METRICS, resp, sizeof(resp), 5000), 200);
	assert_true(now_s() - t0 < 2.0);
	rck_exporter_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_render_errors),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_slow_client),
		cmocka_unit_test(test_flood),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
