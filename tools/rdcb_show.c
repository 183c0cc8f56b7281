/* `rocedcb show` and `rocedcb check`: read ports, print them or compare
 * them with a profile. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdcb.h"

static int names_or_fail(struct cli *cli, const char *cmd, struct rdcb_opts *o, char ***names,
			 size_t *n)
{
	int rc = rdcb_ifnames(cli, o, names, n);

	if (rc == -ENOENT)
		fprintf(stderr, "%s: %s: no RDMA device found; name an interface\n", cli->prog, cmd);
	else if (rc)
		cli_fail(cli, rc, "%s: cannot list the RDMA devices", cmd);
	return rc;
}

/* Read every port; on a failure, one line naming it. */
static int read_all(struct cli *cli, const char *cmd, char **names, size_t n, struct rck_dcb **v)
{
	for (size_t i = 0; i < n; i++) {
		int rc = rck_dcb_read(cli->ctx, names[i], &v[i]);

		if (rc) {
			fprintf(stderr, "%s: %s: %s: %s\n", cli->prog, cmd, names[i],
				rc == -ENODEV ? "no such interface or RDMA device" : strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static void free_all(struct rck_dcb **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rck_dcb_free(v[i]);
	free(v);
}

int rdcb_show(struct cli *cli, int argc, char **argv)
{
	struct rdcb_opts o;
	struct rck_dcb **v;
	char **names;
	size_t n;
	int rc = rdcb_parse(cli, argc, argv, 0, &o);

	if (rc)
		return rc - 1000;
	if (names_or_fail(cli, "show", &o, &names, &n))
		return EXIT_FAIL;
	v = calloc(n, sizeof(*v));
	rc = v ? read_all(cli, "show", names, n, v) : -ENOMEM;
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
static int add_peer(struct cli *cli, struct rdcb_opts *o, const struct rck_dcb_profile *prof,
		    const struct rck_dcb *host, struct rck_dcb_diff *diff)
{
	struct rck_lldp *l = NULL;
	int rc = rck_lldp_capture(cli->ctx, rck_dcb_ifname(host), (unsigned int)o->timeout_s * 1000, &l);

	if (rc && rc != -ETIMEDOUT && rc != -EBADMSG) {
		fprintf(stderr, "%s: check: %s: LLDP capture: %s%s\n", cli->prog, rck_dcb_ifname(host),
			rc == -EOPNOTSUPP ? "not built in (no libpcap)" : strerror(-rc),
			rc == -EPERM ? " (needs CAP_NET_RAW)" : "");
		return rc;
	}
	rc = rck_dcb_diff_add_peer(diff, prof, host, l);
	rck_lldp_free(l);
	return rc;
}

int rdcb_peer(struct cli *cli, int argc, char **argv)
{
	struct rck_lldp *l = NULL;
	struct rdcb_opts o;
	int rc = rdcb_parse(cli, argc, argv, RDCB_OPT_TIMEOUT, &o);

	if (rc)
		return rc - 1000;
	if (o.n_words != 1) {
		fprintf(stderr, "%s: peer: %s\n", cli->prog,
			o.n_words ? "one interface only" : "an interface is needed");
		rdcb_cmd_usage(cli, "peer", stderr);
		return EXIT_USAGE;
	}
	rc = rck_lldp_capture(cli->ctx, o.words[0], (unsigned int)o.timeout_s * 1000, &l);
	if (rc == -ETIMEDOUT) {
		fprintf(stderr, "%s: peer: %s: no LLDP frame within %lu s\n", cli->prog, o.words[0],
			o.timeout_s);
		return EXIT_FAIL;
	}
	if (rc) {
		fprintf(stderr, "%s: peer: %s: %s%s\n", cli->prog, o.words[0],
			rc == -ENODEV ? "no such interface" : rc == -EBADMSG ? "LLDP frames heard, none decoded" :
			rc == -EOPNOTSUPP ? "LLDP capture not built in (no libpcap)" : strerror(-rc),
			rc == -EPERM ? " (capturing needs CAP_NET_RAW)" : "");
		return EXIT_FAIL;
	}
	rc = rck_lldp_write(l, o.words[0], cli->fmt, stdout);
	rck_lldp_free(l);
	return rc ? cli_fail(cli, rc, "peer") : 0;
}

int rdcb_check(struct cli *cli, int argc, char **argv)
{
	struct rck_dcb_profile *prof = NULL;
	struct rck_dcb_diff **diffs = NULL;
	struct rck_dcb **v = NULL;
	char **names = NULL, err[512];
	size_t n = 0, bad = 0, total_bad = 0;
	struct rdcb_opts o;
	int rc = rdcb_parse(cli, argc, argv, RDCB_OPT_PEER | RDCB_OPT_TIMEOUT, &o);

	if (rc)
		return rc - 1000;
	if (o.n_words < 1) {
		fprintf(stderr, "%s: check: a PROFILE is needed\n", cli->prog);
		rdcb_cmd_usage(cli, "check", stderr);
		return EXIT_USAGE;
	}
	rc = rck_dcb_profile_load(o.words[0], err, sizeof(err), &prof);
	if (rc) {
		fprintf(stderr, "%s: check: %s\n", cli->prog, err[0] ? err : strerror(-rc));
		return 2;
	}
	o.words++;
	o.n_words--;
	rc = names_or_fail(cli, "check", &o, &names, &n);
	if (!rc) {
		v = calloc(n, sizeof(*v));
		diffs = calloc(n, sizeof(*diffs));
		rc = v && diffs ? read_all(cli, "check", names, n, v) : -ENOMEM;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		rc = rck_dcb_check(prof, v[i], &diffs[i]);
		if (!rc && o.peer)
			rc = add_peer(cli, &o, prof, v[i], diffs[i]);
		if (!rc) {
			rck_dcb_diff_count(diffs[i], &bad);
			total_bad += bad;
		}
	}
	if (!rc)
		rc = rck_dcb_diff_write((const struct rck_dcb_diff *const *)diffs, n, cli->fmt, stdout);
	if (rc == -ENOMEM)
		cli_fail(cli, rc, "check");
	for (size_t i = 0; diffs && i < n; i++)
		rck_dcb_diff_free(diffs[i]);
	free(diffs);
	if (v)
		free_all(v, n);
	rdcb_ifnames_free(names);
	rck_dcb_profile_free(prof);
	if (rc)
		return 2;
	return total_bad ? 1 : 0;
}
