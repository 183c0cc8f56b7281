/* Fuzz target of the thresholds file parser (libFuzzer entry point): any
 * text is applied whole or refused whole with a one-line message naming
 * the line, and what is applied reads back within each key's range. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rocecheck/analysis.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_thresholds *th, *def;
	char err[256];
	double v, d;
	int rc;

	if (rck_thresholds_new(&th) || rck_thresholds_new(&def))
		abort();
	err[0] = 0;
	rc = rck_thresholds_parse(th, (const char *)data, size, "fuzz", err, sizeof(err));
	if (rc && rc != -EINVAL && rc != -E2BIG)
		abort();
	/* Refused: a message naming the input, and nothing changed. */
	if (rc && (strncmp(err, "fuzz:", 5) || memchr(err, '\n', strlen(err))))
		abort();
	for (unsigned int i = 0; rck_thresholds_key(i); i++) {
		if (rck_thresholds_get(th, rck_thresholds_key(i), &v) ||
		    rck_thresholds_get(def, rck_thresholds_key(i), &d))
			abort();
		if (!isfinite(v) || (rc && v != d))
			abort();
		/* Whatever was accepted is accepted again by set(). */
		if (rck_thresholds_set(def, rck_thresholds_key(i), v))
			abort();
	}
	rck_thresholds_free(th);
	rck_thresholds_free(def);
	return 0;
}
