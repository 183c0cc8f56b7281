/* The probe options `rocecheck mesh` and `rocecheck preflight` share: one
 * table of entries, one parser, limits from the library (tools/probe_shared.c). */
#ifndef RCK_TOOLS_PROBE_SHARED_H
#define RCK_TOOLS_PROBE_SHARED_H

#include <stdbool.h>

#include <rocecheck/rocecheck.h>

#include "cli.h"

/* Ids of the shared entries: above any command's own (256..). */
enum { SP_TEST = 0x1000, SP_RAILS, SP_TRANSPORT, SP_SIZE, SP_ITERS, SP_DURATION, SP_SCHEDULE, SP_KEY,
       SP_LAUNCHER };

/* The entries, written once, inside each command's option table. */
#define SHARED_PROBE_OPTS \
	{ SP_TEST, 0, "test", "bw,lat", "tests on every pair (default bw)" }, \
	{ SP_RAILS, 0, "rails", "same|all", "NIC i with NIC i (default), or every NIC with every NIC" }, \
	{ 'd', 'd', "device", "DEV", "only NICs of device DEV" }, \
	{ SP_TRANSPORT, 0, "transport", "rdma|tcp", "probe transport (default rdma)" }, \
	{ SP_SIZE, 0, "size", "BYTES", "probe message size (default per test)" }, \
	{ SP_ITERS, 0, "iters", "N", "messages per probe (default 1000)" }, \
	{ SP_DURATION, 0, "duration", "S", "measure each probe for S seconds instead" }, \
	{ SP_SCHEDULE, 0, "schedule", "coordinator|agents", \
	  "ignored (kept for one release): the agents run every probe from their task lists" }, \
	{ SP_KEY, 0, "key-file", "FILE", "the agents' shared key (default $ROCECHECK_KEY_FILE)" }, \
	{ SP_LAUNCHER, 0, "launcher", "L", \
	  "start the agents (--once) through none (default: running agents), ssh, srun, pdsh, mpirun or 'TEMPLATE {host}'" }

/* What the shared options said. */
struct shared_probe {
	unsigned int tests;            /* mask of 1 << enum rck_mesh_test; 0: the default */
	char rails[300];               /* "same", "all", "device:DEV"; "": the default */
	enum rck_probe_transport transport;
	unsigned long size, iters;     /* 0: the default */
	double duration;
	bool schedule_set;
	enum rck_mesh_schedule schedule;
	const char *key_file, *launcher;
};

void shared_probe_init(struct shared_probe *p);
/* Option @id with @arg: 0 taken, an exit code for a bad value, or
 * CLI_CONTINUE when @id is not a shared option. */
int shared_probe_opt(struct cli *cli, struct shared_probe *p, int id, const char *arg);
/* The key file: --key-file, else $ROCECHECK_KEY_FILE (NULL: none). */
const char *shared_probe_key_file(const struct shared_probe *p);
/* Launch options for p->launcher, with $ROCECHECK_SSH_CONFIG for ssh. */
void shared_probe_launch_opts(const struct shared_probe *p, struct rck_launch_opts *o);
/* Tests, rails, schedule and probe settings into a sweep's configuration.
 * 0 or EXIT_USAGE (a message printed). */
int shared_probe_apply_mesh(struct cli *cli, const struct shared_probe *p, struct rck_mesh_config *c);
/* The same into a preflight's configuration. */
int shared_probe_apply_preflight(struct cli *cli, const struct shared_probe *p, struct rck_preflight_config *c);

#endif
