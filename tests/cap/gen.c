/* rocecap-gen: writes the pcap files the rocecap tests and benchmark read.
 *   rocecap-gen scenario FILE [SNAP]  mixed traffic with known trouble;
 *                               prints the counts rocecap must find
 *                               (KEY=VALUE), frames cut at SNAP bytes
 *   rocecap-gen bench FILE MB   RDMA WRITE streams of 64 flows with ACKs
 *   rocecap-gen case NAME FILE [SNAP]  one case of packet evidence (write,
 *                               noicrc, read, frag), frames cut at SNAP
 *                               bytes; prints the counts (KEY=VALUE) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capgen.h"

#define T0 1700000000000000000ull

static uint8_t buf[CG_MAX];
static uint8_t frag[CG_MAX];
static uint64_t now = T0;
static size_t snap;

static struct {
	unsigned long packets, roce, ce, ect, cnps, retrans, gaps, seq_naks, rnr_naks, pfc;
	unsigned long missing, no_icrc, first_frags, frags_skipped, ext_skipped;
} ex;

static void put_from(struct cg_pcap *p, const uint8_t *b, size_t n)
{
	now += 2000;
	cg_pcap_write_snap(p, now, b, n, snap);
	ex.packets++;
}

static void put(struct cg_pcap *p, size_t n)
{
	put_from(p, buf, n);
}

static void roce(struct cg_pcap *p, const struct cg_roce *r)
{
	put(p, cg_roce(buf, r));
	ex.roce++;
	/* Only a packet with less than an ICRC's worth of payload shows it is gone. */
	if (r->no_icrc && r->payload < 4)
		ex.no_icrc++;
	if ((r->tos & 3) == 3)
		ex.ce++;
	else if (r->tos & 3)
		ex.ect++;
}

/* The responder's side of @r: addresses swapped, to QP + 1 from port + 1. */
static struct cg_roce reverse(const struct cg_roce *r)
{
	struct cg_roce b = *r;

	memcpy(b.src, r->dst, 16);
	memcpy(b.dst, r->src, 16);
	b.dest_qp = r->dest_qp + 1;
	b.sport = (uint16_t)(r->sport + 1);
	b.payload = 0;
	return b;
}

/* One RDMA WRITE of @n packets from @a to @b on QP @qp, acked every 4
 * packets and at the end by the responder (@b to @a, QP @qp + 1). */
static void write_msg(struct cg_pcap *p, struct cg_roce *r, uint32_t *psn, int n, int ce_every)
{
	struct cg_roce ack = reverse(r);

	ack.opcode = 0x11;
	ack.tos = 106;
	for (int i = 0; i < n; i++) {
		r->opcode = n == 1 ? 0x0a : i == 0 ? 0x06 : i == n - 1 ? 0x08 : 0x07;
		r->psn = (*psn)++ & 0xffffff;
		r->ack_req = i == n - 1 || i % 4 == 3;
		r->tos = ce_every && (r->psn % ce_every) == 0 ? 106 | 3 : 106;
		roce(p, r);
		if (r->ack_req) {
			ack.psn = r->psn;
			ack.syndrome = 0x1f;
			roce(p, &ack);
		}
	}
}

