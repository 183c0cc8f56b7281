/* The probe exchange protocol: codec round trips and every refusal, and the
 * control channel's behaviour towards silent, garbled or foreign peers. */
#include <errno.h>
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

#include "../../probes/chan.h"
#include "../../probes/clock.h"
#include "../../probes/exchange.h"

#define BUF (XQ_HDR_LEN + XQ_MAX_PAYLOAD)

static uint8_t buf[BUF];

static void sample_hello(struct xq_hello *h)
{
	memset(h, 0, sizeof(*h));
	h->p = (struct xq_params){ .test = 1, .transport = 0, .flags = XQ_F_CM, .sl = 3, .size = 65536,
				   .qps = 3, .tx_depth = 128, .iters = 200, .warmup = 16,
				   .window_us = 100000, .tclass = 106, .mtu = 1024,
				   .flow_label = 0x12345, .udp_sport = 0 };
	snprintf(h->ep.device, sizeof(h->ep.device), "rxe0");
	h->ep.ib_port = 1;
	h->ep.gid[10] = h->ep.gid[11] = 0xff;
	h->ep.gid[12] = 10;
	h->ep.gid[15] = 2;
	h->ep.gid_index = 1;
	h->ep.active_mtu = 1024;
	h->ep.rkey = 0xdeadbeef;
	h->ep.addr = 0x7f0012345000ull;
	h->ep.len = 65536 * 3;
	h->ep.n_qps = 3;
	for (int i = 0; i < 3; i++)
		h->ep.qp[i] = (struct xq_qp){ .qpn = 17 + (uint32_t)i, .psn = 0xabcdef - (uint32_t)i };
}

static void sample_stats(struct xq_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->bytes = 13107200;
	st->msgs = 200;
	st->ns = 1712345678;
	st->has_worst = 1;
	st->worst_gbps = 0.0551;
	st->has_lat = 1;
	for (int i = 0; i < XQ_LAT_STATS; i++)
		st->lat[i] = 100.5 + i;
	st->lat_count = 200;
	st->tclass = 106;
	st->mtu = 1024;
	snprintf(st->device, sizeof(st->device), "mlx5_0");
	st->ib_port = 1;
	st->gid_index = 3;
	st->gid[0] = 0xfe;
}

/* Encode, check the header, decode: the result must equal the input. */
static void round_trip(enum xq_type type, const union xq_msg *in, union xq_msg *out)
{
	struct xq_hdr h;
	size_t len;

	assert_int_equal(xq_encode(type, in, buf, sizeof(buf), &len), 0);
	assert_true(len >= XQ_HDR_LEN);
	assert_int_equal(xq_decode_hdr(buf, &h), 0);
	assert_int_equal(h.type, type);
	assert_int_equal(h.length, len - XQ_HDR_LEN);
	assert_int_equal(xq_decode(h.type, buf + XQ_HDR_LEN, h.length, out), 0);
}

static void test_round_trips(void **state)
{
	static union xq_msg in, out;

	(void)state;
	memset(&in, 0, sizeof(in));
	sample_hello(&in.hello);
	round_trip(XQ_HELLO, &in, &out);
	assert_memory_equal(&in.hello.p, &out.hello.p, sizeof(in.hello.p));
	assert_string_equal(out.hello.ep.device, "rxe0");
	assert_int_equal(out.hello.ep.n_qps, 3);
	assert_int_equal(out.hello.ep.qp[2].qpn, 19);
	assert_int_equal(out.hello.ep.qp[2].psn, 0xabcdef - 2);
	assert_int_equal(out.hello.ep.rkey, 0xdeadbeef);
	assert_true(out.hello.ep.addr == 0x7f0012345000ull);
	assert_memory_equal(out.hello.ep.gid, in.hello.ep.gid, 16);
	assert_int_equal(out.hello.p.tclass, 106);

	memset(&in, 0, sizeof(in));
	in.hello.p.tclass = -1;
	round_trip(XQ_HELLO, &in, &out);
	assert_int_equal(out.hello.p.tclass, -1);

	memset(&in, 0, sizeof(in));
	in.accept.cookie = 0x0123456789abcdefull;
	in.accept.ep.cm_port = 40000;
	round_trip(XQ_ACCEPT, &in, &out);
	assert_true(out.accept.cookie == 0x0123456789abcdefull);
	assert_int_equal(out.accept.ep.cm_port, 40000);

	memset(&in, 0, sizeof(in));
	sample_stats(&in.result.st);
	in.result.ctr.present = 1;
	in.result.ctr.n = 2;
	in.result.ctr.c[0] = (struct xq_counter){ .id = 3, .state = 0, .delta = 13824 };
	in.result.ctr.c[1] = (struct xq_counter){ .id = 20, .state = 2, .delta = 0 };
	round_trip(XQ_RESULT, &in, &out);
	assert_true(out.result.st.ns == 1712345678);
	assert_true(out.result.st.lat[7] == 107.5);
	assert_true(out.result.st.worst_gbps == 0.0551);
	assert_string_equal(out.result.st.device, "mlx5_0");
	assert_int_equal(out.result.st.gid_index, 3);
	assert_int_equal(out.result.ctr.n, 2);
	assert_true(out.result.ctr.c[0].delta == 13824);
	assert_int_equal(out.result.ctr.c[1].state, 2);

	memset(&in, 0, sizeof(in));
	sample_stats(&in.done.st);
	round_trip(XQ_DONE, &in, &out);
	assert_true(out.done.st.bytes == 13107200);

	memset(&in, 0, sizeof(in));
	in.error.status = 3;
	snprintf(in.error.text, sizeof(in.error.text), "no reply within 10 ms");
	round_trip(XQ_ERROR, &in, &out);
	assert_int_equal(out.error.status, 3);
	assert_string_equal(out.error.text, "no reply within 10 ms");

	memset(&in, 0, sizeof(in));
	in.attach.cookie = 42;
	in.attach.index = 7;
	round_trip(XQ_ATTACH, &in, &out);
	assert_int_equal(out.attach.index, 7);

	round_trip(XQ_START, NULL, &out);
	round_trip(XQ_TICK, NULL, &out);
}

