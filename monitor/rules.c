/* The monitor's 1 s counter rules on one port: link down and flaps, error
 * rates, PFC pause time, ECN marks without CNPs, RDMA state after a flap. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor_int.h"

const char *const ms_what_name[MS_WHAT_COUNT] = {
	[MS_GID_TABLE] = "gid_table", [MS_GID_INDEX] = "gid_index", [MS_DSCP_TRUST] = "dscp_trust",
	[MS_PFC] = "pfc", [MS_DSCP_MAP] = "dscp_map",
};

static double th_get(const struct rck_thresholds *th, const char *key, double def)
{
	double v;

	return th && !rck_thresholds_get(th, key, &v) ? v : def;
}

void mr_th_from(struct mr_th *t, const struct rck_thresholds *th)
{
	t->symbol_error_rate = th_get(th, "symbol_error_rate", 10);
	t->link_error_recovery_rate = th_get(th, "link_error_recovery_rate", 5.0 / 60);
	t->tx_discard_rate = th_get(th, "monitor_tx_discard_rate", 100);
	t->slow_restart_rate = th_get(th, "monitor_slow_restart_rate", 1);
	t->pause_fraction = th_get(th, "pause_storm_fraction", 0.5);
	t->ecn_min = th_get(th, "ecn_min", 1);
	t->loss_fraction = th_get(th, "monitor_loss_fraction", 0.005);
	t->loss_min = th_get(th, "monitor_loss_min", 2);
	t->rtt_factor = th_get(th, "monitor_rtt_factor", 5);
	t->probe_timeout_ns = (uint64_t)(th_get(th, "monitor_probe_timeout", 1) * 1e9);
}

/* Increase of a counter both samples have; false when absent or gone backwards. */
static bool delta(const struct ms_sample *a, const struct ms_sample *b, enum rck_counter id,
		  uint64_t *d)
{
	if (!a->has[id] || !b->has[id] || b->ctr[id] < a->ctr[id])
		return false;
	*d = b->ctr[id] - a->ctr[id];
	return true;
}

static bool delta_extra(const struct ms_sample *a, const struct ms_sample *b, enum ms_extra id,
			uint64_t *d)
{
	if (!a->has_extra[id] || !b->has_extra[id] || b->extra[id] < a->extra[id])
		return false;
	*d = b->extra[id] - a->extra[id];
	return true;
}

/* A counter a rule reads must be in sample.c's ms_want: the poll reads no other. */
struct rate_rule {
	enum rck_counter id;      /* RCK_CTR_COUNT: the extra below */
	enum ms_extra extra;
	const char *name;
	size_t th_off;
};

/* NVSentinel-style: an error counter counts when its rate passes a threshold. */
static const struct rate_rule rate_rules[] = {
	{RCK_CTR_SYMBOL_ERRORS, 0, "symbol_errors", offsetof(struct mr_th, symbol_error_rate)},
	{RCK_CTR_LINK_ERROR_RECOVERY, 0, "link_error_recovery",
	 offsetof(struct mr_th, link_error_recovery_rate)},
	{RCK_CTR_TX_DISCARDS, 0, "tx_discards", offsetof(struct mr_th, tx_discard_rate)},
	{RCK_CTR_COUNT, MS_SLOW_RESTART, "slow_restart", offsetof(struct mr_th, slow_restart_rate)},
};

static void state_adopt(struct ms_state *base, const struct ms_state *cur)
{
	if (!base->gid_hash)
		base->gid_hash = cur->gid_hash;
	if (base->gid_index < 0)
		base->gid_index = cur->gid_index;
	if (base->dscp_trust < 0)
		base->dscp_trust = cur->dscp_trust;
	if (base->pfc_mask < 0)
		base->pfc_mask = cur->pfc_mask;
	if (!base->dscp_map_hash)
		base->dscp_map_hash = cur->dscp_map_hash;
}

