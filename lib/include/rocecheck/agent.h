/* librocecheck agent: the per-host server a sweep coordinator talks to
 * (`rocecheck agent`), and the key files both sides authenticate with. */
#ifndef ROCECHECK_AGENT_H
#define ROCECHECK_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rocecheck/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Default TCP port of the agent. */
#define RCK_AGENT_DEFAULT_PORT 18530
/** Shortest and longest key (bytes). */
#define RCK_KEY_MIN 16
#define RCK_KEY_MAX 1024

/**
 * Read the key file @path into @key (@cap bytes, at least RCK_KEY_MAX):
 * a regular file owned by the effective user and not readable or
 * writable by group or others, RCK_KEY_MIN..RCK_KEY_MAX bytes after
 * trailing white space is cut. *len gets the key's length. On error @err
 * (may be NULL) gets one line naming the file and what is wrong. Returns
 * 0, -EPERM (owner or mode), -EINVAL (size, not a regular file), -errno.
 * Thread-safe.
 */
int rck_key_load(const char *path, uint8_t *key, size_t cap, size_t *len, char *err,
		 size_t errlen);

/**
 * Agent options. Initialise with rck_agent_opts_init(); @size as in
 * struct rck_probe_opts. Strings and the key are copied by rck_agent_new().
 */
struct rck_agent_opts {
	size_t size;
	const char *bind_addr;   /**< NULL: any */
	unsigned int port;       /**< 0: a free one (see rck_agent_port()) */
	const uint8_t *key;      /**< the shared key or a launcher's token; NULL: no authentication */
	size_t key_len;
	double idle_s;           /**< a session without requests ends after this (default 60) */
	double request_s;        /**< a request must arrive whole within this once begun (default 10) */
	uint64_t max_probe_size; /**< bytes per message a probe may ask for (default 64 MiB) */
	double max_probe_s;      /**< longest probe a request may ask for (default 60) */
	unsigned int max_probes; /**< probes one session may run at once (default 16) */
	/** Answer DCB-state requests with the ports recorded in this file
	 * (`rocedcb show -j` output or a rocedcb state file) instead of
	 * reading the host's netdevs; NULL (default): read them. */
	const char *dcb_file;
	/** A second key accepted as well, while a fleet rolls from one key to
	 * the next (key: the one in use, key_next: the new one, or the other
	 * way round); NULL: none. Copied by rck_agent_new(). */
	const uint8_t *key_next;
	size_t key_next_len;
	/** Answer LLDP-neighbour requests with the frames recorded in this
	 * file (one "NETDEV HEX-OF-THE-FRAME" line per netdev, "-" for
	 * nothing heard) instead of asking lldpd and capturing; NULL
	 * (default): ask and capture. Copied by rck_agent_new(). */
	const char *lldp_file;
	/** Tests only: each probe this agent runs as the client of a
	 * coordinator's task list first waits this long, its queue busy and
	 * its listeners not serving, as behind a slow link (a slow pair on
	 * loopback); 0 (default): none. */
	double test_client_delay_s;
};

void rck_agent_opts_init(struct rck_agent_opts *o);

/** Opaque agent. */
struct rck_agent;

/**
 * Listen. The caller owns *out (rck_agent_free()). Returns 0, -EINVAL (an
 * option out of range, logged), -EADDRINUSE, -ENOMEM, -errno.
 */
int rck_agent_new(struct rck_ctx *ctx, const struct rck_agent_opts *o, struct rck_agent **out);
void rck_agent_free(struct rck_agent *a);
unsigned int rck_agent_port(const struct rck_agent *a);

/**
 * Wait up to @wait_ms (-1: no limit) for a coordinator, authenticate it
 * (before anything else it sends is parsed) and serve its session to the
 * end: its CLOSE, its going away, malformed input or a frame failing its
 * integrity check (logged with the reason at LOG_WARNING), or idle_s
 * without a request. Up to 64 connections authenticate at once, each
 * within min(request_s, 5 s); silent ones never keep a coordinator out.
 * With a key every frame after the handshake is sealed both ways. Meanwhile
 * any further connection gets an error saying only "busy"; probe listeners
 * still waiting for their client close when the session ends. Returns 0
 * when a session ran (whatever its end), -EACCES when a peer failed to
 * authenticate (logged; others keep waiting for the next call),
 * -ETIMEDOUT when nobody came, -EINTR after rck_agent_stop(), -errno when
 * the listener failed.
 */
int rck_agent_serve(struct rck_agent *a, int wait_ms);

/** Make a running or the next rck_agent_serve() return -EINTR soon (within
 * 100 ms between sessions; within a session once its running probes end,
 * serves still waiting for a client within 100 ms). Async-signal-safe and
 * thread-safe. */
void rck_agent_stop(struct rck_agent *a);

#ifdef __cplusplus
}
#endif

#endif
