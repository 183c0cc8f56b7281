/* Fuzz target of `counters --diff OLD NEW`: the input is two snapshots (a
 * 2-byte little-endian length of the first, then both); each loads or is
 * refused, and their comparison writes out in every form without failing. */
#include "fuzz-common.h"
#include "counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_snapshot *x = NULL, *y = NULL;
	size_t n;

	if (size < 2)
		return 0;
	n = ((size_t)data[0] | (size_t)data[1] << 8) % (size - 1);
	data += 2;
	size -= 2;
	if (!ctr_snapshot_parse(fuzz_ctx(), "old", (const char *)data, n, &x) &&
	    !ctr_snapshot_parse(fuzz_ctx(), "new", (const char *)data + n, size - n, &y)) {
		for (int order = 0; order < 2; order++) {
			struct rck_delta *d = NULL;

			if (rck_delta_new(order ? y : x, order ? x : y, &d))
				continue;
			for (int all = 0; all < 2; all++)
				if (rck_delta_write(d, fuzz_sink(), RCK_FORMAT_TEXT, all) ||
				    rck_delta_write(d, fuzz_sink(), RCK_FORMAT_JSON, all))
					abort();
			rck_delta_free(d);
		}
	}
	rck_snapshot_free(x);
	rck_snapshot_free(y);
	return 0;
}