static void state_check(struct mr_port *p, const struct ms_state *c, struct mf_list *out)
{
	const struct ms_state *b = &p->base;
	char what[128] = "";
	bool any = false;

	/* a field this poll did not read (DCB is read after flaps only) keeps
	 * its last verdict */
	if (c->gid_hash)
		p->changed[MS_GID_TABLE] = b->gid_hash && b->gid_hash != c->gid_hash;
	if (c->gid_hash)
		p->changed[MS_GID_INDEX] = b->gid_index >= 0 && b->gid_index != c->gid_index;
	if (c->dscp_trust >= 0)
		p->changed[MS_DSCP_TRUST] = b->dscp_trust >= 0 && b->dscp_trust != c->dscp_trust;
	if (c->pfc_mask >= 0)
		p->changed[MS_PFC] = b->pfc_mask >= 0 && b->pfc_mask != c->pfc_mask;
	if (c->dscp_map_hash)
		p->changed[MS_DSCP_MAP] = b->dscp_map_hash && b->dscp_map_hash != c->dscp_map_hash;
	for (int w = 0; w < MS_WHAT_COUNT; w++) {
		if (!p->changed[w])
			continue;
		snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s%s", any ? ", " : "",
			 ms_what_name[w]);
		any = true;
	}
	if (any) {
		struct mf *f;

		if (p->changed[MS_GID_INDEX])
			f = mf_add(out, "rdma_state_changed", RCK_SEVERITY_DEGRADED, p->device, p->port, NULL,
				   "RDMA state differs from before: %s (RoCE v2 GID index %d, was %d: jobs that cached it break)",
				   what, c->gid_index, b->gid_index);
		else
			f = mf_add(out, "rdma_state_changed", RCK_SEVERITY_DEGRADED, p->device, p->port, NULL,
				   "RDMA state differs from before: %s", what);
		if (f)
			f->immediate = true;
	}
	if (p->flapped) {
		p->flapped = false;
		p->compared = true;
	}
}

static void pauses(struct mr_port *p, const struct ms_sample *a, const struct ms_sample *b, double dt)
{
	p->tx_frac = p->rx_frac = 0;
	for (unsigned int pr = 0; pr < 8; pr++) {
		for (int dir = 0; dir < 2; dir++) {
			enum rck_counter id = (enum rck_counter)((dir ? RCK_CTR_PFC_TX_PAUSE_DURATION :
								RCK_CTR_PFC_RX_PAUSE_DURATION) + pr);
			uint64_t d;
			double frac;

			if (!delta(a, b, id, &d))
				continue;
			p->pause_s[dir][pr] += (double)d / 1e6; /* durations are in microseconds */
			frac = dt > 0 ? (double)d / (dt * 1e6) : 0;
			if (dir && frac > p->tx_frac) {
				p->tx_frac = frac;
				p->tx_prio = pr;
			} else if (!dir && frac > p->rx_frac) {
				p->rx_frac = frac;
				p->rx_prio = pr;
			}
		}
	}
}

/* How long a down seen by one source waits for the other's. */
#define MR_DOWN_CREDIT_NS 10000000000ULL

void mr_poll(struct mr_port *p, const struct ms_sample *cur, const struct mr_th *th,
	     struct mf_list *out)
{
	const struct ms_sample *prev = &p->prev;
	double dt;
	uint64_t d, dc = 0, dl = 0;

