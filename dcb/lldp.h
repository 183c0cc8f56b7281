/* LLDP frames with IEEE 802.1Qaz DCBX TLVs: the decoded form shared by the
 * decoder, the capture and the host-vs-switch check. */
#ifndef RCK_DCB_LLDP_H
#define RCK_DCB_LLDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocecheck/dcb.h"

#define LLDP_ETHERTYPE 0x88cc
#define LLDP_MAX_APPS 128
#define LLDP_MAX_WARN 16

struct lldp_ets {
	bool present;
	bool willing, cbs;      /* configuration TLV only */
	uint8_t max_tcs;        /* 0 in the TLV means 8 */
	uint8_t prio_tc[8], tc_bw[8], tsa[8];
};

struct rck_lldp {
	char src_mac[18];
	uint8_t chassis_subtype, port_subtype;
	char chassis_id[256 * 3];
	char port_id[256 * 3];
	char port_desc[256];
	char sys_name[256];
	bool has_ttl;
	uint16_t ttl;
	struct lldp_ets ets, reco;
	bool has_pfc, pfc_willing, pfc_mbc;
	uint8_t pfc_cap, pfc_en;
	bool has_app;
	struct { uint8_t selector, priority; uint16_t protocol; } apps[LLDP_MAX_APPS];
	size_t n_apps;
	char warn[LLDP_MAX_WARN][96];
	size_t n_warn;
};

/* Decode one Ethernet frame (optionally 802.1Q tagged). -EBADMSG when it is
 * not LLDP or lacks the mandatory chassis ID, port ID and TTL; malformed
 * optional TLVs are skipped with a warning. */
int lldp_decode(const uint8_t *frame, size_t len, struct rck_lldp *l);

#endif
