/* Unit tests of the rocecap analysis on frames built byte by byte: PFC,
 * PAUSE, ECN, CNPs, NAKs, PSN gaps and retransmissions, VLANs, IPv6,
 * truncated and malformed frames, and the JSON form. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "rocecheck/cap.h"
#include "capgen.h"
#include "../../cap/decode.h"

#define US 1000ull
#define MS 1000000ull
#define T0 1700000000000000000ull

static uint8_t buf[CG_MAX];

static struct rck_cap *new_cap(double storm_window_s)
{
	struct rck_cap_opts o;
	struct rck_cap *cap = NULL;

	rck_cap_opts_init(&o);
	if (storm_window_s > 0)
		o.storm_window_s = storm_window_s;
	o.interval_s = 0.001;
	assert_int_equal(rck_cap_new(&o, &cap), 0);
	return cap;
}

static void add(struct rck_cap *cap, uint64_t t, size_t len)
{
	assert_int_equal(rck_cap_add(cap, RCK_CAP_LINK_ETHERNET, T0 + t, buf, len, len), 0);
}

static void roce(struct rck_cap *cap, uint64_t t, struct cg_roce *r)
{
	add(cap, t, cg_roce(buf, r));
}

static struct cg_roce flow_ab(uint8_t opcode, uint32_t psn)
{
	struct cg_roce r = { .opcode = opcode, .psn = psn, .dest_qp = 0x11, .sport = 49152, .tos = 106,
			     .payload = 1024 };

	cg_ip4(r.src, 10, 0, 0, 1);
	cg_ip4(r.dst, 10, 0, 0, 2);
	return r;
}

/* The reverse direction, B to A, to A's QP 0x22. */
static struct cg_roce flow_ba(uint8_t opcode, uint32_t psn, uint8_t syndrome)
{
	struct cg_roce r = { .opcode = opcode, .psn = psn, .dest_qp = 0x22, .sport = 49153, .tos = 106,
			     .syndrome = syndrome };

	cg_ip4(r.src, 10, 0, 0, 2);
	cg_ip4(r.dst, 10, 0, 0, 1);
	return r;
}

static void test_pfc_priorities(void **state)
{
	struct rck_cap *cap = new_cap(0.001);
	uint16_t q[8] = { 0 };
	double one = 65535 * 512 / 100.0 / 1000.0; /* µs of 65535 quanta at 100 Gb/s */

	(void)state;
	q[3] = 65535;
	q[5] = 1000;
	q[6] = 7; /* its enable bit is clear: ignored */
	add(cap, 0, cg_pfc(buf, 1 << 3 | 1 << 5, q));
	/* Priority 3 again before expiry: the same run goes on. */
	add(cap, 300 * US, cg_pfc(buf, 1 << 3, q));
	/* Priority 5: XON. */
	q[5] = 0;
	add(cap, 2 * US, cg_pfc(buf, 1 << 5, q)); /* earlier stamp: taken at 300 us */
	rck_cap_finish(cap);

	assert_int_equal(rck_cap_stat(cap, RCK_CAP_PFC_FRAMES), 3);
	assert_int_equal(rck_cap_pause_stat(cap, 3, RCK_CAP_PAUSE_FRAMES), 2);
	assert_int_equal(rck_cap_pause_stat(cap, 3, RCK_CAP_PAUSE_QUANTA), 2 * 65535);
	assert_int_equal(rck_cap_pause_stat(cap, 5, RCK_CAP_PAUSE_FRAMES), 2);
	assert_int_equal(rck_cap_pause_stat(cap, 5, RCK_CAP_PAUSE_XON), 1);
	assert_int_equal(rck_cap_pause_stat(cap, 5, RCK_CAP_PAUSE_QUANTA), 1000);
	assert_int_equal(rck_cap_pause_stat(cap, 6, RCK_CAP_PAUSE_FRAMES), 0);
	assert_true(rck_cap_pause_requested_us(cap, 3) > 2 * one - 0.01);
	assert_true(rck_cap_pause_requested_us(cap, 3) < 2 * one + 0.01);
	/* 0 .. 300 + 335.54 µs continuous */
	assert_true(rck_cap_pause_longest_us(cap, 3) > 300 + one - 0.01);
	assert_true(rck_cap_pause_longest_us(cap, 3) < 300 + one + 0.01);
	assert_true(rck_cap_pause_effective_us(cap, 3) < 300 + one + 0.01);
	/* Priority 5: 1000 quanta = 5.12 µs, expired before the XON. */
	assert_true(rck_cap_pause_longest_us(cap, 5) > 5.11 && rck_cap_pause_longest_us(cap, 5) < 5.13);
	/* 635 µs of the first 1 ms window: above half, a storm. */
	assert_int_equal(rck_cap_pause_stat(cap, 3, RCK_CAP_PAUSE_STORMS), 1);
	assert_int_equal(rck_cap_pause_stat(cap, 5, RCK_CAP_PAUSE_STORMS), 0);
	rck_cap_free(cap);
}

