/* The agent's front door: one poll() over the listener and every connection
 * still proving its key, so no silent peer can keep a coordinator out. */
#ifndef RCK_MESH_AGENT_DOOR_H
#define RCK_MESH_AGENT_DOOR_H

#include <signal.h>
#include <stdint.h>

#include "wire.h"

struct rck_ctx;

#define DOOR_MAX 64
#define DOOR_KEYS 2

struct door_conn {
	int fd;
	uint64_t deadline;             /* for its answer to the challenge (or first frame) */
	struct wire_frame fr;
	char peer[80];                 /* "10.0.0.1 port 40000" */
	uint8_t nonce[WIRE_NONCE_LEN]; /* the challenge it was sent */
};

/*
 * Connections that have not yet proved the key (with one) or sent a whole
 * first frame (without). Each has its own short deadline; when the table
 * is full the oldest goes. Not thread-safe: the agent's serving thread.
 */
struct agent_door {
	struct rck_ctx *ctx;
	int lfd;
	unsigned int hello_ms;
	const uint8_t *key[DOOR_KEYS]; /* the agent's keys (a second while one is rolled) */
	size_t key_len[DOOR_KEYS];
	unsigned int n_keys;           /* 0: no authentication */
	struct door_conn conn[DOOR_MAX];
	unsigned int n;
	uint64_t backoff_until;        /* accept() failed for want of resources */
	/* Failed authentications are logged by default, as sshd does, but
	 * at most DOOR_AUTH_LOG_MAX lines a window: a flood of wrong keys
	 * cannot fill the journal. */
	uint64_t auth_log_start;
	unsigned int auth_logged, auth_unlogged;
};

#define DOOR_AUTH_LOG_MAX 10
#define DOOR_AUTH_LOG_WINDOW_S 60

void agent_door_init(struct agent_door *d, struct rck_ctx *ctx, int lfd, unsigned int hello_ms);
/* Close every pending connection. */
void agent_door_free(struct agent_door *d);
/*
 * Wait until @deadline (UINT64_MAX: for ever) for the next session: a
 * connection that proved a key (its frame then secured for the session,
 * waiting for the next frame) or, without a key, sent a whole first frame
 * (left complete in *fr for the session to handle). Returns 0 with *fd,
 * *fr (moved, the caller's now) and @peer; -EACCES when a peer failed
 * to prove the key (logged; the others wait for the next call);
 * -ETIMEDOUT; -EINTR once *stop is set (seen within 100 ms); a fatal
 * -errno of the listener.
 */
int agent_door_wait(struct agent_door *d, uint64_t deadline, volatile sig_atomic_t *stop, int *fd,
		    struct wire_frame *fr, char *peer, size_t peer_len);
/* Tell every pending connection the agent is busy, and close it. */
void agent_door_busy_all(struct agent_door *d);
/* Send the busy ERROR on @fd without waiting. */
void agent_door_busy(int fd);

#endif
