/* Inventory on recorded sysfs trees: every field of every fixture checked
 * through the public accessors and in the JSON document. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include <rocecheck/rocecheck.h>

#include "fixture.h"

static json_t *as_json(const struct rck_inventory *inv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_error_t err;
	json_t *j;

	assert_non_null(f);
	assert_int_equal(rck_inventory_write(inv, f, RCK_FORMAT_JSON), 0);
	fclose(f);
	j = json_loads(buf, 0, &err);
	if (!j)
		fail_msg("bad JSON at %d: %s\n%s", err.position, err.text, buf);
	free(buf);
	return j;
}

static void expect_str(json_t *obj, const char *key, const char *want)
{
	json_t *v = json_object_get(obj, key);

	if (!v)
		fail_msg("key %s missing", key);
	if (!want) {
		if (!json_is_null(v))
			fail_msg("key %s: want null", key);
		return;
	}
	if (!json_is_string(v))
		fail_msg("key %s: not a string", key);
	assert_string_equal(json_string_value(v), want);
}

static void expect_int(json_t *obj, const char *key, long long want)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v))
		fail_msg("key %s: not an integer", key);
	assert_int_equal(json_integer_value(v), want);
}

static void expect_real(json_t *obj, const char *key, double want)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_number(v))
		fail_msg("key %s: not a number", key);
	assert_float_equal(json_number_value(v), want, 1e-9);
}

static void expect_null(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!v || !json_is_null(v))
		fail_msg("key %s: want null", key);
}

/* The four RoCE GIDs every vendor fixture has: v1/v2 link-local, v1/v2 IPv4. */
static void expect_roce_gids(json_t *port, const char *nd, const char *ll, const char *v4gid,
			     const char *ip)
{
	json_t *gids = json_object_get(port, "gids");
	const char *types[] = { "RoCE v1", "RoCE v2", "RoCE v1", "RoCE v2" };

	assert_int_equal(json_array_size(gids), 4); /* the empty slot 4 is left out */
	for (size_t i = 0; i < 4; i++) {
		json_t *g = json_array_get(gids, i);

		expect_int(g, "index", (long long)i);
		expect_str(g, "gid", i < 2 ? ll : v4gid);
		expect_str(g, "type", types[i]);
		expect_str(g, "netdev", nd);
		expect_str(g, "ipv4", i < 2 ? NULL : ip);
	}
}