static void test_xon_and_legacy_pause(void **state)
{
	struct rck_cap *cap = new_cap(0);
	uint16_t q[8] = { 0 };
	double p[RCK_CAP_PAUSE_LEGACY + 1];

	(void)state;
	q[0] = 65535;
	add(cap, 0, cg_pfc(buf, 1, q));
	q[0] = 0;
	add(cap, 100 * US, cg_pfc(buf, 1, q));
	add(cap, 200 * US, cg_pause(buf, 1000));
	add(cap, 2 * MS, cg_pause(buf, 1000));
	rck_cap_finish(cap);
	assert_true(rck_cap_pause_longest_us(cap, 0) > 99.99 && rck_cap_pause_longest_us(cap, 0) < 100.01);
	assert_true(rck_cap_pause_effective_us(cap, 0) > 99.99 && rck_cap_pause_effective_us(cap, 0) < 100.01);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_LEGACY_PAUSE_FRAMES), 2);
	assert_int_equal(rck_cap_pause_stat(cap, RCK_CAP_PAUSE_LEGACY, RCK_CAP_PAUSE_QUANTA), 2000);
	assert_true(rck_cap_pause_longest_us(cap, RCK_CAP_PAUSE_LEGACY) < 5.13);
	/* Timeline of 1 ms buckets: 100 µs on priority 0 in bucket 0. */
	assert_int_equal(rck_cap_bucket_count(cap), 3);
	assert_int_equal(rck_cap_bucket(cap, 0, p, NULL, NULL, NULL), 0);
	assert_true(p[0] > 99.99 && p[0] < 100.01);
	assert_true(p[RCK_CAP_PAUSE_LEGACY] > 5.11);
	assert_int_equal(rck_cap_bucket(cap, 3, p, NULL, NULL, NULL), -ERANGE);
	rck_cap_free(cap);
}

static const struct rck_cap_flow *only_flow(const struct rck_cap *cap, uint64_t qp)
{
	for (size_t i = 0; i < rck_cap_flow_count(cap); i++)
		if (rck_cap_flow_stat(rck_cap_flow(cap, i), RCK_CAP_FLOW_DEST_QP) == qp)
			return rck_cap_flow(cap, i);
	fail_msg("no flow to QP %#llx", (unsigned long long)qp);
	return NULL;
}

