/* librocecheck packet evidence (rocecap): PFC and PAUSE frames, ECN marks,
 * CNPs, NAKs, retransmissions and PSN gaps decoded from captured frames. */
#ifndef ROCECHECK_CAP_H
#define ROCECHECK_CAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rocecheck/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * How the analysis works (rocecap(8) tells the whole story):
 *  - Frames are handed in one at a time with their capture time
 *    (rck_cap_add()); nothing is kept of a frame after the call. Memory is
 *    bounded by opts->max_flows and opts->max_buckets, not by the number of
 *    frames, so a capture of any size streams through.
 *  - The decoder reads Ethernet (with up to eight 802.1Q/802.1ad tags),
 *    Linux cooked (SLL, SLL2) and raw IP link types; PFC (MAC control
 *    opcode 0x0101) and PAUSE (0x0001); IPv4/IPv6 with DSCP/ECN; RoCEv2 on
 *    UDP 4791: BTH, AETH, RETH, DETH, CNP (opcode 0x81). Every length is
 *    checked: a frame cut by the snap length inside a header counts as
 *    truncated; one cut before the end of BTH, or whose own lengths
 *    contradict each other, is malformed (not decoded); none is read past
 *    its end. A RoCE packet with a whole BTH counts with its opcode and PSN
 *    even when a later header or the payload was cut (what that leaves
 *    unknown is counted: AETH, RETH).
 *    A packet too short to hold the ICRC is decoded without one (stripped
 *    by the NIC or a mirror). IPv4 fragments and IPv6 extension headers
 *    (not ESP) are followed: the first fragment holds the headers, later
 *    fragments are counted as skipped.
 *  - A flow is (source IP, destination IP, BTH destination QP, UDP source
 *    port). PSNs are followed on every opcode that numbers packets one by
 *    one (not ACKs, which acknowledge with gaps, nor CNPs): a PSN above the
 *    next expected one is a gap, a PSN at or below the highest seen is a
 *    retransmission (24-bit serial arithmetic). An RDMA READ request of N
 *    packets reserves N PSNs: N comes from the RETH's length and the path
 *    MTU learnt from the flow's First/Middle packets; without one, any
 *    jump that a path MTU of 256 to 4096 explains is no gap (without a
 *    RETH, any jump forward). READ responses, in the requester's PSNs, are
 *    followed on their own: a gap is a PSN missing within one response.
 *  - A CNP from B to A says "your traffic to me was marked": it is counted
 *    on the flow from A to B that most recently carried a CE-marked packet,
 *    or, when none did, the flow from A to B that was seen last (BTH has no
 *    source QP, so the CNP's destination QP, A's QP, cannot name the flow
 *    directly). A CNP with no flow from A to B counts as unmatched. NAKs are
 *    counted on the flow that carries them: the responder's direction.
 *  - Pause: a PFC frame adds its quanta to every priority whose class-enable
 *    bit is set; one quantum is 512 bit times at opts->speed_gbps. A pause
 *    runs from the frame until its time expires or a frame with quanta 0
 *    (XON) for that priority ends it; a new XOFF before expiry extends the
 *    same run. The longest run is reported; a storm window is a window of
 *    opts->storm_window_s in which a priority was paused more than
 *    opts->storm_share of the time.
 *  - Handles are not thread-safe: use one rck_cap per thread.
 */

/** Link types rck_cap_add() decodes (the pcap LINKTYPE_ values). */
enum rck_cap_linktype {
	RCK_CAP_LINK_ETHERNET = 1,    /**< Ethernet II (DLT_EN10MB) */
	RCK_CAP_LINK_RAW = 101,       /**< raw IPv4/IPv6 (LINKTYPE_RAW) */
	RCK_CAP_LINK_LINUX_SLL = 113, /**< Linux cooked v1 (tcpdump -i any) */
	RCK_CAP_LINK_LINUX_SLL2 = 276,/**< Linux cooked v2 */
};

/**
 * Options. Initialise with rck_cap_opts_init(), then set what you need:
 * the library reads only the first @size bytes, members are only ever
 * added at the end.
 */
