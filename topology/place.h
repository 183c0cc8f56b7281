/* Which leaf and port a host NIC is cabled to (place.c): the model's cables
 * sorted once for lookups by host and NIC, for the plans and heatmaps. */
#ifndef RCK_TOPOLOGY_PLACE_H
#define RCK_TOPOLOGY_PLACE_H

#include <stdint.h>

#include "rocecheck/topology.h"

struct tp_place;

/* The cables of @t sorted; *@out owned by the caller. 0 or -ENOMEM. */
int tp_place_new(const struct rck_topology *t, struct tp_place **out);
void tp_place_free(struct tp_place *p);
/*
 * The switch of @host's NIC @device/@port (else the cable named @device
 * alone, else @netdev when not NULL), else the host as a whole (Slurm): the
 * @rail-th of the host's switches in switch order (@rail < 0 as 0). Its
 * port in *@port (may be NULL; -1 unknown). Returns the switch index, -1
 * none.
 */
int32_t tp_place_find(const struct tp_place *p, const char *host, const char *device, unsigned int port,
		      const char *netdev, int rail, int32_t *port_idx);

#endif
