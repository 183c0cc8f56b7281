/* The preflight library: config errors, a run on loopback agents started
 * through a template (TCP probes) with its progress phases, cancellation
 * from another thread, recorded sweeps, bad hosts and drain commands. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include <rocecheck/rocecheck.h>

#define LAUNCH "env H={host} {cmd}"

static struct rck_ctx *new_ctx(void)
{
	struct rck_ctx *ctx;

	assert_int_equal(rck_ctx_new(&ctx), 0);
	rck_ctx_set_log_priority(ctx, 0);
	rck_ctx_set_timeout_ms(ctx, 5000);
	return ctx;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Loopback "hosts" 127.0.0.1..n, agents started through the template. */
static struct rck_preflight_config *loopback(unsigned int n, double duration)
{
	struct rck_preflight_config *c;
	struct rck_thresholds *th;
	char list[256] = "", err[200];

	assert_int_equal(rck_preflight_config_new(&c), 0);
	for (unsigned int i = 1; i <= n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s127.0.0.%u", i > 1 ? "," : "", i);
	assert_int_equal(rck_preflight_config_add_hosts(c, list, err, sizeof(err)), 0);
	assert_int_equal(rck_preflight_config_set_launcher(c, LAUNCH, NULL), 0);
	assert_int_equal(rck_preflight_config_set_probe(c, RCK_PROBE_TRANSPORT_TCP, 4096,
							duration > 0 ? 0 : 20, duration), 0);
	/* Loopback rates are noise: only a failed probe could be a finding. */
	assert_int_equal(rck_thresholds_new(&th), 0);
	assert_int_equal(rck_thresholds_set(th, "link_rel_floor", 0.001), 0);
	assert_int_equal(rck_thresholds_set(th, "link_latency_factor", 1000), 0);
	assert_int_equal(rck_thresholds_set(th, "noise_max", 10), 0);
	assert_int_equal(rck_preflight_config_set_thresholds(c, th), 0);
	rck_thresholds_free(th);
	return c;
}

static void test_config_errors(void **state)
{
	struct rck_preflight_config *c;
	struct rck_preflight *p = NULL;
	struct rck_ctx *ctx = new_ctx();
	char err[200] = "";

	(void)state;
	assert_int_equal(rck_preflight_config_new(NULL), -EINVAL);
	assert_int_equal(rck_preflight_config_new(&c), 0);
	assert_int_equal(rck_preflight_config_add_hosts(c, "node[3-1]", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "descending"));
	assert_int_equal(rck_preflight_config_add_hosts(c, "onlyone", err, sizeof(err)), 0);
	assert_int_equal(rck_preflight_run(ctx, c, &p), -EINVAL);
	assert_null(p);
	assert_int_equal(rck_preflight_config_set_tests(c, 0), -EINVAL);
	assert_int_equal(rck_preflight_config_set_tests(c, 8), -EINVAL);
	assert_int_equal(rck_preflight_config_set_rails(c, "some"), -EINVAL);
	assert_int_equal(rck_preflight_config_set_rails(c, "device:"), -EINVAL);
	assert_int_equal(rck_preflight_config_set_rails(c, "device:mlx5_0"), 0);
	assert_int_equal(rck_preflight_config_set_expect_rate(c, -1), -EINVAL);
	assert_int_equal(rck_preflight_config_set_expect_rate(c, NAN), -EINVAL);
	assert_int_equal(rck_preflight_config_set_deadline(c, -1), -EINVAL);
	assert_int_equal(rck_preflight_config_set_retest_passes(c, 17), -EINVAL);
	assert_int_equal(rck_preflight_config_set_launcher(c, "", NULL), -EINVAL);
	assert_int_equal(rck_preflight_config_set_probe(c, RCK_PROBE_TRANSPORT_TCP, 0, 0, 0), -EINVAL);
	assert_null(rck_preflight_phase_name(RCK_PREFLIGHT_PHASE_COUNT));
	assert_string_equal(rck_preflight_phase_name(RCK_PREFLIGHT_RETEST), "retest");
	rck_preflight_cancel(NULL);
	rck_preflight_config_free(c);
	rck_preflight_config_free(NULL);
	rck_ctx_free(ctx);
}

struct seen {
	unsigned int phases; /* bit per phase */
	enum rck_preflight_phase last;
	bool backwards;
	unsigned int done_at_end, total_at_end; /* counts in the analysis and done */
	bool eta;            /* an ETA seen during the sweep */
	bool eta_late;       /* an ETA after the sweep */
};

static void on_progress(void *data, const struct rck_preflight_progress *p)
{
	struct seen *s = data;

	assert_true(p->done <= p->total || p->total == 0);
	if (p->phase < s->last)
		s->backwards = true;
	s->last = p->phase;
	s->phases |= 1u << p->phase;
	if (p->size >= sizeof(*p) && p->phase == RCK_PREFLIGHT_SWEEP && isfinite(p->eta_s))
		s->eta = true;
	if (p->phase >= RCK_PREFLIGHT_ANALYSIS) {
		s->done_at_end = p->done;
		s->total_at_end = p->total;
		s->eta_late |= isfinite(p->eta_s);
	}
}

static void test_loopback(void **state)
{
	struct rck_preflight_config *c = loopback(4, 0);
	struct rck_preflight_timings t = {.size = sizeof(t)};
	struct rck_ctx *ctx = new_ctx();
	struct rck_preflight *p = NULL;
	struct seen seen = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	json_t *j;

	(void)state;
	rck_preflight_config_set_progress(c, on_progress, &seen);
	assert_int_equal(rck_preflight_config_set_tests(c, 1u << RCK_MESH_TEST_BW | 1u << RCK_MESH_TEST_LAT), 0);
	assert_int_equal(rck_preflight_run(ctx, c, &p), 0);
	if (rck_preflight_verdict(p) != RCK_VERDICT_HEALTHY)
		rck_preflight_write(p, stderr, RCK_FORMAT_TEXT);
	/* Under valgrind (ROCECHECK_WRAP set), with other tests beside it, a
	 * loopback probe may miss its deadline: a finding, not a memory error.
	 * The verdict must still be made. */
	bool healthy = !(getenv("ROCECHECK_WRAP") && *getenv("ROCECHECK_WRAP"));

	if (healthy)
		assert_int_equal(rck_preflight_verdict(p), RCK_VERDICT_HEALTHY);
	else
		assert_int_not_equal(rck_preflight_verdict(p), RCK_VERDICT_ERROR);
	if (rck_preflight_verdict(p) != RCK_VERDICT_DEGRADED)
		assert_int_equal(rck_preflight_bad_host_count(p), 0);
	assert_false(seen.backwards);
	assert_true(seen.phases & 1u << RCK_PREFLIGHT_LAUNCH);
	assert_true(seen.phases & 1u << RCK_PREFLIGHT_SWEEP);
	assert_true(seen.phases & 1u << RCK_PREFLIGHT_ANALYSIS);
	assert_int_equal(seen.last, RCK_PREFLIGHT_DONE);
	/* The analysis and the end keep the sweep's counts, never "0/0". */
	assert_true(seen.total_at_end >= 24);
	assert_int_equal(seen.done_at_end, seen.total_at_end);
	assert_true(seen.eta);
	assert_false(seen.eta_late);
	assert_int_equal(rck_preflight_timings(p, &t), 0);
	assert_int_equal(t.hosts, 4);
	assert_int_equal(t.probes, 24);
	assert_true(t.total_s >= t.sweep_s && t.sweep_s > 0 && t.launch_s > 0);
	assert_int_equal(rck_mesh_host_count(rck_preflight_mesh(p)), 4);
	assert_int_equal(rck_report_verdict(rck_preflight_report(p)), rck_preflight_verdict(p));
	if (healthy) {
		assert_int_equal(rck_preflight_bad_host_count(p), 0);
		assert_non_null(strstr(rck_preflight_summary(p), ", healthy, fabric median "));
	}
	assert_non_null(strstr(rck_preflight_summary(p), "4 hosts, 24 probes in "));
	f = open_memstream(&buf, &len);
	assert_int_equal(rck_preflight_write(p, f, RCK_FORMAT_JSON), 0);
	fclose(f);
	j = json_loads(buf, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), "rocecheck.preflight/1");
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "mesh"), "probes")), 24);
	json_decref(j);
	free(buf);
	assert_int_equal(rck_preflight_write(p, stdout, (enum rck_format)9), -EINVAL);
	rck_preflight_free(p);
	rck_preflight_config_free(c);
	rck_ctx_free(ctx);
}

