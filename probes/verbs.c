/* Verbs endpoint set-up and teardown: device and port queries, PD, CQs,
 * the registered buffer, RC QP creation and the INIT/RTR/RTS transitions. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "clock.h"
#include "internal.h"
#include "sock.h"
#include "verbs.h"

/* The QP's local ACK timeout is 4.096 us * 2^14 = 67 ms; with 6 retries a
 * dead peer turns into IBV_WC_RETRY_EXC_ERR within about half a second,
 * well inside any probe timeout. Not 7: rxe (rxe_comp.c) never counts a
 * retry_cnt of 7 down, so the QP would retry for ever. */
#define QP_TIMEOUT 14
#define QP_RETRY 6
/* 7 would mean "retry for ever" on RNR NAKs. */
#define QP_RNR_RETRY 6
#define QP_MIN_RNR_TIMER 12
#define MAX_INLINE_WANTED 256
#define RX_DEPTH 16
#define SLOTS_MAX_BYTES (64u << 20)

void vep_init(struct vep *ep, const struct rck_ctx *ctx, unsigned int timeout_ms)
{
	memset(ep, 0, sizeof(*ep));
	ep->ctx = ctx;
	ep->timeout_ms = timeout_ms;
	ep->gid_index = -1;
	ep->tclass = -1;
}

static int verr(struct perr *e, int err, const char *what, const struct vep *ep)
{
	int rc = err > 0 ? -err : err ? err : -EIO;

	return perr_set(e, RCK_PROBE_RDMA, rc, "%s on %s failed: %s", what,
			ep->device[0] ? ep->device : "the RDMA device", strerror(-rc));
}

int vep_query(struct vep *ep, struct perr *e)
{
	struct ibv_port_attr pa;
	int rc;

	snprintf(ep->device, sizeof(ep->device), "%s", ibv_get_device_name(ep->vctx->device));
	rc = ibv_query_port(ep->vctx, (uint8_t)ep->ib_port, &pa);
	if (rc)
		return verr(e, rc, "ibv_query_port", ep);
	if (pa.state != IBV_PORT_ACTIVE)
		return perr_set(e, RCK_PROBE_RDMA, -ENETDOWN, "port %s/%u is %s, not ACTIVE", ep->device,
				ep->ib_port, ibv_port_state_str(pa.state));
	ep->active_mtu = pa.active_mtu;
	ep->lid = pa.lid;
	if (ep->gid_index >= 0) {
		rc = ibv_query_gid(ep->vctx, (uint8_t)ep->ib_port, ep->gid_index, &ep->gid);
		if (rc)
			return verr(e, errno ? errno : EINVAL, "ibv_query_gid", ep);
	}
	return 0;
}

int vep_open(struct vep *ep, const char *device, unsigned int port, int gid_index, struct perr *e)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return perr_set(e, RCK_PROBE_RDMA, -ENODEV, "no RDMA devices: %s", strerror(errno));
	for (int i = 0; i < n; i++) {
		if (!strcmp(ibv_get_device_name(list[i]), device)) {
			ep->vctx = ibv_open_device(list[i]);
			if (!ep->vctx) {
				ibv_free_device_list(list);
				return perr_set(e, RCK_PROBE_RDMA, -errno, "cannot open %s: %s", device,
						strerror(errno));
			}
			break;
		}
	}
	ibv_free_device_list(list);
	if (!ep->vctx)
		return perr_set(e, RCK_PROBE_RDMA, -ENODEV, "libibverbs does not know device %s", device);
	ep->own_vctx = true;
	ep->ib_port = port;
	ep->gid_index = gid_index;
	return vep_query(ep, e);
}

/* Message slots per region: one per QP while that stays small. */
static unsigned int slots_for(const struct xq_params *p)
{
	return (uint64_t)p->qps * p->size <= SLOTS_MAX_BYTES ? p->qps : 1;
}

static uint64_t region_for(const struct xq_params *p)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	return ((uint64_t)slots_for(p) * p->size + page - 1) / page * page;
}

uint64_t vep_buffer_bytes(const struct xq_params *p)
{
	return 2 * region_for(p);
}

