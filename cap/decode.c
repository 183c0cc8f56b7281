/* Frame decoder of rocecap. Each layer checks its length against what was
 * captured (truncated) and against what the outer header claims (malformed). */
#include <string.h>

#include "decode.h"

#define ETH_P_8021Q 0x8100
#define ETH_P_8021AD 0x88a8
#define ETH_P_QINQ9100 0x9100
#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86dd
#define ETH_P_MACCTL 0x8808
#define MACCTL_PAUSE 0x0001
#define MACCTL_PFC 0x0101
#define MAX_VLAN_TAGS 8

static inline uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | be24(p + 1);
}

/* Layout of the extension headers that follow BTH, by opcode. The offsets
 * are from the end of BTH; -1 when the header is absent. */
int cap_ext_len(uint8_t opcode, int *aeth_off, int *reth_off, int *deth_off)
{
	int pre = 0, len;
	uint8_t op = opcode & 0x1f;

	*aeth_off = *reth_off = *deth_off = -1;
	switch (opcode >> 5) {
	case 0: /* RC */
		break;
	case 1: /* UC: sends and writes only */
		if (op > 0x0b)
			return -1;
		break;
	case 2: /* RD: RDETH, then DETH on requests */
		pre = 4;
		if (op <= 0x0c || op == 0x13 || op == 0x14) {
			*deth_off = pre;
			pre += 8;
		}
		break;
	case 3: /* UD: SEND Only (with immediate) after DETH */
		if (op != 0x04 && op != 0x05)
			return -1;
		*deth_off = 0;
		return op == 0x05 ? 12 : 8;
	case 4: /* CNP: 16 reserved bytes */
		return opcode == CAP_OP_CNP ? 16 : -1;
	case 5: /* XRC: XRCETH, then as RC */
		pre = 4;
		break;
	default:
		return -1;
	}
	switch (op) {
	case 0x00: case 0x01: case 0x02: case 0x04: case 0x07: case 0x08: case 0x0e:
		len = 0;
		break;
	case 0x03: case 0x05: case 0x09: case 0x16: case 0x17: /* ImmDt or IETH */
		len = 4;
		break;
	case 0x06: case 0x0a: case 0x0c:
		*reth_off = pre;
		len = 16;
		break;
	case 0x0b:
		*reth_off = pre;
		len = 20;
		break;
	case 0x0d: case 0x0f: case 0x10: case 0x11:
		*aeth_off = pre;
		len = 4;
		break;
	case 0x12: /* AETH + AtomicAckETH */
		*aeth_off = pre;
		len = 12;
		break;
	case 0x13: case 0x14: /* AtomicETH */
		len = 28;
		break;
	default:
		*deth_off = -1;
		return -1;
	}
	return pre + len;
}

static void aeth(struct cap_pkt *p, const uint8_t *a)
{
	uint8_t s = a[0];

	p->syndrome = s;
	p->msn = be24(a + 1);
	switch (s >> 5) {
	case 0:
		p->aeth = CAP_AETH_ACK;
		break;
	case 1:
		p->aeth = CAP_AETH_RNR;
		break;
	case 3:
		p->aeth = (s & 0x1f) == 0 ? CAP_AETH_NAK_SEQ : CAP_AETH_NAK_OTHER;
		break;
	default: /* 2 and 4-7 are reserved */
		p->aeth = CAP_AETH_NAK_OTHER;
		break;
	}
}

/* @cap bytes captured of a UDP payload of @len bytes (from the UDP header).
 * A whole BTH is enough to count the packet: a snap length that cuts a
 * later header leaves only that header unknown. A packet too short for its
 * ICRC is taken as one whose ICRC was stripped (by the NIC or a mirror). */
static enum cap_kind roce(struct cap_pkt *p, const uint8_t *b, size_t cap, size_t len)
{
	int ext, ao, ro, dof;
	size_t hdr, avail;
	uint8_t pad;

