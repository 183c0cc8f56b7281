/* The launch of a sweep: agents started on every host, each added to the
 * sweep's configuration with its port and token or its launcher's reason. */
#include <errno.h>
#include <string.h>

#include "rocecheck/launch.h"
#include "rocecheck/mesh.h"
#include "internal.h"

RCK_EXPORT int rck_launch_sweep_hosts(struct rck_ctx *ctx, const struct rck_launch_opts *opts,
				      const char *const *hosts, size_t n, struct rck_mesh_config *c,
				      struct rck_launch **out)
{
	struct rck_launch *l = NULL;
	int rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!c)
		return -EINVAL;
	rc = rck_launch_new(ctx, opts, hosts, n, &l);
	if (!rc)
		rc = rck_launch_start(l);
	for (size_t i = 0; !rc && i < n; i++) {
		const char *tok = rck_launch_host_token(l, i), *why = rck_launch_host_reason(l, i);

		rc = rck_mesh_config_add_host(c, rck_launch_host(l, i), NULL, tok ? rck_launch_host_port(l, i) : 0,
					      (const uint8_t *)tok, tok ? strlen(tok) : 0);
		if (rc == -EEXIST) {
			rck_err(ctx, "launch: host '%s' is already in the sweep", rck_launch_host(l, i));
			rc = -EINVAL;
		}
		/* Neither resolved nor dialled: one reason line, no wait. */
		if (!rc && why)
			rc = rck_mesh_config_host_down(c, rck_launch_host(l, i), why);
	}
	if (rc) {
		rck_launch_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

RCK_EXPORT void rck_launch_sweep_reasons(const struct rck_launch *l, struct rck_mesh *m)
{
	for (size_t i = 0; l && m && i < rck_launch_host_count(l); i++) {
		const char *why = rck_launch_host_reason(l, i);
		unsigned int h;

		/* Only where the sweep found no agent either. */
		if (why && !rck_mesh_find_host(m, rck_launch_host(l, i), &h) && rck_mesh_host_unreachable(m, h))
			rck_mesh_host_set_unreachable(m, h, why);
	}
}
