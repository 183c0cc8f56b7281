/* The topology model's sources: Slurm's topology.conf (syntax, errors with
 * line and column), our JSON file, LLDP neighbours, and their conflicts. */
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

static char *fixture(const char *name)
{
	static char path[4096];
	const char *fix = getenv("ROCECHECK_FIXTURES");

	assert_non_null(fix);
	snprintf(path, sizeof(path), "%s/topology/%s", fix, name);
	return path;
}

static struct rck_topology *fresh(void)
{
	struct rck_topology *t;

	assert_int_equal(rck_topology_new(&t), 0);
	return t;
}

static unsigned int sw(const struct rck_topology *t, const char *name)
{
	unsigned int i;

	assert_int_equal(rck_topology_switch_find(t, name, &i), 0);
	return i;
}

/* The cable of @host's @nic (NULL: host-level on @swname). */
static struct rck_topology_cable cable(const struct rck_topology *t, const char *host, const char *nic,
				       const char *swname)
{
	struct rck_topology_cable c = { .size = sizeof(c) };

	for (unsigned int i = 0; i < rck_topology_cable_count(t); i++) {
		assert_int_equal(rck_topology_cable(t, i, &c), 0);
		if (strcmp(c.host, host))
			continue;
		if (nic ? c.nic && !strcmp(c.nic, nic)
			: !c.nic && !strcmp(rck_topology_switch_name(t, (unsigned int)c.sw), swname))
			return c;
	}
	fail_msg("no cable %s %s", host, nic ? nic : swname);
	return c;
}

static const char *port_name(const struct rck_topology *t, int port)
{
	const char *name = NULL;

	assert_true(port >= 0);
	assert_int_equal(rck_topology_port(t, (unsigned int)port, NULL, &name, NULL), 0);
	return name;
}

/* A conflict whose text holds @needle, from sources @a and @b. */
static void has_conflict(const struct rck_topology *t, const char *needle, const char *a, const char *b)
{
	for (unsigned int i = 0; i < rck_topology_conflict_count(t); i++) {
		const char *what, *sa, *sb;

		assert_int_equal(rck_topology_conflict(t, i, &what, &sa, &sb), 0);
		if (strstr(what, needle) && strstr(sa, a) && strstr(sb, b))
			return;
	}
	for (unsigned int i = 0; i < rck_topology_conflict_count(t); i++) {
		const char *what, *sa, *sb;

		rck_topology_conflict(t, i, &what, &sa, &sb);
		print_message("conflict: %s (%s vs %s)\n", what, sa, sb);
	}
	fail_msg("no conflict '%s' (%s vs %s)", needle, a, b);
}

static void slurm_fixture(void **state)
{
	struct rck_topology *t = fresh();
	struct rck_topology_uplink u = { .size = sizeof(u) };
	char err[256] = "";

	(void)state;
	assert_int_equal(rck_topology_load_slurm(t, fixture("slurm-rails.conf"), err, sizeof(err)), 0);
	assert_int_equal(rck_topology_switch_count(t), 5);
	assert_int_equal(rck_topology_switch_tier(t, sw(t, "leaf-r1-a")), RCK_SWITCH_TIER_LEAF);
	assert_int_equal(rck_topology_switch_tier(t, sw(t, "spine1")), RCK_SWITCH_TIER_SPINE);
	assert_int_equal(rck_topology_switch_rail(t, sw(t, "spine1")), -1);
	assert_null(rck_topology_switch_chassis(t, sw(t, "spine1")));
	/* 8 hosts, each under one rail-0 and one rail-1 leaf, NIC unknown. */
	assert_int_equal(rck_topology_cable_count(t), 16);
	assert_int_equal(cable(t, "node03", NULL, "leaf-r1-a").port, -1);
	assert_int_equal(cable(t, "node07", NULL, "leaf-r0-b").sw, (int)sw(t, "leaf-r0-b"));
	assert_int_equal(rck_topology_uplink_count(t), 4);
	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(rck_topology_uplink(t, i, &u), 0);
		assert_int_equal(u.upper, sw(t, "spine1"));
		assert_int_equal(u.lower_port, -1);
	}
	assert_int_equal(rck_topology_conflict_count(t), 0);
	rck_topology_free(t);
}

