/* librocecheck mesh: host lists (names, hostfiles, Slurm-style nodelists)
 * and the sweep result, the plain data structure a fabric sweep produces. */
#ifndef ROCECHECK_MESH_H
#define ROCECHECK_MESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rocecheck/context.h>
#include <rocecheck/counters.h>
#include <rocecheck/inventory.h>
#include <rocecheck/probe.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Thread safety, for everything in this header: a handle is not locked.
 * Calls on different handles may run in parallel; calls on one handle
 * from several threads need the caller's lock, except that any number of
 * threads may call the const accessors and writers of a handle no thread
 * is changing.
 */

/* ---- host lists ---- */

/** Most hosts one host list holds: larger expansions are refused. */
#define RCK_HOSTLIST_MAX 65536
/** Longest host name (DNS name length). */
#define RCK_HOST_NAME_MAX 253

/** Opaque ordered list of distinct host names. */
struct rck_hostlist;

/** Create an empty list. The caller owns *out. Returns 0 or -ENOMEM. */
int rck_hostlist_new(struct rck_hostlist **out);
void rck_hostlist_free(struct rck_hostlist *hl);

/**
 * Append the hosts of a nodelist expression, the form of `--hosts`:
 * names separated by commas or white space, each with any number of
 * bracket groups of numbers and ranges, expanded left group slowest:
 * "a,b,c", "node[01-16,20]", "rack[1-2]-n[01-04]", "a[1-3],b5". A range
 * keeps the zero padding of its lower bound ("[08-10]" gives 08 09 10,
 * "[8-10]" gives 8 9 10). Host names hold letters, digits and ". _ - : %"
 * (so IPv4 and IPv6 addresses pass), at most RCK_HOST_NAME_MAX characters.
 * A name already in the list is not added again (counted, see
 * rck_hostlist_duplicates()). On error nothing is added and @err (may be
 * NULL) gets one line naming the 1-based column and what is wrong.
 * Returns 0, -EINVAL for a malformed expression (descending or empty
 * range, unbalanced bracket, bad character, empty list), -E2BIG when the
 * list would pass RCK_HOSTLIST_MAX, -ENOMEM.
 */
int rck_hostlist_add(struct rck_hostlist *hl, const char *expr, char *err, size_t errlen);

/**
 * Append the hosts of a hostfile's text (@len bytes, no terminator needed;
 * @name names it in messages). Per line: '#' starts a comment, blank lines
 * are skipped, the first word is a nodelist expression as for
 * rck_hostlist_add(), further words must be `key=value` (OpenMPI's
 * `slots=8`, `max_slots=8`) and are ignored. A host repeated on several
 * lines (machinefiles list a host once per slot) is kept once. Errors as
 * rck_hostlist_add(), with "NAME:LINE:" leading the message
 * ("hosts.txt:3:column 5: descending range 3-1").
 */
int rck_hostlist_add_text(struct rck_hostlist *hl, const char *text, size_t len,
			  const char *name, char *err, size_t errlen);
/** rck_hostlist_add_text() on the file @path; -errno when it cannot be read,
 * -EFBIG past 16 MiB. */
int rck_hostlist_add_file(struct rck_hostlist *hl, const char *path, char *err, size_t errlen);

unsigned int rck_hostlist_count(const struct rck_hostlist *hl);
/** Host @i in the order added, NULL past the end. Owned by @hl. */
const char *rck_hostlist_get(const struct rck_hostlist *hl, unsigned int i);
/** How many names were given again and left out. */
unsigned int rck_hostlist_duplicates(const struct rck_hostlist *hl);

/* ---- sweep results ---- */

enum rck_mesh_test {
	RCK_MESH_TEST_BW = 0,  /**< bandwidth, Gb/s */
	RCK_MESH_TEST_LAT = 1, /**< latency, p50 and p99 in microseconds */
	RCK_MESH_TEST_COUNT
};

