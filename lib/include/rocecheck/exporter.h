/* librocecheck exporter: an HTTP endpoint that serves GET /metrics to
 * Prometheus, the text rendered by the caller's callback at every scrape. */
#ifndef ROCECHECK_EXPORTER_H
#define ROCECHECK_EXPORTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Write the metrics, in the Prometheus text format 0.0.4, to @out (a
 * memory stream the exporter owns: do not close it). Return 0, or a
 * negative errno: the scrape is then answered 500 and what was written is
 * dropped. Called on the exporter's thread (see rck_exporter_new()).
 */
typedef int (*rck_exporter_render_fn)(void *arg, FILE *out);

/**
 * Exporter options. Initialise with rck_exporter_config_init(); @size as in
 * struct rck_probe_opts. Strings are copied by rck_exporter_new().
 */
struct rck_exporter_config {
	size_t size;                   /**< sizeof(struct rck_exporter_config) */
	/** An IPv4 or IPv6 literal ("127.0.0.1", "::1", "[::1]", "0.0.0.0",
	 * "::"); never a name (no resolution is done). NULL: "127.0.0.1". */
	const char *addr;
	unsigned int port;             /**< TCP port; 0: a free one (rck_exporter_port()) */
	rck_exporter_render_fn render; /**< required */
	void *arg;                     /**< passed to @render */
	/** Connections open at once (default 32, 1..1024); more wait in the
	 * listen queue (128) until one closes or times out. */
	unsigned int max_connections;
	/** Connections open at once from one address (default 0: no limit
	 * beyond max_connections; Prometheus servers behind one proxy share
	 * an address). */
	unsigned int max_per_addr;
	/** A connection idle this long is closed, whether it sent half a
	 * request or nothing (default 5 s, 1..3600; a scraper sends its
	 * request at once and reconnects when its keep-alive was closed). */
	unsigned int timeout_s;
	/** Bytes a request's line and headers may take (default 16 KiB,
	 * 4 KiB..1 MiB); a larger request is refused (431 or a closed
	 * connection). Request bodies are never read. */
	size_t max_request;
	/** Bytes a rendered page may take (default 64 MiB); a larger one is
	 * answered 500. */
	size_t max_body;
};

/** Fill @cfg with the defaults (no render callback) and set cfg->size. */
void rck_exporter_config_init(struct rck_exporter_config *cfg);

/** Opaque exporter. */
struct rck_exporter;

/**
 * Listen on cfg->addr, cfg->port and serve until rck_exporter_free():
 *  - GET or HEAD /metrics (any query string): 200 with the page @render
 *    wrote, Content-Type "text/plain; version=0.0.4; charset=utf-8";
 *  - another path: 404; another method on /metrics: 405 with Allow.
 *
 * Threads: the exporter runs one thread of its own (libmicrohttpd's
 * internal polling thread, epoll) that serves every connection without
 * blocking on any of them: a client that sends nothing holds up no one,
 * and a flood of N idle connections delays a scrape by at most about
 * N / max_connections * timeout_s (set max_per_addr against one source).
 * @render is called on that thread, one scrape at a time, never after
 * rck_exporter_free() returns: it must take its own lock on data other
 * threads change, and must not block for long (other clients wait).
 *
 * The caller owns *@out and frees it with rck_exporter_free(). Returns 0,
 * -EINVAL (no render callback, an address that is not an IPv4 or IPv6
 * literal, an option out of range), -EADDRINUSE, -EACCES or another
 * -errno of socket(), bind() or listen(), -ENOTSUP (rocecheck built
 * without libmicrohttpd), -ENOMEM, -EIO (the HTTP daemon did not start).
 */
int rck_exporter_new(const struct rck_exporter_config *cfg, struct rck_exporter **out);

/** The TCP port the exporter listens on (the one the kernel chose for 0). Thread-safe. */
unsigned int rck_exporter_port(const struct rck_exporter *e);

/** Stop serving (open connections are closed) and free @e; NULL is fine.
 * Waits for a @render in progress to return. Not from within @render. */
void rck_exporter_free(struct rck_exporter *e);

#ifdef __cplusplus
}
#endif

#endif
