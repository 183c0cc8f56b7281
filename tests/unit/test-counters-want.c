/* The monitor's counter poll reads only what its rules use: on every
 * recorded vendor tree the values it keeps equal a full snapshot's. */
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

#include "../../lib/counters.h"
#include "../../monitor/monitor_int.h"

/* Both snapshots of @tree; the kept one's neutral values for the wanted
 * ids and raw keys equal the full one's; returns how many raw values each
 * kept over all ports. */
static void compare(const char *tree, size_t *n_full, size_t *n_kept)
{
	struct rck_ctx *ctx = fixture_ctx("sysfs", tree, "");
	struct rck_inventory *inv = NULL;
	struct rck_snapshot *full = NULL, *kept = NULL;

	assert_int_equal(rck_inventory_new(ctx, &inv), 0);
	assert_int_equal(ctr_snapshot_cached(ctx, NULL, inv, NULL, &full), 0);
	assert_int_equal(ctr_snapshot_cached(ctx, NULL, inv, &ms_want, &kept), 0);
	assert_int_equal(rck_snapshot_port_count(full), rck_snapshot_port_count(kept));
	*n_full = *n_kept = 0;
	for (unsigned int i = 0; i < rck_snapshot_port_count(full); i++) {
		for (unsigned int c = 0; c < RCK_CTR_COUNT; c++) {
			uint64_t a = 0, b = 0;
			int ra = rck_snapshot_get(full, i, (enum rck_counter)c, &a);
			int rb = rck_snapshot_get(kept, i, (enum rck_counter)c, &b);

			if (!ms_want.ids[c])
				continue;
			if (ra != rb || a != b)
				fail_msg("%s port %u %s: full %d/%llu, kept %d/%llu", tree, i,
					 rck_counter_name((enum rck_counter)c, NULL), ra, (unsigned long long)a, rb,
					 (unsigned long long)b);
		}
		for (size_t k = 0; k < ms_want.n_raw; k++) {
			uint64_t a = 0, b = 0;

			assert_int_equal(rck_snapshot_get_raw(full, i, ms_want.raw[k], &a),
					 rck_snapshot_get_raw(kept, i, ms_want.raw[k], &b));
			assert_true(a == b);
		}
		*n_full += full->ports[i].n_raw;
		*n_kept += kept->ports[i].n_raw;
	}
	rck_snapshot_free(full);
	rck_snapshot_free(kept);
	rck_inventory_free(inv);
	rck_ctx_free(ctx);
}

static void test_same_values(void **state)
{
	static const char *const trees[] = { "mlx5", "bnxt", "irdma", "rxe", "nomap", "broken", "down" };
	size_t full, kept;

	(void)state;
	for (size_t t = 0; t < sizeof(trees) / sizeof(trees[0]); t++) {
		compare(trees[t], &full, &kept);
		printf("%s: %zu raw values kept of %zu\n", trees[t], kept, full);
		assert_true(kept <= full);
	}
	/* mlx5: the IB error counters, ECN/CNP, slow restart, the pause
	 * durations and storm events; not the byte and packet counts */
	compare("mlx5", &full, &kept);
	assert_true(kept * 3 < full);
}

/* The map keys' '#' matches a priority digit only; a raw key asked for is kept. */
static void test_want_key(void **state)
{
	(void)state;
	assert_true(ctr_want_key(&ms_want, RCK_VENDOR_MLX5, "ethtool/rx_prio3_pause_duration"));
	assert_false(ctr_want_key(&ms_want, RCK_VENDOR_MLX5, "ethtool/rx_prio8_pause_duration"));
	assert_false(ctr_want_key(&ms_want, RCK_VENDOR_MLX5, "ethtool/rx_prio3_pause"));
	assert_false(ctr_want_key(&ms_want, RCK_VENDOR_MLX5, "ethtool/rx_prio33_pause_duration"));
	assert_true(ctr_want_key(&ms_want, RCK_VENDOR_MLX5, "counters/symbol_error"));
	assert_true(ctr_want_key(&ms_want, RCK_VENDOR_UNKNOWN, "netdev/tx_dropped"));
	assert_false(ctr_want_key(&ms_want, RCK_VENDOR_MLX5, "counters/port_rcv_data"));
	assert_true(ctr_want_key(&ms_want, RCK_VENDOR_UNKNOWN, "hw_counters/roce_slow_restart"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_values),
		cmocka_unit_test(test_want_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
