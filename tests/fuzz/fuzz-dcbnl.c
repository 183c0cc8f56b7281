/* Fuzz target of the dcbnl reply parsers (libFuzzer entry point): the input
 * is one netlink message as the socket hands it over (length checked like
 * nlmsg_ok()); the IEEE GET parser and the SET reply parser must cope. */
#include <linux/netlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../dcb/dcb_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nlmsghdr *nlh;
	struct rck_dcb *d;
	uint8_t v;
	void *buf;

	if (size < NLMSG_HDRLEN || size > 65536)
		return 0;
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	nlh = buf;
	if (nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > size) {
		free(buf);
		return 0;
	}
	d = dcb_alloc("fuzz0");
	if (d && dcbnl_parse_ieee(nlh, d) == 0) {
		dcb_derive_trust(d);
		for (size_t i = 0; i < rck_dcb_app_count(d); i++)
			if (rck_dcb_app(d, i, &v, NULL, NULL))
				abort();
	}
	rck_dcb_free(d);
	dcbnl_parse_set_reply(nlh, DCB_ATTR_IEEE);
	dcbnl_parse_set_reply(nlh, DCB_ATTR_DCBX);
	free(buf);
	return 0;
}
