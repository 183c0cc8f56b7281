/* Synthetic rail-optimised fabrics (see topo-synth.h): texts of the
 * topology file and topology.conf, and per-host LLDP neighbour records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo-synth.h"

struct tsyn_cable *tsyn_cables(const struct tsyn *f)
{
	struct tsyn_cable *c = calloc((size_t)f->hosts * f->rails, sizeof(*c));

	for (unsigned int h = 0; c && h < f->hosts; h++)
		for (unsigned int r = 0; r < f->rails; r++)
			c[(size_t)h * f->rails + r] = (struct tsyn_cable){
				.rail = (int)r, .group = h / f->per_leaf, .slot = h % f->per_leaf + 1, .gbps = f->gbps };
	return c;
}

static void chassis(char *buf, size_t len, unsigned int rail, unsigned int group)
{
	snprintf(buf, len, "02:%02x:%02x:%02x:00:01", rail & 0xff, (group >> 8) & 0xff, group & 0xff);
}

char *tsyn_json(const struct tsyn *f, const struct tsyn_cable *c, bool hosts, size_t *len)
{
	unsigned int groups = tsyn_groups(f);
	char *out = NULL, id[32];
	FILE *m = open_memstream(&out, len);

	if (!m)
		return NULL;
	fprintf(m, "{\"schema\":\"rocecheck.topology/1\",\"switches\":[");
	for (unsigned int k = 0; k < f->spines; k++)
		fprintf(m, "%s{\"name\":\"spine%u\",\"tier\":\"spine\"}", k ? "," : "", k);
	for (unsigned int r = 0; r < f->rails; r++)
		for (unsigned int g = 0; g < groups; g++) {
			unsigned int leafno = r * groups + g;

			chassis(id, sizeof(id), r, g);
			fprintf(m, ",{\"name\":\"leaf-r%u-g%u\",\"chassis_id\":\"%s\",\"tier\":\"leaf\",\"rail\":%u,"
				   "\"ports\":[", r, g, id, r);
			for (unsigned int k = 0; k < f->spines; k++)
				fprintf(m, "%s{\"name\":\"swp%u\",\"speed_gbps\":%g}", k ? "," : "", f->per_leaf + 1 + k,
					!k && (int)leafno == f->slow_uplink ? f->gbps / 2 : f->gbps);
			for (size_t i = 0; hosts && i < (size_t)f->hosts * f->rails; i++)
				if (c[i].rail == (int)r && c[i].group == g)
					fprintf(m, ",{\"name\":\"swp%u\",\"speed_gbps\":%g}", c[i].slot, c[i].gbps);
			fprintf(m, "],\"uplinks\":[");
			for (unsigned int k = 0; k < f->spines; k++)
				fprintf(m, "%s{\"port\":\"swp%u\",\"switch\":\"spine%u\",\"switch_port\":\"swp%u\"}",
					k ? "," : "", f->per_leaf + 1 + k, k, leafno + 1);
			fprintf(m, "]}");
		}
	fprintf(m, "]");
	if (hosts) {
		fprintf(m, ",\"hosts\":[");
		for (unsigned int h = 0; h < f->hosts; h++) {
			fprintf(m, "%s{\"name\":\"h%05u\",\"nics\":[", h ? "," : "", h);
			for (unsigned int r = 0; r < f->rails; r++) {
				const struct tsyn_cable *x = &c[(size_t)h * f->rails + r];

				fprintf(m, "%s{\"nic\":\"mlx5_%u/1\"", r ? "," : "", r);
				if (x->rail >= 0)
					fprintf(m, ",\"switch\":\"leaf-r%d-g%u\",\"port\":\"swp%u\"", x->rail, x->group, x->slot);
				fprintf(m, "}");
			}
			fprintf(m, "]}");
		}
		fprintf(m, "]");
	}
	fprintf(m, "}");
	if (fclose(m)) {
		free(out);
		return NULL;
	}
	return out;
}

char *tsyn_slurm(const struct tsyn *f, size_t *len)
{
	unsigned int groups = tsyn_groups(f);
	char *out = NULL;
	FILE *m = open_memstream(&out, len);

	if (!m)
		return NULL;
	fprintf(m, "# generated: %u hosts, %u rails, %u per leaf\n", f->hosts, f->rails, f->per_leaf);
	for (unsigned int g = 0; g < groups; g++) {
		unsigned int last = (g + 1) * f->per_leaf - 1;

		if (last >= f->hosts)
			last = f->hosts - 1;
		fprintf(m, "SwitchName=leaf-r0-g%u Nodes=h[%05u-%05u]\n", g, g * f->per_leaf, last);
	}
	fprintf(m, "SwitchName=spine0 Switches=leaf-r0-g[0-%u]\n", groups - 1);
	if (fclose(m)) {
		free(out);
		return NULL;
	}
	return out;
}

unsigned int tsyn_neighbours(const struct tsyn *f, const struct tsyn_cable *c, unsigned int h,
			     struct rck_topology_neighbour *out, char *buf)
{
	char *host = buf + (size_t)f->rails * 512;

	snprintf(host, 32, "h%05u", h);
	for (unsigned int r = 0; r < f->rails; r++) {
		const struct tsyn_cable *x = &c[(size_t)h * f->rails + r];
		char *nic = buf + r * 512, *id = nic + 128, *name = nic + 256, *port = nic + 384;

		snprintf(nic, 128, "mlx5_%u/1", r);
		out[r] = (struct rck_topology_neighbour){ .size = sizeof(out[r]), 
							  .host = host, .nic = nic };
		if (x->rail < 0)
			continue;
		chassis(id, 128, (unsigned int)x->rail, x->group);
		snprintf(name, 128, "leaf-r%d-g%u", x->rail, x->group);
		snprintf(port, 128, "swp%u", x->slot);
		out[r].chassis_id = id;
		out[r].system_name = name;
		out[r].port_id = port;
		out[r].port_id_subtype = 5;
		out[r].speed_gbps = x->gbps;
	}
	return f->rails;
}
