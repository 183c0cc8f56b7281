/* `rocecheck devices`: the RDMA inventory as a table or JSON. */
#include <errno.h>
#include <stdio.h>

#include "commands.h"

int cmd_devices(struct cli *cli, int argc, char **argv)
{
	struct rck_inventory *inv;
	int rc;

	(void)argv;
	if (argc > 1)
		return cli_bad_args(cli, "devices: unexpected argument '%s'", argv[1]);
	rc = rck_inventory_new(cli->ctx, &inv);
	if (rc)
		return cli_fail(cli, rc, "cannot read the RDMA inventory");
	if (rck_inventory_device_count(inv) == 0 && cli->fmt == RCK_FORMAT_TEXT)
		fprintf(stderr, "%s: no RDMA devices found\n", cli->prog);
	rc = rck_inventory_write(inv, stdout, cli->fmt);
	rck_inventory_free(inv);
	if (rc)
		return cli_fail(cli, rc, "cannot write the inventory");
	return 0;
}