static void put_hdr(uint8_t *b, uint32_t magic, uint16_t version, uint16_t type, uint32_t len)
{
	b[0] = (uint8_t)(magic >> 24);
	b[1] = (uint8_t)(magic >> 16);
	b[2] = (uint8_t)(magic >> 8);
	b[3] = (uint8_t)magic;
	b[4] = (uint8_t)(version >> 8);
	b[5] = (uint8_t)version;
	b[6] = (uint8_t)(type >> 8);
	b[7] = (uint8_t)type;
	b[8] = (uint8_t)(len >> 24);
	b[9] = (uint8_t)(len >> 16);
	b[10] = (uint8_t)(len >> 8);
	b[11] = (uint8_t)len;
}

static void test_header_refusals(void **state)
{
	uint8_t h[XQ_HDR_LEN];
	struct xq_hdr hd;

	(void)state;
	memcpy(h, "SSH-2.0-Open", XQ_HDR_LEN);
	assert_int_equal(xq_decode_hdr(h, &hd), -EPROTO);
	put_hdr(h, XQ_MAGIC, 2, XQ_HELLO, 10);
	assert_int_equal(xq_decode_hdr(h, &hd), -EPROTONOSUPPORT);
	assert_int_equal(hd.version, 2);
	put_hdr(h, XQ_MAGIC, XQ_VERSION, XQ_HELLO, XQ_MAX_PAYLOAD + 1);
	assert_int_equal(xq_decode_hdr(h, &hd), -EMSGSIZE);
	put_hdr(h, XQ_MAGIC, XQ_VERSION, XQ_HELLO, XQ_MAX_PAYLOAD);
	assert_int_equal(xq_decode_hdr(h, &hd), 0);
}

