/* The cabling lint on synthetic rail-optimised fabrics: each fault found
 * once and named (host, NIC, switch, port), a clean fabric silent, and a
 * fabric of thousands of NICs from three sources in bounded time. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <rocecheck/rocecheck.h>

#include "topo-synth.h"

static const struct tsyn small = { .hosts = 32, .rails = 4, .per_leaf = 8, .spines = 2, .gbps = 400,
				   .slow_uplink = -1 };

static struct rck_report *lint_json(const struct tsyn *f, const struct tsyn_cable *c)
{
	struct rck_topology *t;
	struct rck_report *r = NULL;
	char err[256] = "", *text;
	size_t len;

	text = tsyn_json(f, c, true, &len);
	assert_non_null(text);
	assert_int_equal(rck_topology_new(&t), 0);
	if (rck_topology_add_json(t, text, len, "synth.json", err, sizeof(err)))
		fail_msg("%s", err);
	free(text);
	assert_int_equal(rck_topology_lint(t, &r), 0);
	rck_topology_free(t);
	return r;
}

/* Exactly @n findings in all, all of @code. */
static void only(const struct rck_report *r, enum rck_finding_code code, unsigned int n)
{
	if (rck_report_finding_count(r) != n || rck_report_code_count(r, code) != n) {
		for (unsigned int i = 0; i < rck_report_finding_count(r); i++)
			print_message("%s: %s\n", rck_finding_code_name(rck_finding_code(rck_report_finding(r, i))),
				      rck_finding_reason(rck_report_finding(r, i)));
		fail_msg("want %u %s findings", n, rck_finding_code_name(code));
	}
}

/* Finding @i names this host NIC and switch port. */
static void names(const struct rck_report *r, unsigned int i, const char *host, const char *nic,
		  const char *swname, const char *port)
{
	const struct rck_finding *f = rck_report_finding(r, i);

	assert_non_null(f);
	assert_int_equal(rck_finding_entity(f), RCK_ENTITY_LINK);
	assert_string_equal(rck_finding_host(f), host);
	assert_string_equal(rck_finding_nic(f), nic);
	assert_string_equal(rck_finding_peer_host(f), swname);
	assert_string_equal(rck_finding_peer_nic(f), port);
}

static void clean(void **state)
{
	struct tsyn_cable *c = tsyn_cables(&small);
	struct rck_report *r;

	(void)state;
	r = lint_json(&small, c);
	only(r, RCK_FINDING_RAIL_CROSSED, 0);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_HEALTHY);
	rck_report_free(r);
	free(c);
}

static void rails_crossed(void **state)
{
	struct tsyn_cable *c = tsyn_cables(&small);
	struct rck_report *r;

	(void)state;
	/* h00005's rail-1 and rail-2 NICs in each other's switches. */
	c[5 * 4 + 1].rail = 2;
	c[5 * 4 + 2].rail = 1;
	r = lint_json(&small, c);
	only(r, RCK_FINDING_RAIL_CROSSED, 2);
	names(r, 0, "h00005", "mlx5_1/1", "leaf-r2-g0", "swp6");
	names(r, 1, "h00005", "mlx5_2/1", "leaf-r1-g0", "swp6");
	assert_non_null(strstr(rck_finding_reason(rck_report_finding(r, 0)), "rail 1"));
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_DEGRADED);
	rck_report_free(r);
	free(c);
}

/* A site whose mlx5_0 is rail 1 and mlx5_1 rail 0 on every host: that is
 * its naming, not a fault; the one host wired by place is the odd one. */
static void site_naming(void **state)
{
	struct tsyn_cable *c = tsyn_cables(&small);
	struct rck_report *r;

	(void)state;
	for (unsigned int h = 0; h < small.hosts; h++) {
		c[h * 4 + 0].rail = 1;
		c[h * 4 + 1].rail = 0;
	}
	r = lint_json(&small, c);
	only(r, RCK_FINDING_RAIL_CROSSED, 0);
	rck_report_free(r);
	c[17 * 4 + 0].rail = 0;
	c[17 * 4 + 1].rail = 1;
	r = lint_json(&small, c);
	only(r, RCK_FINDING_RAIL_CROSSED, 2);
	names(r, 0, "h00017", "mlx5_0/1", "leaf-r0-g2", "swp2");
	assert_non_null(strstr(rck_finding_reason(rck_report_finding(r, 0)), "rail 1 (as on most hosts)"));
	rck_report_free(r);
	free(c);
}

