/* The --cm connection mode: QPs connected through librdmacm (address and
 * route resolution, connect/accept), with our buffer address and rkey in
 * the CM's private data, so the port's rdma_cm defaults apply. */
#ifndef RCK_PROBE_CM_H
#define RCK_PROBE_CM_H

#include <stdint.h>
#include <sys/socket.h>

#include "exchange.h"
#include "perr.h"
#include "verbs.h"

struct rdma_event_channel;
struct rdma_cm_id;

struct pcm {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct rdma_cm_id *ids[XQ_MAX_QPS];
	unsigned int n_ids;
	unsigned int timeout_ms;
};

void pcm_init(struct pcm *c, unsigned int timeout_ms);
/* Server: listen on @local's address, on a port of rdma_cm's choice (*port). */
int pcm_listen(struct pcm *c, const struct sockaddr_storage *local, uint16_t *port, struct perr *e);
/* Server: accept p->qps connections that carry @cookie, allocating @ep on
 * the device rdma_cm routed the first one to. */
int pcm_accept(struct pcm *c, struct vep *ep, const struct xq_params *p, uint64_t cookie,
	       struct perr *e);
/* Client: connect p->qps QPs to @dst (the server's rdma_cm port). */
int pcm_connect(struct pcm *c, struct vep *ep, const struct xq_params *p,
		const struct sockaddr_storage *dst, uint64_t cookie, struct perr *e);
/* Send the disconnect requests (no wait); call before vep_free(). */
void pcm_disconnect(struct pcm *c);
/* Destroy the ids and the channel; call after vep_free(). */
void pcm_free(struct pcm *c);

#endif
