/* The probe result writer: perftest-like text or JSON through the one
 * print layer, every figure emitted once. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "emit.h"
#include "internal.h"
#include "result.h"
#include "stats.h"

#define RULE "---------------------------------------------------------------------------------------\n"

static const char *title(const struct rck_probe_result *res)
{
	bool tcp = res->opts.transport == RCK_PROBE_TRANSPORT_TCP;

	switch (res->opts.test) {
	case RCK_PROBE_TEST_BW:
		return tcp ? "TCP bandwidth" : "RDMA WRITE bandwidth";
	case RCK_PROBE_TEST_LAT:
		return tcp ? "TCP ping-pong latency" : "RDMA WRITE latency";
	default:
		return tcp ? "TCP ping-pong latency" : "SEND latency";
	}
}

static const char *connection(const struct rck_probe_result *res)
{
	if (res->opts.transport == RCK_PROBE_TRANSPORT_TCP)
		return "tcp";
	return res->opts.cm ? "rdma_cm" : "out-of-band";
}

static void header(struct emit *e, const struct rck_probe_result *res)
{
	emit_text(e, " %s%s\n", title(res), res->opts.bidirectional ? " (bidirectional)" : "");
	emit_str(e, "test", NULL, rck_probe_test_name(res->opts.test));
	emit_str(e, "transport", " transport %s", rck_probe_transport_name(res->opts.transport));
	emit_str(e, "connection", res->opts.transport == RCK_PROBE_TRANSPORT_TCP ? NULL : ", %s setup",
		 connection(res));
	emit_bool(e, "bidirectional", NULL, res->opts.bidirectional);
	emit_str(e, "role", ", %s side\n", res->server ? "server" : "client");
	emit_str(e, "status", res->status ? " status %s" : NULL, rck_probe_status_name(res->status));
	emit_str(e, "error", res->error ? ": %s\n" : NULL, res->error);
	emit_str(e, "wc_status", NULL, res->wc_status);
}

static void params(struct emit *e, const struct rck_probe_result *res)
{
	const struct rck_probe_opts *o = &res->opts;

	emit_obj_open(e, "params");
	emit_u64(e, "size", " size %s", o->msg_size);
	emit_u64(e, "qps", "  QPs %s", o->qps);
	emit_u64(e, "tx_depth", "  tx depth %s", o->tx_depth);
	if (o->iters)
		emit_u64(e, "iters", "  iterations %s", o->iters);
	else
		emit_null(e, "iters", NULL);
	if (o->duration_s)
		emit_double(e, "duration_s", "  duration %s s", 3, o->duration_s);
	else
		emit_null(e, "duration_s", NULL);
	emit_u64(e, "warmup", "  warm-up %s", o->warmup);
	if (o->tclass >= 0)
		emit_i64(e, "tclass", NULL, o->tclass);
	else
		emit_null(e, "tclass", NULL);
	emit_u64(e, "sl", o->transport == RCK_PROBE_TRANSPORT_RDMA ? "  SL %s" : NULL, o->sl);
	if (o->mtu)
		emit_u64(e, "mtu", NULL, o->mtu);
	else
		emit_null(e, "mtu", NULL);
	if (o->flow_label)
		emit_u64(e, "flow_label", "  flow label %s", o->flow_label);
	else
		emit_null(e, "flow_label", NULL);
	if (o->udp_sport)
		emit_u64(e, "udp_sport", "  UDP source port %s", o->udp_sport);
	else
		emit_null(e, "udp_sport", NULL);
	emit_double(e, "window_s", o->test == RCK_PROBE_TEST_BW ? "  window %s s" : NULL, 3, o->window_s);
	emit_text(e, "\n");
	emit_obj_close(e);
}

static void side(struct emit *e, const struct rck_probe_result *res, enum rck_probe_side which)
{
	const struct pres_side *s = &res->side[which];
	bool local = which == RCK_PROBE_LOCAL;

	emit_obj_open(e, local ? "local" : "remote");
	emit_str(e, "address", local ? " local  %-15s" : " remote %-15s", s->addr[0] ? s->addr : NULL);
	if (s->device[0]) {
		emit_str(e, "device", " %s", s->device);
		emit_u64(e, "port", "/%s", s->port);
	} else {
		emit_null(e, "device", NULL);
		emit_null(e, "port", NULL);
	}
	if (s->gid_index >= 0)
		emit_i64(e, "gid_index", "  GID %s", s->gid_index);
	else
		emit_null(e, "gid_index", NULL);
	emit_str(e, "gid", s->gid[0] ? " %s" : NULL, s->gid[0] ? s->gid : NULL);
	if (s->tclass >= 0)
		emit_i64(e, "tclass", "  tclass %s", s->tclass);
	else
		emit_null(e, "tclass", NULL);
	if (s->mtu)
		emit_u64(e, "mtu", "  MTU %s", s->mtu);
	else
		emit_null(e, "mtu", NULL);
	if (local)
		emit_str(e, "gid_choice", s->gid_why[0] ? "\n        GID choice: %s" : NULL,
			 s->gid_why[0] ? s->gid_why : NULL);
	emit_text(e, "\n");
	emit_obj_close(e);
}

static void dir(struct emit *e, const char *key, const struct pres_dir *d)
{
	emit_obj_open(e, key);
	emit_u64(e, "bytes", NULL, d->bytes);
	emit_u64(e, "messages", NULL, d->msgs);
	emit_double(e, "seconds", NULL, 6, d->ns / 1e9);
	emit_double(e, "gbps", NULL, 6, pstats_gbps(d->bytes, d->ns));
	if (d->has_worst)
		emit_double(e, "worst_window_gbps", NULL, 6, d->worst_gbps);
	else
		emit_null(e, "worst_window_gbps", NULL);
	emit_obj_close(e);
}

static void bandwidth(struct emit *e, const struct rck_probe_result *res)
{
	double worst;

	emit_text(e, RULE " %-10s %-12s %-11s %-12s %-15s %-19s\n", "#bytes", "#messages", "seconds",
		  "BW[Gb/s]", "MsgRate[Mpps]", "worst window[Gb/s]");
	emit_text(e, " %-10u", res->opts.msg_size);
	emit_u64(e, "bytes", NULL, rck_probe_result_bytes(res));
	emit_u64(e, "messages", " %-12s", rck_probe_result_messages(res));
	emit_double(e, "seconds", " %-11s", 6, rck_probe_result_seconds(res));
	emit_double(e, "gbps", " %-12s", 6, rck_probe_result_gbps(res));
	emit_double(e, "msg_rate", NULL, 1, rck_probe_result_msg_rate(res));
	emit_text(e, " %-15.6f", rck_probe_result_msg_rate(res) / 1e6);
	if (rck_probe_result_worst_window_gbps(res, &worst) == 0)
		emit_double(e, "worst_window_gbps", " %s", 6, worst);
	else
		emit_null(e, "worst_window_gbps", " %s");
	emit_text(e, "\n");
	if (res->opts.bidirectional) {
		if (res->tx.present)
			dir(e, "tx", &res->tx);
		if (res->rx.present)
			dir(e, "rx", &res->rx);
		emit_text(e, " (sent %.6f Gb/s, received %.6f Gb/s)\n", pstats_gbps(res->tx.bytes, res->tx.ns),
			  pstats_gbps(res->rx.bytes, res->rx.ns));
	}
}

static void latency(struct emit *e, const struct rck_probe_result *res)
{
	static const char *const keys[RCK_LAT_STAT_COUNT] = {
		"min", "p50", "p90", "p99", "p999", "max", "mean", "stdev",
	};

	emit_text(e, RULE " %-8s %-12s %-10s %-10s %-10s %-10s %-10s %-10s %-10s %-10s\n", "#bytes",
		  "#iterations", "t_min", "t_p50", "t_p90", "t_p99", "t_p99.9", "t_max", "t_avg", "t_stdev");
	emit_text(e, " %-8u", res->opts.msg_size);
	emit_u64(e, "messages", " %-12s", rck_probe_result_messages(res));
	emit_u64(e, "bytes", NULL, rck_probe_result_bytes(res));
	emit_double(e, "seconds", NULL, 6, rck_probe_result_seconds(res));
	emit_double(e, "msg_rate", NULL, 1, rck_probe_result_msg_rate(res));
	emit_obj_open(e, "latency_us");
	emit_u64(e, "samples", NULL, res->lat_count);
	for (int i = 0; i < RCK_LAT_STAT_COUNT; i++) {
		if (res->has_lat)
			emit_double(e, keys[i], " %-10s", 2, res->lat[i]);
		else
			emit_null(e, keys[i], " %-10s");
	}
	emit_obj_close(e);
	emit_text(e, " [usec, one way: half the round trip]\n");
}

static void counters(struct emit *e, const struct pres_side *s, const char *key)
{
	unsigned int shown = 0;

	emit_obj_open(e, key);
	emit_text(e, " counters %-6s", key);
	for (unsigned int id = 0; id < RCK_CTR_COUNT; id++) {
		char name[48];
		int prio;
		const char *base = rck_counter_name(id, &prio);

		if (s->ctr_state[id] == PRES_CTR_ABSENT || s->ctr_state[id] == RCK_DELTA_ABSENT || !base)
			continue;
		if (prio >= 0)
			snprintf(name, sizeof(name), "%s_prio%d", base, prio);
		else
			snprintf(name, sizeof(name), "%s", base);
		if (shown && shown % 3 == 0)
			emit_text(e, "\n %-15s", "");
		emit_text(e, " %19s", name);
		if (s->ctr_state[id] == RCK_DELTA_OK)
			emit_u64(e, name, " %-10s", s->ctr[id]);
		else
			emit_null(e, name, " %-10s");
		shown++;
	}
	if (!shown)
		emit_text(e, " none%s", s->has_ctr ? "" : " (no snapshot)");
	emit_text(e, "\n");
	emit_obj_close(e);
}

RCK_EXPORT int rck_probe_result_write(const struct rck_probe_result *res, FILE *out, enum rck_format fmt)
{
	struct emit *e;
	int rc = emit_new(fmt, out, &e);

	if (rc)
		return rc;
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, "rocecheck.probe/1");
	header(e, res);
	side(e, res, RCK_PROBE_LOCAL);
	side(e, res, RCK_PROBE_REMOTE);
	params(e, res);
	if (res->status == RCK_PROBE_OK) {
		if (res->opts.test == RCK_PROBE_TEST_BW)
			bandwidth(e, res);
		else
			latency(e, res);
	}
	if (res->opts.transport == RCK_PROBE_TRANSPORT_RDMA) {
		emit_text(e, RULE);
		emit_obj_open(e, "counters");
		counters(e, &res->side[RCK_PROBE_LOCAL], "local");
		counters(e, &res->side[RCK_PROBE_REMOTE], "remote");
		emit_obj_close(e);
	} else {
		emit_text(e, RULE);
	}
	emit_obj_close(e);
	rc = emit_finish(e);
	emit_free(e);
	return rc;
}