static int scenario(const char *path)
{
	struct cg_pcap *p = cg_pcap_open(path);
	struct cg_roce a = { .dest_qp = 0x100, .sport = 50000, .payload = 1024 }, b, v6, vl, cnp;
	uint32_t psn_a = 0xfffff0, psn_b = 100, psn_6 = 0, psn_v = 7;
	uint16_t q[8] = { 0 };

	if (!p)
		return 1;
	cg_ip4(a.src, 10, 77, 0, 1);
	cg_ip4(a.dst, 10, 77, 0, 2);
	b = a;
	b.dest_qp = 0x200;
	b.sport = 50010;
	v6 = a;
	v6.v6 = 1;
	memset(v6.src, 0, 16);
	memset(v6.dst, 0, 16);
	v6.src[0] = v6.dst[0] = 0xfd;
	v6.src[15] = 1;
	v6.dst[15] = 2;
	v6.dest_qp = 0x300;
	vl = a;
	vl.vlans = 1;
	vl.vid = 42;
	vl.pcp = 3;
	vl.dest_qp = 0x400;
	cnp = a;
	memcpy(cnp.src, a.dst, 16);
	memcpy(cnp.dst, a.src, 16);
	cnp.opcode = 0x81;
	cnp.dest_qp = 0x101;
	cnp.becn = 1;
	cnp.tos = 48 << 2;
	cnp.payload = 0;
	cnp.sport = 50020;

	/* Flow A crosses the 24-bit PSN wrap, flow B sees ECN marks and CNPs. */
	for (int m = 0; m < 20; m++) {
		write_msg(p, &a, &psn_a, 8, 0);
		write_msg(p, &b, &psn_b, 5, 7);
		if (m % 4 == 0) {
			struct cg_roce c = cnp;

			memcpy(c.src, b.dst, 16);
			memcpy(c.dst, b.src, 16);
			c.dest_qp = b.dest_qp + 1;
			roce(p, &c);
			ex.cnps++;
		}
		write_msg(p, &v6, &psn_6, 3, 0);
		write_msg(p, &vl, &psn_v, 1, 0);
	}
	/* A gap on flow A (two PSNs lost), the responder's NAK, then go-back-N
	 * from the first lost PSN: 2 retransmitted, the rest new. */
	psn_a += 2;
	ex.gaps++;
	write_msg(p, &a, &psn_a, 1, 0);
	{
		struct cg_roce nak = reverse(&a);

		nak.opcode = 0x11;
		nak.psn = (psn_a - 3) & 0xffffff;
		nak.syndrome = 0x60;
		roce(p, &nak);
		ex.seq_naks++;
		nak.syndrome = 0x2e; /* and an RNR NAK */
		roce(p, &nak);
		ex.rnr_naks++;
	}
	psn_a -= 3;
	write_msg(p, &a, &psn_a, 6, 0);
	ex.retrans += 3;
	/* PFC on priority 3: XOFF, refresh, XON; then priorities 3 and 4. */
	q[3] = 65535;
	put(p, cg_pfc(buf, 1 << 3, q));
	put(p, cg_pfc(buf, 1 << 3, q));
	q[3] = 0;
	put(p, cg_pfc(buf, 1 << 3, q));
	q[3] = 1000;
	q[4] = 2000;
	put(p, cg_pfc(buf, 1 << 3 | 1 << 4, q));
	ex.pfc += 4;
	/* Something else on the wire. */
	put(p, cg_udp_other(buf));
	put(p, cg_pause(buf, 500));
	if (cg_pcap_close(p))
		return 1;
	printf("packets=%lu roce=%lu ce_marked=%lu ect_marked=%lu cnps=%lu retransmissions=%lu "
	       "psn_gaps=%lu psn_seq_err=%lu rnr=%lu pfc=%lu flows=%d\n",
	       ex.packets, ex.roce, ex.ce, ex.ect, ex.cnps, ex.retrans, ex.gaps, ex.seq_naks, ex.rnr_naks,
	       ex.pfc, 9);
	return 0;
}

static int bench(const char *path, unsigned long mb)
{
	struct cg_pcap *p = cg_pcap_open(path);
	unsigned long long bytes = 0, limit = (unsigned long long)mb << 20;
	struct cg_roce r[64];
	uint32_t psn[64] = { 0 };

	if (!p)
		return 1;
	for (int i = 0; i < 64; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		cg_ip4(r[i].src, 10, 1, 0, (uint8_t)(1 + i % 8));
		cg_ip4(r[i].dst, 10, 2, 0, (uint8_t)(1 + i / 8));
		r[i].dest_qp = 0x1000 + (uint32_t)i;
		r[i].sport = (uint16_t)(49152 + i);
		r[i].payload = 1024;
	}
	snap = 0;
	while (bytes < limit) {
		for (int i = 0; i < 64 && bytes < limit; i++) {
			size_t n;

			write_msg(p, &r[i], &psn[i], 16, 50);
			(void)n;
			bytes += 16 * (1024 + 66 + 16) + 4 * 62;
		}
	}
	if (cg_pcap_close(p))
		return 1;
	printf("packets=%lu roce=%lu ce_marked=%lu\n", ex.packets, ex.roce, ex.ce);
	return 0;
}

