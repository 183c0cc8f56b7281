/* The measurement loops on a connected verbs endpoint: WRITE bandwidth,
 * WRITE ping-pong latency and SEND/RECV ping-pong latency. */
#ifndef RCK_PROBE_RDMA_RUN_H
#define RCK_PROBE_RDMA_RUN_H

#include "chan.h"
#include "exchange.h"
#include "perr.h"
#include "stats.h"
#include "verbs.h"

/*
 * Post warm-up writes, then measured ones (p->iters over all QPs, or for
 * p->duration_ms), keeping tx_depth outstanding per QP and asking for a
 * completion every sig_every writes. Bandwidth is measured from the first
 * measured post to the last completion. @ctl gets TICKs (NULL: none).
 */
int rrun_bw(struct vep *ep, const struct xq_params *p, struct pchan *ctl, struct xq_stats *st,
	    struct perr *e);
/*
 * The client's half of a ping-pong (p->test: lat or send-lat): send, wait
 * for the reply, record half the round trip. Warm-up rounds are not kept.
 */
int rrun_ping(struct vep *ep, const struct xq_params *p, struct pchan *ctl, struct psamples *smp,
	      struct xq_stats *st, struct perr *e);
/* The server's half: wait for each ping and answer it, until the count is
 * reached or the client's next control message arrives (duration mode). */
int rrun_pong(struct vep *ep, const struct xq_params *p, struct pchan *ctl, struct perr *e);

#endif
