/* rocedcb's commands (rdcb_*.c) and the option parsing they share, listed
 * in the command table of rocedcb.c. */
#ifndef RCK_TOOLS_RDCB_H
#define RCK_TOOLS_RDCB_H

#include "cli.h"

#define RDCB_STATE_DIR "/run/rocedcb"

enum {
	RDCB_OPT_DRY_RUN = 1 << 0,
	RDCB_OPT_STATE_DIR = 1 << 1,
	RDCB_OPT_TIMEOUT = 1 << 2,
	RDCB_OPT_PEER = 1 << 3,
};

struct rdcb_opts {
	bool dry_run;
	bool peer;              /* check: also compare with the switch's LLDP */
	const char *state_dir;
	unsigned long timeout_s; /* LLDP wait (default 35: LLDP's 30 s interval) */
	char **words;   /* positional arguments after the command word */
	int n_words;
};

/* Parse a command's own options (@allowed: RDCB_OPT_* plus -j/-p always).
 * Returns 0 to go on, or an exit code + 1000 when it already answered
 * (help printed: 1000, bad arguments: 1002). */
int rdcb_parse(struct cli *cli, int argc, char **argv, unsigned int allowed, struct rdcb_opts *o);
void rdcb_cmd_usage(const struct cli *cli, const char *cmd, FILE *f);
/* The interfaces named, or the netdevs of every RDMA port. NULL-ended,
 * free with rdcb_ifnames_free(). -ENOENT when none found. */
int rdcb_ifnames(struct cli *cli, struct rdcb_opts *o, char ***out, size_t *n);
void rdcb_ifnames_free(char **names);

int rdcb_show(struct cli *cli, int argc, char **argv);
int rdcb_check(struct cli *cli, int argc, char **argv);
int rdcb_apply(struct cli *cli, int argc, char **argv);
int rdcb_restore(struct cli *cli, int argc, char **argv);
int rdcb_peer(struct cli *cli, int argc, char **argv);

#endif
