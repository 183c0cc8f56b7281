/* rck_cap: the streaming analysis of rocecap. Each frame is decoded, then
 * counted into the summary, its flow, the pause trackers and the timeline. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cap_int.h"

#define MAX_FLOWS_LIMIT (1u << 24)
#define MAX_BUCKETS_LIMIT (1u << 20)
#define SERIAL_HALF (1u << 23)
#define PSN_MASK 0xffffffu

RCK_EXPORT void rck_cap_opts_init(struct rck_cap_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->speed_gbps = 100.0;
	o->max_flows = 65536;
	o->storm_window_s = 0.1;
	o->storm_share = 0.5;
	o->interval_s = 1.0;
	o->max_buckets = 4096;
}

static bool in(double v, double lo, double hi)
{
	return isfinite(v) && v >= lo && v <= hi;
}

RCK_EXPORT int rck_cap_new(const struct rck_cap_opts *opts, struct rck_cap **out)
{
	struct rck_cap *cap;
	struct rck_cap_opts o;

	rck_cap_opts_init(&o);
	if (opts) {
		if (opts->size < sizeof(size_t) + sizeof(double))
			return -EINVAL;
		memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
		o.size = sizeof(o);
	}
	if (!in(o.speed_gbps, 0.01, 10000) || o.max_flows < 1 || o.max_flows > MAX_FLOWS_LIMIT ||
	    !in(o.storm_window_s, 1e-6, 3600) || !in(o.storm_share, 0, 1) ||
	    !in(o.interval_s, 1e-6, 86400) || o.max_buckets < 1 || o.max_buckets > MAX_BUCKETS_LIMIT)
		return -EINVAL;
	cap = calloc(1, sizeof(*cap));
	if (!cap)
		return -ENOMEM;
	cap->o = o;
	cap->buckets = calloc(o.max_buckets, sizeof(*cap->buckets));
	if (!cap->buckets) {
		free(cap);
		return -ENOMEM;
	}
	cap->storm_ns = (uint64_t)llround(o.storm_window_s * 1e9);
	cap->interval_ns = (uint64_t)llround(o.interval_s * 1e9);
	if (!cap->storm_ns)
		cap->storm_ns = 1;
	if (!cap->interval_ns)
		cap->interval_ns = 1;
	*out = cap;
	return 0;
}

RCK_EXPORT void rck_cap_free(struct rck_cap *cap)
{
	if (!cap)
		return;
	cap_flows_free(cap);
	free(cap->buckets);
	free(cap);
}

static void make_key(struct cap_key *k, const struct cap_pkt *p, bool pair, bool reverse)
{
	size_t n = p->family == 4 ? 4 : 16;

	memset(k, 0, sizeof(*k));
	k->family = p->family;
	memcpy(k->src, reverse ? p->dst : p->src, n);
	memcpy(k->dst, reverse ? p->src : p->dst, n);
	if (!pair) {
		k->dest_qp = p->dest_qp;
		k->sport = p->udp_sport;
	}
}

enum psn_kind { PSN_NONE, PSN_REQ, PSN_RESP };

/* Requests count their PSN up by one per packet; READ responses carry the
 * requester's PSNs; ACKs, atomic ACKs (they acknowledge with gaps) and
 * CNPs are not numbered one by one. */
static enum psn_kind psn_kind(uint8_t opcode)
{
	uint8_t op = opcode & 0x1f, t = opcode >> 5;

	if (opcode == CAP_OP_CNP || opcode >= 0xc0 || (opcode >= 0x80 && opcode < 0xa0))
		return PSN_NONE;
	if (op == 0x11 || op == 0x12)
		return PSN_NONE;
	if (t != 1 && t != 3 && op >= 0x0d && op <= 0x10)
		return PSN_RESP;
	return PSN_REQ;
}

static bool read_request(uint8_t opcode)
{
	uint8_t t = opcode >> 5;

	return (opcode & 0x1f) == 0x0c && (t == 0 || t == 2 || t == 5);
}

