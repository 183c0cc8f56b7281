/* Frame builder of the rocecap tests: every header written field by field,
 * as the specifications lay them out, not through the decoder's structs. */
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "capgen.h"

static uint8_t *put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return p + 2;
}

static uint8_t *put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
	return p + 3;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	return put16(p + 2, (uint16_t)v);
}

void cg_ip4(uint8_t *a, uint8_t x, uint8_t y, uint8_t z, uint8_t w)
{
	memset(a, 0, 16);
	a[0] = x, a[1] = y, a[2] = z, a[3] = w;
}

static uint8_t *eth(uint8_t *p, const uint8_t dst[6], int vlans, uint16_t vid, uint8_t pcp, uint16_t type)
{
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x01 };

	memcpy(p, dst, 6);
	memcpy(p + 6, src, 6);
	p += 12;
	if (vlans >= 2) {
		p = put16(p, 0x88a8);
		p = put16(p, (uint16_t)(100));
	}
	if (vlans >= 1) {
		p = put16(p, 0x8100);
		p = put16(p, (uint16_t)(pcp << 13 | (vid & 0xfff)));
	}
	return put16(p, type);
}

/* Extension header bytes after BTH, as IBA lays them out per opcode. */
static size_t ext_len(uint8_t op)
{
	switch (op) {
	case 0x81: return 16;
	case 0x64: return 8;
	case 0x65: return 12;
	}
	switch (op & 0x1f) {
	case 0x03: case 0x05: case 0x09: case 0x16: case 0x17: return 4;
	case 0x06: case 0x0a: case 0x0c: return 16;
	case 0x0b: return 20;
	case 0x0d: case 0x0f: case 0x10: case 0x11: return 4;
	case 0x12: return 12;
	case 0x13: case 0x14: return 28;
	default: return 0;
	}
}

static uint16_t ip_csum(const uint8_t *h, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i < n; i += 2)
		s += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

size_t cg_roce(uint8_t *buf, const struct cg_roce *r)
{
	static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	size_t icrc = r->no_icrc ? 0 : 4, ext = ext_len(r->opcode), udp_len = 8 + 12 + ext + r->payload + icrc;
	uint8_t *p = eth(buf, mac, r->vlans, r->vid, r->pcp, r->v6 ? 0x86dd : 0x0800), *ip = p, *b;

	if (r->v6) {
		p = put32(p, 6u << 28 | (uint32_t)r->tos << 20);
		p = put16(p, (uint16_t)udp_len);
		*p++ = 17;
		*p++ = 64;
		memcpy(p, r->src, 16);
		memcpy(p + 16, r->dst, 16);
		p += 32;
	} else {
		*p++ = 0x45;
		*p++ = r->tos;
		p = put16(p, (uint16_t)(20 + udp_len));
		p = put16(p, 0);
		p = put16(p, 0x4000); /* DF */
		*p++ = 64;
		*p++ = 17;
		p = put16(p, 0);
		memcpy(p, r->src, 4);
		memcpy(p + 4, r->dst, 4);
		p += 8;
		put16(ip + 10, ip_csum(ip, 20));
	}
	p = put16(p, r->sport);
	p = put16(p, 4791);
	p = put16(p, (uint16_t)udp_len);
	p = put16(p, 0);
	/* BTH */
	*p++ = r->opcode;
	*p++ = 0; /* SE, M, pad count 0, TVer 0 */
	p = put16(p, r->opcode == 0x81 ? 0xffff : 0xffff);
	*p++ = (uint8_t)(r->fecn << 7 | r->becn << 6);
	p = put24(p, r->dest_qp);
	*p++ = (uint8_t)(r->ack_req << 7);
	p = put24(p, r->psn);
	b = p;
	memset(b, 0, ext);
	switch (r->opcode & 0x1f) {
	case 0x06: case 0x0a: case 0x0b: case 0x0c:
		if (r->opcode >> 5 <= 1) {
			put32(b, 0x7f00), put32(b + 4, 0x1000); /* VA */
			put32(b + 8, 0x1234);                   /* R_Key */
			put32(b + 12, r->dma_len ? r->dma_len : r->payload); /* DMA length */
		}
		break;
	case 0x0d: case 0x0f: case 0x10: case 0x11: case 0x12:
		if (r->opcode >> 5 == 0) {
			b[0] = r->syndrome;
			put24(b + 1, 1);
		}
		break;
	}
	p += ext;
	memset(p, 0xab, r->payload);
	p += r->payload;
	memset(p, 0xcc, icrc); /* ICRC: not checked */
	return (size_t)(p + icrc - buf);
}

