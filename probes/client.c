/* The probe client, rck_probe_run(): connect the control channel, agree on
 * the parameters, connect the data path, measure, trade the results. */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "internal.h"
#include "opts.h"
#include "session.h"
#include "sock.h"
#include "task.h"
#include "transport.h"

static int connect_ctl(struct psess *s, const char *host, unsigned int port)
{
	int fd, gai, rc;

	rc = psock_connect(host, port, pclock_after_ms(s->timeout_ms), &fd, &s->peer, &gai);
	if (rc == -ENOENT && gai)
		return perr_set(&s->err, RCK_PROBE_UNREACHABLE, rc, "cannot resolve '%s': %s", host,
				gai_strerror(gai));
	if (rc == -ETIMEDOUT)
		return perr_set(&s->err, RCK_PROBE_TIMEOUT, rc, "no answer from %s port %u within %u ms",
				host, port, s->timeout_ms);
	if (rc)
		return perr_set(&s->err, perr_sock_status(rc), rc, "cannot connect to %s port %u: %s", host,
				port, strerror(-rc));
	psess_attach(s, fd);
	if (s->key) {
		char err[200];

		rc = wire_auth_client_sec(fd, &xq_proto, s->key, s->key_len, pclock_after_ms(s->timeout_ms),
					  &s->ctl.fr, err, sizeof(err));
		if (rc)
			return perr_set(&s->err, rc == -ETIMEDOUT ? RCK_PROBE_TIMEOUT : RCK_PROBE_PROTOCOL, rc,
					"%s port %u: %s", host, port, err);
	}
	return 0;
}

static int run(struct psess *s, const char *host, const struct rck_probe_opts *o, struct pgroup *g,
	       bool *came)
{
	const struct ptransport *t = ptransport_of(&s->p);
	const struct pdev want = { o->device, o->ib_port, o->gid_index };
	union xq_msg *m = &s->msg;
	int rc;

	if ((rc = connect_ctl(s, host, o->port)))
		return rc;
	memset(m, 0, sizeof(*m));
	if ((rc = t->hello(s, &want, &m->hello)))
		return rc;
	m->hello.p = s->p;
	m->hello.task = o->task;
	if ((rc = pchan_send(&s->ctl, XQ_HELLO, m, &s->err)))
		return rc;
	rc = pchan_recv(&s->ctl, XQ_ACCEPT, m, &s->err);
	if (rc == -ETIMEDOUT) {
		size_t n = strlen(s->err.msg);

		snprintf(s->err.msg + n, sizeof(s->err.msg) - n, " (not a rocecheck probe server?)");
	}
	if (rc)
		return rc;
	s->cookie = m->accept.cookie;
	s->remote = m->accept.ep;
	if ((rc = t->connect(s, o->port)))
		return rc;
	if (g && !*came) {
		pgroup_arrive(g);
		*came = true;
	}
	/* The server answers START once its own snapshot is taken. */
	psess_begin(s);
	rc = pchan_send(&s->ctl, XQ_START, NULL, &s->err);
	if (!rc)
		rc = pchan_recv(&s->ctl, XQ_START, m, &s->err);
	if (!rc)
		rc = psess_measure(s);
	/* Failed or not, the counters' second snapshot: a port that fell
	 * mid-probe (rxe then fails it, retry exceeded) counts link_downed. */
	psess_finish(s);
	if (rc)
		return rc;
	m->done.st = s->mine;
	m->done.ctr = s->my_ctr;
	if ((rc = pchan_send(&s->ctl, XQ_DONE, m, &s->err)) ||
	    (rc = pchan_recv(&s->ctl, XQ_RESULT, m, &s->err)))
		return rc;
	s->theirs = m->result.st;
	s->their_ctr = m->result.ctr;
	s->have_theirs = true;
	return 0;
}

int pcli_run_member(struct rck_ctx *ctx, const char *host, const struct rck_probe_opts *opts,
		    struct pgroup *g, bool *came, struct rck_probe_result **out)
{
	struct rck_probe_opts o;
	struct psess *s;
	char why[256];
	int rc;

	if (!ctx || !host || !*host || !out)
		return -EINVAL;
	rc = popts_copy(opts, &o, why, sizeof(why));
	if (!rc)
		rc = psess_new(ctx, false, &s);
	if (!rc && (rc = popts_to_params(&o, &s->p, why, sizeof(why))))
		psess_free(s);
	if (rc) {
		if (rc == -EINVAL)
			rck_err(ctx, "probe: %s", why);
		return rc;
	}
	s->key = s->tcp.key = o.key;
	s->key_len = s->tcp.key_len = o.key_len;
	if (run(s, host, &o, g, came) && s->ctl.fd >= 0)
		pchan_send_error(&s->ctl, &s->err);
	if (perr_failed(&s->err))
		rck_info(ctx, "probe of %s: %s", host, s->err.msg);
	rc = psess_result(s, out);
	psess_free(s);
	return rc;
}

RCK_EXPORT int rck_probe_run(struct rck_ctx *ctx, const char *host, const struct rck_probe_opts *opts,
			     struct rck_probe_result **out)
{
	return pcli_run_member(ctx, host, opts, NULL, NULL, out);
}
