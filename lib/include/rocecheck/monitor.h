/* librocecheck monitor: pinglists, per-peer probe windows, 1 s counter
 * rules with hysteresis, and the daemon that watches a host while jobs run. */
#ifndef ROCECHECK_MONITOR_H
#define ROCECHECK_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rocecheck/analysis.h>
#include <rocecheck/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Thread safety and ownership as in rocecheck/analysis.h: nothing global is
 * written, a handle changed from several threads needs the caller's lock,
 * const calls may run in parallel; rck_monitor_stop() alone may be called
 * from any thread or a signal handler. Every handle is freed by its
 * *_free(), which accepts NULL; strings returned belong to the handle.
 */

/* ---- pinglists ---- */

/** Default probe rates: peers under the same leaf, and the sample of others. */
#define RCK_PINGLIST_LEAF_HZ 10.0
#define RCK_PINGLIST_OTHER_HZ 1.0
/** Largest pinglist (peers) and longest peer name or leaf. */
#define RCK_PINGLIST_MAX 4096
#define RCK_PINGLIST_NAME_MAX 127

/** Opaque list of peers to probe: name, address, rate, leaf. */
struct rck_pinglist;

/** An empty list. The caller owns *out. 0 or -ENOMEM. */
int rck_pinglist_new(struct rck_pinglist **out);
void rck_pinglist_free(struct rck_pinglist *pl);
/**
 * Append a peer. @name: 1..127 bytes of [A-Za-z0-9._:/@+-]; @addr an IPv4
 * or IPv6 literal, optionally with a port (`IP:PORT`, `[IPv6]:PORT`);
 * @rate_hz in [0.01, 100]; @leaf NULL (unknown) or a name like @name.
 * Returns 0, -EINVAL (a bad field), -E2BIG (past RCK_PINGLIST_MAX),
 * -EEXIST (the name is already listed), -ENOMEM.
 */
int rck_pinglist_add(struct rck_pinglist *pl, const char *name, const char *addr,
		     double rate_hz, const char *leaf);
/**
 * Parse a pinglist file's text (@len bytes; @name names it in messages):
 * one peer a line, `NAME ADDRESS [rate=HZ] [leaf=LEAF]`, fields separated
 * by blanks, `#` starts a comment, blank lines skipped; rate defaults to
 * RCK_PINGLIST_OTHER_HZ (rocecheck-monitor(8) documents the format). On
 * error nothing is returned and @err (may be NULL) gets one line
 * "NAME:LINE: what is wrong". The caller owns *out. Returns 0, -EINVAL,
 * -E2BIG (over 1 MiB or RCK_PINGLIST_MAX peers), -ENOMEM.
 */
int rck_pinglist_parse(const char *text, size_t len, const char *name,
		       struct rck_pinglist **out, char *err, size_t errlen);
/** rck_pinglist_parse() of the regular file @path: also -errno when unreadable. */
int rck_pinglist_load(const char *path, struct rck_pinglist **out, char *err, size_t errlen);
unsigned int rck_pinglist_count(const struct rck_pinglist *pl);
/** Peer @i's fields (any pointer may be NULL); false past the end. */
bool rck_pinglist_peer(const struct rck_pinglist *pl, unsigned int i, const char **name,
		       const char **addr, double *rate_hz, const char **leaf);
/**
 * Build the pinglist of @self from @hosts (every NIC the job uses, with
 * their leaves where the topology knows them): the peers under @self's
 * leaf at @leaf_hz, and @sample of the others at @other_hz, taken in turn
 * from the list's order starting at @round x @sample (so successive rounds
 * rotate through every other peer). Without a leaf for @self every other
 * peer is an "other". @self is never listed. The caller owns *out.
 * Returns 0, -ENOENT (@self not in @hosts), -EINVAL, -ENOMEM.
 */
int rck_pinglist_build(const struct rck_pinglist *hosts, const char *self, double leaf_hz,
		       double other_hz, unsigned int sample, unsigned int round,
		       struct rck_pinglist **out);
/** Write @pl in the file format (it parses back to the same list). 0 or -EIO. */
int rck_pinglist_write(const struct rck_pinglist *pl, FILE *out);

/* ---- the daemon ---- */

/** Default window of probe statistics (s) and hysteresis (K of N windows). */
#define RCK_MONITOR_WINDOW_S 10
#define RCK_MONITOR_HOLD_K 2
#define RCK_MONITOR_HOLD_N 3

/** Opaque configuration of one host's monitor. */
struct rck_monitor_config;

