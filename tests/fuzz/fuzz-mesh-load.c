/* Fuzz target of the sweep result loader (libFuzzer entry point): any
 * input loads or is refused cleanly; what loads writes back as JSON that
 * loads again into the same shape (and, when small, writes the same), and
 * is judged by the analysis as `rocecheck preflight --from-mesh` does. */
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

	if (size > 4096)
		return 0;
	if (rck_mesh_load_buf(NULL, (const char *)data, size, "fuzz", &m))
		return 0;
	{
		/* The text form must not trip over anything that loaded. */
		static FILE *null;

		if (!null)
			null = fopen("/dev/null", "w");
		if (null)
			rck_mesh_write(m, null, RCK_FORMAT_TEXT);
	}
	a = dump(m, &la);
	if (a) {
		if (rck_mesh_load_buf(NULL, a, la, "again", &again))
			abort();
		if (rck_mesh_host_count(again) != rck_mesh_host_count(m) ||
		    rck_mesh_nic_count(again) != rck_mesh_nic_count(m) ||
		    rck_mesh_cell_count(again) != rck_mesh_cell_count(m))
			abort();
		/* Writing it again gives the same text only for small inputs:
		 * the check costs a second JSON tree, and speed matters here. */
		if (la < 2048) {
			b = dump(again, &lb);
			if (b && (la != lb || memcmp(a, b, la)))
				abort();
			free(b);
		}
		rck_mesh_free(again);
	}
	free(a);
	{
		struct rck_analysis *an;
		struct rck_report *r;

		if (!rck_analysis_new(NULL, &an) && !rck_analysis_add_mesh(an, m) && !rck_analysis_run(an, &r))
			rck_report_free(r);
		rck_analysis_free(an);
	}
	rck_mesh_free(m);
	return 0;
}