static void test_ce_write_and_cnp(void **state)
{
	struct rck_cap *cap = new_cap(0);
	struct cg_roce r = flow_ab(0x0a, 5);
	const struct rck_cap_flow *f;
	char s[64];

	(void)state;
	roce(cap, 0, &r);               /* ECT(0) */
	r.tos = 106 | 3;                /* CE */
	r.psn = 6;
	roce(cap, 1 * US, &r);
	r = flow_ba(0x81, 0, 0);         /* CNP back to A's QP */
	r.becn = 1;
	r.tos = 48 << 2;
	roce(cap, 2 * US, &r);
	/* A CNP between hosts with no flow: unmatched. */
	cg_ip4(r.src, 10, 9, 9, 9);
	roce(cap, 3 * US, &r);
	rck_cap_finish(cap);

	assert_int_equal(rck_cap_stat(cap, RCK_CAP_ROCE_PACKETS), 4);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_CE_MARKED), 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_ECT_MARKED), 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_CNPS), 2);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_CNPS_UNMATCHED), 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_BECN), 2);
	assert_int_equal(rck_cap_opcode_packets(cap, 0x0a), 2);
	assert_int_equal(rck_cap_opcode_packets(cap, 0x81), 2);
	f = only_flow(cap, 0x11);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_CE_MARKED), 1);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_CNPS), 1);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_DSCP), 26);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_PACKETS), 2);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_UDP_SPORT), 49152);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_VLAN), 4096);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_PSN_GAPS), 0);
	assert_string_equal(rck_cap_flow_src(f, s, sizeof(s)), "10.0.0.1");
	assert_string_equal(rck_cap_flow_dst(f, s, sizeof(s)), "10.0.0.2");
	assert_string_equal(rck_cap_opcode_name(0x0a, s, sizeof(s)), "RC RDMA WRITE Only");
	assert_string_equal(rck_cap_opcode_name(0x81, s, sizeof(s)), "CNP");
	assert_null(rck_cap_opcode_name(0x1f, s, sizeof(s)));
	rck_cap_free(cap);
}

static void test_naks(void **state)
{
	struct rck_cap *cap = new_cap(0);
	struct cg_roce r;
	const struct rck_cap_flow *f;

	(void)state;
	r = flow_ba(0x11, 10, 0x1f);     /* ACK, credits 31 */
	roce(cap, 0, &r);
	r = flow_ba(0x11, 11, 0x60);     /* NAK: PSN sequence error */
	roce(cap, 1, &r);
	r = flow_ba(0x11, 11, 0x2e);     /* RNR NAK, timer 14 */
	roce(cap, 2, &r);
	r = flow_ba(0x11, 11, 0x62);     /* NAK: remote access error */
	roce(cap, 3, &r);
	r = flow_ba(0x10, 12, 0x00);     /* READ response Only with an ACK */
	roce(cap, 4, &r);
	rck_cap_finish(cap);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_NAK_PSN_SEQ_ERR), 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_NAK_RNR), 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_NAK_OTHER), 1);
	f = only_flow(cap, 0x22);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_NAK_PSN_SEQ_ERR), 1);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_NAK_RNR), 1);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_NAK_OTHER), 1);
	/* ACKs repeat and skip PSNs without being loss. */
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_RETRANSMISSIONS), 0);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_PSN_GAPS), 0);
	rck_cap_free(cap);
}

static void test_psn_gaps_and_retransmissions(void **state)
{
	static const uint32_t psns[] = { 0xfffffe, 0xffffff, 0, 1, 3, 4, 2, 3, 4, 5, 5, 9 };
	struct rck_cap *cap = new_cap(0);
	const struct rck_cap_flow *f;

	(void)state;
	for (size_t i = 0; i < sizeof(psns) / sizeof(psns[0]); i++) {
		struct cg_roce r = flow_ab(0x07, psns[i]); /* WRITE Middle */

		roce(cap, i * US, &r);
	}
	rck_cap_finish(cap);
	f = only_flow(cap, 0x11);
	/* 1 -> 3 and 5 -> 9 are gaps (1 + 3 missing); 2, 3, 4 and the second 5
	 * were seen before or go back; the 24-bit wrap is in order. */
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_PSN_GAPS), 2);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_PSN_MISSING), 4);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_RETRANSMISSIONS), 4);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_RETRANSMISSIONS), 4);
	{
		uint64_t re = 0, roce = 0;

		/* 12 packets 1 µs apart, all in the first 1 ms bucket. */
		assert_int_equal(rck_cap_bucket(cap, 0, NULL, NULL, &roce, &re), 0);
		assert_int_equal(re, 4);
		assert_int_equal(roce, 12);
	}
	rck_cap_free(cap);
}

