/* The topology model at scale: 10,000 hosts x 8 rails (32 per leaf, 8
 * spines) from three sources, timed per source, the lint with one crossed
 * host and one swapped pair, peak memory; fails past its bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <rocecheck/rocecheck.h>

#include "topo-synth.h"

/* Bounds: load and lint each within these on a CI runner. */
#define LOAD_MAX_S 20.0
#define LINT_MAX_S 10.0
#define RSS_MAX_MIB 1024.0

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double rss_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024.0;
}

int main(void)
{
	const struct tsyn f = { .hosts = 10000, .rails = 8, .per_leaf = 32, .spines = 8, .gbps = 400,
				.slow_uplink = 100 };
	struct tsyn_cable *c = tsyn_cables(&f);
	struct rck_topology_neighbour recs[8];
	char err[256] = "", *text, *buf = malloc(8 * 512 + 32);
	struct rck_topology *t;
	struct rck_report *r;
	double t0, tj, ts, tl, tlint, base = rss_mib();
	size_t len, jlen;
	int bad = 0;

	if (!c || !buf || rck_topology_new(&t))
		return 2;
	/* Faults: h01234's rails 2 and 3 crossed; h00040 and h05000 swapped
	 * on rail 5; leaf 100's uplink to spine0 at half speed. */
	c[1234 * 8 + 2].rail = 3;
	c[1234 * 8 + 3].rail = 2;
	c[40 * 8 + 5].group = 5000 / 32;
	c[40 * 8 + 5].slot = 5000 % 32 + 1;
	c[5000 * 8 + 5].group = 40 / 32;
	c[5000 * 8 + 5].slot = 40 % 32 + 1;
	t0 = now();
	text = tsyn_json(&f, c, false, &jlen);
	if (!text || rck_topology_add_json(t, text, jlen, "synth.json", err, sizeof(err)))
		return fprintf(stderr, "topology-bench: %s\n", err), 2;
	free(text);
	tj = now();
	text = tsyn_slurm(&f, &len);
	if (!text || rck_topology_add_slurm(t, text, len, "topology.conf", err, sizeof(err)))
		return fprintf(stderr, "topology-bench: %s\n", err), 2;
	free(text);
	ts = now();
	for (unsigned int h = 0; h < f.hosts; h++)
		if (rck_topology_add_neighbours(t, "lldp", recs, tsyn_neighbours(&f, c, h, recs, buf)))
			return fprintf(stderr, "topology-bench: neighbours of host %u refused\n", h), 2;
	tl = now();
	if (rck_topology_lint(t, &r))
		return 2;
	tlint = now() - tl;
	printf("topology-bench: %u hosts x %u rails, %u per leaf: %u switches, %u ports, %u cables, %u uplinks, %u conflicts\n",
	       f.hosts, f.rails, f.per_leaf, rck_topology_switch_count(t), rck_topology_port_count(t),
	       rck_topology_cable_count(t), rck_topology_uplink_count(t), rck_topology_conflict_count(t));
	printf("topology-bench: load: file %.3f s (%zu KiB), slurm %.3f s, lldp %.3f s (%u hosts' records); lint %.3f s\n",
	       tj - t0, jlen / 1024, ts - tj, tl - ts, f.hosts, tlint);
	printf("topology-bench: peak RSS %.1f MiB (%.1f MiB before)\n", rss_mib(), base);
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *fi = rck_report_finding(r, i);

		printf("topology-bench: finding %s %s %s -> %s %s\n", rck_finding_code_name(rck_finding_code(fi)),
		       rck_finding_host(fi), rck_finding_nic(fi), rck_finding_peer_host(fi), rck_finding_peer_nic(fi));
	}
	if (rck_report_finding_count(r) != 4 || rck_report_code_count(r, RCK_FINDING_RAIL_CROSSED) != 2 ||
	    rck_report_code_count(r, RCK_FINDING_CABLE_SWAPPED) != 1 ||
	    rck_report_code_count(r, RCK_FINDING_SWITCH_PORT_SPEED) != 1 || rck_topology_conflict_count(t)) {
		printf("FAIL: topology-bench: the injected faults were not named exactly\n");
		bad = 1;
	}
	if (tl - t0 > LOAD_MAX_S || tlint > LINT_MAX_S || rss_mib() > RSS_MAX_MIB) {
		printf("FAIL: topology-bench: over the bounds (load %.0f s, lint %.0f s, %.0f MiB)\n", LOAD_MAX_S,
		       LINT_MAX_S, RSS_MAX_MIB);
		bad = 1;
	}
	rck_report_free(r);
	rck_topology_free(t);
	free(buf);
	free(c);
	return bad;
}
