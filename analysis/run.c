/* The analysis as one call: unreachable hosts, per-host checks, lint, link
 * checks, counter findings, then the verdict. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "localise.h"

RCK_EXPORT int rck_analysis_run(const struct rck_analysis *a, struct rck_report **out)
{
	struct rck_report *r = calloc(1, sizeof(*r));
	uint8_t *bad = calloc(a->n_nics ? a->n_nics : 1, 1);

	if (!r || !bad) {
		free(r);
		free(bad);
		return -ENOMEM;
	}
	r->links.size = sizeof(r->links);
	/* An unreachable host is one finding; its NICs' links are not judged. */
	for (unsigned int h = 0; h < a->n_hosts; h++) {
		if (!a->hosts[h].unreachable)
			continue;
		an_add(r, RCK_FINDING_HOST_UNREACHABLE, RCK_SEVERITY_CRITICAL, RCK_ENTITY_HOST,
		       a->hosts[h].name, NULL, NULL, NULL, "host unreachable: %s", a->hosts[h].unreachable);
		AN_FOR_HOST_NIC(a, h, n)
			bad[n] = 1;
	}
	an_check_hosts(a, r);
	an_check_odd_config(a, r);
	an_check_lint(a, r);
	an_check_pcie(a, r);
	an_check_links(a, r, bad);
	an_check_link_counters(a, r, bad);
	an_check_link_flaps(a, r);
	an_localise(a, r);
	if (!a->n_hosts && !a->n_links && !r->error && !(r->error = strdup("nothing to analyse: no hosts and no link samples")))
		r->err = -ENOMEM;
	free(bad);
	if (r->err) {
		rck_report_free(r);
		return -ENOMEM;
	}
	an_finish(r);
	an_plan_drains(a, r);
	if (r->err) {
		rck_report_free(r);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}
