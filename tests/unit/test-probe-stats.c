/* Probe arithmetic: latency percentiles, ping-pong rounds with warm-up and
 * duration, and the worst bandwidth window from batched completions. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../probes/stats.h"

static void test_latency_summary(void **state)
{
	double v[100], out[RCK_LAT_STAT_COUNT];

	(void)state;
	/* Shuffled 1..100: the summary must not depend on the order. */
	for (int i = 0; i < 100; i++)
		v[i] = (double)((i * 37) % 100 + 1);
	assert_int_equal(pstats_latency(v, 100, out), 0);
	assert_true(out[RCK_LAT_MIN] == 1);
	assert_true(out[RCK_LAT_P50] == 50.5);
	assert_true(out[RCK_LAT_P90] == 90);
	assert_true(out[RCK_LAT_P99] == 99);
	assert_true(out[RCK_LAT_P999] == 100);
	assert_true(out[RCK_LAT_MAX] == 100);
	assert_true(out[RCK_LAT_MEAN] == 50.5);
	assert_true(fabs(out[RCK_LAT_STDEV] - sqrt((100.0 * 100 - 1) / 12)) < 1e-9);
	/* The input is left as it was. */
	assert_true(v[1] == 38);

	v[0] = 7;
	assert_int_equal(pstats_latency(v, 1, out), 0);
	for (int i = 0; i < RCK_LAT_STAT_COUNT; i++)
		assert_true(out[i] == (i == RCK_LAT_STDEV ? 0 : 7));
	v[1] = 9;
	v[2] = 8;
	assert_int_equal(pstats_latency(v, 3, out), 0);
	assert_true(out[RCK_LAT_P50] == 8 && out[RCK_LAT_P90] == 9);
	assert_int_equal(pstats_latency(v, 0, out), -ENOENT);
}

static void test_samples_grow_and_limit(void **state)
{
	struct psamples s;

	(void)state;
	assert_int_equal(psamples_init(&s, 0, 5000), 0);
	for (int i = 0; i < 6000; i++)
		assert_int_equal(psamples_add(&s, i), 0);
	assert_int_equal(s.n, 5000);
	assert_true(s.v[4999] == 4999);
	psamples_free(&s);
	assert_int_equal(psamples_init(&s, 10, 5), 0);
	assert_int_equal(s.cap, 5);
	psamples_free(&s);
}

static void test_rounds(void **state)
{
	struct psamples s;
	struct prounds r;

	(void)state;
	assert_int_equal(psamples_init(&s, 0, 100), 0);
	prounds_init(&r, &s, 2, 3, 0);
	assert_true(prounds_total(&r) == 5);
	for (uint64_t i = 0; i < 5; i++)
		assert_int_equal(prounds_add(&r, i, 1000 * i, 1000 * i + 400), 0);
	assert_int_equal(s.n, 3);
	assert_true(s.v[0] == 0.2); /* half of 400 ns, in µs */
	assert_true(r.measured == 3 && r.start == 2000 && r.end == 4400);

	s.n = 0;
	prounds_init(&r, &s, 1, 0, 1);
	assert_true(prounds_total(&r) == UINT64_MAX);
	assert_int_equal(prounds_add(&r, 0, 0, 500000), 0);
	assert_int_equal(prounds_add(&r, 1, 500000, 900000), 0);
	assert_int_equal(prounds_add(&r, 2, 900000, 1400000), 0);
	assert_int_equal(prounds_add(&r, 3, 1400000, 1500001), 1);
	assert_int_equal(s.n, 3);
	psamples_free(&s);
}

static void test_windows(void **state)
{
	struct pwin w;
	double g;

	(void)state;
	pwin_init(&w, 1000, 100);
	assert_false(pwin_worst_gbps(&w, &g));
	pwin_add(&w, 1050, 500);     /* 500 bytes over [1000, 1050] */
	assert_false(pwin_worst_gbps(&w, &g));
	pwin_add(&w, 1300, 500);     /* 2 bytes/ns over [1050, 1300] */
	assert_true(pwin_worst_gbps(&w, &g));
	/* Windows: 600, 200, 200 bytes per 100 ns = 48, 16, 16 Gb/s. */
	assert_true(fabs(g - 16.0) < 1e-9);
	pwin_add(&w, 1320, 1000);    /* a burst: the open window only */
	assert_true(fabs(g - 16.0) < 1e-9);
	/* A stall of 1 µs then one batch: the stall's windows are the worst. */
	pwin_add(&w, 2400, 1080);
	assert_true(pwin_worst_gbps(&w, &g));
	assert_true(fabs(g - 8.0) < 1e-9);
	assert_true(pstats_gbps(125000000, 1000000000) == 1.0);
	assert_true(pstats_gbps(1, 0) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latency_summary),
		cmocka_unit_test(test_samples_grow_and_limit),
		cmocka_unit_test(test_rounds),
		cmocka_unit_test(test_windows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