static void test_vlan_ipv6(void **state)
{
	struct rck_cap *cap = new_cap(0);
	struct cg_roce r = flow_ab(0x04, 1);
	const struct rck_cap_flow *f;
	char s[64];

	(void)state;
	r.vlans = 1;
	r.vid = 100;
	r.pcp = 3;
	roce(cap, 0, &r);
	r.dest_qp = 0x33;
	r.vlans = 2; /* QinQ: the outer tag (VLAN 100, PCP 0) is reported */
	r.vid = 200;
	roce(cap, 1, &r);
	r = flow_ab(0x04, 1);
	r.v6 = 1;
	r.dest_qp = 0x66;
	memset(r.src, 0, 16);
	memset(r.dst, 0, 16);
	r.src[0] = 0xfd, r.src[15] = 1;
	r.dst[0] = 0xfd, r.dst[15] = 2;
	r.tos = 106 | 3;
	roce(cap, 2, &r);
	rck_cap_finish(cap);
	f = only_flow(cap, 0x11);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_VLAN), 100);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_PCP), 3);
	f = only_flow(cap, 0x33);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_VLAN), 100);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_PCP), 0);
	f = only_flow(cap, 0x66);
	assert_string_equal(rck_cap_flow_src(f, s, sizeof(s)), "fd00::1");
	assert_string_equal(rck_cap_flow_dst(f, s, sizeof(s)), "fd00::2");
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_CE_MARKED), 1);
	assert_int_equal(rck_cap_flow_stat(f, RCK_CAP_FLOW_DSCP), 26);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_FLOWS), 3);
	/* Worst first: the CE-marked flow leads. */
	assert_ptr_equal(rck_cap_flow(cap, 0), f);
	rck_cap_free(cap);
}

/* Every prefix of a frame is counted, never read past (ASan/valgrind watch):
 * from the end of BTH on it counts as RoCE, with its RETH unknown until the
 * RETH is whole. */
static void test_truncated(void **state)
{
	struct cg_roce r = flow_ab(0x0a, 1);
	size_t len = cg_roce(buf, &r), hdr = 14 + 20 + 8 + 12, udp = 14 + 20 + 8;
	struct rck_cap *cap = new_cap(0);
	struct cap_pkt p;

	(void)state;
	for (size_t n = 0; n < len; n++) {
		uint8_t *copy = malloc(n ? n : 1);

		memcpy(copy, buf, n);
		assert_int_equal(rck_cap_add(cap, RCK_CAP_LINK_ETHERNET, T0, copy, n, len), 0);
		assert_int_equal(cap_decode(RCK_CAP_LINK_ETHERNET, copy, n, &p),
				 n < hdr ? CAP_TRUNCATED : CAP_ROCE);
		free(copy);
	}
	rck_cap_finish(cap);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_TRUNCATED), hdr + 16);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_MALFORMED), hdr);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_ROCE_PACKETS), len - hdr);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_CUT), len);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_ROCE_BTH_CUT), hdr - udp);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_ROCE_HEADERS_CUT), 16);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_RETH_UNKNOWN), 16);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_AETH_UNKNOWN), 0);
	/* The same PSN every time: one first sight, the rest retransmissions. */
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_RETRANSMISSIONS), len - hdr - 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_PSN_GAPS), 0);
	rck_cap_free(cap);
}

/* A READ request reserves the PSNs of its responses: without a known path
 * MTU any jump 256 to 4096 bytes a packet explains, with one exactly. */
