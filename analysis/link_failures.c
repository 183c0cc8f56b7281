/* Failed probes: a NIC most of whose probes failed, then single failed
 * probes; each confirmed only by a retest that failed too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

/*
 * A failed probe is the deepest dip there is, and like a dip one alone is
 * no evidence: a probe times out on a loaded host, meets a port while it
 * bounces, or loses its connection to a busy agent. So a failed probe is a
 * suspect (warning, never drained) and asks for a retest, probed alone;
 * only a retest that fails too confirms it. A NIC most of whose probes
 * failed is confirmed once nic_retest_links of those links failed their
 * retests as well (a dead NIC costs that many retests, not one per peer).
 * An unreachable end cannot be retested: its host's own finding stands.
 * Failures still unconfirmed when the analysis is read (no retest pass
 * left, a deadline, a cancel) make a verdict that would be healthy
 * inconclusive: the run could not decide, and nothing acts on it.
 */

static bool touches(const uint8_t *bad, const struct an_link *l)
{
	return bad[l->src] || bad[l->dst];
}

static bool any_retest_ok(const struct rck_analysis *a, const struct an_link *l)
{
	for (unsigned int i = 0; i < l->n_retests; i++)
		if (a->retests[l->retest + i].status == RCK_LINK_OK)
			return true;
	return false;
}

/* A failed link (no retest passed) that needs no more retests: retested
 * and failed again, or unreachable (nothing to retest). */
static bool settled(const struct an_link *l)
{
	return l->status == RCK_LINK_UNREACHABLE || l->n_retests > 0;
}

static const char *status_word(unsigned int s)
{
	return s == RCK_LINK_UNREACHABLE ? "unreachable" : "failed";
}

static const char *test_word(const struct an_link *l)
{
	return l->test == RCK_LINK_TEST_BW ? "bandwidth" : "latency";
}

/* NIC @n's flagged links of one side (@idx, @cnt): how many are settled,
 * and retests asked for unsettled ones while *@ask lasts. */
static unsigned int side_settle(const struct rck_analysis *a, struct rck_report *r, const uint32_t *idx,
				uint32_t cnt, const uint8_t *flag, unsigned int *ask)
{
	unsigned int done = 0;

	for (uint32_t i = 0; i < cnt; i++) {
		const struct an_link *l = &a->links[idx[i]];

		if (!flag[idx[i]])
			continue;
		if (settled(l))
			done++;
		else if (*ask) {
			an_retest_add(r, (enum rck_link_test)l->test, l->src, l->dst);
			(*ask)--;
		}
	}
	return done;
}

/* The finding of NIC @n, most of whose probes (@rh of @rn from it, @ch of
 * @cn to it) failed: critical once confirmed, a suspect warning before. */
static void nic_failed(const struct rck_analysis *a, struct rck_report *r, const struct an_groups *g,
		       const uint8_t *flag, unsigned int n, unsigned int rh, unsigned int ch)
{
	uint32_t rn = g->row_start[n + 1] - g->row_start[n], cn = g->col_start[n + 1] - g->col_start[n];
	unsigned int want = (unsigned int)an_th(a, TH_NIC_RETEST_LINKS), settled_n, ask;
	struct rck_finding *f;
	bool confirmed;

	if (want > rh + ch)
		want = rh + ch;
	/* Count first, then ask only for what confirmation still lacks. */
	ask = 0;
	settled_n = side_settle(a, r, g->row_idx + g->row_start[n], rn, flag, &ask) +
		    side_settle(a, r, g->col_idx + g->col_start[n], cn, flag, &ask);
	confirmed = settled_n >= want;
	/* With every probe failed the run is an error: nothing to retest. */
	ask = confirmed || r->error ? 0 : want - settled_n;
	if (ask) {
		side_settle(a, r, g->row_idx + g->row_start[n], rn, flag, &ask);
		side_settle(a, r, g->col_idx + g->col_start[n], cn, flag, &ask);
	}
	if (confirmed)
		f = an_add_nic(r, a, n, RCK_FINDING_PROBE_FAILED, RCK_SEVERITY_CRITICAL,
			       "%u of %u probes from it and %u of %u to it failed; confirmed by %u %s",
			       rh, rn, ch, cn, settled_n, settled_n == 1 ? "retest that failed too" : "retests that failed too");
	else
		f = an_add_nic(r, a, n, RCK_FINDING_PROBE_FAILED, RCK_SEVERITY_WARNING,
			       "%u of %u probes from it and %u of %u to it failed; unconfirmed, %u of %u "
			       "retests %s", rh, rn, ch, cn, settled_n, want,
			       r->error ? "(every probe failed)" : "asked so far");
	if (!confirmed)
		r->unretested += rh + ch - settled_n;
	if (!f)
		return;
	f->suspect = !confirmed;
	an_value(f, "failed_from", rh);
	an_value(f, "probes_from", rn);
	an_value(f, "failed_to", ch);
	an_value(f, "probes_to", cn);
	an_value(f, "failed_retested", settled_n);
}

