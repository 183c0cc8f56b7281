/* Fuzz target of the monitor's event lines as --collect reads them: any
 * text is taken or refused with one line naming it; grouping never fails. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/monitor_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_set s = { 0 };
	struct mf_list l = { 0 };
	char err[256] = "";
	int rc = mc_add_events(&s, (const char *)data, size, "fuzz", err, sizeof(err));

	if (rc && (rc != -EINVAL && rc != -E2BIG && rc != -ENOMEM))
		abort();
	if (rc && (strncmp(err, "fuzz:", 5) || strchr(err, '\n')))
		abort();
	if (mc_group(&s, NULL, NULL, &l) && l.n > s.n + 1)
		abort();
	mf_list_free(&l);
	mc_set_free(&s);
	return 0;
}
