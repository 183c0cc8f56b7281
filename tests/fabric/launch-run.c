/* Test helper: launches an agent command on hosts through a launcher with
 * librocecheck's launch API and prints one line per host, then stops them.
 * usage: launch-run LAUNCHER TIMEOUT_MS HOST... [-- AGENT WORD...] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocecheck/rocecheck.h>

int main(int argc, char **argv)
{
	struct rck_launch_opts o;
	struct rck_launch *l = NULL;
	int nh = 0, rc;

	if (argc < 4) {
		fprintf(stderr, "usage: launch-run LAUNCHER TIMEOUT_MS HOST... [-- AGENT WORD...]\n");
		return 2;
	}
	rck_launch_opts_init(&o);
	o.launcher = argv[1];
	o.start_timeout_ms = (unsigned int)strtoul(argv[2], NULL, 10);
	while (3 + nh < argc && strcmp(argv[3 + nh], "--"))
		nh++;
	if (3 + nh < argc)
		o.agent_argv = (const char *const *)&argv[3 + nh + 1];
	rc = rck_launch_new(NULL, &o, (const char *const *)&argv[3], (size_t)nh, &l);
	if (rc) {
		fprintf(stderr, "launch-run: %s\n", strerror(-rc));
		return 2;
	}
	rc = rck_launch_start(l);
	for (int i = 0; i < nh; i++) {
		const char *r = rck_launch_host_reason(l, (size_t)i);
		const char *t = rck_launch_host_token(l, (size_t)i);
		printf("%s %s %u %s %u ms%s%s\n", rck_launch_host(l, (size_t)i),
		       rck_launch_status_name(rck_launch_host_status(l, (size_t)i)), rck_launch_host_port(l, (size_t)i),
		       t ? t : "-", rck_launch_host_ms(l, (size_t)i), r ? " reason: " : "", r ? r : "");
	}
	fflush(stdout);
	if (!rc)
		rc = rck_launch_stop(l);
	rck_launch_free(l);
	return rc ? 1 : 0;
}
