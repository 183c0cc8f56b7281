/* A PCIe snapshot as its compact JSON document and back: what the agent
 * sends, what a sweep result keeps, one writer and one (fuzzed) reader. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "pcie.h"

int pcie_json_text(const struct rck_pcie *p, char **buf, size_t *len)
{
	size_t n = 0;
	char *s = NULL;
	FILE *f = open_memstream(&s, &n);
	int rc;

	if (!f)
		return -ENOMEM;
	rc = rck_pcie_write(p, f, RCK_FORMAT_JSON);
	if (fclose(f) && !rc)
		rc = -ENOMEM;
	if (rc) {
		free(s);
		return rc;
	}
	*buf = s;
	*len = n;
	return 0;
}

int pcie_copy(const struct rck_pcie *p, struct rck_pcie **out)
{
	size_t len;
	char *s;
	int rc = pcie_json_text(p, &s, &len);

	if (rc)
		return rc;
	rc = pcie_parse(s, len, out);
	free(s);
	return rc;
}