static void test_read_reserves(void **state)
{
	struct rck_cap *cap = new_cap(0);
	struct cg_roce r = flow_ab(0x0c, 10);

	(void)state;
	r.payload = 0;
	r.dma_len = 8192;             /* 2 (4096 a packet) to 32 (256) PSNs */
	roce(cap, 0, &r);
	r.psn = 12;                   /* after the least it may have taken */
	roce(cap, 1 * US, &r);
	r.psn = 12 + 32;              /* after the most */
	roce(cap, 2 * US, &r);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_PSN_GAPS), 0);
	r.psn = 44 + 32 + 1;          /* one PSN beyond the most */
	roce(cap, 3 * US, &r);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_PSN_GAPS), 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_PSN_MISSING), 1);
	rck_cap_free(cap);

	/* A WRITE First of 1024 bytes: the path MTU; READs count exactly. */
	cap = new_cap(0);
	r = flow_ab(0x06, 100);
	roce(cap, 0, &r);
	r.opcode = 0x08;
	r.psn = 101;
	roce(cap, 1 * US, &r);
	r.opcode = 0x0c;
	r.payload = 0;
	r.dma_len = 3000;             /* 3 packets: 102 to 104 */
	r.psn = 102;
	roce(cap, 2 * US, &r);
	r.opcode = 0x0a;
	r.payload = 10;
	r.psn = 106;                  /* 105 missing */
	roce(cap, 3 * US, &r);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_PSN_GAPS), 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_PSN_MISSING), 1);
	rck_cap_free(cap);
}

/* READ responses, followed apart from the requests on the same flow. */
static void test_read_responses(void **state)
{
	struct rck_cap *cap = new_cap(0);
	struct cg_roce b = flow_ba(0x0d, 50, 0x1f);

	(void)state;
	b.payload = 1024;
	roce(cap, 0, &b);             /* First 50 */
	b.opcode = 0x0f;
	b.psn = 51;
	roce(cap, 1 * US, &b);        /* Last 51 */
	b.opcode = 0x10;
	b.psn = 60;
	roce(cap, 2 * US, &b);        /* Only 60: requests between were no READs */
	b.opcode = 0x04;
	b.psn = 7000;                 /* B's own SEND on the same QP pair */
	roce(cap, 3 * US, &b);
	b.psn = 7001;
	roce(cap, 4 * US, &b);
	b.opcode = 0x0d;
	b.psn = 61;
	roce(cap, 5 * US, &b);        /* First 61, Middle 62 lost, Last 63 */
	b.opcode = 0x0f;
	b.psn = 63;
	roce(cap, 6 * US, &b);
	b.psn = 63;
	roce(cap, 7 * US, &b);        /* the Last again */
	rck_cap_finish(cap);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_PSN_GAPS), 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_PSN_MISSING), 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_RETRANSMISSIONS), 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_FLOWS), 1);
	rck_cap_free(cap);
}

/* ICRC stripped: ACKs and NAKs still decode; IPv6 extension headers and
 * fragments are followed, ESP skipped. */
static void test_icrc_ext_frag(void **state)
{
	struct rck_cap *cap = new_cap(0);
	struct cg_roce a = flow_ba(0x11, 5, 0x60), w = flow_ab(0x0a, 1);
	uint8_t frame[CG_MAX];
	size_t n;

	(void)state;
	a.no_icrc = 1;
	roce(cap, 0, &a);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_NAK_PSN_SEQ_ERR), 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_NO_ICRC), 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_MALFORMED), 0);
	w.v6 = 1;
	w.src[0] = w.dst[0] = 0xfd;
	n = cg_ip6_ext(buf, cg_roce(buf, &w), 0, 0, 0);
	n = cg_ip6_ext(buf, n, 43, 0, 0);
	add(cap, 1 * US, n);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_ROCE_PACKETS), 2);
	w.psn = 2;
	n = cg_ip6_ext(buf, cg_roce(buf, &w), 44, 0, 1);
	memcpy(frame, buf, n);
	add(cap, 2 * US, cg_fragment(buf, frame, n, 0, 200, 1));
	add(cap, 3 * US, cg_fragment(buf, frame, n, 200, CG_MAX, 0));
	w.v6 = 0;
	cg_ip4(w.src, 10, 0, 0, 1);
	cg_ip4(w.dst, 10, 0, 0, 2);
	n = cg_roce(frame, &w);
	add(cap, 4 * US, cg_fragment(buf, frame, n, 0, 504, 1));
	add(cap, 5 * US, cg_fragment(buf, frame, n, 504, CG_MAX, 0));
	n = cg_roce(buf, &w);
	buf[14 + 9] = 6;              /* TCP: not followed, not skipped */
	add(cap, 6 * US, n);
	rck_cap_finish(cap);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_ROCE_PACKETS), 4);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_FIRST_FRAGMENTS), 2);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_FRAGMENTS_SKIPPED), 2);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_PSN_GAPS), 0);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_MALFORMED), 0);
	rck_cap_free(cap);
}

