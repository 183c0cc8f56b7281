/* `rocecheck counters` from the outside: a table of {exit code, arguments}
 * on the recorded trees, its JSON, --save/--diff, --interval, error lines. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

extern char **environ;

struct run {
	int rc;
	char *out, *err;
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int c;

	assert_non_null(f);
	assert_non_null(m);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

/* Run rocecheck with @line split at spaces; "@F" stands for the fixtures'
 * sysfs folder and "@T" for this test's temporary prefix. */
static struct run run(const char *line)
{
	const char *fix = getenv("ROCECHECK_FIXTURES"), *exe = getenv("ROCECHECK");
	char outp[64], errp[64], *copy, *save = NULL;
	char *argv[32];
	int argc = 0, status;
	posix_spawn_file_actions_t fa;
	struct run r;
	pid_t pid;

	assert_non_null(fix);
	assert_non_null(exe);
	snprintf(outp, sizeof(outp), "/tmp/rck-cli-%ld.out", (long)getpid());
	snprintf(errp, sizeof(errp), "/tmp/rck-cli-%ld.err", (long)getpid());
	argv[argc++] = (char *)exe;
	copy = strdup(line);
	for (char *w = strtok_r(copy, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save)) {
		char *arg = NULL;

		if (!strncmp(w, "@F", 2))
			assert_true(asprintf(&arg, "%s/sysfs%s", fix, w + 2) > 0);
		else if (!strncmp(w, "@T", 2))
			assert_true(asprintf(&arg, "/tmp/rck-cli-%ld%s", (long)getpid(), w + 2) > 0);
		else
			arg = strdup(w);
		argv[argc++] = arg;
	}
	argv[argc] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(posix_spawn(&pid, exe, &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status))
		fail_msg("rocecheck %s: killed by signal %d", line, WTERMSIG(status));
	r.rc = WEXITSTATUS(status);
	r.out = slurp(outp);
	r.err = slurp(errp);
	unlink(outp);
	unlink(errp);
	for (int i = 1; i < argc; i++)
		free(argv[i]);
	free(copy);
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* Lines of an error message: an unknown word or option may be followed
 * by the usage, which does not count. */
static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++) {
		n += *s == '\n';
		if (*s == '\n' && !strncmp(s + 1, "Usage: ", 7))
			break;
	}
	return n;
}

