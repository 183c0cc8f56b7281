/* LLDP neighbours over the agent: loopback agents answering from recorded
 * frames (one whose file is missing, one reading this machine), the
 * coordinator keeping them, the topology built from them and its conflict
 * with a topology file, and the AG_LLDP encoding against truncation. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rocecheck/rocecheck.h>

#include "../../mesh/agent_lldp.h"

#define KEY "unit-test-key-0123456789"
#define N 4

/* Frames as rocelab's leaf ports send them: chassis 02:4c:00:00:K:00,
 * port ID swpP (interface name), system name leafK. */
#define LEAF1_SWP1 "0180c200000e024c0000010188cc020704024c000001000405057377703106020078080a6c65616631" \
		   "20737770310a056c656166310000"
#define LEAF1_SWP2 "0180c200000e024c0000010288cc020704024c000001000405057377703206020078080a6c65616631" \
		   "20737770320a056c656166310000"

static struct rck_ctx *new_ctx(void)
{
	struct rck_ctx *ctx;
	char root[4096];
	const char *fx = getenv("ROCECHECK_FIXTURES");

	if (rck_ctx_new(&ctx))
		abort();
	rck_ctx_set_log_priority(ctx, 0);
	rck_ctx_set_timeout_ms(ctx, getenv("ROCECHECK_WRAP") ? 15000 : 3000);
	/* An agent reading "this machine" reads a recorded host without RDMA. */
	snprintf(root, sizeof(root), "%s/sysfs/empty", fx ? fx : "tests/fixtures");
	rck_ctx_set_sysfs_root(ctx, root);
	return ctx;
}

struct agent {
	struct rck_ctx *ctx;
	struct rck_agent *a;
	pthread_t t;
	char file[256];
};

static void *serve_loop(void *arg)
{
	struct agent *ag = arg;

	while (rck_agent_serve(ag->a, -1) != -EINTR)
		;
	return NULL;
}

static char dir[] = "/tmp/rck-mesh-lldp.XXXXXX";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* h0: eth0 on leaf1 swp1, eth1 hears nothing; h1: eth0 on leaf1 swp2;
 * h2: its file is missing; h3: reads this machine (no RDMA netdev). */
static void start_agents(struct agent *ag)
{
	for (int i = 0; i < N; i++) {
		struct rck_agent_opts o;

		rck_agent_opts_init(&o);
		o.bind_addr = "127.0.0.1";
		o.port = 0;
		o.key = (const uint8_t *)KEY;
		o.key_len = strlen(KEY);
		snprintf(ag[i].file, sizeof(ag[i].file), "%s/h%d.lldp", dir, i);
		if (i == 0)
			write_file(ag[i].file, "# recorded on h0\neth0 " LEAF1_SWP1 "\neth1 -\n");
		if (i == 1)
			write_file(ag[i].file, "eth0 " LEAF1_SWP2 "\n");
		o.lldp_file = i == 3 ? NULL : ag[i].file;
		ag[i].ctx = new_ctx();
		assert_int_equal(rck_agent_new(ag[i].ctx, &o, &ag[i].a), 0);
		assert_int_equal(pthread_create(&ag[i].t, NULL, serve_loop, &ag[i]), 0);
	}
}

static void stop_agents(struct agent *ag)
{
	for (int i = 0; i < N; i++) {
		rck_agent_stop(ag[i].a);
		pthread_join(ag[i].t, NULL);
		rck_agent_free(ag[i].a);
		rck_ctx_free(ag[i].ctx);
		unlink(ag[i].file);
	}
}

static struct rck_mesh_config *config(struct agent *ag, int n, bool lldp)
{
	struct rck_mesh_config *c;
	char name[16];

	assert_int_equal(rck_mesh_config_new(&c), 0);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "h%d", i);
		assert_int_equal(rck_mesh_config_add_host(c, name, "127.0.0.1", rck_agent_port(ag[i].a), NULL, 0), 0);
	}
	assert_int_equal(rck_mesh_config_set_key(c, (const uint8_t *)KEY, strlen(KEY)), 0);
	assert_int_equal(rck_mesh_config_set_lldp(c, lldp, 500), 0);
	return c;
}

static struct rck_mesh *collect(struct agent *ag, int n, bool lldp)
{
	struct rck_ctx *ctx = new_ctx();
	struct rck_mesh_config *c = config(ag, n, lldp);
	struct rck_mesh *m = NULL;