static void test_malformed(void **state)
{
	struct cg_roce r = flow_ab(0x0a, 1);
	struct rck_cap *cap = new_cap(0);
	size_t len;
	uint16_t q[8] = { 0 };

	(void)state;
	len = cg_roce(buf, &r);
	buf[14 + 2] = 0, buf[14 + 3] = 30;        /* IP total length below IP + UDP + BTH */
	add(cap, 0, len);
	len = cg_roce(buf, &r);
	buf[14 + 20 + 4] = 0xff;                  /* UDP length beyond the IP payload */
	add(cap, 0, len);
	len = cg_roce(buf, &r);
	buf[14] = 0x65;                           /* IP version 6 in an IPv4 ethertype */
	add(cap, 0, len);
	len = cg_roce(buf, &r);
	buf[14] = 0x44;                           /* IHL 16 bytes */
	add(cap, 0, len);
	len = cg_pfc(buf, 0xff, q);
	add(cap, 0, 14 + 10);                     /* PFC cut inside its times */
	len = cg_udp_other(buf);
	add(cap, 0, len);
	assert_int_equal(rck_cap_add(cap, 9999, T0, buf, len, len), -EINVAL);
	assert_int_equal(rck_cap_add(cap, RCK_CAP_LINK_ETHERNET, T0, buf, len, len - 1), -EINVAL);
	rck_cap_finish(cap);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_MALFORMED), 5);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_TRUNCATED), 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_ROCE_PACKETS), 0);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_UNSUPPORTED_LINK), 1);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_PFC_FRAMES), 0);
	assert_int_equal(rck_cap_add(cap, RCK_CAP_LINK_ETHERNET, T0, buf, len, len), -EBUSY);
	rck_cap_free(cap);
}

/* The same RoCE packet behind each link header rocecap decodes. */
static void test_link_types(void **state)
{
	struct cg_roce r = flow_ab(0x0a, 1);
	size_t len = cg_roce(buf, &r), ip = len - 14;
	static uint8_t f[CG_MAX + 20];
	struct rck_cap *cap = new_cap(0);

	(void)state;
	/* Linux cooked v1: packet type, ARPHRD, address length, 8-byte address, protocol. */
	memset(f, 0, 16);
	f[3] = 1;
	f[14] = 0x08;
	memcpy(f + 16, buf + 14, ip);
	assert_int_equal(rck_cap_add(cap, RCK_CAP_LINK_LINUX_SLL, T0, f, 16 + ip, 16 + ip), 0);
	/* Linux cooked v2: protocol first, 20 bytes. */
	memset(f, 0, 20);
	f[0] = 0x08;
	memcpy(f + 20, buf + 14, ip);
	assert_int_equal(rck_cap_add(cap, RCK_CAP_LINK_LINUX_SLL2, T0, f, 20 + ip, 20 + ip), 0);
	/* Raw IP. */
	assert_int_equal(rck_cap_add(cap, RCK_CAP_LINK_RAW, T0, buf + 14, ip, ip), 0);
	f[0] = 0x50; /* neither IPv4 nor IPv6 */
	assert_int_equal(rck_cap_add(cap, RCK_CAP_LINK_RAW, T0, f, 20, 20), 0);
	rck_cap_finish(cap);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_ROCE_PACKETS), 3);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_MALFORMED), 1);
	assert_int_equal(rck_cap_flow_count(cap), 1);
	/* PSNs 1, 1, 1: the second and third are retransmissions. */
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_RETRANSMISSIONS), 2);
	rck_cap_free(cap);
}

