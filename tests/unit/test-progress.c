/* The tools' progress line: erased to its end, counts and ETA as the run
 * gives them, a newline only at the end. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "progress.h"

static void test_format(void **state)
{
	struct progress_state s = {.who = "preflight", .phase = "sweep", .done = 12, .total = 24,
				   .hosts_down = 1, .elapsed_s = 3.14, .eta_s = 3.0};
	char buf[256];

	(void)state;
	assert_string_equal(progress_format(buf, sizeof(buf), &s),
			    "preflight: sweep, 12/24 probes, 3.1 s elapsed, ETA 3.0 s, 1 host down");
	s.phase = NULL;
	s.who = "mesh";
	s.eta_s = NAN;
	s.hosts_down = 2;
	assert_string_equal(progress_format(buf, sizeof(buf), &s), "mesh: 12/24 probes, 3.1 s elapsed, 2 hosts down");
	/* Finished: no ETA left to tell. */
	s.done = 24;
	s.eta_s = 0.5;
	s.hosts_down = 0;
	assert_string_equal(progress_format(buf, sizeof(buf), &s), "mesh: 24/24 probes, 3.1 s elapsed");
	assert_string_equal(progress_format(buf, 8, &s), "mesh: 2");
}

static void test_show(void **state)
{
	struct progress_state s = {.who = "mesh", .done = 1, .total = 2, .elapsed_s = 1, .eta_s = 1};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	progress_show(f, &s, false);
	s.done = 2;
	progress_show(f, &s, true);
	fclose(f);
	assert_string_equal(buf, "\rmesh: 1/2 probes, 1.0 s elapsed, ETA 1.0 s\033[K"
				 "\rmesh: 2/2 probes, 1.0 s elapsed\033[K\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_show),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
