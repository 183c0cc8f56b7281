/* Probe session plumbing common to both roles: endpoint set-up, the
 * measurement by test through the transport table, and the result. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "session.h"
#include "sock.h"
#include "transport.h"

#define SAMPLES_LIMIT (16u << 20)

int psess_new(struct rck_ctx *ctx, bool server, struct psess **out)
{
	struct psess *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->ctx = ctx;
	s->server = server;
	s->timeout_ms = rck_ctx_get_timeout_ms(ctx);
	s->ctl.fd = -1;
	vep_init(&s->ep, ctx, s->timeout_ms);
	pcm_init(&s->cm, s->timeout_ms);
	ptcp_init(&s->tcp, s->timeout_ms);
	s->mine.tclass = s->theirs.tclass = -1;
	s->mine.gid_index = s->theirs.gid_index = -1;
	*out = s;
	return 0;
}

void psess_free(struct psess *s)
{
	if (!s)
		return;
	pcm_disconnect(&s->cm);
	vep_free(&s->ep);
	pcm_free(&s->cm);
	ptcp_close(&s->tcp);
	pchan_close(&s->ctl);
	pctr_free(&s->ctr);
	psamples_free(&s->smp);
	rck_inventory_free(s->inv);
	free(s);
}

void psess_attach(struct psess *s, int fd)
{
	char name[80];

	psock_peer(fd, &s->peer);
	psock_local(fd, &s->local);
	psock_addr_str(&s->peer, s->peer_addr, sizeof(s->peer_addr));
	psock_addr_str(&s->local, s->local_addr, sizeof(s->local_addr));
	snprintf(name, sizeof(name), "%s%s port %u", s->server ? "client " : "", s->peer_addr,
		 psock_addr_port(&s->peer));
	pchan_init(&s->ctl, fd, name, s->timeout_ms);
}

void psess_end_by(struct psess *s, uint64_t end_by)
{
	s->ep.end_by = end_by;
	s->tcp.end_by = end_by;
}

int psess_open_oob(struct psess *s, const char *device, unsigned int port, int gid_index)
{
	struct sockaddr_storage src;
	bool have_src;
	char why[256];
	int rc;

	if (rck_ctx_is_recorded(s->ctx))
		return perr_set(&s->err, RCK_PROBE_INVALID, -EINVAL,
				"an RDMA probe needs the live system, not a recorded sysfs tree");
	rc = rck_inventory_new(s->ctx, &s->inv);
	if (rc)
		return perr_set(&s->err, RCK_PROBE_RDMA, rc, "cannot read the RDMA inventory: %s",
				strerror(-rc));
	have_src = gsel_route_source(&s->peer, &src) == 0;
	rc = gsel_pick(s->inv, device, port, gid_index, have_src ? &src : NULL, &s->gs, why, sizeof(why));
	if (rc)
		return perr_set(&s->err, RCK_PROBE_RDMA, rc, "%s", why);
	rck_dbg(s->ctx, "probe uses %s/%u GID %d: %s", s->gs.device, s->gs.port, s->gs.gid_index, s->gs.why);
	rc = vep_open(&s->ep, s->gs.device, s->gs.port, s->gs.gid_index, &s->err);
	if (!rc)
		rc = vep_alloc(&s->ep, &s->p, &s->err);
	if (!rc)
		rc = vep_create_qps(&s->ep, &s->p, &s->err);
	return rc;
}

static bool is_rdma(const struct psess *s)
{
	return ptransport_of(&s->p)->rdma;
}

int psess_measure(struct psess *s)
{
	const struct ptransport *t = ptransport_of(&s->p);
	int rc;

	if (s->p.test == RCK_PROBE_TEST_BW)
		return t->bw(s);
	if (s->server)
		return t->pong(s);
	rc = psamples_init(&s->smp, s->p.iters, SAMPLES_LIMIT);
	if (rc)
		return perr_set(&s->err, RCK_PROBE_SYSTEM, rc, "out of memory for samples");
	if ((rc = t->ping(s)))
		return rc;
	s->mine.has_lat = pstats_latency(s->smp.v, s->smp.n, s->mine.lat) == 0;
	s->mine.lat_count = s->smp.n;
	return 0;
}

/* One inventory per session: the verbs endpoint's GID choice read it
 * already; rdma_cm reads it here, once for both counter snapshots. */
