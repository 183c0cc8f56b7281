/* The three probe transports as one table each: TCP streams attached
 * through the server's lobby, verbs RC whose QP numbers travel in
 * HELLO/ACCEPT, and rdma_cm connecting on a port the ACCEPT names. */
#include "rdma_run.h"
#include "session.h"
#include "sock.h"
#include "transport.h"

static int no_hello(struct psess *s, const struct pdev *want, struct xq_hello *hello)
{
	(void)s;
	(void)want;
	(void)hello;
	return 0;
}

static int no_join(struct psess *s)
{
	(void)s;
	return 0;
}

/* --- TCP: the data streams come in through the lobby with the cookie. */
static int tcp_accept(struct psess *s, const struct pdev *want, struct xq_accept *acc)
{
	(void)want;
	(void)acc;
	plobby_take_streams(s->lobby, s->cookie);
	return 0;
}

static int tcp_connect(struct psess *s, unsigned int port)
{
	struct sockaddr_storage dst = s->peer;

	psock_set_port(&dst, port);
	return ptcp_client_attach(&s->tcp, &dst, &s->p, s->cookie, &s->err);
}

static int tcp_join(struct psess *s)
{
	return ptcp_server_attach(&s->tcp, s->lobby, &s->p, &s->err);
}

static int tcp_bw(struct psess *s)
{
	bool bidir = s->p.flags & XQ_F_BIDIR;

	if (!s->server)
		return ptcp_bw(&s->tcp, &s->p, true, &s->ctl, &s->mine, &s->err);
	return ptcp_bw(&s->tcp, &s->p, bidir, bidir ? &s->ctl : NULL, &s->mine, &s->err);
}

static int tcp_ping(struct psess *s)
{
	return ptcp_ping(&s->tcp, &s->p, &s->ctl, &s->smp, &s->mine, &s->err);
}

static int tcp_pong(struct psess *s)
{
	return ptcp_pong(&s->tcp, &s->p, &s->err);
}

/* --- RDMA, both ways of connecting: the same runs over the verbs endpoint. */
static int rdma_bw(struct psess *s)
{
	/* One way, the server only posts receives (inside the client's run). */
	if (s->server && !(s->p.flags & XQ_F_BIDIR))
		return 0;
	return rrun_bw(&s->ep, &s->p, &s->ctl, &s->mine, &s->err);
}

static int rdma_ping(struct psess *s)
{
	return rrun_ping(&s->ep, &s->p, &s->ctl, &s->smp, &s->mine, &s->err);
}

static int rdma_pong(struct psess *s)
{
	return rrun_pong(&s->ep, &s->p, &s->ctl, &s->err);
}

/* --- verbs RC: QPs created before the exchange, connected from its words. */
static int verbs_hello(struct psess *s, const struct pdev *want, struct xq_hello *hello)
{
	int rc = psess_open_oob(s, want->device, want->ib_port, want->gid_index);

	if (!rc)
		vep_describe(&s->ep, &hello->ep);
	return rc;
}

static int verbs_accept(struct psess *s, const struct pdev *want, struct xq_accept *acc)
{
	int rc = psess_open_oob(s, want->device, want->ib_port, want->gid_index);

	if (!rc)
		rc = vep_connect(&s->ep, &s->p, &s->remote, &s->err);
	if (!rc)
		vep_describe(&s->ep, &acc->ep);
	return rc;
}

static int verbs_connect(struct psess *s, unsigned int port)
{
	(void)port;
	return vep_connect(&s->ep, &s->p, &s->remote, &s->err);
}

/* --- rdma_cm: the server listens on a port of its own, named in ACCEPT. */
static int cm_accept(struct psess *s, const struct pdev *want, struct xq_accept *acc)
{
	(void)want;
	return pcm_listen(&s->cm, &s->local, &acc->ep.cm_port, &s->err);
}

static int cm_connect(struct psess *s, unsigned int port)
{
	struct sockaddr_storage dst = s->peer;

	(void)port;
	psock_set_port(&dst, s->remote.cm_port);
	return pcm_connect(&s->cm, &s->ep, &s->p, &dst, s->cookie, &s->err);
}

static int cm_join(struct psess *s)
{
	return pcm_accept(&s->cm, &s->ep, &s->p, s->cookie, &s->err);
}

static const struct ptransport tcp = {
	.name = "tcp", .rdma = false, .hello = no_hello, .accept = tcp_accept,
	.connect = tcp_connect, .join = tcp_join, .bw = tcp_bw, .ping = tcp_ping, .pong = tcp_pong,
};

static const struct ptransport verbs = {
	.name = "verbs", .rdma = true, .hello = verbs_hello, .accept = verbs_accept,
	.connect = verbs_connect, .join = no_join, .bw = rdma_bw, .ping = rdma_ping, .pong = rdma_pong,
};

static const struct ptransport rdma_cm = {
	.name = "rdma_cm", .rdma = true, .hello = no_hello, .accept = cm_accept,
	.connect = cm_connect, .join = cm_join, .bw = rdma_bw, .ping = rdma_ping, .pong = rdma_pong,
};

const struct ptransport *ptransport_of(const struct xq_params *p)
{
	if (p->transport == RCK_PROBE_TRANSPORT_TCP)
		return &tcp;
	return p->flags & XQ_F_CM ? &rdma_cm : &verbs;
}
