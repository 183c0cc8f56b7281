/* The monitor's RDMA prober: one UD QP per local RDMA port serving all its
 * peers, pings answered and pongs matched on its CQ, NIC completion times when the device has them. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor_int.h"

/* wr_id of sends: a ping carries its peer and sequence for its NIC time */
#define WR_SEND (1ull << 63)
#define WR_PING (1ull << 62)

static int fail(char *why, size_t len, int err, const char *what, const struct md_ud *u)
{
	snprintf(why, len, "%s on %s port %u failed: %s", what, u->device, u->port, strerror(err));
	return -err;
}

static int post_recv(struct md_ud *u, unsigned int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(u->buf + MU_TX * MU_MSG + (size_t)i * (MU_GRH + MU_MSG)),
		.length = MU_GRH + MU_MSG, .lkey = u->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

	return -ibv_post_recv(u->qp, &wr, &bad);
}

/* The CQ: an extended one with completion timestamps when the device
 * reports a clock for them (the extra fields are what ibv_init_ah_from_wc()
 * reads to build a pong's address); a plain one otherwise, polled with
 * ibv_poll_cq(). rxe (rdma-core 44) has no timestamps, and its extended CQ
 * returned endless zeroed entries after the first ibv_next_poll() on the
 * fabric guests, so the plain path is the one Soft-RoCE takes. */
static int make_cq(struct md_ud *u)
{
	struct ibv_device_attr_ex dx;
	struct ibv_cq_init_attr_ex ca = {
		.cqe = MU_RX + MU_TX, .channel = u->chan,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID |
			    IBV_WC_EX_WITH_SL | IBV_WC_EX_WITH_DLID_PATH_BITS |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};

	memset(&dx, 0, sizeof(dx));
	if (!ibv_query_device_ex(u->vctx, NULL, &dx) && dx.completion_timestamp_mask && dx.hca_core_clock &&
	    (u->cqx = ibv_create_cq_ex(u->vctx, &ca))) {
		u->cq = ibv_cq_ex_to_cq(u->cqx);
		u->nic_ts = true;
		u->ts_mask = dx.completion_timestamp_mask;
		u->clock_khz = dx.hca_core_clock;
		return 0;
	}
	u->cq = ibv_create_cq(u->vctx, MU_RX + MU_TX, NULL, u->chan, 0);
	return u->cq ? 0 : -(errno ? errno : ENOMEM);
}

static int open_dev(struct md_ud *u)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return -(errno ? errno : ENODEV);
	for (int i = 0; i < n && !u->vctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), u->device))
			u->vctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return u->vctx ? 0 : -ENODEV;
}

int mu_open(struct md_ud *u, const char *device, unsigned int port, char *why, size_t len)
{
	size_t bytes = (size_t)MU_TX * MU_MSG + (size_t)MU_RX * (MU_GRH + MU_MSG);
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = MU_TX, .max_recv_wr = MU_RX, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = (uint8_t)port, .qkey = MU_QKEY };
	int rc, fl;

	memset(u, 0, sizeof(*u));
	snprintf(u->device, sizeof(u->device), "%s", device);
	u->port = port;
	if ((rc = open_dev(u)))
		return fail(why, len, -rc, "ibv_open_device", u);
	if (!(u->pd = ibv_alloc_pd(u->vctx)))
		return fail(why, len, errno ? errno : ENOMEM, "ibv_alloc_pd", u);
	if (!(u->chan = ibv_create_comp_channel(u->vctx)))
		return fail(why, len, errno ? errno : ENOMEM, "ibv_create_comp_channel", u);
	/* the run loop polls the fd: reading an event never blocks */
	fl = fcntl(u->chan->fd, F_GETFL);
	if (fl < 0 || fcntl(u->chan->fd, F_SETFL, fl | O_NONBLOCK))
		return fail(why, len, errno, "fcntl on the completion channel", u);
	if ((rc = make_cq(u)))
		return fail(why, len, -rc, "creating the CQ", u);
	if (!(u->buf = calloc(1, bytes)))
		return fail(why, len, ENOMEM, "allocating buffers", u);
	if (!(u->mr = ibv_reg_mr(u->pd, u->buf, bytes, IBV_ACCESS_LOCAL_WRITE)))
		return fail(why, len, errno ? errno : ENOMEM, "ibv_reg_mr", u);
	qa.send_cq = qa.recv_cq = u->cq;
	if (!(u->qp = ibv_create_qp(u->pd, &qa)))
		return fail(why, len, errno ? errno : ENOMEM, "ibv_create_qp (UD)", u);
	if ((rc = ibv_modify_qp(u->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)))
		return fail(why, len, rc, "ibv_modify_qp to INIT", u);
	a.qp_state = IBV_QPS_RTR;
	if ((rc = ibv_modify_qp(u->qp, &a, IBV_QP_STATE)))
		return fail(why, len, rc, "ibv_modify_qp to RTR", u);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if ((rc = ibv_modify_qp(u->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN)))
		return fail(why, len, rc, "ibv_modify_qp to RTS", u);
	for (unsigned int i = 0; i < MU_RX; i++)
		if ((rc = post_recv(u, i)))
			return fail(why, len, -rc, "ibv_post_recv", u);
	if ((rc = ibv_req_notify_cq(u->cq, 0)))
		return fail(why, len, rc, "ibv_req_notify_cq", u);
	return 0;
}

