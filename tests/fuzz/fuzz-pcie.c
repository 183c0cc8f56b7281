/* Fuzz target of what the PCIe reader parses itself (lib/pcie_host.c): the
 * kernel command line's IOMMU options, aer_dev_* files, kernel releases and
 * IOMMU group types, PCI function names; the input's first byte picks the parser. */
#include <errno.h>
#include <string.h>

#include "fuzz-common.h"
#include "pcie.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	unsigned int a, b;
	uint64_t v;

	if (!size)
		return 0;
	text = malloc(size);
	if (!text)
		abort();
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] & 7) {
	case 0:
		if ((unsigned int)pcie_parse_cmdline(text) > RCK_IOMMU_TRANSLATED)
			abort();
		break;
	case 1:
		if (pcie_parse_aer(text, &v) && pcie_parse_aer(text, &v) != -EINVAL)
			abort();
		break;
	case 2:
		if (!pcie_parse_release(text, &a, &b) && (a > 1000 || b > 1000))
			abort();
		break;
	case 4:
		if (pcie_is_bdf(text) && strlen(text) > 13)
			abort();
		break;
	default:
		if ((unsigned int)pcie_parse_group_type(text) > RCK_IOMMU_TRANSLATED)
			abort();
		break;
	}
	free(text);
	return 0;
}
