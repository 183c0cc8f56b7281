/* librocecheck analysis: pure functions from recorded structures (host
 * inventories, counter deltas, probed link samples) to a verdict with findings. */
#ifndef ROCECHECK_ANALYSIS_H
#define ROCECHECK_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rocecheck/context.h>
#include <rocecheck/counters.h>
#include <rocecheck/inventory.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Thread safety, for everything in this header: no handle is locked and
 * nothing global is written. Calls on different handles may run in
 * parallel; one handle changed from several threads needs the caller's
 * lock. Any number of threads may call const functions (accessors,
 * rck_analysis_run(), writers) on a handle no thread is changing.
 *
 * Ownership: every handle is created by its *_new() (or by
 * rck_analysis_run() for a report) and freed by its *_free(), which accept
 * NULL. Strings returned by accessors belong to the handle and live as
 * long as it does.
 */

/* ---- findings ---- */

/**
 * Stable finding codes; the numbering is part of the ABI (add at the end).
 * rck_finding_code_name() gives the snake_case name used in JSON, and
 * rocecheck-thresholds(5) documents what raises each.
 */
enum rck_finding_code {
	RCK_FINDING_LINK_SLOW = 0,          /**< a link's bandwidth below its floor, confirmed */
	RCK_FINDING_LINK_LATENCY,           /**< a link's latency p50 above factor x median */
	RCK_FINDING_NIC_DEGRADED,           /**< most links from or to one NIC slow */
	RCK_FINDING_HOST_DEGRADED,          /**< most NICs of one host degraded */
	RCK_FINDING_FABRIC_SLOW,            /**< the fabric as a whole below line rate */
	RCK_FINDING_PORT_DOWN,              /**< an expected port not ACTIVE / LinkUp */
	RCK_FINDING_PORT_RATE,              /**< a port below the expected rate */
	RCK_FINDING_PCIE_DEGRADED,          /**< PCIe link below its maximum speed or width */
	RCK_FINDING_NO_ROCE_V2_GID,         /**< a port without a RoCE v2 IPv4 GID */
	RCK_FINDING_MTU_MISMATCH,           /**< netdev or active MTU not as expected */
	RCK_FINDING_ERROR_COUNTER,          /**< a link error counter increased */
	RCK_FINDING_PAUSE_STORM,            /**< pause storm events, or paused most of the time */
	RCK_FINDING_CONFIG_MISMATCH,        /**< a host differs from the majority (lint) */
	RCK_FINDING_LOSS_ON_LOSSLESS,       /**< retransmission evidence during a probe */
	RCK_FINDING_PFC_WRONG_PRIORITY,     /**< PFC pauses on a priority not carrying RoCE */
	RCK_FINDING_ECN_NO_CNP,             /**< ECN-marked packets received, no CNP sent */
	RCK_FINDING_CNP_NO_ECN,             /**< CNPs seen with no ECN marking */
	RCK_FINDING_LOSSLESS_UNPROVEN,      /**< incast showed neither ECN marks nor PFC pauses */
	RCK_FINDING_PROBE_FAILED,           /**< a probe failed */
	RCK_FINDING_HOST_UNREACHABLE,       /**< a host did not answer */
	RCK_FINDING_PORT_MISSING,           /**< a probed NIC is not in its host's inventory */
	RCK_FINDING_COUNTER_RESET,          /**< a counter went backwards: reset or reboot */
	RCK_FINDING_DCB_UNSUPPORTED,        /**< a port's driver lacks a DCB feature others have, or DCB unread */
	/* cabling lint (rocecheck/topology.h): a LINK is a cable, host NIC (or
	 * lower switch and port) -> switch and port */
	RCK_FINDING_RAIL_CROSSED,           /**< NIC r cabled to a switch of another rail */
	RCK_FINDING_CABLE_SWAPPED,          /**< a NIC in another leaf than its other rails say */
	RCK_FINDING_NIC_NO_SWITCH,          /**< a NIC on no switch Slurm or the topology file knows */
	RCK_FINDING_SWITCH_PORT_SPEED,      /**< a switch port slower or faster than its peers */
	RCK_FINDING_TOPOLOGY_CONFLICT,      /**< topology sources disagree */
	/* PCIe paths between GPUs and NICs (analysis/lint_pci.c) */
	RCK_FINDING_PCIE_ACS_REDIRECT,      /**< ACS redirects P2P between a GPU and its NIC */
	RCK_FINDING_PCIE_RELAXED_ORDERING,  /**< relaxed ordering off on a NIC used for GPU traffic */
	RCK_FINDING_PCIE_MAX_READ_REQ,      /**< a NIC's MaxReadReq below pcie_min_read_req */
	RCK_FINDING_PCIE_AER,               /**< AER errors rising between two sweeps */
	RCK_FINDING_GPU_NIC_FAR,            /**< a GPU's nearest NIC is NODE or SYS away */
	RCK_FINDING_IOMMU_TRANSLATED,       /**< the IOMMU translates DMA on bare metal */
	RCK_FINDING_GPU_PEERMEM,            /**< GPUs and NICs without a GPU peer-memory path */
	RCK_FINDING_DRAIN_HELD,             /**< more hosts looked bad than drain_max_fraction: none drained */
	RCK_FINDING_PCIE_SLOT_LIMITED,      /**< a NIC's link at its slot's capability, below its own */
	/* localisation with a topology (rck_analysis_set_topology()): a SWITCH
	 * finding's host is the switch, its nic the port */
	RCK_FINDING_UPLINK_DEGRADED,        /**< a leaf's uplink(s) slow, lossy or down: every path across them bad */
	RCK_FINDING_SWITCH_DOWN,            /**< a switch whose paths all fail: its hosts behind it, not drained */
	RCK_FINDING_SWITCH_DEGRADED,        /**< a switch whose paths are slow or lossy */
	RCK_FINDING_CABLE_BAD,              /**< a host NIC or its cable: host NIC -> switch port */
	RCK_FINDING_CODE_COUNT
};