/** Outcome of one probe. */
enum rck_mesh_status {
	RCK_MESH_OK = 0,          /**< measured */
	RCK_MESH_FAILED = 1,      /**< the probe ran and failed (reason says why) */
	RCK_MESH_UNREACHABLE = 2, /**< an end's host was dead or did not answer */
	RCK_MESH_SKIPPED = 3,     /**< not run (deadline, cancelled, group lost a member) */
	RCK_MESH_STATUS_COUNT
};

/** The two ends of a probe: data flows from SRC to DST. */
enum rck_mesh_end { RCK_MESH_SRC = 0, RCK_MESH_DST = 1 };

/** "bw", "lat"; NULL out of range. Static storage. */
const char *rck_mesh_test_name(enum rck_mesh_test t);
/** "ok", "failed", "unreachable", "skipped"; NULL out of range. */
const char *rck_mesh_status_name(enum rck_mesh_status s);

/** Highest rail index. */
#define RCK_MESH_RAIL_MAX 1023

/**
 * One RDMA port of a host, as its agent reported it. Set @size to
 * sizeof(struct rck_mesh_nic) before use: fields may be added at the end.
 * Strings may be NULL (unknown); numbers unknown are 0 (@gid_index -1).
 */
struct rck_mesh_nic {
	size_t size;
	const char *device;      /**< "mlx5_0"; required */
	unsigned int port;       /**< 1-based port number; required */
	int rail;                /**< rail index 0..RCK_MESH_RAIL_MAX; -1: its position on the host */
	const char *netdev;      /**< bound network interface */
	const char *state;       /**< port state, "ACTIVE" */
	const char *fw_ver;
	double rate_gbps;        /**< port rate */
	unsigned int active_mtu; /**< RDMA path MTU */
	unsigned int netdev_mtu;
	int gid_index;           /**< the RoCE v2 IPv4 GID the probes use */
	/** Bit id set: the NIC has neutral counter id (enum rck_counter). A
	 * counter it lacks is absent in every delta, never 0. */
	uint64_t counters;
};

/** A sweep as a whole. @size as for struct rck_mesh_nic. */
struct rck_mesh_info {
	size_t size;
	const char *pattern; /**< "full", "quick", "incast:4", "pairs" */
	const char *rails;   /**< "same", "all", "device:mlx5_0" */
	uint64_t start_ns;   /**< wall clock (CLOCK_REALTIME) at start */
	double seconds;      /**< wall time of the whole sweep */
};

/**
 * One probe's outcome. @size as above. The writer fills what the test
 * measured: @gbps for bw, @lat_p50_us and @lat_p99_us for lat; the others
 * are NaN. @start_s is seconds from the sweep's start, @seconds the
 * probe's duration. @reason: NULL when ok; for others one line.
 */
struct rck_mesh_meas {
	size_t size;
	enum rck_mesh_status status;
	double gbps;
	double lat_p50_us;
	double lat_p99_us;
	double start_s;
	double seconds;
	const char *reason;
};

/** Opaque sweep result: hosts, their NICs, and one cell per probed
 * (test, source NIC, destination NIC) with its first result and every
 * retest's result. */
struct rck_mesh;

/** Create an empty result. The caller owns *out (rck_mesh_free()). 0 or -ENOMEM. */
int rck_mesh_new(struct rck_mesh **out);
void rck_mesh_free(struct rck_mesh *m);

/** Copy @info (strings copied). Returns 0, -EINVAL, -ENOMEM. */
int rck_mesh_set_info(struct rck_mesh *m, const struct rck_mesh_info *info);
/** Fill @info (@info->size set by the caller); strings owned by @m. 0 or -EINVAL. */
int rck_mesh_get_info(const struct rck_mesh *m, struct rck_mesh_info *info);

/**
 * Add a host (@name copied); *@idx (may be NULL) gets its index, the order
 * of adding. Returns 0, -EEXIST for a name already there, -EINVAL, -ENOMEM.
 */
