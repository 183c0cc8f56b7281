/* librocecheck host sweeps: one host's health for cron and timers, judged
 * against the previous run's state with hysteresis, and its writers. */
#ifndef ROCECHECK_SWEEP_H
#define ROCECHECK_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rocecheck/analysis.h>
#include <rocecheck/context.h>
#include <rocecheck/counters.h>
#include <rocecheck/inventory.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Thread safety and ownership as in rocecheck/analysis.h: nothing global is
 * written, a handle changed from several threads needs the caller's lock,
 * const calls may run in parallel. Every handle is freed by its *_free(),
 * which accepts NULL; strings returned belong to the handle.
 */

/** Default hysteresis: a finding counts once it held in K of the last N runs. */
#define RCK_SWEEP_HOLD_K 2
#define RCK_SWEEP_HOLD_N 3
/** Largest N (runs remembered). */
#define RCK_SWEEP_HOLD_MAX 32
/** Longest boot id kept (the kernel's is a 36-character UUID). */
#define RCK_SWEEP_BOOT_ID_MAX 64

/* ---- state between runs ---- */

/**
 * Opaque state a sweep leaves for the next one: the counter snapshot with
 * its time and the boot id it was taken under, the finding keys of the last
 * N runs, and which findings currently count.
 */
struct rck_sweep_state;

/** An empty state (first run). The caller owns *out. 0 or -ENOMEM. */
int rck_sweep_state_new(struct rck_sweep_state **out);
void rck_sweep_state_free(struct rck_sweep_state *st);
/**
 * Load a state saved by rck_sweep_state_save(). @path is opened without
 * following a final symbolic link and without blocking; it must be a
 * regular file of at most 16 MiB. The caller owns *out. Returns 0;
 * -ENOENT when @path does not exist (not logged: a first run); -ELOOP for a
 * symbolic link; -EINVAL (logged at LOG_ERR with the reason) for anything
 * that is not a state of this version: not a regular file, too large,
 * truncated or malformed JSON, another version, values out of range;
 * -ENOMEM; another -errno (logged) when it cannot be read.
 */
int rck_sweep_state_load(struct rck_ctx *ctx, const char *path, struct rck_sweep_state **out);
/**
 * Save @st to @path atomically (a temporary file in the same directory,
 * fsynced, renamed over @path). A symbolic link at @path is refused with
 * -ELOOP, a directory with -EISDIR. Returns 0 or -errno; on error @path is
 * unchanged.
 */
int rck_sweep_state_save(const struct rck_sweep_state *st, const char *path);
/** Runs remembered (at most N of the last run's hold). */
unsigned int rck_sweep_state_runs(const struct rck_sweep_state *st);
/** Boot id of the last run, or NULL when unknown. */
const char *rck_sweep_state_boot_id(const struct rck_sweep_state *st);
/** Wall-clock time (ns) of the last run's snapshot, 0 when none. */
uint64_t rck_sweep_state_time_ns(const struct rck_sweep_state *st);

/* ---- one run ---- */

/** A short loopback probe of one local port, as the caller ran it. */
struct rck_sweep_probe {
	size_t size;             /**< sizeof(struct rck_sweep_probe) */
	const char *device;      /**< RDMA device, or NULL for a host-level TCP probe */
	unsigned int port;       /**< its port (0 with no device) */
	const char *transport;   /**< "rdma" or "tcp" */
	bool ok;                 /**< measured */
	double gbps;             /**< bandwidth when measured */
	const char *error;       /**< why it failed (NULL when ok) */
};

/**
 * What one run judges. Set @size to sizeof(struct rck_sweep_input): fields
 * may be added at the end. Everything is borrowed for the call and, for
 * @inv and @snap, for the life of the rck_sweep (the Prometheus writer
 * reads them). @boot_id is what the caller read from
 * /proc/sys/kernel/random/boot_id (the library reads nothing itself); a
 * change from the state's means a reboot: counters are not compared.
 * @hold_k of @hold_n: 0 and 0 give the defaults; 1 of 1 disables the
 * hysteresis.
 */
struct rck_pcie;
struct rck_sweep_input {
	size_t size;
	const char *host;                  /**< names the host in findings (NULL: "localhost") */
	const struct rck_inventory *inv;   /**< required */
	const struct rck_snapshot *snap;   /**< counters now; NULL: none judged */
	const char *boot_id;               /**< NULL: unknown */
	const struct rck_thresholds *th;   /**< NULL: defaults */
	unsigned int hold_k, hold_n;
	const struct rck_sweep_probe *probes;
	unsigned int n_probes;
	/** PCIe paths now (rocecheck/pcie.h); NULL: not judged. Their AER
	 * counts are kept in @st and compared with the next run's. */
	const struct rck_pcie *pcie;
};