static void test_payload_refusals(void **state)
{
	static union xq_msg in, out;
	size_t len;

	(void)state;
	memset(&in, 0, sizeof(in));
	sample_hello(&in.hello);
	assert_int_equal(xq_encode(XQ_HELLO, &in, buf, sizeof(buf), &len), 0);
	/* Every truncation of a HELLO is malformed; trailing bytes are not. */
	for (size_t n = 0; n < len - XQ_HDR_LEN; n++)
		assert_int_equal(xq_decode(XQ_HELLO, buf + XQ_HDR_LEN, n, &out), -EBADMSG);
	assert_int_equal(xq_decode(XQ_HELLO, buf + XQ_HDR_LEN, len - XQ_HDR_LEN + 9, &out), 0);
	assert_int_equal(xq_decode(99, buf + XQ_HDR_LEN, 4, &out), -ENOMSG);

	/* A QP count above the limit. */
	in.hello.ep.n_qps = XQ_MAX_QPS + 1;
	assert_int_equal(xq_encode(XQ_HELLO, &in, buf, sizeof(buf), &len), -EINVAL);

	/* A NaN where a double belongs. */
	memset(&in, 0, sizeof(in));
	sample_stats(&in.done.st);
	assert_int_equal(xq_encode(XQ_DONE, &in, buf, sizeof(buf), &len), 0);
	memset(buf + XQ_HDR_LEN + 26, 0xff, 8); /* worst_gbps: after 3 u64 and 2 u8 */
	assert_int_equal(xq_decode(XQ_DONE, buf + XQ_HDR_LEN, len - XQ_HDR_LEN, &out), -EBADMSG);

	/* A string longer than its field; control bytes come out as '?'. */
	memset(&in, 0, sizeof(in));
	in.error.status = 1;
	snprintf(in.error.text, sizeof(in.error.text), "bad\x1b[2Jthing");
	assert_int_equal(xq_encode(XQ_ERROR, &in, buf, sizeof(buf), &len), 0);
	assert_int_equal(xq_decode(XQ_ERROR, buf + XQ_HDR_LEN, len - XQ_HDR_LEN, &out), 0);
	assert_string_equal(out.error.text, "bad?[2Jthing");
	buf[XQ_HDR_LEN + 2] = 0x10; /* length 0x1000 + ... */
	assert_int_equal(xq_decode(XQ_ERROR, buf + XQ_HDR_LEN, len - XQ_HDR_LEN, &out), -EBADMSG);

	/* Too small a buffer. */
	assert_int_equal(xq_encode(XQ_START, NULL, buf, 4, &len), -ENOBUFS);
	memset(&in, 0, sizeof(in));
	sample_hello(&in.hello);
	assert_int_equal(xq_encode(XQ_HELLO, &in, buf, 64, &len), -ENOBUFS);
	assert_int_equal(xq_encode(XQ_HELLO, NULL, buf, sizeof(buf), &len), -EINVAL);
}

static void test_cm_pdata(void **state)
{
	struct xq_cm_pdata in = { .version = XQ_VERSION, .qp_index = 5, .cookie = 99, .rkey = 0x1234,
				  .addr = 0x7fff0000, .len = 4096 }, out;
	uint8_t b[64] = { 0 };

	(void)state;
	assert_int_equal(xq_encode_cm(&in, b, XQ_CM_PDATA_LEN), 0);
	assert_int_equal(xq_encode_cm(&in, b, XQ_CM_PDATA_LEN - 1), -ENOBUFS);
	assert_int_equal(xq_encode_cm(&in, b, XQ_CM_PDATA_LEN), 0);
	/* The CM pads private data with zeros. */
	assert_int_equal(xq_decode_cm(b, 56, &out), 0);
	assert_int_equal(out.qp_index, 5);
	assert_true(out.cookie == 99 && out.rkey == 0x1234 && out.addr == 0x7fff0000 && out.len == 4096);
	assert_int_equal(xq_decode_cm(b, XQ_CM_PDATA_LEN - 1, &out), -EBADMSG);
	b[5] = 9;
	assert_int_equal(xq_decode_cm(b, 56, &out), -EPROTONOSUPPORT);
	b[0] = 0;
	assert_int_equal(xq_decode_cm(b, 56, &out), -EPROTO);
	assert_int_equal(xq_decode_cm(b, 0, &out), -EPROTO);
}

/* A channel whose peer end we write by hand. */
struct pair {
	struct pchan c;
	int peer;
};

static void open_pair(struct pair *p, unsigned int timeout_ms)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	pchan_init(&p->c, sv[0], "the peer", timeout_ms);
	p->peer = sv[1];
}

static void close_pair(struct pair *p)
{
	pchan_close(&p->c);
	if (p->peer >= 0)
		close(p->peer);
}

static void peer_send(struct pair *p, const void *b, size_t n)
{
	assert_int_equal(write(p->peer, b, n), (ssize_t)n);
}

/* The channel's answer to a peer that sends @bytes (NULL: nothing) while we wait for @want. */
static void expect_chan_error(const void *bytes, size_t n, enum xq_type want, int rc,
			      enum rck_probe_status st, const char *text)
{
	struct perr e = { 0 };
	union xq_msg m;
	struct pair p;
	uint64_t t0;

	open_pair(&p, 200);
	if (bytes)
		peer_send(&p, bytes, n);
	t0 = pclock_ns();
	assert_int_equal(pchan_recv(&p.c, want, &m, &e), rc);
	assert_true(pclock_ns() - t0 < 2000000000ull);
	assert_int_equal(e.status, st);
	if (!strstr(e.msg, text))
		fail_msg("error '%s' lacks '%s'", e.msg, text);
	close_pair(&p);
}