static void flow(struct cg_roce *r, uint8_t host, uint32_t qp)
{
	memset(r, 0, sizeof(*r));
	cg_ip4(r->src, 10, 9, 0, host);
	cg_ip4(r->dst, 10, 9, 0, (uint8_t)(host + 1));
	r->dest_qp = qp;
	r->sport = (uint16_t)(49152 + qp);
	r->payload = 1024;
}

/* Loss-free WRITE streams on 4 flows, messages of 1 to 8 packets. */
static void case_write(struct cg_pcap *p)
{
	struct cg_roce r[4];
	uint32_t psn[4] = { 5, 0xfffffe, 77, 1000 };

	for (int i = 0; i < 4; i++)
		flow(&r[i], (uint8_t)(1 + 2 * i), 0x100 + 0x10 * (uint32_t)i);
	for (int m = 0; m < 12; m++)
		for (int i = 0; i < 4; i++)
			write_msg(p, &r[i], &psn[i], 1 + (m + i) % 8, 0);
}

/* WRITEs and their ACKs with the ICRC stripped, a NAK "PSN sequence
 * error" after two lost packets, the go-back-N resend, and an RNR NAK. */
static void case_noicrc(struct cg_pcap *p)
{
	struct cg_roce r, nak;
	uint32_t psn = 300;

	flow(&r, 1, 0x200);
	r.no_icrc = 1;
	for (int m = 0; m < 10; m++)
		write_msg(p, &r, &psn, 1 + m % 5, 0);
	psn += 2;
	ex.gaps++;
	ex.missing += 2;
	write_msg(p, &r, &psn, 1, 0);
	nak = reverse(&r);
	nak.opcode = 0x11;
	nak.psn = (psn - 3) & 0xffffff;
	nak.syndrome = 0x60;
	roce(p, &nak);
	ex.seq_naks++;
	psn -= 3;
	write_msg(p, &r, &psn, 4, 0);
	ex.retrans += 3;
	nak.syndrome = 0x2e;
	nak.psn = psn & 0xffffff;
	roce(p, &nak);
	ex.rnr_naks++;
}

/* One RDMA READ of @len bytes from @rq's side: the request, then the
 * responses on @rs with the PSNs it reserved at a path MTU of 1024;
 * @drop: a response packet left out (0: none). */
static void read_msg(struct cg_pcap *p, struct cg_roce *rq, struct cg_roce *rs, uint32_t *psn, uint32_t len,
		     int drop)
{
	uint32_t n = len ? (len + 1023) / 1024 : 1;

	rq->opcode = 0x0c;
	rq->payload = 0;
	rq->dma_len = len;
	rq->psn = *psn & 0xffffff;
	rq->ack_req = 1;
	roce(p, rq);
	for (uint32_t i = 0; i < n; i++) {
		rs->opcode = n == 1 ? 0x10 : i == 0 ? 0x0d : i == n - 1 ? 0x0f : 0x0e;
		rs->psn = (*psn + i) & 0xffffff;
		rs->payload = i == n - 1 && len % 1024 ? len % 1024 : 1024;
		rs->syndrome = 0x1f;
		if ((int)i + 1 == drop)
			continue;
		roce(p, rs);
	}
	*psn += n;
}

/* READs of 1 to 10 packets mixed with WRITEs on one QP (the path MTU is
 * known from the WRITEs), READs alone on another (it is not), then one
 * READ response packet lost. */
static void case_read(struct cg_pcap *p)
{
	static const uint32_t lens[] = { 4096, 100, 10000, 1024, 0, 3000, 65536 };
	struct cg_roce rq, rs, q2, s2;
	uint32_t psn = 0xfffff0, psn2 = 9;

	flow(&rq, 1, 0x300);
	rs = reverse(&rq);
	flow(&q2, 3, 0x400);
	s2 = reverse(&q2);
	for (int m = 0; m < 14; m++) {
		rq.payload = 1024;
		rq.dma_len = 0;
		write_msg(p, &rq, &psn, 1 + m % 3, 0);
		read_msg(p, &rq, &rs, &psn, lens[m % 7], 0);
		read_msg(p, &q2, &s2, &psn2, lens[(m + 3) % 7], 0);
	}
	read_msg(p, &q2, &s2, &psn2, 5000, 3);
	ex.gaps++;
	ex.missing++;
}