int vep_alloc(struct vep *ep, const struct xq_params *p, struct perr *e)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned int scqe, rcqe;
	void *buf;
	int rc, fl;

	ep->size = p->size;
	ep->n_qps = p->qps;
	ep->tx_depth = p->tx_depth;
	ep->rx_depth = RX_DEPTH;
	ep->sig_every = p->tx_depth / 2 ? (p->tx_depth / 2 < 64 ? p->tx_depth / 2 : 64) : 1;
	ep->slots = slots_for(p);
	ep->region = (size_t)region_for(p);
	ep->buf_len = (size_t)vep_buffer_bytes(p);
	ep->qp = calloc(p->qps, sizeof(*ep->qp));
	if (!ep->qp)
		return perr_set(e, RCK_PROBE_SYSTEM, -ENOMEM, "out of memory");
	rc = posix_memalign(&buf, page, ep->buf_len);
	if (rc)
		return perr_set(e, RCK_PROBE_SYSTEM, -rc, "cannot allocate %zu bytes of buffer", ep->buf_len);
	ep->buf = buf;
	memset(ep->buf, 0, ep->buf_len);

	ep->pd = ibv_alloc_pd(ep->vctx);
	if (!ep->pd)
		return verr(e, errno, "ibv_alloc_pd", ep);
	scqe = p->qps * (p->tx_depth + 1);
	rcqe = p->qps * (ep->rx_depth + 1);
	ep->chan = ibv_create_comp_channel(ep->vctx);
	if (!ep->chan)
		return verr(e, errno, "ibv_create_comp_channel", ep);
	fl = fcntl(ep->chan->fd, F_GETFL);
	if (fl < 0 || fcntl(ep->chan->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return perr_set(e, RCK_PROBE_SYSTEM, -errno, "cannot make the completion channel non-blocking");
	ep->scq = ibv_create_cq(ep->vctx, (int)scqe, NULL, ep->chan, 0);
	if (!ep->scq)
		return verr(e, errno, "ibv_create_cq", ep);
	ep->rcq = ibv_create_cq(ep->vctx, (int)rcqe, NULL, NULL, 0);
	if (!ep->rcq)
		return verr(e, errno, "ibv_create_cq", ep);
	ep->mr = ibv_reg_mr(ep->pd, ep->buf, ep->buf_len,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!ep->mr)
		return verr(e, errno, "ibv_reg_mr", ep);
	return 0;
}

void vep_qp_attr(const struct vep *ep, struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->send_cq = ep->scq;
	attr->recv_cq = ep->rcq;
	attr->qp_type = IBV_QPT_RC;
	attr->sq_sig_all = 0;
	attr->cap.max_send_wr = ep->tx_depth;
	attr->cap.max_recv_wr = ep->rx_depth;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->cap.max_inline_data = ep->size <= MAX_INLINE_WANTED ? ep->size : 0;
}

int vep_post_recvs(struct vep *ep, unsigned int qi, unsigned int n, struct perr *e)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(ep->buf + ep->region),
		.length = ep->size,
		.lkey = ep->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = qi, .sg_list = &sge, .num_sge = 1 }, *bad;
	int rc;

	for (unsigned int i = 0; i < n; i++) {
		rc = ibv_post_recv(ep->qp[qi].qp, &wr, &bad);
		if (rc)
			return verr(e, rc, "ibv_post_recv", ep);
	}
	return 0;
}

static uint32_t make_psn(unsigned int qi)
{
	uint64_t t = pclock_ns() ^ ((uint64_t)getpid() << 20) ^ ((uint64_t)qi * 0x9e3779b97f4a7c15ull);

	return (uint32_t)(t ^ (t >> 24) ^ (t >> 48)) & 0xffffff;
}