	if (len < CAP_BTH_LEN)
		return CAP_MALFORMED;
	if (cap < CAP_BTH_LEN) {
		p->bth_cut = 1;
		return CAP_TRUNCATED;
	}
	p->opcode = b[0];
	pad = (b[1] >> 4) & 3;
	p->pkey = be16(b + 2);
	p->fecn = b[4] >> 7;
	p->becn = (b[4] >> 6) & 1;
	p->dest_qp = be24(b + 5);
	p->ack_req = b[8] >> 7;
	p->psn = be24(b + 9);
	ext = cap_ext_len(p->opcode, &ao, &ro, &dof);
	if (ext < 0)
		ext = 0; /* unknown layout: BTH is all we read */
	hdr = CAP_BTH_LEN + (size_t)ext;
	if (len < hdr + pad)
		return CAP_MALFORMED;
	if (len < hdr + pad + CAP_ICRC_LEN) {
		p->no_icrc = 1;
		p->payload_len = (uint32_t)(len - hdr - pad);
	} else {
		p->payload_len = (uint32_t)(len - hdr - CAP_ICRC_LEN - pad);
	}
	p->hdr_cut = cap < hdr;
	avail = cap - CAP_BTH_LEN;
	b += CAP_BTH_LEN;
	if (ao >= 0) {
		if (avail >= (size_t)ao + 4)
			aeth(p, b + ao);
		else
			p->aeth_cut = 1;
	}
	if (ro >= 0) {
		if (avail >= (size_t)ro + 16) {
			p->has_reth = 1;
			p->reth_va = (uint64_t)be32(b + ro) << 32 | be32(b + ro + 4);
			p->reth_rkey = be32(b + ro + 8);
			p->reth_dma_len = be32(b + ro + 12);
		} else {
			p->reth_cut = 1;
		}
	}
	if (dof >= 0 && avail >= (size_t)dof + 8) {
		p->has_deth = 1;
		p->deth_src_qp = be24(b + dof + 5);
	}
	return CAP_ROCE;
}

/* UDP: @cap captured bytes, @len bytes the IP header gives its payload. In
 * the first fragment of a datagram the UDP length covers every fragment. */
static enum cap_kind udp(struct cap_pkt *p, const uint8_t *b, size_t cap, size_t len)
{
	size_t ulen;

	if (len < 8)
		return CAP_MALFORMED;
	if (cap < 8)
		return CAP_TRUNCATED;
	ulen = be16(b + 4);
	if (be16(b + 2) != CAP_ROCE_PORT)
		return CAP_OTHER;
	if (ulen < 8 || (ulen > len && !p->frag_first))
		return CAP_MALFORMED;
	p->udp_sport = be16(b);
	if (cap > len)
		cap = len;
	if (cap > ulen)
		cap = ulen;
	return roce(p, b + 8, cap - 8, ulen - 8);
}

#define IP4_MF 0x2000
#define IP4_OFFSET 0x1fff

static enum cap_kind ipv4(struct cap_pkt *p, const uint8_t *b, size_t cap)
{
	size_t ihl, tot;
	uint16_t frag;

	if (cap < 20)
		return CAP_TRUNCATED;
	if (b[0] >> 4 != 4)
		return CAP_MALFORMED;
	ihl = (size_t)(b[0] & 0x0f) * 4;
	tot = be16(b + 2);
	if (ihl < 20 || tot < ihl)
		return CAP_MALFORMED;
	if (cap < ihl)
		return CAP_TRUNCATED;
	p->family = 4;
	p->dscp = b[1] >> 2;
	p->ecn = b[1] & 3;
	memcpy(p->src, b + 12, 4);
	memcpy(p->dst, b + 16, 4);
	if (b[9] != 17)
		return CAP_OTHER;
	/* The first fragment holds UDP and the transport headers; a later one
	 * holds only payload and is counted as skipped. */
	frag = be16(b + 6);
	if (frag & IP4_OFFSET) {
		p->frag_skipped = 1;
		return CAP_OTHER;
	}
	p->frag_first = (frag & IP4_MF) != 0;
	return udp(p, b + ihl, (cap < tot ? cap : tot) - ihl, tot - ihl);
}

#define IP6_MAX_EXT 8

/* IPv6 extension headers before UDP: hop-by-hop, routing, destination
 * options, mobility, HIP, shim6 and AH are stepped over, a fragment header
 * as an IPv4 fragment; ESP (encrypted) and longer chains are skipped. */
static enum cap_kind ipv6(struct cap_pkt *p, const uint8_t *b, size_t cap)
{
	size_t plen, off = 40, n;
	uint8_t nh;

