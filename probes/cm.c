/* rdma_cm connection setup: every event is awaited through the channel's
 * descriptor with poll(), so no CM step can block past the timeout. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "clock.h"
#include "cm.h"
#include "sock.h"

/* Same as the out-of-band QPs (verbs.c): 7 would mean "for ever" to rxe. */
#define CM_ACK_TIMEOUT 14
#define CM_RETRY 6
#define CM_RNR_RETRY 6
#define CM_LINGER_MS 1000

struct cm_event {
	enum rdma_cm_event_type type;
	int status;
	struct rdma_cm_id *id;
	uint8_t pdata[64];
	uint8_t pdata_len;
};

void pcm_init(struct pcm *c, unsigned int timeout_ms)
{
	memset(c, 0, sizeof(*c));
	c->timeout_ms = timeout_ms;
}

static int cm_fail(struct perr *e, const char *what)
{
	int err = errno ? errno : EIO;

	return perr_set(e, RCK_PROBE_RDMA, -err, "%s failed: %s", what, strerror(err));
}

static int open_channel(struct pcm *c, struct perr *e)
{
	int fl;

	c->ch = rdma_create_event_channel();
	if (!c->ch)
		return cm_fail(e, "rdma_create_event_channel (is rdma_ucm loaded?)");
	fl = fcntl(c->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(c->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return perr_set(e, RCK_PROBE_SYSTEM, -errno, "cannot make the rdma_cm channel non-blocking");
	return 0;
}

/* Next event, copied out and acknowledged at once (rdma_destroy_id()
 * waits for every retrieved event to be acknowledged). */
static int next_event(struct pcm *c, const char *waiting, struct cm_event *ev, struct perr *e)
{
	uint64_t deadline = pclock_after_ms(c->timeout_ms);
	struct rdma_cm_event *raw;
	int rc;

	for (;;) {
		if (rdma_get_cm_event(c->ch, &raw) == 0)
			break;
		if (errno != EAGAIN && errno != EINTR)
			return cm_fail(e, "rdma_get_cm_event");
		rc = psock_wait(c->ch->fd, POLLIN, deadline);
		if (rc == -ETIMEDOUT)
			return perr_set(e, RCK_PROBE_TIMEOUT, rc, "rdma_cm: no %s within %u ms", waiting,
					c->timeout_ms);
		if (rc < 0)
			return perr_set(e, RCK_PROBE_SYSTEM, rc, "poll on the rdma_cm channel: %s",
					strerror(-rc));
	}
	memset(ev, 0, sizeof(*ev));
	ev->type = raw->event;
	ev->status = raw->status;
	ev->id = raw->id;
	if (raw->param.conn.private_data && raw->param.conn.private_data_len) {
		ev->pdata_len = raw->param.conn.private_data_len < sizeof(ev->pdata)
					? raw->param.conn.private_data_len : sizeof(ev->pdata);
		memcpy(ev->pdata, raw->param.conn.private_data, ev->pdata_len);
	}
	rdma_ack_cm_event(raw);
	return 0;
}

static int unexpected(const struct cm_event *ev, const char *waiting, struct perr *e)
{
	enum rck_probe_status st = RCK_PROBE_RDMA;

	if (ev->type == RDMA_CM_EVENT_UNREACHABLE || ev->type == RDMA_CM_EVENT_REJECTED ||
	    ev->type == RDMA_CM_EVENT_ADDR_ERROR || ev->type == RDMA_CM_EVENT_ROUTE_ERROR)
		st = RCK_PROBE_UNREACHABLE;
	return perr_set(e, st, -ECONNREFUSED, "rdma_cm: %s (status %d) while waiting for %s",
			rdma_event_str(ev->type), ev->status, waiting);
}

static int expect(struct pcm *c, enum rdma_cm_event_type want, struct cm_event *ev, struct perr *e)
{
	const char *name = rdma_event_str(want);
	int rc = next_event(c, name, ev, e);

	if (rc)
		return rc;
	if (ev->type != want)
		return unexpected(ev, name, e);
	return 0;
}

static void conn_param(struct rdma_conn_param *cp, const uint8_t *pdata)
{
	memset(cp, 0, sizeof(*cp));
	cp->private_data = pdata;
	cp->private_data_len = XQ_CM_PDATA_LEN;
	cp->responder_resources = 1;
	cp->initiator_depth = 1;
	cp->retry_count = CM_RETRY;
	cp->rnr_retry_count = CM_RNR_RETRY;
}

static void our_pdata(const struct vep *ep, unsigned int qi, uint64_t cookie, uint8_t *buf)
{
	struct xq_cm_pdata pd = {
		.version = XQ_VERSION,
		.qp_index = (uint16_t)qi,
		.cookie = cookie,
		.rkey = ep->mr->rkey,
		.addr = (uintptr_t)(ep->buf + ep->region),
		.len = ep->region,
	};

	xq_encode_cm(&pd, buf, XQ_CM_PDATA_LEN);
}

/* The first id fixes the device: allocate the endpoint on it. */
static int bind_device(struct vep *ep, struct rdma_cm_id *id, const struct xq_params *p, struct perr *e)
{
	int rc;

	if (ep->vctx) {
		if (id->verbs != ep->vctx)
			return perr_set(e, RCK_PROBE_RDMA, -EXDEV,
					"rdma_cm routed the QPs through different devices");
		return 0;
	}
	ep->vctx = id->verbs;
	ep->own_vctx = false;
	ep->ib_port = id->port_num;
	rc = vep_query(ep, e);
	if (!rc)
		rc = vep_alloc(ep, p, e);
	return rc;
}

static int make_qp(struct vep *ep, struct rdma_cm_id *id, unsigned int qi, const struct xq_params *p,
		   struct perr *e)
{
	struct ibv_qp_init_attr attr;
	uint8_t tmo = CM_ACK_TIMEOUT;

	/* Older kernels lack the option; the CM's own timeout then applies. */
	rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &tmo, sizeof(tmo));
	vep_qp_attr(ep, &attr);
	if (rdma_create_qp(id, ep->pd, &attr)) {
		vep_qp_attr(ep, &attr);
		attr.cap.max_inline_data = 0;
		if (rdma_create_qp(id, ep->pd, &attr))
			return cm_fail(e, "rdma_create_qp");
	}
	ep->max_inline = attr.cap.max_inline_data;
	ep->qp[qi].qp = id->qp;
	ep->qp[qi].id = id;
	if (p->test == RCK_PROBE_TEST_SEND_LAT)
		return vep_post_recvs(ep, qi, ep->rx_depth, e);
	return 0;
}

static int take_peer(struct vep *ep, const struct cm_event *ev, uint64_t cookie, struct perr *e)
{
	struct xq_cm_pdata pd;
	int rc = xq_decode_cm(ev->pdata, ev->pdata_len, &pd);

	if (rc == -EPROTONOSUPPORT)
		return perr_set(e, RCK_PROBE_PROTOCOL, rc, "rdma_cm peer speaks protocol version %u", pd.version);
	if (rc || pd.cookie != cookie)
		return perr_set(e, RCK_PROBE_PROTOCOL, -EPROTO, "rdma_cm peer sent no rocecheck private data");
	ep->rkey = pd.rkey;
	ep->raddr = pd.addr;
	ep->rlen = pd.len;
	return 0;
}

int pcm_connect(struct pcm *c, struct vep *ep, const struct xq_params *p,
		const struct sockaddr_storage *dst, uint64_t cookie, struct perr *e)
{
	uint8_t pdata[XQ_CM_PDATA_LEN];
	struct rdma_conn_param cp;
	struct cm_event ev;
	int rc = open_channel(c, e);

	for (unsigned int i = 0; !rc && i < p->qps; i++) {
		struct rdma_cm_id *id;

		if (rdma_create_id(c->ch, &id, NULL, RDMA_PS_TCP))
			return cm_fail(e, "rdma_create_id");
		c->ids[c->n_ids++] = id;
		if (p->tclass >= 0) {
			uint8_t tos = (uint8_t)p->tclass;

			if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)))
				return cm_fail(e, "rdma_set_option(TOS)");
		}
		if (rdma_resolve_addr(id, NULL, (struct sockaddr *)dst, (int)c->timeout_ms))
			return cm_fail(e, "rdma_resolve_addr");
		if ((rc = expect(c, RDMA_CM_EVENT_ADDR_RESOLVED, &ev, e)))
			return rc;
		if (rdma_resolve_route(id, (int)c->timeout_ms))
			return cm_fail(e, "rdma_resolve_route");
		if ((rc = expect(c, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev, e)))
			return rc;
		if ((rc = bind_device(ep, id, p, e)) || (rc = make_qp(ep, id, i, p, e)))
			return rc;
		our_pdata(ep, i, cookie, pdata);
		conn_param(&cp, pdata);
		if (rdma_connect(id, &cp))
			return cm_fail(e, "rdma_connect");
		if ((rc = expect(c, RDMA_CM_EVENT_ESTABLISHED, &ev, e)))
			return rc;
		if (i == 0)
			rc = take_peer(ep, &ev, cookie, e);
	}
	if (!rc)
		vep_query_qp(ep);
	return rc;
}