static void test_exit_codes(void **state)
{
	static const struct {
		int rc;
		const char *args;
	} cases[] = {
		{ 0, "--sysfs-root @F/mlx5 counters" },
		{ 0, "--sysfs-root @F/mlx5 -j counters" },
		{ 0, "--sysfs-root @F/mlx5 counters mlx5_0" },
		{ 0, "--sysfs-root @F/mlx5 counters mlx5_0/1 --all" },
		{ 0, "--sysfs-root @F/bnxt -p counters" },
		{ 0, "--sysfs-root @F/irdma counters --all" },
		{ 0, "--sysfs-root @F/rxe -j counters rxe0" },
		{ 0, "--sysfs-root @F/broken -p counters --all" },
		{ 0, "--sysfs-root @F/empty counters" },
		{ 1, "--sysfs-root @F/mlx5 counters mlx5_7" },
		{ 1, "--sysfs-root @F/mlx5 counters mlx5_0/2" },
		{ 1, "--sysfs-root @F/mlx5 counters --diff @T.none @T.none2" },
		{ 2, "--sysfs-root @F/mlx5 counters --interval" },
		{ 2, "--sysfs-root @F/mlx5 counters --interval 0" },
		{ 2, "--sysfs-root @F/mlx5 counters --interval abc" },
		{ 2, "--sysfs-root @F/mlx5 counters --interval 5000" },
		{ 2, "--sysfs-root @F/mlx5 counters --count 3" },
		{ 2, "--sysfs-root @F/mlx5 counters --interval 1 --count 0" },
		{ 2, "--sysfs-root @F/mlx5 counters --interval 1 --count -1" },
		{ 2, "--sysfs-root @F/mlx5 counters --interval 1 --count 100001" },
		{ 2, "--sysfs-root @F/mlx5 counters --bogus" },
		{ 2, "--sysfs-root @F/mlx5 counters -x" },
		{ 2, "--sysfs-root @F/mlx5 counters mlx5_0 extra" },
		{ 2, "--sysfs-root @F/mlx5 counters /1" },
		{ 2, "--sysfs-root @F/mlx5 counters mlx5_0/0" },
		{ 2, "--sysfs-root @F/mlx5 counters mlx5_0/x" },
		{ 2, "--sysfs-root @F/mlx5 counters --diff onlyone" },
		{ 2, "--sysfs-root @F/mlx5 counters --diff a b c" },
		{ 2, "--sysfs-root @F/mlx5 counters --diff a b --interval 1" },
		{ 2, "--sysfs-root @F/mlx5 counters --save @T.x --interval 1" },
		{ 2, "--sysfs-root @F/mlx5 counters --save" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = run(cases[i].args);

		if (r.rc != cases[i].rc)
			fail_msg("rocecheck %s: exit %d, want %d; stderr: %s", cases[i].args, r.rc,
				 cases[i].rc, r.err);
		/* An error is one line on stderr and nothing on stdout. */
		if (r.rc) {
			if (lines(r.err) != 1 || r.out[0])
				fail_msg("rocecheck %s: stderr not one line: '%s'", cases[i].args, r.err);
			assert_non_null(strstr(r.err, "rocecheck: "));
		}
		run_free(&r);
	}
}

static void test_error_lines(void **state)
{
	struct run r;

	(void)state;
	r = run("--sysfs-root @F/mlx5 counters mlx5_7");
	assert_non_null(strstr(r.err, "mlx5_7"));
	run_free(&r);
	r = run("--sysfs-root @F/mlx5 counters --interval abc");
	assert_non_null(strstr(r.err, "'abc'"));
	run_free(&r);
	r = run("--sysfs-root @F/mlx5 counters --bogus");
	assert_non_null(strstr(r.err, "--bogus"));
	run_free(&r);
	/* Without -v the broken tree reads quietly; with -v it says why. */
	r = run("--sysfs-root @F/broken counters");
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.err, "");
	run_free(&r);
	r = run("-v --sysfs-root @F/broken counters");
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.err, "link_error_recovery: not a number: 'N/A (no PMA)'"));
	run_free(&r);
	r = run("--sysfs-root @F/empty counters");
	assert_non_null(strstr(r.err, "no RDMA devices"));
	run_free(&r);
}

static json_t *parse(const char *text)
{
	json_error_t err;
	json_t *j = json_loads(text, 0, &err);

	if (!j)
		fail_msg("not JSON (%s): %s", err.text, text);
	return j;
}

static void test_json(void **state)
{
	static const char *const trees[] = { "mlx5", "bnxt", "irdma", "rxe", "empty" };

	(void)state;
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		char args[128], path[4096];
		json_error_t err;
		json_t *exp, *act;
		struct run r;

		snprintf(args, sizeof(args), "--sysfs-root @F/%s -j counters", trees[i]);
		r = run(args);
		assert_int_equal(r.rc, 0);
		assert_int_equal(lines(r.out), 1);
		act = parse(r.out);
		/* The moment and the host of the snapshot are not the fixture's. */
		json_object_del(act, "time_ns");
		json_object_del(act, "host");
		snprintf(path, sizeof(path), "%s/expected/counters-%s.json", getenv("ROCECHECK_FIXTURES"),
			 trees[i]);
		exp = json_load_file(path, 0, &err);
		assert_non_null(exp);
		if (!json_equal(exp, act))
			fail_msg("rocecheck %s differs from %s", args, path);
		json_decref(exp);
		json_decref(act);
		run_free(&r);
	}
}

