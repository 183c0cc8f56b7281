/* A verbs probe endpoint: device, PD, CQs, one registered buffer and RC
 * QPs, set up either out of band (our own exchange) or through rdma_cm. */
#ifndef RCK_PROBE_VERBS_H
#define RCK_PROBE_VERBS_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "exchange.h"
#include "perr.h"

struct rdma_cm_id;
struct rck_ctx;

struct vqp {
	struct ibv_qp *qp;
	struct rdma_cm_id *id;  /* cm mode; owned by the cm code */
	uint32_t psn;
	/* bandwidth bookkeeping */
	uint64_t target, posted, done;
	unsigned int outstanding, unsig;
};

struct vep {
	const struct rck_ctx *ctx;
	unsigned int timeout_ms;
	struct ibv_context *vctx;
	bool own_vctx;          /* opened here; else rdma_cm's */
	char device[64];
	unsigned int ib_port;
	int gid_index;
	union ibv_gid gid;
	enum ibv_mtu active_mtu;
	uint16_t lid;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;  /* the send CQ's, for waits longer than a spin */
	unsigned int cq_events;         /* received, not yet acknowledged */
	struct ibv_cq *scq, *rcq;
	struct ibv_mr *mr;
	uint8_t *buf;           /* tx region, then rx region (where the peer writes) */
	size_t buf_len, region;
	unsigned int slots;     /* message slots per region */
	uint32_t size;
	unsigned int n_qps;
	struct vqp *qp;
	unsigned int tx_depth, rx_depth, sig_every, max_inline;
	uint32_t rkey;          /* the peer's rx region */
	uint64_t raddr, rlen;
	uint64_t next_ctl;      /* when a wait looks at the control channel next */
	uint64_t end_by;        /* server: the run ends by then whatever the peer does (0: no limit) */
	int tclass;             /* what the QPs carry; -1 unknown */
	enum ibv_mtu path_mtu;
};

/* Zero @ep and set what every endpoint needs before opening. */
void vep_init(struct vep *ep, const struct rck_ctx *ctx, unsigned int timeout_ms);
/* Open @device and query @port and GID @gid_index (out-of-band mode). */
int vep_open(struct vep *ep, const char *device, unsigned int port, int gid_index, struct perr *e);
/* Name, port attributes and GID of an endpoint whose context came from rdma_cm. */
int vep_query(struct vep *ep, struct perr *e);
/* PD, CQs and the registered buffer for @p (QPs not yet). */
int vep_alloc(struct vep *ep, const struct xq_params *p, struct perr *e);
/* Bytes of the registered (pinned) buffer vep_alloc() makes for @p. */
uint64_t vep_buffer_bytes(const struct xq_params *p);
/* QP creation attributes shared by both modes. */
void vep_qp_attr(const struct vep *ep, struct ibv_qp_init_attr *attr);
/* Out-of-band mode: create the QPs (and post receives for send-lat). */
int vep_create_qps(struct vep *ep, const struct xq_params *p, struct perr *e);
/* Post @n receives on QP @qi (send-lat). */
int vep_post_recvs(struct vep *ep, unsigned int qi, unsigned int n, struct perr *e);
/* Out-of-band mode: move the QPs through INIT, RTR and RTS towards @remote. */
int vep_connect(struct vep *ep, const struct xq_params *p, const struct xq_endpoint *remote,
		struct perr *e);
/* What the peer needs to know of us. */
void vep_describe(const struct vep *ep, struct xq_endpoint *out);
/* Learn the traffic class and path MTU the QPs ended up with (cm mode). */
void vep_query_qp(struct vep *ep);
void vep_free(struct vep *ep);

/*
 * Send completions when spinning found none: arm the CQ, poll once more
 * (one may have landed meanwhile), else sleep on the completion channel
 * until one is signalled or @until passes. Returns the completions polled
 * into @wc (0 when none came), or a negative errno recorded in @e.
 */
int vep_wait_send(struct vep *ep, struct ibv_wc *wc, int max, uint64_t until, struct perr *e);

/* "IBV_WC_RETRY_EXC_ERR" for a completion status; static storage. */
const char *vep_wc_name(enum ibv_wc_status st);
/* Record a failed completion of QP @qi as the session's error. */
int vep_wc_error(struct vep *ep, const struct ibv_wc *wc, unsigned int qi, struct perr *e);
/* MTU enum <-> bytes; 0 / IBV_MTU_1024 style, 0 for an invalid value. */
unsigned int vep_mtu_bytes(enum ibv_mtu m);
enum ibv_mtu vep_mtu_enum(unsigned int bytes);

/* Post one ping-pong message on QP @qi: RDMA WRITE or SEND from the first
 * tx slot to the peer's first rx slot, whatever the QP (every QP's pings
 * land where the other side polls). @signaled asks for a completion.
 * Returns 0 or the recorded error. */
int vep_post(struct vep *ep, unsigned int qi, enum ibv_wr_opcode op, uint64_t wr_id, bool signaled,
	     struct perr *e);

#endif
