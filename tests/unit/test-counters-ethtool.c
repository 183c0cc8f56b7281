/* The live ethtool readers: unit checks on lo and missing interfaces, and
 * `--dump IF` printing what they read, for ethtool-veth.sh to compare. */
#include <errno.h>
#include <inttypes.h>
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
	};

	if (argc == 3 && !strcmp(argv[1], "--dump"))
		return dump(argv[2]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