static void slurm_syntax(void **state)
{
	static const char text[] =
		"# comment line\n"
		"\n"
		"SWITCHNAME=s0 nodes=tux[0-3,12] # trailing comment\n"
		"SwitchName=s1 \\\n"
		"   Nodes=\"tux[4-5]\" \\\n"
		"   LinkSpeed=100\n"
		"SwitchName=s\\#2 Nodes=a\n"
		"\tSwitchName=top\tSwitches=s[0-1] \r\n";
	struct rck_topology *t = fresh();
	char err[256] = "";

	(void)state;
	assert_int_equal(rck_topology_add_slurm(t, text, sizeof(text) - 1, "inline", err, sizeof(err)), 0);
	assert_int_equal(rck_topology_switch_count(t), 4);
	sw(t, "s#2");
	assert_int_equal(cable(t, "tux12", NULL, "s0").sw, (int)sw(t, "s0"));
	assert_int_equal(cable(t, "tux5", NULL, "s1").sw, (int)sw(t, "s1"));
	assert_int_equal(rck_topology_cable_count(t), 8);
	assert_int_equal(rck_topology_uplink_count(t), 2);
	/* No terminator needed: the buffer's length counts. */
	rck_topology_free(t);
	t = fresh();
	assert_int_equal(rck_topology_add_slurm(t, "SwitchName=x Nodes=a trailing", 20, "cut", err, sizeof(err)), 0);
	assert_int_equal(cable(t, "a", NULL, "x").sw, 0);
	rck_topology_free(t);
}

static void slurm_errors(void **state)
{
	static const struct {
		const char *text, *msg;
		int rc;
	} cases[] = {
		{ "SwitchName=a Nodes=n1\nSwitchName=b Bogus=1 Nodes=n2\n", "t:2:14: unknown key 'Bogus'", -EINVAL },
		{ "SwitchName=a Nodes=n1 Switches=b\nSwitchName=b Nodes=x\n", "t:1:1: switch a has both", -EINVAL },
		{ "SwitchName=a\n", "t:1:1: switch a has neither", -EINVAL },
		{ "SwitchName=a Nodes=n\nSwitchName=a Nodes=m\n", "t:2:1: switch a defined again", -EINVAL },
		{ "SwitchName=top Switches=leaf[1-2]\nSwitchName=leaf1 Nodes=n\n", "t:1:25: switch top: child switch leaf2 is not defined", -EINVAL },
		{ "SwitchName=a Switches=b\nSwitchName=b Switches=a\n", "a loop through", -EINVAL },
		{ "SwitchName=a Nodes=n[3-1]\n", "t:1:20: bad list 'n[3-1]'", -EINVAL },
		{ "Include /etc/slurm/more.conf\n", "t:1:1: Include is not supported", -EINVAL },
		{ "BlockName=b1 Nodes=n[1-4]\n", "t:1:1: topology/block", -EINVAL },
		{ "SwitchName=a Nodes=\"n1\n", "t:1:20: unterminated quote", -EINVAL },
		{ "Nodes=n1\n", "t:1:1: a line without SwitchName", -EINVAL },
		{ "SwitchName=a Nodes=n LinkSpeed=fast\n", "t:1:32: LinkSpeed is a whole number", -EINVAL },
		{ "SwitchName=a,b Nodes=n\n", "t:1:12: SwitchName is one name", -EINVAL },
		{ "SwitchName=a Nodes=n\nSwitchName=b \\\n  Nodes=m Oops\n", "t:3:11: expected Key=Value", -EINVAL },
		{ "# nothing\n", "t: no SwitchName line", -EINVAL },
		{ "SwitchName=a Nodes=n\0x\n", "t:1:21: a NUL byte", -EINVAL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rck_topology *t = fresh();
		size_t len = strlen(cases[i].text);
		char err[256] = "";

		if (strstr(cases[i].msg, "NUL"))
			len = 23;
		assert_int_equal(rck_topology_add_slurm(t, cases[i].text, len, "t", err, sizeof(err)), cases[i].rc);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].msg);
		/* Nothing merged from a file that does not parse. */
		assert_int_equal(rck_topology_switch_count(t), 0);
		assert_int_equal(rck_topology_cable_count(t), 0);
		rck_topology_free(t);
	}
}

