/* A scheduler's view of librocecheck: run a preflight through the public
 * API only (rocecheck.h, pkg-config rocecheck), with progress and a verdict. */
#include <rocecheck/rocecheck.h>

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

static struct rck_preflight_config *running;

static void on_signal(int sig)
{
	(void)sig;
	rck_preflight_cancel(running); /* async-signal-safe */
}

static void on_progress(void *data, const struct rck_preflight_progress *p)
{
	(void)data;
	fprintf(stderr, "progress: %s %u/%u probes, %u hosts down, %.1f s\n",
		rck_preflight_phase_name(p->phase), p->done, p->total, p->hosts_down, p->elapsed_s);
}

static void on_log(void *data, int priority, const char *msg)
{
	(void)data;
	if (priority <= LOG_WARNING)
		fprintf(stderr, "librocecheck: %s\n", msg);
}

static int usage(void)
{
	fprintf(stderr, "usage: preflight-example [--launcher L] [--key-file F] [--config F] [--tcp] "
			"[--size B] [--iters N] [--spares LIST] [--timeout MS] HOSTS\n");
	return 2;
}

static int load_key(struct rck_preflight_config *c, const char *path, char *err, size_t errlen)
{
	uint8_t key[RCK_KEY_MAX];
	size_t len;
	int rc = rck_key_load(path, key, sizeof(key), &len, err, errlen);

	return rc ? rc : rck_preflight_config_set_key(c, key, len);
}

/* Options into the config; 0, or 2 after one line on stderr. */
static int configure(struct rck_preflight_config *c, struct rck_ctx *ctx, int argc, char **argv)
{
	enum rck_probe_transport transport = RCK_PROBE_TRANSPORT_RDMA;
	unsigned long size = 65536, iters = 100;
	const char *hosts = NULL, *env_key;
	bool key_file = false;
	char err[256] = "";
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		rc = 0;
		if (!strcmp(a, "--tcp")) {
			transport = RCK_PROBE_TRANSPORT_TCP;
		} else if (!strcmp(a, "--size") && v) {
			size = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(a, "--iters") && v) {
			iters = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(a, "--config") && v) {
			struct rck_thresholds *th = NULL;

			rc = rck_thresholds_new(&th);
			if (!rc)
				rc = rck_thresholds_load(th, v, err, sizeof(err));
			if (!rc)
				rc = rck_preflight_config_set_thresholds(c, th);
			rck_thresholds_free(th);
			i++;
		} else if (!strcmp(a, "--launcher") && v) {
			rc = rck_preflight_config_set_launcher(c, v, NULL);
			i++;
		} else if (!strcmp(a, "--key-file") && v) {
			rc = load_key(c, v, err, sizeof(err));
			key_file = true;
			i++;
		} else if (!strcmp(a, "--spares") && v) {
			rc = rck_preflight_config_add_spares(c, v, err, sizeof(err));
			i++;
		} else if (!strcmp(a, "--timeout") && v) {
			rc = rck_ctx_set_timeout_ms(ctx, (unsigned int)strtoul(v, NULL, 10));
			i++;
		} else if (a[0] != '-' && !hosts) {
			hosts = a;
			rc = rck_preflight_config_add_hosts(c, hosts, err, sizeof(err));
		} else {
			return usage();
		}
		if (rc) {
			fprintf(stderr, "preflight-example: %s: %s\n", a, err[0] ? err : strerror(-rc));
			return 2;
		}
	}
	if (!hosts)
		return usage();
	/* The library never reads the environment; a program may (as the tool does). */
	env_key = getenv("ROCECHECK_KEY_FILE");
	if (!key_file && env_key && *env_key && (rc = load_key(c, env_key, err, sizeof(err)))) {
		fprintf(stderr, "preflight-example: $ROCECHECK_KEY_FILE: %s\n", err[0] ? err : strerror(-rc));
		return 2;
	}
	rc = rck_preflight_config_set_probe(c, transport, (uint32_t)size, iters, 0);
	if (rc) {
		fprintf(stderr, "preflight-example: --size/--iters: %s\n", strerror(-rc));
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct rck_preflight_config *c = NULL;
	struct rck_preflight *p = NULL;
	struct rck_ctx *ctx = NULL;
	int rc, status = 2;

	if (rck_ctx_new(&ctx) || rck_preflight_config_new(&c)) {
		fprintf(stderr, "preflight-example: out of memory\n");
		goto out;
	}
	rck_ctx_set_log_fn(ctx, on_log, NULL);
	if (configure(c, ctx, argc, argv))
		goto out;
	rck_preflight_config_set_progress(c, on_progress, NULL);
	running = c;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	rc = rck_preflight_run(ctx, c, &p);
	if (rc) {
		fprintf(stderr, "preflight-example: could not run: %s\n", strerror(-rc));
		goto out;
	}
	printf("verdict: %s\n", rck_verdict_name(rck_preflight_verdict(p)));
	printf("summary: %s\n", rck_preflight_summary(p));

	const struct rck_report *r = rck_preflight_report(p);
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);
		const char *host = rck_finding_host(f);

		printf("finding: %s %s %s %s: %s\n", rck_finding_code_name(rck_finding_code(f)),
		       rck_severity_name(rck_finding_severity(f)),
		       rck_entity_name(rck_finding_entity(f)), host ? host : "-",
		       rck_finding_reason(f));
	}
	for (unsigned int i = 0; i < rck_preflight_bad_host_count(p); i++) {
		const char *host, *reason;

		if (!rck_preflight_bad_host(p, i, &host, &reason))
			printf("drain: %s: %s\n", host, reason);
	}
	for (unsigned int i = 0; i < rck_preflight_replacement_count(p); i++) {
		const char *host, *spare;

		if (!rck_preflight_replacement(p, i, &host, &spare))
			printf("replace: %s with %s\n", host, spare);
	}
	/* The scheduler's exit convention: 0 healthy, 1 degraded, 2 could not run,
	 * 3 inconclusive (too noisy to judge: nothing to drain). */
	status = (int)rck_preflight_verdict(p);
out:
	running = NULL;
	rck_preflight_free(p);
	rck_preflight_config_free(c);
	rck_ctx_free(ctx);
	return status;
}
