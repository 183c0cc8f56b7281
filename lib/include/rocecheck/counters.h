/* librocecheck counters: snapshots of a port's counters from every source
 * (IB counters, hw_counters, ethtool, pause statistics, netdev statistics)
 * with vendor-neutral names on top, and deltas/rates between snapshots. */
#ifndef ROCECHECK_COUNTERS_H
#define ROCECHECK_COUNTERS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rocecheck/context.h>
#include <rocecheck/inventory.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Vendor-neutral counters. Scalars first, then the per-priority ones, each
 * of which has 8 consecutive ids (priority 0 first): use
 * RCK_CTR_PFC_RX_PAUSE + prio. A counter a device does not have is absent,
 * never 0. The numbering is part of the ABI: add only at the end.
 *
 * Each is taken from the first raw source present, in this order: the IB
 * PMA counters (ports/N/counters), the vendor's own (hw_counters, ethtool),
 * the bound netdev's statistics. So rx_bytes/tx_bytes are RDMA bytes
 * (port_rcv_data * 4 on a RoCE port, irdma's IP octets, bnxt_re's RoCE
 * bytes) where the device counts them, and the netdev's bytes (all its
 * traffic) only when it does not. Pause durations are in microseconds.
 * rocecheck-counters(8) lists every source per vendor.
 */
enum rck_counter {
	RCK_CTR_RX_BYTES = 0,
	RCK_CTR_TX_BYTES,
	RCK_CTR_RX_PACKETS,
	RCK_CTR_TX_PACKETS,
	RCK_CTR_SYMBOL_ERRORS,
	RCK_CTR_LINK_ERROR_RECOVERY,
	RCK_CTR_LINK_DOWNED,
	RCK_CTR_RX_ERRORS,
	RCK_CTR_TX_DISCARDS,
	RCK_CTR_TX_WAIT,
	RCK_CTR_LOCAL_LINK_INTEGRITY_ERRORS,
	RCK_CTR_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
	RCK_CTR_ECN_MARKED_PACKETS,
	RCK_CTR_CNP_SENT,
	RCK_CTR_CNP_HANDLED,
	RCK_CTR_CNP_IGNORED,
	RCK_CTR_OUT_OF_SEQUENCE,
	RCK_CTR_SEQ_ERR_NAKS,
	RCK_CTR_LOCAL_ACK_TIMEOUTS,
	RCK_CTR_RETRY_EXCEEDED,
	RCK_CTR_RNR_NAKS,
	RCK_CTR_DUPLICATE_REQUESTS,
	RCK_CTR_OUT_OF_BUFFER,
	RCK_CTR_RX_DISCARDS,
	RCK_CTR_CRC_ERRORS,
	RCK_CTR_PAUSE_STORM_EVENTS,
	RCK_CTR_PFC_RX_PAUSE,                            /* 8 ids */
	RCK_CTR_PFC_TX_PAUSE = RCK_CTR_PFC_RX_PAUSE + 8,  /* 8 ids */
	RCK_CTR_PFC_RX_PAUSE_DURATION = RCK_CTR_PFC_TX_PAUSE + 8,
	RCK_CTR_PFC_TX_PAUSE_DURATION = RCK_CTR_PFC_RX_PAUSE_DURATION + 8,
	RCK_CTR_COUNT = RCK_CTR_PFC_TX_PAUSE_DURATION + 8
};

/**
 * Neutral name of @id: "rx_bytes", ..., and for per-priority ids the array
 * name ("pfc_rx_pause"); @prio (may be NULL) gets the priority or -1.
 * NULL for an id out of range. Static storage.
 */
const char *rck_counter_name(enum rck_counter id, int *prio);

/** Opaque set of port snapshots taken at one moment. */
struct rck_snapshot;