int rck_mesh_add_host(struct rck_mesh *m, const char *name, unsigned int *idx);
/** Mark host @h unreachable with @reason (copied), or reachable with NULL. */
int rck_mesh_host_set_unreachable(struct rck_mesh *m, unsigned int h, const char *reason);
unsigned int rck_mesh_host_count(const struct rck_mesh *m);
/** Host index by name; -ENOENT when absent. */
int rck_mesh_find_host(const struct rck_mesh *m, const char *name, unsigned int *idx);
/** Name of host @h, NULL past the end. Owned by @m. */
const char *rck_mesh_host_name(const struct rck_mesh *m, unsigned int h);
/** The unreachable reason of host @h, NULL when reachable or past the end. */
const char *rck_mesh_host_unreachable(const struct rck_mesh *m, unsigned int h);

/** A port's DCB state (rocecheck/dcb.h). */
struct rck_dcb;

/**
 * Keep the DCB state of host @h's RDMA netdevs, as its agent read them
 * (copied; replaces what was kept), or, with @error set (copied, one line),
 * why the agent could not read it (@n must then be 0). A host with no
 * RDMA netdev has @n 0 and no error. Returns 0, -EINVAL, -ENOMEM.
 */
int rck_mesh_host_set_dcb(struct rck_mesh *m, unsigned int h, const struct rck_dcb *const *ports,
			  size_t n, const char *error);
/**
 * Whether host @h's DCB state was collected: 0 with *@n ports (and *@error,
 * may be NULL, the agent's reason when it could not read them, else NULL),
 * -ENOENT when it was not asked for (or the host never answered), -EINVAL.
 */
int rck_mesh_host_dcb_count(const struct rck_mesh *m, unsigned int h, size_t *n,
			    const char **error);
/** Port @i of host @h's DCB state (owned by @m), NULL past the end. */
const struct rck_dcb *rck_mesh_host_dcb(const struct rck_mesh *m, unsigned int h, size_t i);

/** One NIC's LLDP neighbour (rocecheck/topology.h). */
struct rck_topology_neighbour;

/**
 * Keep the LLDP neighbours of host @h's RDMA netdevs as its agent heard
 * them (copied, @host of each record replaced by the host's name; replaces
 * what was kept; a record with every string NULL: nothing heard there),
 * and @error (copied, may be NULL): why some or, with @n 0, all netdevs
 * could not be read. Returns 0, -EINVAL (a record without @nic or @size
 * too small), -ENOMEM.
 */
int rck_mesh_host_set_lldp(struct rck_mesh *m, unsigned int h, const struct rck_topology_neighbour *nb,
			   size_t n, const char *error);
/** Whether host @h's LLDP neighbours were collected: 0 with *@n records and
 * *@error (may be NULL; NULL when none), -ENOENT when not asked for or
 * never answered, -EINVAL. */
int rck_mesh_host_lldp_count(const struct rck_mesh *m, unsigned int h, size_t *n, const char **error);
/** Record @i of host @h (owned by @m), NULL past the end. */
const struct rck_topology_neighbour *rck_mesh_host_lldp(const struct rck_mesh *m, unsigned int h, size_t i);

/**
 * Add a NIC to host @h. NICs are numbered across the whole result in the
 * order added; *@nic (may be NULL) gets that number. A rail of -1 becomes
 * the NIC's position on its host. Returns 0, -EINVAL (no device, port 0,
 * unknown host), -EEXIST for a device/port the host already has, -ENOMEM.
 */
int rck_mesh_add_nic(struct rck_mesh *m, unsigned int h, const struct rck_mesh_nic *info,
		     unsigned int *nic);
/**
 * Add to host @h every Ethernet (RoCE) port of @inv, the host's own
 * inventory as its agent read it: device, port, netdev, state, firmware,
 * rate, MTUs, the port's first RoCE v2 IPv4 GID, and, when @snap (may be
 * NULL: none) holds the port, the neutral counters it has. Rails are the
 * ports' positions on the host. Both stay owned by the caller. Returns 0,
 * -EINVAL, -EEXIST (a port already added), -ENOMEM; on error the ports
 * added before it stay.
 */
int rck_mesh_add_inventory(struct rck_mesh *m, unsigned int h, const struct rck_inventory *inv,
			   const struct rck_snapshot *snap);
