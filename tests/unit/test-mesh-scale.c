/* Scale of the sweep's configuration: 65,536 hosts added (duplicates
 * refused, launcher failures marked down) and planned in a few seconds. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "rocecheck/mesh.h"

#define SCALE_HOSTS 65536
/* Generous for a shared CI machine under valgrind; quadratic work took ~72 s. */
#define SCALE_LIMIT_S 20.0

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add_and_plan(void **state)
{
	struct rck_mesh_config *c;
	char name[32], err[256] = "";
	double t0 = now_s(), t_add, t_plan;
	FILE *null = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(null);
	assert_int_equal(rck_mesh_config_new(&c), 0);
	for (unsigned int i = 0; i < SCALE_HOSTS; i++) {
		snprintf(name, sizeof(name), "node%05u", i);
		assert_int_equal(rck_mesh_config_add_host(c, name, "192.0.2.1", 0, NULL, 0), 0);
	}
	/* Every repeat is refused, whichever host it repeats. */
	assert_int_equal(rck_mesh_config_add_host(c, "node00000", NULL, 0, NULL, 0), -EEXIST);
	assert_int_equal(rck_mesh_config_add_host(c, "node65535", NULL, 0, NULL, 0), -EEXIST);
	assert_int_equal(rck_mesh_config_host_down(c, "node40000", "launcher: exit 255"), 0);
	assert_int_equal(rck_mesh_config_host_down(c, "node99999", "launcher: exit 255"), -ENOENT);
	t_add = now_s() - t0;
	assert_int_equal(rck_mesh_config_set_pattern(c, "quick", NULL, 0, NULL), 0);
	t0 = now_s();
	assert_int_equal(rck_mesh_config_write_plan(c, null, RCK_FORMAT_JSON, err, sizeof(err)), 0);
	t_plan = now_s() - t0;
	printf("# %u hosts: added in %.2f s, planned (quick) in %.2f s\n", SCALE_HOSTS, t_add, t_plan);
	assert_true(t_add + t_plan < SCALE_LIMIT_S);
	rck_mesh_config_free(c);
	fclose(null);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(add_and_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
