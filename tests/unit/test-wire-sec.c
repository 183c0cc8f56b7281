/* Frames after the handshake: sealed both ways; a changed, replayed,
 * reordered, dropped or reflected frame fails its check, and through a
 * tampering proxy on loopback the coordinator reports the agent's host
 * with "integrity", never with a result, and a probe fails naming it. */
#include <errno.h>
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
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rocecheck/rocecheck.h>

#include "../../mesh/agent_proto.h"
#include "wire.h"

#define KEY "wire-sec-key-0123456789abcdef"

static const struct wire_proto P = { .magic = 0x54455354, .version = 3, .max_payload = 1024,
				     .name = "test" };

/* Two secured readers of one session, as a handshake leaves them. */
static void pair(struct wire_frame *cli, struct wire_frame *srv)
{
	uint8_t sn[WIRE_NONCE_LEN], sn2[WIRE_NONCE_LEN], cn[WIRE_NONCE_LEN], chal[64], auth[128];
	size_t clen, alen;

	assert_int_equal(wire_auth_challenge(sn, chal, sizeof(chal), &clen), 0);
	assert_int_equal(wire_auth_answer(&P, (const uint8_t *)KEY, strlen(KEY), chal, clen, sn2, cn,
					  auth, sizeof(auth), &alen), 0);
	wire_frame_init(cli, &P);
	wire_frame_init(srv, &P);
	assert_int_equal(wire_frame_secure_client(cli, &P, (const uint8_t *)KEY, strlen(KEY), sn, cn), 0);
	assert_int_equal(wire_frame_secure_server(srv, &P, (const uint8_t *)KEY, strlen(KEY), sn, auth,
						  alen), 0);
}

struct sealed {
	uint8_t b[256];
	size_t len;
};

static void seal(struct wire_frame *from, uint16_t type, const char *text, struct sealed *s)
{
	size_t n = strlen(text);

	assert_true(wire_sealed_len(n) <= sizeof(s->b));
	assert_int_equal(wire_seal(from->sec, &P, type, text, n, s->b), 0);
	s->len = wire_sealed_len(n);
}

/* Feed one sealed frame to @to: 1 (whole and checked), or its error. */
static int feed(struct wire_frame *to, const struct sealed *s)
{
	size_t off = 0, used;
	int rc = 0;

	wire_frame_next(to);
	while (off < s->len) {
		rc = wire_frame_put(to, s->b + off, s->len - off, &used);
		off += used;
		if (rc)
			break;
	}
	return rc;
}

static void test_roundtrip(void **state)
{
	struct wire_frame c, s;
	struct sealed a;

	(void)state;
	pair(&c, &s);
	for (int i = 0; i < 3; i++) {
		seal(&c, 10 + i, i == 1 ? "" : "hello agent", &a);
		assert_int_equal(feed(&s, &a), 1);
		assert_int_equal(s.h.type, 10 + i);
		assert_int_equal(s.h.length, i == 1 ? 0 : 11);
		if (i != 1)
			assert_memory_equal(s.payload, "hello agent", 11);
		seal(&s, 20 + i, "hello coordinator", &a);
		assert_int_equal(feed(&c, &a), 1);
		assert_int_equal(c.h.type, 20 + i);
		assert_memory_equal(c.payload, "hello coordinator", 17);
	}
	wire_frame_free(&c);
	wire_frame_free(&s);
}

/* Trimming a big frame's buffer mid-session keeps the keys: the next
 * frame is still opened, not read as plain. */
static void test_trim_keeps_keys(void **state)
{
	struct wire_frame c, s;
	struct sealed a;

	(void)state;
	pair(&c, &s);
	seal(&c, 10, "a big batch", &a);
	assert_int_equal(feed(&s, &a), 1);
	wire_frame_trim(&s, 0);
	assert_null(s.payload);
	assert_non_null(s.sec);
	seal(&c, 11, "the next one", &a);
	assert_int_equal(feed(&s, &a), 1);
	assert_int_equal(s.h.length, 12);
	assert_memory_equal(s.payload, "the next one", 12);
	wire_frame_free(&c);
	wire_frame_free(&s);
}

