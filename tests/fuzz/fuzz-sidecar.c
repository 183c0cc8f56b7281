/* Fuzz target of the recorded ethtool/pause sidecar parser (`ethtool -S`
 * text of a recorded tree): any text parses, maps onto the neutral
 * counters of every vendor and writes out without failing (bits of the
 * first byte: 0 the source, 4 whether to map, 2-3 whether to write, 1 text
 * or JSON; each costs more than the parsing it follows). */
#include <string.h>

#include "fuzz-common.h"
#include "counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_snapshot snap;
	struct ctr_port p;

	memset(&p, 0, sizeof(p));
	if (ctr_sidecar_parse(fuzz_ctx(), "fuzz", (const char *)data, size,
			      size && data[0] & 1 ? "pause" : "ethtool", &p))
		abort();
	ctr_raw_finish(&p);
	p.dev = strdup("mlx5_0");
	p.port = 1;
	if (!p.dev || (size && data[0] & 16 && ctr_map_neutral(&p, (enum rck_vendor)(size % 5))))
		abort();
	memset(&snap, 0, sizeof(snap));
	snap.ports = &p;
	snap.n_ports = 1;
	/* Writing costs more than the rest (and fuzz-snapshot writes hostile
	 * keys and texts too): one run in four writes, in one form. */
	if (size && (data[0] & 12) == 12 &&
	    rck_snapshot_write_all(&snap, fuzz_sink(), data[0] & 2 ? RCK_FORMAT_JSON : RCK_FORMAT_TEXT,
				   true))
		abort();
	ctr_port_clear(&p);
	return 0;
}