static void *cancel_later(void *arg)
{
	usleep(700000);
	rck_preflight_cancel(arg);
	return NULL;
}

/* 12 probes of 1 s each, at most 2 at once: cancelled after 0.7 s, the
 * run ends soon with what did not run recorded skipped. Measured 1.3-1.5 s
 * plain; 1.1-4.1 s under ASan (agents and coordinator each slowed), where
 * CI saw one run past 4.5 s. */
#if defined(__SANITIZE_ADDRESS__) /* gcc */
#define CANCEL_S 8.0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) /* clang 14 defines no macro */
#define CANCEL_S 8.0
#endif
#endif
#ifndef CANCEL_S
#define CANCEL_S 4.5
#endif
static void test_cancel(void **state)
{
	struct rck_preflight_config *c = loopback(4, 1.0);
	struct rck_ctx *ctx = new_ctx();
	struct rck_preflight *p = NULL;
	pthread_t th;
	double t0 = now();
	int rc;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, cancel_later, c), 0);
	rc = rck_preflight_run(ctx, c, &p);
	pthread_join(th, NULL);
	fprintf(stderr, "cancel took %.2f s\n", now() - t0);
	assert_true(now() - t0 < CANCEL_S);
	assert_true(rc == 0 || rc == -ECANCELED);
	if (!rc) {
		const struct rck_mesh *m = rck_preflight_mesh(p);
		unsigned int skipped = 0;

		for (unsigned int i = 0; i < rck_mesh_cell_count(m); i++) {
			struct rck_mesh_meas x = {.size = sizeof(x)};

			assert_int_equal(rck_mesh_cell_meas(m, i, 0, &x), 0);
			skipped += x.status == RCK_MESH_SKIPPED;
		}
		assert_true(skipped > 0);
		assert_int_not_equal(rck_preflight_verdict(p), RCK_VERDICT_HEALTHY);
	}
	rck_preflight_free(p);
	rck_preflight_config_free(c);
	rck_ctx_free(ctx);
}