static void json_fixture(void **state)
{
	struct rck_topology *t = fresh();
	struct rck_topology_uplink u = { .size = sizeof(u) };
	struct rck_topology_cable c;
	char err[256] = "";
	double gbps = 0;
	unsigned int s;

	(void)state;
	assert_int_equal(rck_topology_load_json(t, fixture("rails.json"), err, sizeof(err)), 0);
	assert_int_equal(rck_topology_switch_count(t), 5);
	assert_int_equal(rck_topology_switch_rail(t, sw(t, "leaf-r1-b")), 1);
	assert_string_equal(rck_topology_switch_chassis(t, sw(t, "leaf-r0-b")), "02:00:00:00:0b:00");
	c = cable(t, "node01", "mlx5_1/1", NULL);
	assert_string_equal(c.netdev, "ens2np0");
	assert_int_equal(c.sw, (int)sw(t, "leaf-r1-a"));
	assert_string_equal(port_name(t, c.port), "swp1");
	assert_int_equal(rck_topology_port(t, (unsigned int)cable(t, "node02", "mlx5_0/1", NULL).port, &s, NULL,
					   &gbps), 0);
	assert_int_equal(s, sw(t, "leaf-r0-a"));
	assert_true(gbps == 400);
	assert_int_equal(rck_topology_uplink_count(t), 4);
	assert_int_equal(rck_topology_uplink(t, 0, &u), 0);
	assert_string_equal(port_name(t, u.lower_port), "swp33");
	assert_string_equal(port_name(t, u.upper_port), "swp1");
	assert_int_equal(rck_topology_cable_count(t), 16);
	/* Slurm says the same: nothing in conflict. */
	assert_int_equal(rck_topology_load_slurm(t, fixture("slurm-rails.conf"), err, sizeof(err)), 0);
	assert_int_equal(rck_topology_conflict_count(t), 0);
	rck_topology_free(t);
}

static void json_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "{\"schema\":\"rocecheck.topology/1\",", "f:1:33: " },
		{ "{\"schema\":\"other/1\"}", "\"schema\" is not" },
		{ "{\"schema\":\"rocecheck.topology/1\",\"extra\":1}", "document: unknown member \"extra\"" },
		{ "{\"schema\":\"rocecheck.topology/1\",\"switches\":[{\"name\":\"a\"},{\"name\":\"a\"}]}",
		  "switches[1]: switch a given twice" },
		{ "{\"schema\":\"rocecheck.topology/1\",\"switches\":[{\"name\":\"a\",\"rail\":64}]}",
		  "\"rail\" out of range" },
		{ "{\"schema\":\"rocecheck.topology/1\",\"switches\":[{\"name\":\"a\",\"tier\":\"core\"}]}",
		  "tier \"core\"" },
		{ "{\"schema\":\"rocecheck.topology/1\",\"hosts\":[{\"name\":\"h\",\"nics\":[{\"nic\":\"n\",\"port\":\"p\"}]}]}",
		  "host h: nics[0]: a port without its switch" },
		{ "{\"schema\":\"rocecheck.topology/1\",\"hosts\":[{\"name\":\"h\",\"nics\":[{\"nic\":\"n\"},{\"nic\":\"n\"}]}]}",
		  "NIC h n given twice" },
		{ "{\"schema\":\"rocecheck.topology/1\",\"hosts\":[{\"name\":\"h\",\"nics\":[{\"nic\":\"a\",\"switch\":\"s\",\"port\":\"p\"}]},"
		  "{\"name\":\"g\",\"nics\":[{\"nic\":\"b\",\"switch\":\"s\",\"port\":\"p\"}]}]}",
		  "cabled switch port s p given twice" },
		{ "{\"schema\":\"rocecheck.topology/1\",\"switches\":[{\"name\":\"\"}]}", "\"name\" is not a name" },
		{ "{\"schema\":\"rocecheck.topology/1\",\"switches\":[{\"name\":\"a\",\"ports\":[{\"name\":\"p\",\"speed_gbps\":-1}]}]}",
		  "\"speed_gbps\" out of range" },
		{ "{\"schema\":\"rocecheck.topology/1\",\"switches\":[{\"name\":\"a\",\"uplinks\":[{\"switch\":\"a\"}]}]}",
		  "not its own uplink" },
		{ "{\"schema\":\"rocecheck.topology/1\",\"schema\":\"rocecheck.topology/1\"}", "duplicate" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rck_topology *t = fresh();
		char err[256] = "";

		assert_int_equal(rck_topology_add_json(t, cases[i].text, strlen(cases[i].text), "f", err, sizeof(err)),
				 -EINVAL);
		if (!strstr(err, cases[i].msg) || strncmp(err, "f:", 2))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].msg);
		assert_int_equal(rck_topology_switch_count(t), 0);
		assert_int_equal(rck_topology_cable_count(t), 0);
		rck_topology_free(t);
	}
}

