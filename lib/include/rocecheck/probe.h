/* librocecheck probes: RDMA WRITE bandwidth, WRITE ping-pong and SEND/RECV
 * latency between two hosts over RC QPs (or TCP where there is no RDMA). */
#ifndef ROCECHECK_PROBE_H
#define ROCECHECK_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rocecheck/context.h>
#include <rocecheck/counters.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * How a probe session works (see rocecheck-probe(8) for the whole story):
 *  - One side serves (rck_probe_server_*), the other runs (rck_probe_run).
 *    The client connects a TCP control channel to the server and sends the
 *    parameters; both sides then set up their endpoints, the client drives
 *    the test and both exchange their measurements and the counter deltas
 *    of their ports. Both sides end up with the same result.
 *  - Every blocking step (connect, each message, each QP transition, each
 *    completion or reply wait) has a deadline: the context's timeout
 *    (rck_ctx_set_timeout_ms()). A step that makes no progress within it
 *    ends the probe with RCK_PROBE_TIMEOUT; nothing waits forever. A wait
 *    for a control message lasts the timeout in all: keep-alives do not
 *    extend it. The server caps the whole run (max_duration_s).
 *  - A failed probe is a result, not an error: rck_probe_run() returns 0
 *    with a result whose status says what went wrong. Negative errnos are
 *    kept for bad options and resource exhaustion.
 */

/** Default TCP port of the control channel. */
#define RCK_PROBE_DEFAULT_PORT 18520
/** Default traffic class: DSCP 26 (AF31) in the upper six bits, ECT(0). */
#define RCK_PROBE_DEFAULT_TCLASS 106
/** Server defaults of what one session may ask for (struct rck_probe_opts max_*). */
#define RCK_PROBE_DEFAULT_MAX_SIZE (64ull << 20)
#define RCK_PROBE_DEFAULT_MAX_QPS 16
#define RCK_PROBE_DEFAULT_MAX_DURATION_S 60.0
/** Server default of the time a new connection has to send its HELLO. */
#define RCK_PROBE_DEFAULT_HELLO_S 10.0

enum rck_probe_test {
	RCK_PROBE_TEST_BW = 0,       /**< RDMA WRITE bandwidth */
	RCK_PROBE_TEST_LAT = 1,      /**< RDMA WRITE ping-pong, polling the last byte */
	RCK_PROBE_TEST_SEND_LAT = 2, /**< SEND/RECV ping-pong */
};

enum rck_probe_transport {
	RCK_PROBE_TRANSPORT_RDMA = 0, /**< RC QPs through libibverbs */
	RCK_PROBE_TRANSPORT_TCP = 1,  /**< plain TCP streams, for hosts without RDMA */
};

/** How a probe ended. */
enum rck_probe_status {
	RCK_PROBE_OK = 0,          /**< measured */
	RCK_PROBE_INVALID = 1,     /**< a parameter the peer or device refused */
	RCK_PROBE_UNREACHABLE = 2, /**< no connection, or the peer went away */
	RCK_PROBE_TIMEOUT = 3,     /**< a step made no progress within the timeout */
	RCK_PROBE_PROTOCOL = 4,    /**< the peer spoke garbage, another protocol or version */
	RCK_PROBE_RDMA = 5,        /**< a verbs or rdma_cm call or a completion failed */
	RCK_PROBE_SYSTEM = 6,      /**< a local system call failed */
};

/**
 * Probe parameters. Initialise with rck_probe_opts_init() and then set the
 * members you need: the library reads only the first @size bytes, so a
 * program built against an older, shorter struct keeps working. Members
 * are only ever added at the end. Strings are borrowed for the call.
 */