static void test_flow_cap(void **state)
{
	struct rck_cap_opts o;
	struct rck_cap *cap = NULL;

	(void)state;
	rck_cap_opts_init(&o);
	o.max_flows = 100;
	assert_int_equal(rck_cap_new(&o, &cap), 0);
	for (uint32_t i = 0; i < 1000; i++) {
		struct cg_roce r = flow_ab(0x04, i);

		r.dest_qp = i;
		roce(cap, i, &r);
	}
	rck_cap_finish(cap);
	assert_int_equal(rck_cap_flow_count(cap), 100);
	assert_int_equal(rck_cap_stat(cap, RCK_CAP_UNTRACKED), 900);
	rck_cap_free(cap);
	o.speed_gbps = 0;
	assert_int_equal(rck_cap_new(&o, &cap), -EINVAL);
	o.speed_gbps = 100;
	o.size = 4;
	assert_int_equal(rck_cap_new(&o, &cap), -EINVAL);
}

static void test_json(void **state)
{
	struct rck_cap *cap = new_cap(0);
	struct cg_roce r = flow_ab(0x0a, 1);
	uint16_t q[8] = { [3] = 100 };
	json_error_t jerr;
	char *text = NULL;
	size_t size = 0;
	json_t *j, *pr, *fl;
	FILE *f;

	(void)state;
	roce(cap, 0, &r);
	add(cap, 1, cg_pfc(buf, 1 << 3, q));
	rck_cap_finish(cap);
	f = open_memstream(&text, &size);
	assert_int_equal(rck_cap_write(cap, f, RCK_FORMAT_JSON, RCK_CAP_WRITE_TIMELINE), 0);
	fclose(f);
	j = json_loads(text, 0, &jerr);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "packets")), 2);
	pr = json_array_get(json_object_get(json_object_get(j, "pfc"), "priorities"), 3);
	assert_int_equal(json_integer_value(json_object_get(pr, "pause_quanta")), 100);
	assert_true(json_real_value(json_object_get(pr, "pause_us")) > 0.5119);
	fl = json_array_get(json_object_get(j, "flows"), 0);
	assert_string_equal(json_string_value(json_object_get(fl, "src")), "10.0.0.1");
	assert_int_equal(json_integer_value(json_object_get(fl, "dest_qp")), 0x11);
	assert_non_null(json_object_get(json_object_get(json_object_get(j, "roce"), "naks"), "rnr"));
	assert_non_null(json_object_get(json_object_get(j, "timeline"), "buckets"));
	json_decref(j);
	free(text);
	text = NULL;
	f = open_memstream(&text, &size);
	assert_int_equal(rck_cap_write_svg(cap, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "</svg>"));
	assert_non_null(strstr(text, "priority 3"));
	free(text);
	rck_cap_free(cap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pfc_priorities),
		cmocka_unit_test(test_xon_and_legacy_pause),
		cmocka_unit_test(test_ce_write_and_cnp),
		cmocka_unit_test(test_naks),
		cmocka_unit_test(test_psn_gaps_and_retransmissions),
		cmocka_unit_test(test_vlan_ipv6),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_read_reserves),
		cmocka_unit_test(test_read_responses),
		cmocka_unit_test(test_icrc_ext_frag),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_link_types),
		cmocka_unit_test(test_flow_cap),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
