/* Launchers: argv of the built-ins and templates, and launches through fake
 * launcher scripts that answer, hang, fail, print garbage or ignore SIGTERM. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rocecheck/rocecheck.h>


static char dir[64];

static uint64_t ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void script(const char *name, const char *body)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/rck-launch-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	/* $1 is the host (the template puts it first), then the agent words. */
	script("ok", "echo \"starting on $1\" >&2\n"
		     "case $1 in h*) n=${1#h} ;; *) n=0 ;; esac\n"
		     "echo \"$((40000 + n)) tok-$1\"\n"
		     "exec sleep 30");
	script("hang", "echo 'connecting...' >&2; exec sleep 30");
	script("fail", "echo 'ssh: connect to host: No route to host' >&2; exit 1");
	script("garbage", "echo 'Welcome to node!'; sleep 30");
	script("stubborn", "trap '' TERM; echo \"5000 tok\"; while :; do sleep 1; done");
	script("args", "shift; echo \"$# $*\" >&2; echo \"7 $(echo \"$*\" | tr ' ' _)\"; exec sleep 30");
	script("short", "echo '6 t'; sleep 0.2; echo 'agent: session over' >&2; exit 4");
	script("chatty", "echo \"9 t\"; i=0; while [ $i -lt 2000 ]; do echo 'log line from the agent, quite long' >&2; i=$((i+1)); done; sleep 30");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static void expect_argv_x(const char *launcher, const char *host, const char *const *agent,
			  const char *const *extra, const char *want)
{
	char **argv = NULL, buf[512] = "";
	int rc = rck_launch_argv(launcher, host, agent, extra, &argv);
	if (rc)
		fail_msg("%s: %s", launcher, strerror(-rc));
	for (char **p = argv; *p; p++) {
		if (p != argv)
			strcat(buf, "|");
		strcat(buf, *p);
	}
	rck_launch_argv_free(argv);
	assert_string_equal(buf, want);
}

static void expect_argv(const char *launcher, const char *host, const char *const *agent, const char *want)
{
	expect_argv_x(launcher, host, agent, NULL, want);
}

static void test_argv(void **state)
{
	static const char *const odd[] = { "rocecheck", "agent", "--once", "--listen", "a b;c", "it's", NULL };
	char **argv = (char **)1;
	(void)state;

	expect_argv("ssh", "n1", NULL, "ssh|-o|BatchMode=yes|-T|--|n1|rocecheck|agent|--once|--lifeline");
	expect_argv("srun", "node07", NULL, "srun|-N1|-n1|-w|node07|rocecheck|agent|--once");
	expect_argv("pdsh", "n1", NULL, "pdsh|-N|-w|n1|rocecheck|agent|--once");
	expect_argv("mpirun", "10.0.0.1", NULL, "mpirun|-n|1|--host|10.0.0.1|rocecheck|agent|--once");
	/* A remote shell reads ssh's words: quoted; srun execs them: as they are. */
	expect_argv("ssh", "root@n1", odd, "ssh|-o|BatchMode=yes|-T|--|root@n1|rocecheck|agent|--once|--listen|'a b;c'|'it'\\''s'");
	expect_argv("srun", "n1", odd, "srun|-N1|-n1|-w|n1|rocecheck|agent|--once|--listen|a b;c|it's");
	/* Templates: words, quotes, {host} inside words, {cmd}. */
	expect_argv("ssh -F /run/lab/ssh/config {host}", "n2", NULL, "ssh|-F|/run/lab/ssh/config|n2|rocecheck|agent|--once|--lifeline");
	expect_argv("kubectl exec rocecheck-{host} -- {cmd}", "n2", NULL,
		    "kubectl|exec|rocecheck-n2|--|rocecheck|agent|--once|--lifeline");
	expect_argv("sh -c 'exec \"$0\" \"$@\"' {cmd} --host={host}", "n3", NULL,
		    "sh|-c|exec \"$0\" \"$@\"|rocecheck|agent|--once|--lifeline|--host=n3");
	expect_argv("a\\ b \"c \\\"d\\\" \\x\" {host}{host}", "h", NULL, "a b|c \"d\" \\x|hh|rocecheck|agent|--once|--lifeline");
	/* Extra words: after the built-in's options, before the host. */
	static const char *const cfg[] = { "-F", "/lab/ssh/config", NULL }, *const part[] = { "-p", "gpu", NULL };
	expect_argv_x("ssh", "n1", NULL, cfg, "ssh|-o|BatchMode=yes|-T|-F|/lab/ssh/config|--|n1|rocecheck|agent|--once|--lifeline");
	expect_argv_x("srun", "n1", NULL, part, "srun|-N1|-n1|-p|gpu|-w|n1|rocecheck|agent|--once");
	expect_argv_x("ssh {host}", "n1", NULL, part, "ssh|n1|rocecheck|agent|--once|--lifeline");
	assert_int_equal(rck_launch_argv("none", "n1", NULL, NULL, &argv), 0);
	assert_null(argv);

	/* Refused: unknown one-word launcher, no {host}, open quote, bad hosts. */
	assert_int_equal(rck_launch_argv("rsh", "n1", NULL, NULL, &argv), -EINVAL);
	assert_int_equal(rck_launch_argv("ssh -F cfg", "n1", NULL, NULL, &argv), -EINVAL);
	assert_int_equal(rck_launch_argv("ssh '{host}", "n1", NULL, NULL, &argv), -EINVAL);
	assert_int_equal(rck_launch_argv("ssh {host} \\", "n1", NULL, NULL, &argv), -EINVAL);
	assert_int_equal(rck_launch_argv("   ", "n1", NULL, NULL, &argv), -EINVAL);
	assert_int_equal(rck_launch_argv("ssh", "-oProxyCommand=x", NULL, NULL, &argv), -EINVAL);
	assert_int_equal(rck_launch_argv("ssh", "n1;reboot", NULL, NULL, &argv), -EINVAL);
	assert_int_equal(rck_launch_argv("ssh", "n 1", NULL, NULL, &argv), -EINVAL);
	assert_int_equal(rck_launch_argv("ssh", "", NULL, NULL, &argv), -EINVAL);
	assert_null(argv);
}

