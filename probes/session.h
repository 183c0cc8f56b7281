/* A probe session, shared by the client and the server: the control
 * channel, the chosen transport's endpoint, the measurement for our role
 * and the assembly of the result. */
#ifndef RCK_PROBE_SESSION_H
#define RCK_PROBE_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "chan.h"
#include "cm.h"
#include "exchange.h"
#include "gid_select.h"
#include "lobby.h"
#include "pctr.h"
#include "perr.h"
#include "result.h"
#include "stats.h"
#include "tcp.h"
#include "verbs.h"

struct rck_ctx;
struct rck_inventory;

struct psess {
	struct rck_ctx *ctx;
	bool server;
	unsigned int timeout_ms;
	struct xq_params p;
	struct pchan ctl;
	struct plobby *lobby;           /* server: its front door, where TCP streams attach */
	struct sockaddr_storage peer, local;
	char peer_addr[64], local_addr[64];
	uint64_t cookie;
	struct perr err;
	struct rck_inventory *inv;
	struct gsel gs;
	struct vep ep;
	struct pcm cm;
	struct ptcp tcp;
	struct pctr ctr;
	struct psamples smp;
	struct xq_stats mine, theirs;
	bool have_theirs;
	struct xq_counters my_ctr, their_ctr;
	struct xq_endpoint remote;
	union xq_msg msg;               /* scratch for the control messages */
};

/* Returns 0 or -ENOMEM; *out is freed with psess_free(). */
int psess_new(struct rck_ctx *ctx, bool server, struct psess **out);
void psess_free(struct psess *s);
/* Record the control connection @fd and name its ends. */
void psess_attach(struct psess *s, int fd);
/* Server: the run ends by @end_by (CLOCK_MONOTONIC ns) whatever the client does. */
void psess_end_by(struct psess *s, uint64_t end_by);
/* Out-of-band verbs endpoint: pick device, port and GID (automatically
 * unless given), open, allocate and create the QPs. */
int psess_open_oob(struct psess *s, const char *device, unsigned int port, int gid_index);
/* Counters' first snapshot. */
void psess_begin(struct psess *s);
/* Our role's part of the measurement. */
int psess_measure(struct psess *s);
/* Counters' second snapshot, and our side's description in s->mine. */
void psess_finish(struct psess *s);
/* The result of the session so far (measured, or failed with s->err). */
int psess_result(struct psess *s, struct rck_probe_result **out);

#endif
