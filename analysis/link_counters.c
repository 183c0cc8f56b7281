/* Counter findings per probed link (loss on a lossless fabric, PFC on the
 * wrong priority, ECN without CNPs and back) and incast lossless validation. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

static const enum rck_counter loss_ids[] = {
	RCK_CTR_OUT_OF_SEQUENCE, RCK_CTR_SEQ_ERR_NAKS, RCK_CTR_LOCAL_ACK_TIMEOUTS,
	RCK_CTR_RETRY_EXCEEDED, RCK_CTR_DUPLICATE_REQUESTS,
};

static uint64_t ctr(const struct rck_analysis *a, const struct an_link *l, enum rck_link_end end,
		    enum rck_counter id)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < l->n_ctr; i++) {
		const struct rck_link_counter *c = &a->ctrs[l->ctr + i];

		if (c->end == end && c->id == id)
			sum += c->delta;
	}
	return sum;
}

static bool has(const struct rck_analysis *a, const struct an_link *l, enum rck_link_end end,
		enum rck_counter id)
{
	return an_has_ctr(&a->nics[end == RCK_LINK_SRC ? l->src : l->dst], id);
}

static bool eval(const struct rck_analysis *a, const struct an_link *l, unsigned int c,
		 struct rck_finding *f);

bool an_link_lossy(const struct rck_analysis *a, const struct an_link *l)
{
	return l->status == RCK_LINK_OK && eval(a, l, 0, NULL);
}

/* Pauses on priorities other than @prio, both ends, both directions: one
 * pass over the link's counters. */
static uint64_t pfc_other(const struct rck_analysis *a, const struct an_link *l, unsigned int prio)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < l->n_ctr; i++) {
		const struct rck_link_counter *c = &a->ctrs[l->ctr + i];
		unsigned int id = (unsigned int)c->id;

		if (c->end > RCK_LINK_DST || id < RCK_CTR_PFC_RX_PAUSE || id >= RCK_CTR_PFC_TX_PAUSE + 8)
			continue;
		if ((id - RCK_CTR_PFC_RX_PAUSE) % 8 != prio)
			sum += c->delta;
	}
	return sum;
}

struct ccheck {
	enum rck_finding_code code;
	enum rck_severity sev;
	const char *what;  /* for NIC findings */
};

static const struct ccheck checks[] = {
	{RCK_FINDING_LOSS_ON_LOSSLESS, RCK_SEVERITY_DEGRADED, "retransmission counters rose"},
	{RCK_FINDING_PFC_WRONG_PRIORITY, RCK_SEVERITY_WARNING, "PFC pauses on a non-RoCE priority"},
	{RCK_FINDING_ECN_NO_CNP, RCK_SEVERITY_DEGRADED, "ECN-marked packets arrived but no CNP was sent"},
	{RCK_FINDING_CNP_NO_ECN, RCK_SEVERITY_WARNING, "CNPs flowed with no ECN marking"},
};

/* Does link @l show check @c? Fills a finding's numbers when @f is set. */
static bool eval(const struct rck_analysis *a, const struct an_link *l, unsigned int c,
		 struct rck_finding *f)
{
	unsigned int prio = (unsigned int)an_th(a, TH_ROCE_PRIORITY);
	uint64_t ecn = 0, sent = 0, handled = 0, sum = 0;

