/* librocecheck DCB: a port's IEEE DCB state (dcbnl), its rdma_cm defaults
 * (configfs) and vendor knobs; profiles, check against a profile, apply with rollback. */
#ifndef ROCECHECK_DCB_H
#define ROCECHECK_DCB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rocecheck/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Conventions: every int-returning call returns 0 or a negative errno.
 * A feature the driver does not implement is -EOPNOTSUPP from its
 * accessor, never a zero value. Handles are not thread-safe; distinct
 * handles may be used from distinct threads. Strings returned by accessors
 * are owned by the handle and live as long as it.
 */

/** The DCB state of one network interface, read at one moment. */
struct rck_dcb;

/** Parts of the state a driver may or may not implement. */
enum rck_dcb_feature {
	RCK_DCB_PFC = 0,      /**< IEEE PFC (ieee_getpfc) */
	RCK_DCB_ETS = 1,      /**< IEEE ETS (ieee_getets) */
	RCK_DCB_APP = 2,      /**< APP table (any driver with dcbnl operations) */
	RCK_DCB_DCBX = 3,     /**< DCBX mode (getdcbx) */
	RCK_DCB_MAXRATE = 4,  /**< per-TC maximum rate (ieee_getmaxrate) */
	RCK_DCB_BUFFER = 5,   /**< receive buffers (dcbnl_getbuffer) */
	RCK_DCB_RDMA_CM = 6,  /**< rdma_cm defaults of the RDMA device (configfs) */
};

/** APP selectors: DSCP (5) and PCP (255, Linux's own). */
#define RCK_DCB_SEL_DSCP 5
#define RCK_DCB_SEL_PCP 255

/**
 * Read the state of @ifname (or of the netdev behind RDMA device @ifname):
 * dcbnl IEEE state, DCBX mode, rdma_cm defaults of the RDMA device on it,
 * vendor knobs. -ENODEV when no such interface; a port without any dcbnl
 * support is returned (every feature then -EOPNOTSUPP). Each netlink call
 * has the context's timeout. Free with rck_dcb_free().
 */
int rck_dcb_read(struct rck_ctx *ctx, const char *name, struct rck_dcb **out);
void rck_dcb_free(struct rck_dcb *dcb);

/** Interface name. */
const char *rck_dcb_ifname(const struct rck_dcb *dcb);
/** RDMA device on this interface (e.g. "mlx5_0"), NULL when none; @port gets its port. */
const char *rck_dcb_rdma_device(const struct rck_dcb *dcb, unsigned int *port);
/** 0 when the feature was read; -EOPNOTSUPP (driver lacks it), or the read error. */
int rck_dcb_supported(const struct rck_dcb *dcb, enum rck_dcb_feature f);

/** PFC enable bitmap (bit n = priority n), capability, MBC and delay. */
int rck_dcb_pfc(const struct rck_dcb *dcb, uint8_t *enabled, uint8_t *cap, bool *mbc, uint16_t *delay);
/** PFC frames sent (requests) and received (indications) on priority @prio (0-7). */
int rck_dcb_pfc_counters(const struct rck_dcb *dcb, unsigned int prio, uint64_t *requests,
			 uint64_t *indications);
/** ETS: traffic class of @prio, and bandwidth % and TSA (0 strict, 1 CBS, 2 ETS, 255 vendor) of TC @prio. */
int rck_dcb_ets(const struct rck_dcb *dcb, unsigned int prio, uint8_t *prio_tc, uint8_t *tc_bw,
		uint8_t *tc_tsa);
/** ETS willing bit and the number of TCs the device supports. */
int rck_dcb_ets_cap(const struct rck_dcb *dcb, bool *willing, uint8_t *ets_cap);
/** Number of APP table entries (0 when unsupported). */
size_t rck_dcb_app_count(const struct rck_dcb *dcb);
/** APP entry @i: selector (RCK_DCB_SEL_*), protocol (DSCP value, PCP...), priority. */
int rck_dcb_app(const struct rck_dcb *dcb, size_t i, uint8_t *selector, uint16_t *protocol,
		uint8_t *priority);
/** DCBX mode bits (linux/dcbnl.h DCB_CAP_DCBX_*: 0x1 host, 0x2 LLD managed, 0x4 CEE, 0x8 IEEE, 0x10 static). */
int rck_dcb_dcbx(const struct rck_dcb *dcb, uint8_t *mode);
/** Maximum rate of TC @tc in bits per second (0: unlimited): the kernel's
 * value, kbit/s by linux/dcbnl.h, times 1000. (iproute2 6.1's `dcb maxrate`
 * writes bytes/s into that field.) */
int rck_dcb_maxrate(const struct rck_dcb *dcb, unsigned int tc, uint64_t *bps);
/** Buffer of priority @prio, size of buffer @prio (bytes), and the total. */
int rck_dcb_buffer(const struct rck_dcb *dcb, unsigned int prio, uint8_t *prio_buffer,
		   uint32_t *buffer_size, uint32_t *total_size);
