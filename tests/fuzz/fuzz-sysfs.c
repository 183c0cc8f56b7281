/* Fuzz target of the sysfs attribute parsers, apart from the reads: the
 * input is lines of a recorded tree (device name, board id, firmware,
 * state, netdev, then "name=value" counter files); every value goes
 * through the number, rate, GID and state parsers and into the raw store,
 * and the inventory built from them writes out without failing (mapping
 * and writing counters is fuzz-sidecar's and fuzz-snapshot's). */
#include <string.h>

#include "fuzz-common.h"
#include "counters.h"
#include "inventory.h"
#include "sysfs.h"

#define FIELDS 5

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line, *save = NULL, *field[FIELDS] = { 0 };
	struct rck_inventory inv;
	struct rck_device dev;
	struct rck_port port;
	struct ctr_port p;
	int nf = 0;

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&dev, 0, sizeof(dev));
	memset(&port, 0, sizeof(port));
	memset(&p, 0, sizeof(p));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char key[CTR_KEY_LEN], *eq = strchr(line, '=');
		uint8_t gid[16];
		uint64_t v;
		double d;

		if (nf < FIELDS) {
			field[nf++] = line;
			continue;
		}
		sysfs_parse_u64(line, &v);
		inv_parse_gid(line, gid);
		if (!inv_parse_number(fuzz_ctx(), "rate", line, &d) && !port.has_rate) {
			port.rate_gbps = d;
			port.has_rate = true;
		}
		if (!eq || (size_t)snprintf(key, sizeof(key), "hw_counters/%.*s", (int)(eq - line),
					    line) >= sizeof(key))
			continue;
		if (ctr_raw_add_text(&p, key, eq + 1))
			abort();
	}
	if (nf > 3)
		inv_strip_state(field[3]);
	dev.name = field[0] ? field[0] : "dev";
	dev.board_id = field[1];
	dev.fw_ver = field[2];
	dev.ports = &port;
	dev.n_ports = 1;
	port.dev = &dev;
	port.num = 1;
	port.state = field[3];
	port.netdev = field[4];
	inv.devs = &dev;
	inv.n_devs = 1;

	ctr_raw_finish(&p);
	/* One form per run, picked by the input's length, to keep runs short. */
	if (rck_inventory_write(&inv, fuzz_sink(), size & 1 ? RCK_FORMAT_JSON : RCK_FORMAT_TEXT))
		abort();
	ctr_port_clear(&p);
	free(text);
	return 0;
}
