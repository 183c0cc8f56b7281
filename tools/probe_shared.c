/* The probe options of mesh and preflight: parsed once here, checked
 * against the library's limits (rck_mesh_limits()), applied to either. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_shared.h"

void shared_probe_init(struct shared_probe *p)
{
	memset(p, 0, sizeof(*p));
	p->transport = RCK_PROBE_TRANSPORT_RDMA;
}

/* "bw", "lat" or "bw,lat" as a mask of 1 << enum rck_mesh_test. */
static int parse_tests(const char *arg, unsigned int *mask)
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

int shared_probe_opt(struct cli *cli, struct shared_probe *p, int id, const char *arg)
{
	const struct rck_mesh_limits *lim = rck_mesh_limits();

	switch (id) {
	case SP_TEST:
		if (parse_tests(arg, &p->tests))
			return cli_bad_args(cli, "invalid --test '%s': bw, lat or bw,lat", arg);
		return 0;
	case SP_RAILS:
		if (strcmp(arg, "same") && strcmp(arg, "all"))
			return cli_bad_args(cli, "invalid --rails '%s': same or all", arg);
		snprintf(p->rails, sizeof(p->rails), "%s", arg);
		return 0;
	case 'd':
		if (!*arg || strlen(arg) + 8 > sizeof(p->rails))
			return cli_bad_args(cli, "invalid --device '%s'", arg);
		snprintf(p->rails, sizeof(p->rails), "device:%s", arg);
		return 0;
	case SP_TRANSPORT:
		if (strcmp(arg, "rdma") && strcmp(arg, "tcp"))
			return cli_bad_args(cli, "invalid --transport '%s': rdma or tcp", arg);
		p->transport = strcmp(arg, "tcp") ? RCK_PROBE_TRANSPORT_RDMA : RCK_PROBE_TRANSPORT_TCP;
		return 0;
	case SP_SIZE:
		if (cli_parse_uint(arg, 1, lim->size_max, &p->size))
			return cli_bad_args(cli, "invalid --size '%s': bytes, 1 to %u", arg, lim->size_max);
		return 0;
	case SP_ITERS:
		if (cli_parse_uint(arg, 1, lim->iters_max, &p->iters))
			return cli_bad_args(cli, "invalid --iters '%s': 1 to %llu", arg,
					    (unsigned long long)lim->iters_max);
		return 0;
	case SP_DURATION:
		if (cli_parse_double(arg, lim->duration_min_s, lim->duration_max_s, &p->duration))
			return cli_bad_args(cli, "invalid --duration '%s': seconds, %g to %g", arg,
					    lim->duration_min_s, lim->duration_max_s);
		return 0;
	case SP_SCHEDULE:
		if (!strcmp(arg, "coordinator"))
			p->schedule = RCK_MESH_SCHEDULE_COORDINATOR;
		else if (!strcmp(arg, "agents"))
			p->schedule = RCK_MESH_SCHEDULE_AGENTS;
		else
			return cli_bad_args(cli, "invalid --schedule '%s': coordinator or agents", arg);
		p->schedule_set = true;
		return 0;
	case SP_KEY:
		p->key_file = arg;
		return 0;
	case SP_LAUNCHER:
		p->launcher = arg;
		return 0;
	default:
		return CLI_CONTINUE;
	}
}

/* The tool, never the library, reads the environment. */
const char *shared_probe_key_file(const struct shared_probe *p)
{
	return p->key_file ? p->key_file : getenv("ROCECHECK_KEY_FILE");
}

void shared_probe_launch_opts(const struct shared_probe *p, struct rck_launch_opts *o)
{
	rck_launch_opts_init(o);
	o->launcher = p->launcher;
	/* rocelab's hosts name their ssh config here: ssh -F. */
	o->ssh_config = getenv("ROCECHECK_SSH_CONFIG");
}

static uint64_t iters_of(const struct shared_probe *p)
{
	return p->iters ? p->iters : rck_mesh_limits()->iters_default;
}

int shared_probe_apply_mesh(struct cli *cli, const struct shared_probe *p, struct rck_mesh_config *c)
{
	if ((p->tests && rck_mesh_config_set_tests(c, p->tests)) ||
	    (*p->rails && rck_mesh_config_set_rails(c, p->rails)) ||
	    (p->schedule_set && rck_mesh_config_set_schedule(c, p->schedule)) ||
	    rck_mesh_config_set_probe(c, p->transport, (uint32_t)p->size, iters_of(p), p->duration))
		return cli_bad_args(cli, "invalid probe settings");
	return 0;
}

int shared_probe_apply_preflight(struct cli *cli, const struct shared_probe *p, struct rck_preflight_config *c)
{
	if ((p->tests && rck_preflight_config_set_tests(c, p->tests)) ||
	    (*p->rails && rck_preflight_config_set_rails(c, p->rails)) ||
	    (p->schedule_set && rck_preflight_config_set_schedule(c, p->schedule)) ||
	    rck_preflight_config_set_probe(c, p->transport, (uint32_t)p->size, iters_of(p), p->duration))
		return cli_bad_args(cli, "invalid probe settings");
	return 0;
}
