/* Fuzz target of the topology file reader: any text is merged whole or
 * refused whole with one line naming it; what is merged lints, and the
 * model written as JSON loads again with the same switches and ports. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocecheck/rocecheck.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_topology *t, *again;
	struct rck_report *r = NULL;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *m;
	int rc;

	if (rck_topology_new(&t))
		abort();
	err[0] = 0;
	rc = rck_topology_add_json(t, (const char *)data, size, "fuzz", err, sizeof(err));
	if (rc && rc != -EINVAL && rc != -E2BIG)
		abort();
	if (rc && (strncmp(err, "fuzz", 4) || memchr(err, '\n', strlen(err)) ||
		   rck_topology_switch_count(t) || rck_topology_cable_count(t)))
		abort();
	if (rck_topology_lint(t, &r))
		abort();
	m = open_memstream(&buf, &len);
	if (!m || rck_topology_write(t, r, m, RCK_FORMAT_JSON) || fclose(m))
		abort();
	if (!rc) {
		if (rck_topology_new(&again) || rck_topology_add_json(again, buf, len, "again", err, sizeof(err)))
			abort();
		if (rck_topology_switch_count(again) != rck_topology_switch_count(t) ||
		    rck_topology_port_count(again) != rck_topology_port_count(t))
			abort();
		rck_topology_free(again);
	}
	free(buf);
	rck_report_free(r);
	rck_topology_free(t);
	return 0;
}
