/* The topology from the agents' LLDP: leaves and ports from the neighbour
 * records, the implied spine above them, and localisation on that model of
 * sweeps recorded on rocelab's two leaves (an uplink slow, a host slow). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rocecheck/rocecheck.h>

static const char *fixture(const char *name)
{
	static char path[4096];
	const char *fix = getenv("ROCECHECK_FIXTURES");

	assert_non_null(fix);
	snprintf(path, sizeof(path), "%s/%s", fix, name);
	return path;
}

static unsigned int sw(const struct rck_topology *t, const char *name)
{
	unsigned int i;

	assert_int_equal(rck_topology_switch_find(t, name, &i), 0);
	return i;
}

/* As rocelab's leaf ports send them: chassis a MAC, port ID an interface
 * name, the system name the leaf's. */
#define NB(h, leaf, k, port) \
	{ .size = sizeof(struct rck_topology_neighbour), .host = h, .nic = "eth0", \
	  .chassis_id = "02:4c:01:00:0" #k ":00", .port_id = port, .port_id_subtype = 5, .system_name = leaf }

static const struct rck_topology_neighbour heard[] = {
	NB("10.77.1.1", "leaf1", 1, "swp1"), NB("10.77.1.2", "leaf1", 1, "swp2"), NB("10.77.1.3", "leaf1", 1, "swp3"),
	NB("10.77.1.4", "leaf2", 2, "swp1"), NB("10.77.1.5", "leaf2", 2, "swp2"), NB("10.77.1.6", "leaf2", 2, "swp3"),
	/* A NIC that heard nothing: on no known switch, never under the spine. */
	{ .size = sizeof(struct rck_topology_neighbour), .host = "10.77.1.6", .nic = "eth1" },
};

static void check_uplink(const struct rck_topology *t, unsigned int i, const char *lower, const char *upper)
{
	struct rck_topology_uplink u = { .size = sizeof(u) };

	assert_int_equal(rck_topology_uplink(t, i, &u), 0);
	assert_string_equal(rck_topology_switch_name(t, u.lower), lower);
	assert_string_equal(rck_topology_switch_name(t, u.upper), upper);
	assert_int_equal(u.lower_port, -1);
	assert_int_equal(u.upper_port, -1);
	assert_string_equal(u.source, "implied");
}

static void implied_spine(void **state)
{
	struct rck_topology *t;
	struct rck_report *lint = NULL;
	unsigned int n_sw;

	(void)state;
	assert_int_equal(rck_topology_new(&t), 0);
	/* Nothing heard yet: nothing to imply. */
	assert_int_equal(rck_topology_imply_spine(t, NULL), 0);
	assert_int_equal(rck_topology_switch_count(t), 0);
	assert_int_equal(rck_topology_add_neighbours(t, "agents", heard, sizeof(heard) / sizeof(heard[0])), 0);
	assert_int_equal(rck_topology_switch_count(t), 2);
	assert_int_equal(rck_topology_uplink_count(t), 0);
	assert_int_equal(rck_topology_imply_spine(t, NULL), 0);
	assert_int_equal(rck_topology_switch_count(t), 3);
	assert_int_equal(rck_topology_switch_tier(t, sw(t, "leaf1")), RCK_SWITCH_TIER_LEAF);
	assert_int_equal(rck_topology_switch_tier(t, sw(t, "leaf2")), RCK_SWITCH_TIER_LEAF);
	assert_int_equal(rck_topology_switch_tier(t, sw(t, "spine")), RCK_SWITCH_TIER_SPINE);
	assert_null(rck_topology_switch_chassis(t, sw(t, "spine")));
	assert_string_equal(rck_topology_switch_chassis(t, sw(t, "leaf2")), "02:4c:01:00:02:00");
	assert_int_equal(rck_topology_uplink_count(t), 2);
	check_uplink(t, 0, "leaf1", "spine");
	check_uplink(t, 1, "leaf2", "spine");
	/* Again: every leaf has its uplink now, nothing added, no conflict. */
	n_sw = rck_topology_switch_count(t);
	assert_int_equal(rck_topology_imply_spine(t, "spine"), 0);
	assert_int_equal(rck_topology_switch_count(t), n_sw);
	assert_int_equal(rck_topology_uplink_count(t), 2);
	assert_int_equal(rck_topology_conflict_count(t), 0);
	/* The NIC that heard nothing is the lint's nic_no_switch, alone. */
	assert_int_equal(rck_topology_lint(t, &lint), 0);
	assert_int_equal(rck_report_finding_count(lint), 1);
	assert_int_equal(rck_report_code_count(lint, RCK_FINDING_NIC_NO_SWITCH), 1);
	rck_report_free(lint);
	/* A leaf cannot be the spine. */
	assert_int_equal(rck_topology_imply_spine(t, "leaf1"), -EEXIST);
	assert_int_equal(rck_topology_imply_spine(NULL, NULL), -EINVAL);
	rck_topology_free(t);
}

/* A file that gives leaf1 its uplink (to spine-a): only leaf2 is implied. */
static void implied_keeps_known(void **state)
{
	static const char file[] =
		"{\"schema\":\"rocecheck.topology/1\",\"switches\":["
		"{\"name\":\"leaf1\",\"tier\":\"leaf\",\"uplinks\":[{\"port\":\"swp49\",\"switch\":\"spine-a\",\"switch_port\":\"swp1\"}]},"
		"{\"name\":\"spine-a\",\"tier\":\"spine\"}]}";
	struct rck_topology *t;
	struct rck_topology_uplink u = { .size = sizeof(u) };
	char err[256] = "";

	(void)state;
	assert_int_equal(rck_topology_new(&t), 0);
	assert_int_equal(rck_topology_add_neighbours(t, "agents", heard, 6), 0);
	assert_int_equal(rck_topology_add_json(t, file, strlen(file), "fabric.json", err, sizeof(err)), 0);
	assert_int_equal(rck_topology_imply_spine(t, "spine0"), 0);
	assert_int_equal(rck_topology_uplink_count(t), 2);
	assert_int_equal(rck_topology_uplink(t, 1, &u), 0);
	assert_string_equal(rck_topology_switch_name(t, u.lower), "leaf2");
	assert_string_equal(rck_topology_switch_name(t, u.upper), "spine0");
	assert_int_equal(rck_topology_conflict_count(t), 0);
	rck_topology_free(t);
}

/* The neighbours the agents heard in that lab (topology/lldp-rocelab.txt:
 * "HOST NIC CHASSIS PORT SYSTEM" a line), kept in @m as the coordinator
 * keeps an agent's AG_LLDP reply. Returns the host cabled to leaf1 swp2. */
static const char *heard_in(struct rck_mesh *m)
{
	static char leaf1_swp2[64];
	char host[64], nic[16], chassis[32], port[16], sys[32];
	FILE *f = fopen(fixture("topology/lldp-rocelab.txt"), "r");
	unsigned int n = 0, h;

	assert_non_null(f);
	leaf1_swp2[0] = 0;
	while (fscanf(f, "%63s %15s %31s %15s %31s", host, nic, chassis, port, sys) == 5) {
		struct rck_topology_neighbour nb = { .size = sizeof(nb), .host = host, .nic = nic,
						     .chassis_id = chassis, .port_id = port,
						     .port_id_subtype = 5, .system_name = sys };

		assert_int_equal(rck_mesh_find_host(m, host, &h), 0);
		assert_int_equal(rck_mesh_host_set_lldp(m, h, &nb, 1, NULL), 0);
		if (!strcmp(sys, "leaf1") && !strcmp(port, "swp2"))
			snprintf(leaf1_swp2, sizeof(leaf1_swp2), "%s", host);
		n++;
	}
	fclose(f);
	assert_int_equal(n, 6);
	return leaf1_swp2;
}

/* Sweeps recorded by tests/fabric/topology.sh (rocelab --nodes 6 --tors 2,
 * the preflight reports' "mesh"): the model from their agents' LLDP as a
 * sweep builds it, judged with tcg.thresholds. */
static const char *victim;

static struct rck_report *judge(const char *name, struct rck_topology **topo)
{
	struct rck_ctx *ctx = NULL;
	struct rck_mesh *m = NULL;
	struct rck_thresholds *th = NULL;
	struct rck_analysis *a = NULL;
	struct rck_report *r = NULL;
	char path[4200], err[256] = "";
	const char *tcg = getenv("ROCECHECK_TCG_THRESHOLDS");

	assert_non_null(tcg);
	snprintf(path, sizeof(path), "%s", fixture(name));
	assert_int_equal(rck_ctx_new(&ctx), 0);
	assert_int_equal(rck_mesh_load(ctx, path, &m), 0);
	victim = heard_in(m);
	assert_int_equal(rck_topology_new(topo), 0);
	assert_int_equal(rck_topology_add_mesh_lldp(*topo, m, "agents"), 0);
	assert_int_equal(rck_topology_imply_spine(*topo, NULL), 0);
	assert_int_equal(rck_thresholds_new(&th), 0);
	assert_int_equal(rck_thresholds_load(th, tcg, err, sizeof(err)), 0);
	assert_int_equal(rck_analysis_new(th, &a), 0);
	assert_int_equal(rck_analysis_add_mesh(a, m), 0);
	assert_int_equal(rck_analysis_set_topology(a, *topo), 0);
	assert_int_equal(rck_analysis_run(a, &r), 0);
	for (unsigned int i = 0; getenv("LOCALISE_DUMP") && i < rck_report_finding_count(r); i++)
		print_message("%s: %s\n", rck_finding_code_name(rck_finding_code(rck_report_finding(r, i))),
			      rck_finding_reason(rck_report_finding(r, i)));
	rck_analysis_free(a);
	rck_thresholds_free(th);
	rck_mesh_free(m);
	rck_ctx_free(ctx);
	return r;
}

static const struct rck_finding *first(const struct rck_report *r, enum rck_finding_code code)
{
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++)
		if (rck_finding_code(rck_report_finding(r, i)) == code)
			return rck_report_finding(r, i);
	fail_msg("no %s finding", rck_finding_code_name(code));
	return NULL;
}