/* The JSON written loads again into the same model. */
static void json_roundtrip(void **state)
{
	struct rck_topology *t = fresh(), *b = fresh();
	const struct rck_topology_neighbour heard = { .size = sizeof(heard), .host = "node09", .nic = "eth0",
						      .system_name = "mgmt-sw", .port_id = "ge-0/0/9" };
	struct rck_report *r = NULL;
	char err[256] = "", *buf = NULL;
	size_t len = 0;
	FILE *m;

	(void)state;
	assert_int_equal(rck_topology_load_json(t, fixture("rails.json"), err, sizeof(err)), 0);
	assert_int_equal(rck_topology_load_slurm(t, fixture("slurm-rails.conf"), err, sizeof(err)), 0);
	/* A switch only LLDP names stays so. */
	assert_int_equal(rck_topology_add_neighbours(t, "lldp", &heard, 1), 0);
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	assert_int_equal(rck_topology_write(t, NULL, m, RCK_FORMAT_JSON), 0);
	assert_int_equal(fclose(m), 0);
	assert_int_equal(rck_topology_add_json(b, buf, len, "written", err, sizeof(err)), 0);
	assert_int_equal(rck_topology_switch_count(b), rck_topology_switch_count(t));
	assert_int_equal(rck_topology_port_count(b), rck_topology_port_count(t));
	assert_int_equal(rck_topology_cable_count(b), rck_topology_cable_count(t));
	assert_int_equal(rck_topology_uplink_count(b), rck_topology_uplink_count(t));
	assert_int_equal(rck_topology_conflict_count(b), 0);
	assert_int_equal(rck_topology_lint(b, &r), 0);
	assert_int_equal(rck_report_finding_count(r), 1);
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_NIC_NO_SWITCH), 1);
	rck_report_free(r);
	free(buf);
	rck_topology_free(t);
	rck_topology_free(b);
}

/* An LLDP frame as a switch sends it: chassis (MAC), port (ifName), TTL,
 * port description, system name. */
static size_t lldp_frame(uint8_t *f, const char *port, const char *sysname)
{
	static const uint8_t hdr[14] = { 0x01, 0x80, 0xc2, 0, 0, 0x0e, 2, 0, 0, 0, 0x0b, 0x00, 0x88, 0xcc };
	size_t o = sizeof(hdr);

	memcpy(f, hdr, o);
#define TLV(type, len) do { f[o++] = (uint8_t)((type) << 1 | ((len) >> 8)); f[o++] = (uint8_t)(len); } while (0)
	TLV(1, 7);
	f[o++] = 4;
	memcpy(f + o, (uint8_t[]){ 0x02, 0, 0, 0, 0x0b, 0x00 }, 6);
	o += 6;
	TLV(2, 1 + strlen(port));
	f[o++] = 5;
	memcpy(f + o, port, strlen(port));
	o += strlen(port);
	TLV(3, 2);
	f[o++] = 0;
	f[o++] = 120;
	TLV(4, strlen("to host"));
	memcpy(f + o, "to host", 7);
	o += 7;
	TLV(5, strlen(sysname));
	memcpy(f + o, sysname, strlen(sysname));
	o += strlen(sysname);
	TLV(0, 0);
#undef TLV
	return o;
}