static void test_new_refuses(void **state)
{
	struct rck_launch_opts o;
	struct rck_launch *l = (struct rck_launch *)1;
	const char *hosts[] = { "n1", "n2", "n1" };
	(void)state;

	rck_launch_opts_init(&o);
	assert_string_equal(o.launcher, "ssh");
	assert_int_equal(rck_launch_new(NULL, &o, hosts, 3, &l), -EINVAL); /* n1 twice */
	assert_null(l);
	assert_int_equal(rck_launch_new(NULL, &o, hosts, 0, &l), -EINVAL);
	o.launcher = "rsh";
	assert_int_equal(rck_launch_new(NULL, &o, hosts, 2, &l), -EINVAL);
	o.launcher = "ssh";
	o.max_inflight = 0;
	assert_int_equal(rck_launch_new(NULL, &o, hosts, 2, &l), -EINVAL);

	/* @size: too short refused; a longer struct only with zeros past ours. */
	struct {
		struct rck_launch_opts o;
		unsigned char more[8];
	} big;
	memset(&big, 0, sizeof(big));
	rck_launch_opts_init(&big.o);
	big.o.size = sizeof(big);
	assert_int_equal(rck_launch_new(NULL, &big.o, hosts, 2, &l), 0);
	rck_launch_free(l);
	big.more[3] = 1;
	assert_int_equal(rck_launch_new(NULL, &big.o, hosts, 2, &l), -EINVAL);
	big.o.size = sizeof(size_t);
	assert_int_equal(rck_launch_new(NULL, &big.o, hosts, 2, &l), -EINVAL);
	assert_string_equal(rck_launch_status_name(RCK_LAUNCH_UNREACHABLE), "unreachable");
	assert_null(rck_launch_status_name((enum rck_launch_status)99));
}

static struct rck_launch *launch(const char *tmpl, const char *const *hosts, size_t n, unsigned int inflight,
				 unsigned int tmo)
{
	struct rck_launch_opts o;
	struct rck_launch *l = NULL;
	char t[256];

	rck_launch_opts_init(&o);
	snprintf(t, sizeof(t), "%s/%s {host}", dir, tmpl);
	o.launcher = t;
	o.max_inflight = inflight;
	o.start_timeout_ms = tmo;
	o.stop_grace_ms = 300;
	assert_int_equal(rck_launch_new(NULL, &o, hosts, n, &l), 0);
	assert_int_equal(rck_launch_start(l), 0);
	assert_int_equal(rck_launch_start(l), -EALREADY);
	return l;
}