/* SEND and WRITE First/Middle packets carry exactly one path MTU. */
static void learn_pmtu(struct rck_cap_flow *f, const struct cap_pkt *p)
{
	uint8_t op = p->opcode & 0x1f, t = p->opcode >> 5;
	uint32_t m = 256;

	if (t == 3 || t > 5 || (op != 0x00 && op != 0x01 && op != 0x06 && op != 0x07))
		return;
	/* Rounded up: a packet whose ICRC was stripped looks 4 bytes short. */
	while (m < p->payload_len && m < 4096)
		m *= 2;
	if (p->payload_len > m / 2 && p->payload_len <= m)
		f->pmtu = m;
}

static void gap(struct rck_cap *cap, struct rck_cap_flow *f, uint32_t missing)
{
	f->st[RCK_CAP_FLOW_PSN_GAPS]++;
	f->st[RCK_CAP_FLOW_PSN_MISSING] += missing;
	cap->st[RCK_CAP_PSN_GAPS]++;
	cap->st[RCK_CAP_PSN_MISSING] += missing;
}

static void retransmission(struct rck_cap *cap, struct rck_cap_flow *f)
{
	f->st[RCK_CAP_FLOW_RETRANSMISSIONS]++;
	cap->st[RCK_CAP_RETRANSMISSIONS]++;
}

static uint32_t div_up(uint32_t a, uint32_t b)
{
	return a ? (uint32_t)(((uint64_t)a + b - 1) / b) : 1;
}

/* The PSNs a READ request at f->max_psn reserves: exactly N with a known
 * path MTU, else between the counts for 4096 and 256 bytes. */
static void reserve(struct rck_cap_flow *f, const struct cap_pkt *p)
{
	uint32_t lo, hi;

	if (!p->has_reth) {
		f->slack = SERIAL_HALF - 2;
		return;
	}
	lo = div_up(p->reth_dma_len, f->pmtu ? f->pmtu : 4096);
	hi = f->pmtu ? lo : div_up(p->reth_dma_len, 256);
	if (hi > SERIAL_HALF - 1)
		hi = SERIAL_HALF - 1;
	if (lo > hi)
		lo = hi;
	f->max_psn = (f->max_psn + lo - 1) & PSN_MASK;
	f->slack = hi - lo;
}

static void psn_request(struct rck_cap *cap, struct rck_cap_flow *f, const struct cap_pkt *p)
{
	uint32_t d;

	learn_pmtu(f, p);
	if (!f->have_psn) {
		f->have_psn = true;
		f->max_psn = p->psn;
		f->slack = 0;
		if (read_request(p->opcode))
			reserve(f, p);
		return;
	}
	d = (p->psn - f->max_psn) & PSN_MASK;
	if (d == 0 || d >= SERIAL_HALF) {
		retransmission(cap, f);
		return;
	}
	if (d > f->slack + 1)
		gap(cap, f, d - 1 - f->slack);
	f->max_psn = p->psn;
	f->slack = 0;
	if (read_request(p->opcode))
		reserve(f, p);
}

/* READ responses: First and Only open a response (after other requests'
 * PSNs), Middle and Last follow the packet before them. */
static void psn_response(struct rck_cap *cap, struct rck_cap_flow *f, const struct cap_pkt *p)
{
	uint8_t op = p->opcode & 0x1f;
	uint32_t d;

	if (!f->have_resp) {
		f->have_resp = true;
		f->resp_psn = p->psn;
		return;
	}
	d = (p->psn - f->resp_psn) & PSN_MASK;
	if (d == 0 || d >= SERIAL_HALF) {
		retransmission(cap, f);
		return;
	}
	if (d > 1 && op != 0x0d && op != 0x10)
		gap(cap, f, d - 1);
	f->resp_psn = p->psn;
}