static const json_t *port0(const json_t *doc)
{
	return json_array_get(json_object_get(json_array_get(json_object_get(doc, "devices"), 0), "ports"), 0);
}

static void test_save_diff(void **state)
{
	struct run r;
	json_t *d, *c;

	(void)state;
	r = run("--sysfs-root @F/mlx5 counters --save @T.a.json");
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.out, "");
	run_free(&r);
	r = run("--sysfs-root @F/mlx5 counters --save @T.b.json");
	assert_int_equal(r.rc, 0);
	run_free(&r);

	r = run("-j counters --diff @T.a.json @T.b.json");
	assert_int_equal(r.rc, 0);
	d = parse(r.out);
	assert_true(json_number_value(json_object_get(d, "seconds")) >= 0);
	c = json_object_get(port0(d), "counters");
	assert_string_equal(json_string_value(json_object_get(json_object_get(c, "rx_bytes"), "state")), "ok");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "rx_bytes"), "delta")), 0);
	assert_true(json_is_null(json_array_get(json_object_get(c, "pfc_rx_pause"), 0)));
	assert_true(json_is_object(json_array_get(json_object_get(c, "pfc_rx_pause"), 3)));
	assert_int_equal(json_object_size(json_object_get(port0(d), "raw")), 0);
	json_decref(d);
	run_free(&r);

	r = run("-j counters --diff @T.a.json @T.b.json --all");
	assert_int_equal(r.rc, 0);
	d = parse(r.out);
	assert_true(json_object_size(json_object_get(port0(d), "raw")) > 100);
	json_decref(d);
	run_free(&r);

	r = run("counters --diff @T.a.json @T.b.json");
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "interval "));
	assert_non_null(strstr(r.out, "mlx5_0\n  port 1 netdev ens1f0np0\n"));
	run_free(&r);

	/* The newer one first: refused, in one line. */
	r = run("counters --diff @T.b.json @T.a.json");
	assert_int_equal(r.rc, 1);
	assert_int_equal(lines(r.err), 1);
	assert_non_null(strstr(r.err, "was taken before"));
	run_free(&r);

	/* A file that is not a snapshot: one line naming it. */
	r = run("counters --diff @T.a.json @F/mlx5/class/infiniband/mlx5_0/fw_ver");
	assert_int_equal(r.rc, 1);
	assert_int_equal(lines(r.err), 1);
	assert_non_null(strstr(r.err, "fw_ver"));
	run_free(&r);

	r = run("--sysfs-root @F/mlx5 counters --save /nonexistent/dir/x.json");
	assert_int_equal(r.rc, 1);
	assert_int_equal(lines(r.err), 1);
	run_free(&r);

	for (int i = 0; i < 2; i++) {
		char *f = NULL;

		assert_true(asprintf(&f, "/tmp/rck-cli-%ld.%c.json", (long)getpid(), 'a' + i) > 0);
		assert_int_equal(unlink(f), 0);
		free(f);
	}
}

static void test_interval(void **state)
{
	struct run r;
	char *line, *save = NULL;
	int n = 0;

	(void)state;
	/* JSON lines: one document per interval. */
	r = run("--sysfs-root @F/mlx5 -j counters mlx5_0 --interval 0.1 --count 3");
	assert_int_equal(r.rc, 0);
	assert_int_equal(lines(r.out), 3);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		json_t *d = parse(line);
		double s = json_number_value(json_object_get(d, "seconds"));

		assert_true(s >= 0.09 && s < 5);
		assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
						    port0(d), "counters"), "tx_bytes"), "state")), "ok");
		json_decref(d);
	}
	assert_int_equal(n, 3);
	run_free(&r);

	r = run("--sysfs-root @F/mlx5 counters --interval 0.1 --count 2 --all");
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "interval 0.1"));
	assert_non_null(strstr(r.out, "\n\ninterval "));
	assert_non_null(strstr(r.out, "rx_bytes"));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_error_lines),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_save_diff),
		cmocka_unit_test(test_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