int vep_create_qps(struct vep *ep, const struct xq_params *p, struct perr *e)
{
	struct ibv_qp_init_attr attr;

	for (unsigned int i = 0; i < ep->n_qps; i++) {
		vep_qp_attr(ep, &attr);
		ep->qp[i].qp = ibv_create_qp(ep->pd, &attr);
		if (!ep->qp[i].qp && attr.cap.max_inline_data) {
			/* Providers refuse inline sizes above their own limit. */
			vep_qp_attr(ep, &attr);
			attr.cap.max_inline_data = 0;
			ep->qp[i].qp = ibv_create_qp(ep->pd, &attr);
		}
		if (!ep->qp[i].qp)
			return verr(e, errno, "ibv_create_qp", ep);
		ep->max_inline = attr.cap.max_inline_data;
		ep->qp[i].psn = make_psn(i);
		if (p->test == RCK_PROBE_TEST_SEND_LAT) {
			struct ibv_qp_attr a = {
				.qp_state = IBV_QPS_INIT,
				.port_num = (uint8_t)ep->ib_port,
				.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
			};
			int rc = ibv_modify_qp(ep->qp[i].qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);

			if (rc)
				return verr(e, rc, "ibv_modify_qp to INIT", ep);
			rc = vep_post_recvs(ep, i, ep->rx_depth, e);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Flow label that makes the kernel's rdma_flow_label_to_udp_sport() give
 * @sport: it folds the label's top 6 of 20 bits into the low 14 and sets
 * 0xC000, and a zero label means "derive from the QP numbers". */
static uint32_t sport_flow_label(uint16_t sport)
{
	uint32_t low = sport & 0x3fff;

	return low ? low : (1u << 14) | 1u;
}

int vep_connect(struct vep *ep, const struct xq_params *p, const struct xq_endpoint *remote,
		struct perr *e)
{
	enum ibv_mtu mtu = ep->active_mtu;
	enum ibv_mtu rmtu = vep_mtu_enum(remote->active_mtu);
	int rc;

	if (rmtu && rmtu < mtu)
		mtu = rmtu;
	if (p->mtu)
		mtu = vep_mtu_enum(p->mtu);
	if (remote->n_qps != ep->n_qps)
		return perr_set(e, RCK_PROBE_PROTOCOL, -EBADMSG, "the peer offers %u QPs, we have %u",
				remote->n_qps, ep->n_qps);
	ep->path_mtu = mtu;
	ep->tclass = p->tclass;
	for (unsigned int i = 0; i < ep->n_qps; i++) {
		struct ibv_qp *qp = ep->qp[i].qp;
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_INIT,
			.port_num = (uint8_t)ep->ib_port,
			.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		};

		if (p->test != RCK_PROBE_TEST_SEND_LAT) {
			rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					   IBV_QP_ACCESS_FLAGS);
			if (rc)
				return verr(e, rc, "ibv_modify_qp to INIT", ep);
		}
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = mtu;
		a.dest_qp_num = remote->qp[i].qpn;
		a.rq_psn = remote->qp[i].psn;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = QP_MIN_RNR_TIMER;
		a.ah_attr.is_global = 1;
		a.ah_attr.dlid = remote->lid;
		a.ah_attr.sl = p->sl;
		a.ah_attr.port_num = (uint8_t)ep->ib_port;
		memcpy(a.ah_attr.grh.dgid.raw, remote->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)ep->gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.grh.traffic_class = (uint8_t)p->tclass;
		if (p->udp_sport)
			a.ah_attr.grh.flow_label = sport_flow_label((uint16_t)(p->udp_sport + i));
		else if (p->flow_label)
			a.ah_attr.grh.flow_label = p->flow_label + i;
		rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
		if (rc)
			return verr(e, rc, "ibv_modify_qp to RTR", ep);
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.timeout = QP_TIMEOUT;
		a.retry_cnt = QP_RETRY;
		a.rnr_retry = QP_RNR_RETRY;
		a.sq_psn = ep->qp[i].psn;
		a.max_rd_atomic = 1;
		rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
		if (rc)
			return verr(e, rc, "ibv_modify_qp to RTS", ep);
	}
	ep->rkey = remote->rkey;
	ep->raddr = remote->addr;
	ep->rlen = remote->len;
	return 0;
}

void vep_describe(const struct vep *ep, struct xq_endpoint *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->device, sizeof(out->device), "%s", ep->device);
	out->ib_port = (uint8_t)ep->ib_port;
	memcpy(out->gid, ep->gid.raw, 16);
	out->gid_index = ep->gid_index;
	out->lid = ep->lid;
	out->active_mtu = (uint16_t)vep_mtu_bytes(ep->active_mtu);
	out->rkey = ep->mr ? ep->mr->rkey : 0;
	out->addr = (uintptr_t)(ep->buf + ep->region);
	out->len = ep->region;
	out->n_qps = (uint16_t)ep->n_qps;
	for (unsigned int i = 0; i < ep->n_qps && ep->qp && i < XQ_MAX_QPS; i++) {
		out->qp[i].qpn = ep->qp[i].qp ? ep->qp[i].qp->qp_num : 0;
		out->qp[i].psn = ep->qp[i].psn;
	}
}

