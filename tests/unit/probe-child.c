/* Test helpers for the probes: a server in a child process reporting each
 * session's status through a pipe, and hand-made protocol peers. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "probe-child.h"

struct rck_ctx *new_ctx(unsigned int timeout_ms)
{
	struct rck_ctx *ctx;

	assert_int_equal(rck_ctx_new(&ctx), 0);
	assert_int_equal(rck_ctx_set_timeout_ms(ctx, timeout_ms), 0);
	return ctx;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double slow(void)
{
	const char *w = getenv("ROCECHECK_WRAP");

	return w && strstr(w, "valgrind") ? 8 : 1;
}

static void child_main(unsigned int sessions, const struct rck_probe_opts *opts, unsigned int timeout_ms,
		       void (*setup)(void), int port_fd, int status_fd)
{
	struct rck_ctx *ctx = new_ctx(timeout_ms);
	struct rck_probe_server *srv;
	struct rck_probe_opts o;
	unsigned int port = 0;

	if (opts)
		o = *opts;
	else
		rck_probe_opts_init(&o);
	o.port = 0;
	o.bind_addr = "127.0.0.1";
	if (rck_probe_server_new(ctx, &o, &srv) == 0)
		port = rck_probe_server_port(srv);
	if (write(port_fd, &port, sizeof(port)) != sizeof(port) || !port)
		_exit(1);
	if (setup)
		setup();
	for (unsigned int i = 0; i < sessions; i++) {
		struct rck_probe_result *res;
		uint8_t st = 0xff;

		if (rck_probe_server_serve(srv, 10000, &res) == 0) {
			st = (uint8_t)rck_probe_result_status(res);
			rck_probe_result_free(res);
		}
		if (write(status_fd, &st, 1) != 1)
			_exit(1);
	}
	rck_probe_server_free(srv);
	rck_ctx_free(ctx);
	_exit(0);
}

struct child serve_opts(unsigned int sessions, const struct rck_probe_opts *o, unsigned int timeout_ms,
			void (*setup)(void))
{
	struct child c = { 0 };
	int pfd[2], sfd[2];

	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(pipe(sfd), 0);
	c.pid = fork();
	assert_true(c.pid >= 0);
	if (c.pid == 0)
		child_main(sessions, o, timeout_ms, setup, pfd[1], sfd[1]);
	close(pfd[1]);
	close(sfd[1]);
	assert_int_equal(read(pfd[0], &c.port, sizeof(c.port)), sizeof(c.port));
	assert_true(c.port > 0);
	close(pfd[0]);
	c.status_fd = sfd[0];
	return c;
}

int session_status(struct child *c)
{
	struct pollfd p = { .fd = c->status_fd, .events = POLLIN };
	uint8_t st;

	assert_int_equal(poll(&p, 1, 15000), 1);
	assert_int_equal(read(c->status_fd, &st, 1), 1);
	return st;
}

void reap(struct child *c)
{
	int ws;

	assert_int_equal(waitpid(c->pid, &ws, 0), c->pid);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	close(c->status_fd);
}

int listener(unsigned int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

int raw_connect(unsigned int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

void put_hdr(uint8_t *b, uint16_t version, uint16_t type, uint32_t len)
{
	const uint32_t magic = XQ_MAGIC;

	for (int i = 0; i < 4; i++) {
		b[i] = (uint8_t)(magic >> (24 - 8 * i));
		b[8 + i] = (uint8_t)(len >> (24 - 8 * i));
	}
	b[4] = (uint8_t)(version >> 8);
	b[5] = (uint8_t)version;
	b[6] = (uint8_t)(type >> 8);
	b[7] = (uint8_t)type;
}

void raw_send(int fd, enum xq_type type, const union xq_msg *m)
{
	static uint8_t buf[XQ_HDR_LEN + XQ_MAX_PAYLOAD];
	size_t len;

	assert_int_equal(xq_encode(type, m, buf, sizeof(buf), &len), 0);
	assert_int_equal(send(fd, buf, len, MSG_NOSIGNAL), (ssize_t)len);
}

/* Read @len bytes within @ms in all. */
static int read_full(int fd, uint8_t *b, size_t len, double until)
{
	size_t got = 0;

	while (got < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)((until - now_s()) * 1000);
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) != 1)
			return -1;
		n = recv(fd, b + got, len - got, 0);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

int raw_recv(int fd, uint16_t *type, union xq_msg *m, int ms)
{
	static uint8_t payload[XQ_MAX_PAYLOAD];
	double until = now_s() + ms / 1e3;
	uint8_t hdr[XQ_HDR_LEN];
	struct xq_hdr h;

	if (read_full(fd, hdr, sizeof(hdr), until))
		return -1;
	assert_int_equal(xq_decode_hdr(hdr, &h), 0);
	if (read_full(fd, payload, h.length, until))
		return -1;
	assert_int_equal(xq_decode(h.type, payload, h.length, m), 0);
	*type = h.type;
	return 0;
}