static void neighbours(void **state)
{
	struct rck_topology *t = fresh();
	struct rck_report *r = NULL;
	struct rck_topology_cable c;
	struct rck_lldp *l;
	uint8_t frame[256];
	char err[256] = "";
	const struct rck_topology_neighbour recs[] = {
		/* chassis known from the file: its switch, whatever the name says */
		{ .size = sizeof(recs[0]), .host = "node01", .nic = "ens1np0", .chassis_id = "02:00:00:00:0a:00",
		  .port_id = "swp1", .port_id_subtype = 5, .system_name = "leaf-r0-a.example" },
		/* a MAC port ID: named by its description */
		{ .size = sizeof(recs[0]), .host = "node09", .nic = "mlx5_0/1", .chassis_id = "02:00:00:00:0c:00",
		  .port_id = "02:00:00:00:0c:05", .port_id_subtype = 3, .system_name = "leaf-r0-c",
		  .port_description = "Ethernet5" },
		/* nothing heard */
		{ .size = sizeof(recs[0]), .host = "node09", .nic = "mlx5_1/1" },
	};

	(void)state;
	assert_int_equal(rck_topology_load_json(t, fixture("rails.json"), err, sizeof(err)), 0);
	assert_int_equal(rck_topology_add_neighbours(t, "lldp", recs, 3), 0);
	/* Found by netdev, same switch and port as the file: no conflict. */
	assert_int_equal(rck_topology_conflict_count(t), 0);
	c = cable(t, "node09", "mlx5_0/1", NULL);
	assert_string_equal(rck_topology_switch_name(t, (unsigned int)c.sw), "leaf-r0-c");
	assert_string_equal(port_name(t, c.port), "Ethernet5");
	assert_int_equal(cable(t, "node09", "mlx5_1/1", NULL).sw, -1);
	/* A decoded frame: chassis 02:00:00:00:0b:00 is leaf-r0-b. */
	assert_int_equal(rck_lldp_decode(frame, lldp_frame(frame, "swp4", "r0b"), &l), 0);
	{
		const struct rck_topology_lldp fr[] = {
			{ .size = sizeof(fr[0]), .host = "node08", .nic = "mlx5_0/1", .frame = l },
			{ .size = sizeof(fr[0]), .host = "node10", .nic = "mlx5_0/1", .frame = NULL },
		};
		struct rck_topology_lldp small = fr[0];

		small.size = 4;
		assert_int_equal(rck_topology_add_lldp(t, "frame", &small, 1), -EINVAL);
		assert_int_equal(rck_topology_add_lldp(t, "frame", fr, 2), 0);
	}
	rck_lldp_free(l);
	c = cable(t, "node08", "mlx5_0/1", NULL);
	assert_string_equal(rck_topology_switch_name(t, (unsigned int)c.sw), "leaf-r0-b");
	assert_string_equal(port_name(t, c.port), "swp4");
	assert_non_null(strstr(c.source, "/rails.json"));
	assert_int_equal(rck_topology_conflict_count(t), 0);
	/* The lint: node09's NIC on a switch only LLDP names, its other NIC
	 * and node10's on none. */
	assert_int_equal(rck_topology_lint(t, &r), 0);
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_NIC_NO_SWITCH), 3);
	rck_report_free(r);
	/* Bad records: refused whole. */
	{
		struct rck_topology_neighbour bad = recs[0];

		bad.nic = NULL;
		assert_int_equal(rck_topology_add_neighbours(t, "lldp", &bad, 1), -EINVAL);
		bad = recs[0];
		bad.size = 8;
		assert_int_equal(rck_topology_add_neighbours(t, "lldp", &bad, 1), -EINVAL);
	}
	rck_topology_free(t);
}

