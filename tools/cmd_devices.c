/* `rocecheck devices [DEV]`: the RDMA inventory as tables or JSON, one line
 * per port with --brief, or the PCIe paths of GPUs and NICs with --topo. */
#include <errno.h>
#include <stdio.h>

#include "commands.h"

#define DEVICES_TOPO 0x100

const struct cli_opt devices_opts[] = {
	{ 'b', 'b', "brief", NULL, "one line per port: DEV/PORT, state, physical state, netdev, rate" },
	{ 'T', 0, "topo", NULL, "PCIe paths of GPUs and NICs, the GPU x NIC matrix, IOMMU and peer memory" },
	{ 0 }
};

static int devices_opt(struct cli *cli, void *data, int id, const char *arg)
{
	unsigned int *flags = data;

	if (id == 'b')
		*flags |= RCK_INVENTORY_BRIEF;
	if (id == 'T')
		*flags |= DEVICES_TOPO;
	return 0;
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
		return devices_topo(cli);
	}
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
