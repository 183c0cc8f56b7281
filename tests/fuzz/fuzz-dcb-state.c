/* Fuzz target of rocedcb's state file loader (libFuzzer entry point): any
 * JSON loads into a port state or is refused, never a crash or a leak. */
#include <stdint.h>
#include <stdlib.h>

#include "../../dcb/dcb_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_dcb *d = NULL;

	if (dcb_state_parse((const char *)data, size, &d) == 0) {
		if (!d || rck_dcb_app_count(d) > DCB_MAX_APPS)
			abort();
		rck_dcb_free(d);
	}
	return 0;
}
