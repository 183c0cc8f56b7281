/* The monitor's UDP probe path on loopback, the clock and sendmmsg faked
 * where needed: a stall of the prober is no loss, short and refused sends. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rocecheck/rocecheck.h>

#include "../../monitor/monitor_int.h"

#define NS 1000000000ull

/* sendmmsg as the kernel may answer it (linked with --wrap=sendmmsg). */
enum { TX_REAL, TX_SHORT, TX_EAGAIN_ONCE, TX_FULL, TX_REFUSE_ID2 };
static int tx_mode;
static unsigned int tx_calls;
int __real_sendmmsg(int fd, struct mmsghdr *h, unsigned int n, int flags);
int __wrap_sendmmsg(int fd, struct mmsghdr *h, unsigned int n, int flags);

int __wrap_sendmmsg(int fd, struct mmsghdr *h, unsigned int n, int flags)
{
	const struct md_msg *first = h[0].msg_hdr.msg_iov->iov_base;

	tx_calls++;
	switch (tx_mode) {
	case TX_SHORT: /* fewer than asked, no error */
		return __real_sendmmsg(fd, h, n < 5 ? n : 5, flags);
	case TX_EAGAIN_ONCE:
		if (tx_calls == 1) {
			errno = EAGAIN;
			return -1;
		}
		break;
	case TX_FULL:
		errno = EAGAIN;
		return -1;
	case TX_REFUSE_ID2: /* the route refuses the ping to peer 2 */
		if (ntohl(first->type) == MD_PING && (ntohl(first->id) & ~MD_ID_DWELL) == 2) {
			errno = EHOSTUNREACH;
			return -1;
		}
		for (unsigned int k = 1; k < n; k++) {
			const struct md_msg *m = h[k].msg_hdr.msg_iov->iov_base;

			if (ntohl(m->type) == MD_PING && (ntohl(m->id) & ~MD_ID_DWELL) == 2)
				return __real_sendmmsg(fd, h, k, flags);
		}
		break;
	}
	return __real_sendmmsg(fd, h, n, flags);
}

struct pair {
	struct rck_ctx *ctx;
	struct rck_monitor *s, *r; /* the prober, the responder */
};

static void pair_new(struct pair *pr, unsigned int peers)
{
	struct rck_monitor_config *cr = NULL, *cs = NULL;
	struct rck_pinglist *pl = NULL;
	char name[16], addr[32];

	assert_int_equal(rck_ctx_new(&pr->ctx), 0);
	assert_int_equal(rck_monitor_config_new(&cr), 0);
	assert_int_equal(rck_monitor_config_new(&cs), 0);
	assert_int_equal(rck_pinglist_new(&pl), 0);
	rck_monitor_config_set_listen(cr, "127.0.0.1", 0);
	rck_monitor_config_set_transport(cr, RCK_MONITOR_TRANSPORT_UDP);
	assert_int_equal(rck_monitor_new(pr->ctx, cr, &pr->r), 0);
	for (unsigned int i = 0; i < peers; i++) {
		snprintf(name, sizeof(name), "p%u", i);
		snprintf(addr, sizeof(addr), "127.0.0.1:%u", rck_monitor_port(pr->r));
		assert_int_equal(rck_pinglist_add(pl, name, addr, 100, NULL), 0);
	}
	rck_monitor_config_set_pinglist(cs, pl);
	rck_monitor_config_set_listen(cs, "127.0.0.1", 0);
	rck_monitor_config_set_transport(cs, RCK_MONITOR_TRANSPORT_UDP);
	assert_int_equal(rck_monitor_new(pr->ctx, cs, &pr->s), 0);
	assert_int_equal(pr->s->th.probe_timeout_ns, NS);
	rck_monitor_config_free(cr);
	rck_monitor_config_free(cs);
	rck_pinglist_free(pl);
	tx_mode = TX_REAL;
	tx_calls = 0;
}

static void pair_free(struct pair *pr)
{
	rck_monitor_free(pr->s);
	rck_monitor_free(pr->r);
	rck_ctx_free(pr->ctx);
}

static unsigned int answered(const struct pair *pr)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < pr->s->n_peers; i++)
		n += pr->s->peers[i].win.n_rtt;
	return n;
}

static uint64_t lost(const struct pair *pr)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < pr->s->n_peers; i++)
		n += pr->s->peers[i].lost_total;
	return n;
}