static void cables_swapped(void **state)
{
	struct tsyn_cable *c = tsyn_cables(&small);
	struct rck_report *r;
	const char *why;

	(void)state;
	/* h00003 (group 0) and h00012 (group 1) swapped on rail 2. */
	c[3 * 4 + 2].group = 1;
	c[3 * 4 + 2].slot = 5;
	c[12 * 4 + 2].group = 0;
	c[12 * 4 + 2].slot = 4;
	r = lint_json(&small, c);
	only(r, RCK_FINDING_CABLE_SWAPPED, 1);
	names(r, 0, "h00003", "mlx5_2/1", "leaf-r2-g1", "swp5");
	why = rck_finding_reason(rck_report_finding(r, 0));
	assert_non_null(strstr(why, "swapped"));
	assert_non_null(strstr(why, "h00012 mlx5_2/1 on leaf-r2-g0 port swp4"));
	rck_report_free(r);
	/* One cable moved alone: the leaf its other rails expect. */
	free(c);
	c = tsyn_cables(&small);
	c[7 * 4 + 3].group = 2;
	c[7 * 4 + 3].slot = 20;
	r = lint_json(&small, c);
	only(r, RCK_FINDING_CABLE_SWAPPED, 1);
	names(r, 0, "h00007", "mlx5_3/1", "leaf-r3-g2", "swp20");
	assert_non_null(strstr(rck_finding_reason(rck_report_finding(r, 0)), "say leaf-r3-g0"));
	rck_report_free(r);
	free(c);
}

static void nic_no_switch(void **state)
{
	struct tsyn_cable *c = tsyn_cables(&small);
	struct rck_report *r;
	const struct rck_finding *f;

	(void)state;
	c[9 * 4 + 0].rail = -1;
	r = lint_json(&small, c);
	only(r, RCK_FINDING_NIC_NO_SWITCH, 1);
	f = rck_report_finding(r, 0);
	assert_int_equal(rck_finding_entity(f), RCK_ENTITY_NIC);
	assert_string_equal(rck_finding_host(f), "h00009");
	assert_string_equal(rck_finding_nic(f), "mlx5_0/1");
	assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_WARNING);
	rck_report_free(r);
	free(c);
}

static void port_speed(void **state)
{
	struct tsyn_cable *c = tsyn_cables(&small);
	struct tsyn f = small;
	struct rck_report *r;

	(void)state;
	c[20 * 4 + 1].gbps = 200;
	r = lint_json(&small, c);
	only(r, RCK_FINDING_SWITCH_PORT_SPEED, 1);
	names(r, 0, "h00020", "mlx5_1/1", "leaf-r1-g2", "swp5");
	assert_non_null(strstr(rck_finding_reason(rck_report_finding(r, 0)), "200 Gb/s, its peers at 400 Gb/s"));
	rck_report_free(r);
	free(c);
	/* A port that fell to 100 Mb/s reads in Mb/s, not "0.1 Gb/s". */
	c = tsyn_cables(&small);
	c[20 * 4 + 1].gbps = 0.1;
	r = lint_json(&small, c);
	only(r, RCK_FINDING_SWITCH_PORT_SPEED, 1);
	assert_non_null(strstr(rck_finding_reason(rck_report_finding(r, 0)), "runs at 100 Mb/s, its peers at 400 Gb/s"));
	rck_report_free(r);
	free(c);
	/* An uplink at half speed: the leaf's port and the spine's. */
	c = tsyn_cables(&small);
	f.slow_uplink = 6;             /* leaf-r1-g2 */
	r = lint_json(&f, c);
	only(r, RCK_FINDING_SWITCH_PORT_SPEED, 1);
	names(r, 0, "leaf-r1-g2", "swp9", "spine0", "swp7");
	rck_report_free(r);
	free(c);
}

/* A NIC's rail given in the file is the one it must reach. */
static void explicit_rails(void **state)
{
	static const char text[] =
		"{\"schema\":\"rocecheck.topology/1\",\"switches\":[{\"name\":\"r0\",\"rail\":0},{\"name\":\"r1\",\"rail\":1}],"
		"\"hosts\":[{\"name\":\"h1\",\"nics\":[{\"nic\":\"ethA\",\"rail\":1,\"switch\":\"r1\",\"port\":\"1\"},"
		"{\"nic\":\"ethB\",\"rail\":0,\"switch\":\"r0\",\"port\":\"1\"}]},"
		"{\"name\":\"h2\",\"nics\":[{\"nic\":\"ethA\",\"rail\":1,\"switch\":\"r0\",\"port\":\"2\"},"
		"{\"nic\":\"ethB\",\"rail\":0,\"switch\":\"r1\",\"port\":\"2\"}]}]}";
	struct rck_topology *t;
	struct rck_report *r;
	char err[256];

	(void)state;
	assert_int_equal(rck_topology_new(&t), 0);
	assert_int_equal(rck_topology_add_json(t, text, strlen(text), "x", err, sizeof(err)), 0);
	assert_int_equal(rck_topology_lint(t, &r), 0);
	only(r, RCK_FINDING_RAIL_CROSSED, 2);
	names(r, 0, "h2", "ethA", "r0", "2");
	names(r, 1, "h2", "ethB", "r1", "2");
	rck_report_free(r);
	rck_topology_free(t);
}

