/* rocecap-gen: writes the pcap files the rocecap tests and benchmark read.
 *   rocecap-gen scenario FILE   mixed traffic with known trouble; prints
 *                               the counts rocecap must find (KEY=VALUE)
 *   rocecap-gen bench FILE MB   RDMA WRITE streams of 64 flows with ACKs */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capgen.h"

#define T0 1700000000000000000ull

static uint8_t buf[CG_MAX];
static uint64_t now = T0;

static struct {
	unsigned long packets, roce, ce, ect, cnps, retrans, gaps, seq_naks, rnr_naks, pfc;
} ex;

static void put(struct cg_pcap *p, size_t n)
{
	now += 2000;
	cg_pcap_write(p, now, buf, n);
	ex.packets++;
}

static void roce(struct cg_pcap *p, const struct cg_roce *r)
{
	put(p, cg_roce(buf, r));
	ex.roce++;
	if ((r->tos & 3) == 3)
		ex.ce++;
	else if (r->tos & 3)
		ex.ect++;
}

/* One RDMA WRITE of @n packets from @a to @b on QP @qp, acked every 4
 * packets and at the end by the responder (@b to @a, QP @qp + 1). */
static void write_msg(struct cg_pcap *p, struct cg_roce *r, uint32_t *psn, int n, int ce_every)
{
	struct cg_roce ack = *r;

	memcpy(ack.src, r->dst, 16);
	memcpy(ack.dst, r->src, 16);
	ack.dest_qp = r->dest_qp + 1;
	ack.sport = (uint16_t)(r->sport + 1);
	ack.opcode = 0x11;
	ack.payload = 0;
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
		struct cg_roce nak = a;

		memcpy(nak.src, a.dst, 16);
		memcpy(nak.dst, a.src, 16);
		nak.dest_qp = a.dest_qp + 1;
		nak.sport = (uint16_t)(a.sport + 1);
		nak.opcode = 0x11;
		nak.payload = 0;
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

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "scenario"))
		return scenario(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "bench"))
		return bench(argv[2], strtoul(argv[3], NULL, 10));
	fprintf(stderr, "usage: rocecap-gen scenario FILE | bench FILE MB\n");
	return 2;
}
