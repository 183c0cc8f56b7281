/* Fuzz target of the PCIe snapshot's JSON loader (lib/pcie_load.c): what
 * loads must write out again and pair its GPUs and NICs without failing. */
#include "fuzz-common.h"
#include "pcie.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_pcie *p;

	if (pcie_parse((const char *)data, size, &p))
		return 0;
	for (unsigned int i = 0; i < rck_pcie_fn_count(p); i++)
		if (rck_pcie_fn_kind(rck_pcie_fn(p, i)) == RCK_PCIE_GPU && pcie_best(p, i) > RCK_PCIE_REL_COUNT)
			abort();
	if (rck_pcie_write(p, fuzz_sink(), size & 1 ? RCK_FORMAT_JSON : RCK_FORMAT_TEXT))
		abort();
	rck_pcie_free(p);
	return 0;
}