	if (c >= 2) {
		ecn = ctr(a, l, RCK_LINK_DST, RCK_CTR_ECN_MARKED_PACKETS);
		sent = ctr(a, l, RCK_LINK_DST, RCK_CTR_CNP_SENT);
		handled = ctr(a, l, RCK_LINK_SRC, RCK_CTR_CNP_HANDLED);
	}
	switch (c) {
	case 0:
		if (!f) {
			/* The same sum in one pass over the link's counters. */
			uint64_t dup[2] = {0, 0};

			for (uint32_t i = 0; i < l->n_ctr; i++) {
				const struct rck_link_counter *x = &a->ctrs[l->ctr + i];

				if (x->id == RCK_CTR_DUPLICATE_REQUESTS)
					dup[x->end == RCK_LINK_DST] += x->delta;
				else if (x->id == RCK_CTR_OUT_OF_SEQUENCE || x->id == RCK_CTR_SEQ_ERR_NAKS ||
					 x->id == RCK_CTR_LOCAL_ACK_TIMEOUTS || x->id == RCK_CTR_RETRY_EXCEEDED)
					sum += x->delta;
			}
			for (int e = 0; e < 2; e++)
				if (!(dup[e] < an_th(a, TH_DUPLICATE_MIN)))
					sum += dup[e];
			return sum >= an_th(a, TH_LOSS_MIN);
		}
		for (size_t i = 0; i < RCK_ARRAY_SIZE(loss_ids); i++)
			for (int e = RCK_LINK_SRC; e <= RCK_LINK_DST; e++) {
				uint64_t d = ctr(a, l, (enum rck_link_end)e, loss_ids[i]);

				/* A retransmission after a spurious timeout (a slow
				 * peer, an emulated one) shows as duplicates alone. */
				if (loss_ids[i] == RCK_CTR_DUPLICATE_REQUESTS && d < an_th(a, TH_DUPLICATE_MIN))
					continue;
				sum += d;
				if (f && d) {
					int p;

					an_value(f, rck_counter_name(loss_ids[i], &p), (double)d);
				}
			}
		return sum >= an_th(a, TH_LOSS_MIN);
	case 1:
		sum = pfc_other(a, l, prio);
		if (f) {
			an_value(f, "pauses_other_priorities", (double)sum);
			an_value(f, "roce_priority", prio);
		}
		return sum >= an_th(a, TH_PFC_OTHER_MIN);
	case 2:
		if (f) {
			an_value(f, "ecn_marked_packets", (double)ecn);
			an_value(f, "cnp_sent", (double)sent);
		}
		return ecn >= an_th(a, TH_ECN_MIN) && has(a, l, RCK_LINK_DST, RCK_CTR_CNP_SENT) && !sent;
	default:
		if (f) {
			an_value(f, "cnp_sent", (double)sent);
			an_value(f, "cnp_handled", (double)handled);
			an_value(f, "ecn_marked_packets", (double)ecn);
		}
		return (sent >= an_th(a, TH_CNP_MIN) || handled >= an_th(a, TH_CNP_MIN)) &&
		       has(a, l, RCK_LINK_DST, RCK_CTR_ECN_MARKED_PACKETS) && !ecn;
	}
}

static void link_reason(const struct rck_analysis *a, struct rck_report *r, const struct an_link *l,
			unsigned int c)
{
	unsigned int prio = (unsigned int)an_th(a, TH_ROCE_PRIORITY);
	struct rck_finding *f;

	switch (c) {
	case 0: {
		char ev[256] = "";
		size_t o = 0;

		for (size_t i = 0; i < RCK_ARRAY_SIZE(loss_ids); i++)
			for (int e = RCK_LINK_SRC; e <= RCK_LINK_DST; e++) {
				uint64_t d = ctr(a, l, (enum rck_link_end)e, loss_ids[i]);

				if (d && o < sizeof(ev))
					o += (size_t)snprintf(ev + o, sizeof(ev) - o, "%s%s %s +%llu",
							      o ? ", " : "", e ? "receiver" : "sender",
							      rck_counter_name(loss_ids[i], NULL),
							      (unsigned long long)d);
			}
		f = an_add_link(r, a, l, checks[c].code, checks[c].sev,
				"packets lost on a fabric meant to be lossless: %s (both ends' counter "
				"deltas during the probe; loss_min %g)", ev, an_th(a, TH_LOSS_MIN));
		an_value(f, "loss_min", an_th(a, TH_LOSS_MIN));
		break;
	}
	case 1:
		f = an_add_link(r, a, l, checks[c].code, checks[c].sev,
				"PFC pauses on priorities other than %u (the RoCE priority) during the probe "
				"(pfc_other_min %g)", prio, an_th(a, TH_PFC_OTHER_MIN));
		break;
	case 2:
		f = an_add_link(r, a, l, checks[c].code, checks[c].sev,
				"ECN-marked packets reached the receiver but it sent no CNP during the probe "
				"(ecn_min %g): congestion control is not working", an_th(a, TH_ECN_MIN));
		break;
	default:
		f = an_add_link(r, a, l, checks[c].code, checks[c].sev,
				"CNPs during the probe (cnp_min %g) but no ECN-marked packet at the receiver",
				an_th(a, TH_CNP_MIN));
		break;
	}
	eval(a, l, c, f);
}