/* The responder answers, the prober matches, until @want RTTs (2 s at most). */
static void pump(struct pair *pr, unsigned int want)
{
	uint64_t end = md_now() + 2 * NS;

	while (answered(pr) < want && md_now() < end) {
		struct pollfd pfd[2] = { { .fd = pr->r->fd, .events = POLLIN }, { .fd = pr->s->fd, .events = POLLIN } };

		(void)poll(pfd, 2, 10);
		md_recv(pr->r);
		md_recv(pr->s);
	}
}

/* One tick: every peer probed at @now, the batch flushed. */
static void tick(struct pair *pr, uint64_t now)
{
	for (unsigned int i = 0; i < pr->s->n_peers; i++)
		md_send(pr->s, i, now);
	md_flush(pr->s);
}

/* The whole process stopped 1.5 s after a batch went out (the bench's
 * lost batch: its responder is a thread of the same process): when the
 * prober runs first, nothing is lost; the answers are matched once the
 * responder runs, and a probe really unanswered is lost one timeout after
 * the resumption. */
static void test_stall_is_no_loss(void **state)
{
	struct pair pr;
	uint64_t t0;

	(void)state;
	pair_new(&pr, 64);
	t0 = md_now();
	md_loop_seen(pr.s, t0);
	tick(&pr, t0);
	md_loop_seen(pr.s, t0 + 1500000000ull);
	assert_int_equal(pr.s->stalls, 1);
	md_recv(pr.s);
	md_expire(pr.s, t0 + 1500000000ull);
	assert_int_equal(lost(&pr), 0);
	pump(&pr, 64);
	assert_int_equal(answered(&pr), 64);
	md_expire(pr.s, t0 + 4 * NS);
	assert_int_equal(lost(&pr), 0);

	/* a batch sent before a stall and never answered: lost, but only a
	 * whole timeout after the prober came back */
	pair_free(&pr);
	pair_new(&pr, 64);
	t0 = md_now();
	md_loop_seen(pr.s, t0);
	tick(&pr, t0);
	md_loop_seen(pr.s, t0 + 1500000000ull);
	md_expire(pr.s, t0 + 2400000000ull);
	assert_int_equal(lost(&pr), 0);
	md_expire(pr.s, t0 + 2600000000ull);
	assert_int_equal(lost(&pr), 64);
	pair_free(&pr);
}

/* Without a stall the timeout is the probe's own: a responder that never
 * answers loses every probe 1 s (and a responder's tick) after it went,
 * and only then. */
static void test_timeout_without_stall(void **state)
{
	struct pair pr;
	uint64_t t0, t;

	(void)state;
	pair_new(&pr, 64);
	t0 = md_now();
	md_loop_seen(pr.s, t0);
	tick(&pr, t0);
	for (t = t0; t < t0 + 1500000000ull; t += 10000000ull)
		md_loop_seen(pr.s, t);
	assert_int_equal(pr.s->stalls, 0);
	/* sent after the pass's time (stamped at the flush): not due */
	md_expire(pr.s, t0);
	assert_int_equal(lost(&pr), 0);
	md_expire(pr.s, t0 + 900000000ull);
	assert_int_equal(lost(&pr), 0);
	/* over UDP the timeout has the longest a responder holds a ping on top */
	md_expire(pr.s, t0 + NS + MD_TICK_MAX_NS / 2);
	assert_int_equal(lost(&pr), 0);
	md_expire(pr.s, md_now() + NS + MD_TICK_MAX_NS + 1);
	assert_int_equal(lost(&pr), 64);
	/* counted once */
	md_expire(pr.s, md_now() + 3 * NS);
	assert_int_equal(lost(&pr), 64);
	pair_free(&pr);
}

/* sendmmsg sending 5 of 64 at a time, or refusing the first call with a
 * full buffer: every probe still goes out and is answered. */