static void conflicts(void **state)
{
	static const char other[] =
		"{\"schema\":\"rocecheck.topology/1\",\"switches\":["
		"{\"name\":\"leaf-r0-a\",\"chassis_id\":\"02:00:00:00:ff:ff\",\"tier\":\"spine\",\"rail\":1,"
		" \"ports\":[{\"name\":\"swp1\",\"speed_gbps\":200}],"
		" \"uplinks\":[{\"port\":\"swp40\",\"switch\":\"spine1\",\"switch_port\":\"swp1\"}]}],"
		"\"hosts\":[{\"name\":\"node02\",\"nics\":[{\"nic\":\"mlx5_0/1\",\"switch\":\"leaf-r0-b\",\"port\":\"swp2\",\"rail\":3}]},"
		"{\"name\":\"node42\",\"nics\":[{\"nic\":\"mlx5_0/1\",\"switch\":\"leaf-r0-a\",\"port\":\"swp3\"}]}]}";
	static const char slurm[] = "SwitchName=leaf-r1-b Nodes=node01\n";
	struct rck_topology *t = fresh();
	struct rck_report *r = NULL;
	char err[256] = "";
	const struct rck_topology_neighbour nb = {
		.size = sizeof(nb), .host = "node04", .nic = "mlx5_1/1", .chassis_id = "02:00:00:00:0b:01",
		.port_id = "swp7", .port_id_subtype = 5, .system_name = "leaf-r1-b" };

	(void)state;
	assert_int_equal(rck_topology_load_json(t, fixture("rails.json"), err, sizeof(err)), 0);
	assert_int_equal(rck_topology_add_json(t, other, strlen(other), "other.json", err, sizeof(err)), 0);
	has_conflict(t, "switch leaf-r0-a: chassis ID 02:00:00:00:0a:00 vs 02:00:00:00:ff:ff", "rails.json", "other.json");
	has_conflict(t, "switch leaf-r0-a: tier leaf vs spine", "rails.json", "other.json");
	has_conflict(t, "switch leaf-r0-a: rail 0 vs 1", "rails.json", "other.json");
	has_conflict(t, "port swp1: speed 400 vs 200", "rails.json", "other.json");
	has_conflict(t, "uplink leaf-r0-a port swp33 to spine1 port swp1 vs leaf-r0-a port swp40", "rails.json", "other.json");
	has_conflict(t, "node02 mlx5_0/1: cabled to leaf-r0-a port swp2 vs leaf-r0-b port swp2", "rails.json", "other.json");
	has_conflict(t, "leaf-r0-a port swp3: node03 mlx5_0/1 vs node42 mlx5_0/1", "rails.json", "other.json");
	/* The first source is kept. */
	assert_string_equal(rck_topology_switch_chassis(t, sw(t, "leaf-r0-a")), "02:00:00:00:0a:00");
	assert_int_equal(cable(t, "node02", "mlx5_0/1", NULL).sw, (int)sw(t, "leaf-r0-a"));
	/* Slurm puts node01 under a leaf none of its NICs reaches. */
	assert_int_equal(rck_topology_add_slurm(t, slurm, strlen(slurm), "topology.conf", err, sizeof(err)), 0);
	has_conflict(t, "host node01: under switch leaf-r1-b vs no NIC on it", "topology.conf", "rails.json");
	/* LLDP sees a NIC on another port than the file says. */
	assert_int_equal(rck_topology_add_neighbours(t, "lldp:node04", &nb, 1), 0);
	has_conflict(t, "node04 mlx5_1/1: cabled to leaf-r1-a port swp4 vs leaf-r1-b port swp7", "rails.json", "lldp:node04");
	assert_int_equal(rck_topology_lint(t, &r), 0);
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_TOPOLOGY_CONFLICT), rck_topology_conflict_count(t));
	assert_int_equal(rck_topology_conflict_count(t), 9);
	rck_report_free(r);
	rck_topology_free(t);
}

/* lldpd absent: a clear error, bounded. */
static void lldpd_absent(void **state)
{
	struct rck_topology *t = fresh();
	char err[256] = "";
	int rc;

	(void)state;
	rc = rck_topology_add_lldpd(t, NULL, "me", "/nonexistent/lldpd.socket", 500, err, sizeof(err));
	assert_true(rc == -ENOENT || rc == -ENOTSUP);
	assert_non_null(strstr(err, "lldpd"));
	assert_int_equal(rck_topology_add_lldpd(t, NULL, NULL, NULL, 500, err, sizeof(err)), -EINVAL);
	rck_topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slurm_fixture),
		cmocka_unit_test(slurm_syntax),
		cmocka_unit_test(slurm_errors),
		cmocka_unit_test(json_fixture),
		cmocka_unit_test(json_errors),
		cmocka_unit_test(json_roundtrip),
		cmocka_unit_test(neighbours),
		cmocka_unit_test(conflicts),
		cmocka_unit_test(lldpd_absent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
