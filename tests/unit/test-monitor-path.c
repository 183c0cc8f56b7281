/* The monitor's RDMA path without hardware: the hello's encoding both ways
 * and its refusals, and the transport chosen per peer on recorded device trees. */
#include <arpa/inet.h>
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

#include "fixture.h"

#include "../../monitor/monitor_int.h"
#include "../../probes/gid_select.h"

static void test_hello_round_trip(void **state)
{
	struct md_hello h = { .type = MD_HELLO_ACK, .id = 4095, .qpn = 0x123456, .qkey = MU_QKEY }, back;
	uint8_t buf[MD_HELLO_LEN];

	(void)state;
	h.addr[10] = h.addr[11] = 0xff;
	h.addr[12] = 10, h.addr[15] = 2;
	memcpy(h.gid, h.addr, 16);
	md_hello_put(&h, buf);
	/* the wire: magic, type, id, qpn, qkey big-endian, 4 zero bytes, address, GID */
	assert_int_equal(buf[0], 0x52);
	assert_int_equal(buf[7], MD_HELLO_ACK);
	assert_int_equal(buf[13], 0x12);
	assert_int_equal(buf[35], 0xff);
	assert_int_equal(md_hello_parse(buf, sizeof(buf), &back), 0);
	assert_memory_equal(&h, &back, sizeof(h));

	h.type = MD_HELLO;
	h.qpn = h.qkey = 0;
	md_hello_put(&h, buf);
	assert_int_equal(md_hello_parse(buf, sizeof(buf), &back), 0);
	assert_int_equal(back.type, MD_HELLO);
	assert_int_equal(back.id, 4095);
}

static void test_hello_refused(void **state)
{
	struct md_hello h = { .type = MD_HELLO_ACK, .qpn = 7 }, back;
	struct md_msg ping = { 0 };
	uint8_t buf[MD_HELLO_LEN], bad[MD_HELLO_LEN];

	(void)state;
	md_hello_put(&h, buf);
	assert_int_equal(md_hello_parse(buf, sizeof(buf) - 1, &back), -EINVAL);
	assert_int_equal(md_hello_parse(buf, sizeof(ping), &back), -EINVAL);
	memcpy(bad, buf, sizeof(bad));
	bad[0] ^= 1; /* not our magic */
	assert_int_equal(md_hello_parse(bad, sizeof(bad), &back), -EINVAL);
	memcpy(bad, buf, sizeof(bad));
	bad[7] = 9; /* no such type */
	assert_int_equal(md_hello_parse(bad, sizeof(bad), &back), -EINVAL);
	memcpy(bad, buf, sizeof(bad));
	bad[12] = 1; /* a QPN over 24 bits */
	assert_int_equal(md_hello_parse(bad, sizeof(bad), &back), -EINVAL);
	memcpy(bad, buf, sizeof(bad));
	bad[23] = 1; /* the reserved word */
	assert_int_equal(md_hello_parse(bad, sizeof(bad), &back), -EINVAL);
	h.type = MD_HELLO; /* a question carrying a QPN */
	md_hello_put(&h, bad);
	assert_int_equal(md_hello_parse(bad, sizeof(bad), &back), -EINVAL);
	/* a probe datagram is no hello, and a hello no probe */
	assert_int_equal(md_msg_parse(buf, sizeof(buf), &ping), -EINVAL);
}

static struct sockaddr_storage v4(const char *a)
{
	struct sockaddr_storage sa = { 0 };

	sa.ss_family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, a, &((struct sockaddr_in *)&sa)->sin_addr), 1);
	return sa;
}

static void test_select(void **state)
{
	struct rck_inventory *inv = fixture_inventory("mlx5"), *none = fixture_inventory("empty");
	struct sockaddr_storage on = v4("10.10.1.11"), off = v4("192.168.7.7");
	struct gsel g;
	char why[200];

	(void)state;
	/* auto: the device holding the route's source, its RoCE v2 GID */
	assert_int_equal(md_select(inv, RCK_MONITOR_TRANSPORT_AUTO, &on, &g, why, sizeof(why)), MD_PATH_RDMA);
	assert_string_equal(g.device, "mlx5_0");
	assert_int_equal(g.gid_index, 3);
	assert_non_null(strstr(why, "mlx5_0 port 1 GID 3"));
	/* auto: no device for that address, no device at all, no route: UDP, said why */
	assert_int_equal(md_select(inv, RCK_MONITOR_TRANSPORT_AUTO, &off, &g, why, sizeof(why)), MD_PATH_UDP);
	assert_non_null(strstr(why, "no RoCE v2 GID holds 192.168.7.7"));
	assert_int_equal(md_select(none, RCK_MONITOR_TRANSPORT_AUTO, &on, &g, why, sizeof(why)), MD_PATH_UDP);
	assert_int_equal(md_select(NULL, RCK_MONITOR_TRANSPORT_AUTO, &on, &g, why, sizeof(why)), MD_PATH_UDP);
	assert_int_equal(md_select(inv, RCK_MONITOR_TRANSPORT_AUTO, NULL, &g, why, sizeof(why)), MD_PATH_UDP);
	assert_non_null(strstr(why, "no route"));
	/* forced: UDP even with a device; RDMA refused without one */
	assert_int_equal(md_select(inv, RCK_MONITOR_TRANSPORT_UDP, &on, &g, why, sizeof(why)), MD_PATH_UDP);
	assert_int_equal(md_select(inv, RCK_MONITOR_TRANSPORT_RDMA, &on, &g, why, sizeof(why)), MD_PATH_RDMA);
	assert_int_equal(md_select(inv, RCK_MONITOR_TRANSPORT_RDMA, &off, &g, why, sizeof(why)), -ENODEV);
	assert_non_null(strstr(why, "192.168.7.7"));
	rck_inventory_free(inv);
	rck_inventory_free(none);
}

static void test_config_transport(void **state)
{
	struct rck_monitor_config *c = NULL;

	(void)state;
	assert_int_equal(rck_monitor_config_new(&c), 0);
	assert_int_equal(c->transport, RCK_MONITOR_TRANSPORT_AUTO);
	assert_int_equal(rck_monitor_config_set_transport(c, RCK_MONITOR_TRANSPORT_RDMA), 0);
	assert_int_equal(c->transport, RCK_MONITOR_TRANSPORT_RDMA);
	assert_int_equal(rck_monitor_config_set_transport(c, (enum rck_monitor_transport)7), -EINVAL);
	assert_int_equal(rck_monitor_config_set_transport(NULL, RCK_MONITOR_TRANSPORT_UDP), -EINVAL);
	rck_monitor_config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hello_round_trip),
		cmocka_unit_test(test_hello_refused),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_config_transport),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