static void test_short_and_full_sends(void **state)
{
	struct pair pr;

	(void)state;
	pair_new(&pr, 64);
	tx_mode = TX_SHORT;
	tick(&pr, md_now());
	assert_true(tx_calls >= 13);
	pump(&pr, 64); /* the responder's answers go 5 at a time too */
	assert_int_equal(answered(&pr), 64);
	pair_free(&pr);

	pair_new(&pr, 64);
	tx_mode = TX_EAGAIN_ONCE;
	tick(&pr, md_now());
	assert_int_equal(tx_calls, 2);
	tx_mode = TX_REAL;
	pump(&pr, 64);
	assert_int_equal(answered(&pr), 64);
	pair_free(&pr);

	/* a buffer that stays full: one wait, then one call per datagram, no
	 * spin; the probes count lost by the timeout (a host that cannot send
	 * loses) */
	pair_new(&pr, 64);
	tx_mode = TX_FULL;
	tick(&pr, md_now());
	assert_int_equal(tx_calls, 1 + 64);
	md_expire(pr.s, md_now() + NS + MD_TICK_MAX_NS + 1);
	assert_int_equal(lost(&pr), 64);
	pair_free(&pr);
}

/* The route refusing one peer's datagram: the rest of the batch still goes. */
static void test_refused_one(void **state)
{
	struct pair pr;

	(void)state;
	pair_new(&pr, 64);
	tx_mode = TX_REFUSE_ID2;
	tick(&pr, md_now());
	pump(&pr, 63);
	assert_int_equal(answered(&pr), 63);
	assert_int_equal(pr.s->peers[2].win.n_rtt, 0);
	md_expire(pr.s, md_now() + NS + MD_TICK_MAX_NS + 1);
	assert_int_equal(lost(&pr), 1);
	assert_int_equal(pr.s->peers[2].lost_total, 1);
	pair_free(&pr);
}

/* 200 peers: four sendmmsg batches out, the responder reads and answers
 * them in batches of MD_BATCH; sequence numbers wrapping past 2^32 and
 * slots reused round the ring lose nothing. */
static void test_batches_and_wrap(void **state)
{
	struct pair pr;
	uint64_t t0 = md_now();

	(void)state;
	pair_new(&pr, 200);
	for (unsigned int i = 0; i < 200; i++)
		pr.s->peers[i].seq = pr.s->peers[i].tail = UINT32_MAX - 150;
	for (unsigned int k = 0; k < 300; k++) { /* 3 s of probes at 100/s, each answered */
		for (unsigned int i = 0; i < 200; i++)
			mw_reset(&pr.s->peers[i].win);
		md_loop_seen(pr.s, t0 + k * 10000000ull);
		tick(&pr, md_now());
		pump(&pr, 200);
		assert_int_equal(answered(&pr), 200);
		md_expire(pr.s, md_now());
	}
	md_expire(pr.s, md_now() + 2 * NS);
	assert_int_equal(lost(&pr), 0);
	assert_true(pr.s->peers[0].seq < 150);
	pair_free(&pr);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Read on the tick: a ping that waited 80 ms at the responder and a pong
 * that waited 80 ms at the prober are no RTT. The pong carries the
 * responder's dwell, the prober matches at the kernel's receive stamp. */
static void test_dwell_out_of_rtt(void **state)
{
	struct pair pr;
	uint64_t t0;
	unsigned int n = 0;

	(void)state;
	pair_new(&pr, 4);
	t0 = md_now();
	tick(&pr, t0);
	/* a batch left in order, each after the stamp it carries */
	for (unsigned int i = 0; i < 4; i++) {
		assert_true(pr.s->peers[i].slot[0].sent_ns >= pr.s->peers[i].slot[0].t_ns);
		if (i)
			assert_true(pr.s->peers[i].slot[0].sent_ns >= pr.s->peers[i - 1].slot[0].sent_ns);
	}
	sleep_ms(80);
	md_recv(pr.r);
	assert_int_equal(pr.r->dwell_pongs, 4);
	assert_int_equal(pr.r->legacy_pongs, 0);
	assert_false(md_recv_eager(pr.r, md_now()));
	sleep_ms(80);
	md_recv(pr.s);
	assert_true(md_now() - t0 >= 160000000ull);
	for (unsigned int i = 0; i < 4; i++) {
		n += pr.s->peers[i].win.n_rtt;
		/* loopback: microseconds; 40 ms of slack for a loaded runner */
		if (pr.s->peers[i].win.n_rtt)
			assert_true(pr.s->peers[i].win.rtt_us[0] < 40000.0f);
	}
	assert_int_equal(n, 4);
	pair_free(&pr);
}

static int plain_socket(struct sockaddr_in *to, unsigned int port)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	*to = (struct sockaddr_in){ .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				    .sin_port = htons((uint16_t)port) };
	return fd;
}

/* A prober before the dwell (24-byte pings, no MD_ID_DWELL) gets 24-byte
 * pongs, and the responder reads as datagrams come for MD_LEGACY_NS. */