struct rck_probe_opts {
	size_t size;                       /**< sizeof(struct rck_probe_opts) */
	enum rck_probe_test test;          /**< default RCK_PROBE_TEST_BW */
	enum rck_probe_transport transport;/**< default RCK_PROBE_TRANSPORT_RDMA */
	bool cm;                 /**< connect the QPs through librdmacm */
	bool bidirectional;      /**< bandwidth both ways at once */
	unsigned int port;       /**< control channel TCP port (default RCK_PROBE_DEFAULT_PORT; server: 0 picks a free one) */
	const char *bind_addr;   /**< server: listen address (NULL: any) */
	const char *device;      /**< RDMA device (NULL: the one holding the route's address) */
	unsigned int ib_port;    /**< device port (0: the one the GID is on) */
	int gid_index;           /**< -1: automatic (RoCE v2 GID of the address that reaches the peer) */
	uint32_t msg_size;       /**< bytes per message (0: 65536 for bw, 2 for the latency tests) */
	unsigned int qps;        /**< number of QPs (TCP: streams); messages spread round-robin (default 1) */
	unsigned int tx_depth;   /**< send queue depth per QP: outstanding writes of bw (default 128) */
	uint64_t iters;          /**< measured messages in total (0 and no duration: 1000) */
	double duration_s;       /**< measure for this long instead of a count (0: use iters) */
	unsigned int warmup;     /**< messages before the measurement, not counted (default 16) */
	int tclass;              /**< GRH traffic class / IP TOS, -1: default (106; with cm: the port's rdma_cm default) */
	unsigned int sl;         /**< service level (default 0) */
	unsigned int mtu;        /**< path MTU in bytes (0: minimum of both ends' active MTU) */
	uint32_t flow_label;     /**< GRH flow label of QP 0, QP i gets flow_label + i (0: none) */
	uint16_t udp_sport;      /**< RoCE v2 UDP source port of QP 0 (49152-65535), QP i gets + i (0: none) */
	double window_s;         /**< bandwidth window for the worst-window figure (default 0.1) */
	/* Server caps (0.2): checked on every client's parameters before the
	 * server allocates anything for them; a session above one is refused
	 * with a message naming the cap. */
	uint64_t max_size;       /**< server: bytes of message buffers one session may allocate (RDMA: pin), default RCK_PROBE_DEFAULT_MAX_SIZE */
	unsigned int max_qps;    /**< server: QPs (TCP streams) one session may use, default RCK_PROBE_DEFAULT_MAX_QPS */
	double max_duration_s;   /**< server: longest measurement, in seconds, also of one counted in messages (default RCK_PROBE_DEFAULT_MAX_DURATION_S) */
	double hello_s;          /**< server: seconds a new connection has to send its HELLO (default RCK_PROBE_DEFAULT_HELLO_S) */
	/* Authentication (0.2): with a key, the server challenges every
	 * connection before it reads anything else (HMAC-SHA256 over both
	 * sides' nonces) and the client must prove the same key. */
	const uint8_t *key;      /**< shared key (RCK_KEY_MIN..RCK_KEY_MAX bytes, rocecheck/agent.h), NULL: none */
	size_t key_len;
	/* Task binding (0.2): a sweep agent's standing listener serves one
	 * task after another; the client names its task in HELLO and the
	 * listener refuses a HELLO naming another (the client's result:
	 * RCK_PROBE_UNREACHABLE), so a late client never joins a later task. */
	uint32_t task;           /**< client: the task id sent in HELLO (0: none) */
};

/** Fill @opts with the defaults and set opts->size. */
void rck_probe_opts_init(struct rck_probe_opts *opts);

/** Which side rck_probe_opts_validate() checks the options for. */
enum rck_probe_role {
	RCK_PROBE_ROLE_CLIENT = 0, /**< every member, as rck_probe_run() does */
	RCK_PROBE_ROLE_SERVER = 1, /**< port, device port and GID index, as rck_probe_server_new() does */
};

/**
 * Check @opts the way rck_probe_run() (client) or rck_probe_server_new()
 * (server) will, without doing anything: the one place the limits live.
 * Returns 0, or -EINVAL with a one-line reason naming the value and its
 * allowed range in @err (NUL-terminated, truncated to @errlen; @err may be
 * NULL). Thread-safe.
 */
int rck_probe_opts_validate(const struct rck_probe_opts *opts, enum rck_probe_role role,
			    char *err, size_t errlen);

