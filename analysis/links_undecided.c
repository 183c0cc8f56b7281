/* A suspect link the sequential test left undecided: a warning naming it,
 * so a sweep whose retest passes ran out never passes over a slow link. */
#include "analysis_int.h"
#include "units.h"

void an_link_undecided(struct rck_report *r, const struct rck_analysis *a, const struct an_link *l,
		       double mean, double rmed, unsigned int m, double fl, double c)
{
	struct rck_finding *f;
	char u[3][32];

	/* Between the floor and the centre a suspect is noise until shown. */
	if (!(mean < fl) && !(m > 1 && rmed < fl))
		return;
	f = an_add_link(r, a, l, RCK_FINDING_LINK_SLOW, RCK_SEVERITY_WARNING,
			"%s (mean of %u measurements), below the floor %s (fabric median %s); "
			"undecided after %u %s, unconfirmed", units_rate(u[0], 32, mean), m,
			units_rate(u[1], 32, fl), units_rate(u[2], 32, c), m - 1,
			m == 2 ? "retest" : "retests");
	if (!f)
		return;
	f->suspect = true;
	an_value(f, "gbps", l->value);
	an_value(f, "mean_gbps", mean);
	an_value(f, "measurements", m);
	if (m > 1)
		an_value(f, "retest_median_gbps", rmed);
	an_value(f, "floor_gbps", fl);
	an_value(f, "fabric_median_gbps", c);
}
