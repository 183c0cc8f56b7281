/* Fuzz target of the host list parsers (libFuzzer entry point): any input,
 * as a nodelist expression and as a hostfile, must expand or be refused
 * with a message, never crash, and whatever expands must hold only valid
 * names within the cap. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../mesh/hostlist.h"
#include "rocecheck/mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct rck_hostlist *hl, int rc, const char *err)
{
	if (rc && !err[0])
		abort();
	if (rck_hostlist_count(hl) > 64)
		abort();
	for (unsigned int i = 0; i < rck_hostlist_count(hl); i++) {
		const char *n = rck_hostlist_get(hl, i);
		size_t len = strlen(n);

		if (!len || len > RCK_HOST_NAME_MAX || n[0] == '-' ||
		    strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:%") != len)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_hostlist *hl;
	char err[256], *s;
	int rc;

	/* Big expansions are legal but slow: a lower cap keeps the target fast
	 * (tests/unit/test-hostlist.c covers the real one). */
	if (size > 4096)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (rck_hostlist_new(&hl) == 0) {
		hostlist_set_max(hl, 64);
		err[0] = '\0';
		rc = rck_hostlist_add(hl, s, err, sizeof(err));
		check(hl, rc, err);
		rck_hostlist_free(hl);
	}
	if (rck_hostlist_new(&hl) == 0) {
		hostlist_set_max(hl, 64);
		err[0] = '\0';
		rc = rck_hostlist_add_text(hl, (const char *)data, size, "fuzz", err, sizeof(err));
		check(hl, rc, err);
		rck_hostlist_free(hl);
	}
	free(s);
	return 0;
}
