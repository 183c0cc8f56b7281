/* `rocecheck devices [DEV]`: the RDMA inventory as tables or JSON, or one
 * line per port with --brief. */
#include <errno.h>
#include <stdio.h>

#include "commands.h"

const struct cli_opt devices_opts[] = {
	{ 'b', 'b', "brief", NULL, "one line per port: DEV/PORT, state, physical state, netdev, rate" },
	{ 0 }
};

static int devices_opt(struct cli *cli, void *data, int id, const char *arg)
{
	unsigned int *flags = data;

	if (id == 'b')
		*flags |= RCK_INVENTORY_BRIEF;
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