unsigned int rck_mesh_nic_count(const struct rck_mesh *m);
/** NICs of host @h: count, and the global number of the @i-th. */
unsigned int rck_mesh_host_nic_count(const struct rck_mesh *m, unsigned int h);
int rck_mesh_host_nic(const struct rck_mesh *m, unsigned int h, unsigned int i, unsigned int *nic);
/** Describe NIC @nic (strings owned by @m) and its host (@host may be NULL).
 * Returns 0 or -EINVAL. */
int rck_mesh_get_nic(const struct rck_mesh *m, unsigned int nic, struct rck_mesh_nic *info,
		     unsigned int *host);

/** Most retests one cell keeps (attempts 1 .. RCK_MESH_RETEST_MAX after the
 * sweep's attempt 0): the analysis's RCK_LINK_RETESTS_MOST, so a link its
 * sequential test leaves undecided can be retested up to
 * link_retests_undecided times. 0.5: 64 (was 4); size arrays by
 * rck_mesh_cell_attempts(). */
#define RCK_MESH_RETEST_MAX 64

/**
 * Record a probe's outcome for (@test, @src_nic -> @dst_nic): @attempt 0 is
 * the sweep's probe, 1 .. RCK_MESH_RETEST_MAX the retests, in order.
 * Recording an attempt already there replaces it (and its counters); a new
 * attempt must be the next one (rck_mesh_cell_attempts()). *@cell (may be
 * NULL) gets the cell's index. Returns 0, -EINVAL (bad NIC, test, attempt
 * or status, or @src_nic == @dst_nic), -ENOENT (an attempt past the next,
 * or a retest before attempt 0), -ENOMEM.
 */
int rck_mesh_set_result(struct rck_mesh *m, enum rck_mesh_test test, unsigned int src_nic,
			unsigned int dst_nic, unsigned int attempt,
			const struct rck_mesh_meas *meas, unsigned int *cell);
/**
 * Record the increase of neutral counter @id at one end during @attempt of
 * @cell. Only counters the end's NIC has (struct rck_mesh_nic.counters)
 * are accepted; a counter never set reads 0. Returns 0, -EINVAL, -ENOENT
 * (no such attempt, or the NIC lacks the counter), -ENOMEM.
 */
int rck_mesh_set_counter(struct rck_mesh *m, unsigned int cell, unsigned int attempt,
			 enum rck_mesh_end end, enum rck_counter id, uint64_t delta);

/** Cells in the order first recorded. */
unsigned int rck_mesh_cell_count(const struct rck_mesh *m);
/** The cell of (@test, @src_nic, @dst_nic). Returns 0 or -ENOENT. O(1). */
int rck_mesh_find_cell(const struct rck_mesh *m, enum rck_mesh_test test, unsigned int src_nic,
		       unsigned int dst_nic, unsigned int *cell);
/** What cell @cell is; any out pointer may be NULL. 0 or -EINVAL. */
int rck_mesh_cell(const struct rck_mesh *m, unsigned int cell, enum rck_mesh_test *test,
		  unsigned int *src_nic, unsigned int *dst_nic);
/** 1 + the retests recorded (at most 1 + RCK_MESH_RETEST_MAX). 0 for a bad @cell. */
unsigned int rck_mesh_cell_attempts(const struct rck_mesh *m, unsigned int cell);
/** Outcome of @attempt (@meas->size set by the caller; reason owned by @m).
 * Returns 0, -EINVAL, -ENOENT (no such attempt). */
int rck_mesh_cell_meas(const struct rck_mesh *m, unsigned int cell, unsigned int attempt,
		       struct rck_mesh_meas *meas);
/** Counter delta of one end: 0 with *@delta set (0 when the NIC has the
 * counter and nothing was recorded), -ENOENT when the NIC lacks it or there
 * is no such attempt, -EINVAL. */
int rck_mesh_cell_counter(const struct rck_mesh *m, unsigned int cell, unsigned int attempt,
			  enum rck_mesh_end end, enum rck_counter id, uint64_t *delta);

