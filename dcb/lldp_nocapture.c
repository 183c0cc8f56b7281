/* rck_lldp_capture() of a build without libpcap: always -EOPNOTSUPP, so the
 * library's symbol set stays the same. */
#include <errno.h>

#include "dcb_internal.h"

RCK_EXPORT int rck_lldp_capture(struct rck_ctx *ctx, const char *ifname, unsigned int timeout_ms,
				struct rck_lldp **out)
{
	(void)ctx;
	(void)ifname;
	(void)timeout_ms;
	*out = NULL;
	return -EOPNOTSUPP;
}