enum rck_severity {
	RCK_SEVERITY_INFO = 0,     /**< worth knowing, never changes the verdict */
	RCK_SEVERITY_WARNING = 1,  /**< suspicious or unconfirmed, not degraded */
	RCK_SEVERITY_DEGRADED = 2, /**< performance or correctness is hurt */
	RCK_SEVERITY_CRITICAL = 3, /**< the part is unusable */
	RCK_SEVERITY_COUNT
};

/** What a finding is about. */
enum rck_entity {
	RCK_ENTITY_HOST = 0,   /**< host */
	RCK_ENTITY_NIC = 1,    /**< host + NIC ("mlx5_0/1") */
	RCK_ENTITY_LINK = 2,   /**< host + NIC -> peer host + peer NIC */
	RCK_ENTITY_FABRIC = 3, /**< the fabric as a whole */
	RCK_ENTITY_SWITCH = 4, /**< switch (host) + port (nic) -> upper switch + port; never drained */
	RCK_ENTITY_COUNT
};

enum rck_verdict {
	RCK_VERDICT_HEALTHY = 0,  /**< no finding of severity degraded or critical */
	RCK_VERDICT_DEGRADED = 1, /**< at least one degraded or critical finding */
	RCK_VERDICT_ERROR = 2,    /**< nothing could be judged (rck_report_error() says why) */
	/** The fabric's measured noise (noise_cv) is above noise_max: too high
	 * to decide against the floors (rck_report_error() says why). Findings
	 * are kept, nothing is drained. */
	RCK_VERDICT_INCONCLUSIVE = 3,
};

/** Names ("link_slow", "warning", "nic", "healthy"); NULL out of range. Static storage. */
const char *rck_finding_code_name(enum rck_finding_code code);
const char *rck_severity_name(enum rck_severity sev);
const char *rck_entity_name(enum rck_entity ent);
const char *rck_verdict_name(enum rck_verdict v);

/* ---- thresholds ---- */

/** Opaque set of thresholds, every key with its built-in default. */
struct rck_thresholds;

/** Create a set holding the defaults. The caller owns *out. 0 or -ENOMEM. */
int rck_thresholds_new(struct rck_thresholds **out);
void rck_thresholds_free(struct rck_thresholds *th);
/**
 * Apply a thresholds file's text (@len bytes, no terminator needed; @name
 * names it in messages): `key = value` lines, `#` starts a comment, blank
 * lines are skipped. Keys are those of rocecheck-thresholds(5); values are
 * decimal numbers in the key's range (whole numbers for counts). On error
 * nothing is changed and @err (may be NULL) gets one line
 * "NAME:LINE: what is wrong". Returns 0, -EINVAL (unknown or repeated key,
 * malformed line, value out of range), -E2BIG past 1 MiB.
 */