/**
 * Write the result. JSON (schemas/mesh.schema.json): {"version":1,
 * "pattern","rails","start_ns","seconds","hosts":[{"name","unreachable",
 * "missing_rails","nics":[{"id","device","port","rail",...,"counters":[
 * names]}],"dcb":{"error","ports":[rocedcb show port objects]} (only when
 * collected)}],"probes":[{"test","src","dst","attempts","result":{"status",
 * "gbps","lat_p50_us","lat_p99_us","start_s","seconds","reason",
 * "counters":{"src":{name: delta},"dst":{...}}},"retest":null or the
 * same (attempt 1),"later_retests":[the same, attempts 2..] when there are
 * more}]}; only nonzero counter deltas are listed, per-priority ones as
 * "pfc_rx_pause[3]". Text: hosts and NICs, then one line per probe.
 * Returns 0 or -errno.
 */
int rck_mesh_write(const struct rck_mesh *m, FILE *out, enum rck_format fmt);

/**
 * Load a result written as JSON by rck_mesh_write() from @len bytes of
 * @buf (@name names it in messages) or from the file @path. Anything not a
 * consistent result (unknown version, bad index, duplicate cell, counter
 * the NIC lacks) is refused with -EINVAL and one line at LOG_ERR through
 * @ctx naming the first problem. The caller owns *out. Returns 0, -EINVAL,
 * -ENOMEM, -errno when the file cannot be read.
 */
int rck_mesh_load_buf(struct rck_ctx *ctx, const char *buf, size_t len, const char *name,
		      struct rck_mesh **out);
int rck_mesh_load(struct rck_ctx *ctx, const char *path, struct rck_mesh **out);

/* ---- sweeps: the coordinator ---- */

/**
 * How a sweep runs: the hosts and how to reach their agents, the plan
 * (pattern, rails), the probes, the limits and the callbacks. Opaque;
 * setters copy what they are given.
 */
struct rck_mesh_config;

/** Progress of a running sweep, for the progress callback. */
struct rck_mesh_progress {
	size_t size;            /**< sizeof(struct rck_mesh_progress) */
	unsigned int done;      /**< probes finished (each test of each pair) */
	unsigned int total;     /**< probes planned */
	unsigned int hosts_down;/**< hosts found unreachable so far */
	double elapsed_s;
	double eta_s;           /**< estimate of the time left, NaN before the first probe */
};

/** Called on the sweep's thread after each finished probe; @p valid for the call. */
typedef void (*rck_mesh_progress_fn)(void *data, const struct rck_mesh_progress *p);
/** The caller's rule: is the just-recorded cell @cell of @m (its first
 * attempt) suspect, to be probed again alone at the end? */
typedef bool (*rck_mesh_suspect_fn)(void *data, const struct rck_mesh *m, unsigned int cell);

/**
 * The caller's retest hook, called after the sweep (and its suspects'
 * retests alone): write up to @max cells of @m to probe again into @cells
 * and return how many (0: none, the sweep ends). The coordinator probes
 * them in rounds of disjoint NIC pairs (no NIC in two probes at once),
 * appends each result as the cell's next attempt, and calls the hook
 * again. A probe runs every test of its NIC pair, so each of the pair's
 * cells gains an attempt. Cells with RCK_MESH_RETEST_MAX retests, or with a
 * host found dead, are not probed again.
 */
typedef unsigned int (*rck_mesh_retest_fn)(void *data, const struct rck_mesh *m, unsigned int *cells,
					   unsigned int max);

/** Defaults: pattern full, rails same, test bw, RDMA transport, 65536-byte
 * messages, 1000 iterations, no total deadline. 0 or -ENOMEM. */
int rck_mesh_config_new(struct rck_mesh_config **out);
void rck_mesh_config_free(struct rck_mesh_config *c);
/**
 * Add a host: @name as the result names it, its agent at @addr (NULL:
 * @name) port @port (0: RCK_AGENT_DEFAULT_PORT of rocecheck/agent.h),
 * authenticated with @token (@token_len bytes, a launcher's per-host token)
 * or, when @token is NULL, with the config's key. Returns 0, -EEXIST,
 * -EINVAL, -ENOMEM.
 */
