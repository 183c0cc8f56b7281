/* Synthetic sweeps for the heatmap tests: a full mesh of NICs with 2% noise,
 * one slow sending NIC, one slow link, and the report of their analysis;
 * bandwidth or latency. */
#ifndef RCK_HEATMAP_FABRIC_H
#define RCK_HEATMAP_FABRIC_H

#include <rocecheck/analysis.h>
#include <rocecheck/mesh.h>

struct hm_fabric {
	unsigned int hosts, nics;    /* NICs per host; every NIC probes every other */
	unsigned int bad_row;        /* NIC whose sending is at half speed (nics*hosts: none) */
	unsigned int slow_src, slow_dst; /* one link at 0.8 (equal: none) */
	int down_host;               /* a host that did not answer, -1 none */
	unsigned int fail_src, fail_dst; /* one failed probe (equal: none) */
	const char *const *names;    /* host names (NULL: n0000, n0001, ...) */
	int lat;                     /* latency (p50 2 us; slow: 3x, 1.5x) instead of bandwidth */
	double mean;                 /* healthy bandwidth, Gb/s (0: 95) */
	/* filled by hm_fabric_build() */
	struct rck_mesh *mesh;
	struct rck_report *report;
	unsigned int rounds;         /* analysis passes */
	double build_s, analysis_s;
};

/* Build the sweep result and analyse it (retesting what the report asks,
 * at most 3 passes). Returns 0 or -errno. */
int hm_fabric_build(struct hm_fabric *f);
void hm_fabric_free(struct hm_fabric *f);

#endif
