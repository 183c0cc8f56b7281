/* Frame decoder of rocecap: link layer, VLAN tags, MAC control (PFC and
 * PAUSE), IPv4/IPv6 with DSCP/ECN, UDP 4791 and the RoCEv2 transport headers. */
#ifndef RCK_CAP_DECODE_H
#define RCK_CAP_DECODE_H

#include <stddef.h>
#include <stdint.h>

#define CAP_ROCE_PORT 4791
#define CAP_BTH_LEN 12
#define CAP_ICRC_LEN 4
#define CAP_OP_CNP 0x81

enum cap_kind {
	CAP_OTHER = 0,     /* decoded, nothing rocecap follows (ARP, TCP, ...) */
	CAP_TRUNCATED,     /* a header cut short by the snap length */
	CAP_MALFORMED,     /* lengths or versions that contradict each other */
	CAP_BAD_LINK,      /* unknown link type */
	CAP_PFC,
	CAP_PAUSE,
	CAP_ROCE,
};

/* AETH syndrome classes (bits 7-5 of the syndrome byte). */
enum cap_aeth {
	CAP_AETH_NONE = 0,
	CAP_AETH_ACK,
	CAP_AETH_RNR,
	CAP_AETH_NAK_SEQ,  /* NAK code 0: PSN sequence error */
	CAP_AETH_NAK_OTHER,
};

struct cap_pkt {
	enum cap_kind kind;
	uint16_t vlan;     /* outer tag's VLAN id, 4096: untagged */
	uint8_t pcp;       /* outer tag's PCP, 8: untagged */
	uint8_t vlan_tags;
	/* PFC / PAUSE */
	uint16_t class_enable;  /* PFC: bit n = priority n; PAUSE: 0 */
	uint16_t quanta[8];     /* PAUSE: quanta[0] */
	/* IP */
	uint8_t family;    /* 4 or 6 */
	uint8_t src[16], dst[16]; /* IPv4 in the first 4 bytes */
	uint8_t dscp, ecn;
	uint16_t udp_sport;
	/* BTH */
	uint8_t opcode;
	uint8_t fecn, becn, ack_req;
	uint16_t pkey;
	uint32_t dest_qp, psn;
	/* extension headers */
	enum cap_aeth aeth;
	uint8_t syndrome;
	uint32_t msn;
	uint8_t has_reth;
	uint64_t reth_va;
	uint32_t reth_rkey, reth_dma_len;
	uint8_t has_deth;
	uint32_t deth_src_qp;
	uint32_t payload_len;   /* bytes after the transport headers, before the ICRC */
	/* what the capture left out */
	uint8_t bth_cut;        /* UDP 4791 but cut before the end of BTH (CAP_TRUNCATED) */
	uint8_t hdr_cut;        /* BTH whole, a later header cut (still CAP_ROCE) */
	uint8_t aeth_cut;       /* the opcode carries an AETH that was cut */
	uint8_t reth_cut;       /* the opcode carries a RETH that was cut */
	uint8_t no_icrc;        /* too short to hold an ICRC: decoded without it */
	uint8_t frag_first;     /* from the first fragment of an IP datagram */
	uint8_t frag_skipped;   /* a later IP fragment (CAP_OTHER): no headers to read */
	uint8_t ext_skipped;    /* IPv6 extension headers not followed (CAP_OTHER) */
};

/* Decode @caplen bytes of link type @linktype into @p; returns p->kind.
 * Never reads past data + caplen. */
enum cap_kind cap_decode(int linktype, const uint8_t *data, size_t caplen, struct cap_pkt *p);

/* Bytes of the extension headers after BTH for @opcode, or -1 for an
 * opcode with no defined layout (it then counts as RoCE with BTH only). */
int cap_ext_len(uint8_t opcode, int *aeth_off, int *reth_off, int *deth_off);

#endif