int rck_mesh_config_add_host(struct rck_mesh_config *c, const char *name, const char *addr,
			     unsigned int port, const uint8_t *token, size_t token_len);
/**
 * Host @name (added before) cannot answer: its launcher failed. The sweep
 * neither resolves nor dials it and records it unreachable with @reason
 * (copied). Returns 0, -ENOENT (no such host), -EINVAL, -ENOMEM.
 */
int rck_mesh_config_host_down(struct rck_mesh_config *c, const char *name, const char *reason);
/**
 * Adds an already running agent as `rocecheck mesh --hosts` and the
 * preflight name it: "NAME" (its agent on the default port), or
 * "NAME:PORT" (one colon, PORT 1-65535: the host is NAME:PORT, its agent
 * at NAME on PORT). Returns as rck_mesh_config_add_host().
 */
int rck_mesh_config_add_agent(struct rck_mesh_config *c, const char *name);

/**
 * Limits of a sweep's probe settings, the same for `rocecheck mesh`,
 * `rocecheck preflight` and the library's setters: the tools check their
 * options against these. Members are only ever added at the end.
 */
struct rck_mesh_limits {
	uint32_t size_max;            /**< bytes of a probe's messages (1..) */
	uint64_t iters_max;           /**< messages per probe (1..) */
	uint64_t iters_default;       /**< when neither iterations nor a duration is given */
	double duration_min_s;        /**< a timed probe's shortest duration */
	double duration_max_s;        /**< ... and longest */
	double deadline_min_s;        /**< a sweep's shortest deadline */
	double deadline_max_s;        /**< ... and longest */
	unsigned int retest_passes_max; /**< retest passes a preflight may ask for */
};
/** The library's limits (static, never freed; thread-safe). */
const struct rck_mesh_limits *rck_mesh_limits(void);
/** The shared key (see rck_key_load()); without one, agents are asked
 * without authentication. 0 or -EINVAL. */
int rck_mesh_config_set_key(struct rck_mesh_config *c, const uint8_t *key, size_t len);
/**
 * "full", "quick", "incast:K", "pairs" or "topo"; for "pairs", @pairs holds the
 * pairs file's text (@len bytes, @name names it in messages), one "SRC DST"
 * per line. "topo" needs a topology (rck_mesh_config_set_topology()).
 * Returns 0, -EINVAL, -ENOMEM.
 */
int rck_mesh_config_set_pattern(struct rck_mesh_config *c, const char *pattern, const char *pairs,
				size_t len, const char *name);
/** Bidirectional probes with the full pattern: both directions of a NIC
 * pair run at once (a full mesh in n-1 steps instead of 2(n-1)), each
 * still its own cell with its own counter deltas, but each end's deltas
 * then hold the other direction's traffic too, and both directions share
 * the link: off by default. Other patterns ignore it. 0 or -EINVAL. Not
 * thread-safe on one config. */
int rck_mesh_config_set_bidir(struct rck_mesh_config *c, bool bidir);
/** "same", "all" or "device:NAME". 0, -EINVAL, -ENOMEM. */
int rck_mesh_config_set_rails(struct rck_mesh_config *c, const char *rails);
/**
 * The plan of a sweep with @c, written as text or JSON
 * (schemas/mesh-plan.schema.json) without contacting anyone: the hosts
 * (name, agent address and port) and, in the order they run, the host pairs
 * the pattern probes, as if each host had one NIC (which NICs of two hosts
 * probe each other follows the rails rule once the agents report them).
 * Returns 0, -EINVAL (fewer than 2 hosts, a pairs file naming unknown
 * hosts: one line in @err), -ENOMEM or -EIO. Reads @c only.
 */
int rck_mesh_config_write_plan(const struct rck_mesh_config *c, FILE *out, enum rck_format fmt,
			       char *err, size_t errlen);