/* Without rails known, nothing is judged by rail. */
static void no_rails(void **state)
{
	static const char text[] =
		"{\"schema\":\"rocecheck.topology/1\",\"switches\":[{\"name\":\"a\"},{\"name\":\"b\"}],"
		"\"hosts\":[{\"name\":\"h1\",\"nics\":[{\"nic\":\"mlx5_0/1\",\"switch\":\"b\",\"port\":\"1\"},"
		"{\"nic\":\"mlx5_1/1\",\"switch\":\"a\",\"port\":\"1\"}]}]}";
	struct rck_topology *t;
	struct rck_report *r;
	char err[256];

	(void)state;
	assert_int_equal(rck_topology_new(&t), 0);
	assert_int_equal(rck_topology_add_json(t, text, strlen(text), "x", err, sizeof(err)), 0);
	assert_int_equal(rck_topology_lint(t, &r), 0);
	assert_int_equal(rck_report_finding_count(r), 0);
	rck_report_free(r);
	rck_topology_free(t);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 1,024 hosts x 8 rails from three sources: the file's switches, Slurm's
 * hosts under their rail-0 leaves, and every host's LLDP neighbours; one
 * crossed host and one swapped pair named exactly. (bench/topology-bench
 * does 10,000 hosts.) */
static void scale(void **state)
{
	const struct tsyn f = { .hosts = 1024, .rails = 8, .per_leaf = 32, .spines = 4, .gbps = 400,
				.slow_uplink = -1 };
	struct tsyn_cable *c = tsyn_cables(&f);
	struct rck_topology_neighbour recs[8];
	struct rck_topology *t;
	struct rck_report *r;
	char err[256] = "", *text, *buf = malloc(8 * 512 + 32);
	double t0 = now();
	size_t len;

	(void)state;
	assert_non_null(c);
	assert_non_null(buf);
	c[100 * 8 + 6].rail = 7;
	c[100 * 8 + 7].rail = 6;
	c[40 * 8 + 4].group = 2;
	c[40 * 8 + 4].slot = 9;
	c[72 * 8 + 4].group = 1;
	c[72 * 8 + 4].slot = 9;
	assert_int_equal(rck_topology_new(&t), 0);
	text = tsyn_json(&f, c, false, &len);
	assert_int_equal(rck_topology_add_json(t, text, len, "synth.json", err, sizeof(err)), 0);
	free(text);
	text = tsyn_slurm(&f, &len);
	assert_int_equal(rck_topology_add_slurm(t, text, len, "topology.conf", err, sizeof(err)), 0);
	free(text);
	for (unsigned int h = 0; h < f.hosts; h++) {
		unsigned int n = tsyn_neighbours(&f, c, h, recs, buf);

		assert_int_equal(rck_topology_add_neighbours(t, "lldp", recs, n), 0);
	}
	assert_int_equal(rck_topology_cable_count(t), 1024 * 8 + 1024);
	assert_int_equal(rck_topology_switch_count(t), 4 + 32 * 8);
	assert_int_equal(rck_topology_conflict_count(t), 0);
	assert_int_equal(rck_topology_lint(t, &r), 0);
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_RAIL_CROSSED), 2);
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_CABLE_SWAPPED), 1);
	assert_int_equal(rck_report_finding_count(r), 3);
	names(r, 0, "h00100", "mlx5_6/1", "leaf-r7-g3", "swp5");
	names(r, 1, "h00100", "mlx5_7/1", "leaf-r6-g3", "swp5");
	names(r, 2, "h00040", "mlx5_4/1", "leaf-r4-g2", "swp9");
	print_message("1024 hosts x 8 rails: loaded and linted in %.2f s\n", now() - t0);
	rck_report_free(r);
	rck_topology_free(t);
	free(buf);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clean),
		cmocka_unit_test(rails_crossed),
		cmocka_unit_test(site_naming),
		cmocka_unit_test(cables_swapped),
		cmocka_unit_test(nic_no_switch),
		cmocka_unit_test(port_speed),
		cmocka_unit_test(explicit_rails),
		cmocka_unit_test(no_rails),
		cmocka_unit_test(scale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