void an_check_link_failures(const struct rck_analysis *a, struct rck_report *r, uint8_t *bad)
{
	uint8_t *take = calloc(a->n_links ? a->n_links : 1, 1);
	uint8_t *flag = calloc(a->n_links ? a->n_links : 1, 1);
	uint8_t *hit = calloc(a->n_nics ? a->n_nics : 1, 1);
	unsigned int *rh = calloc(a->n_nics ? a->n_nics : 1, sizeof(*rh));
	unsigned int *ch = calloc(a->n_nics ? a->n_nics : 1, sizeof(*ch));
	struct an_groups g;
	size_t ok = 0, failed = 0;
	const char *first_reason = NULL;

	if (!take || !flag || !hit || !rh || !ch)
		goto oom;
	for (size_t i = 0; i < a->n_links; i++) {
		const struct an_link *l = &a->links[i];
		bool good = l->status == RCK_LINK_OK || any_retest_ok(a, l);

		ok += good;
		failed += !good;
		if (!good && !first_reason && l->reason)
			first_reason = a->reasons[l->reason - 1];
		if (touches(bad, l))
			continue;
		take[i] = 1;
		flag[i] = !good;
	}
	r->links.samples = (unsigned int)a->n_links;
	r->links.ok = (unsigned int)ok;
	r->links.failed = (unsigned int)failed;
	if (a->n_links && !ok) {
		char buf[400];

		snprintf(buf, sizeof(buf), "all %zu probes failed%s%s", a->n_links,
			 first_reason ? ": " : "", first_reason ? first_reason : "");
		r->error = strdup(buf);
		if (!r->error)
			r->err = -ENOMEM;
	}
	if (!failed)
		goto out;
	if (an_groups_build(a, take, &g))
		goto oom;
	an_attribute(a, &g, flag, hit, rh, ch);
	for (unsigned int n = 0; n < a->n_nics; n++) {
		if (!hit[n])
			continue;
		/* Suspect or confirmed, its links are its finding's. */
		bad[n] = 1;
		nic_failed(a, r, &g, flag, n, rh[n], ch[n]);
	}
	an_groups_free(&g);
	goto out;
oom:
	r->err = -ENOMEM;
out:
	free(take);
	free(flag);
	free(hit);
	free(rh);
	free(ch);
}

void an_list_failed_links(const struct rck_analysis *a, struct rck_report *r, const uint8_t *bad)
{
	for (size_t i = 0; i < a->n_links; i++) {
		const struct an_link *l = &a->links[i];
		const char *why = l->reason ? a->reasons[l->reason - 1] : NULL;
		struct rck_finding *f;

		if (l->status == RCK_LINK_OK || touches(bad, l))
			continue;
		if (any_retest_ok(a, l)) {
			an_add_link(r, a, l, RCK_FINDING_PROBE_FAILED, RCK_SEVERITY_WARNING,
				    "%s probe %s once, its retest passed%s%s", test_word(l),
				    status_word(l->status), why ? ": " : "", why ? why : "");
			continue;
		}
		if (settled(l)) {
			f = an_add_link(r, a, l, RCK_FINDING_PROBE_FAILED, RCK_SEVERITY_DEGRADED,
					"%s probe %s%s%s%s", test_word(l), status_word(l->status),
					l->n_retests ? ", and its retest too" : "", why ? ": " : "",
					why ? why : "");
			an_value(f, "retests_failed", l->n_retests);
			continue;
		}
		if (!r->error)
			an_retest_add(r, (enum rck_link_test)l->test, l->src, l->dst);
		f = an_add_link(r, a, l, RCK_FINDING_PROBE_FAILED, RCK_SEVERITY_WARNING,
				"%s probe failed once%s%s; not retested, unconfirmed", test_word(l),
				why ? ": " : "", why ? why : "");
		if (f)
			f->suspect = true;
		r->unretested++;
	}
	/* Failures nobody could retest leave the run undecided, not healthy. */
	if (r->unretested && !r->unsure &&
	    asprintf(&r->unsure, "%u %s failed once and %s not retested", r->unretested,
		     r->unretested == 1 ? "probe" : "probes", r->unretested == 1 ? "was" : "were") < 0)
		r->unsure = NULL;
}