size_t cg_pfc(uint8_t *buf, uint16_t enable, const uint16_t quanta[8])
{
	static const uint8_t mac[6] = { 0x01, 0x80, 0xc2, 0, 0, 0x01 };
	uint8_t *p = eth(buf, mac, 0, 0, 0, 0x8808);

	p = put16(p, 0x0101);
	p = put16(p, enable);
	for (int i = 0; i < 8; i++)
		p = put16(p, quanta[i]);
	memset(p, 0, 26); /* pad to the 60-byte minimum */
	return 60;
}

size_t cg_pause(uint8_t *buf, uint16_t quanta)
{
	static const uint8_t mac[6] = { 0x01, 0x80, 0xc2, 0, 0, 0x01 };
	uint8_t *p = eth(buf, mac, 0, 0, 0, 0x8808);

	p = put16(p, 0x0001);
	p = put16(p, quanta);
	memset(p, 0, 42);
	return 60;
}

size_t cg_udp_other(uint8_t *buf)
{
	struct cg_roce r = { .opcode = 0x04, .sport = 1000, .payload = 10 };
	size_t n;

	cg_ip4(r.src, 10, 0, 0, 1);
	cg_ip4(r.dst, 10, 0, 0, 2);
	n = cg_roce(buf, &r);
	put16(buf + 14 + 20 + 2, 53); /* destination port: DNS */
	return n;
}

size_t cg_ip6_ext(uint8_t *buf, size_t len, uint8_t type, uint32_t frag_off, int more)
{
	uint8_t *ip = buf + 14, *x = ip + 40;

	memmove(x + 8, x, len - 54);
	memset(x, 0, 8);
	x[0] = ip[6];
	if (type == 44) {
		put16(x + 2, (uint16_t)((frag_off & ~7u) | (more ? 1 : 0)));
		put32(x + 4, 0x1234);
	} else {
		x[2] = 1;  /* PadN of 4 bytes after the 2-byte header */
		x[3] = 4;
	}
	ip[6] = type;
	put16(ip + 4, (uint16_t)(((ip[4] << 8) | ip[5]) + 8));
	return len + 8;
}

size_t cg_fragment(uint8_t *out, const uint8_t *frame, size_t len, size_t off, size_t n, int more)
{
	int v6 = frame[12] == 0x86;
	size_t hl = v6 ? 48 : 20, total = len - 14 - hl;
	uint8_t *ip = out + 14;

	if (off + n > total)
		n = total - off;
	memcpy(out, frame, 14 + hl);
	memcpy(ip + hl, frame + 14 + hl + off, n);
	if (v6) {
		put16(ip + 4, (uint16_t)(8 + n));
		put16(ip + 42, (uint16_t)(off | (more ? 1 : 0)));
	} else {
		put16(ip + 2, (uint16_t)(20 + n));
		put16(ip + 6, (uint16_t)((more ? 0x2000 : 0) | off / 8));
		put16(ip + 10, 0);
		put16(ip + 10, ip_csum(ip, 20));
	}
	return 14 + hl + n;
}

struct cg_pcap {
	pcap_t *p;
	pcap_dumper_t *d;
};

struct cg_pcap *cg_pcap_open(const char *path)
{
	struct cg_pcap *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->p = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
	c->d = c->p ? pcap_dump_open(c->p, path) : NULL;
	if (!c->d) {
		if (c->p)
			pcap_close(c->p);
		free(c);
		return NULL;
	}
	return c;
}

void cg_pcap_write(struct cg_pcap *c, uint64_t ts_ns, const uint8_t *buf, size_t len)
{
	cg_pcap_write_snap(c, ts_ns, buf, len, 0);
}

void cg_pcap_write_snap(struct cg_pcap *c, uint64_t ts_ns, const uint8_t *buf, size_t len, size_t snap)
{
	struct pcap_pkthdr h = { .caplen = (bpf_u_int32)(snap && snap < len ? snap : len), .len = (bpf_u_int32)len };

	h.ts.tv_sec = (time_t)(ts_ns / 1000000000ull);
	h.ts.tv_usec = (suseconds_t)(ts_ns % 1000000000ull); /* ns: nanosecond file */
	pcap_dump((u_char *)c->d, &h, buf);
}

int cg_pcap_close(struct cg_pcap *c)
{
	int rc = pcap_dump_flush(c->d);

	pcap_dump_close(c->d);
	pcap_close(c->p);
	free(c);
	return rc;
}
