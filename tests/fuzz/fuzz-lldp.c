/* Fuzz target of the LLDP/DCBX decoder (libFuzzer entry point): any frame
 * decodes or is refused; what decodes has bounded tables and writes as JSON. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../dcb/lldp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct rck_lldp *l = NULL;

	if (!null)
		null = fopen("/dev/null", "w");
	if (rck_lldp_decode(data, size, &l) == 0) {
		if (rck_lldp_app_count(l) > LLDP_MAX_APPS || rck_lldp_warning_count(l) > LLDP_MAX_WARN)
			abort();
		if (null && rck_lldp_write(l, "fuzz0", RCK_FORMAT_JSON, null))
			abort();
		rck_lldp_free(l);
	} else if (l) {
		abort();
	}
	return 0;
}
