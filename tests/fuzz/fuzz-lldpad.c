/* Fuzz target of the lldpad client's answer parser (libFuzzer entry point):
 * any datagram from lldpad's socket decodes or is refused, never more. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../dcb/dcb_internal.h"
#include "../../dcb/lldp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct rck_lldp *l = NULL;

	if (!null)
		null = fopen("/dev/null", "w");
	if (dcb_lldpad_parse((const char *)data, size, "dB", &l) == 0) {
		if (!l || rck_lldp_app_count(l) > LLDP_MAX_APPS)
			abort();
		if (null && rck_lldp_write(l, "dB", RCK_FORMAT_JSON, null))
			abort();
		rck_lldp_free(l);
	} else if (l) {
		abort();
	}
	return 0;
}