/**
 * Snapshot the counters of every port of every device (@dev NULL), of one
 * device's ports (@port 0) or of one port. Raw values are read from
 * ports/N/counters, counters_ext, hw_counters, class/net/IF/statistics and,
 * on the live system, ETHTOOL_GSTATS and the ethtool netlink pause
 * statistics of the bound netdev. With a recorded sysfs root the last two
 * come from the text files rocecheck/ethtool/IF and rocecheck/pause/IF in
 * the tree (`ethtool -S` form, "name: value" lines), when present.
 * @inv may be NULL (an inventory is then read). Unreadable or non-numeric
 * values are kept as raw text (or as unreadable) and logged at LOG_WARNING;
 * they never fail the call. The caller owns *out (rck_snapshot_free()).
 * Returns 0, -ENODEV when @dev or @port does not exist, -EINVAL for a
 * @port without @dev, -ENOMEM, or -errno from reading the inventory.
 */
int rck_snapshot_new(struct rck_ctx *ctx, const struct rck_inventory *inv,
		     const char *dev, unsigned int port, struct rck_snapshot **out);
void rck_snapshot_free(struct rck_snapshot *snap);

/**
 * Name the host the snapshot was taken on (the library reads no host name
 * itself; the caller passes gethostname()'s). Copied; NULL clears it.
 * Saved and loaded with the snapshot. Returns 0, -EINVAL (longer than 255
 * bytes), -ENOMEM.
 */
int rck_snapshot_set_host(struct rck_snapshot *snap, const char *host);
/** The host name set or loaded, or NULL. Owned by @snap. */
const char *rck_snapshot_host(const struct rck_snapshot *snap);

/** Wall-clock time of the snapshot (CLOCK_REALTIME, ns) as saved. */
uint64_t rck_snapshot_time_ns(const struct rck_snapshot *snap);
unsigned int rck_snapshot_port_count(const struct rck_snapshot *snap);
/** Device name and port number of port entry @i; false past the end. */
bool rck_snapshot_port(const struct rck_snapshot *snap, unsigned int i,
		       const char **dev, unsigned int *port);
/** Neutral counter @id of port entry @i. Returns 0, -ENOENT when absent, -EINVAL. */
int rck_snapshot_get(const struct rck_snapshot *snap, unsigned int i,
		     enum rck_counter id, uint64_t *val);
/**
 * Raw counter by "source/name": counters/, counters_ext/, hw_counters/
 * (sysfs file names), netdev/ (class/net/IF/statistics), ethtool/ (ethtool
 * -S names), pause/tx_pause_frames and pause/rx_pause_frames.
 * Returns 0, -ENOENT when absent or not a number, -EINVAL.
 */
int rck_snapshot_get_raw(const struct rck_snapshot *snap, unsigned int i,
			 const char *key, uint64_t *val);

/**
 * Write the snapshot. JSON (schemas/counters.schema.json): {"version":2,
 * "time_ns","host","devices":[{"name","ports":[{"port","netdev",
 * "counters":{neutral name: value or null; per-priority ones null or an
 * array of 8},"sources":{neutral name: "source/name" it came from, "a+b"
 * for sums, "key*4" for scaled},"raw":{"source/name": number, or the text
 * that was not a number, or null when unreadable}}]}]}. Counter values are
 * exact: a JSON integer below 2^63, a decimal string from 2^63 up. This is
 * the form rck_snapshot_save() writes and rck_snapshot_load() reads. Text:
 * one block per port, neutral counters only ("n/a" when absent), names and
 * values from outside escaped (\xNN for bytes outside printable ASCII).
 * Returns 0 or -errno.
 */
int rck_snapshot_write(const struct rck_snapshot *snap, FILE *out, enum rck_format fmt);
/** Same as rck_snapshot_write(); @all adds the raw values to the text form. */
int rck_snapshot_write_all(const struct rck_snapshot *snap, FILE *out, enum rck_format fmt,
			   bool all);
/**
 * Save the JSON of rck_snapshot_write() (indented) to @path atomically: a
 * hidden temporary file in the same directory (".NAME.tmp.PID.X"),
 * written, fsynced, renamed over @path, then the directory fsynced. An
 * existing @path keeps its permission bits. @path must be absent or a
 * regular file: a symbolic link is refused with -ELOOP (never followed
 * nor replaced), a directory with -EISDIR, anything else with -EINVAL.
 * Returns 0 or -errno; on error neither the temporary file nor a partial
 * @path is left.
 */