void psess_begin(struct psess *s)
{
	int rc;

	if (!is_rdma(s))
		return;
	if (!s->inv && (rc = rck_inventory_new(s->ctx, &s->inv)))
		rck_info(s->ctx, "no inventory for the counters of %s/%u: %s", s->ep.device,
			 s->ep.ib_port, strerror(-rc));
	pctr_begin(s->ctx, &s->ctr, s->inv, s->ep.device, s->ep.ib_port);
}

static void describe_mine(struct psess *s)
{
	struct xq_stats *m = &s->mine;

	if (!is_rdma(s)) {
		m->tclass = s->p.tclass;
		return;
	}
	if (!s->ep.device[0])
		return;
	snprintf(m->device, sizeof(m->device), "%s", s->ep.device);
	m->ib_port = (uint8_t)s->ep.ib_port;
	m->gid_index = s->ep.gid_index;
	memcpy(m->gid, s->ep.gid.raw, 16);
	m->tclass = (int16_t)s->ep.tclass;
	m->mtu = (uint16_t)vep_mtu_bytes(s->ep.path_mtu);
}

void psess_finish(struct psess *s)
{
	if (is_rdma(s))
		pctr_end(s->ctx, &s->ctr, s->inv, &s->my_ctr);
	describe_mine(s);
}

static void side_from_stats(struct pres_side *side, const struct xq_stats *st)
{
	static const uint8_t zero[16];

	if (st->device[0]) {
		snprintf(side->device, sizeof(side->device), "%s", st->device);
		side->port = st->ib_port;
		side->gid_index = st->gid_index;
		if (memcmp(st->gid, zero, 16))
			pres_gid_str(st->gid, side->gid, sizeof(side->gid));
	}
	side->tclass = st->tclass;
	side->mtu = st->mtu;
}

/* What the peer's HELLO or ACCEPT said, when it never sent its stats. */
static void side_from_endpoint(struct pres_side *side, const struct xq_endpoint *ep)
{
	struct xq_stats st = { .tclass = -1, .gid_index = ep->gid_index, .ib_port = ep->ib_port };

	memcpy(st.device, ep->device, sizeof(st.device));
	memcpy(st.gid, ep->gid, sizeof(st.gid));
	side_from_stats(side, &st);
}

/* Which measurement is which direction, seen from our side. */
static void directions(struct psess *s, struct rck_probe_result *res)
{
	const struct xq_stats *ping = s->server ? &s->theirs : &s->mine;
	bool bidir = s->p.flags & XQ_F_BIDIR;

	if (s->p.test != RCK_PROBE_TEST_BW) {
		if (!s->server || s->have_theirs) {
			pres_dir_set(&res->tx, ping);
			pres_lat_set(res, ping);
		}
		return;
	}
	if (!s->server || bidir)
		pres_dir_set(&res->tx, &s->mine);
	if (s->have_theirs && (s->server || bidir))
		pres_dir_set(&res->rx, &s->theirs);
}

int psess_result(struct psess *s, struct rck_probe_result **out)
{
	struct rck_probe_result *res;
	int rc = pres_new(&s->p, s->server, &res);

	if (rc)
		return rc;
	if (!s->mine.device[0])
		describe_mine(s);
	snprintf(res->side[RCK_PROBE_LOCAL].addr, sizeof(res->side[0].addr), "%s", s->local_addr);
	snprintf(res->side[RCK_PROBE_REMOTE].addr, sizeof(res->side[1].addr), "%s", s->peer_addr);
	snprintf(res->side[RCK_PROBE_LOCAL].gid_why, sizeof(res->side[0].gid_why), "%s", s->gs.why);
	side_from_stats(&res->side[RCK_PROBE_LOCAL], &s->mine);
	if (s->have_theirs)
		side_from_stats(&res->side[RCK_PROBE_REMOTE], &s->theirs);
	else
		side_from_endpoint(&res->side[RCK_PROBE_REMOTE], &s->remote);
	pres_counters_set(&res->side[RCK_PROBE_LOCAL], &s->my_ctr);
	pres_counters_set(&res->side[RCK_PROBE_REMOTE], &s->their_ctr);
	if (!perr_failed(&s->err)) {
		directions(s, res);
		if (!s->server && s->smp.n) {
			res->samples = s->smp.v;
			res->n_samples = s->smp.n;
			s->smp.v = NULL;
			s->smp.n = s->smp.cap = 0;
		}
	}
	rc = pres_fail(res, &s->err);
	if (rc) {
		rck_probe_result_free(res);
		return rc;
	}
	*out = res;
	return 0;
}
