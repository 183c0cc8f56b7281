/* Fuzz target of the snapshot loader (what `counters --diff` reads): any
 * input loads or is refused cleanly, and what loads writes out as JSON
 * (never failing) and loads back to the very same JSON. */
#include <string.h>

#include "fuzz-common.h"
#include "counters.h"

static char *dump(const struct rck_snapshot *s, enum rck_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f || rck_snapshot_write_all(s, f, fmt, true))
		abort();
	fclose(f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_snapshot *s = NULL, *again = NULL;
	char *a, *b;

	if (ctr_snapshot_parse(fuzz_ctx(), "fuzz", (const char *)data, size, &s))
		return 0;
	/* Text and deltas are fuzz-diff's; here the exact JSON round trip. */
	a = dump(s, RCK_FORMAT_JSON);
	/* Exact round trip: every value, key and name comes back unchanged. */
	if (ctr_snapshot_parse(fuzz_ctx(), "again", a, strlen(a), &again))
		abort();
	b = dump(again, RCK_FORMAT_JSON);
	if (strcmp(a, b))
		abort();
	free(a);
	free(b);
	rck_snapshot_free(s);
	rck_snapshot_free(again);
	return 0;
}