static void test_flip(void **state)
{
	struct sealed a, x;

	(void)state;
	for (size_t off = 6; off < wire_sealed_len(11); off++) {
		struct wire_frame c, s;

		if (off >= 8 && off < WIRE_HDR_LEN)
			continue; /* the length: another framing, refused or waited for */
		pair(&c, &s);
		seal(&c, 5, "hello agent", &a);
		for (unsigned int bit = 0; bit < 8; bit += 7) {
			x = a;
			x.b[off] ^= (uint8_t)(1u << bit);
			assert_int_equal(feed(&s, &x), WIRE_EINTEGRITY);
			wire_frame_free(&c);
			wire_frame_free(&s);
			pair(&c, &s);
			seal(&c, 5, "hello agent", &a);
		}
		wire_frame_free(&c);
		wire_frame_free(&s);
	}
}

static void test_replay_reorder_drop(void **state)
{
	struct wire_frame c, s;
	struct sealed a, b, r;
	char why[200];

	(void)state;
	/* Replayed. */
	pair(&c, &s);
	seal(&c, 1, "first", &a);
	assert_int_equal(feed(&s, &a), 1);
	assert_int_equal(feed(&s, &a), WIRE_EINTEGRITY);
	assert_non_null(strstr(wire_hdr_strerror(&P, &s.h, WIRE_EINTEGRITY, why, sizeof(why)), "integrity"));
	wire_frame_free(&c);
	wire_frame_free(&s);
	/* Reordered. */
	pair(&c, &s);
	seal(&c, 1, "first", &a);
	seal(&c, 2, "second", &b);
	assert_int_equal(feed(&s, &b), WIRE_EINTEGRITY);
	wire_frame_free(&c);
	wire_frame_free(&s);
	/* Dropped: the next one fails. */
	pair(&c, &s);
	seal(&c, 1, "first", &a);
	seal(&c, 2, "second", &b);
	(void)a;
	assert_int_equal(feed(&s, &b), WIRE_EINTEGRITY);
	wire_frame_free(&c);
	wire_frame_free(&s);
	/* Reflected: the server's own frame back to it. */
	pair(&c, &s);
	seal(&s, 1, "from the server", &r);
	assert_int_equal(feed(&s, &r), WIRE_EINTEGRITY);
	wire_frame_free(&c);
	wire_frame_free(&s);
	/* From another session. */
	pair(&c, &s);
	seal(&c, 1, "first", &a);
	wire_frame_free(&c);
	wire_frame_free(&s);
	pair(&c, &s);
	assert_int_equal(feed(&s, &a), WIRE_EINTEGRITY);
	/* No tag at all: a plain frame in a secured session. */
	wire_hdr_encode(r.b, &P, 1, 4);
	memcpy(r.b + WIRE_HDR_LEN, "abcd", 4);
	r.len = WIRE_HDR_LEN + 4;
	wire_frame_free(&c);
	wire_frame_free(&s);
	pair(&c, &s);
	assert_int_equal(feed(&s, &r), WIRE_EINTEGRITY);
	wire_frame_free(&c);
	wire_frame_free(&s);
}

/* ---- a tampering proxy in front of a real agent, a real coordinator ---- */

enum act { ACT_FLIP, ACT_REPLAY };

struct proxy {
	int lfd;
	unsigned int port, upstream;
	enum act act;
	pthread_t t;
};