struct rck_cap_opts {
	size_t size;            /**< sizeof(struct rck_cap_opts) */
	double speed_gbps;      /**< link speed for quanta to time (default 100; 0.01 to 10000) */
	unsigned int max_flows; /**< flows followed at most; later ones are counted as untracked (default 65536) */
	double storm_window_s;  /**< window of the storm test (default 0.1 s) */
	double storm_share;     /**< paused share of a window that makes it a storm (default 0.5) */
	double interval_s;      /**< timeline bucket (default 1 s; doubled when max_buckets would be exceeded) */
	unsigned int max_buckets;/**< timeline buckets at most (default 4096) */
};

/** Fill @opts with the defaults and set opts->size. */
void rck_cap_opts_init(struct rck_cap_opts *opts);

/** Opaque analysis state. */
struct rck_cap;

/**
 * A new, empty analysis with @opts (NULL: defaults). The caller owns *out
 * and frees it with rck_cap_free(). Returns 0, -EINVAL for options out of
 * range or -ENOMEM.
 */
int rck_cap_new(const struct rck_cap_opts *opts, struct rck_cap **out);
void rck_cap_free(struct rck_cap *cap);

/**
 * Decode one frame of link type @linktype captured at @ts_ns (ns since the
 * epoch; frames should come in capture order) of which @caplen bytes were
 * captured out of @wirelen on the wire. Returns 0 for any frame, whatever
 * it held (undecodable frames are counted), -EINVAL for @caplen >
 * @wirelen or an unknown link type (counted as RCK_CAP_UNSUPPORTED_LINK
 * too), -EBUSY after rck_cap_finish(), -ENOMEM when a flow could not be
 * stored.
 */
int rck_cap_add(struct rck_cap *cap, int linktype, uint64_t ts_ns, const void *data,
		size_t caplen, size_t wirelen);

/**
 * Close the open pause runs at their expiry time so that pause time and
 * longest pause are final, judge the last storm windows and sort the flows
 * by trouble. Call after the last rck_cap_add() and before reading
 * results; rck_cap_add() refuses frames afterwards (-EBUSY).
 */
void rck_cap_finish(struct rck_cap *cap);

