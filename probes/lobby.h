/* The probe server's front door: accepts connections and reads their first
 * message concurrently (poll), with a short deadline before a peer has
 * said who it is, so no connection can hold the listener. */
#ifndef RCK_PROBE_LOBBY_H
#define RCK_PROBE_LOBBY_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "frame.h"

struct rck_ctx;

#define LOBBY_MAX 64

struct plobby_conn {
	int fd;
	uint64_t deadline;      /* for its first whole message */
	struct pframe fr;
	char peer[96];          /* "client 10.0.0.1 port 40000" */
	bool authed;            /* with a key: it proved it */
	uint8_t nonce[WIRE_NONCE_LEN]; /* the challenge it was sent */
};

/*
 * Two modes. Between sessions the caller waits in plobby_wait() for the
 * connection that starts the next session. While a session runs, a thread
 * keeps the door (plobby_busy_start()): a HELLO gets an ERROR saying the
 * server is busy, the session's own TCP streams (ATTACH with its cookie)
 * are passed on through plobby_stream(), anything else is answered and
 * dropped. A connection that has not sent a whole first message within
 * hello_ms is dropped in both modes. Not thread-safe beyond that split.
 */
struct plobby {
	const struct rck_ctx *ctx;
	int lfd;
	unsigned int hello_ms;
	struct plobby_conn conn[LOBBY_MAX];
	unsigned int n;
	uint64_t backoff_until; /* accept() failed for want of resources */
	int last_errno;
	uint64_t last_log;
	/* busy mode */
	pthread_t thread;
	bool running;
	int stop[2];            /* the caller -> the thread: stop */
	int streams[2];         /* the thread -> the session: struct plobby_stream */
	uint64_t cookie;        /* 0: no session takes streams (atomic) */
	int fatal;              /* the thread's fatal accept error (read after join) */
	const uint8_t *key;     /* NULL: no authentication; else every connection proves it first */
	uint32_t at_task;       /* busy mode between sessions: the task its owner is at (atomic; 0: in a session) */
	size_t key_len;
};

struct plobby_stream {
	int fd;
	uint16_t index;
};

/* @lfd: a non-blocking listening socket, still owned by the caller. */
int plobby_init(struct plobby *l, const struct rck_ctx *ctx, int lfd, unsigned int hello_ms);
void plobby_free(struct plobby *l);
/*
 * Wait until @deadline (UINT64_MAX: for ever) for a connection whose first
 * message is complete (or whose header was refused) and is not an ATTACH.
 * Returns 0 with *fd (the caller's now) and its frame moved into *fr,
 * -ETIMEDOUT, -EINTR, or a fatal -errno of the listener.
 */
int plobby_wait(struct plobby *l, uint64_t deadline, int *fd, struct pframe *fr);
/* Start and stop keeping the door while a session runs, or (with at_task
 * set) while the owner does something else than serve: a HELLO naming a
 * task before at_task hears that the listener serves at_task now (its
 * client gives that task up), any other one that the server is busy (its
 * client waits on), so a peer's clients learn that it is alive. */
int plobby_busy_start(struct plobby *l);
void plobby_busy_stop(struct plobby *l);
/* TCP streams that ATTACH with @cookie go to the session (0: none). */
void plobby_take_streams(struct plobby *l, uint64_t cookie);
/* The session's next TCP stream by @deadline: 0, -ETIMEDOUT or -errno. */
int plobby_stream(struct plobby *l, uint64_t deadline, struct plobby_stream *s);

#endif