/** rdma_cm defaults: ToS (0-255) and RoCE mode ("RoCE v2", "IB/RoCE v1"). */
int rck_dcb_roce_defaults(const struct rck_dcb *dcb, unsigned int *tos, const char **mode);
/** Trust mode "dscp" or "pcp" and how it was derived (one sentence). */
const char *rck_dcb_trust(const struct rck_dcb *dcb, const char **derived_from);
/** Vendor knobs found (e.g. "qos/trust"): count, then name and value of @i. */
size_t rck_dcb_vendor_count(const struct rck_dcb *dcb);
int rck_dcb_vendor(const struct rck_dcb *dcb, size_t i, const char **name, const char **value);

/** Write the states of @n ports as text or as one JSON document
 * {"schema_version", "ports": [...]} (schemas/rocedcb.schema.json, "show"). */
int rck_dcb_write(const struct rck_dcb *const *ports, size_t n, enum rck_format fmt, FILE *out);

/* ------------------------------------------------------------ profiles */

/** A desired DCB state: built in or read from a file (rocedcb(8)). */
struct rck_dcb_profile;

/**
 * Built-in profile @name ("roce-lossless"), or the file at @name when it
 * names no built-in. On a syntax error returns -EINVAL and writes
 * "FILE:LINE: reason" into @err (@errlen bytes, may be 0).
 */
int rck_dcb_profile_load(const char *name, char *err, size_t errlen,
			 struct rck_dcb_profile **out);
/** Parse profile text (@len bytes) named @source in error messages. */
int rck_dcb_profile_parse(const char *text, size_t len, const char *source, char *err,
			  size_t errlen, struct rck_dcb_profile **out);
void rck_dcb_profile_free(struct rck_dcb_profile *p);
const char *rck_dcb_profile_name(const struct rck_dcb_profile *p);

/* ------------------------------------------------------------ check */

/** Field-by-field comparison of a port's state with a profile. */
struct rck_dcb_diff;

/** Compare; a field the driver cannot report is a difference of its own
 * ("not supported by this driver"). */
int rck_dcb_check(const struct rck_dcb_profile *p, const struct rck_dcb *dcb,
		  struct rck_dcb_diff **out);
void rck_dcb_diff_free(struct rck_dcb_diff *d);
/** Number of checked fields and of those that differ (unknown ones not
 * counted as differing). */
size_t rck_dcb_diff_count(const struct rck_dcb_diff *d, size_t *mismatches);
/** Number of fields the driver could not report or that do not apply
 * (no RDMA device): neither a match nor a mismatch. */
size_t rck_dcb_diff_unknowns(const struct rck_dcb_diff *d);
/** Field @i: name, wanted and found values (text), and whether they match. */
int rck_dcb_diff_field(const struct rck_dcb_diff *d, size_t i, const char **field,
		       const char **want, const char **have, bool *match);
/** Write @n comparisons as text or one JSON document {"schema_version",
 * "match", "ports": [...]} (schemas/rocedcb.schema.json, "check"). */
int rck_dcb_diff_write(const struct rck_dcb_diff *const *diffs, size_t n, enum rck_format fmt,
		       FILE *out);

/* ------------------------------------------------------------ apply */

/** What an apply or restore did (or would do with dry_run). */
struct rck_dcb_change_log;

/**
 * Bring @ifname to profile @p: read, modify, write in a safe order (ETS,
 * buffer, PFC, APP additions, APP removals, rdma_cm). Before the first write
 * the current state is saved atomically to @state_path (NULL: not saved).
 * When a step fails, the steps already done are undone in reverse order and
 * the error is returned; the log says what was changed and restored.
 * With @dry_run nothing is written, and a part the profile sets whose
 * current value cannot be read is planned as unknown (rck_dcb_change_kind)
 * instead of refused, so the log holds the whole plan. Needs CAP_NET_ADMIN
 * (-EPERM without) unless @dry_run.
 * The log is returned in *out even on failure (free it).
 */
int rck_dcb_apply(struct rck_ctx *ctx, const struct rck_dcb_profile *p, const char *ifname,
		  const char *state_path, bool dry_run, struct rck_dcb_change_log **out);
/** Return @ifname (NULL: the one in the file) to the state saved at @state_path. */
int rck_dcb_restore(struct rck_ctx *ctx, const char *state_path, const char *ifname,
		    struct rck_dcb_change_log **out);
void rck_dcb_change_log_free(struct rck_dcb_change_log *log);
/** Number of entries; entry @i as one line of text, and whether it was rolled back. */
size_t rck_dcb_change_count(const struct rck_dcb_change_log *log);
const char *rck_dcb_change(const struct rck_dcb_change_log *log, size_t i, bool *rolled_back);
/** What entry @i is. Only a dry run has entries other than SET: a part the
 * profile sets whose current value could not be read (UNKNOWN: the line
 * says "unknown -> X (why)"; a real apply refuses such a profile before
 * writing anything), or a part that does not apply and is left out
 * (SKIPPED: rdma_cm defaults on a port without an RDMA device). */