/** Static names: "bw", "lat", "send-lat"; "rdma", "tcp"; "ok", "timeout", ... NULL when out of range. */
const char *rck_probe_test_name(enum rck_probe_test test);
const char *rck_probe_transport_name(enum rck_probe_transport transport);
const char *rck_probe_status_name(enum rck_probe_status status);

/** Result of one probe session; opaque. */
struct rck_probe_result;

/**
 * Run one probe against the server at @host (a name or address) with
 * @opts. Returns 0 with *out set to a result, whether the probe measured
 * or failed (see rck_probe_result_status()); the caller owns *out and
 * frees it with rck_probe_result_free(). Returns -EINVAL for parameters
 * out of range (logged with the reason) or -ENOMEM; *out is then untouched.
 */
int rck_probe_run(struct rck_ctx *ctx, const char *host, const struct rck_probe_opts *opts,
		  struct rck_probe_result **out);

/**
 * Probe through this host's own stack (0.2): a server listening on @addr
 * (a free port; opts->device, ib_port and gid_index as for a server) in a
 * thread of the library, and rck_probe_run() to it with @opts (read up to
 * opts->size; port and bind_addr ignored). Every step has the context's
 * timeout; the server waits at most twice that plus 1 s for the client.
 * Returns as rck_probe_run() (0 with *out whether the probe measured or
 * failed, -EINVAL, -ENOMEM), or the -errno of rck_probe_server_new() or of
 * starting the thread; *out is then untouched. Safe to call from several
 * threads with different contexts.
 */
int rck_probe_loopback(struct rck_ctx *ctx, const char *addr, const struct rck_probe_opts *opts,
		       struct rck_probe_result **out);

/** Opaque probe server. */
struct rck_probe_server;

/**
 * Listen on opts->bind_addr:opts->port (0: a free port). Of @opts the
 * server uses port, bind_addr, device, ib_port, gid_index and its caps
 * max_size, max_qps, max_duration_s and hello_s; everything else comes from
 * each client. The caller owns *out (rck_probe_server_free()). Returns 0,
 * -EINVAL (an option out of range, logged with the reason), -EADDRINUSE,
 * -ENOMEM or another -errno from socket setup.
 */
int rck_probe_server_new(struct rck_ctx *ctx, const struct rck_probe_opts *opts,
			 struct rck_probe_server **out);
void rck_probe_server_free(struct rck_probe_server *srv);
/** The TCP port the server listens on (the one picked when opts->port was 0). */
unsigned int rck_probe_server_port(const struct rck_probe_server *srv);

/**
 * Wait up to @wait_ms (-1: without limit) for one client and serve its
 * session to the end. Returns 0 when a session ran (its outcome, even a
 * failure, is in *out when @out is not NULL; the caller owns it), or
 * -ETIMEDOUT when no client came, -EINTR when a signal interrupted the
 * wait, -ENOMEM, or another -errno when the listener itself failed.
 *
 * The server accepts connections and reads their first message
 * concurrently: a connection that has not sent a whole message within
 * opts->hello_s is dropped and never counts as a session. While a session
 * runs, a thread of the server answers every further client at once with
 * an ERROR saying the server is busy (the client's result says "server
 * busy", status RCK_PROBE_UNREACHABLE); the context's log function may be
 * called from that thread. accept() failing for want of descriptors or
 * memory is logged and retried after a pause. A session's measurement
 * ends at the latest max_duration_s (or the client's shorter duration)
 * plus the timeout after it started, whatever the client sends.
 */
int rck_probe_server_serve(struct rck_probe_server *srv, int wait_ms, struct rck_probe_result **out);

