/* Fuzz target of the agent's PCIe reply (mesh/agent_pcie_proto.c): an
 * AG_PCIE payload as a peer sends it; what decodes encodes again and
 * decodes to as many functions. Seeds: test-mesh-pcie --seeds DIR. */
#include <stdint.h>
#include <stdlib.h>

#include "../../mesh/agent_proto.h"
#include "pcie.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[AG_MAX_PAYLOAD];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ag_pcie d, again;
	size_t len;

	if (ag_pcie_decode(data, size, &d))
		return 0;
	if (d.failed == !!d.pcie)
		abort();
	if (ag_pcie_encode(d.id, d.pcie, d.failed ? d.error : NULL, out, sizeof(out), &len) == 0) {
		if (ag_pcie_decode(out, len, &again) || again.failed != d.failed ||
		    (d.pcie && rck_pcie_fn_count(again.pcie) != rck_pcie_fn_count(d.pcie)))
			abort();
		rck_pcie_free(again.pcie);
	}
	rck_pcie_free(d.pcie);
	return 0;
}