	if (!cur->link_up) {
		struct mf *f = mf_add(out, "port_down", RCK_SEVERITY_CRITICAL, p->device, p->port, NULL,
				      "link is down");

		if (f)
			f->immediate = true;
	}
	if (!p->have_prev) {
		p->prev = *cur;
		p->have_prev = true;
		if (cur->link_up) {
			p->base = cur->st;
			p->have_base = true;
		}
		return;
	}
	dt = cur->t_ns > prev->t_ns ? (double)(cur->t_ns - prev->t_ns) / 1e9 : 0;
	/* a flap: a way down seen in carrier changes (alternating; from up the
	 * first is a down), the port's link_downed, or the state itself */
	delta_extra(prev, cur, MS_CARRIER_CHANGES, &dc);
	delta(prev, cur, RCK_CTR_LINK_DOWNED, &dl);
	{
		uint64_t nc = prev->link_up ? (dc + 1) / 2 : dc / 2, m, n;
		struct mf *f;

		if (!nc && prev->link_up && !cur->link_up)
			nc = 1;
		if (cur->t_ns - p->credit_t_ns > MR_DOWN_CREDIT_NS)
			p->credit_carrier = p->credit_downed = 0;
		/* each source first pays what the other counted before it */
		m = nc < p->credit_downed ? nc : p->credit_downed;
		nc -= m;
		p->credit_downed -= m;
		m = dl < p->credit_carrier ? dl : p->credit_carrier;
		dl -= m;
		p->credit_carrier -= m;
		n = nc > dl ? nc : dl;
		if (n) {
			p->credit_carrier += n - dl;
			p->credit_downed += n - nc;
			p->credit_t_ns = cur->t_ns;
		}
		if (n) {
			p->flaps += n;
			p->flapped = true;
			f = mf_add(out, "link_flap", RCK_SEVERITY_DEGRADED, p->device, p->port, NULL,
				   "link went down %llu time%s in %.1f s%s", (unsigned long long)n,
				   n == 1 ? "" : "s", dt, cur->link_up ? " and is up again" : "");
			if (f)
				f->immediate = true;
		}
	}
	for (size_t i = 0; i < RCK_ARRAY_SIZE(rate_rules); i++) {
		const struct rate_rule *r = &rate_rules[i];
		double lim = *(const double *)((const char *)th + r->th_off), rate;
		bool ok = r->id == RCK_CTR_COUNT ? delta_extra(prev, cur, r->extra, &d) : delta(prev, cur, r->id, &d);

		if (!ok)
			continue;
		p->err_total[r->id == RCK_CTR_COUNT ? RCK_CTR_COUNT + r->extra : r->id] += d;
		rate = dt > 0 ? (double)d / dt : 0;
		if (d && rate > lim)
			mf_add(out, "error_counter", RCK_SEVERITY_DEGRADED, p->device, p->port, r->name,
			       "%s rose by %llu in %.1f s (%.3g/s, threshold %.3g/s)", r->name,
			       (unsigned long long)d, dt, rate, lim);
	}
	if (delta(prev, cur, RCK_CTR_LINK_DOWNED, &d))
		p->err_total[RCK_CTR_LINK_DOWNED] += d;
	pauses(p, prev, cur, dt);
	p->pause_tapped = cur->pause_tapped;
	if (delta(prev, cur, RCK_CTR_PAUSE_STORM_EVENTS, &d) && d)
		mf_add(out, "pause_storm", RCK_SEVERITY_DEGRADED, p->device, p->port, NULL,
		       "%llu pause storm events: the NIC kept pausing its peer", (unsigned long long)d);
	{
		uint64_t de = 0, dcnp = 0;
		bool he = delta(prev, cur, RCK_CTR_ECN_MARKED_PACKETS, &de);
		bool hc = delta(prev, cur, RCK_CTR_CNP_SENT, &dcnp);

		p->ecn_total += de;
		p->cnp_total += dcnp;
		if (he && hc && de && (double)de >= th->ecn_min && !dcnp)
			mf_add(out, "ecn_no_cnp", RCK_SEVERITY_WARNING, p->device, p->port, NULL,
			       "%llu ECN-marked packets and no CNP sent: the congestion loop is broken",
			       (unsigned long long)de);
	}
	if (cur->link_up) {
		if (!p->have_base) {
			p->base = cur->st;
			p->have_base = true;
		} else {
			state_adopt(&p->base, &cur->st);
		}
		state_check(p, &cur->st, out);
	}
	p->prev = *cur;
}