int rck_thresholds_parse(struct rck_thresholds *th, const char *text, size_t len,
			 const char *name, char *err, size_t errlen);
/**
 * rck_thresholds_parse() of the file @path (its name in messages). Returns
 * 0, the errors of rck_thresholds_parse(), -errno when it cannot be opened
 * or read, -EINVAL when it is not a regular file, -E2BIG past 1 MiB, or
 * -ENOMEM; @err gets one line in every case but -ENOMEM.
 */
int rck_thresholds_load(struct rck_thresholds *th, const char *path, char *err, size_t errlen);
/** Set one key. Returns 0, -ENOENT for an unknown key, -ERANGE out of range. */
int rck_thresholds_set(struct rck_thresholds *th, const char *key, double value);
/** Read one key. Returns 0 or -ENOENT. */
int rck_thresholds_get(const struct rck_thresholds *th, const char *key, double *value);
/** Name of key @i (0-based), NULL past the end. Static storage. */
const char *rck_thresholds_key(unsigned int i);

/* ---- input ---- */

enum rck_link_test { RCK_LINK_TEST_BW = 0, RCK_LINK_TEST_LAT = 1, RCK_LINK_TEST_COUNT };
enum rck_link_status {
	RCK_LINK_OK = 0,          /**< measured */
	RCK_LINK_FAILED = 1,      /**< the probe ran and failed */
	RCK_LINK_UNREACHABLE = 2, /**< an end's host did not answer */
	RCK_LINK_STATUS_COUNT
};

/** One measurement of a link: @gbps for bw; @lat_p50_us, @lat_p99_us for lat. */
struct rck_link_meas {
	enum rck_link_status status;
	double gbps;
	double lat_p50_us;
	double lat_p99_us;
};

/** Ends of a probe: data flows from SRC to DST. */
enum rck_link_end { RCK_LINK_SRC = 0, RCK_LINK_DST = 1 };

/** Increase of neutral counter @id at one end during the first measurement. */
struct rck_link_counter {
	enum rck_link_end end;
	enum rck_counter id;
	uint64_t delta;
};

/** Most retests one sample carries in @retest. */
#define RCK_LINK_RETEST_MAX 4
/** Most retests of one sample in all, @retest and @more_retests (0.4). */
#define RCK_LINK_RETESTS_MOST 64

/**
 * One probed link. Set @size to sizeof(struct rck_link_sample): fields may
 * be added at the end. NICs are the numbers rck_analysis_add_nic() gave
 * (they name both hosts). @line_rate_gbps 0 takes the slower end's NIC
 * rate. @retest holds the results of the link probed again alone, oldest
 * first. @reason (may be NULL) says why a failed probe failed. @counters
 * lists nonzero counter increases; a counter a NIC has (see struct
 * rck_analysis_nic) and that is not listed increased by 0.
 * @more_retests (0.4; may be NULL) holds @n_more_retests further retests,
 * oldest first, after a full @retest (@n_retests RCK_LINK_RETEST_MAX), up
 * to RCK_LINK_RETESTS_MOST in all: a link whose sequential test is still
 * undecided goes on (link_retests_undecided). A caller built before 0.4
 * passes the smaller size and has none.
 */
struct rck_link_sample {
	size_t size;
	enum rck_link_test test;
	unsigned int src_nic;
	unsigned int dst_nic;
	struct rck_link_meas meas;
	double line_rate_gbps;
	unsigned int n_retests;
	struct rck_link_meas retest[RCK_LINK_RETEST_MAX];
	const char *reason;
	const struct rck_link_counter *counters;
	unsigned int n_counters;
	const struct rck_link_meas *more_retests;
	unsigned int n_more_retests;
};

/**
 * A NIC (an RDMA port) that probes ran on. Set @size as above.
 * @line_rate_gbps 0 when unknown. @counters: bit id set when the NIC has
 * neutral counter id (enum rck_counter); a counter it lacks is never judged.
 *
 * The port as its host described it (an agent's description), judged like
 * an inventory's port (state, rate, RoCE v2 GID, MTUs) when the host was
 * added without an inventory: @state (NULL: not described, nothing below is
 * judged), @active_mtu and @netdev_mtu (0 unknown), @gid_index (the RoCE
 * v2 IPv4 GID's index, -1 none) and @fw_ver (NULL unknown; not judged yet).
 * @netdev (NULL unknown; callers built before it pass a smaller size): the
 * bound network interface, by which a topology's LLDP cable finds the NIC.
 */