int pcm_listen(struct pcm *c, const struct sockaddr_storage *local, uint16_t *port, struct perr *e)
{
	struct sockaddr_storage sa = *local;
	int rc = open_channel(c, e);

	if (rc)
		return rc;
	psock_set_port(&sa, 0);
	if (rdma_create_id(c->ch, &c->listen, NULL, RDMA_PS_TCP))
		return cm_fail(e, "rdma_create_id");
	if (rdma_bind_addr(c->listen, (struct sockaddr *)&sa))
		return cm_fail(e, "rdma_bind_addr");
	if (rdma_listen(c->listen, 16))
		return cm_fail(e, "rdma_listen");
	*port = ntohs(rdma_get_src_port(c->listen));
	return 0;
}

/* A connection request: ours (right cookie, a QP index not yet taken) is
 * given a QP and accepted, anything else is rejected. */
static int on_request(struct pcm *c, struct vep *ep, const struct xq_params *p, uint64_t cookie,
		      const struct cm_event *ev, struct perr *e)
{
	uint8_t pdata[XQ_CM_PDATA_LEN];
	struct rdma_conn_param cp;
	struct xq_cm_pdata pd;
	int rc;

	if (xq_decode_cm(ev->pdata, ev->pdata_len, &pd) || pd.cookie != cookie || pd.qp_index >= p->qps ||
	    (ep->qp && ep->qp[pd.qp_index].qp)) {
		rdma_reject(ev->id, NULL, 0);
		rdma_destroy_id(ev->id);
		return 0;
	}
	c->ids[c->n_ids++] = ev->id;
	if ((rc = bind_device(ep, ev->id, p, e)) || (rc = make_qp(ep, ev->id, pd.qp_index, p, e)))
		return rc;
	if (pd.qp_index == 0) {
		ep->rkey = pd.rkey;
		ep->raddr = pd.addr;
		ep->rlen = pd.len;
	}
	our_pdata(ep, pd.qp_index, cookie, pdata);
	conn_param(&cp, pdata);
	if (rdma_accept(ev->id, &cp))
		return cm_fail(e, "rdma_accept");
	return 0;
}

