/* Fuzz target of the sweep result loader (libFuzzer entry point): any
 * input loads or is refused cleanly; what loads writes back as JSON that
 * loads again and writes the same. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocecheck/rocecheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dump(const struct rck_mesh *m, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		abort();
	if (rck_mesh_write(m, f, RCK_FORMAT_JSON)) {
		/* Only ENOMEM may fail a write of a loaded result. */
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_mesh *m, *again;
	char *a, *b;
	size_t la, lb;

	if (size > 65536)
		return 0;
	if (rck_mesh_load_buf(NULL, (const char *)data, size, "fuzz", &m))
		return 0;
	a = dump(m, &la);
	if (a) {
		if (rck_mesh_load_buf(NULL, a, la, "again", &again))
			abort();
		b = dump(again, &lb);
		if (b && (la != lb || memcmp(a, b, la)))
			abort();
		free(b);
		rck_mesh_free(again);
	}
	free(a);
	rck_mesh_free(m);
	/* The text form must not trip over anything that loaded. */
	{
		FILE *null = fopen("/dev/null", "w");

		if (null) {
			struct rck_mesh *t;

			if (!rck_mesh_load_buf(NULL, (const char *)data, size, "fuzz", &t)) {
				rck_mesh_write(t, null, RCK_FORMAT_TEXT);
				rck_mesh_free(t);
			}
			fclose(null);
		}
	}
	return 0;
}