/* WRITE Only packets of 2000 bytes: IPv4 in two fragments, IPv6 behind a
 * hop-by-hop and a destination options header, IPv6 in two fragments;
 * then an IPv6 packet behind ESP. */
static void case_frag(struct cg_pcap *p)
{
	struct cg_roce r4, r6;
	uint32_t psn4 = 10, psn6 = 20, psn6f = 30;
	size_t n, f;

	flow(&r4, 1, 0x500);
	r4.payload = 2000;
	r4.opcode = 0x0a;
	r6 = r4;
	r6.v6 = 1;
	memset(r6.src, 0, 16);
	memset(r6.dst, 0, 16);
	r6.src[0] = r6.dst[0] = 0xfd;
	r6.src[15] = 1;
	r6.dst[15] = 2;
	for (int m = 0; m < 8; m++) {
		r4.psn = psn4++;
		n = cg_roce(buf, &r4);
		f = cg_fragment(frag, buf, n, 0, 1208, 1);
		put_from(p, frag, f);
		f = cg_fragment(frag, buf, n, 1208, CG_MAX, 0);
		put_from(p, frag, f);
		ex.roce++, ex.first_frags++, ex.frags_skipped++;

		r6.dest_qp = 0x600;
		r6.psn = psn6++;
		n = cg_roce(buf, &r6);
		n = cg_ip6_ext(buf, n, 60, 0, 0);
		n = cg_ip6_ext(buf, n, 0, 0, 0);
		put(p, n);
		ex.roce++, ex.ect++;

		r6.dest_qp = 0x700;
		r6.psn = psn6f++;
		n = cg_roce(buf, &r6);
		n = cg_ip6_ext(buf, n, 44, 0, 1);
		f = cg_fragment(frag, buf, n, 0, 1200, 1);
		put_from(p, frag, f);
		f = cg_fragment(frag, buf, n, 1200, CG_MAX, 0);
		put_from(p, frag, f);
		ex.roce++, ex.first_frags++, ex.frags_skipped++;
	}
	r6.dest_qp = 0x800;
	n = cg_roce(buf, &r6);
	buf[14 + 6] = 50;
	put(p, n);
	ex.ext_skipped++;
}

static int one_case(const char *name, const char *path, const char *snaparg)
{
	struct cg_pcap *p;

	snap = snaparg ? strtoul(snaparg, NULL, 10) : 0;
	p = cg_pcap_open(path);
	if (!p)
		return 1;
	if (!strcmp(name, "write"))
		case_write(p);
	else if (!strcmp(name, "noicrc"))
		case_noicrc(p);
	else if (!strcmp(name, "read"))
		case_read(p);
	else if (!strcmp(name, "frag"))
		case_frag(p);
	else
		return cg_pcap_close(p), 2;
	if (cg_pcap_close(p))
		return 1;
	printf("packets=%lu roce=%lu retransmissions=%lu psn_gaps=%lu psn_missing=%lu psn_seq_err=%lu rnr=%lu "
	       "icrc_absent=%lu first_fragments=%lu fragments_skipped=%lu ipv6_ext_skipped=%lu\n",
	       ex.packets, ex.roce, ex.retrans, ex.gaps, ex.missing, ex.seq_naks, ex.rnr_naks, ex.no_icrc,
	       ex.first_frags, ex.frags_skipped, ex.ext_skipped);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "scenario")) {
		snap = argc == 4 ? strtoul(argv[3], NULL, 10) : 0;
		return scenario(argv[2]);
	}
	if (argc == 4 && !strcmp(argv[1], "bench"))
		return bench(argv[2], strtoul(argv[3], NULL, 10));
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "case"))
		return one_case(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	fprintf(stderr, "usage: rocecap-gen scenario FILE [SNAP] | bench FILE MB | case NAME FILE [SNAP]\n");
	return 2;
}
