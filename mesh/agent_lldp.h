/* The agent's LLDP request and reply: what each RDMA netdev's link partner
 * says (chassis, port, system name, description) and how it was heard. */
#ifndef RCK_MESH_AGENT_LLDP_H
#define RCK_MESH_AGENT_LLDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocecheck/agent.h"
#include "rocecheck/context.h"

#include "agent_proto.h"

#define AG_MAX_LLDP 128          /* neighbour records in one reply */
#define AG_LLDP_CAPTURE_MAX 120000 /* longest capture a request may ask for, ms */

/* One netdev's neighbour; every string but @netdev NULL when unknown, all
 * of them NULL when nothing was heard. @via: "lldpd", "capture", "file". */
struct ag_lldp_nb {
	char *netdev, *chassis_id, *port_id, *system_name, *port_description, *via;
	uint32_t port_id_subtype;
};

/* An AG_LLDP decoded (owned, ag_lldp_clear()). @error: why some or all
 * netdevs could not be read ("" none); @failed: none could. */
struct ag_lldp {
	uint32_t id;
	bool failed;
	char error[AG_TEXT_MAX];
	struct ag_lldp_nb *nb;
	size_t n;
};

/* AG_LLDP_GET: request @id, capturing at most @capture_ms per netdev that
 * lldpd does not answer for. 0, -ENOBUFS; decode 0 or -EBADMSG. */
int ag_lldp_get_encode(uint32_t id, uint32_t capture_ms, uint8_t *buf, size_t cap, size_t *len);
int ag_lldp_get_decode(const uint8_t *p, size_t len, uint32_t *id, uint32_t *capture_ms);
/* AG_LLDP of @d: 0, -ENOBUFS, -EINVAL (too many records, a record
 * without netdev). */
int ag_lldp_encode(const struct ag_lldp *d, uint8_t *buf, size_t cap, size_t *len);
/* 0, -EBADMSG (malformed, out of range), -ENOMEM. */
int ag_lldp_decode(const uint8_t *p, size_t len, struct ag_lldp *out);
void ag_lldp_clear(struct ag_lldp *d);
/* Append a record (strings copied, NULL kept NULL): 0, -E2BIG, -ENOMEM. */
int ag_lldp_push(struct ag_lldp *d, const struct ag_lldp_nb *nb);

/* The agent's answer to request @id (agent_lldp.c), encoded into @buf:
 * lldpd's table first, then a capture of at most @capture_ms on every
 * netdev lldpd said nothing of; or the records of @o->lldp_file. 0, or
 * -errno when no reply could be encoded. */
int agent_lldp(struct rck_ctx *ctx, const struct rck_agent_opts *o, uint32_t id, uint32_t capture_ms,
	       uint8_t *buf, size_t cap, size_t *len);

#endif
