/* Fuzz target of the agent protocol's LLDP request and reply payloads
 * (libFuzzer entry point): the first byte picks which (even: the reply,
 * odd: the request); what decodes encodes again and decodes to as much. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../mesh/agent_lldp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[AG_MAX_PAYLOAD];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ag_lldp d, again;
	uint32_t id, ms, id2, ms2;
	size_t len;

	if (!size)
		return 0;
	if (data[0] & 1) {
		if (ag_lldp_get_decode(data + 1, size - 1, &id, &ms))
			return 0;
		if (ms > AG_LLDP_CAPTURE_MAX || ag_lldp_get_encode(id, ms, out, sizeof(out), &len) ||
		    ag_lldp_get_decode(out, len, &id2, &ms2) || id2 != id || ms2 != ms)
			abort();
		return 0;
	}
	if (ag_lldp_decode(data + 1, size - 1, &d))
		return 0;
	if (d.n > AG_MAX_LLDP || (d.failed && d.n))
		abort();
	for (size_t i = 0; i < d.n; i++)
		if (!d.nb[i].netdev || !*d.nb[i].netdev)
			abort();
	if (ag_lldp_encode(&d, out, sizeof(out), &len) || ag_lldp_decode(out, len, &again) || again.n != d.n)
		abort();
	ag_lldp_clear(&again);
	ag_lldp_clear(&d);
	return 0;
}
