/* Probe results: construction from the session's messages and the public
 * accessors of rocecheck/probe.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "result.h"
#include "stats.h"

void pparams_to_opts(const struct xq_params *p, struct rck_probe_opts *o)
{
	rck_probe_opts_init(o);
	o->test = p->test;
	o->transport = p->transport;
	o->cm = p->flags & XQ_F_CM;
	o->bidirectional = p->flags & XQ_F_BIDIR;
	o->port = 0;
	o->gid_index = -1;
	o->msg_size = p->size;
	o->qps = p->qps;
	o->tx_depth = p->tx_depth;
	o->iters = p->iters;
	o->duration_s = p->iters ? 0 : p->duration_ms / 1000.0;
	o->warmup = p->warmup;
	o->tclass = p->tclass;
	o->sl = p->sl;
	o->mtu = p->mtu;
	o->flow_label = p->flow_label;
	o->udp_sport = p->udp_sport;
	o->window_s = p->window_us / 1e6;
}

int pres_new(const struct xq_params *p, bool server, struct rck_probe_result **out)
{
	struct rck_probe_result *res = calloc(1, sizeof(*res));

	if (!res)
		return -ENOMEM;
	pparams_to_opts(p, &res->opts);
	res->server = server;
	for (int i = 0; i < 2; i++) {
		res->side[i].gid_index = -1;
		res->side[i].tclass = -1;
		memset(res->side[i].ctr_state, PRES_CTR_ABSENT, sizeof(res->side[i].ctr_state));
	}
	*out = res;
	return 0;
}

int pres_fail(struct rck_probe_result *res, const struct perr *e)
{
	if (!perr_failed(e))
		return 0;
	res->status = e->status;
	res->wc_status = e->wc_status;
	free(res->error);
	res->error = strdup(e->msg[0] ? e->msg : rck_probe_status_name(e->status));
	return res->error ? 0 : -ENOMEM;
}

void pres_dir_set(struct pres_dir *d, const struct xq_stats *st)
{
	d->present = true;
	d->bytes = st->bytes;
	d->msgs = st->msgs;
	d->ns = st->ns;
	d->has_worst = st->has_worst;
	d->worst_gbps = st->worst_gbps;
}

void pres_lat_set(struct rck_probe_result *res, const struct xq_stats *st)
{
	if (!st->has_lat)
		return;
	res->has_lat = true;
	for (int i = 0; i < RCK_LAT_STAT_COUNT && i < XQ_LAT_STATS; i++)
		res->lat[i] = st->lat[i];
	res->lat_count = st->lat_count;
}

void pres_counters_set(struct pres_side *side, const struct xq_counters *c)
{
	side->has_ctr = c->present;
	for (unsigned int i = 0; i < c->n; i++) {
		if (c->c[i].id >= RCK_CTR_COUNT || c->c[i].state == PRES_CTR_ABSENT)
			continue;
		side->ctr_state[c->c[i].id] = c->c[i].state;
		side->ctr[c->c[i].id] = c->c[i].delta;
	}
}

void pres_gid_str(const uint8_t *raw, char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, raw, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

RCK_EXPORT void rck_probe_result_free(struct rck_probe_result *res)
{
	if (!res)
		return;
	free(res->error);
	free(res->samples);
	free(res);
}

RCK_EXPORT const char *rck_probe_test_name(enum rck_probe_test test)
{
	static const char *const names[] = { "bw", "lat", "send-lat" };

	return (unsigned int)test < RCK_ARRAY_SIZE(names) ? names[test] : NULL;
}

RCK_EXPORT const char *rck_probe_transport_name(enum rck_probe_transport transport)
{
	static const char *const names[] = { "rdma", "tcp" };

	return (unsigned int)transport < RCK_ARRAY_SIZE(names) ? names[transport] : NULL;
}

RCK_EXPORT const char *rck_probe_status_name(enum rck_probe_status status)
{
	static const char *const names[] = {
		"ok", "invalid", "unreachable", "timeout", "protocol_error", "rdma_error", "system_error",
	};

	return (unsigned int)status < RCK_ARRAY_SIZE(names) ? names[status] : NULL;
}

RCK_EXPORT enum rck_probe_status rck_probe_result_status(const struct rck_probe_result *res)
{
	return res->status;
}

RCK_EXPORT const char *rck_probe_result_error(const struct rck_probe_result *res)
{
	return res->error;
}

RCK_EXPORT const char *rck_probe_result_wc_status(const struct rck_probe_result *res)
{
	return res->wc_status;
}

RCK_EXPORT enum rck_probe_test rck_probe_result_test(const struct rck_probe_result *res)
{
	return res->opts.test;
}

RCK_EXPORT enum rck_probe_transport rck_probe_result_transport(const struct rck_probe_result *res)
{
	return res->opts.transport;
}

RCK_EXPORT bool rck_probe_result_cm(const struct rck_probe_result *res)
{
	return res->opts.cm;
}

RCK_EXPORT bool rck_probe_result_bidirectional(const struct rck_probe_result *res)
{
	return res->opts.bidirectional;
}

RCK_EXPORT const struct rck_probe_opts *rck_probe_result_opts(const struct rck_probe_result *res)
{
	return &res->opts;
}

RCK_EXPORT uint64_t rck_probe_result_bytes(const struct rck_probe_result *res)
{
	return (res->tx.present ? res->tx.bytes : 0) + (res->rx.present ? res->rx.bytes : 0);
}

RCK_EXPORT uint64_t rck_probe_result_messages(const struct rck_probe_result *res)
{
	return (res->tx.present ? res->tx.msgs : 0) + (res->rx.present ? res->rx.msgs : 0);
}

static uint64_t span_ns(const struct rck_probe_result *res)
{
	uint64_t a = res->tx.present ? res->tx.ns : 0, b = res->rx.present ? res->rx.ns : 0;

	return a > b ? a : b;
}

RCK_EXPORT double rck_probe_result_seconds(const struct rck_probe_result *res)
{
	return span_ns(res) / 1e9;
}

RCK_EXPORT double rck_probe_result_gbps(const struct rck_probe_result *res)
{
	double g = 0;

	if (res->tx.present)
		g += pstats_gbps(res->tx.bytes, res->tx.ns);
	if (res->rx.present)
		g += pstats_gbps(res->rx.bytes, res->rx.ns);
	return g;
}

RCK_EXPORT double rck_probe_result_msg_rate(const struct rck_probe_result *res)
{
	uint64_t ns = span_ns(res);

	return ns ? rck_probe_result_messages(res) * 1e9 / (double)ns : 0;
}

RCK_EXPORT int rck_probe_result_worst_window_gbps(const struct rck_probe_result *res, double *gbps)
{
	bool have = false;
	double w = 0;

	if (res->opts.test != RCK_PROBE_TEST_BW)
		return -ENOENT;
	if (res->tx.present && res->tx.has_worst) {
		w = res->tx.worst_gbps;
		have = true;
	}
	if (res->rx.present && res->rx.has_worst && (!have || res->rx.worst_gbps < w)) {
		w = res->rx.worst_gbps;
		have = true;
	}
	if (!have)
		return -ENOENT;
	*gbps = w;
	return 0;
}

RCK_EXPORT int rck_probe_result_latency(const struct rck_probe_result *res, enum rck_probe_lat_stat stat,
					double *usec)
{
	if (!res->has_lat || (unsigned int)stat >= RCK_LAT_STAT_COUNT)
		return -ENOENT;
	*usec = res->lat[stat];
	return 0;
}

RCK_EXPORT const double *rck_probe_result_latency_samples(const struct rck_probe_result *res, size_t *count)
{
	*count = res->samples ? res->n_samples : 0;
	return res->samples;
}

static const struct pres_side *side_of(const struct rck_probe_result *res, enum rck_probe_side side)
{
	return (unsigned int)side < 2 ? &res->side[side] : NULL;
}

RCK_EXPORT const char *rck_probe_result_device(const struct rck_probe_result *res, enum rck_probe_side side,
					       unsigned int *port)
{
	const struct pres_side *s = side_of(res, side);

	if (port)
		*port = s && s->device[0] ? s->port : 0;
	return s && s->device[0] ? s->device : NULL;
}

RCK_EXPORT int rck_probe_result_gid_index(const struct rck_probe_result *res, enum rck_probe_side side)
{
	const struct pres_side *s = side_of(res, side);

	return s ? s->gid_index : -1;
}

RCK_EXPORT const char *rck_probe_result_gid(const struct rck_probe_result *res, enum rck_probe_side side)
{
	const struct pres_side *s = side_of(res, side);

	return s && s->gid[0] ? s->gid : NULL;
}

RCK_EXPORT const char *rck_probe_result_address(const struct rck_probe_result *res, enum rck_probe_side side)
{
	const struct pres_side *s = side_of(res, side);

	return s && s->addr[0] ? s->addr : NULL;
}

RCK_EXPORT int rck_probe_result_counter(const struct rck_probe_result *res, enum rck_probe_side side,
					enum rck_counter id, uint64_t *delta)
{
	const struct pres_side *s = side_of(res, side);

	if (!s || (unsigned int)id >= RCK_CTR_COUNT || s->ctr_state[id] == PRES_CTR_ABSENT ||
	    s->ctr_state[id] == RCK_DELTA_ABSENT)
		return -ENOENT;
	if (s->ctr_state[id] != RCK_DELTA_OK)
		return -ERANGE;
	*delta = s->ctr[id];
	return 0;
}
