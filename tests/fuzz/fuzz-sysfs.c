/* Fuzz target of the sysfs attribute parsers, apart from the reads: the
 * input is lines of a recorded tree (device name, board id, firmware,
 * state, netdev, then "name=value" counter files); every value goes
 * through the number, rate, GID and state parsers, and the inventory and
 * snapshot built from them write out in every form without failing. */
#include <string.h>

#include "fuzz-common.h"
#include "counters.h"
#include "inventory.h"
#include "sysfs.h"

#define FIELDS 5

static void write_all(const struct rck_inventory *inv, const struct rck_snapshot *snap)
{
	for (int fmt = RCK_FORMAT_TEXT; fmt <= RCK_FORMAT_JSON; fmt++)
		if (rck_inventory_write(inv, fuzz_sink(), (enum rck_format)fmt) ||
		    rck_snapshot_write_all(snap, fuzz_sink(), (enum rck_format)fmt, true))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line, *save = NULL, *field[FIELDS] = { 0 };
	struct rck_inventory inv;
	struct rck_snapshot snap;
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
	p.dev = strdup(dev.name);
	p.netdev = field[4] ? strdup(field[4]) : NULL;
	p.port = 1;
	if (!p.dev || (field[4] && !p.netdev) || ctr_map_neutral(&p, rck_device_vendor(&dev)))
		abort();
	memset(&snap, 0, sizeof(snap));
	snap.ports = &p;
	snap.n_ports = 1;
	write_all(&inv, &snap);
	ctr_port_clear(&p);
	free(text);
	return 0;
}
