/* Vendor-neutral counters from raw ones: one data table per vendor mapping
 * each neutral id to ordered raw candidates (the first one present wins). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "internal.h"

/* '#' in a key of a MAP_PRIO row stands for the priority digit 0-7, and the
 * row fills the 8 ids starting at its id. */
#define MAP_PRIO 1u
#define MAP_KEYS 3

struct ctr_map {
	enum rck_counter id;
	unsigned int flags;
	unsigned int scale;          /* the value is multiplied by this */
	const char *keys[MAP_KEYS];  /* summed; all must be numbers */
};

#define ONE(id, k) { RCK_CTR_##id, 0, 1, { k } }
#define X4(id, k) { RCK_CTR_##id, 0, 4, { k } }
#define SUM(id, a, b) { RCK_CTR_##id, 0, 1, { a, b } }
#define PRIO(id, k) { RCK_CTR_##id, MAP_PRIO, 1, { k } }
#define PRIO_SUM(id, a, b) { RCK_CTR_##id, MAP_PRIO, 1, { a, b } }

/*
 * Tried first, for every vendor: the IB PMA counters. On a RoCE port the
 * kernel answers these from the device's RoCE (vport) counters, so rx_bytes
 * and tx_bytes are RDMA bytes: port_rcv_data/port_xmit_data count 4-octet
 * words, hence the x4. Kernels before 4.x kept the 64-bit forms apart in
 * counters_ext/.
 */
static const struct ctr_map generic_first[] = {
	X4(RX_BYTES, "counters/port_rcv_data"),
	X4(RX_BYTES, "counters_ext/port_rcv_data_64"),
	X4(TX_BYTES, "counters/port_xmit_data"),
	X4(TX_BYTES, "counters_ext/port_xmit_data_64"),
	ONE(RX_PACKETS, "counters/port_rcv_packets"),
	ONE(RX_PACKETS, "counters_ext/port_rcv_packets_64"),
	ONE(TX_PACKETS, "counters/port_xmit_packets"),
	ONE(TX_PACKETS, "counters_ext/port_xmit_packets_64"),
	ONE(SYMBOL_ERRORS, "counters/symbol_error"),
	ONE(LINK_ERROR_RECOVERY, "counters/link_error_recovery"),
	ONE(LINK_DOWNED, "counters/link_downed"),
	ONE(RX_ERRORS, "counters/port_rcv_errors"),
	ONE(TX_DISCARDS, "counters/port_xmit_discards"),
	ONE(TX_WAIT, "counters/port_xmit_wait"),
	ONE(LOCAL_LINK_INTEGRITY_ERRORS, "counters/local_link_integrity_errors"),
	ONE(EXCESSIVE_BUFFER_OVERRUN_ERRORS, "counters/excessive_buffer_overrun_errors"),
};

/*
 * Tried last: the bound netdev's statistics. They count what the netdev
 * sees, which on mlx5/bnxt/ice excludes RDMA (offloaded) traffic and on rxe
 * includes it with all other traffic, so they stand in only when no RDMA
 * source exists.
 */
static const struct ctr_map generic_last[] = {
	ONE(RX_BYTES, "netdev/rx_bytes"),
	ONE(TX_BYTES, "netdev/tx_bytes"),
	ONE(RX_PACKETS, "netdev/rx_packets"),
	ONE(TX_PACKETS, "netdev/tx_packets"),
	ONE(RX_ERRORS, "netdev/rx_errors"),
	ONE(TX_DISCARDS, "netdev/tx_dropped"),
	ONE(RX_DISCARDS, "netdev/rx_dropped"),
	ONE(CRC_ERRORS, "netdev/rx_crc_errors"),
};

/*
 * mlx5 (drivers/infiniband/hw/mlx5/counters.c, en_stats.c). Q counters carry
 * a "vport_" prefix on switchdev representors; the congestion counters do
 * not. The per-priority pause counters exist only for priorities with PFC
 * on; pause_duration is in microseconds.
 */