struct rck_analysis_nic {
	size_t size;
	const char *device;
	unsigned int port;
	double line_rate_gbps;
	uint64_t counters;
	const char *state;
	const char *fw_ver;
	unsigned int active_mtu;
	unsigned int netdev_mtu;
	int gid_index;
	const char *netdev;
};

/** Opaque analysis input: hosts, their NICs, link samples, thresholds. */
struct rck_analysis;

/**
 * Create an empty input. @th (NULL: defaults) is copied. The caller owns
 * *out (rck_analysis_free()). Returns 0 or -ENOMEM.
 */
int rck_analysis_new(const struct rck_thresholds *th, struct rck_analysis **out);
void rck_analysis_free(struct rck_analysis *a);
/**
 * Add a host (@name copied); *@idx (may be NULL) gets its number, the order
 * added. @inv and @delta (counter deltas of the host's ports over the
 * check's interval) may be NULL; they are borrowed and must stay valid
 * until @a is freed. Returns 0, -EINVAL (NULL or empty name), -EEXIST for a
 * name already there, -ENOMEM.
 */
int rck_analysis_add_host(struct rck_analysis *a, const char *name, const struct rck_inventory *inv,
			  const struct rck_delta *delta, unsigned int *idx);
/**
 * Mark host @host a spare (or not): judged like any host, never in the
 * drain list, and not counted by the circuit breaker (neither as a host
 * to drain nor among the hosts its share is of). Returns 0 or -EINVAL
 * (unknown host).
 */
int rck_analysis_set_spare(struct rck_analysis *a, unsigned int host, bool spare);
/** Mark host @host unreachable (@reason copied) or, with NULL, reachable.
 * Returns 0, -EINVAL (unknown host), -ENOMEM. */
int rck_analysis_set_unreachable(struct rck_analysis *a, unsigned int host, const char *reason);
struct rck_dcb;

/**
 * Give the DCB state of host @host's RDMA netdevs (rocecheck/dcb.h; an
 * agent's answer, see rck_mesh_host_dcb()) for the cross-host lint: PFC
 * priorities, trust mode, DSCP map, ETS, DCBX mode and rdma_cm ToS are
 * compared port by port across hosts, the odd port out named with the
 * majority value (config_mismatch); ports whose driver lacks a feature
 * others have, and hosts whose state could not be read (@error, one line;
 * @n then 0), are dcb_unsupported findings, never mismatches. The states
 * are copied; a second call replaces the first. Returns 0, -EINVAL
 * (unknown host, NULL port, ports with an error), -ENOMEM.
 */
int rck_analysis_set_host_dcb(struct rck_analysis *a, unsigned int host,
			      const struct rck_dcb *const *ports, size_t n, const char *error);
/**
 * Add a NIC of host @host. NICs are numbered across the input in the order
 * added; *@idx (may be NULL) gets the number. Returns 0, -EINVAL (unknown
 * host, NULL device, port 0, @size too small), -EEXIST (the host has this
 * device/port), -ENOMEM.
 */
int rck_analysis_add_nic(struct rck_analysis *a, unsigned int host,
			 const struct rck_analysis_nic *nic, unsigned int *idx);
/**
 * The traffic pattern the samples were measured under: "full", "quick",
 * "pairs", "topo" (judged as full) or "incast:K" (K >= 2). Incast samples
 * are judged for lossless behaviour, not for speed. Returns 0, -EINVAL, -ENOMEM.
 */
int rck_analysis_set_pattern(struct rck_analysis *a, const char *pattern);
/**
 * Append @n samples (copied, counters included). On error nothing is added.
 * Returns 0, -EINVAL (unknown NIC, @src_nic == @dst_nic, bad test, status,
 * retest count or @size; counter id out of range), -ENOMEM.
 */
int rck_analysis_add_links(struct rck_analysis *a, const struct rck_link_sample *samples, size_t n);

