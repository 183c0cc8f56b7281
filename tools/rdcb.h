/* rocedcb's commands (rdcb_*.c), their option tables and the helpers they
 * share; the command table is in rocedcb.c. */
#ifndef RCK_TOOLS_RDCB_H
#define RCK_TOOLS_RDCB_H

#include "cli.h"

#define RDCB_STATE_DIR "/run/rocedcb"
/* LLDP is sent every 30 s by default: wait a little longer. */
#define RDCB_WAIT_S 35
/* check: no drift but some field unknown; apply --dry-run: the plan has a
 * part whose current value could not be read (rocedcb(8) EXIT STATUS). */
#define RDCB_EXIT_UNKNOWN 3

enum { RDCB_OPT_DRY_RUN = 256, RDCB_OPT_STATE_DIR, RDCB_OPT_WAIT, RDCB_OPT_PEER, RDCB_OPT_LLDPAD };

struct rdcb_opts {
	bool dry_run;
	bool peer;               /* check: also compare with the switch's LLDP */
	const char *state_dir;
	unsigned long wait_s;    /* LLDP wait */
	bool wait_given;
	bool lldpad;             /* peer: ask lldpad instead of capturing */
};

extern const struct cli_opt rdcb_check_opts[];
extern const struct cli_opt rdcb_apply_opts[];
extern const struct cli_opt rdcb_restore_opts[];
extern const struct cli_opt rdcb_peer_opts[];

/* Parse the running command's options into @o (defaults first); returns
 * CLI_CONTINUE or the exit code, like cli_parse(). */
int rdcb_parse(struct cli *cli, int argc, char **argv, struct rdcb_opts *o);
/* The profile named by the first positional argument; CLI_CONTINUE or the
 * exit code (2: none given, unknown, or refused with its line). */
int rdcb_profile(struct cli *cli, struct rck_dcb_profile **out);
/* The interfaces named in @names (@n of them), or when none the netdevs of
 * every RDMA port. NULL-ended, free with rdcb_ifnames_free(). On failure
 * (-ENOENT: none found) the reason is printed. */
int rdcb_ifnames(struct cli *cli, char **names, int n, char ***out, size_t *count);
void rdcb_ifnames_free(char **names);

int rdcb_show(struct cli *cli, int argc, char **argv);
int rdcb_check(struct cli *cli, int argc, char **argv);
int rdcb_apply(struct cli *cli, int argc, char **argv);
int rdcb_restore(struct cli *cli, int argc, char **argv);
int rdcb_peer(struct cli *cli, int argc, char **argv);

#endif