static const struct ctr_map mlx5_map[] = {
	ONE(SYMBOL_ERRORS, "ethtool/rx_symbol_err_phy"),
	ONE(LINK_DOWNED, "ethtool/link_down_events_phy"),
	ONE(TX_DISCARDS, "ethtool/tx_discards_phy"),
	ONE(ECN_MARKED_PACKETS, "hw_counters/np_ecn_marked_roce_packets"),
	ONE(CNP_SENT, "hw_counters/np_cnp_sent"),
	ONE(CNP_HANDLED, "hw_counters/rp_cnp_handled"),
	ONE(CNP_IGNORED, "hw_counters/rp_cnp_ignored"),
	ONE(OUT_OF_SEQUENCE, "hw_counters/out_of_sequence"),
	ONE(OUT_OF_SEQUENCE, "hw_counters/vport_out_of_sequence"),
	ONE(SEQ_ERR_NAKS, "hw_counters/packet_seq_err"),
	ONE(SEQ_ERR_NAKS, "hw_counters/vport_packet_seq_err"),
	ONE(LOCAL_ACK_TIMEOUTS, "hw_counters/local_ack_timeout_err"),
	ONE(LOCAL_ACK_TIMEOUTS, "hw_counters/vport_local_ack_timeout_err"),
	ONE(RETRY_EXCEEDED, "hw_counters/req_transport_retries_exceeded"),
	ONE(RETRY_EXCEEDED, "hw_counters/vport_req_transport_retries_exceeded"),
	ONE(RNR_NAKS, "hw_counters/rnr_nak_retry_err"),
	ONE(RNR_NAKS, "hw_counters/vport_rnr_nak_retry_err"),
	ONE(DUPLICATE_REQUESTS, "hw_counters/duplicate_request"),
	ONE(DUPLICATE_REQUESTS, "hw_counters/vport_duplicate_request"),
	ONE(OUT_OF_BUFFER, "hw_counters/out_of_buffer"),
	ONE(OUT_OF_BUFFER, "hw_counters/vport_out_of_buffer"),
	ONE(RX_DISCARDS, "ethtool/rx_discards_phy"),
	ONE(CRC_ERRORS, "ethtool/rx_crc_errors_phy"),
	/* Error events: the stall watchdog stopped the port's pause frames. */
	ONE(PAUSE_STORM_EVENTS, "ethtool/tx_pause_storm_error_events"),
	PRIO(PFC_RX_PAUSE, "ethtool/rx_prio#_pause"),
	PRIO(PFC_TX_PAUSE, "ethtool/tx_prio#_pause"),
	PRIO(PFC_RX_PAUSE_DURATION, "ethtool/rx_prio#_pause_duration"),
	PRIO(PFC_TX_PAUSE_DURATION, "ethtool/tx_prio#_pause_duration"),
};

/*
 * bnxt_re (hw_counters.c) and bnxt_en (bnxt_ethtool.c). Recent kernels
 * renamed the RoCE error counters to the mlx5 spellings (to_retransmits ->
 * local_ack_timeout_err, ...); both are listed, the older first. bnxt_re's rx_bytes/rx_pkts count the RoCE function's
 * unicast traffic. rx_pfc_ena_frames_priN counts every PFC frame naming
 * priority N (pause and resume alike); durations are in microseconds.
 */
static const struct ctr_map bnxt_map[] = {
	ONE(RX_BYTES, "hw_counters/rx_bytes"),
	ONE(TX_BYTES, "hw_counters/tx_bytes"),
	ONE(RX_PACKETS, "hw_counters/rx_pkts"),
	ONE(TX_PACKETS, "hw_counters/tx_pkts"),
	ONE(SYMBOL_ERRORS, "ethtool/rx_pcs_symbol_err"),
	ONE(LINK_DOWNED, "ethtool/link_down_events"),
	ONE(RX_ERRORS, "hw_counters/rx_roce_errors"),
	ONE(TX_DISCARDS, "hw_counters/tx_roce_discards"),
	ONE(ECN_MARKED_PACKETS, "hw_counters/rx_ecn_marked_pkts"),
	ONE(CNP_SENT, "hw_counters/tx_cnp_pkts"),
	ONE(CNP_HANDLED, "hw_counters/rx_cnp_pkts"),
	ONE(OUT_OF_SEQUENCE, "hw_counters/oos_drop_count"),
	ONE(SEQ_ERR_NAKS, "hw_counters/seq_err_naks_rcvd"),
	ONE(SEQ_ERR_NAKS, "hw_counters/packet_seq_err"),
	ONE(LOCAL_ACK_TIMEOUTS, "hw_counters/to_retransmits"),
	ONE(LOCAL_ACK_TIMEOUTS, "hw_counters/local_ack_timeout_err"),
	ONE(RETRY_EXCEEDED, "hw_counters/max_retry_exceeded"),
	ONE(RNR_NAKS, "hw_counters/rnr_naks_rcvd"),
	ONE(RNR_NAKS, "hw_counters/rnr_nak_retry_err"),
	ONE(DUPLICATE_REQUESTS, "hw_counters/dup_req"),
	ONE(DUPLICATE_REQUESTS, "hw_counters/duplicate_request"),
	ONE(OUT_OF_BUFFER, "hw_counters/rx_out_of_buffer"),
	ONE(RX_DISCARDS, "ethtool/rx_stat_discard"),
	ONE(RX_DISCARDS, "hw_counters/rx_roce_discards"),
	ONE(CRC_ERRORS, "ethtool/rx_fcs_err_frames"),
	ONE(PAUSE_STORM_EVENTS, "ethtool/continuous_roce_pause_events"),
	PRIO(PFC_RX_PAUSE, "ethtool/rx_pfc_ena_frames_pri#"),
	PRIO(PFC_TX_PAUSE, "ethtool/tx_pfc_ena_frames_pri#"),
	PRIO(PFC_RX_PAUSE_DURATION, "ethtool/pfc_pri#_rx_duration_us"),
	PRIO(PFC_TX_PAUSE_DURATION, "ethtool/pfc_pri#_tx_duration_us"),
};

