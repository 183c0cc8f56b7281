/* The preflight's sweep settings, shared by the run and the dry run, which
 * writes the sweep's plan without contacting anyone. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "preflight_int.h"

/* The hosts, then the spares not among them, as the run sweeps them. */
static int add_hosts(struct rck_mesh_config *mc, const struct rck_preflight_config *c)
{
	unsigned int n = rck_hostlist_count(c->hl), ns = rck_hostlist_count(c->spares);
	int rc = 0;

	for (unsigned int i = 0; i < n && !rc; i++)
		rc = rck_mesh_config_add_agent(mc, rck_hostlist_get(c->hl, i));
	for (unsigned int i = 0; i < ns && !rc; i++) {
		rc = rck_mesh_config_add_agent(mc, rck_hostlist_get(c->spares, i));
		if (rc == -EEXIST)
			rc = 0;
	}
	return rc;
}

int preflight_sweep_settings(struct rck_mesh_config *mc, const struct rck_preflight_config *c)
{
	/* With a topology the sweep is the topo pattern (per leaf, then across). */
	int rc = rck_mesh_config_set_pattern(mc, c->quick ? "quick" : c->topo || c->topo_lldp ? "topo" : "full",
					     NULL, 0, NULL);

	if (!rc)
		rc = rck_mesh_config_set_topology(mc, c->topo);
	if (!rc && !c->topo)
		rc = rck_mesh_config_set_topology_lldp(mc, c->topo_lldp, c->topo_capture_ms);

	if (!rc)
		rc = rck_mesh_config_set_rails(mc, c->rails);
	if (!rc)
		rc = rck_mesh_config_set_tests(mc, c->tests);
	if (!rc)
		rc = rck_mesh_config_set_schedule(mc, c->schedule);
	/* Every host's DCB state, for the cross-host lint (PFC, trust, DSCP map). */
	if (!rc)
		rc = rck_mesh_config_set_dcb(mc, true);
	/* And its PCIe paths, for the GPUDirect lint (ACS, pairing, links). */
	if (!rc)
		rc = rck_mesh_config_set_pcie(mc, true);
	if (!rc)
		rc = rck_mesh_config_set_probe(mc, c->transport, c->size, c->iters, c->duration_s);
	return rc;
}

RCK_EXPORT int rck_preflight_config_write_plan(const struct rck_preflight_config *c, FILE *out,
					       enum rck_format fmt, char *err, size_t errlen)
{
	struct rck_mesh_config *mc;
	int rc;

	if (!c || !out)
		return -EINVAL;
	rc = rck_mesh_config_new(&mc);
	if (rc)
		return rc;
	rc = add_hosts(mc, c);
	if (!rc)
		rc = preflight_sweep_settings(mc, c);
	if (!rc)
		rc = rck_mesh_config_write_plan(mc, out, fmt, err, errlen);
	else if (err && errlen)
		snprintf(err, errlen, "%s", strerror(-rc));
	rck_mesh_config_free(mc);
	return rc;
}