/** Defaults: no peers, tcp probes, port 18515, windows of 10 s, 2 of 3. 0 or -ENOMEM. */
int rck_monitor_config_new(struct rck_monitor_config **out);
void rck_monitor_config_free(struct rck_monitor_config *cfg);
/** Name of this host in events and metrics (copied; 1..255 bytes). 0, -EINVAL, -ENOMEM. */
int rck_monitor_config_set_host(struct rck_monitor_config *cfg, const char *host);
/** Peers to probe (copied). 0 or -ENOMEM. */
int rck_monitor_config_set_pinglist(struct rck_monitor_config *cfg, const struct rck_pinglist *pl);
/** Address and port the probe responder binds ("127.0.0.1", 18515; port 0: any). 0 or -EINVAL. */
int rck_monitor_config_set_listen(struct rck_monitor_config *cfg, const char *addr, unsigned int port);
/** Thresholds (copied at run; NULL: defaults). The keys monitor_* apply. */
int rck_monitor_config_set_thresholds(struct rck_monitor_config *cfg, const struct rck_thresholds *th);
/** Window length (1..3600 s) and hysteresis (1 <= K <= N <= 32). 0 or -EINVAL. */
int rck_monitor_config_set_window(struct rck_monitor_config *cfg, unsigned int seconds,
				  unsigned int hold_k, unsigned int hold_n);
/** node_exporter textfile rewritten atomically after every window (NULL: none). */
int rck_monitor_config_set_textfile(struct rck_monitor_config *cfg, const char *path);
/** NPD condition file (one line, as the sweep's) rewritten atomically (NULL: none). */
int rck_monitor_config_set_npd(struct rck_monitor_config *cfg, const char *path);
/** Events: one JSON line each on @out (NULL: none); flushed per line. */
int rck_monitor_config_set_events(struct rck_monitor_config *cfg, FILE *out);
/** Stop after @seconds (0: run until rck_monitor_stop()). */
int rck_monitor_config_set_duration(struct rck_monitor_config *cfg, double seconds);
/** Poll counters of the ports of @ctx's tree (true) or probe only (false). Default true. */
int rck_monitor_config_set_counters(struct rck_monitor_config *cfg, bool on);

/** How probes travel. AUTO: RDMA UD where this host has an RDMA device
 * for the peer's address and the peer's monitor answers the hello with its
 * UD QPN, UDP otherwise; RDMA: UD only (a peer without is counted lost);
 * UDP: UDP only. */
enum rck_monitor_transport {
	RCK_MONITOR_TRANSPORT_AUTO = 0,
	RCK_MONITOR_TRANSPORT_UDP = 1,
	RCK_MONITOR_TRANSPORT_RDMA = 2,
};
/** Default AUTO. 0 or -EINVAL. */
int rck_monitor_config_set_transport(struct rck_monitor_config *cfg, enum rck_monitor_transport t);

/** The `schema` member of every event line (schemas/monitor-event.schema.json). */
#define RCK_MONITOR_EVENT_SCHEMA "rocecheck.monitor-event/1"

/** A running monitor. */
struct rck_monitor;

/** Prepare (bind the responder). The caller owns *out. 0 or -errno. */
int rck_monitor_new(struct rck_ctx *ctx, const struct rck_monitor_config *cfg,
		    struct rck_monitor **out);
void rck_monitor_free(struct rck_monitor *m);
/** The responder's bound port (after rck_monitor_new()). */
unsigned int rck_monitor_port(const struct rck_monitor *m);
/**
 * Run until rck_monitor_stop() or the configured duration: probes, 1 s
 * counter polls, windows, events, textfile and NPD file. Every wait is
 * bounded by the next tick. Returns 0 when stopped, -errno on a fatal error.
 */
int rck_monitor_run(struct rck_monitor *m);
/** Ask rck_monitor_run() to return; async-signal-safe. */
void rck_monitor_stop(struct rck_monitor *m);
/**
 * The current metrics in the Prometheus text format (rocecheck_monitor_*
 * families; rocecheck-monitor(8) lists them) — what the textfile holds and
 * what an HTTP /metrics handler serves. Call from the thread running
 * rck_monitor_run() or while it is not running. 0 or -EIO.
 */
int rck_monitor_render(const struct rck_monitor *m, FILE *out);

/**
 * Serve the metrics (rck_monitor_render()) over HTTP at /metrics on @addr
 * (an IPv4 or IPv6 literal; NULL: 127.0.0.1) and @port (0: a free one,
 * rck_monitor_metrics_port()), through rocecheck/exporter.h. What is served
 * is the snapshot taken at the last window close (and now), so a scrape
 * never waits on the run loop. Call before rck_monitor_run(); stopped by
 * rck_monitor_free(). 0, -EINVAL (twice, bad port), -ENOTSUP (built
 * without libmicrohttpd), or the exporter's -errno (-EADDRINUSE...).
 */
int rck_monitor_serve_metrics(struct rck_monitor *m, const char *addr, unsigned int port);
/** The port /metrics is served on, 0 when not served. */
unsigned int rck_monitor_metrics_port(const struct rck_monitor *m);

/* ---- across hosts ---- */

/**
 * Read the event lines of many hosts' monitors (@files: their stdout or
 * journal exports), keep the probe findings still active, group the bad
 * pairs by what explains them (a host whose own monitor names its NIC; an
 * endpoint in two or more bad pairs; else each link) and write one
 * `localised` event line per group to @out. @err (may be NULL) gets one
 * line naming the file and line on a bad input. Returns 0, -EINVAL (a
 * line that is not an event), -E2BIG, -ENOMEM, -EIO, or -errno of a file.
 */
int rck_monitor_collect(const char *const *files, unsigned int n, FILE *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