static void test_ready_and_stop(void **state)
{
	const char *hosts[] = { "h1", "h2", "h3" };
	uint64_t t;
	(void)state;

	struct rck_launch *l = launch("ok", hosts, 3, 64, 5000);
	for (size_t i = 0; i < 3; i++) {
		char tok[16];
		snprintf(tok, sizeof(tok), "tok-h%zu", i + 1);
		assert_int_equal(rck_launch_host_status(l, i), RCK_LAUNCH_READY);
		assert_int_equal(rck_launch_host_port(l, i), 40001 + i);
		assert_string_equal(rck_launch_host_token(l, i), tok);
		assert_null(rck_launch_host_reason(l, i));
	}
	assert_int_equal(rck_launch_drain(l), 0);
	t = ms();
	/* The script's sleep is in the launcher's process group: it goes too. */
	assert_int_equal(rck_launch_stop(l), 0);
	assert_true(ms() - t < 2000);
	assert_int_equal(rck_launch_host_status(l, 0), RCK_LAUNCH_STOPPED);
	assert_int_equal(rck_launch_stop(l), 0);
	rck_launch_free(l);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* nothing left to reap */
}

static void test_failures_are_results(void **state)
{
	const char *hosts[] = { "h1" };
	struct rck_launch *l;
	const char *r;
	uint64_t t;
	(void)state;

	/* Hangs: unreachable after the deadline, with its stderr. */
	t = ms();
	l = launch("hang", hosts, 1, 64, 300);
	assert_true(ms() - t < 5000);
	assert_int_equal(rck_launch_host_status(l, 0), RCK_LAUNCH_UNREACHABLE);
	r = rck_launch_host_reason(l, 0);
	assert_non_null(r);
	assert_non_null(strstr(r, "no PORT TOKEN within 300 ms"));
	assert_non_null(strstr(r, "connecting..."));
	assert_non_null(strstr(r, "killed by signal 15"));
	assert_int_equal(rck_launch_host_port(l, 0), 0);
	rck_launch_free(l);

	/* Exits 1: its status and stderr tail, at once (not at the deadline). */
	t = ms();
	l = launch("fail", hosts, 1, 64, 10000);
	assert_true(ms() - t < 5000);
	r = rck_launch_host_reason(l, 0);
	assert_int_equal(rck_launch_host_status(l, 0), RCK_LAUNCH_UNREACHABLE);
	assert_non_null(strstr(r, "launcher ended before PORT TOKEN (exit status 1)"));
	assert_non_null(strstr(r, "No route to host"));
	rck_launch_free(l);

	/* Garbage on stdout: refused at once, what it printed in the reason. */
	t = ms();
	l = launch("garbage", hosts, 1, 64, 10000);
	assert_true(ms() - t < 5000);
	r = rck_launch_host_reason(l, 0);
	assert_non_null(strstr(r, "printed 'Welcome to node!', not PORT TOKEN"));
	rck_launch_free(l);

	/* No such program: unreachable, not an error of the launch. */
	struct rck_launch_opts o;
	rck_launch_opts_init(&o);
	o.launcher = "/nonexistent/launcher {host}";
	assert_int_equal(rck_launch_new(NULL, &o, hosts, 1, &l), 0);
	assert_int_equal(rck_launch_start(l), 0);
	assert_int_equal(rck_launch_host_status(l, 0), RCK_LAUNCH_UNREACHABLE);
	/* posix_spawn reports the failed exec; under valgrind the child exits 127. */
	r = rck_launch_host_reason(l, 0);
	if (!strstr(r, "cannot run '/nonexistent/launcher'") && !strstr(r, "exit status 127"))
		fail_msg("reason: %s", r);
	rck_launch_free(l);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

static void test_sigkill_after_grace(void **state)
{
	const char *hosts[] = { "h1" };
	uint64_t t;
	(void)state;

	struct rck_launch *l = launch("stubborn", hosts, 1, 64, 5000);
	assert_int_equal(rck_launch_host_status(l, 0), RCK_LAUNCH_READY);
	t = ms();
	assert_int_equal(rck_launch_stop(l), 0);
	t = ms() - t;
	/* Ignores SIGTERM: SIGKILL after the 300 ms grace, reaped (bounds loose
	 * enough for valgrind on a loaded machine). */
	assert_true(t >= 250 && t < 5000);
	assert_int_equal(rck_launch_host_status(l, 0), RCK_LAUNCH_STOPPED);
	rck_launch_free(l);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

static void test_agent_words_and_drain(void **state)
{
	static const char *const agent[] = { "rocecheck", "agent", "--once", "--idle", "5", NULL };
	const char *hosts[] = { "h1" };
	struct rck_launch_opts o;
	struct rck_launch *l;
	char t[256];
	(void)state;

	rck_launch_opts_init(&o);
	snprintf(t, sizeof(t), "%s/args {host}", dir);
	o.launcher = t;
	o.agent_argv = agent;
	assert_int_equal(rck_launch_new(NULL, &o, hosts, 1, &l), 0);
	assert_int_equal(rck_launch_start(l), 0);
	assert_string_equal(rck_launch_host_token(l, 0), "rocecheck_agent_--once_--idle_5");
	rck_launch_free(l);

	/* An agent that logs a lot on stderr is drained, never blocked. */
	snprintf(t, sizeof(t), "%s/chatty {host}", dir);
	o.agent_argv = NULL;
	o.stop_grace_ms = 300;
	assert_int_equal(rck_launch_new(NULL, &o, hosts, 1, &l), 0);
	assert_int_equal(rck_launch_start(l), 0);
	assert_int_equal(rck_launch_host_status(l, 0), RCK_LAUNCH_READY);
	for (int i = 0; i < 50; i++) {
		rck_launch_drain(l);
		usleep(10000);
	}
	assert_int_equal(rck_launch_drain(l), 0);
	assert_int_equal(rck_launch_stop(l), 0);
	rck_launch_free(l);

	/* An agent that ends while in use: drain() notices, with its reason. */
	snprintf(t, sizeof(t), "%s/short {host}", dir);
	assert_int_equal(rck_launch_new(NULL, &o, hosts, 1, &l), 0);
	assert_int_equal(rck_launch_start(l), 0);
	assert_int_equal(rck_launch_host_status(l, 0), RCK_LAUNCH_READY);
	unsigned int ended = 0;
	for (int i = 0; i < 500 && !ended; i++) {
		ended = rck_launch_drain(l);
		usleep(10000);
	}
	assert_int_equal(ended, 1);
	assert_int_equal(rck_launch_host_status(l, 0), RCK_LAUNCH_EXITED);
	const char *r = rck_launch_host_reason(l, 0);
	if (!strstr(r, "exit status 4") || !strstr(r, "agent: session over"))
		fail_msg("reason: %s", r);
	assert_int_equal(rck_launch_stop(l), 0);
	assert_int_equal(rck_launch_host_status(l, 0), RCK_LAUNCH_EXITED);
	rck_launch_free(l);
}

/* Many hosts, a small cap, a mix of outcomes; one loop decides them all. */
static void test_many_capped(void **state)
{
	enum { N = 120 };
	char names[N][8];
	const char *hosts[N];
	struct rck_launch_opts o;
	struct rck_launch *l;
	char t[256];
	uint64_t t0;
	(void)state;

	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), i % 10 == 9 ? "x%d" : "h%d", i);
		hosts[i] = names[i];
	}
	/* x* hosts fail (the template runs "fail" for them). */
	/* Each start marks itself in fl/ while it waits: their count is how
	 * many were in flight at once. */
	script("mix", "d=$(dirname \"$0\"); mkdir -p \"$d/fl\"; mkdir \"$d/fl/$1\"\n"
		      "ls \"$d/fl\" | wc -l >>\"$d/inflight\"; sleep 0.05; rmdir \"$d/fl/$1\"\n"
		      "case $1 in x*) exec \"$d/fail\" ;; esac; exec \"$d/ok\" \"$@\"");
	rck_launch_opts_init(&o);
	snprintf(t, sizeof(t), "%s/mix {host}", dir);
	o.launcher = t;
	o.max_inflight = 16;
	o.start_timeout_ms = 20000;
	o.stop_grace_ms = 500;
	assert_int_equal(rck_launch_new(NULL, &o, hosts, N, &l), 0);
	t0 = ms();
	assert_int_equal(rck_launch_start(l), 0);
	size_t ready = 0, bad = 0;
	for (size_t i = 0; i < N; i++) {
		enum rck_launch_status s = rck_launch_host_status(l, i);
		if (s == RCK_LAUNCH_READY) {
			ready++;
			assert_int_equal(rck_launch_host_port(l, i), 40000 + i);
		} else {
			bad++;
			assert_int_equal(names[i][0], 'x');
			assert_non_null(strstr(rck_launch_host_reason(l, i), "exit status 1"));
		}
	}
	assert_int_equal(ready, N - N / 10);
	assert_int_equal(bad, N / 10);
	unsigned long long took = ms() - t0;
	char path[128];
	unsigned int most = 0, v;
	snprintf(path, sizeof(path), "%s/inflight", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fscanf(f, "%u", &v) == 1)
		most = v > most ? v : most;
	fclose(f);
	print_message("# %d hosts, at most 16 in flight (seen %u): decided in %llu ms\n", N, most, took);
	assert_true(most >= 2 && most <= 16);
	rck_launch_free(l);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