static void test_chan_refusals(void **state)
{
	uint8_t h[XQ_HDR_LEN];

	(void)state;
	expect_chan_error(NULL, 0, XQ_ACCEPT, -ETIMEDOUT, RCK_PROBE_TIMEOUT,
			  "no ACCEPT from the peer within 200 ms");
	expect_chan_error("SSH-2.0-OpenSSH_9.2\r\n", 21, XQ_ACCEPT, -EPROTO, RCK_PROBE_PROTOCOL,
			  "does not speak the rocecheck probe protocol (it sent \"SSH-2.0-Open\")");
	put_hdr(h, XQ_MAGIC, 7, XQ_ACCEPT, 0);
	expect_chan_error(h, sizeof(h), XQ_ACCEPT, -EPROTONOSUPPORT, RCK_PROBE_PROTOCOL, "version 7");
	put_hdr(h, XQ_MAGIC, XQ_VERSION, XQ_RESULT, 0x7fffffff);
	expect_chan_error(h, sizeof(h), XQ_RESULT, -EMSGSIZE, RCK_PROBE_PROTOCOL, "2147483647-byte RESULT");
}

static void test_chan_truncated_and_closed(void **state)
{
	struct perr e = { 0 };
	uint8_t h[XQ_HDR_LEN];
	union xq_msg m;
	struct pair p;

	(void)state;
	open_pair(&p, 500);
	put_hdr(h, XQ_MAGIC, XQ_VERSION, XQ_DONE, 40);
	peer_send(&p, h, sizeof(h));
	peer_send(&p, "0123456789", 10);
	close(p.peer);
	p.peer = -1;
	assert_int_equal(pchan_recv(&p.c, XQ_DONE, &m, &e), -ECONNRESET);
	assert_int_equal(e.status, RCK_PROBE_UNREACHABLE);
	assert_non_null(strstr(e.msg, "closed the connection"));
	close_pair(&p);
}

static void test_chan_error_ticks_unexpected(void **state)
{
	static union xq_msg in, m;
	struct perr e = { 0 };
	struct pair p;
	size_t len;

	(void)state;
	open_pair(&p, 500);
	/* TICKs are skipped, then the peer's ERROR becomes ours. */
	assert_int_equal(xq_encode(XQ_TICK, NULL, buf, sizeof(buf), &len), 0);
	peer_send(&p, buf, len);
	peer_send(&p, buf, len);
	memset(&in, 0, sizeof(in));
	in.error.status = RCK_PROBE_RDMA;
	snprintf(in.error.text, sizeof(in.error.text), "completion error: IBV_WC_RETRY_EXC_ERR");
	assert_int_equal(xq_encode(XQ_ERROR, &in, buf, sizeof(buf), &len), 0);
	peer_send(&p, buf, len);
	assert_int_equal(pchan_recv(&p.c, XQ_RESULT, &m, &e), -EREMOTEIO);
	assert_int_equal(e.status, RCK_PROBE_RDMA);
	assert_string_equal(e.msg, "peer the peer: completion error: IBV_WC_RETRY_EXC_ERR");

	/* A well-formed message of the wrong type. */
	memset(&e, 0, sizeof(e));
	assert_int_equal(xq_encode(XQ_START, NULL, buf, sizeof(buf), &len), 0);
	peer_send(&p, buf, len);
	assert_int_equal(pchan_recv(&p.c, XQ_RESULT, &m, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "sent START while we waited for RESULT"));

	/* pchan_poll: nothing, then a TICK (still nothing), then DONE kept for recv. */
	memset(&e, 0, sizeof(e));
	assert_int_equal(pchan_poll(&p.c, &e), 0);
	assert_int_equal(xq_encode(XQ_TICK, NULL, buf, sizeof(buf), &len), 0);
	peer_send(&p, buf, len);
	assert_int_equal(pchan_poll(&p.c, &e), 0);
	memset(&in, 0, sizeof(in));
	in.done.st.msgs = 77;
	assert_int_equal(xq_encode(XQ_DONE, &in, buf, sizeof(buf), &len), 0);
	peer_send(&p, buf, len);
	assert_int_equal(pchan_poll(&p.c, &e), 1);
	assert_int_equal(pchan_poll(&p.c, &e), 1);
	assert_int_equal(pchan_recv(&p.c, XQ_DONE, &m, &e), 0);
	assert_true(m.done.st.msgs == 77);
	close_pair(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_header_refusals),
		cmocka_unit_test(test_payload_refusals),
		cmocka_unit_test(test_cm_pdata),
		cmocka_unit_test(test_chan_refusals),
		cmocka_unit_test(test_chan_truncated_and_closed),
		cmocka_unit_test(test_chan_error_ticks_unexpected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