/** Whole-capture counters. */
enum rck_cap_stat {
	RCK_CAP_PACKETS = 0,       /**< frames handed in */
	RCK_CAP_BYTES,             /**< their wire length */
	RCK_CAP_MALFORMED,         /**< frames not decoded: inconsistent lengths, or cut before a usable header (BTH, PFC) */
	RCK_CAP_TRUNCATED,         /**< cut by the snap length inside a header: before the end of BTH (also malformed) or a RoCE packet's later header (RCK_CAP_ROCE_HEADERS_CUT, counted as RoCE) */
	RCK_CAP_UNSUPPORTED_LINK,  /**< frames of an unknown link type */
	RCK_CAP_ROCE_PACKETS,      /**< RoCEv2 packets with a whole BTH */
	RCK_CAP_ROCE_BYTES,        /**< their wire length */
	RCK_CAP_ECT_MARKED,        /**< RoCE packets with ECT(0) or ECT(1) */
	RCK_CAP_CE_MARKED,         /**< RoCE packets with CE */
	RCK_CAP_CNPS,              /**< CNPs (BTH opcode 0x81) */
	RCK_CAP_CNPS_UNMATCHED,    /**< CNPs with no flow they answer */
	RCK_CAP_FECN,              /**< BTH FECN bits set */
	RCK_CAP_BECN,              /**< BTH BECN bits set (CNPs included) */
	RCK_CAP_NAK_PSN_SEQ_ERR,   /**< NAKs "PSN sequence error" */
	RCK_CAP_NAK_RNR,           /**< RNR NAKs */
	RCK_CAP_NAK_OTHER,         /**< other NAKs (invalid request, access, operation) */
	RCK_CAP_RETRANSMISSIONS,   /**< packets whose PSN was seen before or goes back */
	RCK_CAP_PSN_GAPS,          /**< jumps forward over at least one PSN */
	RCK_CAP_PSN_MISSING,       /**< PSNs jumped over */
	RCK_CAP_FLOWS,             /**< flows followed */
	RCK_CAP_UNTRACKED,         /**< RoCE packets of flows beyond max_flows */
	RCK_CAP_PFC_FRAMES,        /**< PFC frames */
	RCK_CAP_LEGACY_PAUSE_FRAMES, /**< legacy PAUSE frames */
	RCK_CAP_FIRST_NS,          /**< capture time of the first frame (0: none) */
	RCK_CAP_LAST_NS,           /**< of the last frame */
	RCK_CAP_CUT,               /**< frames captured shorter than on the wire (snap length) */
	RCK_CAP_ROCE_BTH_CUT,      /**< frames to UDP 4791 cut before the end of BTH: PSN unknown, not counted as RoCE (in truncated too) */
	RCK_CAP_ROCE_HEADERS_CUT,  /**< RoCE packets counted by opcode and PSN whose later headers (AETH, RETH, ...) were cut */
	RCK_CAP_AETH_UNKNOWN,      /**< of them, ACK-carrying opcodes whose AETH was cut: ACK or NAK unknown */
	RCK_CAP_RETH_UNKNOWN,      /**< of them, opcodes whose RETH was cut (a READ request's length unknown) */
	RCK_CAP_NO_ICRC,           /**< RoCE packets too short to hold an ICRC, decoded without one */
	RCK_CAP_FIRST_FRAGMENTS,   /**< RoCE packets read from the first fragment of an IP datagram */
	RCK_CAP_FRAGMENTS_SKIPPED, /**< later IP fragments of UDP datagrams (no headers): not decoded */
	RCK_CAP_IPV6_EXT_SKIPPED,  /**< IPv6 packets behind ESP or more than 8 extension headers: not decoded */
	RCK_CAP_STAT_COUNT
};
uint64_t rck_cap_stat(const struct rck_cap *cap, enum rck_cap_stat stat);
/** JSON key of @stat ("ce_marked"); NULL when out of range. Static. */
const char *rck_cap_stat_name(enum rck_cap_stat stat);

/** Packets of BTH opcode @opcode (0-255). */
uint64_t rck_cap_opcode_packets(const struct rck_cap *cap, unsigned int opcode);
/**
 * Name of a BTH opcode ("RC RDMA WRITE Only", "CNP") written into @buf (40
 * bytes hold every name); returns @buf, or NULL for an opcode without a name.
 */
const char *rck_cap_opcode_name(unsigned int opcode, char *buf, size_t len);

/** Index of legacy PAUSE in the pause accessors, beside priorities 0-7. */
#define RCK_CAP_PAUSE_LEGACY 8

/** Pause statistics of one priority (0-7) or RCK_CAP_PAUSE_LEGACY. */
enum rck_cap_pause_stat {
	RCK_CAP_PAUSE_FRAMES = 0,   /**< frames naming it (class-enable bit set) */
	RCK_CAP_PAUSE_XOFF,         /**< of them with quanta > 0 */
	RCK_CAP_PAUSE_XON,          /**< of them with quanta 0 */
	RCK_CAP_PAUSE_QUANTA,       /**< quanta requested, summed */
	RCK_CAP_PAUSE_STORMS,       /**< storm windows */
	RCK_CAP_PAUSE_STAT_COUNT
};
uint64_t rck_cap_pause_stat(const struct rck_cap *cap, unsigned int prio, enum rck_cap_pause_stat stat);
/** Time requested by the quanta, summed (µs), at opts->speed_gbps. */
double rck_cap_pause_requested_us(const struct rck_cap *cap, unsigned int prio);
/** Time actually paused (overlapping requests counted once, XON honoured), µs. */
double rck_cap_pause_effective_us(const struct rck_cap *cap, unsigned int prio);
/** The longest continuous pause, µs. */
double rck_cap_pause_longest_us(const struct rck_cap *cap, unsigned int prio);