void vep_query_qp(struct vep *ep)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (!ep->n_qps || !ep->qp[0].qp)
		return;
	if (ibv_query_qp(ep->qp[0].qp, &a, IBV_QP_AV | IBV_QP_PATH_MTU, &ia))
		return;
	ep->tclass = a.ah_attr.grh.traffic_class;
	ep->path_mtu = a.path_mtu;
	ep->gid_index = a.ah_attr.grh.sgid_index;
	if (ibv_query_gid(ep->vctx, (uint8_t)ep->ib_port, ep->gid_index, &ep->gid))
		memset(&ep->gid, 0, sizeof(ep->gid));
	ep->max_inline = ia.cap.max_inline_data;
}

void vep_free(struct vep *ep)
{
	for (unsigned int i = 0; ep->qp && i < ep->n_qps; i++) {
		if (ep->qp[i].id && ep->qp[i].qp)
			rdma_destroy_qp(ep->qp[i].id);
		else if (ep->qp[i].qp)
			ibv_destroy_qp(ep->qp[i].qp);
		ep->qp[i].qp = NULL;
	}
	if (ep->mr)
		ibv_dereg_mr(ep->mr);
	/* ibv_destroy_cq() waits for every received event to be acknowledged. */
	if (ep->scq && ep->cq_events)
		ibv_ack_cq_events(ep->scq, ep->cq_events);
	ep->cq_events = 0;
	if (ep->scq)
		ibv_destroy_cq(ep->scq);
	if (ep->rcq)
		ibv_destroy_cq(ep->rcq);
	if (ep->chan)
		ibv_destroy_comp_channel(ep->chan);
	ep->chan = NULL;
	if (ep->pd)
		ibv_dealloc_pd(ep->pd);
	if (ep->own_vctx && ep->vctx)
		ibv_close_device(ep->vctx);
	free(ep->buf);
	free(ep->qp);
	ep->mr = NULL;
	ep->scq = ep->rcq = NULL;
	ep->pd = NULL;
	ep->vctx = NULL;
	ep->buf = NULL;
	ep->qp = NULL;
	ep->n_qps = 0;
}

int vep_post(struct vep *ep, unsigned int qi, enum ibv_wr_opcode op, uint64_t wr_id, bool signaled,
	     struct perr *e)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)ep->buf,
		.length = ep->size,
		.lkey = ep->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = (signaled ? IBV_SEND_SIGNALED : 0) |
			      (ep->size <= ep->max_inline ? IBV_SEND_INLINE : 0),
	}, *bad;
	int rc;

	if (op == IBV_WR_RDMA_WRITE) {
		wr.wr.rdma.remote_addr = ep->raddr;
		wr.wr.rdma.rkey = ep->rkey;
	}
	rc = ibv_post_send(ep->qp[qi].qp, &wr, &bad);
	if (rc)
		return perr_set(e, RCK_PROBE_RDMA, -rc, "ibv_post_send on QP %u of %s failed: %s", qi,
				ep->device, strerror(rc));
	return 0;
}

