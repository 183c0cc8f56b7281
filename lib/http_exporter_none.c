/* Built without libmicrohttpd: the exporter checks its options as the real
 * one does, then says it is not available. */
#include <errno.h>

#include "exporter_int.h"
#include "internal.h"

RCK_EXPORT int rck_exporter_new(const struct rck_exporter_config *cfg, struct rck_exporter **out)
{
	struct rck_exporter_config ok;
	int rc;

	if (!out)
		return -EINVAL;
	rc = exp_config_check(cfg, &ok);
	return rc < 0 ? rc : -ENOTSUP;
}

RCK_EXPORT unsigned int rck_exporter_port(const struct rck_exporter *e)
{
	(void)e;
	return 0;
}

RCK_EXPORT void rck_exporter_free(struct rck_exporter *e)
{
	(void)e;
}
