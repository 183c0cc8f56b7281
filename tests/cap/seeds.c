/* Writes the seed corpus of the cap fuzz target: one frame of each kind the
 * decoder knows (link-type byte first). Run by hand:
 * rocecap-seeds tests/fuzz/corpus/cap */
#include <stdio.h>
#include <string.h>

#include "capgen.h"

static uint8_t buf[CG_MAX + 1];
static uint8_t whole[CG_MAX];

static int save(const char *dir, const char *name, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	buf[0] = 0; /* Ethernet */
	if (!f || fwrite(buf, 1, n + 1, f) != n + 1) {
		perror(path);
		return 1;
	}
	return fclose(f) != 0;
}

static int roce(const char *dir, const char *name, uint8_t op, uint8_t tos, int v6, int vlans,
		uint8_t syndrome)
{
	struct cg_roce r = { .opcode = op, .tos = tos, .v6 = v6, .vlans = vlans, .vid = 5, .pcp = 3,
			     .dest_qp = 0x12, .psn = 7, .sport = 49152, .syndrome = syndrome, .payload = 8 };

	cg_ip4(r.src, 10, 0, 0, 1);
	cg_ip4(r.dst, 10, 0, 0, 2);
	if (v6)
		r.src[0] = r.dst[0] = 0xfd;
	return save(dir, name, cg_roce(buf + 1, &r));
}

static void flow(struct cg_roce *r, uint8_t op, int v6)
{
	memset(r, 0, sizeof(*r));
	r->opcode = op;
	r->tos = 106;
	r->v6 = v6;
	r->dest_qp = 0x12;
	r->psn = 7;
	r->sport = 49152;
	r->payload = 1500;
	cg_ip4(r->src, 10, 0, 0, 1);
	cg_ip4(r->dst, 10, 0, 0, 2);
	if (v6)
		r->src[0] = r->dst[0] = 0xfd;
}

/* What captures leave out: snap lengths, ICRC, fragments, IPv6 options. */
static int partial(const char *d)
{
	struct cg_roce r;
	size_t n;
	int rc = 0;

	flow(&r, 0x06, 0);
	n = cg_roce(buf + 1, &r);
	rc |= save(d, "write-first-snap64", n < 64 ? n : 64);
	flow(&r, 0x11, 0);
	r.payload = 0;
	r.syndrome = 0x60;
	r.no_icrc = 1;
	rc |= save(d, "nak-seq-noicrc", cg_roce(buf + 1, &r));
	flow(&r, 0x11, 1);
	r.payload = 0;
	r.syndrome = 0x1f;
	r.no_icrc = 1;
	rc |= save(d, "ack-v6-noicrc", cg_roce(buf + 1, &r));
	flow(&r, 0x0c, 0);
	r.payload = 0;
	r.dma_len = 65536;
	rc |= save(d, "read-req", cg_roce(buf + 1, &r));
	flow(&r, 0x0a, 0);
	n = cg_roce(whole, &r);
	rc |= save(d, "frag4-first", cg_fragment(buf + 1, whole, n, 0, 1208, 1));
	rc |= save(d, "frag4-later", cg_fragment(buf + 1, whole, n, 1208, CG_MAX, 0));
	flow(&r, 0x0a, 1);
	n = cg_roce(whole, &r);
	n = cg_ip6_ext(whole, n, 60, 0, 0);
	n = cg_ip6_ext(whole, n, 0, 0, 0);
	memcpy(buf + 1, whole, n);
	rc |= save(d, "ip6-ext", n);
	n = cg_roce(whole, &r);
	n = cg_ip6_ext(whole, n, 44, 0, 1);
	rc |= save(d, "ip6-frag-first", cg_fragment(buf + 1, whole, n, 0, 1200, 1));
	rc |= save(d, "ip6-frag-later", cg_fragment(buf + 1, whole, n, 1200, CG_MAX, 0));
	n = cg_roce(buf + 1, &r);
	buf[1 + 14 + 6] = 50;
	rc |= save(d, "ip6-esp", n);
	return rc;
}

int main(int argc, char **argv)
{
	uint16_t q[8] = { 1, 2, 3, 65535, 0, 5, 6, 7 };
	const char *d;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: rocecap-seeds DIR\n");
		return 2;
	}
	d = argv[1];
	rc |= roce(d, "write-only-ce", 0x0a, 107, 0, 0, 0);
	rc |= roce(d, "write-first-vlan", 0x06, 106, 0, 1, 0);
	rc |= roce(d, "send-qinq", 0x04, 106, 0, 2, 0);
	rc |= roce(d, "ack-v6", 0x11, 106, 1, 0, 0x1f);
	rc |= roce(d, "nak-seq", 0x11, 106, 0, 0, 0x60);
	rc |= roce(d, "nak-rnr", 0x11, 106, 0, 0, 0x2e);
	rc |= roce(d, "read-resp", 0x10, 106, 0, 0, 0);
	rc |= roce(d, "atomic-ack", 0x12, 106, 0, 0, 0);
	rc |= roce(d, "cmp-swap", 0x13, 106, 0, 0, 0);
	rc |= roce(d, "ud-send", 0x64, 106, 0, 0, 0);
	rc |= roce(d, "cnp", 0x81, 192, 0, 0, 0);
	rc |= save(d, "pfc", cg_pfc(buf + 1, 0xff, q));
	rc |= save(d, "pause", cg_pause(buf + 1, 100));
	rc |= save(d, "udp-other", cg_udp_other(buf + 1));
	rc |= partial(d);
	return rc;
}