/* A CNP from B to A answers A's traffic to B (see cap.h). */
static void cnp(struct rck_cap *cap, const struct cap_pkt *p)
{
	struct cap_key k;
	struct cap_pair *pr;
	uint32_t i;

	make_key(&k, p, true, true);
	pr = cap_pair_find(cap, &k);
	i = pr ? (pr->last_ce_flow ? pr->last_ce_flow : pr->last_flow) : 0;
	if (i)
		cap->flows[i - 1].st[RCK_CAP_FLOW_CNPS]++;
	else
		cap->st[RCK_CAP_CNPS_UNMATCHED]++;
}

/* NAK counters come in the same order in both enums: PSN sequence error,
 * RNR, other. -1 for an ACK or no AETH. */
static int nak_offset(enum cap_aeth a)
{
	switch (a) {
	case CAP_AETH_NAK_SEQ:
		return 0;
	case CAP_AETH_RNR:
		return 1;
	case CAP_AETH_NAK_OTHER:
		return 2;
	default:
		return -1;
	}
}

static int roce(struct rck_cap *cap, const struct cap_pkt *p, uint64_t t, size_t wirelen)
{
	struct rck_cap_flow *f;
	struct cap_bucket *bk;
	struct cap_pair *pr;
	struct cap_key k;
	uint32_t i;
	int rc, nak;

	cap->st[RCK_CAP_ROCE_PACKETS]++;
	cap->st[RCK_CAP_ROCE_BYTES] += wirelen;
	cap->st[RCK_CAP_ROCE_HEADERS_CUT] += p->hdr_cut;
	cap->st[RCK_CAP_TRUNCATED] += p->hdr_cut;
	cap->st[RCK_CAP_AETH_UNKNOWN] += p->aeth_cut;
	cap->st[RCK_CAP_RETH_UNKNOWN] += p->reth_cut;
	cap->st[RCK_CAP_NO_ICRC] += p->no_icrc;
	cap->st[RCK_CAP_FIRST_FRAGMENTS] += p->frag_first;
	cap->ops[p->opcode]++;
	bk = cap_bucket_at(cap, t);
	bk->roce++;
	if (p->ecn == 3) {
		cap->st[RCK_CAP_CE_MARKED]++;
		bk->ce++;
	} else if (p->ecn) {
		cap->st[RCK_CAP_ECT_MARKED]++;
	}
	cap->st[RCK_CAP_FECN] += p->fecn;
	cap->st[RCK_CAP_BECN] += p->becn;
	nak = nak_offset(p->aeth);
	if (nak >= 0)
		cap->st[RCK_CAP_NAK_PSN_SEQ_ERR + nak]++;
	if (p->opcode == CAP_OP_CNP) {
		cap->st[RCK_CAP_CNPS]++;
		cnp(cap, p);
	}

	make_key(&k, p, false, false);
	rc = cap_flow_get(cap, &k, &i);
	if (rc == -ENOSPC) {
		cap->st[RCK_CAP_UNTRACKED]++;
		return 0;
	}
	if (rc)
		return rc;
	f = &cap->flows[i];
	if (!f->st[RCK_CAP_FLOW_PACKETS]) {
		f->st[RCK_CAP_FLOW_DEST_QP] = p->dest_qp;
		f->st[RCK_CAP_FLOW_UDP_SPORT] = p->udp_sport;
		f->st[RCK_CAP_FLOW_FIRST_NS] = t;
		cap->st[RCK_CAP_FLOWS]++;
	}
	f->st[RCK_CAP_FLOW_PACKETS]++;
	f->st[RCK_CAP_FLOW_BYTES] += wirelen;
	f->st[RCK_CAP_FLOW_LAST_NS] = t;
	f->st[RCK_CAP_FLOW_DSCP] = p->dscp;
	f->st[RCK_CAP_FLOW_PCP] = p->pcp;
	f->st[RCK_CAP_FLOW_VLAN] = p->vlan;
	if (p->ecn == 3)
		f->st[RCK_CAP_FLOW_CE_MARKED]++;
	else if (p->ecn)
		f->st[RCK_CAP_FLOW_ECT_MARKED]++;
	if (nak >= 0)
		f->st[RCK_CAP_FLOW_NAK_PSN_SEQ_ERR + nak]++;
	if (psn_kind(p->opcode) != PSN_NONE) {
		uint64_t before = f->st[RCK_CAP_FLOW_RETRANSMISSIONS];

		if (psn_kind(p->opcode) == PSN_REQ)
			psn_request(cap, f, p);
		else
			psn_response(cap, f, p);
		bk->retrans += f->st[RCK_CAP_FLOW_RETRANSMISSIONS] - before;
	}
	if (p->opcode == CAP_OP_CNP)
		return 0;
	/* Remember the pair's latest flow and latest CE-marked flow. */
	make_key(&k, p, true, false);
	rc = cap_pair_get(cap, &k, &pr);
	if (rc)
		return rc == -ENOSPC ? 0 : rc;
	pr->last_flow = i + 1;
	if (p->ecn == 3)
		pr->last_ce_flow = i + 1;
	return 0;
}