void mr_storms(const struct mr_pause *v, unsigned int n, double frac, struct mf_list *out)
{
	for (unsigned int i = 0; i < n; i++) {
		char names[MF_REASON - 60] = "";
		unsigned int nr = 0;

		if (!(v[i].tx_frac >= frac))
			continue;
		for (unsigned int j = 0; j < n; j++) {
			if (j == i || !(v[j].rx_frac >= frac))
				continue;
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s%s%s/%u",
				 nr ? ", " : "", v[j].host ? v[j].host : "", v[j].host ? ":" : "",
				 v[j].device, v[j].port);
			nr++;
		}
		mf_add(out, "pause_storm", RCK_SEVERITY_DEGRADED, v[i].device, v[i].port, NULL,
		       "sends pauses on priority %u %.0f%% of the time; paused: %s%s", v[i].prio,
		       100 * v[i].tx_frac, nr ? names : "no port seen",
		       v[i].tapped ? " (PFC frames its host sent: the NIC counts none)" : "");
	}
	/* paused ports whose sender is not among those watched */
	for (unsigned int j = 0; j < n; j++) {
		bool sender = false;

		if (!(v[j].rx_frac >= frac))
			continue;
		for (unsigned int i = 0; i < n; i++)
			sender |= v[i].tx_frac >= frac;
		if (!sender)
			mf_add(out, "pause_storm", RCK_SEVERITY_WARNING, v[j].device, v[j].port, NULL,
			       "paused by its peer %.0f%% of the time: the sender is the port across the link",
			       100 * v[j].rx_frac);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void mr_probes(const char *device, unsigned int port, const struct mr_peerwin *v, unsigned int n,
	       const struct mr_th *th, struct mf_list *out)
{
	uint64_t sent = 0, lost = 0;
	unsigned int with_loss = 0, active = 0, n_p50 = 0;
	double p50[64], centre = NAN;
	bool nic;

	for (unsigned int i = 0; i < n; i++) {
		if (!v[i].s.sent)
			continue;
		active++;
		sent += v[i].s.sent;
		lost += v[i].s.lost;
		with_loss += v[i].s.lost > 0 && v[i].s.samples > 0;
		if (isfinite(v[i].s.p50_us) && n_p50 < RCK_ARRAY_SIZE(p50))
			p50[n_p50++] = v[i].s.p50_us;
	}
	/* most peers lossy: the NIC (or its link) is the one losing */
	nic = active >= 2 && 2 * with_loss > active && (double)lost >= th->loss_min &&
	      (double)lost >= th->loss_fraction * (double)sent;
	if (nic)
		mf_add(out, "probe_loss", RCK_SEVERITY_DEGRADED, device, port, NULL,
		       "lost %llu of %llu probes (%.2g%%) to %u of %u peers",
		       (unsigned long long)lost, (unsigned long long)sent,
		       sent ? 100.0 * (double)lost / (double)sent : 0, with_loss, active);
	if (n_p50 >= 3) {
		qsort(p50, n_p50, sizeof(*p50), cmp_double);
		centre = p50[n_p50 / 2];
	}
	for (unsigned int i = 0; i < n; i++) {
		const struct mw_stats *s = &v[i].s;

		if (!s->sent)
			continue;
		/* no answer at all in the window (losses are counted when they
		 * time out, so they need not equal this window's sends) */
		if (s->sent >= 3 && !s->samples && s->lost)
			mf_add(out, "probe_failed", RCK_SEVERITY_DEGRADED, device, port, v[i].peer,
			       "no answer to %u probes", s->sent);
		else if (!nic && s->lost && (double)s->lost >= th->loss_min && s->loss >= th->loss_fraction)
			mf_add(out, "probe_loss", RCK_SEVERITY_DEGRADED, device, port, v[i].peer,
			       "lost %u of %u probes (%.2g%%)", s->lost, s->sent, 100 * s->loss);
		if (isfinite(centre) && isfinite(s->p99_us) && s->p99_us > th->rtt_factor * centre)
			mf_add(out, "link_latency", RCK_SEVERITY_WARNING, device, port, v[i].peer,
			       "RTT p99 %.0f us over %.3g x the peers' median p50 %.0f us", s->p99_us,
			       th->rtt_factor, centre);
	}
}
