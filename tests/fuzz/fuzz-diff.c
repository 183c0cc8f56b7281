/* Fuzz target of `counters --diff OLD NEW`: the input is two snapshots (a
 * 2-byte little-endian length of the first, then both); each loads or is
 * refused, and their comparison writes out without failing (text or JSON,
 * all or changed values: the top two bits of the length's second byte). */
#include "fuzz-common.h"
#include "counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_snapshot *x = NULL, *y = NULL;
	size_t n;

	if (size < 2)
		return 0;
	n = ((size_t)data[0] | (size_t)(data[1] & 0x3f) << 8) % (size - 1);
	data += 2;
	size -= 2;
	if (!ctr_snapshot_parse(fuzz_ctx(), "old", (const char *)data, n, &x) &&
	    !ctr_snapshot_parse(fuzz_ctx(), "new", (const char *)data + n, size - n, &y)) {
		struct rck_delta *d = NULL;
		/* The length's top bits pick the form written, to keep each run short. */
		enum rck_format fmt = data[-1] & 0x80 ? RCK_FORMAT_JSON : RCK_FORMAT_TEXT;

		if (!rck_delta_new(x, y, &d) && rck_delta_write(d, fuzz_sink(), fmt, data[-1] & 0x40))
			abort();
		rck_delta_free(d);
	}
	rck_snapshot_free(x);
	rck_snapshot_free(y);
	return 0;
}