static void test_recorded(void **state)
{
	const char *dir = getenv("ROCECHECK_FIXTURES");
	struct rck_preflight_config *c;
	struct rck_preflight *p = NULL;
	struct rck_ctx *ctx = new_ctx();
	struct rck_mesh *m;
	const char *host, *reason;
	char path[4096], err[200];

	(void)state;
	if (!dir)
		skip();
	snprintf(path, sizeof(path), "%s/mesh/sample.json", dir);
	assert_int_equal(rck_mesh_load(ctx, path, &m), 0);
	assert_int_equal(rck_preflight_config_new(&c), 0);
	assert_int_equal(rck_preflight_from_mesh(c, NULL, &p), -EINVAL);
	assert_int_equal(rck_preflight_from_mesh(c, m, &p), 0);
	assert_ptr_equal(rck_preflight_mesh(p), m);
	assert_int_equal(rck_preflight_verdict(p), RCK_VERDICT_DEGRADED);
	assert_int_equal(rck_preflight_bad_host_count(p), 1);
	assert_int_equal(rck_preflight_bad_host(p, 0, &host, &reason), 0);
	assert_string_equal(host, "node03");
	assert_true(!strncmp(reason, "rocecheck: host_unreachable ", 28));
	assert_int_equal(rck_preflight_bad_host(p, 1, &host, &reason), -EINVAL);
	assert_true(!strncmp(rck_preflight_summary(p), "3 hosts, 5 probes in 12 s, ", 27));
	assert_non_null(strstr(rck_preflight_summary(p), ", drain node03 (host_unreachable: "));
	rck_preflight_free(p);
	/* The report's drain list less the spares: node03 as a spare is
	 * judged, never drained (inconclusive verdicts: preflight-cli.sh). */
	assert_int_equal(rck_mesh_load(ctx, path, &m), 0);
	assert_int_equal(rck_preflight_config_add_spares(c, "node03", err, sizeof(err)), 0);
	assert_int_equal(rck_preflight_from_mesh(c, m, &p), 0);
	assert_int_equal(rck_preflight_verdict(p), RCK_VERDICT_DEGRADED);
	assert_int_equal(rck_report_drain_count(rck_preflight_report(p)), 0);
	assert_int_equal(rck_preflight_bad_host_count(p), 0);
	rck_preflight_free(p);
	rck_preflight_config_free(c);
	rck_ctx_free(ctx);
}

static void test_drain_argv(void **state)
{
	char **v = NULL;

	(void)state;
	assert_int_equal(rck_preflight_drain_argv("scontrol update nodename={host} 'reason={reason}'", "n3",
						  "rocecheck: link_slow a b; rm -rf /", &v), 0);
	assert_string_equal(v[0], "scontrol");
	assert_string_equal(v[2], "nodename=n3");
	assert_string_equal(v[3], "reason=rocecheck: link_slow a b; rm -rf /");
	assert_null(v[4]);
	rck_launch_argv_free(v);
	assert_int_equal(rck_preflight_drain_argv("x {host}", "-rf", "r", &v), -EINVAL);
	assert_int_equal(rck_preflight_drain_argv("x 'open", "n1", "r", &v), -EINVAL);
	assert_int_equal(rck_preflight_drain_argv("   ", "n1", "r", &v), -EINVAL);
	assert_int_equal(rck_preflight_drain_argv("x", "n1", NULL, &v), -EINVAL);
	assert_null(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_loopback),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_recorded),
		cmocka_unit_test(test_drain_argv),
	};
	const char *rck = getenv("ROCECHECK");
	char path[8192];

	/* The template runs `rocecheck agent --once`: the built one. */
	if (rck && strrchr(rck, '/')) {
		snprintf(path, sizeof(path), "%.*s:%s", (int)(strrchr(rck, '/') - rck), rck,
			 getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
		setenv("PATH", path, 1);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
