/* `rocecheck devices [DEV]`: the RDMA inventory as tables or JSON, one line
 * per port with --brief, or the PCIe paths of GPUs and NICs with --topo
 * (saved ones judged together with --topo --lint FILE...). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

#define DEVICES_TOPO 0x100
#define DEVICES_LINT 0x200

const struct cli_opt devices_opts[] = {
	{ 'b', 'b', "brief", NULL, "one line per port: DEV/PORT, state, physical state, netdev, rate" },
	{ 'T', 0, "topo", NULL, "PCIe paths of GPUs and NICs, the GPU x NIC matrix, IOMMU and peer memory" },
	{ 'L', 0, "lint", NULL, "with --topo: judge saved --topo -j files (FILE...), each host and the odd one out" },
	{ 0 }
};

static int devices_opt(struct cli *cli, void *data, int id, const char *arg)
{
	unsigned int *flags = data;

	if (id == 'b')
		*flags |= RCK_INVENTORY_BRIEF;
	if (id == 'T')
		*flags |= DEVICES_TOPO;
	if (id == 'L')
		*flags |= DEVICES_LINT;
	return 0;
}

/* Host name of a saved file: its base name without ".json". */
static void host_of(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".json"))
		n -= 5;
	snprintf(buf, len, "%.*s", (int)n, base);
}

/* --topo --lint FILE...: the PCIe checks of each saved host and across them. */
static int devices_lint(struct cli *cli)
{
	struct rck_pcie **p = calloc(cli->nargs ? (size_t)cli->nargs : 1, sizeof(*p));
	struct rck_analysis *a = NULL;
	struct rck_report *r = NULL;
	int rc = 0;

	if (!cli->nargs) {
		free(p);
		return cli_usage_err(cli, "--lint needs the files written by --topo -j");
	}
	if (!p || (rc = rck_analysis_new(NULL, &a))) {
		free(p);
		return cli_fail(cli, -ENOMEM, "devices");
	}
	for (int i = 0; i < cli->nargs && !rc; i++) {
		char host[256];

		host_of(cli->args[i], host, sizeof(host));
		if ((rc = rck_pcie_load(cli->ctx, cli->args[i], &p[i])))
			rc = cli_fail(cli, rc, "cannot load '%s'", cli->args[i]);
		else if ((rc = rck_analysis_add_host(a, host, NULL, NULL, NULL)) ||
			 (rc = rck_analysis_set_host_pcie(a, (unsigned int)i, p[i], NULL)))
			rc = cli_fail(cli, rc, "'%s': host '%s'", cli->args[i], host);
	}
	if (!rc && (rc = rck_analysis_run(a, &r)))
		rc = cli_fail(cli, rc, "cannot judge the hosts");
	if (!rc && (rc = rck_report_write(r, stdout, cli->fmt)))
		rc = cli_fail(cli, rc, "cannot write the report");
	if (!rc && rck_report_verdict(r) != RCK_VERDICT_HEALTHY)
		rc = 1;
	rck_report_free(r);
	rck_analysis_free(a);
	for (int i = 0; i < cli->nargs; i++)
		rck_pcie_free(p[i]);
	free(p);
	return rc;
}

static int devices_topo(struct cli *cli)
{
	struct rck_pcie *p;
	int rc;

	if (cli->nargs)
		return cli_usage_err(cli, "--topo takes no device");
	rc = rck_pcie_new(cli->ctx, &p);
	if (rc)
		return cli_fail(cli, rc, "cannot read the PCIe tree");
	rc = rck_pcie_write(p, stdout, cli->fmt);
	rck_pcie_free(p);
	if (rc)
		return cli_fail(cli, rc, "cannot write the PCIe tree");
	return 0;
}

int cmd_devices(struct cli *cli, int argc, char **argv)
{
	struct rck_inventory *inv;
	unsigned int flags = 0;
	const char *dev;
	int rc;

	rc = cli_parse(cli, argc, argv, devices_opt, &flags);
	if (rc != CLI_CONTINUE)
		return rc;
	if (flags & DEVICES_TOPO) {
		if (flags & RCK_INVENTORY_BRIEF)
			return cli_usage_err(cli, "--topo and --brief are exclusive");
		return flags & DEVICES_LINT ? devices_lint(cli) : devices_topo(cli);
	}
	if (flags & DEVICES_LINT)
		return cli_usage_err(cli, "--lint goes with --topo");
	if (cli->nargs > 1)
		return cli_usage_err(cli, "unexpected argument '%s'", cli->args[1]);
	dev = cli->nargs ? cli->args[0] : NULL;
	rc = rck_inventory_new(cli->ctx, &inv);
	if (rc)
		return cli_fail(cli, rc, "cannot read the RDMA inventory");
	if (dev && !rck_inventory_find(inv, dev)) {
		rck_inventory_free(inv);
		return cli_fail(cli, -ENODEV, "%s", dev);
	}
	if (rck_inventory_device_count(inv) == 0 && cli->fmt == RCK_FORMAT_TEXT)
		cli_msg(cli, "no RDMA devices found");
	rc = rck_inventory_write_view(inv, stdout, cli->fmt, dev, flags);
	rck_inventory_free(inv);
	if (rc)
		return cli_fail(cli, rc, "cannot write the inventory");
	return 0;
}