int rck_snapshot_save(const struct rck_snapshot *snap, const char *path);
/**
 * rck_snapshot_save() that gives up with -ECANCELED, removing its
 * temporary file, as soon as *@cancel is non-zero (checked before the
 * temporary file is created, between writes of 64 KiB and before the
 * rename). A signal handler of the caller sets the flag; @cancel may be NULL.
 */
int rck_snapshot_save_cancellable(const struct rck_snapshot *snap, const char *path,
				  const volatile sig_atomic_t *cancel);
/**
 * Load a snapshot written by rck_snapshot_save() or rck_snapshot_write()
 * (JSON, version 1 or 2). @path is opened without blocking and must be a
 * regular file of at most 64 MiB. Raw keys longer than 128 bytes and raw
 * texts longer than 255 are skipped (logged at LOG_WARNING). The caller
 * owns *out. Returns 0, -errno when the file cannot be opened, -EINVAL
 * (logged at LOG_ERR with the reason) for a file that is not a regular
 * file, too large, or not a snapshot of a known version, -ENOMEM.
 */
int rck_snapshot_load(struct rck_ctx *ctx, const char *path, struct rck_snapshot **out);

/**
 * State of one counter between two snapshots. The narrow PMA counters
 * (symbol_error 16 bits, link_error_recovery 8, link_downed 8,
 * port_rcv_errors 16, port_xmit_discards 16, local_link_integrity_errors 4,
 * excessive_buffer_overrun_errors 4, port_rcv_remote_physical_errors 16,
 * port_rcv_switch_relay_errors 16, port_xmit/rcv_constraint_errors 8,
 * VL15_dropped 16, port_xmit_wait 32) stop at their maximum: at it in the
 * newer snapshot, the state is SATURATED whatever the older value was.
 */
enum rck_delta_state {
	RCK_DELTA_OK = 0,        /**< delta and rate are valid */
	RCK_DELTA_ABSENT = 1,    /**< missing or not a number in one of the
				      snapshots, or taken from different sources */
	RCK_DELTA_SATURATED = 2, /**< a narrow PMA counter stuck at its maximum */
	RCK_DELTA_RESET = 3,     /**< went backwards: reset or wrapped */
};

/** Opaque comparison of two snapshots, port by port (matched by name). */
struct rck_delta;

/**
 * Compare @old and @new (both stay owned by the caller and may be freed
 * after this call). Ports present in only one are left out.
 * The caller owns *out (rck_delta_free()). Returns 0, -EINVAL when @new is
 * older than @old, -ENOMEM.
 */
int rck_delta_new(const struct rck_snapshot *old, const struct rck_snapshot *new_,
		  struct rck_delta **out);
void rck_delta_free(struct rck_delta *d);
/** Seconds between the two snapshots (monotonic clock when both were taken
 * by this process, else their wall-clock times). */
double rck_delta_seconds(const struct rck_delta *d);
unsigned int rck_delta_port_count(const struct rck_delta *d);
bool rck_delta_port(const struct rck_delta *d, unsigned int i, const char **dev, unsigned int *port);
/** Neutral counter @id of port entry @i: its state, and when OK the increase
 * and per-second rate (@delta, @rate may be NULL; untouched unless OK). */
enum rck_delta_state rck_delta_get(const struct rck_delta *d, unsigned int i, enum rck_counter id,
				   uint64_t *delta, double *rate);
/** Same for a raw "source/name" counter. */
enum rck_delta_state rck_delta_get_raw(const struct rck_delta *d, unsigned int i, const char *key,
				       uint64_t *delta, double *rate);
/**
 * Write deltas and rates. JSON (schemas/counters-delta.schema.json):
 * {"version":1,"seconds","devices":[{"name","ports":
 * [{"port","netdev","counters":{name: null when absent, else {"state":
 * "ok"|"saturated"|"reset","delta","rate"} (delta and rate null unless
 * ok; delta exact as in snapshots: an integer below 2^63, else a decimal
 * string)},"raw":{"source/name": the same}}]}]}. @all false: the text form
 * shows only counters that changed, saturated or reset, and the JSON raw
 * object only those (the JSON neutral counters are always all there).
 * Returns 0 or -errno.
 */
int rck_delta_write(const struct rck_delta *d, FILE *out, enum rck_format fmt, bool all);

#ifdef __cplusplus
}
#endif

#endif
