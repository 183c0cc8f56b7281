/* The agent's requests: the host's RoCE ports (from its inventory through
 * the sweep result's own reader), a port's counters, and probes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rocecheck/counters.h"
#include "rocecheck/inventory.h"
#include "rocecheck/mesh.h"
#include "rocecheck/probe.h"

#include "agent_srv.h"

#define MAX_ITERS 100000000ull
#define MAX_TIMEOUT_MS 600000u
#define SERVE_SLICE_NS 100000000ull

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* The IPv4 address of the port's GID @index. */
static void gid_addr(const struct rck_inventory *inv, const char *dev, unsigned int port, int index,
		     char *buf, size_t len)
{
	const struct rck_device *d = rck_inventory_find(inv, dev);
	const struct rck_port *p = d ? rck_device_find_port(d, port) : NULL;

	for (unsigned int i = 0; p && i < rck_port_gid_count(p); i++) {
		const struct rck_gid *g = rck_port_gid(p, i);

		if ((int)rck_gid_index(g) == index && rck_gid_ipv4(g)) {
			copy(buf, len, rck_gid_ipv4(g));
			return;
		}
	}
}

int agent_describe(struct rck_ctx *ctx, struct ag_msg *out)
{
	struct rck_inventory *inv = NULL;
	struct rck_snapshot *snap = NULL;
	struct rck_mesh *m = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	out->type = AG_HOST;
	if (gethostname(out->text, sizeof(out->text) - 1))
		copy(out->text, sizeof(out->text), "unknown");
	rc = rck_inventory_new(ctx, &inv);
	if (rc)
		return rc;
	if (rck_snapshot_new(ctx, inv, NULL, 0, &snap))
		snap = NULL; /* counters unknown: the NICs still count */
	rc = rck_mesh_new(&m) ?: rck_mesh_add_host(m, "self", NULL) ?:
	     rck_mesh_add_inventory(m, 0, inv, snap);
	for (unsigned int i = 0; !rc && i < rck_mesh_nic_count(m) && out->n_nics < AG_MAX_NICS; i++) {
		struct rck_mesh_nic nic = { .size = sizeof(nic) };
		struct ag_nic *n = &out->nics[out->n_nics++];

		rck_mesh_get_nic(m, i, &nic, NULL);
		copy(n->device, sizeof(n->device), nic.device);
		n->port = nic.port;
		copy(n->netdev, sizeof(n->netdev), nic.netdev);
		copy(n->state, sizeof(n->state), nic.state);
		copy(n->fw_ver, sizeof(n->fw_ver), nic.fw_ver);
		n->rate_gbps = isfinite(nic.rate_gbps) ? nic.rate_gbps : 0;
		n->active_mtu = nic.active_mtu;
		n->netdev_mtu = nic.netdev_mtu;
		n->gid_index = nic.gid_index;
		n->counters = nic.counters;
		gid_addr(inv, nic.device, nic.port, nic.gid_index, n->addr, sizeof(n->addr));
	}
	rck_mesh_free(m);
	rck_snapshot_free(snap);
	rck_inventory_free(inv);
	return rc;
}

void agent_snapshot(struct rck_ctx *ctx, const struct ag_msg *req, struct ag_msg *out)
{
	struct rck_snapshot *snap = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	out->type = AG_COUNTERS;
	out->id = req->id;
	rc = rck_snapshot_new(ctx, NULL, req->device[0] ? req->device : NULL,
			      req->device[0] ? req->ib_port : 0, &snap);
	if (rc) {
		out->status = (uint32_t)-rc;
		return;
	}
	for (unsigned int id = 0; id < RCK_CTR_COUNT && out->n_ctr[0] < AG_MAX_CTRS; id++) {
		uint64_t v;

		if (rck_snapshot_port_count(snap) && !rck_snapshot_get(snap, 0, (enum rck_counter)id, &v)) {
			out->ctr[0][out->n_ctr[0]].id = id;
			out->ctr[0][out->n_ctr[0]++].value = v;
		}
	}
	rck_snapshot_free(snap);
}

int agent_check_limits(const struct agent_probe_ask *q, const struct rck_agent_opts *o, char *why,
		       size_t len)
{
	if (q->test > RCK_PROBE_TEST_SEND_LAT || q->transport > RCK_PROBE_TRANSPORT_TCP) {
		snprintf(why, len, "unknown test %u or transport %u", q->test, q->transport);
		return -EINVAL;
	}
	if (q->size > o->max_probe_size) {
		snprintf(why, len, "message size %llu above this agent's limit %llu",
			 (unsigned long long)q->size, (unsigned long long)o->max_probe_size);
		return -E2BIG;
	}
	if (q->duration_ms > o->max_probe_s * 1000 || q->iters > MAX_ITERS) {
		snprintf(why, len, "probe of %u ms / %llu messages above this agent's limit %.0f s / %llu",
			 q->duration_ms, (unsigned long long)q->iters, o->max_probe_s,
			 (unsigned long long)MAX_ITERS);
		return -E2BIG;
	}
	if (q->timeout_ms > MAX_TIMEOUT_MS) {
		snprintf(why, len, "timeout %u ms above %u", q->timeout_ms, MAX_TIMEOUT_MS);
		return -E2BIG;
	}
	return 0;
}