/* Result accessors. */
void rck_probe_result_free(struct rck_probe_result *res);
enum rck_probe_status rck_probe_result_status(const struct rck_probe_result *res);
/** One line saying why the probe failed, or NULL when it measured. Owned by @res. */
const char *rck_probe_result_error(const struct rck_probe_result *res);
/** Name of the failed completion's status ("IBV_WC_RETRY_EXC_ERR"), or NULL. Static. */
const char *rck_probe_result_wc_status(const struct rck_probe_result *res);
enum rck_probe_test rck_probe_result_test(const struct rck_probe_result *res);
enum rck_probe_transport rck_probe_result_transport(const struct rck_probe_result *res);
bool rck_probe_result_cm(const struct rck_probe_result *res);
bool rck_probe_result_bidirectional(const struct rck_probe_result *res);
/** The parameters the session actually ran with (defaults resolved). Owned by @res. */
const struct rck_probe_opts *rck_probe_result_opts(const struct rck_probe_result *res);

/** Measured bytes and messages (both directions for bidirectional bandwidth). */
uint64_t rck_probe_result_bytes(const struct rck_probe_result *res);
uint64_t rck_probe_result_messages(const struct rck_probe_result *res);
/** Seconds from the first post to the last completion (the longer direction). */
double rck_probe_result_seconds(const struct rck_probe_result *res);
/** Bandwidth in Gb/s (1e9 bits per second), the sum of both directions when bidirectional. */
double rck_probe_result_gbps(const struct rck_probe_result *res);
/** Messages per second. */
double rck_probe_result_msg_rate(const struct rck_probe_result *res);
/**
 * Lowest bandwidth of any direction over the fixed windows of
 * opts->window_s (completions spread evenly since the previous one).
 * Returns 0, or -ENOENT when the probe was shorter than one window or is
 * not a bandwidth probe.
 */
int rck_probe_result_worst_window_gbps(const struct rck_probe_result *res, double *gbps);

/** Latency statistics, in microseconds (one-way: half the round trip). */
enum rck_probe_lat_stat {
	RCK_LAT_MIN = 0,
	RCK_LAT_P50,
	RCK_LAT_P90,
	RCK_LAT_P99,
	RCK_LAT_P999,
	RCK_LAT_MAX,
	RCK_LAT_MEAN,
	RCK_LAT_STDEV,
	RCK_LAT_STAT_COUNT
};
/** Returns 0, or -ENOENT for a bandwidth probe or when no sample was taken. */
int rck_probe_result_latency(const struct rck_probe_result *res, enum rck_probe_lat_stat stat,
			     double *usec);
/**
 * The latency samples in the order they were measured (µs), *count set to
 * their number; NULL for a bandwidth probe. Only the side that ran the
 * probe (the client) has samples. Owned by @res.
 */
const double *rck_probe_result_latency_samples(const struct rck_probe_result *res, size_t *count);

enum rck_probe_side {
	RCK_PROBE_LOCAL = 0,
	RCK_PROBE_REMOTE = 1,
};
/** The side's RDMA device and port; NULL/0 for TCP or when unknown. Owned by @res. */
const char *rck_probe_result_device(const struct rck_probe_result *res, enum rck_probe_side side,
				    unsigned int *port);
/** The side's GID index and GID string ("::ffff:10.0.0.1" style); -1/NULL when unknown. */
int rck_probe_result_gid_index(const struct rck_probe_result *res, enum rck_probe_side side);
const char *rck_probe_result_gid(const struct rck_probe_result *res, enum rck_probe_side side);
/** The side's address on the control channel ("10.0.0.1"). Owned by @res. */
const char *rck_probe_result_address(const struct rck_probe_result *res, enum rck_probe_side side);
/**
 * Counter delta of the side's port over the measurement (from the counters
 * API). Returns 0 with *delta set, -ENOENT when the port lacks the counter
 * or no snapshot was taken, -ERANGE when it saturated or went backwards.
 */
int rck_probe_result_counter(const struct rck_probe_result *res, enum rck_probe_side side,
			     enum rck_counter id, uint64_t *delta);

/**
 * Write @res as perftest-like text or as JSON (the schema is in
 * rocecheck-probe(8)). Returns 0 or -errno.
 */
int rck_probe_result_write(const struct rck_probe_result *res, FILE *out, enum rck_format fmt);

#ifdef __cplusplus
}
#endif

#endif
