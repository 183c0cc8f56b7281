/* The probe server: a listener that serves one session at a time, taking
 * every parameter from the client and answering protocol faults with an
 * ERROR message instead of silence. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "clock.h"
#include "internal.h"
#include "opts.h"
#include "session.h"
#include "sock.h"

struct rck_probe_server {
	struct rck_ctx *ctx;
	int lfd;
	unsigned int port;
	char *device;
	unsigned int ib_port;
	int gid_index;
};

RCK_EXPORT int rck_probe_server_new(struct rck_ctx *ctx, const struct rck_probe_opts *opts,
				    struct rck_probe_server **out)
{
	struct rck_probe_server *srv;
	struct rck_probe_opts o;
	char why[256];
	int rc;

	if (!ctx || !out)
		return -EINVAL;
	rc = popts_copy(opts, &o, why, sizeof(why));
	if (!rc)
		rc = popts_check_server(&o, why, sizeof(why));
	if (rc) {
		rck_err(ctx, "probe server: %s", why);
		return rc;
	}
	srv = calloc(1, sizeof(*srv));
	if (!srv || (o.device && !(srv->device = strdup(o.device)))) {
		free(srv);
		return -ENOMEM;
	}
	srv->ctx = ctx;
	srv->ib_port = o.ib_port;
	srv->gid_index = o.gid_index;
	rc = psock_listen(o.bind_addr, o.port, &srv->lfd, &srv->port);
	if (rc) {
		rck_err(ctx, "probe server: cannot listen on %s port %u: %s", o.bind_addr ? o.bind_addr : "*",
			o.port, strerror(-rc));
		free(srv->device);
		free(srv);
		return rc;
	}
	*out = srv;
	return 0;
}

RCK_EXPORT void rck_probe_server_free(struct rck_probe_server *srv)
{
	if (!srv)
		return;
	close(srv->lfd);
	free(srv->device);
	free(srv);
}

RCK_EXPORT unsigned int rck_probe_server_port(const struct rck_probe_server *srv)
{
	return srv->port;
}

static uint64_t make_cookie(void)
{
	uint64_t c = 0;

	if (getrandom(&c, sizeof(c), GRND_NONBLOCK) != sizeof(c))
		c = pclock_ns() * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	return c;
}

/* Our endpoint for the ACCEPT, and whatever the transport needs before it. */
static int prepare(struct rck_probe_server *srv, struct psess *s, struct xq_accept *acc)
{
	int rc;

	memset(acc, 0, sizeof(*acc));
	acc->cookie = s->cookie = make_cookie();
	if (s->p.transport == RCK_PROBE_TRANSPORT_TCP)
		return 0;
	if (s->p.flags & XQ_F_CM)
		return pcm_listen(&s->cm, &s->local, &acc->ep.cm_port, &s->err);
	if ((rc = psess_open_oob(s, srv->device, srv->ib_port, srv->gid_index)) ||
	    (rc = vep_connect(&s->ep, &s->p, &s->remote, &s->err)))
		return rc;
	vep_describe(&s->ep, &acc->ep);
	return 0;
}

static int join(struct psess *s)
{
	if (s->p.transport == RCK_PROBE_TRANSPORT_TCP)
		return ptcp_server_attach(&s->tcp, s->lfd, &s->p, s->cookie, &s->err);
	if (s->p.flags & XQ_F_CM)
		return pcm_accept(&s->cm, &s->ep, &s->p, s->cookie, &s->err);
	return 0;
}

static int serve(struct rck_probe_server *srv, struct psess *s)
{
	union xq_msg *m = &s->msg;
	char why[256];
	int rc;

	if ((rc = pchan_recv(&s->ctl, XQ_HELLO, m, &s->err)))
		return rc;
	s->p = m->hello.p;
	s->remote = m->hello.ep;
	if (pparams_check(&s->p, why, sizeof(why)))
		return perr_set(&s->err, RCK_PROBE_INVALID, -EINVAL, "refused parameters: %s", why);
	if ((rc = prepare(srv, s, &m->accept)) || (rc = pchan_send(&s->ctl, XQ_ACCEPT, m, &s->err)) ||
	    (rc = join(s)) || (rc = pchan_recv(&s->ctl, XQ_START, m, &s->err)))
		return rc;
	psess_begin(s);
	if ((rc = pchan_send(&s->ctl, XQ_START, NULL, &s->err)) || (rc = psess_measure(s)) ||
	    (rc = pchan_recv(&s->ctl, XQ_DONE, m, &s->err)))
		return rc;
	s->theirs = m->done.st;
	s->their_ctr = m->done.ctr;
	s->have_theirs = true;
	psess_finish(s);
	m->result.st = s->mine;
	m->result.ctr = s->my_ctr;
	return pchan_send(&s->ctl, XQ_RESULT, m, &s->err);
}

RCK_EXPORT int rck_probe_server_serve(struct rck_probe_server *srv, int wait_ms, struct rck_probe_result **out)
{
	struct rck_probe_result *res;
	struct psess *s;
	int fd, rc;

	rc = psock_accept(srv->lfd, wait_ms < 0 ? UINT64_MAX : pclock_after_ms((unsigned int)wait_ms), &fd);
	if (rc)
		return rc;
	rc = psess_new(srv->ctx, true, &s);
	if (rc) {
		close(fd);
		return rc;
	}
	s->lfd = srv->lfd;
	psess_attach(s, fd);
	if (serve(srv, s))
		pchan_send_error(&s->ctl, &s->err);
	if (perr_failed(&s->err))
		rck_info(srv->ctx, "probe session with %s: %s", s->peer_addr, s->err.msg);
	rc = psess_result(s, &res);
	psess_free(s);
	if (rc)
		return rc;
	if (out)
		*out = res;
	else
		rck_probe_result_free(res);
	return 0;
}