struct rck_mesh;
/**
 * Add a sweep result (rocecheck/mesh.h) as input: its hosts (with their
 * unreachable reasons; no inventory), its NICs in the mesh's numbering
 * plus the NICs already in @a (line rate, counters they have), its
 * pattern, each host's DCB state when the sweep collected it
 * (rck_mesh_host_dcb(), as rck_analysis_set_host_dcb()), and one sample per probe cell: the first attempt as the
 * measurement, later attempts (up to RCK_LINK_RETEST_MAX, skipped ones left
 * out) as retests, both ends' counter deltas of the first attempt. A
 * skipped first attempt becomes a failed probe with the skip's reason. @m
 * is only read (strings copied). Returns 0, -EINVAL (NULL, a bad cell),
 * -EEXIST (a host name already in @a), -ENOMEM; on error @a holds part of
 * the result and should be freed. Each host's PCIe paths, when the sweep
 * collected them (rck_mesh_host_pcie()), are given as
 * rck_analysis_set_host_pcie() does, borrowed: @m must then outlive @a.
 */
int rck_analysis_add_mesh(struct rck_analysis *a, const struct rck_mesh *m);

/** Opaque result of an analysis: verdict, findings, counts, retest list. */
struct rck_report;
/** One finding; owned by its report. */
struct rck_finding;

/**
 * Judge the input (see rocecheck-thresholds(5) for every rule). @a is not
 * changed. The caller owns *out (rck_report_free()). Health is data in the
 * report, never an error. Returns 0 or -ENOMEM.
 */
int rck_analysis_run(const struct rck_analysis *a, struct rck_report **out);

/**
 * The classic half-bandwidth cause: @dev's PCIe link narrower or slower
 * than its maximum. False when either is unknown.
 */
bool rck_analysis_pci_degraded(const struct rck_device *dev);

/* ---- report ---- */

void rck_report_free(struct rck_report *r);
enum rck_verdict rck_report_verdict(const struct rck_report *r);
/** Why the verdict is error or inconclusive (one line), NULL otherwise. */
const char *rck_report_error(const struct rck_report *r);
/** Findings, most severe first. */
unsigned int rck_report_finding_count(const struct rck_report *r);
/** Finding @i, NULL past the end. */
const struct rck_finding *rck_report_finding(const struct rck_report *r, unsigned int i);
/** How many findings have severity @sev (0 out of range). */
unsigned int rck_report_severity_count(const struct rck_report *r, enum rck_severity sev);
/** How many findings have code @code (0 out of range). */
unsigned int rck_report_code_count(const struct rck_report *r, enum rck_finding_code code);

/**
 * Link statistics of a report. Set @size to sizeof(struct
 * rck_report_links) before rck_report_links().
 */
struct rck_report_links {
	size_t size;
	unsigned int samples;      /**< link samples given */
	unsigned int ok;           /**< measured (first attempt, or a retest) */
	unsigned int failed;       /**< neither measured nor retested ok */
	double centre_gbps;        /**< median bandwidth of first measurements; 0 none */
	double noise_cv;           /**< robust spread (1.4826 MAD / median), as used */
	double median_lat_us;      /**< median latency p50; 0 none */
	unsigned int suspects;     /**< links that failed the first screen */
	unsigned int confirmed;    /**< suspects the retests confirmed */
	unsigned int cleared;      /**< suspects the retests cleared */
	unsigned int inconclusive; /**< suspects left undecided (link_retests_max, link_retests_undecided) */
};
/** Fill @out (@out->size set by the caller). Returns 0 or -EINVAL. */
int rck_report_links(const struct rck_report *r, struct rck_report_links *out);

/**
 * Links that need a (further) retest to be decided: the coordinator probes
 * each again alone, appends the result to the sample's retests and runs the
 * analysis again. Count, and entry @i (0 or -EINVAL past the end).
 */
unsigned int rck_report_retest_count(const struct rck_report *r);
int rck_report_retest(const struct rck_report *r, unsigned int i, enum rck_link_test *test,
		      unsigned int *src_nic, unsigned int *dst_nic);

/**
 * Write the report. JSON (schemas/analysis.schema.json): {"schema":
 * "rocecheck.analysis/1",
 * "verdict","error","counts":{severity: n},"links":{...statistics},
 * "retest":[{"test","src_nic","dst_nic"}],"findings":[{"code","severity",
 * "entity","host","nic","peer_host","peer_nic","reason","values":{key:
 * number}}]}. Text: a summary line, then one line per finding.
 * Returns 0 or -errno.
 */
