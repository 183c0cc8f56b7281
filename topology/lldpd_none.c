/* Built without liblldpctl: asking lldpd for neighbours says so, and the
 * other sources (an agent's LLDP frames, Slurm, the file) still work. */
#include <errno.h>

#include "topo_int.h"

RCK_EXPORT int rck_topology_add_lldpd(struct rck_topology *t, struct rck_ctx *ctx, const char *host,
				      const char *socket_path, unsigned int timeout_ms, char *err,
				      size_t errlen)
{
	(void)t;
	(void)ctx;
	(void)host;
	(void)socket_path;
	(void)timeout_ms;
	return tp_fail(err, errlen, -ENOTSUP, "lldpd: rocecheck was built without liblldpctl");
}

int tp_lldpd_read(const char *host, const char *socket_path, unsigned int timeout_ms,
		  struct rck_topology_neighbour **recs, size_t *n, char *err, size_t errlen)
{
	(void)host;
	(void)socket_path;
	(void)timeout_ms;
	*recs = NULL;
	*n = 0;
	return tp_fail(err, errlen, -ENOTSUP, "lldpd: rocecheck was built without liblldpctl");
}

void tp_neighbours_free(struct rck_topology_neighbour *recs, size_t n)
{
	(void)recs;
	(void)n;
}