/** Flows, sorted by trouble after rck_cap_finish(): index 0 is the worst. */
size_t rck_cap_flow_count(const struct rck_cap *cap);
struct rck_cap_flow;
/** Flow @i, owned by @cap, valid until the next rck_cap_add(); NULL when out of range. */
const struct rck_cap_flow *rck_cap_flow(const struct rck_cap *cap, size_t i);

enum rck_cap_flow_stat {
	RCK_CAP_FLOW_DEST_QP = 0,
	RCK_CAP_FLOW_UDP_SPORT,
	RCK_CAP_FLOW_PACKETS,
	RCK_CAP_FLOW_BYTES,
	RCK_CAP_FLOW_FIRST_NS,
	RCK_CAP_FLOW_LAST_NS,
	RCK_CAP_FLOW_ECT_MARKED,
	RCK_CAP_FLOW_CE_MARKED,
	RCK_CAP_FLOW_CNPS,          /**< CNPs that answered this flow (see above) */
	RCK_CAP_FLOW_RETRANSMISSIONS,
	RCK_CAP_FLOW_PSN_GAPS,
	RCK_CAP_FLOW_PSN_MISSING,
	RCK_CAP_FLOW_NAK_PSN_SEQ_ERR,
	RCK_CAP_FLOW_NAK_RNR,
	RCK_CAP_FLOW_NAK_OTHER,
	RCK_CAP_FLOW_DSCP,          /**< DSCP of the last packet */
	RCK_CAP_FLOW_PCP,           /**< VLAN PCP of the last packet, 8: untagged */
	RCK_CAP_FLOW_VLAN,          /**< VLAN id of the last packet (outer tag), 4096: untagged */
	RCK_CAP_FLOW_STAT_COUNT
};
/** JSON key of a flow statistic ("psn_gaps"); NULL when out of range. Static. */
const char *rck_cap_flow_stat_name(enum rck_cap_flow_stat stat);
uint64_t rck_cap_flow_stat(const struct rck_cap_flow *flow, enum rck_cap_flow_stat stat);
/** Source or destination address as text ("10.0.0.1", "fe80::1"); @buf of 46 bytes or more. */
const char *rck_cap_flow_src(const struct rck_cap_flow *flow, char *buf, size_t len);
const char *rck_cap_flow_dst(const struct rck_cap_flow *flow, char *buf, size_t len);

/**
 * Timeline: per bucket of rck_cap_interval_s() from the first frame, the
 * time paused on each priority (effective, µs), the CE-marked, all RoCE and
 * the retransmitted packets. Any output pointer may be NULL.
 */
size_t rck_cap_bucket_count(const struct rck_cap *cap);
double rck_cap_interval_s(const struct rck_cap *cap);
/** Returns 0, or -ERANGE for a bucket or priority out of range. */
int rck_cap_bucket(const struct rck_cap *cap, size_t i, double pause_us[RCK_CAP_PAUSE_LEGACY + 1],
		   uint64_t *ce_marked, uint64_t *roce_packets, uint64_t *retransmissions);

/** What rck_cap_write() writes besides the summary. */
enum rck_cap_write_flags {
	RCK_CAP_WRITE_FLOWS = 1 << 0,    /**< text: every flow, not only the worst 10 (JSON always has all) */
	RCK_CAP_WRITE_TIMELINE = 1 << 1, /**< the timeline */
	RCK_CAP_WRITE_OPCODES = 1 << 2,  /**< text: packets per BTH opcode (JSON always has them) */
};

/**
 * Write the results (call rck_cap_finish() first): text or the JSON
 * document of schemas/rocecap.schema.json. Returns 0, -ENOMEM or -EIO.
 */
int rck_cap_write(const struct rck_cap *cap, FILE *out, enum rck_format fmt, unsigned int flags);

/**
 * Write the timeline as an SVG plot (pause time per priority and CE marks
 * per interval). Returns 0 or -EIO.
 */
int rck_cap_write_svg(const struct rck_cap *cap, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