static void incast(const struct rck_analysis *a, struct rck_report *r, const uint8_t *take)
{
	uint64_t *sig = calloc(a->n_nics ? a->n_nics : 1, sizeof(*sig));
	uint8_t *recv = calloc(a->n_nics ? a->n_nics : 1, 1), *counted = calloc(a->n_nics ? a->n_nics : 1, 1);
	unsigned int receivers = 0, unproven = 0, blind = 0;
	unsigned int prio = (unsigned int)an_th(a, TH_ROCE_PRIORITY);

	if (!sig || !recv || !counted) {
		r->err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < a->n_links; i++) {
		const struct an_link *l = &a->links[i];

		if (!take[i])
			continue;
		recv[l->dst] = 1;
		sig[l->dst] += ctr(a, l, RCK_LINK_DST, RCK_CTR_ECN_MARKED_PACKETS) +
			       ctr(a, l, RCK_LINK_DST, (enum rck_counter)(RCK_CTR_PFC_TX_PAUSE + prio)) +
			       ctr(a, l, RCK_LINK_SRC, (enum rck_counter)(RCK_CTR_PFC_RX_PAUSE + prio));
		/* Can this receiver show anything at all? */
		if (has(a, l, RCK_LINK_DST, RCK_CTR_ECN_MARKED_PACKETS) ||
		    has(a, l, RCK_LINK_DST, (enum rck_counter)(RCK_CTR_PFC_TX_PAUSE + prio)) ||
		    has(a, l, RCK_LINK_SRC, (enum rck_counter)(RCK_CTR_PFC_RX_PAUSE + prio)))
			counted[l->dst] = 1;
	}
	for (unsigned int n = 0; n < a->n_nics; n++) {
		receivers += recv[n];
		unproven += recv[n] && !sig[n];
		blind += recv[n] && !sig[n] && !counted[n];
	}
	if (!unproven)
		goto out;
	if (2 * unproven > receivers) {
		struct rck_finding *f = an_add(
			r, RCK_FINDING_LOSSLESS_UNPROVEN, blind == unproven ? RCK_SEVERITY_INFO : RCK_SEVERITY_WARNING,
			RCK_ENTITY_FABRIC, NULL, NULL, NULL, NULL,
			"incast:%u into %u of %u receivers showed neither ECN marks nor PFC pauses on "
			"priority %u%s", a->incast, unproven, receivers, prio,
			blind == unproven ? " (their NICs lack these counters)" : "");
		an_value(f, "receivers_unproven", unproven);
		an_value(f, "receivers", receivers);
		an_value(f, "receivers_without_counters", blind);
		goto out;
	}
	for (unsigned int n = 0; n < a->n_nics; n++) {
		if (!recv[n] || sig[n])
			continue;
		an_add_nic(r, a, n, RCK_FINDING_LOSSLESS_UNPROVEN,
			   counted[n] ? RCK_SEVERITY_WARNING : RCK_SEVERITY_INFO,
			   "incast:%u into it showed neither ECN marks nor PFC pauses on priority %u%s",
			   a->incast, prio, counted[n] ? "" : " (its NIC lacks these counters)");
	}
out:
	free(sig);
	free(recv);
	free(counted);
}

/* A NIC already found degraded has its links left out of the link checks
 * (no link findings under a NIC finding), but its probes' counters are the
 * evidence of why (loss behind a slow NIC): each check that its probes show
 * becomes a finding on that NIC. @rh, @ch: scratch, one per NIC. */