enum rck_dcb_change_kind {
	RCK_DCB_CHANGE_SET,
	RCK_DCB_CHANGE_UNKNOWN,
	RCK_DCB_CHANGE_SKIPPED,
};
enum rck_dcb_change_kind rck_dcb_change_kind(const struct rck_dcb_change_log *log, size_t i);
/** The step that failed ("pfc", "app add 26:3" ...), NULL when none failed. */
const char *rck_dcb_change_failed_step(const struct rck_dcb_change_log *log);
/** True when a failure was followed by a complete rollback. */
bool rck_dcb_change_rolled_back(const struct rck_dcb_change_log *log);


/* ------------------------------------------------------------ switch side (LLDP) */

/** What the link partner (the switch) announces in LLDP: chassis and port
 * IDs and the IEEE 802.1Qaz DCBX TLVs. */
struct rck_lldp;

/**
 * Decode one Ethernet frame (ethertype 0x88cc, optionally 802.1Q tagged).
 * -EBADMSG when it is not LLDP or lacks the chassis ID, port ID and TTL;
 * malformed optional TLVs are skipped and listed by rck_lldp_warning().
 */
int rck_lldp_decode(const uint8_t *frame, size_t len, struct rck_lldp **out);
/**
 * Wait up to @timeout_ms for an LLDP frame on @ifname (libpcap, ether proto
 * 0x88cc, promiscuous) and decode it. -ETIMEDOUT when none came, -EPERM
 * without CAP_NET_RAW, -EOPNOTSUPP when built without libpcap.
 */
int rck_lldp_capture(struct rck_ctx *ctx, const char *ifname, unsigned int timeout_ms,
		     struct rck_lldp **out);
/**
 * What lldpad, when it runs in this network namespace, heard from the link
 * partner of @ifname: its view through its client socket (the neighbor's
 * TLVs, decoded as rck_lldp_decode() does). -ECONNREFUSED when lldpad does
 * not run, -ENODEV when it does not manage @ifname, -ENODATA when it heard
 * no neighbor there, -ETIMEDOUT after the context's timeout, -EBADMSG for
 * an answer that does not parse.
 */
int rck_lldp_lldpad(struct rck_ctx *ctx, const char *ifname, struct rck_lldp **out);
void rck_lldp_free(struct rck_lldp *l);
/** Chassis and port ID as text (MAC, address or name) and their subtypes. */
const char *rck_lldp_chassis_id(const struct rck_lldp *l, unsigned int *subtype);
const char *rck_lldp_port_id(const struct rck_lldp *l, unsigned int *subtype);
/** System name and port description; NULL when not announced. */
const char *rck_lldp_system_name(const struct rck_lldp *l);
const char *rck_lldp_port_description(const struct rck_lldp *l);
/** PFC configuration TLV; -ENOENT when not announced. */
int rck_lldp_pfc(const struct rck_lldp *l, uint8_t *enabled, uint8_t *cap, bool *willing, bool *mbc);
/** ETS configuration (@recommendation false) or recommendation TLV for priority/TC @i;
 * -ENOENT when not announced. */
int rck_lldp_ets(const struct rck_lldp *l, bool recommendation, unsigned int i, uint8_t *prio_tc,
		 uint8_t *tc_bw, uint8_t *tc_tsa);
/** APP priority TLV entries (selector 5: DSCP). */
size_t rck_lldp_app_count(const struct rck_lldp *l);
int rck_lldp_app(const struct rck_lldp *l, size_t i, uint8_t *selector, uint16_t *protocol,
		 uint8_t *priority);
/** Problems met while decoding (malformed TLVs skipped). */
size_t rck_lldp_warning_count(const struct rck_lldp *l);
const char *rck_lldp_warning(const struct rck_lldp *l, size_t i);
/** Write as text or JSON (schemas/rocedcb.schema.json, "peer"); @ifname is where it was heard. */
int rck_lldp_write(const struct rck_lldp *l, const char *ifname, enum rck_format fmt, FILE *out);
/**
 * Add host-versus-switch fields to a comparison: PFC priorities, willing
 * bits, the DSCP APP map. What the switch should announce is the host's own
 * setting, or the profile's (@profile may be NULL) where the host's driver
 * cannot report it. With @peer NULL one field says no LLDP was heard.
 */
int rck_dcb_diff_add_peer(struct rck_dcb_diff *d, const struct rck_dcb_profile *profile,
			  const struct rck_dcb *host, const struct rck_lldp *peer);

#ifdef __cplusplus
}
#endif

#endif