int rck_report_write(const struct rck_report *r, FILE *out, enum rck_format fmt);

/**
 * The hosts this report says to drain: hosts named by a host or NIC
 * finding of severity degraded or critical that its rule confirmed (never
 * a suspect, never a spare: rck_analysis_set_spare()), one entry per
 * host, in finding order, @reason one line
 * "rocecheck: CODE [NIC] REASON". None when the verdict is error or
 * inconclusive. The circuit breaker (drain_max_fraction): when more hosts
 * than that share of the hosts (at least one) would be drained, none is,
 * they are listed by rck_report_held() and a fabric finding drain_held
 * (degraded) says so. Count, and entry @i (0, or -EINVAL past the end);
 * the strings belong to the report.
 */
unsigned int rck_report_drain_count(const struct rck_report *r);
int rck_report_drain(const struct rck_report *r, unsigned int i, const char **host, const char **reason);
/** The hosts the circuit breaker held back (they would have been drained). */
unsigned int rck_report_held_count(const struct rck_report *r);
int rck_report_held(const struct rck_report *r, unsigned int i, const char **host, const char **reason);

/* Finding attributes. Strings absent for the entity are NULL. */
enum rck_finding_code rck_finding_code(const struct rck_finding *f);
enum rck_severity rck_finding_severity(const struct rck_finding *f);
enum rck_entity rck_finding_entity(const struct rck_finding *f);
const char *rck_finding_host(const struct rck_finding *f);
/** "device/port", e.g. "mlx5_0/1". */
const char *rck_finding_nic(const struct rck_finding *f);
const char *rck_finding_peer_host(const struct rck_finding *f);
const char *rck_finding_peer_nic(const struct rck_finding *f);
/** One line a person can act on. */
const char *rck_finding_reason(const struct rck_finding *f);
/** The numbers behind the finding: count, and pair @i (0 or -EINVAL). */
unsigned int rck_finding_value_count(const struct rck_finding *f);
int rck_finding_value(const struct rck_finding *f, unsigned int i, const char **key, double *value);
/**
 * True for a finding reported as suspect: a NIC or host whose links look
 * slow but whose own sequential test (first pass and retests) has not
 * confirmed it. Severity warning, its evidence in the values; never drained.
 */
bool rck_finding_suspect(const struct rck_finding *f);

struct rck_pcie;
/**
 * Give host @host's PCIe paths (rocecheck/pcie.h) and, when there was one,
 * the snapshot of the previous sweep (@before, may be NULL: AER counts are
 * then not compared). Checked: ACS redirect between a GPU and its NICs,
 * relaxed ordering on NICs a GPU uses, MaxReadReq, links below what both
 * ends allow on every path, AER counts rising, GPUs far from any NIC, the
 * IOMMU translating on bare metal, peer memory; across hosts the odd one
 * out (pairing, IOMMU, settings). Both are borrowed and must stay valid
 * until @a is freed. Returns 0 or -EINVAL (unknown host, NULL @now).
 */
int rck_analysis_set_host_pcie(struct rck_analysis *a, unsigned int host, const struct rck_pcie *now,
			       const struct rck_pcie *before);

struct rck_topology;
/**
 * Attach a topology (rocecheck/topology.h): which leaf and port each NIC is
 * cabled to and which switch is above which. rck_analysis_run() then
 * explains bad probes (failed, slow, lossy, late; first measurements) by
 * the fewest parts on their paths: a host NIC and its cable (cable_bad,
 * naming both ends; rail_crossed for two NICs of a host on each other's
 * switches), a leaf or spine (switch_down, switch_degraded), a leaf's
 * uplinks (uplink_degraded), each with its evidence counted. Host, NIC and
 * link findings a switch-side part explains are demoted to suspect
 * warnings ("behind SWITCH") and never drained. NICs are matched by host
 * name and "device/port" (a bare device is port 1; a host-only cable, as
 * Slurm's, places every NIC of the host). @t (NULL: none) is borrowed and
 * must outlive @a and its runs. Returns 0 or -EINVAL.
 */
int rck_analysis_set_topology(struct rck_analysis *a, const struct rck_topology *t);

#ifdef __cplusplus
}
#endif

#endif