static int dial(unsigned int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { .tv_sec = 10 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static bool read_all(int fd, uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = recv(fd, p, n, 0);

		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
	}
	return true;
}

struct pipe_arg {
	int from, to;
};

static void *raw_copy(void *arg)
{
	struct pipe_arg *pa = arg;
	uint8_t buf[4096];
	ssize_t n;

	while ((n = recv(pa->from, buf, sizeof(buf), 0)) > 0)
		if (send(pa->to, buf, (size_t)n, MSG_NOSIGNAL) != n)
			break;
	shutdown(pa->to, SHUT_WR);
	return NULL;
}

/* Agent -> coordinator frame by frame: #0 CHALLENGE, #1 AUTH_OK, #2 the
 * first sealed one (HOST) is tampered with. */
static void *proxy_main(void *arg)
{
	struct proxy *p = arg;
	struct pipe_arg up;
	pthread_t t;
	uint8_t *buf = malloc(AG_MAX_PAYLOAD + 64);
	int cfd = accept(p->lfd, NULL, NULL), afd = dial(p->upstream);
	struct timeval tv = { .tv_sec = 10 };

	setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	up = (struct pipe_arg){ .from = cfd, .to = afd };
	pthread_create(&t, NULL, raw_copy, &up);
	for (unsigned int i = 0; buf; i++) {
		uint32_t len;
		size_t n;

		if (!read_all(afd, buf, WIRE_HDR_LEN))
			break;
		len = (uint32_t)buf[8] << 24 | (uint32_t)buf[9] << 16 | (uint32_t)buf[10] << 8 | buf[11];
		if (len > AG_MAX_PAYLOAD + WIRE_TAG_LEN || !read_all(afd, buf + WIRE_HDR_LEN, len))
			break;
		n = WIRE_HDR_LEN + len;
		if (i == 2 && p->act == ACT_FLIP)
			buf[n / 2] ^= 0x20;
		if (i == 2 && p->act == ACT_REPLAY)
			send(cfd, buf, n, MSG_NOSIGNAL);
		send(cfd, buf, n, MSG_NOSIGNAL);
	}
	shutdown(cfd, SHUT_RDWR);
	shutdown(afd, SHUT_RDWR);
	pthread_join(t, NULL);
	close(cfd);
	close(afd);
	free(buf);
	return NULL;
}

struct agent_thr {
	struct rck_ctx *ctx;
	struct rck_agent *a;
	pthread_t t;
};

static void *agent_loop(void *arg)
{
	struct agent_thr *at = arg;

	while (rck_agent_serve(at->a, -1) != -EINTR)
		;
	return NULL;
}

static struct rck_ctx *new_ctx(void)
{
	struct rck_ctx *ctx;
	char root[4096];
	const char *fx = getenv("ROCECHECK_FIXTURES");

	assert_int_equal(rck_ctx_new(&ctx), 0);
	rck_ctx_set_log_priority(ctx, 0);
	rck_ctx_set_timeout_ms(ctx, 3000);
	snprintf(root, sizeof(root), "%s/sysfs/empty", fx ? fx : "tests/fixtures");
	rck_ctx_set_sysfs_root(ctx, root);
	return ctx;
}

static void agent_start(struct agent_thr *at)
{
	struct rck_agent_opts o;

	at->ctx = new_ctx();
	rck_agent_opts_init(&o);
	o.bind_addr = "127.0.0.1";
	o.port = 0;
	o.key = (const uint8_t *)KEY;
	o.key_len = strlen(KEY);
	o.idle_s = 5;
	assert_int_equal(rck_agent_new(at->ctx, &o, &at->a), 0);
	assert_int_equal(pthread_create(&at->t, NULL, agent_loop, at), 0);
}

static void agent_stop(struct agent_thr *at)
{
	rck_agent_stop(at->a);
	pthread_join(at->t, NULL);
	rck_agent_free(at->a);
	rck_ctx_free(at->ctx);
}

static void run_through_proxy(enum act act, const char *want)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	struct agent_thr ag[2];
	struct proxy px = { .act = act };
	struct rck_mesh_config *c;
	struct rck_mesh *m = NULL;
	struct rck_ctx *ctx = new_ctx();
	const char *why;

	for (int i = 0; i < 2; i++)
		agent_start(&ag[i]);
	px.upstream = rck_agent_port(ag[1].a);
	px.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(px.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(px.lfd, 4), 0);
	assert_int_equal(getsockname(px.lfd, (struct sockaddr *)&sa, &sl), 0);
	px.port = ntohs(sa.sin_port);
	assert_int_equal(pthread_create(&px.t, NULL, proxy_main, &px), 0);

	assert_int_equal(rck_mesh_config_new(&c), 0);
	assert_int_equal(rck_mesh_config_add_host(c, "h0", "127.0.0.1", rck_agent_port(ag[0].a), NULL, 0), 0);
	assert_int_equal(rck_mesh_config_add_host(c, "h1", "127.0.0.1", px.port, NULL, 0), 0);
	assert_int_equal(rck_mesh_config_set_key(c, (const uint8_t *)KEY, strlen(KEY)), 0);
	assert_int_equal(rck_mesh_config_set_probe(c, RCK_PROBE_TRANSPORT_TCP, 4096, 20, 0), 0);
	assert_int_equal(rck_mesh_run(ctx, c, &m), 0);
	why = rck_mesh_host_unreachable(m, 1);
	assert_non_null(why);
	if (!strstr(why, want))
		fail_msg("host h1: \"%s\", wanted \"%s\"", why, want);
	for (unsigned int i = 0; i < rck_mesh_cell_count(m); i++) {
		struct rck_mesh_meas meas = { .size = sizeof(meas) };

		assert_int_equal(rck_mesh_cell_meas(m, i, 0, &meas), 0);
		assert_int_not_equal(meas.status, RCK_MESH_OK);
	}
	rck_mesh_free(m);
	rck_mesh_config_free(c);
	rck_ctx_free(ctx);
	pthread_join(px.t, NULL);
	close(px.lfd);
	for (int i = 0; i < 2; i++)
		agent_stop(&ag[i]);
}