RCK_EXPORT int rck_cap_add(struct rck_cap *cap, int linktype, uint64_t ts_ns, const void *data,
			   size_t caplen, size_t wirelen)
{
	struct cap_pkt p;
	uint64_t t;

	if (cap->finished)
		return -EBUSY;
	if (caplen > wirelen || (caplen && !data))
		return -EINVAL;
	if (!cap->st[RCK_CAP_PACKETS]++)
		cap->st[RCK_CAP_FIRST_NS] = cap->now = ts_ns;
	cap->st[RCK_CAP_BYTES] += wirelen;
	cap->st[RCK_CAP_LAST_NS] = ts_ns;
	if (caplen < wirelen)
		cap->st[RCK_CAP_CUT]++;
	/* Pause accounting needs time to go forward: a frame stamped
	 * earlier than the one before it is taken at the latest time. */
	if (ts_ns > cap->now)
		cap->now = ts_ns;
	t = cap->now;

	switch (cap_decode(linktype, data, caplen, &p)) {
	case CAP_BAD_LINK:
		cap->st[RCK_CAP_UNSUPPORTED_LINK]++;
		return -EINVAL;
	case CAP_TRUNCATED:
		cap->st[RCK_CAP_TRUNCATED]++;
		cap->st[RCK_CAP_MALFORMED]++;
		cap->st[RCK_CAP_ROCE_BTH_CUT] += p.bth_cut;
		return 0;
	case CAP_MALFORMED:
		cap->st[RCK_CAP_MALFORMED]++;
		return 0;
	case CAP_PFC:
		cap->st[RCK_CAP_PFC_FRAMES]++;
		for (unsigned int i = 0; i < 8; i++)
			if (p.class_enable & (1u << i))
				cap_pause_frame(cap, i, t, p.quanta[i]);
		return 0;
	case CAP_PAUSE:
		cap->st[RCK_CAP_LEGACY_PAUSE_FRAMES]++;
		cap_pause_frame(cap, RCK_CAP_PAUSE_LEGACY, t, p.quanta[0]);
		return 0;
	case CAP_ROCE:
		return roce(cap, &p, t, wirelen);
	case CAP_OTHER:
	default:
		cap->st[RCK_CAP_FRAGMENTS_SKIPPED] += p.frag_skipped;
		cap->st[RCK_CAP_IPV6_EXT_SKIPPED] += p.ext_skipped;
		return 0;
	}
}

RCK_EXPORT void rck_cap_finish(struct rck_cap *cap)
{
	if (cap->finished)
		return;
	cap_pause_finish(cap);
	/* Without memory for the sorted view the flows stay in arrival order. */
	if (cap_flows_sort(cap)) {
		free(cap->order);
		cap->order = NULL;
	}
	cap->finished = true;
}