int pcm_accept(struct pcm *c, struct vep *ep, const struct xq_params *p, uint64_t cookie,
	       struct perr *e)
{
	unsigned int established = 0;
	struct cm_event ev;
	int rc;

	while (established < p->qps) {
		rc = next_event(c, "the client's connection", &ev, e);
		if (rc)
			return rc;
		if (ev.type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			if (c->n_ids >= XQ_MAX_QPS) {
				rdma_reject(ev.id, NULL, 0);
				rdma_destroy_id(ev.id);
				continue;
			}
			rc = on_request(c, ep, p, cookie, &ev, e);
			if (rc)
				return rc;
		} else if (ev.type == RDMA_CM_EVENT_ESTABLISHED) {
			established++;
		} else {
			return unexpected(&ev, "the client's connection", e);
		}
	}
	vep_query_qp(ep);
	return 0;
}

/* Send the DREQs and give the DREQ/DREP exchange a moment: an id destroyed
 * while its peer's DREQ is still on the way leaves that peer retransmitting
 * it for seconds. */
void pcm_disconnect(struct pcm *c)
{
	struct perr ignore = { 0 };
	unsigned int pending = 0;
	struct cm_event ev;
	struct pcm quick = *c;

	for (unsigned int i = 0; i < c->n_ids; i++)
		if (rdma_disconnect(c->ids[i]) == 0)
			pending++;
	quick.timeout_ms = c->timeout_ms < CM_LINGER_MS ? c->timeout_ms : CM_LINGER_MS;
	while (pending && c->ch && next_event(&quick, "the disconnection", &ev, &ignore) == 0)
		if (ev.type == RDMA_CM_EVENT_DISCONNECTED)
			pending--;
}

void pcm_free(struct pcm *c)
{
	for (unsigned int i = 0; i < c->n_ids; i++)
		rdma_destroy_id(c->ids[i]);
	c->n_ids = 0;
	if (c->listen)
		rdma_destroy_id(c->listen);
	c->listen = NULL;
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	c->ch = NULL;
}