int vep_wait_send(struct vep *ep, struct ibv_wc *wc, int max, uint64_t until, struct perr *e)
{
	struct ibv_cq *cq;
	void *cq_ctx;
	int n, rc;

	if (ibv_req_notify_cq(ep->scq, 0))
		return perr_set(e, RCK_PROBE_RDMA, -EIO, "ibv_req_notify_cq on %s failed", ep->device);
	n = ibv_poll_cq(ep->scq, max, wc);
	if (n)
		return n < 0 ? perr_set(e, RCK_PROBE_RDMA, -EIO, "ibv_poll_cq on %s failed", ep->device) : n;
	rc = psock_wait(ep->chan->fd, POLLIN, until);
	if (rc == -ETIMEDOUT)
		return 0;
	if (rc < 0)
		return perr_set(e, RCK_PROBE_SYSTEM, rc, "poll on the completion channel: %s", strerror(-rc));
	while (ibv_get_cq_event(ep->chan, &cq, &cq_ctx) == 0) {
		if (++ep->cq_events >= 64) {
			ibv_ack_cq_events(ep->scq, ep->cq_events);
			ep->cq_events = 0;
		}
	}
	n = ibv_poll_cq(ep->scq, max, wc);
	return n < 0 ? perr_set(e, RCK_PROBE_RDMA, -EIO, "ibv_poll_cq on %s failed", ep->device) : n;
}

const char *vep_wc_name(enum ibv_wc_status st)
{
	static const char *const names[] = {
		[IBV_WC_SUCCESS] = "IBV_WC_SUCCESS",
		[IBV_WC_LOC_LEN_ERR] = "IBV_WC_LOC_LEN_ERR",
		[IBV_WC_LOC_QP_OP_ERR] = "IBV_WC_LOC_QP_OP_ERR",
		[IBV_WC_LOC_EEC_OP_ERR] = "IBV_WC_LOC_EEC_OP_ERR",
		[IBV_WC_LOC_PROT_ERR] = "IBV_WC_LOC_PROT_ERR",
		[IBV_WC_WR_FLUSH_ERR] = "IBV_WC_WR_FLUSH_ERR",
		[IBV_WC_MW_BIND_ERR] = "IBV_WC_MW_BIND_ERR",
		[IBV_WC_BAD_RESP_ERR] = "IBV_WC_BAD_RESP_ERR",
		[IBV_WC_LOC_ACCESS_ERR] = "IBV_WC_LOC_ACCESS_ERR",
		[IBV_WC_REM_INV_REQ_ERR] = "IBV_WC_REM_INV_REQ_ERR",
		[IBV_WC_REM_ACCESS_ERR] = "IBV_WC_REM_ACCESS_ERR",
		[IBV_WC_REM_OP_ERR] = "IBV_WC_REM_OP_ERR",
		[IBV_WC_RETRY_EXC_ERR] = "IBV_WC_RETRY_EXC_ERR",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "IBV_WC_RNR_RETRY_EXC_ERR",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "IBV_WC_LOC_RDD_VIOL_ERR",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "IBV_WC_REM_INV_RD_REQ_ERR",
		[IBV_WC_REM_ABORT_ERR] = "IBV_WC_REM_ABORT_ERR",
		[IBV_WC_INV_EECN_ERR] = "IBV_WC_INV_EECN_ERR",
		[IBV_WC_INV_EEC_STATE_ERR] = "IBV_WC_INV_EEC_STATE_ERR",
		[IBV_WC_FATAL_ERR] = "IBV_WC_FATAL_ERR",
		[IBV_WC_RESP_TIMEOUT_ERR] = "IBV_WC_RESP_TIMEOUT_ERR",
		[IBV_WC_GENERAL_ERR] = "IBV_WC_GENERAL_ERR",
		[IBV_WC_TM_ERR] = "IBV_WC_TM_ERR",
		[IBV_WC_TM_RNDV_INCOMPLETE] = "IBV_WC_TM_RNDV_INCOMPLETE",
	};

	return (unsigned int)st < RCK_ARRAY_SIZE(names) && names[st] ? names[st] : "IBV_WC_UNKNOWN";
}

int vep_wc_error(struct vep *ep, const struct ibv_wc *wc, unsigned int qi, struct perr *e)
{
	if (!perr_failed(e))
		e->wc_status = vep_wc_name(wc->status);
	return perr_set(e, RCK_PROBE_RDMA, -EIO, "completion error on QP %u of %s: %s (%s, vendor error 0x%x)",
			qi, ep->device, vep_wc_name(wc->status), ibv_wc_status_str(wc->status),
			wc->vendor_err);
}

unsigned int vep_mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128u << m : 0;
}

enum ibv_mtu vep_mtu_enum(unsigned int bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return 0;
	}
}