	assert_int_equal(rck_mesh_collect(ctx, c, &m), 0);
	rck_mesh_config_free(c);
	rck_ctx_free(ctx);
	return m;
}

static void check_hosts(const struct rck_mesh *m)
{
	const struct rck_topology_neighbour *r;
	const char *err;
	size_t n;

	for (unsigned int h = 0; h < N; h++)
		assert_null(rck_mesh_host_unreachable(m, h));
	assert_int_equal(rck_mesh_host_lldp_count(m, 0, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_null(err);
	r = rck_mesh_host_lldp(m, 0, 0);
	assert_string_equal(r->host, "h0");
	assert_string_equal(r->nic, "eth0");
	assert_string_equal(r->chassis_id, "02:4c:00:00:01:00");
	assert_string_equal(r->port_id, "swp1");
	assert_int_equal(r->port_id_subtype, 5);
	assert_string_equal(r->system_name, "leaf1");
	assert_string_equal(r->port_description, "leaf1 swp1");
	r = rck_mesh_host_lldp(m, 0, 1);
	assert_string_equal(r->nic, "eth1");
	assert_null(r->chassis_id);
	assert_null(r->system_name);
	assert_null(rck_mesh_host_lldp(m, 0, 2));
	assert_int_equal(rck_mesh_host_lldp_count(m, 1, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(rck_mesh_host_lldp(m, 1, 0)->port_id, "swp2");
	/* A missing file is the agent's reason, not an unreachable host. */
	assert_int_equal(rck_mesh_host_lldp_count(m, 2, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_non_null(err);
	assert_non_null(strstr(err, "h2.lldp"));
	/* No RDMA netdev: nothing to say, and no error. */
	assert_int_equal(rck_mesh_host_lldp_count(m, 3, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(err);
}

static const char *port_name(const struct rck_topology *t, int port)
{
	const char *name = NULL;

	assert_true(port >= 0);
	assert_int_equal(rck_topology_port(t, (unsigned int)port, NULL, &name, NULL), 0);
	return name;
}

static struct rck_topology_cable cable(const struct rck_topology *t, const char *host, const char *nic)
{
	struct rck_topology_cable c = { .size = sizeof(c) };

	for (unsigned int i = 0; i < rck_topology_cable_count(t); i++) {
		assert_int_equal(rck_topology_cable(t, i, &c), 0);
		if (!strcmp(c.host, host) && c.nic && !strcmp(c.nic, nic))
			return c;
	}
	fail_msg("no cable %s %s", host, nic);
	return c;
}

static void check_topology(const struct rck_mesh *m)
{
	struct rck_topology *t;
	struct rck_report *lint = NULL;
	struct rck_topology_cable c;
	const char *what, *a, *b;
	char err[256];
	/* The file says h1's eth0 is on leaf1 swp7: the agents disagree. */
	static const char file[] = "{\"schema\":\"rocecheck.topology/1\",\"switches\":[{\"name\":\"leaf1\","
				   "\"tier\":\"leaf\",\"ports\":[{\"name\":\"swp7\"}]}],\"hosts\":[{\"name\":\"h1\","
				   "\"nics\":[{\"nic\":\"eth0\",\"switch\":\"leaf1\",\"port\":\"swp7\"}]}]}";

	assert_int_equal(rck_topology_new(&t), 0);
	assert_int_equal(rck_topology_add_mesh_lldp(t, m, NULL), 0);
	c = cable(t, "h0", "eth0");
	assert_string_equal(rck_topology_switch_name(t, (unsigned int)c.sw), "leaf1");
	assert_string_equal(port_name(t, c.port), "swp1");
	assert_string_equal(c.source, "agents");
	c = cable(t, "h1", "eth0");
	assert_string_equal(port_name(t, c.port), "swp2");
	c = cable(t, "h0", "eth1");
	assert_int_equal(c.sw, -1);
	assert_int_equal(rck_topology_switch_chassis(t, 0) != NULL, 1);
	assert_int_equal(rck_topology_conflict_count(t), 0);
	assert_int_equal(rck_topology_lint(t, &lint), 0);
	assert_int_equal(rck_report_finding_count(lint), 1); /* h0 eth1 on no switch */
	rck_report_free(lint);
	rck_topology_free(t);

	/* The file first, then the agents: a conflict naming both. */
	assert_int_equal(rck_topology_new(&t), 0);
	assert_int_equal(rck_topology_add_json(t, file, strlen(file), "fabric.json", err, sizeof(err)), 0);
	assert_int_equal(rck_topology_add_mesh_lldp(t, m, NULL), 0);
	assert_true(rck_topology_conflict_count(t) >= 1);
	assert_int_equal(rck_topology_conflict(t, 0, &what, &a, &b), 0);
	assert_string_equal(a, "fabric.json");
	assert_string_equal(b, "agents");
	assert_non_null(strstr(what, "swp7"));
	assert_non_null(strstr(what, "swp2"));
	rck_topology_free(t);
}

static void test_collect(void **state)
{
	struct agent ag[N];
	struct rck_mesh *m;
	size_t n;

	(void)state;
	start_agents(ag);
	m = collect(ag, N, true);
	check_hosts(m);
	check_topology(m);
	rck_mesh_free(m);
	/* Not asked: nothing kept. */
	m = collect(ag, N, false);
	assert_int_equal(rck_mesh_host_lldp_count(m, 0, &n, NULL), -ENOENT);
	rck_mesh_free(m);
	stop_agents(ag);
}

/* A sweep that asks for LLDP runs as before and keeps the neighbours. */
static void test_sweep(void **state)
{
	struct agent ag[N];
	struct rck_ctx *ctx = new_ctx();
	struct rck_mesh_config *c;
	struct rck_mesh *m = NULL;
	size_t n;

	(void)state;
	start_agents(ag);
	c = config(ag, 2, true);
	assert_int_equal(rck_mesh_config_set_probe(c, RCK_PROBE_TRANSPORT_TCP, 4096, 5, 0), 0);
	assert_int_equal(rck_mesh_config_set_pattern(c, "quick", NULL, 0, NULL), 0);
	assert_int_equal(rck_mesh_run(ctx, c, &m), 0);
	assert_true(rck_mesh_cell_count(m) > 0);
	assert_int_equal(rck_mesh_host_lldp_count(m, 0, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(rck_mesh_host_lldp_count(m, 1, &n, NULL), 0);
	assert_int_equal(n, 1);
	rck_mesh_free(m);
	rck_mesh_config_free(c);
	rck_ctx_free(ctx);
	stop_agents(ag);
}

/* Every truncation of a reply decodes or fails cleanly; limits hold. */
static void test_proto(void **state)
{
	struct ag_lldp d = { .id = 7 }, back;
	uint8_t buf[4096];
	size_t len;
	uint32_t id, ms;

	(void)state;
	assert_int_equal(ag_lldp_push(&d, &(struct ag_lldp_nb){ .netdev = "eth0", .chassis_id = "02:4c:00:00:01:00",
								 .port_id = "swp1", .port_id_subtype = 5,
								 .system_name = "leaf1", .via = "capture" }), 0);
	assert_int_equal(ag_lldp_push(&d, &(struct ag_lldp_nb){ .netdev = "eth1" }), 0);
	assert_int_equal(ag_lldp_encode(&d, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_lldp_decode(buf, len, &back), 0);
	assert_int_equal(back.id, 7);
	assert_int_equal(back.n, 2);
	assert_string_equal(back.nb[0].system_name, "leaf1");
	assert_string_equal(back.nb[0].via, "capture");
	assert_null(back.nb[1].chassis_id);
	ag_lldp_clear(&back);
	for (size_t cut = 0; cut < len; cut++) {
		int rc = ag_lldp_decode(buf, cut, &back);

		assert_true(rc == 0 || rc == -EBADMSG);
		ag_lldp_clear(&back);
	}
	assert_int_equal(ag_lldp_encode(&d, buf, 16, &len), -ENOBUFS);
	ag_lldp_clear(&d);
	assert_int_equal(ag_lldp_get_encode(3, AG_LLDP_CAPTURE_MAX + 1, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_lldp_get_decode(buf, len, &id, &ms), -EBADMSG);
	assert_int_equal(ag_lldp_get_encode(3, 1000, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_lldp_get_decode(buf, len, &id, &ms), 0);
	assert_int_equal(id, 3);
	assert_int_equal(ms, 1000);
	{
		struct rck_mesh_config *c;

		assert_int_equal(rck_mesh_config_new(&c), 0);
		assert_int_equal(rck_mesh_config_set_lldp(c, true, AG_LLDP_CAPTURE_MAX + 1), -EINVAL);
		rck_mesh_config_free(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proto),
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_sweep),
	};
	int rc;

	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return rc;
}