	if (cap < 40)
		return CAP_TRUNCATED;
	if (b[0] >> 4 != 6)
		return CAP_MALFORMED;
	p->family = 6;
	p->dscp = (uint8_t)((b[0] & 0x0f) << 2 | b[1] >> 6);
	p->ecn = (b[1] >> 4) & 3;
	memcpy(p->src, b + 8, 16);
	memcpy(p->dst, b + 24, 16);
	plen = be16(b + 4);
	nh = b[6];
	for (int i = 0; nh != 17; i++) {
		switch (nh) {
		case 0: case 43: case 60: case 135: case 139: case 140: case 44: case 51:
			break;
		case 50:
			p->ext_skipped = 1;
			return CAP_OTHER;
		default:
			return CAP_OTHER;
		}
		if (i == IP6_MAX_EXT) {
			p->ext_skipped = 1;
			return CAP_OTHER;
		}
		if (cap < off + 8)
			return CAP_TRUNCATED;
		if (nh == 44) {
			n = 8;
			if (be16(b + off + 2) & 0xfff8) {
				p->frag_skipped = 1;
				return CAP_OTHER;
			}
			p->frag_first = b[off + 3] & 1;
		} else if (nh == 51) {
			n = ((size_t)b[off + 1] + 2) * 4;
		} else {
			n = ((size_t)b[off + 1] + 1) * 8;
		}
		nh = b[off];
		off += n;
		if (off - 40 > plen)
			return CAP_MALFORMED;
	}
	if (cap < off)
		return CAP_TRUNCATED;
	cap -= off;
	plen -= off - 40;
	return udp(p, b + off, cap < plen ? cap : plen, plen);
}

static enum cap_kind macctl(struct cap_pkt *p, const uint8_t *b, size_t cap)
{
	uint16_t op;

	if (cap < 2)
		return CAP_TRUNCATED;
	op = be16(b);
	if (op == MACCTL_PAUSE) {
		if (cap < 4)
			return CAP_TRUNCATED;
		p->quanta[0] = be16(b + 2);
		return CAP_PAUSE;
	}
	if (op != MACCTL_PFC)
		return CAP_OTHER;
	if (cap < 20)
		return CAP_TRUNCATED;
	p->class_enable = be16(b + 2) & 0xff; /* the upper octet is reserved */
	for (int i = 0; i < 8; i++)
		p->quanta[i] = be16(b + 4 + 2 * i);
	return CAP_PFC;
}

/* After the link header: @type is the ethertype of what @b holds. */
static enum cap_kind l3(struct cap_pkt *p, uint16_t type, const uint8_t *b, size_t cap)
{
	while (type == ETH_P_8021Q || type == ETH_P_8021AD || type == ETH_P_QINQ9100) {
		if (cap < 4)
			return CAP_TRUNCATED;
		if (++p->vlan_tags > MAX_VLAN_TAGS)
			return CAP_MALFORMED;
		if (p->vlan_tags == 1) {
			p->pcp = b[0] >> 5;
			p->vlan = be16(b) & 0x0fff;
		}
		type = be16(b + 2);
		b += 4;
		cap -= 4;
	}
	switch (type) {
	case ETH_P_IP:
		return ipv4(p, b, cap);
	case ETH_P_IPV6:
		return ipv6(p, b, cap);
	case ETH_P_MACCTL:
		return macctl(p, b, cap);
	default:
		return CAP_OTHER;
	}
}

enum cap_kind cap_decode(int linktype, const uint8_t *b, size_t cap, struct cap_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->vlan = 4096;
	p->pcp = 8;
	switch (linktype) {
	case 1: /* Ethernet */
		if (cap < 14)
			return p->kind = CAP_TRUNCATED;
		return p->kind = l3(p, be16(b + 12), b + 14, cap - 14);
	case 113: /* Linux cooked v1: protocol at 14 */
		if (cap < 16)
			return p->kind = CAP_TRUNCATED;
		return p->kind = l3(p, be16(b + 14), b + 16, cap - 16);
	case 276: /* Linux cooked v2: protocol at 0 */
		if (cap < 20)
			return p->kind = CAP_TRUNCATED;
		return p->kind = l3(p, be16(b), b + 20, cap - 20);
	case 101: /* raw IP: the version nibble tells which */
	case 12:  /* DLT_RAW on OpenBSD-less Linux builds */
		if (cap < 1)
			return p->kind = CAP_TRUNCATED;
		if (b[0] >> 4 == 4)
			return p->kind = ipv4(p, b, cap);
		if (b[0] >> 4 == 6)
			return p->kind = ipv6(p, b, cap);
		return p->kind = CAP_MALFORMED;
	default:
		return p->kind = CAP_BAD_LINK;
	}
}
