/* Fuzz target of the pinglist parser: any text is taken whole or refused
 * with one line naming it; what is taken writes out and parses back the same. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocecheck/monitor.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_pinglist *pl = NULL, *back = NULL;
	char err[256] = "", *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc = rck_pinglist_parse((const char *)data, size, "fuzz", &pl, err, sizeof(err));

	if (rc) {
		if ((rc != -EINVAL && rc != -E2BIG && rc != -ENOMEM) || pl)
			abort();
		if (strncmp(err, "fuzz:", 5) || strchr(err, '\n'))
			abort();
		return 0;
	}
	f = open_memstream(&buf, &len);
	if (!f || rck_pinglist_write(pl, f))
		abort();
	fclose(f);
	if (rck_pinglist_parse(buf, len, "back", &back, err, sizeof(err)) ||
	    rck_pinglist_count(back) != rck_pinglist_count(pl))
		abort();
	for (unsigned int i = 0; i < rck_pinglist_count(pl); i++) {
		const char *n1, *n2, *a1, *a2, *l1, *l2;
		double r1, r2;

		rck_pinglist_peer(pl, i, &n1, &a1, &r1, &l1);
		rck_pinglist_peer(back, i, &n2, &a2, &r2, &l2);
		if (strcmp(n1, n2) || strcmp(a1, a2) || r1 != r2 || !l1 != !l2 || (l1 && strcmp(l1, l2)))
			abort();
	}
	free(buf);
	rck_pinglist_free(pl);
	rck_pinglist_free(back);
	return 0;
}
