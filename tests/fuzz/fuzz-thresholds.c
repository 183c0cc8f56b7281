/* Fuzz target of the thresholds parser: any text is applied whole or
 * refused whole with one line naming it; what is applied reads back in range. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rocecheck/analysis.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rck_thresholds *def;
static double defv[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_thresholds *th;
	char err[256];
	double v;
	int rc;

	if (!def) {
		if (rck_thresholds_new(&def))
			abort();
		for (unsigned int i = 0; rck_thresholds_key(i); i++)
			rck_thresholds_get(def, rck_thresholds_key(i), &defv[i]);
	}
	if (rck_thresholds_new(&th))
		abort();
	err[0] = 0;
	rc = rck_thresholds_parse(th, (const char *)data, size, "fuzz", err, sizeof(err));
	if (rc && rc != -EINVAL && rc != -E2BIG)
		abort();
	/* Refused: a message naming the input, and nothing changed. */
	if (rc && (strncmp(err, "fuzz:", 5) || memchr(err, '\n', strlen(err))))
		abort();
	for (unsigned int i = 0; rck_thresholds_key(i); i++) {
		if (rck_thresholds_get(th, rck_thresholds_key(i), &v))
			abort();
		if (!isfinite(v) || (rc && v != defv[i]))
			abort();
		/* Whatever was accepted is accepted again by set(). */
		if (!rc && v != defv[i] && rck_thresholds_set(th, rck_thresholds_key(i), v))
			abort();
	}
	rck_thresholds_free(th);
	return 0;
}
