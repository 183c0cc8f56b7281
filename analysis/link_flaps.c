/* A port that went down while its NIC was being probed: link_downed in the
 * probes' own counter deltas (a host's counter delta is hosts.c's). */
#include <errno.h>
#include <stdlib.h>

#include "analysis_int.h"

/*
 * link_downed counts a port's falls (rxe counts them in rxe_port_down, on
 * the netdev's carrier going off; mlx5 as link_down_events_phy). It never
 * rises on a healthy port, so any rise at one end of a probe, failed or
 * not, is a finding for that end's NIC (error_counter_min and above):
 * the probe that met the fall is retested and passes, and without this the
 * bounce left nothing to read. Only the end that counted it is named, not
 * its peers. A sweep through agents gives no host deltas; a local one
 * does, and those are judged instead.
 */
void an_check_link_flaps(const struct rck_analysis *a, struct rck_report *r)
{
	uint64_t *sum = calloc(a->n_nics ? a->n_nics : 1, sizeof(*sum));
	unsigned int *hits = calloc(a->n_nics ? a->n_nics : 1, sizeof(*hits));
	unsigned int *probes = calloc(a->n_nics ? a->n_nics : 1, sizeof(*probes));

	if (!sum || !hits || !probes) {
		r->err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < a->n_links; i++) {
		const struct an_link *l = &a->links[i];
		uint64_t d[2] = {0, 0};

		probes[l->src]++;
		probes[l->dst]++;
		for (uint32_t k = 0; k < l->n_ctr; k++) {
			const struct rck_link_counter *c = &a->ctrs[l->ctr + k];

			if (c->id == RCK_CTR_LINK_DOWNED && c->end <= RCK_LINK_DST)
				d[c->end] += c->delta;
		}
		for (int e = 0; e < 2; e++) {
			unsigned int n = e == RCK_LINK_DST ? l->dst : l->src;

			sum[n] += d[e];
			hits[n] += d[e] > 0;
		}
	}
	for (unsigned int n = 0; n < a->n_nics; n++) {
		struct rck_finding *f;

		/* A host given with its counter delta is judged on it (hosts.c). */
		if (!hits[n] || (double)sum[n] < an_th(a, TH_ERROR_COUNTER_MIN) ||
		    a->hosts[a->nics[n].host].delta)
			continue;
		f = an_add_nic(r, a, n, RCK_FINDING_ERROR_COUNTER, RCK_SEVERITY_DEGRADED,
			       "its port went down: link_downed rose by %llu during %u of its %u probes",
			       (unsigned long long)sum[n], hits[n], probes[n]);
		an_value(f, "link_downed", (double)sum[n]);
		an_value(f, "probes", hits[n]);
		an_value(f, "probes_all", probes[n]);
	}
out:
	free(sum);
	free(hits);
	free(probes);
}
