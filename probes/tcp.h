/* The TCP transport: the same probes over plain TCP streams, for hosts
 * without RDMA (results say "tcp"); streams join the session through the
 * server's control port with an ATTACH message. */
#ifndef RCK_PROBE_TCP_H
#define RCK_PROBE_TCP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "chan.h"
#include "exchange.h"
#include "lobby.h"
#include "perr.h"
#include "stats.h"

struct ptcp {
	unsigned int n;
	int fd[XQ_MAX_QPS];
	uint8_t *buf, *rxbuf;    /* what the role sends (or NULL), what it reads into */
	size_t rxlen;
	uint32_t size;
	unsigned int timeout_ms;
	uint64_t end_by;        /* server: the run ends by then whatever the peer does (0: no limit) */
};

void ptcp_init(struct ptcp *t, unsigned int timeout_ms);
/* Client: open p->qps streams to @srv and attach them to session @cookie. */
int ptcp_client_attach(struct ptcp *t, const struct sockaddr_storage *srv, const struct xq_params *p,
		       uint64_t cookie, struct perr *e);
/* Server: take the p->qps streams the lobby passes on (those that ATTACH
 * with the cookie given to plobby_take_streams()). */
int ptcp_server_attach(struct ptcp *t, struct plobby *l, const struct xq_params *p, struct perr *e);
/* Bytes of buffers one side (@server or the client) allocates for @p. */
uint64_t ptcp_buffer_bytes(const struct xq_params *p, bool server);
/* Bandwidth: @send streams p->iters messages (or for the duration); every
 * side reads what comes until the peer's end of stream. */
int ptcp_bw(struct ptcp *t, const struct xq_params *p, bool send, struct pchan *ctl,
	    struct xq_stats *st, struct perr *e);
int ptcp_ping(struct ptcp *t, const struct xq_params *p, struct pchan *ctl, struct psamples *smp,
	      struct xq_stats *st, struct perr *e);
int ptcp_pong(struct ptcp *t, const struct xq_params *p, struct perr *e);
void ptcp_close(struct ptcp *t);

#endif