void mu_close(struct md_ud *u)
{
	for (unsigned int i = 0; i < u->n_ah; i++)
		ibv_destroy_ah(u->ah[i].ah);
	free(u->ah);
	if (u->qp)
		ibv_destroy_qp(u->qp);
	if (u->mr)
		ibv_dereg_mr(u->mr);
	/* every event is acknowledged when read, so destroying the CQ does not wait */
	if (u->cq)
		ibv_destroy_cq(u->cq);
	if (u->chan)
		ibv_destroy_comp_channel(u->chan);
	if (u->pd)
		ibv_dealloc_pd(u->pd);
	if (u->vctx)
		ibv_close_device(u->vctx);
	free(u->buf);
	memset(u, 0, sizeof(*u));
}

uint32_t mu_qpn(const struct md_ud *u)
{
	return u->qp ? u->qp->qp_num : 0;
}

int mu_fd(const struct md_ud *u)
{
	return u->chan ? u->chan->fd : -1;
}

double mu_ticks_us(const struct md_ud *u, uint64_t t0, uint64_t t1)
{
	/* hca_core_clock is in kHz; the counter wraps at its mask */
	return u->clock_khz ? (double)((t1 - t0) & u->ts_mask) * 1e3 / (double)u->clock_khz : 0;
}

/* The address handle for @gid from @sgid_index, made once and kept; past
 * MU_AH_MAX the oldest made is replaced. @attr: how to make it. */
static struct ibv_ah *ah_for(struct md_ud *u, const uint8_t gid[16], int sgid_index, struct ibv_ah_attr *attr)
{
	struct mu_ah *a;
	struct ibv_ah *ah;

	for (unsigned int i = 0; i < u->n_ah; i++)
		if (u->ah[i].sgid_index == sgid_index && !memcmp(u->ah[i].gid, gid, 16))
			return u->ah[i].ah;
	if (!(ah = ibv_create_ah(u->pd, attr)))
		return NULL;
	if (u->n_ah < MU_AH_MAX && !(u->n_ah % 64)) {
		a = realloc(u->ah, (u->n_ah + 64) * sizeof(*a));
		if (!a) {
			ibv_destroy_ah(ah);
			return NULL;
		}
		u->ah = a;
	}
	if (u->n_ah < MU_AH_MAX) {
		a = &u->ah[u->n_ah++];
	} else {
		a = &u->ah[u->ah_evict++ % MU_AH_MAX];
		ibv_destroy_ah(a->ah);
	}
	memcpy(a->gid, gid, 16);
	a->sgid_index = sgid_index;
	a->ah = ah;
	return ah;
}

static int post(struct md_ud *u, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey, const void *msg, uint64_t wr_id)
{
	uint8_t *slot = u->buf + (size_t)(u->tx_next % MU_TX) * MU_MSG;
	struct ibv_sge sge = { .addr = (uintptr_t)slot, .length = MD_MSG_LEN, .lkey = u->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = qpn, .remote_qkey = qkey },
	}, *bad;
	int rc;

	if (u->tx_busy >= MU_TX - 1)
		return -EAGAIN;
	memcpy(slot, msg, MD_MSG_LEN);
	if ((rc = ibv_post_send(u->qp, &wr, &bad)))
		return -rc;
	u->tx_next++;
	u->tx_busy++;
	return 0;
}

int mu_send(struct md_ud *u, const uint8_t gid[16], int sgid_index, uint32_t qpn, uint32_t qkey,
	    const void *msg, uint64_t wr_id)
{
	struct ibv_ah_attr at = { .is_global = 1, .port_num = (uint8_t)u->port };
	struct ibv_ah *ah;

	memcpy(at.grh.dgid.raw, gid, 16);
	at.grh.sgid_index = (uint8_t)sgid_index;
	at.grh.hop_limit = 64;
	if (!(ah = ah_for(u, gid, sgid_index, &at)))
		return -(errno ? errno : ENOMEM);
	return post(u, ah, qpn, qkey, msg, WR_SEND | WR_PING | wr_id);
}

/* One completion, copied out of the CQ: work is done after ibv_end_poll(). */
struct cqe {
	uint64_t wr_id, ts;
	enum ibv_wc_status status;
	enum ibv_wc_opcode op;
	struct ibv_wc wc;
	uint8_t grh[MU_GRH];
	uint8_t msg[MU_MSG];
	uint32_t len;
};

static void copy_msg(const struct md_ud *u, struct cqe *c)
{
	if (c->status == IBV_WC_SUCCESS && c->op == IBV_WC_RECV && c->wr_id < MU_RX) {
		const uint8_t *b = u->buf + MU_TX * MU_MSG + (size_t)c->wr_id * (MU_GRH + MU_MSG);

		memcpy(c->grh, b, MU_GRH);
		memcpy(c->msg, b + MU_GRH, MU_MSG);
	}
}