static int bad_nic_evidence(const struct rck_analysis *a, struct rck_report *r, const uint8_t *bad,
			    unsigned int *rh, unsigned int *ch)
{
	unsigned int *from = calloc(a->n_nics ? a->n_nics : 1, sizeof(*from));
	unsigned int *to = calloc(a->n_nics ? a->n_nics : 1, sizeof(*to));
	uint8_t *strong = calloc(a->n_nics ? a->n_nics : 1, 1);
	double frac = an_th(a, TH_ATTRIBUTION_FRACTION), min = an_th(a, TH_ATTRIBUTION_MIN_LINKS);

	if (!from || !to || !strong) {
		free(from);
		free(to);
		free(strong);
		return -ENOMEM;
	}
	for (size_t i = 0; i < a->n_links; i++) {
		const struct an_link *l = &a->links[i];

		if (l->status == RCK_LINK_OK && l->n_ctr) {
			from[l->src] += bad[l->src];
			to[l->dst] += bad[l->dst];
		}
	}
	for (unsigned int c = 0; c < RCK_ARRAY_SIZE(checks); c++) {
		memset(rh, 0, a->n_nics * sizeof(*rh));
		memset(ch, 0, a->n_nics * sizeof(*ch));
		for (size_t i = 0; i < a->n_links; i++) {
			const struct an_link *l = &a->links[i];

			if (l->status != RCK_LINK_OK || !l->n_ctr || !(bad[l->src] || bad[l->dst]) ||
			    !eval(a, l, c, NULL))
				continue;
			rh[l->src] += bad[l->src];
			ch[l->dst] += bad[l->dst];
		}
		/* Loss from a lossy NIC also rises on its peers' counters (the
		 * receiver counts out-of-sequence packets): a probe between two
		 * degraded NICs is evidence on the one that shows the check on
		 * most of its probes, not on a peer that shows it only there. */
		for (unsigned int n = 0; n < a->n_nics; n++)
			strong[n] = bad[n] && ((from[n] >= min && rh[n] > frac * from[n]) ||
					       (to[n] >= min && ch[n] > frac * to[n]));
		for (size_t i = 0; i < a->n_links; i++) {
			const struct an_link *l = &a->links[i];

			if (l->status != RCK_LINK_OK || !l->n_ctr || !bad[l->src] || !bad[l->dst] ||
			    strong[l->src] == strong[l->dst] || !eval(a, l, c, NULL))
				continue;
			if (strong[l->dst])
				rh[l->src]--;
			else
				ch[l->dst]--;
		}
		for (unsigned int n = 0; n < a->n_nics; n++) {
			struct rck_finding *f;

			if (!bad[n] || !(rh[n] + ch[n]))
				continue;
			f = an_add_nic(r, a, n, checks[c].code, checks[c].sev,
				       "%s on %u of %u probes from it and %u of %u to it", checks[c].what,
				       rh[n], from[n], ch[n], to[n]);
			an_value(f, "probes_from", rh[n]);
			an_value(f, "probes_to", ch[n]);
		}
	}
	free(from);
	free(to);
	free(strong);
	return 0;
}

void an_check_link_counters(const struct rck_analysis *a, struct rck_report *r, const uint8_t *bad)
{
	uint8_t *take = calloc(a->n_links ? a->n_links : 1, 1);
	uint8_t *flag = calloc(a->n_links ? a->n_links : 1, 1);
	uint8_t *hit = calloc(a->n_nics ? a->n_nics : 1, 1);
	unsigned int *rh = calloc(a->n_nics ? a->n_nics : 1, sizeof(*rh));
	unsigned int *ch = calloc(a->n_nics ? a->n_nics : 1, sizeof(*ch));
	struct an_groups g = {0};
	bool any = false;

	if (!take || !flag || !hit || !rh || !ch)
		goto oom;
	for (size_t i = 0; i < a->n_links; i++) {
		const struct an_link *l = &a->links[i];

		take[i] = l->status == RCK_LINK_OK && !bad[l->src] && !bad[l->dst];
		any |= take[i] && l->n_ctr;
	}
	if (a->incast)
		incast(a, r, take);
	if (bad_nic_evidence(a, r, bad, rh, ch))
		goto oom;
	if (!any)
		goto out;
	for (unsigned int c = 0; c < RCK_ARRAY_SIZE(checks); c++) {
		size_t nflag = 0;

		for (size_t i = 0; i < a->n_links; i++) {
			flag[i] = take[i] && a->links[i].n_ctr && eval(a, &a->links[i], c, NULL);
			nflag += flag[i];
		}
		if (!nflag)
			continue;
		/* Grouped only once a check has a link to attribute. */
		if (!g.row_start && an_groups_build(a, take, &g))
			goto oom;
		memset(hit, 0, a->n_nics);
		an_attribute(a, &g, flag, hit, rh, ch);
		for (unsigned int n = 0; n < a->n_nics; n++) {
			struct rck_finding *f;

			if (!hit[n])
				continue;
			f = an_add_nic(r, a, n, checks[c].code, checks[c].sev,
				       "%s on %u of %u probes from it and %u of %u to it", checks[c].what,
				       rh[n], g.row_start[n + 1] - g.row_start[n], ch[n],
				       g.col_start[n + 1] - g.col_start[n]);
			an_value(f, "probes_from", rh[n]);
			an_value(f, "probes_to", ch[n]);
		}
		for (size_t i = 0; i < a->n_links; i++)
			if (flag[i] && !hit[a->links[i].src] && !hit[a->links[i].dst])
				link_reason(a, r, &a->links[i], c);
	}
	goto out;
oom:
	r->err = -ENOMEM;
out:
	an_groups_free(&g);
	free(take);
	free(flag);
	free(hit);
	free(rh);
	free(ch);
}
