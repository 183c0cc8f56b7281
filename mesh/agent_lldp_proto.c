/* The agent protocol's LLDP request and reply: one nest of strings per
 * netdev's neighbour, each bounded, decoded without trusting the peer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_lldp.h"

enum { L_ID = 1, L_STATUS, L_TEXT, L_CAPTURE_MS, L_NB, L_MAX = L_NB };
enum {
	N_NETDEV = 1, N_CHASSIS, N_PORT, N_PORT_SUB, N_SYSNAME, N_PORTDESC, N_VIA,
	N_MAX = N_VIA
};

/* The decoder's chassis and port IDs are at most 256 bytes as hex. */
#define ID_MAX 800

int ag_lldp_get_encode(uint32_t id, uint32_t capture_ms, uint8_t *buf, size_t cap, size_t *len)
{
	struct wire_buf b = { .p = buf, .cap = cap };

	wire_attr_put_u32(&b, L_ID, id);
	wire_attr_put_u32(&b, L_CAPTURE_MS, capture_ms);
	*len = b.len;
	return b.bad ? -ENOBUFS : 0;
}

int ag_lldp_get_decode(const uint8_t *p, size_t len, uint32_t *id, uint32_t *capture_ms)
{
	struct wire_attr tb[L_MAX + 1];

	*id = 0;
	*capture_ms = 0;
	if (wire_attr_parse(p, len, tb, L_MAX) || ag_opt_u32(&tb[L_ID], id) ||
	    ag_opt_u32(&tb[L_CAPTURE_MS], capture_ms) || *capture_ms > AG_LLDP_CAPTURE_MAX)
		return -EBADMSG;
	return 0;
}

int ag_lldp_encode(const struct ag_lldp *d, uint8_t *buf, size_t cap, size_t *len)
{
	struct wire_buf b = { .p = buf, .cap = cap };

	if (d->n > AG_MAX_LLDP)
		return -EINVAL;
	wire_attr_put_u32(&b, L_ID, d->id);
	wire_attr_put_u32(&b, L_STATUS, d->failed ? AG_ERR_BADREQ : 0);
	wire_attr_put_str(&b, L_TEXT, d->error);
	for (size_t i = 0; i < d->n; i++) {
		const struct ag_lldp_nb *r = &d->nb[i];
		size_t nest;

		if (!r->netdev || !*r->netdev)
			return -EINVAL;
		nest = wire_attr_nest_start(&b, L_NB);
		wire_attr_put_str(&b, N_NETDEV, r->netdev);
		wire_attr_put_str(&b, N_CHASSIS, r->chassis_id);
		wire_attr_put_str(&b, N_PORT, r->port_id);
		wire_attr_put_u32(&b, N_PORT_SUB, r->port_id_subtype);
		wire_attr_put_str(&b, N_SYSNAME, r->system_name);
		wire_attr_put_str(&b, N_PORTDESC, r->port_description);
		wire_attr_put_str(&b, N_VIA, r->via);
		wire_attr_nest_end(&b, nest);
	}
	*len = b.len;
	return b.bad ? -ENOBUFS : 0;
}

static void nb_free(struct ag_lldp_nb *r)
{
	free(r->netdev);
	free(r->chassis_id);
	free(r->port_id);
	free(r->system_name);
	free(r->port_description);
	free(r->via);
}

void ag_lldp_clear(struct ag_lldp *d)
{
	for (size_t i = 0; i < d->n; i++)
		nb_free(&d->nb[i]);
	free(d->nb);
	d->nb = NULL;
	d->n = 0;
}

static int dup_opt(const char *s, char **out)
{
	*out = NULL;
	if (!s)
		return 0;
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

int ag_lldp_push(struct ag_lldp *d, const struct ag_lldp_nb *nb)
{
	struct ag_lldp_nb *v, *r;
	int rc;

	if (d->n >= AG_MAX_LLDP)
		return -E2BIG;
	v = realloc(d->nb, (d->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	d->nb = v;
	r = &v[d->n];
	memset(r, 0, sizeof(*r));
	r->port_id_subtype = nb->port_id_subtype;
	rc = dup_opt(nb->netdev, &r->netdev) ?: dup_opt(nb->chassis_id, &r->chassis_id) ?:
	     dup_opt(nb->port_id, &r->port_id) ?: dup_opt(nb->system_name, &r->system_name) ?:
	     dup_opt(nb->port_description, &r->port_description) ?: dup_opt(nb->via, &r->via);
	if (rc) {
		nb_free(r);
		return rc;
	}
	d->n++;
	return 0;
}

/* An optional string attribute into @buf; *@s NULL when absent. */
static int opt_str(const struct wire_attr *a, char *buf, size_t size, const char **s)
{
	*s = NULL;
	if (!a->v)
		return 0;
	if (wire_attr_str(a, buf, size))
		return -EBADMSG;
	*s = buf;
	return 0;
}

static int get_nb(const struct wire_attr *a, struct ag_lldp *out)
{
	struct wire_attr tb[N_MAX + 1];
	char netdev[AG_NAME_MAX], chassis[ID_MAX], port[ID_MAX], name[AG_TEXT_MAX], desc[AG_TEXT_MAX],
		via[32];
	const char *nd, *ch, *po, *sn, *pd, *vi;
	uint32_t sub = 0;
	int rc;

	if (wire_attr_parse(a->v, a->len, tb, N_MAX) || opt_str(&tb[N_NETDEV], netdev, sizeof(netdev), &nd) ||
	    !nd || !*nd || opt_str(&tb[N_CHASSIS], chassis, sizeof(chassis), &ch) ||
	    opt_str(&tb[N_PORT], port, sizeof(port), &po) || opt_str(&tb[N_SYSNAME], name, sizeof(name), &sn) ||
	    opt_str(&tb[N_PORTDESC], desc, sizeof(desc), &pd) || opt_str(&tb[N_VIA], via, sizeof(via), &vi) ||
	    ag_opt_u32(&tb[N_PORT_SUB], &sub) || sub > 255)
		return -EBADMSG;
	rc = ag_lldp_push(out, &(struct ag_lldp_nb){ .netdev = (char *)nd, .chassis_id = (char *)ch,
						     .port_id = (char *)po, .system_name = (char *)sn,
						     .port_description = (char *)pd, .via = (char *)vi,
						     .port_id_subtype = sub });
	return rc == -E2BIG ? -EBADMSG : rc;
}

int ag_lldp_decode(const uint8_t *p, size_t len, struct ag_lldp *out)
{
	struct wire_attr tb[L_MAX + 1], a;
	uint32_t status = 0;
	size_t off = 0;
	uint16_t t;
	int rc;

	memset(out, 0, sizeof(*out));
	if (wire_attr_parse(p, len, tb, L_MAX) || ag_opt_u32(&tb[L_ID], &out->id) ||
	    ag_opt_u32(&tb[L_STATUS], &status) || ag_opt_str(&tb[L_TEXT], out->error, sizeof(out->error)))
		return -EBADMSG;
	out->failed = status != 0;
	while ((rc = wire_attr_next(p, len, &off, &t, &a)) == 1) {
		if (t != L_NB)
			continue;
		if (out->failed) {
			rc = -EBADMSG;
			break;
		}
		rc = get_nb(&a, out);
		if (rc)
			break;
	}
	if (rc) {
		ag_lldp_clear(out);
		return rc == -ENOMEM ? rc : -EBADMSG;
	}
	return 0;
}