/*
 * irdma (verbs.c) on ice (ice_ethtool.c). irdma counts the RDMA engine's own
 * IP traffic per family, so bytes and packets are IPv4 + IPv6. ice counts
 * PFC frames per priority as XON (resume) and XOFF (pause) separately; their
 * sum is the frames naming that priority, as mlx5 and bnxt count them. ice
 * has no pause durations.
 */
static const struct ctr_map irdma_map[] = {
	SUM(RX_BYTES, "hw_counters/ip4InOctets", "hw_counters/ip6InOctets"),
	SUM(TX_BYTES, "hw_counters/ip4OutOctets", "hw_counters/ip6OutOctets"),
	SUM(RX_PACKETS, "hw_counters/ip4InPkts", "hw_counters/ip6InPkts"),
	SUM(TX_PACKETS, "hw_counters/ip4OutPkts", "hw_counters/ip6OutPkts"),
	ONE(ECN_MARKED_PACKETS, "hw_counters/RxECNMrkd"),
	ONE(CNP_SENT, "hw_counters/cnpSent"),
	ONE(CNP_HANDLED, "hw_counters/cnpHandled"),
	ONE(CNP_IGNORED, "hw_counters/cnpIgnored"),
	ONE(RX_DISCARDS, "ethtool/rx_dropped.nic"),
	ONE(CRC_ERRORS, "ethtool/rx_crc_errors.nic"),
	PRIO_SUM(PFC_RX_PAUSE, "ethtool/rx_priority_#_xon.nic", "ethtool/rx_priority_#_xoff.nic"),
	PRIO_SUM(PFC_TX_PAUSE, "ethtool/tx_priority_#_xon.nic", "ethtool/tx_priority_#_xoff.nic"),
};

/*
 * rxe (rxe_hw_counters.c). Software counters; older kernels spelt
 * out_of_seq_request "out_of_sequence". rxe has no CNP/DCQCN and never
 * looks at ECN bits, so those stay absent.
 */
static const struct ctr_map rxe_map[] = {
	ONE(RX_PACKETS, "hw_counters/rcvd_pkts"),
	ONE(TX_PACKETS, "hw_counters/sent_pkts"),
	ONE(LINK_DOWNED, "hw_counters/link_downed"),
	ONE(OUT_OF_SEQUENCE, "hw_counters/out_of_seq_request"),
	ONE(OUT_OF_SEQUENCE, "hw_counters/out_of_sequence"),
	ONE(SEQ_ERR_NAKS, "hw_counters/rcvd_seq_err"),
	ONE(RETRY_EXCEEDED, "hw_counters/retry_exceeded_err"),
	ONE(RNR_NAKS, "hw_counters/rcvd_rnr_err"),
	ONE(DUPLICATE_REQUESTS, "hw_counters/duplicate_request"),
};

static const struct {
	const struct ctr_map *map;
	size_t n;
} vendor_maps[] = {
	[RCK_VENDOR_UNKNOWN] = { NULL, 0 },
	[RCK_VENDOR_MLX5] = { mlx5_map, RCK_ARRAY_SIZE(mlx5_map) },
	[RCK_VENDOR_BNXT] = { bnxt_map, RCK_ARRAY_SIZE(bnxt_map) },
	[RCK_VENDOR_IRDMA] = { irdma_map, RCK_ARRAY_SIZE(irdma_map) },
	[RCK_VENDOR_RXE] = { rxe_map, RCK_ARRAY_SIZE(rxe_map) },
};

/* @key with '#' replaced by @prio's digit. */
static void expand_key(char *buf, size_t len, const char *key, int prio)
{
	size_t i;

	for (i = 0; key[i] && i + 1 < len; i++)
		buf[i] = key[i] == '#' && prio >= 0 ? (char)('0' + prio) : key[i];
	buf[i] = '\0';
}

/* Try one row for one priority (-1: not a priority row). 1 when it applied,
 * 0 when a raw value it needs is missing or not a number, -1 when the
 * scaled value would pass 64 bits (@src then names the row). */