static void recorded_model(void **state)
{
	struct rck_topology *t = NULL;
	struct rck_report *r = judge("mesh/topo-healthy.json", &t);
	struct rck_topology_cable c = { .size = sizeof(c) };
	const char *port = NULL;

	(void)state;
	/* Two leaves heard, the spine implied, six NICs on their ports. */
	assert_int_equal(rck_topology_switch_count(t), 3);
	assert_int_equal(rck_topology_switch_tier(t, sw(t, "spine")), RCK_SWITCH_TIER_SPINE);
	assert_int_equal(rck_topology_uplink_count(t), 2);
	assert_int_equal(rck_topology_cable_count(t), 6);
	for (unsigned int i = 0; i < rck_topology_cable_count(t); i++) {
		assert_int_equal(rck_topology_cable(t, i, &c), 0);
		if (strcmp(c.host, victim))
			continue;
		assert_string_equal(c.nic, "eth0");
		assert_int_equal(c.sw, (int)sw(t, "leaf1"));
		assert_int_equal(rck_topology_port(t, (unsigned int)c.port, NULL, &port, NULL), 0);
		assert_string_equal(port, "swp2");
	}
	assert_non_null(port);
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_UPLINK_DEGRADED) +
			 rck_report_code_count(r, RCK_FINDING_SWITCH_DEGRADED) +
			 rck_report_code_count(r, RCK_FINDING_SWITCH_DOWN) +
			 rck_report_code_count(r, RCK_FINDING_CABLE_BAD), 0);
	assert_int_equal(rck_report_drain_count(r), 0);
	rck_report_free(r);
	rck_topology_free(t);
}

