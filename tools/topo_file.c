/* --topology FILE|agents (topo_file.h): the topology a sweep plans by and its
 * analysis localises by, from either file format rocecheck topology reads. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "topo_file.h"

/* The first non-blank byte of @path, or EOF (-errno in *@err). */
static int first_byte(const char *path, int *err)
{
	FILE *f = fopen(path, "re");
	int c;

	*err = 0;
	if (!f) {
		*err = -errno;
		return EOF;
	}
	while ((c = fgetc(f)) != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
		;
	fclose(f);
	return c;
}

int cli_topology_load(struct cli *cli, const char *path, struct rck_topology **out)
{
	char err[512] = "";
	int e, c, rc;

	*out = NULL;
	if (!path || cli_topology_agents(path))
		return 0;
	c = first_byte(path, &e);
	if (e)
		return cli_bad_args(cli, "invalid --topology '%s': %s", path, strerror(-e));
	if (rck_topology_new(out))
		return cli_bad_args(cli, "out of memory");
	rc = c == '{' ? rck_topology_load_json(*out, path, err, sizeof(err))
		      : rck_topology_load_slurm(*out, path, err, sizeof(err));
	if (rc) {
		rck_topology_free(*out);
		*out = NULL;
		return cli_bad_args(cli, "invalid --topology: %s", rc == -ENOMEM ? "out of memory" : *err ? err : path);
	}
	return 0;
}

int cli_lldp_capture_opt(struct cli *cli, const char *arg, unsigned long *ms)
{
	if (cli_parse_uint(arg, 0, 120000, ms))
		return cli_bad_args(cli, "--lldp-capture takes milliseconds, 0..120000");
	return 0;
}