static int try_row(const struct ctr_port *p, const struct ctr_map *m, int prio, uint64_t *out,
		   char *src, size_t srclen)
{
	uint64_t sum = 0;
	size_t used = 0;

	src[0] = '\0';
	for (int k = 0; k < MAP_KEYS && m->keys[k]; k++) {
		char key[CTR_KEY_LEN];
		const struct ctr_raw *r;
		int n;

		expand_key(key, sizeof(key), m->keys[k], prio);
		r = ctr_raw_find(p, key);
		if (!r || r->state != RAW_OK)
			return 0;
		/* A sum past 64 bits is garbage from somewhere: not usable. */
		if (sum > UINT64_MAX - r->val)
			return 0;
		sum += r->val;
		n = snprintf(src + used, srclen - used, "%s%s", k ? "+" : "", key);
		if (n < 0 || (size_t)n >= srclen - used)
			return 0;
		used += (size_t)n;
	}
	if (m->scale > 1) {
		snprintf(src + used, srclen - used, "*%u", m->scale);
		/* A 64-bit word counter past 2^62 (a driver reporting bytes
		 * where the PMA asks for words, or garbage): no byte count. */
		if (sum > UINT64_MAX / m->scale)
			return -1;
		sum *= m->scale;
	}
	*out = sum;
	return 1;
}

/* Apply the rows of @map to the ids not set yet. */
static int apply(struct ctr_port *p, const struct ctr_map *map, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct ctr_map *m = &map[i];
		int nprio = m->flags & MAP_PRIO ? 8 : 1;

		for (int q = 0; q < nprio; q++) {
			unsigned int id = (unsigned int)m->id + (unsigned int)q;
			char src[CTR_SRC_LEN];
			uint64_t v;
			int r;

			/* An overflow is the answer: a later row (the netdev's
			 * bytes) counts other traffic and must not stand in. */
			if (p->has[id] || p->over[id])
				continue;
			r = try_row(p, m, m->flags & MAP_PRIO ? q : -1, &v, src, sizeof(src));
			if (r < 0 && !(p->over[id] = strdup(src)))
				return -ENOMEM;
			if (r <= 0)
				continue;
			p->src[id] = strdup(src);
			if (!p->src[id])
				return -ENOMEM;
			p->val[id] = v;
			p->has[id] = true;
		}
	}
	return 0;
}

int ctr_map_neutral(struct ctr_port *p, enum rck_vendor vendor)
{
	int rc;

	p->raw_only = (unsigned int)vendor >= RCK_ARRAY_SIZE(vendor_maps) || !vendor_maps[vendor].map;
	rc = apply(p, generic_first, RCK_ARRAY_SIZE(generic_first));
	if (!rc && (unsigned int)vendor < RCK_ARRAY_SIZE(vendor_maps) && vendor_maps[vendor].map)
		rc = apply(p, vendor_maps[vendor].map, vendor_maps[vendor].n);
	if (!rc)
		rc = apply(p, generic_last, RCK_ARRAY_SIZE(generic_last));
	return rc;
}

/* @key against a map key whose '#' stands for a priority digit 0-7. */
static bool key_match(const char *pat, const char *key)
{
	for (; *pat && *key; pat++, key++)
		if (*pat == '#' ? *key < '0' || *key > '7' : *pat != *key)
			return false;
	return !*pat && !*key;
}

static bool map_wants(const struct ctr_map *map, size_t n, const bool *ids, const char *key)
{
	for (size_t i = 0; i < n; i++) {
		unsigned int nprio = map[i].flags & MAP_PRIO ? 8 : 1;
		bool any = false;

		for (unsigned int q = 0; q < nprio; q++)
			any |= ids[(unsigned int)map[i].id + q];
		for (int k = 0; any && k < MAP_KEYS && map[i].keys[k]; k++)
			if (key_match(map[i].keys[k], key))
				return true;
	}
	return false;
}

bool ctr_want_key(const struct ctr_want *w, enum rck_vendor vendor, const char *key)
{
	for (size_t i = 0; i < w->n_raw; i++)
		if (!strcmp(w->raw[i], key))
			return true;
	if (map_wants(generic_first, RCK_ARRAY_SIZE(generic_first), w->ids, key) ||
	    map_wants(generic_last, RCK_ARRAY_SIZE(generic_last), w->ids, key))
		return true;
	return (unsigned int)vendor < RCK_ARRAY_SIZE(vendor_maps) && vendor_maps[vendor].map &&
	       map_wants(vendor_maps[vendor].map, vendor_maps[vendor].n, w->ids, key);
}