static void recorded_uplink(void **state)
{
	struct rck_topology *t = NULL;
	struct rck_report *r = judge("mesh/topo-uplink.json", &t);
	const struct rck_finding *f;

	(void)state;
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_UPLINK_DEGRADED), 1);
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_CABLE_BAD) + rck_report_code_count(r, RCK_FINDING_SWITCH_DEGRADED), 0);
	f = first(r, RCK_FINDING_UPLINK_DEGRADED);
	assert_string_equal(rck_finding_host(f), "leaf1");
	assert_string_equal(rck_finding_peer_host(f), "spine");
	/* Two leaves: every probe across crosses both uplinks, and it says so. */
	assert_non_null(strstr(rck_finding_reason(f), "cannot tell it from the uplink of leaf2"));
	assert_int_equal(rck_report_drain_count(r), 0);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_DEGRADED);
	rck_report_free(r);
	rck_topology_free(t);
}

static void recorded_host(void **state)
{
	struct rck_topology *t = NULL;
	struct rck_report *r = judge("mesh/topo-host.json", &t);
	const struct rck_finding *f;

	(void)state;
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_UPLINK_DEGRADED), 0);
	f = first(r, RCK_FINDING_CABLE_BAD);
	assert_string_equal(rck_finding_host(f), victim);
	assert_string_equal(rck_finding_peer_host(f), "leaf1");
	assert_string_equal(rck_finding_peer_nic(f), "swp2");
	rck_report_free(r);
	rck_topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(implied_spine),
		cmocka_unit_test(implied_keeps_known),
		cmocka_unit_test(recorded_model),
		cmocka_unit_test(recorded_uplink),
		cmocka_unit_test(recorded_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
