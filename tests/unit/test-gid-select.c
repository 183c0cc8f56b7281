/* GID auto-selection on recorded sysfs trees: the RoCE v2 GID of the
 * route's source address, the fallbacks, and each refusal's message. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rocecheck/rocecheck.h>

#include "fixture.h"

#include "../../probes/gid_select.h"

static struct sockaddr_storage addr(const char *a)
{
	struct sockaddr_storage sa = { 0 };

	if (strchr(a, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sa;

		s6->sin6_family = AF_INET6;
		assert_int_equal(inet_pton(AF_INET6, a, &s6->sin6_addr), 1);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&sa;

		s4->sin_family = AF_INET;
		assert_int_equal(inet_pton(AF_INET, a, &s4->sin_addr), 1);
	}
	return sa;
}

static void test_by_address(void **state)
{
	struct rck_inventory *inv = fixture_inventory("mlx5");
	struct sockaddr_storage src = addr("10.10.1.11");
	struct gsel g;
	char err[256];

	(void)state;
	assert_int_equal(gsel_pick(inv, NULL, 0, -1, &src, &g, err, sizeof(err)), 0);
	assert_string_equal(g.device, "mlx5_0");
	assert_int_equal(g.port, 1);
	/* Index 2 holds the same address as RoCE v1: v2 it must be. */
	assert_int_equal(g.gid_index, 3);
	assert_int_equal(g.gid[15], 11);
	assert_non_null(strstr(g.why, "RoCE v2 GID of 10.10.1.11 (ens1f0np0)"));

	src = addr("fe80::e42:a1ff:fe12:3456");
	assert_int_equal(gsel_pick(inv, NULL, 0, -1, &src, &g, err, sizeof(err)), 0);
	assert_int_equal(g.gid_index, 1);
	rck_inventory_free(inv);

	inv = fixture_inventory("rxe");
	src = addr("10.77.0.1");
	assert_int_equal(gsel_pick(inv, "rxe0", 1, -1, &src, &g, err, sizeof(err)), 0);
	assert_int_equal(g.gid_index, 3);
	rck_inventory_free(inv);
}

static void test_fallbacks_and_refusals(void **state)
{
	struct rck_inventory *inv = fixture_inventory("mlx5");
	struct sockaddr_storage src = addr("192.168.7.7");
	struct gsel g;
	char err[256];

	(void)state;
	/* No GID holds the address: with a named device, its first RoCE v2 IPv4 GID. */
	assert_int_equal(gsel_pick(inv, "mlx5_0", 0, -1, &src, &g, err, sizeof(err)), 0);
	assert_int_equal(g.gid_index, 3);
	assert_non_null(strstr(g.why, "no GID holds 192.168.7.7"));
	/* Without a device there is no guessing. */
	assert_int_equal(gsel_pick(inv, NULL, 0, -1, &src, &g, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no RoCE v2 GID holds 192.168.7.7"));
	assert_int_equal(gsel_pick(inv, NULL, 0, -1, NULL, &g, err, sizeof(err)), -ENOENT);
	/* An explicit index: on the only device, or refused when absent. */
	assert_int_equal(gsel_pick(inv, NULL, 0, 2, &src, &g, err, sizeof(err)), 0);
	assert_string_equal(g.device, "mlx5_0");
	assert_int_equal(g.gid_index, 2);
	assert_int_equal(gsel_pick(inv, "mlx5_0", 1, 9, &src, &g, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "mlx5_0/1 has no GID at index 9");
	assert_int_equal(gsel_pick(inv, "mlx5_0", 0, 9, &src, &g, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "mlx5_0 has no GID at index 9");
	assert_int_equal(gsel_pick(inv, "mlx5_7", 0, -1, &src, &g, err, sizeof(err)), -ENODEV);
	assert_string_equal(err, "no RDMA device 'mlx5_7'");
	assert_int_equal(gsel_pick(inv, "mlx5_0", 2, -1, &src, &g, err, sizeof(err)), -ENOENT);
	rck_inventory_free(inv);

	inv = fixture_inventory("empty");
	assert_int_equal(gsel_pick(inv, NULL, 0, -1, &src, &g, err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "no RDMA device on this host"));
	rck_inventory_free(inv);
}

static void test_route_source(void **state)
{
	struct sockaddr_storage peer = addr("127.0.0.1"), src;
	char s[64];

	(void)state;
	assert_int_equal(gsel_route_source(&peer, &src), 0);
	assert_int_equal(src.ss_family, AF_INET);
	inet_ntop(AF_INET, &((struct sockaddr_in *)&src)->sin_addr, s, sizeof(s));
	assert_string_equal(s, "127.0.0.1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_address),
		cmocka_unit_test(test_fallbacks_and_refusals),
		cmocka_unit_test(test_route_source),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
