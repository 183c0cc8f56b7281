/* Unit-test helper: the inventory of a recorded sysfs tree under
 * $ROCECHECK_FIXTURES/sysfs, or PCIe paths under pci/ (include after <cmocka.h>). */
#ifndef RCK_TEST_FIXTURE_H
#define RCK_TEST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include <rocecheck/rocecheck.h>

/* A context reading $ROCECHECK_FIXTURES/@dir/@tree@sub. */
static inline struct rck_ctx *fixture_ctx(const char *dir, const char *tree, const char *sub)
{
	const char *fix = getenv("ROCECHECK_FIXTURES");
	struct rck_ctx *ctx;
	char root[4096];

	assert_non_null(fix);
	snprintf(root, sizeof(root), "%s/%s/%s%s", fix, dir, tree, sub);
	assert_int_equal(rck_ctx_new(&ctx), 0);
	assert_int_equal(rck_ctx_set_sysfs_root(ctx, root), 0);
	return ctx;
}

static inline struct rck_inventory *fixture_inventory(const char *tree)
{
	struct rck_ctx *ctx = fixture_ctx("sysfs", tree, "");
	struct rck_inventory *inv = NULL;

	assert_int_equal(rck_inventory_new(ctx, &inv), 0);
	rck_ctx_free(ctx); /* the inventory does not keep the context */
	return inv;
}

/* The PCIe paths of $ROCECHECK_FIXTURES/pci/@tree/sys. */
static inline struct rck_pcie *fixture_pcie(const char *tree)
{
	struct rck_ctx *ctx = fixture_ctx("pci", tree, "/sys");
	struct rck_pcie *p = NULL;

	assert_int_equal(rck_pcie_new(ctx, &p), 0);
	rck_ctx_free(ctx);
	return p;
}

#endif