/* Up to @max completions of the extended CQ, with their NIC times. */
static unsigned int drain_ex(struct md_ud *u, struct cqe *v, unsigned int max)
{
	struct ibv_poll_cq_attr pa = { 0 };
	unsigned int n = 0;

	if (ibv_start_poll(u->cqx, &pa))
		return 0;
	do {
		struct cqe *c = &v[n++];

		memset(c, 0, sizeof(*c));
		c->wr_id = c->wc.wr_id = u->cqx->wr_id;
		c->status = c->wc.status = u->cqx->status;
		c->op = c->wc.opcode = ibv_wc_read_opcode(u->cqx);
		c->ts = ibv_wc_read_completion_ts(u->cqx);
		if (c->status != IBV_WC_SUCCESS || c->op != IBV_WC_RECV)
			continue;
		c->len = c->wc.byte_len = ibv_wc_read_byte_len(u->cqx);
		c->wc.src_qp = ibv_wc_read_src_qp(u->cqx);
		c->wc.wc_flags = ibv_wc_read_wc_flags(u->cqx);
		c->wc.slid = (uint16_t)ibv_wc_read_slid(u->cqx);
		c->wc.sl = ibv_wc_read_sl(u->cqx);
		c->wc.dlid_path_bits = ibv_wc_read_dlid_path_bits(u->cqx);
		copy_msg(u, c);
	} while (n < max && !ibv_next_poll(u->cqx));
	ibv_end_poll(u->cqx);
	return n;
}

static unsigned int drain(struct md_ud *u, struct cqe *v, unsigned int max)
{
	struct ibv_wc wc[32];
	int n;

	if (u->cqx)
		return drain_ex(u, v, max);
	n = ibv_poll_cq(u->cq, (int)(max < 32 ? max : 32), wc);
	for (int i = 0; i < n; i++) {
		struct cqe *c = &v[i];

		memset(c, 0, sizeof(*c));
		c->wc = wc[i];
		c->wr_id = wc[i].wr_id;
		c->status = wc[i].status;
		c->op = wc[i].opcode;
		c->len = wc[i].byte_len;
		copy_msg(u, c);
	}
	return n > 0 ? (unsigned int)n : 0;
}

/* A ping answered to where it came from: its address from the GRH (for
 * RoCE v2 over IPv4 the IPv4 header sits in the GRH's last 20 bytes, which
 * ibv_init_ah_from_wc() knows). */
static void pong(struct md_ud *u, struct cqe *c, struct md_msg *msg)
{
	struct ibv_ah_attr at;
	struct ibv_ah *ah;

	if (ibv_init_ah_from_wc(u->vctx, (uint8_t)u->port, &c->wc, (struct ibv_grh *)c->grh, &at))
		return;
	if (!(ah = ah_for(u, at.grh.dgid.raw, at.grh.sgid_index, &at)))
		return;
	msg->magic = htonl(MD_MAGIC);
	msg->type = htonl(MD_PONG);
	msg->id = htonl(msg->id);
	msg->seq = htonl(msg->seq);
	/* a full send queue loses the pong: the prober counts it */
	(void)post(u, ah, c->wc.src_qp, MU_QKEY, msg, WR_SEND);
}

void mu_poll(struct rck_monitor *m, unsigned int e)
{
	struct md_ud *u = &m->ud[e];
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	struct cqe v[32];

	/* the fd is non-blocking: no event, no wait */
	while (!ibv_get_cq_event(u->chan, &ev_cq, &ev_ctx)) {
		ibv_ack_cq_events(ev_cq, 1);
		ibv_req_notify_cq(ev_cq, 0);
	}
	for (int round = 0; round < 64; round++) {
		unsigned int n = drain(u, v, RCK_ARRAY_SIZE(v));

		for (unsigned int i = 0; i < n; i++) {
			struct cqe *c = &v[i];
			struct md_msg msg;

			if (c->wr_id & WR_SEND) {
				if (u->tx_busy)
					u->tx_busy--;
				if ((c->wr_id & WR_PING) && c->status == IBV_WC_SUCCESS && u->nic_ts)
					md_sent_at(m, (uint32_t)(c->wr_id >> 32) & 0xfffffu, (uint32_t)c->wr_id, c->ts);
				continue;
			}
			if (c->wr_id >= MU_RX)
				continue;
			if (c->status == IBV_WC_SUCCESS && c->len >= MU_GRH &&
			    !md_msg_parse(c->msg, c->len - MU_GRH, &msg)) {
				if (msg.type == MD_PING)
					pong(u, c, &msg);
				else
					md_match(m, &msg, true, md_now(), u->nic_ts ? &c->ts : NULL);
			}
			/* flushed receives (the QP going to error) are not posted again */
			if (c->status == IBV_WC_SUCCESS)
				(void)post_recv(u, (unsigned int)c->wr_id);
		}
		if (n < RCK_ARRAY_SIZE(v))
			break;
	}
}