RCK_EXPORT uint64_t rck_cap_stat(const struct rck_cap *cap, enum rck_cap_stat s)
{
	return (unsigned int)s < RCK_CAP_STAT_COUNT ? cap->st[s] : 0;
}

RCK_EXPORT uint64_t rck_cap_opcode_packets(const struct rck_cap *cap, unsigned int opcode)
{
	return opcode < 256 ? cap->ops[opcode] : 0;
}

RCK_EXPORT uint64_t rck_cap_pause_stat(const struct rck_cap *cap, unsigned int prio,
				       enum rck_cap_pause_stat s)
{
	return prio < CAP_NPAUSE && (unsigned int)s < RCK_CAP_PAUSE_STAT_COUNT ? cap->pause[prio].st[s] : 0;
}

RCK_EXPORT double rck_cap_pause_requested_us(const struct rck_cap *cap, unsigned int prio)
{
	return prio < CAP_NPAUSE ? cap->pause[prio].requested_us : 0;
}

RCK_EXPORT double rck_cap_pause_effective_us(const struct rck_cap *cap, unsigned int prio)
{
	return prio < CAP_NPAUSE ? cap->pause[prio].effective_us : 0;
}

RCK_EXPORT double rck_cap_pause_longest_us(const struct rck_cap *cap, unsigned int prio)
{
	return prio < CAP_NPAUSE ? cap->pause[prio].longest_us : 0;
}

RCK_EXPORT size_t rck_cap_flow_count(const struct rck_cap *cap)
{
	return cap->nflows;
}

RCK_EXPORT const struct rck_cap_flow *rck_cap_flow(const struct rck_cap *cap, size_t i)
{
	if (i >= cap->nflows)
		return NULL;
	return &cap->flows[cap->order && cap->finished ? cap->order[i] : i];
}

RCK_EXPORT uint64_t rck_cap_flow_stat(const struct rck_cap_flow *f, enum rck_cap_flow_stat s)
{
	return (unsigned int)s < RCK_CAP_FLOW_STAT_COUNT ? f->st[s] : 0;
}

static const char *addr(const struct cap_key *k, const uint8_t *a, char *buf, size_t len)
{
	if (!inet_ntop(k->family == 4 ? AF_INET : AF_INET6, a, buf, (socklen_t)len) && len)
		buf[0] = '\0';
	return buf;
}

RCK_EXPORT const char *rck_cap_flow_src(const struct rck_cap_flow *f, char *buf, size_t len)
{
	return addr(&f->key, f->key.src, buf, len);
}

RCK_EXPORT const char *rck_cap_flow_dst(const struct rck_cap_flow *f, char *buf, size_t len)
{
	return addr(&f->key, f->key.dst, buf, len);
}

RCK_EXPORT size_t rck_cap_bucket_count(const struct rck_cap *cap)
{
	return cap->st[RCK_CAP_PACKETS] ? cap->nbuckets : 0;
}

RCK_EXPORT double rck_cap_interval_s(const struct rck_cap *cap)
{
	return (double)cap->interval_ns / 1e9;
}

RCK_EXPORT int rck_cap_bucket(const struct rck_cap *cap, size_t i, double pause_us[RCK_CAP_PAUSE_LEGACY + 1],
			      uint64_t *ce_marked, uint64_t *roce_packets, uint64_t *retransmissions)
{
	if (i >= rck_cap_bucket_count(cap))
		return -ERANGE;
	if (pause_us)
		memcpy(pause_us, cap->buckets[i].pause_us, sizeof(cap->buckets[i].pause_us));
	if (ce_marked)
		*ce_marked = cap->buckets[i].ce;
	if (roce_packets)
		*roce_packets = cap->buckets[i].roce;
	if (retransmissions)
		*retransmissions = cap->buckets[i].retrans;
	return 0;
}