static void test_prober_before_dwell(void **state)
{
	struct pair pr;
	struct sockaddr_in to;
	struct md_msg ping = { .magic = htonl(MD_MAGIC), .type = htonl(MD_PING), .id = htonl(7), .seq = htonl(9),
			       .t_ns = 12345 }, pong;
	unsigned char buf[64];
	struct pollfd pfd;
	int fd;
	ssize_t len;
	uint64_t now;

	(void)state;
	pair_new(&pr, 1);
	fd = plain_socket(&to, rck_monitor_port(pr.r));
	assert_int_equal(sendto(fd, &ping, MD_MSG_LEN, 0, (struct sockaddr *)&to, sizeof(to)), MD_MSG_LEN);
	pfd = (struct pollfd){ .fd = pr.r->fd, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 2000), 1);
	md_recv(pr.r);
	assert_int_equal(pr.r->legacy_pongs, 1);
	now = md_now();
	assert_true(md_recv_eager(pr.r, now));
	assert_false(md_recv_eager(pr.r, now + MD_LEGACY_NS + 1));
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 2000), 1);
	len = recv(fd, buf, sizeof(buf), 0);
	assert_int_equal(len, MD_MSG_LEN);
	assert_int_equal(md_msg_parse(buf, (size_t)len, &pong), 0);
	assert_int_equal(pong.type, MD_PONG);
	assert_int_equal(pong.id, 7);
	assert_int_equal(pong.seq, 9);
	assert_true(pong.t_ns == 12345);
	assert_int_equal(pong.dwell_ns, 0);
	close(fd);
	pair_free(&pr);
}

/* A responder before the dwell echoes the ping as 24 bytes, the id's
 * MD_ID_DWELL with it: the prober matches it with the whole wait in. */
static void test_responder_before_dwell(void **state)
{
	struct pair pr;
	struct sockaddr_in to;
	struct md_msg m;
	unsigned char buf[64];
	struct pollfd pfd = { 0 };
	ssize_t len;
	int fd;

	(void)state;
	pair_new(&pr, 1);
	fd = plain_socket(&to, rck_monitor_port(pr.s));
	tick(&pr, md_now());
	pfd = (struct pollfd){ .fd = pr.r->fd, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 2000), 1);
	len = recv(pr.r->fd, buf, sizeof(buf), 0);
	assert_int_equal(len, MD_MSG_LEN);
	assert_int_equal(md_msg_parse(buf, (size_t)len, &m), 0);
	assert_true(m.id & MD_ID_DWELL);
	memcpy(&m, buf, MD_MSG_LEN);
	m.type = htonl(MD_PONG);
	sleep_ms(30);
	assert_int_equal(sendto(fd, &m, MD_MSG_LEN, 0, (struct sockaddr *)&to, sizeof(to)), MD_MSG_LEN);
	pump(&pr, 1);
	assert_int_equal(answered(&pr), 1);
	assert_true(pr.s->peers[0].win.rtt_us[0] >= 30000.0f);
	close(fd);
	pair_free(&pr);
}

/* Lengths: 24 (ping or pong) and 32 (a pong with the dwell) only. */
static void test_msg_lengths(void **state)
{
	struct md_msg w = { .magic = htonl(MD_MAGIC), .type = htonl(MD_PONG), .id = htonl(MD_ID_DWELL | 3),
			    .seq = htonl(4), .t_ns = 5, .dwell_ns = htonl(1000) }, m;

	(void)state;
	assert_int_equal(md_msg_parse(&w, MD_PONG_DWELL_LEN, &m), 0);
	assert_int_equal(m.dwell_ns, 1000);
	assert_int_equal(md_msg_parse(&w, MD_MSG_LEN, &m), 0);
	assert_int_equal(m.dwell_ns, 0);
	assert_int_equal(md_msg_parse(&w, 28, &m), -EINVAL);
	w.type = htonl(MD_PING);
	assert_int_equal(md_msg_parse(&w, MD_PONG_DWELL_LEN, &m), -EINVAL);
	assert_int_equal(md_msg_parse(&w, MD_MSG_LEN, &m), 0);
}

