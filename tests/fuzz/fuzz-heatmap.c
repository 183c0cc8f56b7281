/* Fuzz target of the heatmap (libFuzzer entry point): any sweep result that
 * loads draws as SVG that is valid UTF-8, free of control characters, and
 * whose every '&' starts one of the entities the escaping writes. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocecheck/rocecheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const unsigned char *s, size_t len)
{
	static const char *const ent[] = {"&amp;", "&lt;", "&gt;", "&apos;", "&quot;"};

	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
			 : (c & 0xf8) == 0xf0 ? 4 : 0;
		bool known = false;

		if (!n || i + n > len || (c < 0x20 && c != '\n') || c == 0x7f)
			abort();
		for (size_t k = 1; k < n; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				abort();
		for (size_t k = 0; c == '&' && k < 5; k++)
			known |= !strncmp((const char *)s + i, ent[k], strlen(ent[k]));
		if (c == '&' && !known)
			abort();
		i += n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_mesh *m;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (size > 4096 || rck_mesh_load_buf(NULL, (const char *)data, size, "fuzz", &m))
		return 0;
	f = open_memstream(&buf, &len);
	if (!f)
		abort();
	/* One test a run (the last byte picks it), for speed. */
	rc = rck_heatmap_write(m, data[size - 1] & 1 ? RCK_MESH_TEST_LAT : RCK_MESH_TEST_BW, NULL,
			       RCK_HEATMAP_SVG, f);
	/* Only a result without NICs is refused. */
	if (rc && !(rc == -EINVAL && !rck_mesh_nic_count(m)))
		abort();
	fclose(f);
	check((const unsigned char *)buf, len);
	free(buf);
	rck_mesh_free(m);
	return 0;
}
