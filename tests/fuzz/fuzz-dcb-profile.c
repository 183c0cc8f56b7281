/* Fuzz target of the DCB profile parser (libFuzzer entry point): any text
 * parses or is refused with a "SOURCE:LINE: reason" message, never a crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../dcb/dcb_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_dcb_profile *p = NULL;
	char err[256];
	int rc = rck_dcb_profile_parse((const char *)data, size, "fuzz", err, sizeof(err), &p);

	if (rc == 0) {
		if (!p || !p->name[0] || p->n_dscp > RCK_ARRAY_SIZE(p->dscp))
			abort();
		rck_dcb_profile_free(p);
	} else if (p || strncmp(err, "fuzz:", 5)) {
		abort();
	}
	return 0;
}