/** Where a finding stands in the hysteresis. */
enum rck_sweep_hold {
	RCK_SWEEP_COUNTS = 0,    /**< held in K of the last N runs: it counts */
	RCK_SWEEP_PENDING = 1,   /**< seen now, not yet in K of N: does not count */
	RCK_SWEEP_CLEARING = 2,  /**< counts, though absent now: not yet absent in K of N */
	RCK_SWEEP_HOLD_COUNT
};

/** Opaque result of one run. */
struct rck_sweep;

/**
 * Judge one run: the host's checks of the analysis (ports, rate, PCIe,
 * GID, MTU; with @st's snapshot and the same boot id, error counters and
 * pause storms over the interval), the probes, then the hysteresis
 * against @st. A counter that went backwards or a changed boot id gives a
 * counter_reset finding (info) for the port or host and no delta. @st
 * (NULL: the run is judged alone, every finding counts) is updated in place
 * for the next run: the snapshot, the boot id, this run's keys. The caller
 * owns *out. Returns 0, -EINVAL (no @in, @inv, @size too small, K > N,
 * N > RCK_SWEEP_HOLD_MAX, K 0 with N not 0, boot id longer than
 * RCK_SWEEP_BOOT_ID_MAX), -ENOMEM. On error @st is unchanged.
 */
int rck_sweep_run(const struct rck_sweep_input *in, struct rck_sweep_state *st,
		  struct rck_sweep **out);
void rck_sweep_free(struct rck_sweep *s);
/** Healthy unless a finding that counts is degraded or critical. */
enum rck_verdict rck_sweep_verdict(const struct rck_sweep *s);
/**
 * Findings that count (most severe first), with this run's info findings.
 * Owned by @s.
 */
const struct rck_report *rck_sweep_report(const struct rck_sweep *s);
/** Every finding the run reports, counting or not: count, and entry @i
 * (NULL past the end) with its hold state in *@hold (may be NULL). */
unsigned int rck_sweep_finding_count(const struct rck_sweep *s);
const struct rck_finding *rck_sweep_finding(const struct rck_sweep *s, unsigned int i,
					    enum rck_sweep_hold *hold);
/** "counts", "pending", "clearing"; NULL out of range. Static storage. */
const char *rck_sweep_hold_name(enum rck_sweep_hold h);
/** True when the boot id changed since the state's run. */
bool rck_sweep_rebooted(const struct rck_sweep *s);
/** Seconds since the previous snapshot whose counters were compared; 0 none. */
double rck_sweep_seconds(const struct rck_sweep *s);

/**
 * Write the run. JSON (schemas/sweep.schema.json): {"schema":
 * "rocecheck.sweep/1","host","verdict","boot_id","rebooted","seconds",
 * "hold":{"k","n","runs"},"counts":{severity: n},"probes":[...],
 * "findings":[{"code","severity","entity","host","nic","peer_host",
 * "peer_nic","reason","hold","values":{}}]}. Text: a summary line, then
 * one line per finding, pending ones marked. Returns 0 or -errno.
 */
int rck_sweep_write(const struct rck_sweep *s, FILE *out, enum rck_format fmt);
/**
 * The node-problem-detector line into @buf (at least 81 bytes): at most 80
 * printable ASCII characters, "rocecheck: healthy", or "rocecheck: " with
 * the worst finding that counts (code, NIC, reason; cut at a word), "(+N)"
 * when more count. Returns 0 or -EINVAL (@buf too small).
 */
int rck_sweep_npd_line(const struct rck_sweep *s, char *buf, size_t len);
/** Maximum length of rck_sweep_npd_line()'s line. */
#define RCK_SWEEP_NPD_MAX 80

/**
 * Prometheus text exposition of the run: rocecheck_port_up,
 * rocecheck_port_rate_bytes_per_second, rocecheck_port_<counter>_total (the neutral
 * counters of the snapshot) with device and port labels,
 * rocecheck_findings{code,severity}, rocecheck_health (1 healthy, 0
 * degraded), rocecheck_sweep_timestamp_seconds. Label values are escaped.
 * Returns 0 or -errno.
 */
int rck_sweep_write_prom(const struct rck_sweep *s, FILE *out);
/** rck_sweep_write_prom() into @path atomically (temporary file beside it,
 * renamed); a symbolic link at @path is refused with -ELOOP. 0 or -errno. */
int rck_sweep_save_prom(const struct rck_sweep *s, const char *path);

#ifdef __cplusplus
}
#endif

#endif