/* A UD probe in flight (md_send's part for an RDMA peer, without a QP). */
static void arm_ud(struct rck_monitor *m, unsigned int i, uint32_t seq, uint64_t t)
{
	struct md_peer *p = &m->peers[i];
	unsigned int s = seq % MD_SLOTS;

	p->rdma = true;
	p->ep = 0;
	memset(&p->slot[s], 0, sizeof(p->slot[s]));
	p->slot[s].seq = seq;
	p->slot[s].t_ns = p->slot[s].sent_ns = t;
	p->slot[s].busy = true;
}

static struct md_msg pong_of(unsigned int id, uint32_t seq, uint64_t t)
{
	return (struct md_msg){ .magic = MD_MAGIC, .type = MD_PONG, .id = id, .seq = seq, .t_ns = t };
}

/* NIC completion timestamps: the RTT is the device's clock from the ping's
 * send completion to the pong's receive completion, in either order the
 * CQ gives them, across the counter's wrap and at the device's rate; the
 * host's clock (seconds late here) is not used. */
static void test_nic_timestamps(void **state)
{
	struct pair pr;
	struct md_msg msg;
	struct md_peer *p;
	uint64_t t = md_now(), rx;

	(void)state;
	pair_new(&pr, 1);
	pr.s->ud = calloc(1, sizeof(*pr.s->ud));
	assert_non_null(pr.s->ud);
	pr.s->n_ud = 1;
	pr.s->ud[0].nic_ts = true;
	pr.s->ud[0].clock_khz = 1000000; /* 1 GHz: a tick a nanosecond */
	pr.s->ud[0].ts_mask = (1ull << 48) - 1;
	p = &pr.s->peers[0];

	/* the send's completion first */
	arm_ud(pr.s, 0, 1, t);
	md_sent_at(pr.s, 0, 1, 1000);
	msg = pong_of(0, 1, t);
	rx = 8000;
	md_match(pr.s, &msg, true, t + 5 * NS, &rx);
	assert_int_equal(p->win.n_rtt, 1);
	assert_float_equal(p->win.rtt_us[0], 7.0, 1e-3);

	/* the pong's first: held until the send's completion */
	arm_ud(pr.s, 0, 2, t + 1);
	msg = pong_of(0, 2, t + 1);
	rx = 20000;
	md_match(pr.s, &msg, true, t + 5 * NS, &rx);
	assert_int_equal(p->win.n_rtt, 1);
	md_sent_at(pr.s, 0, 2, 15000);
	assert_int_equal(p->win.n_rtt, 2);
	assert_float_equal(p->win.rtt_us[1], 5.0, 1e-3);

	/* the counter wrapped between them */
	arm_ud(pr.s, 0, 3, t + 2);
	md_sent_at(pr.s, 0, 3, pr.s->ud[0].ts_mask - 999);
	msg = pong_of(0, 3, t + 2);
	rx = 2000;
	md_match(pr.s, &msg, true, t + 5 * NS, &rx);
	assert_float_equal(p->win.rtt_us[2], 3.0, 1e-3);

	/* a 250 MHz clock: 1000 ticks are 4 us */
	pr.s->ud[0].clock_khz = 250000;
	arm_ud(pr.s, 0, 4, t + 3);
	md_sent_at(pr.s, 0, 4, 5000);
	msg = pong_of(0, 4, t + 3);
	rx = 6000;
	md_match(pr.s, &msg, true, t + 5 * NS, &rx);
	assert_float_equal(p->win.rtt_us[3], 4.0, 1e-3);

	/* the same probe's pong over UDP, or a send time for another sequence,
	 * is not taken */
	arm_ud(pr.s, 0, 5, t + 4);
	md_sent_at(pr.s, 0, 6, 100);
	assert_false(p->slot[5].has_tx);
	msg = pong_of(0, 5, t + 4);
	md_match(pr.s, &msg, false, t + 10, NULL);
	assert_int_equal(p->win.n_rtt, 4);
	assert_true(p->slot[5].busy);
	pair_free(&pr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stall_is_no_loss),
		cmocka_unit_test(test_timeout_without_stall),
		cmocka_unit_test(test_short_and_full_sends),
		cmocka_unit_test(test_refused_one),
		cmocka_unit_test(test_batches_and_wrap),
		cmocka_unit_test(test_dwell_out_of_rtt),
		cmocka_unit_test(test_prober_before_dwell),
		cmocka_unit_test(test_responder_before_dwell),
		cmocka_unit_test(test_msg_lengths),
		cmocka_unit_test(test_nic_timestamps),
	};


	return cmocka_run_group_tests(tests, NULL, NULL);
}
