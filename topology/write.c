/* The model written out: the topology file's own JSON form (so it loads
 * again) plus conflicts and lint findings, or a text listing. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/analysis_int.h"
#include "emit.h"
#include "topo_int.h"

/* Items grouped by an owner index (counting sort): start[o]..start[o+1]. */
struct groups {
	uint32_t *start, *idx;
};

static int group(struct groups *g, size_t n_owners, size_t n, const void *base, size_t stride,
		 size_t off, bool (*skip)(const void *))
{
	g->start = calloc(n_owners + 1, sizeof(*g->start));
	g->idx = malloc((n ? n : 1) * sizeof(*g->idx));
	if (!g->start || !g->idx)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *it = (const char *)base + i * stride;

		if (!skip || !skip(it))
			g->start[*(const uint32_t *)(it + off) + 1]++;
	}
	for (size_t o = 0; o < n_owners; o++)
		g->start[o + 1] += g->start[o];
	{
		uint32_t *fill = malloc((n_owners + 1) * sizeof(*fill));

		if (!fill)
			return -ENOMEM;
		memcpy(fill, g->start, (n_owners + 1) * sizeof(*fill));
		for (size_t i = 0; i < n; i++) {
			const char *it = (const char *)base + i * stride;

			if (!skip || !skip(it))
				g->idx[fill[*(const uint32_t *)(it + off)]++] = (uint32_t)i;
		}
		free(fill);
	}
	return 0;
}

/* A string or, when absent, null in JSON and nothing in the text. */
static void opt_str(struct emit *e, const char *key, const char *tfmt, const char *val)
{
	if (val)
		emit_str(e, key, tfmt, val);
	else
		emit_null(e, key, NULL);
}

static void write_switch(struct emit *e, const struct rck_topology *t, uint32_t s,
			 const struct groups *ports, const struct groups *ups)
{
	const struct tp_switch *sw = &t->sw[s];

	emit_obj_open(e, NULL);
	emit_str(e, "name", "switch %s", sw->name);
	opt_str(e, "chassis_id", "  chassis %s", sw->chassis);
	emit_str(e, "tier", "  %s", rck_switch_tier_name((enum rck_switch_tier)sw->tier));
	if (sw->rail >= 0)
		emit_i64(e, "rail", "  rail %s", sw->rail);
	else
		emit_null(e, "rail", NULL);
	emit_bool(e, "declared", NULL, sw->declared);
	if (!sw->declared)
		emit_text(e, "  (heard only)");
	if (sw->slurm_speed > 0)
		emit_u64(e, "link_speed", "  Slurm LinkSpeed %s", (uint64_t)sw->slurm_speed);
	emit_text(e, "\n");
	emit_arr_open(e, "ports");
	for (uint32_t k = ports->start[s]; k < ports->start[s + 1]; k++) {
		const struct tp_port *p = &t->ports[ports->idx[k]];

		emit_obj_open(e, NULL);
		emit_str(e, "name", "  port %s", p->name);
		if (p->gbps > 0)
			emit_double(e, "speed_gbps", " %s Gb/s", 0, p->gbps);
		else
			emit_null(e, "speed_gbps", NULL);
		emit_text(e, "\n");
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_arr_open(e, "uplinks");
	for (uint32_t k = ups->start[s]; k < ups->start[s + 1]; k++) {
		const struct tp_uplink *u = &t->uplinks[ups->idx[k]];

		emit_obj_open(e, NULL);
		emit_text(e, "  uplink");
		opt_str(e, "port", " %s", u->lport >= 0 ? t->ports[u->lport].name : NULL);
		emit_str(e, "switch", " -> %s", t->sw[u->upper].name);
		opt_str(e, "switch_port", " port %s", u->uport >= 0 ? t->ports[u->uport].name : NULL);
		emit_str(e, "source", "  (%s)\n", t->srcs[u->src]);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}

static void write_host(struct emit *e, const struct rck_topology *t, uint32_t h)
{
	const struct tp_host *host = &t->hosts[h];

	emit_obj_open(e, NULL);
	emit_str(e, "name", "host %s", tp_host_name(t, h));
	emit_arr_open(e, "switches");
	for (uint32_t i = 0; i < host->n; i++)
		if (!t->cables[host->cables[i]].nic)
			emit_str(e, NULL, "  under %s", t->sw[t->cables[host->cables[i]].sw].name);
	emit_arr_close(e);
	emit_text(e, "\n");
	emit_arr_open(e, "nics");
	for (uint32_t i = 0; i < host->n; i++) {
		const struct tp_cable *c = &t->cables[host->cables[i]];

		if (!c->nic)
			continue;
		emit_obj_open(e, NULL);
		emit_str(e, "nic", "  nic %s", c->nic);
		opt_str(e, "netdev", " (%s)", c->netdev);
		if (c->sw >= 0)
			emit_str(e, "switch", " -> %s", t->sw[c->sw].name);
		else {
			emit_null(e, "switch", NULL);
			emit_text(e, " -> no known switch");
		}
		opt_str(e, "port", " port %s", c->port >= 0 ? t->ports[c->port].name : NULL);
		if (c->rail >= 0)
			emit_i64(e, "rail", "  rail %s", c->rail);
		else
			emit_null(e, "rail", NULL);
		emit_str(e, "source", "  (%s)\n", t->srcs[c->src]);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}

RCK_EXPORT int rck_topology_write(const struct rck_topology *t, const struct rck_report *lint,
				  FILE *out, enum rck_format fmt)
{
	struct groups ports = { 0 }, ups = { 0 };
	struct emit *e;
	int rc;

	if (!t || !out)
		return -EINVAL;
	rc = group(&ports, t->n_sw, t->n_ports, t->ports, sizeof(*t->ports), offsetof(struct tp_port, sw), NULL);
	if (!rc)
		rc = group(&ups, t->n_sw, t->n_uplinks, t->uplinks, sizeof(*t->uplinks),
			   offsetof(struct tp_uplink, lower), NULL);
	if (!rc)
		rc = emit_new(fmt, out, &e);
	if (rc)
		goto out;
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, "rocecheck.topology/1");
	emit_text(e, "%zu switches, %zu ports, %u hosts, %zu cables, %zu uplinks, %zu conflicts\n",
		  t->n_sw, t->n_ports, t->host_names.n, t->n_cables, t->n_uplinks, t->n_conflicts);
	emit_arr_open(e, "switches");
	for (uint32_t s = 0; s < t->n_sw; s++)
		write_switch(e, t, s, &ports, &ups);
	emit_arr_close(e);
	emit_arr_open(e, "hosts");
	for (uint32_t h = 0; h < t->host_names.n; h++)
		write_host(e, t, h);
	emit_arr_close(e);
	emit_arr_open(e, "conflicts");
	for (size_t i = 0; i < t->n_conflicts; i++) {
		emit_obj_open(e, NULL);
		emit_str(e, "what", "conflict: %s", t->conflicts[i].what);
		emit_str(e, "source_a", " (%s", t->srcs[t->conflicts[i].a]);
		emit_str(e, "source_b", " vs %s)\n", t->srcs[t->conflicts[i].b]);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	if (lint) {
		emit_text(e, "lint: %u findings\n", lint->n_findings);
		emit_arr_open(e, "findings");
		for (unsigned int i = 0; i < lint->n_findings; i++)
			an_write_finding(e, &lint->findings[i], NULL);
		emit_arr_close(e);
	}
	emit_obj_close(e);
	rc = emit_finish(e);
	emit_free(e);
out:
	free(ports.start);
	free(ports.idx);
	free(ups.start);
	free(ups.idx);
	return rc;
}
