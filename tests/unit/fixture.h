/* Unit-test helper: the inventory of a recorded sysfs tree under
 * $ROCECHECK_FIXTURES/sysfs (include after <cmocka.h>). */
#ifndef RCK_TEST_FIXTURE_H
#define RCK_TEST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include <rocecheck/rocecheck.h>

static inline struct rck_inventory *fixture_inventory(const char *tree)
{
	const char *fix = getenv("ROCECHECK_FIXTURES");
	struct rck_inventory *inv = NULL;
	struct rck_ctx *ctx;
	char root[4096];

	assert_non_null(fix);
	snprintf(root, sizeof(root), "%s/sysfs/%s", fix, tree);
	assert_int_equal(rck_ctx_new(&ctx), 0);
	assert_int_equal(rck_ctx_set_sysfs_root(ctx, root), 0);
	assert_int_equal(rck_inventory_new(ctx, &inv), 0);
	rck_ctx_free(ctx); /* the inventory does not keep the context */
	return inv;
}

#endif
