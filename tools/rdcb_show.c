/* `rocedcb show`, `rocedcb check` and `rocedcb peer`: read ports (and the
 * switch's LLDP), print them or compare them with a profile. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdcb.h"

/* Read every port; on a failure, one line naming it. */
static int read_all(struct cli *cli, char **names, size_t n, struct rck_dcb **v)
{
	for (size_t i = 0; i < n; i++) {
		int rc = rck_dcb_read(cli->ctx, names[i], &v[i]);

		if (rc) {
			cli_msg(cli, "%s: %s", names[i],
				rc == -ENODEV ? "no such interface or RDMA device" : strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static void free_all(struct rck_dcb **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		rck_dcb_free(v[i]);
	free(v);
}

int rdcb_show(struct cli *cli, int argc, char **argv)
{
	struct rdcb_opts o;
	struct rck_dcb **v;
	char **names;
	size_t n;
	int rc = rdcb_parse(cli, argc, argv, &o);

	if (rc != CLI_CONTINUE)
		return rc;
	if (rdcb_ifnames(cli, cli->args, cli->nargs, &names, &n))
		return EXIT_FAIL;
	v = calloc(n, sizeof(*v));
	rc = v ? read_all(cli, names, n, v) : -ENOMEM;
	if (!rc)
		rc = rck_dcb_write((const struct rck_dcb *const *)v, n, cli->fmt, stdout);
	if (rc == -ENOMEM)
		cli_fail(cli, rc, "show");
	free_all(v, n);
	rdcb_ifnames_free(names);
	return rc ? EXIT_FAIL : 0;
}

/* The switch's side: what its LLDP says, as more fields of the comparison.
 * No LLDP heard is a field that differs, not an error. */
static int add_peer(struct cli *cli, const struct rdcb_opts *o, const struct rck_dcb_profile *prof,
		    const struct rck_dcb *host, struct rck_dcb_diff *diff)
{
	struct rck_lldp *l = NULL;
	int rc = rck_lldp_capture(cli->ctx, rck_dcb_ifname(host), (unsigned int)o->wait_s * 1000, &l);

	if (rc && rc != -ETIMEDOUT && rc != -EBADMSG) {
		cli_msg(cli, "%s: LLDP capture: %s%s", rck_dcb_ifname(host),
			rc == -EOPNOTSUPP ? "not built in (no libpcap)" : strerror(-rc),
			rc == -EPERM ? " (needs CAP_NET_RAW)" : "");
		return rc;
	}
	rc = rck_dcb_diff_add_peer(diff, prof, host, l);
	rck_lldp_free(l);
	return rc;
}

static int peer_write(struct cli *cli, struct rck_lldp *l)
{
	int rc = rck_lldp_write(l, cli->args[0], cli->fmt, stdout);

	rck_lldp_free(l);
	return rc ? cli_fail(cli, rc, "cannot write") : 0;
}

int rdcb_peer(struct cli *cli, int argc, char **argv)
{
	struct rck_lldp *l = NULL;
	struct rdcb_opts o;
	int rc = rdcb_parse(cli, argc, argv, &o);

	if (rc != CLI_CONTINUE)
		return rc;
	if (cli->nargs != 1)
		return cli_usage_err(cli, cli->nargs ? "one interface only" : "an interface is needed");
	if (o.lldpad) {
		rc = rck_lldp_lldpad(cli->ctx, cli->args[0], &l);
		if (rc) {
			cli_msg(cli, "%s: lldpad: %s", cli->args[0],
				rc == -ECONNREFUSED ? "not running (in this network namespace)" :
				rc == -ENODEV ? "does not manage this interface" :
				rc == -ENODATA ? "heard no neighbor here" :
				rc == -EBADMSG ? "an answer that does not parse" : strerror(-rc));
			return EXIT_FAIL;
		}
		return peer_write(cli, l);
	}
	rc = rck_lldp_capture(cli->ctx, cli->args[0], (unsigned int)o.wait_s * 1000, &l);
	if (rc == -ETIMEDOUT) {
		cli_msg(cli, "%s: no LLDP frame within %lu s", cli->args[0], o.wait_s);
		return EXIT_FAIL;
	}
	if (rc) {
		cli_msg(cli, "%s: %s%s", cli->args[0],
			rc == -ENODEV ? "no such interface" : rc == -EBADMSG ? "LLDP frames heard, none decoded" :
			rc == -EOPNOTSUPP ? "LLDP capture not built in (no libpcap)" : strerror(-rc),
			rc == -EPERM ? " (capturing needs CAP_NET_RAW)" : "");
		return EXIT_FAIL;
	}
	return peer_write(cli, l);
}

int rdcb_check(struct cli *cli, int argc, char **argv)
{
	struct rck_dcb_profile *prof = NULL;
	struct rck_dcb_diff **diffs = NULL;
	struct rck_dcb **v = NULL;
	char **names = NULL;
	size_t n = 0, bad = 0, total_bad = 0, total_unknown = 0;
	struct rdcb_opts o;
	int rc = rdcb_parse(cli, argc, argv, &o);

	if (rc != CLI_CONTINUE)
		return rc;
	rc = rdcb_profile(cli, &prof);
	if (rc != CLI_CONTINUE)
		return rc;
	rc = rdcb_ifnames(cli, cli->args + 1, cli->nargs - 1, &names, &n);
	if (!rc) {
		v = calloc(n, sizeof(*v));
		diffs = calloc(n, sizeof(*diffs));
		rc = v && diffs ? read_all(cli, names, n, v) : -ENOMEM;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		rc = rck_dcb_check(prof, v[i], &diffs[i]);
		if (!rc && o.peer)
			rc = add_peer(cli, &o, prof, v[i], diffs[i]);
		if (!rc) {
			rck_dcb_diff_count(diffs[i], &bad);
			total_bad += bad;
			total_unknown += rck_dcb_diff_unknowns(diffs[i]);
		}
	}
	if (!rc)
		rc = rck_dcb_diff_write((const struct rck_dcb_diff *const *)diffs, n, cli->fmt, stdout);
	if (rc == -ENOMEM)
		cli_fail(cli, rc, "check");
	for (size_t i = 0; diffs && i < n; i++)
		rck_dcb_diff_free(diffs[i]);
	free(diffs);
	free_all(v, n);
	rdcb_ifnames_free(names);
	rck_dcb_profile_free(prof);
	if (rc)
		return 2;
	/* Drift wins over unknown: 1 says a setting is wrong, 3 only that some
	 * field could not be read (rocedcb(8) EXIT STATUS). */
	return total_bad ? 1 : total_unknown ? RDCB_EXIT_UNKNOWN : 0;
}