static void test_mlx5(void **state)
{
	struct rck_inventory *inv = fixture_inventory("mlx5");
	const struct rck_device *dev;
	const struct rck_port *port;
	json_t *j, *d, *pci, *p;
	double gts;
	unsigned int w, mtu;
	int numa;

	(void)state;
	assert_int_equal(rck_inventory_device_count(inv), 1);
	dev = rck_inventory_find(inv, "mlx5_0");
	assert_non_null(dev);
	assert_ptr_equal(dev, rck_inventory_device(inv, 0));
	assert_null(rck_inventory_device(inv, 1));
	assert_string_equal(rck_device_driver(dev), "mlx5_ib");
	assert_true(rck_device_numa_node(dev, &numa));
	assert_int_equal(numa, 1);
	assert_true(rck_device_pci_link(dev, &gts, &w));
	assert_float_equal(gts, 16.0, 1e-9);
	assert_int_equal(w, 8);
	assert_true(rck_device_pci_max_link(dev, &gts, &w));
	assert_int_equal(w, 16);
	port = rck_device_find_port(dev, 1);
	assert_non_null(port);
	assert_ptr_equal(rck_port_device(port), dev);
	assert_null(rck_device_find_port(dev, 2));
	assert_false(rck_port_active_mtu(port, &mtu)); /* verbs only, not from a recording */
	assert_true(rck_port_netdev_mtu(port, &mtu));
	assert_int_equal(mtu, 9000);
	assert_int_equal(rck_port_gid_count(port), 4);
	assert_int_equal(rck_gid_type(rck_port_gid(port, 3)), RCK_GID_TYPE_ROCE_V2);
	assert_int_equal(rck_gid_raw(rck_port_gid(port, 3))[15], 11);

	j = as_json(inv);
	d = json_array_get(json_object_get(j, "devices"), 0);
	expect_str(d, "name", "mlx5_0");
	expect_str(d, "driver", "mlx5_ib");
	expect_str(d, "node_guid", "0c42:a103:0012:3456");
	expect_str(d, "fw_ver", "22.36.1010");
	expect_str(d, "board_id", "MT_0000000359");
	expect_int(d, "numa_node", 1);
	pci = json_object_get(d, "pci");
	expect_str(pci, "address", "0000:3b:00.0");
	expect_real(pci, "link_speed_gts", 16.0);
	expect_int(pci, "link_width", 8);
	expect_real(pci, "max_link_speed_gts", 16.0);
	expect_int(pci, "max_link_width", 16);
	assert_true(json_is_true(json_object_get(pci, "degraded"))); /* x8 of x16 */
	p = json_array_get(json_object_get(d, "ports"), 0);
	expect_int(p, "port", 1);
	expect_str(p, "state", "ACTIVE");
	expect_str(p, "phys_state", "LinkUp");
	expect_str(p, "link_layer", "Ethernet");
	expect_real(p, "rate_gbps", 100.0);
	expect_null(p, "active_mtu");
	expect_str(p, "netdev", "ens1f0np0");
	expect_int(p, "netdev_mtu", 9000);
	expect_str(p, "netdev_operstate", "up");
	expect_roce_gids(p, "ens1f0np0", "fe80:0000:0000:0000:0e42:a1ff:fe12:3456",
			 "0000:0000:0000:0000:0000:ffff:0a0a:010b", "10.10.1.11");
	json_decref(j);
	rck_inventory_free(inv);
}

struct vendor_case {
	const char *tree, *name, *driver, *guid, *fw, *pci, *netdev, *ll, *v4gid, *ip;
	int numa; /* -1: null */
	double rate;
	long long nd_mtu;
};

static const struct vendor_case cases[] = {
	{ "bnxt", "bnxt_re0", "bnxt_re", "020a:f7ff:feaa:bb01", "225.0.132.0", "0000:81:00.0",
	  "ens2f0np0", "fe80:0000:0000:0000:020a:f7ff:feaa:bb01",
	  "0000:0000:0000:0000:0000:ffff:0a0a:0215", "10.10.2.21", 0, 200.0, 4200 },
	{ "irdma", "irdma0", "irdma", "b696:91ff:fe00:0031", "1.71", "0000:17:00.0", "ens3f0",
	  "fe80:0000:0000:0000:b696:91ff:fe00:0031", "0000:0000:0000:0000:0000:ffff:0a0a:031f",
	  "10.10.3.31", 0, 100.0, 9000 },
	{ "rxe", "rxe0", "rdma_rxe", "5054:00ff:fe77:0001", "0.0.0", NULL, "eth0",
	  "fe80:0000:0000:0000:5054:00ff:fe77:0001", "0000:0000:0000:0000:0000:ffff:0a4d:0001",
	  "10.77.0.1", -1, 100.0, 1500 },
};

static void test_vendors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct vendor_case *c = &cases[i];
		struct rck_inventory *inv = fixture_inventory(c->tree);
		json_t *j = as_json(inv), *d, *p;

		d = json_array_get(json_object_get(j, "devices"), 0);
		assert_non_null(d);
		expect_str(d, "name", c->name);
		expect_str(d, "driver", c->driver);
		expect_str(d, "node_guid", c->guid);
		expect_str(d, "fw_ver", c->fw);
		if (c->numa < 0)
			expect_null(d, "numa_node");
		else
			expect_int(d, "numa_node", c->numa);
		if (c->pci)
			expect_str(json_object_get(d, "pci"), "address", c->pci);
		else
			expect_null(d, "pci");
		p = json_array_get(json_object_get(d, "ports"), 0);
		expect_str(p, "state", "ACTIVE");
		expect_real(p, "rate_gbps", c->rate);
		expect_str(p, "netdev", c->netdev);
		expect_int(p, "netdev_mtu", c->nd_mtu);
		expect_roce_gids(p, c->netdev, c->ll, c->v4gid, c->ip);
		json_decref(j);
		rck_inventory_free(inv);
	}
}

