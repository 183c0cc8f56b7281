/* `rocecheck mesh --launcher`: agents started with --once on every host
 * through the launch API, their PORT TOKEN handed to the coordinator; and
 * the --test words mesh and preflight share. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_launch.h"

int mesh_launch_hosts(struct cli *cli, struct rck_mesh_config *c, const struct rck_hostlist *hl,
		      const char *launcher, struct rck_launch **out)
{
	unsigned int n = rck_hostlist_count(hl);
	const char **hosts = calloc(n ? n : 1, sizeof(*hosts));
	const char *cfg = getenv("ROCECHECK_SSH_CONFIG");
	const char *ssh_extra[] = { "-F", cfg, NULL };
	struct rck_launch_opts o;
	struct rck_launch *l = NULL;
	int rc;

	*out = NULL;
	if (!hosts)
		return cli_fail(cli, -ENOMEM, "mesh");
	for (unsigned int i = 0; i < n; i++)
		hosts[i] = rck_hostlist_get(hl, i);
	rck_launch_opts_init(&o);
	o.launcher = launcher;
	/* The environment names an ssh config (rocelab host sets it): ssh -F. */
	if (!strcmp(launcher, "ssh") && cfg && *cfg)
		o.extra_args = ssh_extra;
	rc = rck_launch_new(cli->ctx, &o, hosts, n, &l);
	free(hosts);
	if (rc == -EINVAL)
		return cli_bad_args(cli, "mesh: invalid --launcher '%s' or host names for it", launcher);
	if (rc)
		return cli_fail(cli, rc, "mesh: --launcher");
	rc = rck_launch_start(l);
	if (rc) {
		rck_launch_free(l);
		return cli_fail(cli, rc, "mesh: --launcher %s", launcher);
	}
	for (unsigned int i = 0; i < n; i++) {
		const char *tok = rck_launch_host_token(l, i);
		unsigned int port = rck_launch_host_port(l, i);

		/* A host the launcher could not start is in the result, unreachable
		 * with the launcher's reason, and is neither resolved nor dialled. */
		rc = tok ? rck_mesh_config_add_host(c, rck_launch_host(l, i), NULL, port, (const uint8_t *)tok, strlen(tok))
			 : rck_mesh_config_add_host(c, rck_launch_host(l, i), NULL, 0, NULL, 0);
		if (!rc && rck_launch_host_reason(l, i))
			rc = rck_mesh_config_host_down(c, rck_launch_host(l, i), rck_launch_host_reason(l, i));
		if (rc) {
			rck_launch_free(l);
			return cli_bad_args(cli, "mesh: invalid host '%s'", rck_launch_host(l, i));
		}
	}
	*out = l;
	return 0;
}

void mesh_launch_mark(const struct rck_launch *l, struct rck_mesh *m)
{
	for (size_t i = 0; l && m && i < rck_launch_host_count(l); i++) {
		const char *why = rck_launch_host_reason(l, i);
		unsigned int h;

		/* Only where the sweep found no agent either. */
		if (!why || rck_mesh_find_host(m, rck_launch_host(l, i), &h) || !rck_mesh_host_unreachable(m, h))
			continue;
		rck_mesh_host_set_unreachable(m, h, why);
	}
}

int mesh_parse_schedule(const char *arg, enum rck_mesh_schedule *out)
{
	if (!strcmp(arg, "coordinator"))
		*out = RCK_MESH_SCHEDULE_COORDINATOR;
	else if (!strcmp(arg, "agents"))
		*out = RCK_MESH_SCHEDULE_AGENTS;
	else
		return -EINVAL;
	return 0;
}

int mesh_parse_tests(const char *arg, unsigned int *mask)
{
	char buf[64], *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	*mask = 0;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "bw"))
			*mask |= 1u << RCK_MESH_TEST_BW;
		else if (!strcmp(w, "lat"))
			*mask |= 1u << RCK_MESH_TEST_LAT;
		else
			return -EINVAL;
	}
	return *mask ? 0 : -EINVAL;
}
