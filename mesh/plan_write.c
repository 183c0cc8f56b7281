/* The plan of a sweep written without contacting anyone (--dry-run): the
 * hosts as configured and the host pairs the pattern probes, in order. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "coord.h"
#include "emit.h"
#include "plan.h"

#define PLAN_SCHEMA "rocecheck.mesh-plan/1"

/* One stand-in NIC per host: which NICs take part is the agents' to say. */
static int stand_in(const struct rck_mesh_config *c, struct rck_mesh **out)
{
	struct rck_mesh *m;
	int rc = rck_mesh_new(&m);

	for (size_t i = 0; !rc && i < c->n_hosts; i++) {
		struct rck_mesh_nic nic = { .size = sizeof(nic), .device = "host", .port = 1, .rail = -1,
					    .gid_index = -1 };
		unsigned int h;

		rc = rck_mesh_add_host(m, c->hosts[i].name, &h);
		if (!rc)
			rc = rck_mesh_add_nic(m, h, &nic, NULL);
	}
	if (rc) {
		rck_mesh_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

static void write_hosts(struct emit *e, const struct rck_mesh_config *c)
{
	emit_text(e, "Hosts (%zu):\n", c->n_hosts);
	emit_arr_open(e, "hosts");
	for (size_t i = 0; i < c->n_hosts; i++) {
		const struct coord_host *h = &c->hosts[i];

		emit_obj_open(e, NULL);
		emit_str(e, "name", "  %s", h->name);
		emit_str(e, "addr", NULL, h->addr);
		emit_u64(e, "port", NULL, h->port);
		if (strcmp(h->addr, h->name) || h->port != RCK_AGENT_DEFAULT_PORT)
			emit_text(e, " (agent at %s port %u)", h->addr, h->port);
		emit_text(e, "\n");
		emit_obj_close(e);
	}
	emit_arr_close(e);
}

static void write_tests(struct emit *e, unsigned int tests)
{
	bool first = true;

	emit_arr_open(e, "tests");
	for (unsigned int t = 0; t < RCK_MESH_TEST_COUNT; t++)
		if (tests & (1u << t)) {
			emit_str(e, NULL, first ? "%s" : ",%s", rck_mesh_test_name(t));
			first = false;
		}
	emit_arr_close(e);
}

static void write_units(struct emit *e, const struct rck_mesh_config *c, const struct mesh_plan *p)
{
	emit_arr_open(e, "units");
	for (size_t u = 0; u < p->n_units; u++) {
		const struct mesh_unit *un = &p->units[u];

		emit_arr_open(e, NULL);
		emit_text(e, "  %5zu ", u + 1);
		for (uint32_t i = 0; i < un->n_tasks; i++) {
			const struct mesh_task *t = &p->tasks[un->first_task + i];

			emit_obj_open(e, NULL);
			emit_str(e, "src", i ? ", %s" : "%s", c->hosts[p->nic_host[t->src]].name);
			emit_str(e, "dst", " -> %s", c->hosts[p->nic_host[t->dst]].name);
			emit_obj_close(e);
		}
		emit_text(e, "\n");
		emit_arr_close(e);
	}
	emit_arr_close(e);
}

RCK_EXPORT int rck_mesh_config_write_plan(const struct rck_mesh_config *c, FILE *out, enum rck_format fmt,
					  char *err, size_t errlen)
{
	struct mesh_plan_opts o;
	struct mesh_plan *p = NULL;
	struct rck_mesh *m = NULL;
	unsigned int ntests = 0;
	struct emit *e;
	int rc;

	if (!c || !out)
		return -EINVAL;
	if (c->n_hosts < 2) {
		if (err && errlen)
			snprintf(err, errlen, "a sweep needs at least 2 hosts (%zu given)", c->n_hosts);
		return -EINVAL;
	}
	/* Host pairs: the rails rule applies to the NICs the agents report. */
	o = c->plan;
	o.rails = MESH_RAILS_ALL;
	rc = stand_in(c, &m);
	if (!rc)
		rc = mesh_plan_build(m, &o, &p, err, errlen);
	if (rc)
		goto out;
	for (unsigned int t = 0; t < RCK_MESH_TEST_COUNT; t++)
		ntests += (c->tests >> t) & 1;
	rc = emit_new(fmt, out, &e);
	if (rc)
		goto out;
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, PLAN_SCHEMA);
	emit_bool(e, "dry_run", NULL, true);
	emit_text(e, "Dry run: nothing was contacted, no agent started.\n");
	write_hosts(e, c);
	emit_str(e, "pattern", "Plan: pattern %s", c->pattern);
	emit_str(e, "rails", ", rails %s", c->rails);
	emit_text(e, ", tests ");
	write_tests(e, c->tests);
	emit_str(e, "transport", ", transport %s",
		 c->transport == RCK_PROBE_TRANSPORT_TCP ? "tcp" : "rdma");
	emit_u64(e, "host_pairs", ": %s host pairs", p->n_tasks);
	emit_u64(e, "probes", ", %s probes with one NIC a host (the rails rule pairs the NICs the agents "
		 "report)", p->n_tasks * ntests);
	emit_text(e, "\nIn order (one line a unit, its probes at once):\n");
	write_units(e, c, p);
	emit_obj_close(e);
	rc = emit_finish(e);
	emit_free(e);
out:
	mesh_plan_free(p);
	rck_mesh_free(m);
	return rc;
}
