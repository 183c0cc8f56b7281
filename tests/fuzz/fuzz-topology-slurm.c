/* Fuzz target of Slurm's topology.conf parser: any text is merged whole or
 * refused whole with one line naming it; the model then lints and writes. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocecheck/rocecheck.h>

#include "../../topology/topo_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_topology *t;
	struct rck_report *r = NULL;
	char err[256];
	int rc;

	if (!sink && !(sink = fopen("/dev/null", "w")))
		abort();
	if (rck_topology_new(&t))
		abort();
	err[0] = 0;
	/* Hostlists capped low: the time goes to parsing, not expanding. */
	rc = tp_slurm_parse(t, (const char *)data, size, "fuzz", 256, err, sizeof(err));
	if (rc && rc != -EINVAL && rc != -E2BIG)
		abort();
	if (rc && (strncmp(err, "fuzz:", 5) || memchr(err, '\n', strlen(err)) ||
		   rck_topology_switch_count(t) || rck_topology_cable_count(t)))
		abort();
	if (rck_topology_lint(t, &r) || rck_topology_write(t, r, sink, RCK_FORMAT_TEXT) ||
	    rck_topology_write(t, r, sink, RCK_FORMAT_JSON))
		abort();
	rck_report_free(r);
	rck_topology_free(t);
	return 0;
}