/** Tests to run on every pair, a bit mask of 1 << enum rck_mesh_test. 0, -EINVAL. */
int rck_mesh_config_set_tests(struct rck_mesh_config *c, unsigned int mask);
/** Probe transport, message size (0: the test's default), and either
 * @iters messages or @duration_s seconds (0: iters). 0 or -EINVAL. */
int rck_mesh_config_set_probe(struct rck_mesh_config *c, enum rck_probe_transport transport,
			      uint32_t size, uint64_t iters, double duration_s);
/** Ask every agent for the DCB state of its RDMA netdevs right after its
 * NICs (rck_mesh_host_dcb_count()); off by default. An agent that cannot
 * read it is noted, not marked unreachable. 0 or -EINVAL. */
int rck_mesh_config_set_dcb(struct rck_mesh_config *c, bool collect);
/**
 * Ask every agent for the LLDP neighbour of each RDMA netdev right after
 * its NICs (and DCB state): from lldpd's table where lldpd runs, else from
 * a capture of at most @capture_ms (0: no capture) on every netdev lldpd
 * said nothing of (rck_mesh_host_lldp_count()); the hosts' wait grows by
 * @capture_ms. Off by default. An agent that cannot read them is noted,
 * not marked unreachable. 0 or -EINVAL (@capture_ms over 120000).
 */
int rck_mesh_config_set_lldp(struct rck_mesh_config *c, bool collect, unsigned int capture_ms);
/**
 * Meet the hosts as rck_mesh_run() does (connect, authenticate, describe,
 * and the DCB state and LLDP neighbours when asked) and close: no plan and
 * no probe, one host is enough. The caller owns *out: hosts, NICs and
 * facts, unreachable hosts marked. Returns 0, -EINVAL (no hosts), -ENOMEM.
 */
int rck_mesh_collect(struct rck_ctx *ctx, struct rck_mesh_config *c, struct rck_mesh **out);
/** Deadline of the whole sweep in seconds (0: none): probes not run by
 * then are recorded skipped. 0 or -EINVAL. */
int rck_mesh_config_set_deadline(struct rck_mesh_config *c, double seconds);
void rck_mesh_config_set_progress(struct rck_mesh_config *c, rck_mesh_progress_fn fn, void *data);
void rck_mesh_config_set_suspect(struct rck_mesh_config *c, rck_mesh_suspect_fn fn, void *data);
/** The retest hook and the most times it is asked for cells (@passes; 0
 * or a NULL @fn: never). It runs on the sweep's thread between passes,
 * when no keepalive reaches the agents: it must return well within their
 * idle time (rck_agent_opts.idle_s). */
void rck_mesh_config_set_retest(struct rck_mesh_config *c, rck_mesh_retest_fn fn, void *data,
				unsigned int passes);
/** Kept for one release; both values run the one engine: the agents run
 * every probe (the plan, incast groups, suspects' retests, retest passes)
 * from task lists against each other's standing probe listeners
 * (connections authenticated by a per-sweep random key and bound to their
 * task), reporting results in batches; the coordinator plans, merges both
 * ends' reports and reacts to deaths and cancels (docs/mesh.md). Agents
 * older than the task lists close the session on them: their hosts are
 * marked unreachable with a message naming the feature. */
enum rck_mesh_schedule {
	RCK_MESH_SCHEDULE_COORDINATOR = 0,
	RCK_MESH_SCHEDULE_AGENTS = 1,
};

/** Deprecated, no effect: 0 for either value, -EINVAL for others. Not
 * thread-safe on one config. */
int rck_mesh_config_set_schedule(struct rck_mesh_config *c, enum rck_mesh_schedule schedule);

/** Stop a running rck_mesh_run() soon: what has not run is recorded
 * skipped, "cancelled". Thread-safe and async-signal-safe. */
void rck_mesh_cancel(struct rck_mesh_config *c);