int agent_check_probe(const struct ag_msg *req, const struct rck_agent_opts *o, char *why,
		      size_t len)
{
	const struct agent_probe_ask q = { .test = req->test, .transport = req->transport,
					   .size = req->size, .iters = req->iters,
					   .duration_ms = req->duration_ms, .timeout_ms = req->timeout_ms };
	int rc = agent_check_limits(&q, o, why, len);

	if (rc)
		return rc;
	if (req->type == AG_RUN && (!req->peer[0] || !req->probe_port)) {
		snprintf(why, len, "a probe run needs a peer and its port");
		return -EINVAL;
	}
	return 0;
}

static void probe_opts(const struct ag_msg *req, struct rck_probe_opts *o)
{
	rck_probe_opts_init(o);
	o->test = (enum rck_probe_test)req->test;
	o->transport = (enum rck_probe_transport)req->transport;
	o->device = req->device[0] ? req->device : NULL;
	o->ib_port = req->ib_port;
	o->msg_size = req->size;
	o->iters = req->iters;
	o->duration_s = req->duration_ms / 1000.0;
}

static void counters(const struct rck_probe_result *res, enum rck_probe_side side,
		     struct ag_ctr *c, uint32_t *n)
{
	*n = 0;
	for (unsigned int id = 0; id < RCK_CTR_COUNT && *n < AG_MAX_CTRS; id++) {
		uint64_t v;

		if (!rck_probe_result_counter(res, side, (enum rck_counter)id, &v)) {
			c[*n].id = id;
			c[(*n)++].value = v;
		}
	}
}

void agent_run_probe(struct rck_ctx *ctx, const struct ag_msg *req, struct ag_msg *out,
		     agent_send_fn send, void *arg)
{
	struct rck_probe_result *res = NULL;
	struct rck_probe_opts o;
	int rc;

	probe_opts(req, &o);
	o.port = req->probe_port;
	ag_msg_clear(out);
	out->type = AG_RESULT;
	out->id = req->id;
	out->gbps = out->lat_p50_us = out->lat_p99_us = NAN;
	rc = rck_probe_run(ctx, req->peer, &o, &res);
	if (rc) {
		out->status = RCK_PROBE_INVALID;
		snprintf(out->text, sizeof(out->text), "probe refused: %s", strerror(-rc));
	} else {
		out->status = rck_probe_result_status(res);
		copy(out->text, sizeof(out->text), rck_probe_result_error(res));
		out->seconds = rck_probe_result_seconds(res);
		if (out->status == RCK_PROBE_OK && o.test == RCK_PROBE_TEST_BW)
			out->gbps = rck_probe_result_gbps(res);
		if (out->status == RCK_PROBE_OK && o.test != RCK_PROBE_TEST_BW) {
			rck_probe_result_latency(res, RCK_LAT_P50, &out->lat_p50_us);
			rck_probe_result_latency(res, RCK_LAT_P99, &out->lat_p99_us);
		}
		counters(res, RCK_PROBE_LOCAL, out->ctr[0], &out->n_ctr[0]);
		counters(res, RCK_PROBE_REMOTE, out->ctr[1], &out->n_ctr[1]);
		rck_probe_result_free(res);
	}
	send(arg, out);
}

void agent_serve_probe(struct rck_ctx *ctx, const struct ag_msg *req,
		       const struct rck_agent_opts *ao, struct ag_msg *out, agent_send_fn send,
		       void *arg, const atomic_bool *cancel)
{
	uint64_t until;
	struct rck_probe_server *srv = NULL;
	struct rck_probe_result *res = NULL;
	struct rck_probe_opts o;
	int rc;

	probe_opts(req, &o);
	o.port = 0;
	o.max_size = ao->max_probe_size > RCK_PROBE_DEFAULT_MAX_SIZE ? ao->max_probe_size
								     : RCK_PROBE_DEFAULT_MAX_SIZE;
	o.max_duration_s = ao->max_probe_s;
	ag_msg_clear(out);
	out->id = req->id;
	rc = rck_probe_server_new(ctx, &o, &srv);
	if (!rc) {
		out->type = AG_SERVING;
		out->probe_port = rck_probe_server_port(srv);
		if (send(arg, out))
			goto out;
		/* In slices: a coordinator that died between SERVE and RUN must
		 * not keep the agent waiting for a client that never comes. */
		until = wire_now_ns() + (req->timeout_ms ? req->timeout_ms : 10000) * 1000000ull;
		do {
			uint64_t now = wire_now_ns(), left = until > now ? until - now : 0;

			rc = rck_probe_server_serve(srv, left > SERVE_SLICE_NS ? (int)(SERVE_SLICE_NS / 1000000)
									       : (int)(left / 1000000), &res);
		} while ((rc == -ETIMEDOUT || rc == -EINTR) && !atomic_load(cancel) && wire_now_ns() < until);
		if (rc == -EINTR || (rc == -ETIMEDOUT && atomic_load(cancel)))
			rc = -ECANCELED;
	}
	ag_msg_clear(out);
	out->type = AG_SERVED;
	out->id = req->id;
	if (rc) {
		out->status = rc == -ETIMEDOUT ? RCK_PROBE_TIMEOUT : RCK_PROBE_SYSTEM;
		snprintf(out->text, sizeof(out->text), "probe listener: %s", strerror(-rc));
	} else if (res) {
		out->status = rck_probe_result_status(res);
		copy(out->text, sizeof(out->text), rck_probe_result_error(res));
	}
	send(arg, out);
out:
	rck_probe_result_free(res);
	rck_probe_server_free(srv);
}
