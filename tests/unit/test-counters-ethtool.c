/* The live ethtool readers: checks on lo, missing interfaces and pause
 * replies, and `--dump IF` printing what they read, for ethtool-veth.sh. */
#include <errno.h>
#include <inttypes.h>
#include <linux/ethtool_netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "counters.h"
#include "internal.h"

static void test_lo(void **state)
{
	struct rck_ctx *ctx;
	struct ctr_port p;

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(rck_ctx_new(&ctx), 0);
	/* lo has no driver statistics and no pause settings: nothing, no error. */
	assert_int_equal(ctr_ethtool_read(ctx, "lo", &p), 0);
	assert_int_equal(ctr_pause_read(ctx, "lo", &p), 0);
	assert_int_equal(p.n_raw, 0);
	assert_int_equal(ctr_ethtool_read(ctx, "rck-none0", &p), -ENODEV);
	assert_int_equal(ctr_ethtool_read(ctx, "a-name-longer-than-ifnamsiz", &p), -ENODEV);
	assert_int_equal(ctr_pause_read(ctx, "rck-none0", &p), 0);
	assert_int_equal(p.n_raw, 0);
	ctr_port_clear(&p);
	rck_ctx_free(ctx);
}

/* A pause reply as the kernel builds it: header nest, then the stats nest
 * with a pad attribute and the u64 counters the driver filled in. */
static struct nl_msg *pause_reply(bool tx, bool rx)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nlattr *n;

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, 1, 1, 30, 0, 0, ETHTOOL_MSG_PAUSE_GET_REPLY, 1));
	n = nla_nest_start(msg, ETHTOOL_A_PAUSE_HEADER);
	assert_int_equal(nla_put_string(msg, ETHTOOL_A_HEADER_DEV_NAME, "eth9"), 0);
	nla_nest_end(msg, n);
	assert_int_equal(nla_put_u8(msg, ETHTOOL_A_PAUSE_AUTONEG, 0), 0);
	n = nla_nest_start(msg, ETHTOOL_A_PAUSE_STATS);
	assert_int_equal(nla_put(msg, ETHTOOL_A_PAUSE_STAT_PAD, 0, NULL), 0);
	if (tx)
		assert_int_equal(nla_put_u64(msg, ETHTOOL_A_PAUSE_STAT_TX_FRAMES, 9), 0);
	if (rx)
		assert_int_equal(nla_put_u64(msg, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 5000000000ULL), 0);
	nla_nest_end(msg, n);
	return msg;
}

static void test_pause_parse(void **state)
{
	struct nl_msg *msg;
	struct ctr_port p;

	(void)state;
	memset(&p, 0, sizeof(p));
	msg = pause_reply(true, true);
	assert_int_equal(ctr_pause_parse(msg, &p), 0);
	nlmsg_free(msg);
	ctr_raw_finish(&p);
	assert_int_equal(p.n_raw, 2);
	assert_int_equal(ctr_raw_find(&p, "pause/tx_pause_frames")->val, 9);
	assert_int_equal(ctr_raw_find(&p, "pause/rx_pause_frames")->val, 5000000000ULL);
	ctr_port_clear(&p);

	/* A statistic the driver does not keep is left out: absent, not 0. */
	memset(&p, 0, sizeof(p));
	msg = pause_reply(false, true);
	assert_int_equal(ctr_pause_parse(msg, &p), 0);
	nlmsg_free(msg);
	assert_int_equal(p.n_raw, 1);
	assert_string_equal(p.raw[0].key, "pause/rx_pause_frames");
	ctr_port_clear(&p);

	/* A reply without the stats nest (old kernel, flag ignored). */
	memset(&p, 0, sizeof(p));
	msg = nlmsg_alloc();
	assert_non_null(genlmsg_put(msg, 1, 1, 30, 0, 0, ETHTOOL_MSG_PAUSE_GET_REPLY, 1));
	assert_int_equal(ctr_pause_parse(msg, &p), 0);
	nlmsg_free(msg);
	assert_int_equal(p.n_raw, 0);
	ctr_port_clear(&p);
}

/* "ethtool/NAME: VALUE" and "pause/NAME: VALUE" lines, sorted by key. */
static int dump(const char *ifname)
{
	struct rck_ctx *ctx;
	struct ctr_port p;
	int rc;

	memset(&p, 0, sizeof(p));
	if (rck_ctx_new(&ctx))
		return 1;
	rck_ctx_set_timeout_ms(ctx, 2000);
	rc = ctr_ethtool_read(ctx, ifname, &p);
	if (!rc)
		rc = ctr_pause_read(ctx, ifname, &p);
	ctr_raw_finish(&p);
	for (size_t i = 0; !rc && i < p.n_raw; i++)
		printf("%s: %" PRIu64 "\n", p.raw[i].key, p.raw[i].val);
	if (rc)
		fprintf(stderr, "%s: %s\n", ifname, strerror(-rc));
	ctr_port_clear(&p);
	rck_ctx_free(ctx);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lo),
		cmocka_unit_test(test_pause_parse),
	};

	if (argc == 3 && !strcmp(argv[1], "--dump"))
		return dump(argv[2]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