/* Missing files, garbage, dangling links: absent fields, no crash, the
 * dangling device skipped. */
static void test_broken(void **state)
{
	struct rck_inventory *inv = fixture_inventory("broken");
	json_t *j, *d, *pci, *p1, *p2, *gids;

	(void)state;
	assert_int_equal(rck_inventory_device_count(inv), 1);
	assert_null(rck_inventory_find(inv, "mlx5_gone"));
	j = as_json(inv);
	d = json_array_get(json_object_get(j, "devices"), 0);
	expect_str(d, "name", "mlx5_9");
	expect_null(d, "driver");   /* the auxiliary device has no driver bound */
	expect_null(d, "node_guid"); /* empty file */
	expect_null(d, "fw_ver");    /* control characters */
	expect_null(d, "board_id");  /* missing */
	pci = json_object_get(d, "pci");
	expect_str(pci, "address", "0000:05:00.0");
	expect_null(pci, "link_speed_gts");
	expect_null(pci, "link_width");
	expect_null(pci, "max_link_speed_gts");
	expect_null(pci, "max_link_width");
	assert_true(json_is_false(json_object_get(pci, "degraded"))); /* unknown: not degraded */
	p1 = json_array_get(json_object_get(d, "ports"), 0);
	expect_str(p1, "state", "DOWN");
	expect_str(p1, "phys_state", "Disabled");
	expect_null(p1, "rate_gbps");
	expect_null(p1, "netdev_mtu"); /* "notanumber" */
	expect_null(p1, "netdev_operstate");
	gids = json_object_get(p1, "gids");
	assert_int_equal(json_array_size(gids), 2); /* bad and empty entries dropped */
	expect_str(json_array_get(gids, 0), "ipv4", "10.10.9.1");
	expect_null(json_array_get(gids, 1), "type");
	expect_str(json_array_get(gids, 1), "netdev", "ghost0");
	p2 = json_array_get(json_object_get(d, "ports"), 1);
	expect_int(p2, "port", 2);
	expect_null(p2, "state");
	expect_str(p2, "link_layer", "InfiniBand");
	expect_null(p2, "netdev");
	assert_int_equal(json_array_size(json_object_get(p2, "gids")), 0);
	json_decref(j);
	rck_inventory_free(inv);
}

static void test_empty(void **state)
{
	struct rck_inventory *inv = fixture_inventory("empty");
	json_t *j;

	(void)state;
	assert_int_equal(rck_inventory_device_count(inv), 0);
	j = as_json(inv);
	assert_int_equal(json_array_size(json_object_get(j, "devices")), 0);
	json_decref(j);
	rck_inventory_free(inv);
}

static void test_bad_root(void **state)
{
	struct rck_ctx *ctx;
	struct rck_inventory *inv = NULL;

	(void)state;
	assert_int_equal(rck_ctx_new(&ctx), 0);
	assert_int_equal(rck_ctx_set_sysfs_root(ctx, ""), -EINVAL);
	assert_int_equal(rck_ctx_set_sysfs_root(ctx, "/nonexistent/rocecheck"), 0);
	/* No class directory at all is "no devices", not an error. */
	assert_int_equal(rck_inventory_new(ctx, &inv), 0);
	assert_int_equal(rck_inventory_device_count(inv), 0);
	rck_inventory_free(inv);
	rck_inventory_free(NULL);
	rck_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mlx5),
		cmocka_unit_test(test_vendors),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bad_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
