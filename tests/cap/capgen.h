/* Frames built byte by byte for the rocecap tests, fuzz seeds and benchmark:
 * Ethernet (VLAN tags), IPv4/IPv6, UDP 4791, BTH and its extensions, CNP,
 * PFC and PAUSE, and a pcap writer on libpcap's pcap_dump. */
#ifndef RCK_TESTS_CAPGEN_H
#define RCK_TESTS_CAPGEN_H

#include <stddef.h>
#include <stdint.h>

#define CG_MAX 9100

struct cg_roce {
	int v6;                     /* 0: IPv4 */
	uint8_t src[16], dst[16];   /* IPv4 in the first 4 bytes */
	uint8_t tos;                /* DSCP << 2 | ECN */
	uint16_t sport;
	uint8_t opcode;
	uint8_t fecn, becn, ack_req;
	uint32_t dest_qp, psn;
	uint8_t syndrome;           /* AETH, for opcodes that carry one */
	uint32_t payload;           /* bytes after the headers */
	int vlans;                  /* 0, 1 or 2 (QinQ) tags */
	uint16_t vid;
	uint8_t pcp;
	int no_icrc;                /* ICRC stripped: frame and lengths 4 bytes shorter */
	uint32_t dma_len;           /* RETH DMA length (default: the payload) */
};

/* Each returns the frame length written into @buf (CG_MAX bytes). */
size_t cg_roce(uint8_t *buf, const struct cg_roce *r);
/* PFC: bit n of @enable = priority n, quanta[n] its time. */
size_t cg_pfc(uint8_t *buf, uint16_t enable, const uint16_t quanta[8]);
size_t cg_pause(uint8_t *buf, uint16_t quanta);
/* A UDP datagram to another port (not RoCE). */
size_t cg_udp_other(uint8_t *buf);

void cg_ip4(uint8_t *a, uint8_t x, uint8_t y, uint8_t z, uint8_t w);

/* An IPv6 extension header of 8 bytes (hop-by-hop 0, destination options
 * 60: padding only; fragment 44 with @frag_off bytes and @more) inserted
 * after the fixed header of the untagged IPv6 frame @buf of @len bytes;
 * returns the new length. */
size_t cg_ip6_ext(uint8_t *buf, size_t len, uint8_t type, uint32_t frag_off, int more);
/* Fragment @n bytes from @off of the IP payload of the untagged IPv4 frame
 * @frame (@len bytes) into @out; @more: more fragments follow. The IPv6
 * frame must have a fragment header (cg_ip6_ext) right after the fixed
 * header. Returns the fragment's length. */
size_t cg_fragment(uint8_t *out, const uint8_t *frame, size_t len, size_t off, size_t n, int more);

/* pcap file writing (libpcap); NULL on failure. */
struct cg_pcap;
struct cg_pcap *cg_pcap_open(const char *path);
void cg_pcap_write(struct cg_pcap *p, uint64_t ts_ns, const uint8_t *buf, size_t len);
/* As cg_pcap_write, keeping at most @snap bytes of the frame (0: all). */
void cg_pcap_write_snap(struct cg_pcap *p, uint64_t ts_ns, const uint8_t *buf, size_t len, size_t snap);
int cg_pcap_close(struct cg_pcap *p);

#endif