/* The sweep's launch path (rck_launch_sweep_hosts): hosts whose launcher
 * failed are in the sweep, down with the launcher's reason, and the sweep
 * gives them up at once (no dial, no resolution: IP literals that would
 * take the whole timeout if dialled). */
static void test_sweep_hosts(void **state)
{
	const char *hosts[] = { "192.0.2.1", "192.0.2.2" };
	struct rck_mesh_config *c;
	struct rck_launch_opts o;
	struct rck_launch *l = NULL;
	struct rck_mesh *m = NULL;
	struct rck_ctx *ctx;
	char t[256];
	uint64_t t0;
	(void)state;

	assert_int_equal(rck_ctx_new(&ctx), 0);
	assert_int_equal(rck_ctx_set_timeout_ms(ctx, 4000), 0);
	assert_int_equal(rck_mesh_config_new(&c), 0);
	rck_launch_opts_init(&o);
	snprintf(t, sizeof(t), "%s/fail {host}", dir);
	o.launcher = t;
	o.stop_grace_ms = 300;
	assert_int_equal(rck_launch_sweep_hosts(ctx, &o, hosts, 2, c, &l), 0);
	assert_non_null(l);
	/* Already in the sweep: refused, nothing left running. */
	struct rck_launch *l2 = (struct rck_launch *)1;
	assert_int_equal(rck_launch_sweep_hosts(ctx, &o, hosts, 1, c, &l2), -EINVAL);
	assert_null(l2);
	t0 = ms();
	assert_int_equal(rck_mesh_run(ctx, c, &m), 0);
	assert_true(ms() - t0 < 2000);
	rck_launch_sweep_reasons(l, m);
	for (unsigned int h = 0; h < 2; h++) {
		const char *why = rck_mesh_host_unreachable(m, h);

		assert_non_null(why);
		if (!strstr(why, "No route to host"))
			fail_msg("reason: %s", why);
	}
	rck_mesh_free(m);
	rck_launch_free(l);
	rck_mesh_config_free(c);

	/* ssh with a config file: `ssh -F FILE` (a missing one fails before
	 * any connection, its words in the reason). */
	assert_int_equal(rck_mesh_config_new(&c), 0);
	rck_launch_opts_init(&o);
	o.launcher = "ssh";
	o.ssh_config = "/nonexistent/rocecheck-ssh-config";
	o.stop_grace_ms = 300;
	assert_int_equal(rck_launch_sweep_hosts(ctx, &o, hosts, 1, c, &l), 0);
	if (!rck_launch_host_reason(l, 0) || !strstr(rck_launch_host_reason(l, 0), "rocecheck-ssh-config"))
		fail_msg("reason: %s", rck_launch_host_reason(l, 0) ? rck_launch_host_reason(l, 0) : "(none)");
	rck_launch_free(l);
	rck_mesh_config_free(c);
	rck_ctx_free(ctx);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

static void test_none(void **state)
{
	const char *hosts[] = { "n1", "n2" };
	struct rck_launch_opts o;
	struct rck_launch *l;
	(void)state;

	rck_launch_opts_init(&o);
	o.launcher = "none";
	assert_int_equal(rck_launch_new(NULL, &o, hosts, 2, &l), 0);
	assert_int_equal(rck_launch_start(l), 0);
	assert_int_equal(rck_launch_host_count(l), 2);
	assert_string_equal(rck_launch_host(l, 1), "n2");
	assert_int_equal(rck_launch_host_status(l, 1), RCK_LAUNCH_READY);
	assert_int_equal(rck_launch_host_port(l, 1), 0);
	assert_null(rck_launch_host_token(l, 1));
	assert_null(rck_launch_host(l, 2));
	rck_launch_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_new_refuses),
		cmocka_unit_test(test_ready_and_stop),
		cmocka_unit_test(test_failures_are_results),
		cmocka_unit_test(test_sigkill_after_grace),
		cmocka_unit_test(test_agent_words_and_drain),
		cmocka_unit_test(test_many_capped),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_sweep_hosts),
	};
	/* A test that hangs is a failure, not a stuck suite. */
	alarm(60);
	return cmocka_run_group_tests(tests, setup, teardown);
}
