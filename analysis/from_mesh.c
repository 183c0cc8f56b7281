/* The mesh -> analysis adapter: a sweep result's hosts, NICs and probe
 * cells (every attempt, both ends' counters) as analysis input. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analysis_int.h"
#include "rocecheck/mesh.h"

/* Mesh status -> link status. A skipped probe never ran: a failure whose
 * reason says why (deadline, cancelled). */
static enum rck_link_status link_status(enum rck_mesh_status st)
{
	switch (st) {
	case RCK_MESH_OK:
		return RCK_LINK_OK;
	case RCK_MESH_UNREACHABLE:
		return RCK_LINK_UNREACHABLE;
	default:
		return RCK_LINK_FAILED;
	}
}

/* NaN (not measured) would be refused by the analysis: 0 instead. */
static double num(double v)
{
	return isfinite(v) && v >= 0 ? v : 0;
}

static void meas_of(const struct rck_mesh_meas *x, struct rck_link_meas *out)
{
	out->status = link_status(x->status);
	out->gbps = out->status == RCK_LINK_OK ? num(x->gbps) : 0;
	out->lat_p50_us = out->status == RCK_LINK_OK ? num(x->lat_p50_us) : 0;
	out->lat_p99_us = out->status == RCK_LINK_OK ? num(x->lat_p99_us) : 0;
}

/* Hosts in the mesh's order, then NICs in its global order: a mesh NIC's
 * number plus @base_nic is its analysis number. */
static int add_hosts(struct rck_analysis *a, const struct rck_mesh *m, unsigned int base_nic)
{
	unsigned int base_host = a->n_hosts;
	int rc = 0;

	for (unsigned int h = 0; !rc && h < rck_mesh_host_count(m); h++) {
		const char *why = rck_mesh_host_unreachable(m, h);
		unsigned int idx;

		rc = rck_analysis_add_host(a, rck_mesh_host_name(m, h), NULL, NULL, &idx);
		if (!rc && why)
			rc = rck_analysis_set_unreachable(a, idx, why);
	}
	for (unsigned int nic = 0; !rc && nic < rck_mesh_nic_count(m); nic++) {
		struct rck_mesh_nic mn = {.size = sizeof(mn)};
		struct rck_analysis_nic an = {.size = sizeof(an)};
		unsigned int host, got;

		rc = rck_mesh_get_nic(m, nic, &mn, &host);
		if (rc)
			break;
		an.device = mn.device;
		an.port = mn.port;
		an.line_rate_gbps = mn.rate_gbps;
		an.counters = mn.counters;
		/* What the agent described; a pseudo NIC (TCP) has no state. */
		an.state = mn.state;
		an.fw_ver = mn.fw_ver;
		an.active_mtu = mn.active_mtu;
		an.netdev_mtu = mn.netdev_mtu;
		an.gid_index = mn.gid_index;
		an.netdev = mn.netdev;
		rc = rck_analysis_add_nic(a, base_host + host, &an, &got);
		if (!rc && got != base_nic + nic)
			rc = -EINVAL;
	}
	return rc;
}

/* Nonzero counter increases of the first attempt of @cell, both ends. */
static unsigned int cell_counters(const struct rck_mesh *m, unsigned int cell,
				  struct rck_link_counter *out)
{
	unsigned int n = 0;

	for (int end = 0; end < 2; end++)
		for (unsigned int id = 0; id < RCK_CTR_COUNT; id++) {
			uint64_t d;

			if (!rck_mesh_cell_counter(m, cell, 0, (enum rck_mesh_end)end,
						   (enum rck_counter)id, &d) && d) {
				out[n].end = end ? RCK_LINK_DST : RCK_LINK_SRC;
				out[n].id = (enum rck_counter)id;
				out[n++].delta = d;
			}
		}
	return n;
}

static int add_cell(struct rck_analysis *a, const struct rck_mesh *m, unsigned int cell,
		    unsigned int base_nic)
{
	struct rck_link_counter ctr[2 * RCK_CTR_COUNT];
	struct rck_link_meas more[RCK_LINK_RETESTS_MOST - RCK_LINK_RETEST_MAX];
	struct rck_link_sample s = {.size = sizeof(s)};
	struct rck_mesh_meas x = {.size = sizeof(x)};
	enum rck_mesh_test test;
	unsigned int src, dst, attempts = rck_mesh_cell_attempts(m, cell);
	int rc = rck_mesh_cell(m, cell, &test, &src, &dst);

	if (!rc)
		rc = rck_mesh_cell_meas(m, cell, 0, &x);
	if (rc)
		return rc;
	s.test = test == RCK_MESH_TEST_BW ? RCK_LINK_TEST_BW : RCK_LINK_TEST_LAT;
	s.src_nic = base_nic + src;
	s.dst_nic = base_nic + dst;
	meas_of(&x, &s.meas);
	s.reason = x.reason;
	/* Retests that never ran (skipped at the deadline) are no evidence;
	 * past the sample's own RCK_LINK_RETEST_MAX they go on in more. */
	s.more_retests = more;
	for (unsigned int i = 1; i < attempts; i++) {
		struct rck_mesh_meas r = {.size = sizeof(r)};

		if (rck_mesh_cell_meas(m, cell, i, &r) || r.status == RCK_MESH_SKIPPED)
			continue;
		if (s.n_retests < RCK_LINK_RETEST_MAX)
			meas_of(&r, &s.retest[s.n_retests++]);
		else if (s.n_more_retests < RCK_LINK_RETESTS_MOST - RCK_LINK_RETEST_MAX)
			meas_of(&r, &more[s.n_more_retests++]);
	}
	s.counters = ctr;
	s.n_counters = cell_counters(m, cell, ctr);
	return rck_analysis_add_links(a, &s, 1);
}

RCK_EXPORT int rck_analysis_add_mesh(struct rck_analysis *a, const struct rck_mesh *m)
{
	struct rck_mesh_info info = {.size = sizeof(info)};
	unsigned int base_nic, base_host;
	int rc;

	if (!a || !m)
		return -EINVAL;
	base_nic = a->n_nics;
	if (rck_mesh_get_info(m, &info) == 0 && info.pattern) {
		rc = rck_analysis_set_pattern(a, info.pattern);
		if (rc)
			return rc;
	}
	base_host = a->n_hosts;
	rc = add_hosts(a, m, base_nic);
	if (!rc)
		rc = an_add_mesh_dcb(a, base_host, m);
	if (!rc)
		rc = an_add_mesh_pcie(a, base_host, m);
	for (unsigned int c = 0; !rc && c < rck_mesh_cell_count(m); c++)
		rc = add_cell(a, m, c, base_nic);
	return rc;
}