static void test_proxy_flip(void **state)
{
	(void)state;
	run_through_proxy(ACT_FLIP, "integrity");
}

static void test_proxy_replay(void **state)
{
	(void)state;
	run_through_proxy(ACT_REPLAY, "integrity");
}

struct probe_srv {
	struct rck_probe_server *srv;
	pthread_t t;
};

static void *probe_serve(void *arg)
{
	struct probe_srv *ps = arg;
	struct rck_probe_result *res = NULL;

	rck_probe_server_serve(ps->srv, 10000, &res);
	rck_probe_result_free(res);
	return NULL;
}

/* The probe exchange: the server's first sealed frame (ACCEPT) changed. */
static void test_probe_flip(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	struct rck_ctx *ctx = new_ctx();
	struct rck_probe_result *res = NULL;
	struct rck_probe_opts o;
	struct probe_srv ps;
	struct proxy px = { .act = ACT_FLIP };
	const char *why;

	(void)state;
	rck_probe_opts_init(&o);
	o.transport = RCK_PROBE_TRANSPORT_TCP;
	o.port = 0;
	o.msg_size = 4096;
	o.iters = 10;
	o.key = (const uint8_t *)KEY;
	o.key_len = strlen(KEY);
	assert_int_equal(rck_probe_server_new(ctx, &o, &ps.srv), 0);
	assert_int_equal(pthread_create(&ps.t, NULL, probe_serve, &ps), 0);
	px.upstream = rck_probe_server_port(ps.srv);
	px.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(px.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(px.lfd, 4), 0);
	assert_int_equal(getsockname(px.lfd, (struct sockaddr *)&sa, &sl), 0);
	px.port = ntohs(sa.sin_port);
	assert_int_equal(pthread_create(&px.t, NULL, proxy_main, &px), 0);
	o.port = px.port;
	assert_int_equal(rck_probe_run(ctx, "127.0.0.1", &o, &res), 0);
	assert_int_not_equal(rck_probe_result_status(res), RCK_PROBE_OK);
	why = rck_probe_result_error(res);
	assert_non_null(why);
	if (!strstr(why, "integrity"))
		fail_msg("probe: \"%s\", wanted integrity", why);
	rck_probe_result_free(res);
	pthread_join(px.t, NULL);
	close(px.lfd);
	pthread_join(ps.t, NULL);
	rck_probe_server_free(ps.srv);
	rck_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_trim_keeps_keys),
		cmocka_unit_test(test_flip),
		cmocka_unit_test(test_replay_reorder_drop),
		cmocka_unit_test(test_proxy_flip),
		cmocka_unit_test(test_proxy_replay),
		cmocka_unit_test(test_probe_flip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
