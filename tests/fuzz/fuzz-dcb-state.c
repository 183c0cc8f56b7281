/* Fuzz target of rocedcb's state file loader and of the `show` document
 * reader an agent answers from (libFuzzer entry point): any JSON loads into
 * port states or is refused, never a crash or a leak. */
#include <stdint.h>
#include <stdlib.h>

#include "../../dcb/dcb_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_dcb *d = NULL, **v;
	size_t n;

	if (dcb_state_parse((const char *)data, size, &d) == 0) {
		if (!d || rck_dcb_app_count(d) > DCB_MAX_APPS)
			abort();
		rck_dcb_free(d);
	}
	if (dcb_show_parse((const char *)data, size, &v, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			rck_dcb_free(v[i]);
		free(v);
	}
	return 0;
}