/**
 * Run the sweep: connect to every agent at once, authenticate, describe
 * each host (its NICs; with the TCP transport one pseudo NIC "tcp" port 1
 * per host), build the plan, and run it event-driven: a pair's probe
 * starts as soon as both NICs are free. All connections are multiplexed on
 * the calling thread. A host that does not answer within the context's
 * timeout, or whose agent goes away or stops answering mid-sweep, is
 * marked unreachable and every probe left with it recorded so; the rest
 * goes on. Every probe records both ends' counter deltas. Suspect cells
 * (the suspect callback) are probed again alone at the end; then the
 * retest hook's cells, in rounds (rck_mesh_config_set_retest()). The caller
 * owns *out. Returns 0 with a result whatever the probes' outcomes,
 * -EINVAL (no hosts, fewer than 2, a plan error: logged), -ENOMEM.
 * Not thread-safe on one config, except rck_mesh_cancel().
 */
int rck_mesh_run(struct rck_ctx *ctx, struct rck_mesh_config *c, struct rck_mesh **out);

/* PCIe paths reported by the agents (mesh/coord_pcie.c, mesh/result_pcie.c) */
struct rck_pcie;
/**
 * Ask every agent for its host's PCIe paths (rocecheck/pcie.h: GPUs, NICs,
 * the bridges between them, ACS, relaxed ordering, MaxReadReq, links, AER,
 * IOMMU, peer memory) after its NICs and DCB state; off by default. An
 * agent that cannot read them is noted, not marked unreachable. 0 or -EINVAL.
 */
int rck_mesh_config_set_pcie(struct rck_mesh_config *c, bool collect);
/**
 * Keep host @h's PCIe paths as its agent read them (@p copied; replaces
 * what was kept) or, with @p NULL, @error (copied, one line): why the agent
 * could not read them. Exactly one of @p and @error. 0, -EINVAL, -ENOMEM.
 */
int rck_mesh_host_set_pcie(struct rck_mesh *m, unsigned int h, const struct rck_pcie *p,
			   const char *error);
/**
 * Host @h's PCIe paths: 0 with *@p (owned by @m, NULL when the agent could
 * not read them, then *@error its reason, else NULL), -ENOENT when not
 * collected (not asked for, or the host never answered), -EINVAL.
 * Either pointer may be NULL.
 */
int rck_mesh_host_pcie(const struct rck_mesh *m, unsigned int h, const struct rck_pcie **p,
		       const char **error);
struct rck_topology;
/**
 * The topology (rocecheck/topology.h) the "topo" pattern plans by: per
 * leaf switch (and rail, with rails "same") a full mesh of its NICs both
 * ways, then cross steps in which every NIC of a leaf sends to other
 * leaves (about 4 NICs per leaf pair), so every uplink carries its leaf's
 * whole rate out and, in other steps, in, and every ordered pair of leaves
 * is probed at least once. NICs are placed by host name and "device/port"
 * (or device, or netdev, or the host as a whole); NICs on no known leaf
 * form a group of their own. @t (NULL: none) is borrowed and must outlive
 * the sweeps run with @c. Returns 0 or -EINVAL.
 */
int rck_mesh_config_set_topology(struct rck_mesh_config *c, const struct rck_topology *t);
/**
 * Plan by the agents' LLDP instead (@on; a topology set by
 * rck_mesh_config_set_topology() wins): each agent is asked for its
 * neighbours as by rck_mesh_config_set_lldp(@capture_ms), and once the hosts
 * are met the model is built from them (rck_topology_add_mesh_lldp(), source
 * "agents") with the implied spine (rck_topology_imply_spine()); the topo
 * pattern plans by it and the result keeps it (rck_mesh_topology()). Hosts
 * that heard nothing are NICs on no known leaf. Returns 0 or -EINVAL
 * (@capture_ms past rck_mesh_config_set_lldp()'s limit).
 */
int rck_mesh_config_set_topology_lldp(struct rck_mesh_config *c, bool on, unsigned int capture_ms);
/**
 * The topology a sweep built from its agents' LLDP
 * (rck_mesh_config_set_topology_lldp()), owned by @m and freed with it;
 * NULL when none was built (not asked, a loaded result).
 */
const struct rck_topology *rck_mesh_topology(const struct rck_mesh *m);

#ifdef __cplusplus
}
#endif

#endif
