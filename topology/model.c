/* The topology model: switches, ports, host NICs' cables, uplinks and the
 * conflicts between sources, merged first-said-kept (see topology.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mesh/grow.h"
#include "topo_int.h"

#define GROW(arr, cap, need) mesh_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

int tp_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return rc;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	/* One line, whatever a file's names hold (a key with a newline). */
	for (char *p = err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return rc;
}

RCK_EXPORT int rck_topology_new(struct rck_topology **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

RCK_EXPORT void rck_topology_free(struct rck_topology *t)
{
	if (!t)
		return;
	strset_free(&t->src_names);
	for (size_t i = 0; i < t->n_sw; i++)
		free(t->sw[i].chassis);
	free(t->sw);
	strset_free(&t->sw_names);
	strset_free(&t->chassis);
	free(t->chassis_sw);
	for (size_t i = 0; i < t->n_ports; i++)
		free(t->ports[i].name);
	free(t->ports);
	strset_free(&t->port_keys);
	for (unsigned int i = 0; i < t->host_names.n; i++)
		free(t->hosts[i].cables);
	free(t->hosts);
	strset_free(&t->host_names);
	for (size_t i = 0; i < t->n_cables; i++) {
		free(t->cables[i].nic);
		free(t->cables[i].netdev);
	}
	free(t->cables);
	strset_free(&t->cable_keys);
	free(t->cable_idx);
	free(t->uplinks);
	free(t->uplink_idx);
	strset_free(&t->uplink_keys);
	for (size_t i = 0; i < t->n_conflicts; i++)
		free(t->conflicts[i].what);
	free(t->conflicts);
	free(t->dirty);
	free(t);
}

int tp_source(struct rck_topology *t, const char *name, uint16_t *src)
{
	unsigned int i;
	char *s;
	int rc;

	if (!strset_find(&t->src_names, name, &i)) {
		*src = (uint16_t)i;
		return 0;
	}
	if (t->src_names.n >= UINT16_MAX)
		return -ENOMEM;
	s = strdup(name);
	if (!s)
		return -ENOMEM;
	rc = strset_add(&t->src_names, s, &i);
	if (rc) {
		free(s);
		return rc;
	}
	t->srcs = t->src_names.names;
	t->n_srcs = t->src_names.n;
	*src = (uint16_t)i;
	return 0;
}

int tp_conflict(struct rck_topology *t, uint16_t a, uint16_t b, const char *fmt, ...)
{
	va_list ap;
	char *what;
	int n;

	if (GROW(t->conflicts, t->cap_conflicts, t->n_conflicts + 1))
		return -ENOMEM;
	va_start(ap, fmt);
	n = vasprintf(&what, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	t->conflicts[t->n_conflicts++] = (struct tp_conflict){ .what = what, .a = a, .b = b };
	return 0;
}

/* Add @key (copied) to @set mapping to @val in the parallel array @map.
 * 0, -EEXIST (*@old its value), -ENOMEM. */
static int map_add(struct strset *set, uint32_t **map, size_t *cap, const char *key, uint32_t val,
		   uint32_t *old)
{
	unsigned int idx;
	char *k = strdup(key);
	int rc;

	if (!k)
		return -ENOMEM;
	if (mesh_grow((void **)map, cap, set->n + 1u, sizeof(**map))) {
		free(k);
		return -ENOMEM;
	}
	rc = strset_add(set, k, &idx);
	if (rc == -EEXIST) {
		free(k);
		if (old)
			*old = (*map)[idx];
		return rc;
	}
	if (rc) {
		free(k);
		return rc;
	}
	(*map)[idx] = val;
	return 0;
}

static int map_find(const struct strset *set, const uint32_t *map, const char *key, uint32_t *val)
{
	unsigned int idx;

	if (strset_find(set, key, &idx))
		return -ENOENT;
	*val = map[idx];
	return 0;
}

int tp_switch(struct rck_topology *t, const char *name, bool declared, uint32_t *idx)
{
	unsigned int i;
	char *k;
	int rc;

	if (!strset_find(&t->sw_names, name, &i)) {
		t->sw[i].declared |= declared;
		*idx = i;
		return 0;
	}
	if (GROW(t->sw, t->cap_sw, t->n_sw + 1))
		return -ENOMEM;
	k = strdup(name);
	if (!k)
		return -ENOMEM;
	rc = strset_add(&t->sw_names, k, &i);
	if (rc) {
		free(k);
		return rc;
	}
	t->sw[i] = (struct tp_switch){ .name = k, .declared = declared, .rail = TP_NONE };
	t->n_sw = i + 1;
	*idx = i;
	return 0;
}

int tp_switch_by_chassis(const struct rck_topology *t, const char *id, uint32_t *idx)
{
	return map_find(&t->chassis, t->chassis_sw, id, idx);
}

int tp_set_chassis(struct rck_topology *t, uint32_t sw, const char *id, uint16_t src)
{
	struct tp_switch *s = &t->sw[sw];
	uint32_t other;
	int rc;

	if (s->chassis) {
		if (strcmp(s->chassis, id))
			return tp_conflict(t, s->chassis_src, src, "switch %s: chassis ID %s vs %s", s->name,
					   s->chassis, id);
		return 0;
	}
	rc = map_add(&t->chassis, &t->chassis_sw, &t->cap_chassis_sw, id, sw, &other);
	if (rc == -EEXIST)
		return tp_conflict(t, t->sw[other].chassis_src, src,
				   "chassis ID %s: switch %s vs switch %s", id, t->sw[other].name, s->name);
	if (rc)
		return rc;
	s->chassis = strdup(id);
	if (!s->chassis)
		return -ENOMEM;
	s->chassis_src = src;
	return 0;
}

RCK_EXPORT const char *rck_switch_tier_name(enum rck_switch_tier tier)
{
	static const char *const n[] = {"unknown", "leaf", "spine"};

	return (unsigned int)tier < 3 ? n[tier] : NULL;
}

int tp_set_tier(struct rck_topology *t, uint32_t sw, enum rck_switch_tier tier, uint16_t src)
{
	struct tp_switch *s = &t->sw[sw];

	if (tier == RCK_SWITCH_TIER_UNKNOWN)
		return 0;
	if (s->tier == RCK_SWITCH_TIER_UNKNOWN) {
		s->tier = (uint8_t)tier;
		s->tier_src = src;
		return 0;
	}
	if (s->tier != tier)
		return tp_conflict(t, s->tier_src, src, "switch %s: tier %s vs %s", s->name,
				   rck_switch_tier_name(s->tier), rck_switch_tier_name(tier));
	return 0;
}

int tp_set_rail(struct rck_topology *t, uint32_t sw, int rail, uint16_t src)
{
	struct tp_switch *s = &t->sw[sw];

	if (rail < 0)
		return 0;
	if (s->rail == TP_NONE) {
		s->rail = (int16_t)rail;
		s->rail_src = src;
		return 0;
	}
	if (s->rail != rail)
		return tp_conflict(t, s->rail_src, src, "switch %s: rail %d vs %d", s->name, s->rail, rail);
	return 0;
}

int tp_port(struct rck_topology *t, uint32_t sw, const char *name, uint32_t *idx)
{
	char *key, *pname;
	unsigned int i;
	int rc;

	if (asprintf(&key, "%s\x1f%s", t->sw[sw].name, name) < 0)
		return -ENOMEM;
	if (!strset_find(&t->port_keys, key, &i)) {
		free(key);
		*idx = i;
		return 0;
	}
	pname = strdup(name);
	if (!pname || GROW(t->ports, t->cap_ports, t->n_ports + 1)) {
		free(pname);
		free(key);
		return -ENOMEM;
	}
	rc = strset_add(&t->port_keys, key, &i);
	if (rc) {
		free(pname);
		free(key);
		return rc;
	}
	t->ports[i] = (struct tp_port){ .sw = sw, .name = pname, .cable = TP_NONE };
	t->n_ports = i + 1;
	*idx = i;
	return 0;
}

int tp_set_speed(struct rck_topology *t, uint32_t port, double gbps, uint16_t src)
{
	struct tp_port *p = &t->ports[port];

	if (!(gbps > 0))
		return 0;
	if (!(p->gbps > 0)) {
		p->gbps = gbps;
		p->gbps_src = src;
		return 0;
	}
	if (p->gbps != gbps)
		return tp_conflict(t, p->gbps_src, src, "switch %s port %s: speed %g vs %g Gb/s",
				   t->sw[p->sw].name, p->name, p->gbps, gbps);
	return 0;
}

const char *tp_host_name(const struct rck_topology *t, uint32_t host)
{
	return t->host_names.names[host];
}

void tp_port_label(const struct rck_topology *t, int32_t sw, int32_t port, char *buf, size_t len)
{
	if (sw < 0)
		snprintf(buf, len, "no switch");
	else if (port < 0)
		snprintf(buf, len, "%s (port unknown)", t->sw[sw].name);
	else
		snprintf(buf, len, "%s port %s", t->sw[sw].name, t->ports[port].name);
}

static int host_get(struct rck_topology *t, const char *name, uint32_t *idx)
{
	unsigned int i;
	char *k;
	int rc;

	if (!strset_find(&t->host_names, name, &i)) {
		*idx = i;
		return 0;
	}
	if (GROW(t->hosts, t->cap_hosts, t->host_names.n + 1u))
		return -ENOMEM;
	k = strdup(name);
	if (!k)
		return -ENOMEM;
	rc = strset_add(&t->host_names, k, &i);
	if (rc) {
		free(k);
		return rc;
	}
	t->hosts[i] = (struct tp_host){ 0 };
	*idx = i;
	return 0;
}

static int mark_dirty(struct rck_topology *t, uint32_t host)
{
	if (t->hosts[host].dirty)
		return 0;
	if (GROW(t->dirty, t->cap_dirty, t->n_dirty + 1))
		return -ENOMEM;
	t->dirty[t->n_dirty++] = host;
	t->hosts[host].dirty = true;
	return 0;
}

static void nic_label(const struct rck_topology *t, const struct tp_cable *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s", tp_host_name(t, c->host), c->nic ? c->nic : "(host)");
}

/* Put cable @ci on @sw/@port; a port another NIC holds is a conflict,
 * and the NIC keeps the switch without the port (one NIC a port). */
static int attach(struct rck_topology *t, uint32_t ci, int32_t sw, int32_t port)
{
	struct tp_cable *c = &t->cables[ci];
	char a[320], b[320], pl[320];

	c->sw = sw;
	if (port < 0)
		return 0;
	if (t->ports[port].cable == TP_NONE || (uint32_t)t->ports[port].cable == ci) {
		t->ports[port].cable = (int32_t)ci;
		c->port = port;
		return 0;
	}
	nic_label(t, &t->cables[t->ports[port].cable], a, sizeof(a));
	nic_label(t, c, b, sizeof(b));
	tp_port_label(t, sw, port, pl, sizeof(pl));
	return tp_conflict(t, t->cables[t->ports[port].cable].src, c->src, "%s: %s vs %s", pl, a, b);
}

static int new_cable(struct rck_topology *t, const struct tp_cabling *c, uint32_t host, uint32_t *ci)
{
	struct tp_host *h = &t->hosts[host];
	struct tp_cable *cab;

	if (GROW(t->cables, t->cap_cables, t->n_cables + 1))
		return -ENOMEM;
	if (h->n == h->cap) {
		uint32_t ncap = h->cap ? 2 * h->cap : 4, *n = realloc(h->cables, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		h->cables = n;
		h->cap = ncap;
	}
	cab = &t->cables[t->n_cables];
	*cab = (struct tp_cable){ .host = host, .sw = TP_NONE, .port = TP_NONE, .rail = TP_NONE,
				  .src = c->src };
	if ((c->nic && !(cab->nic = strdup(c->nic))) || (c->netdev && !(cab->netdev = strdup(c->netdev)))) {
		free(cab->nic);
		free(cab->netdev);
		return -ENOMEM;
	}
	h->cables[h->n++] = (uint32_t)t->n_cables;
	*ci = (uint32_t)t->n_cables++;
	return 0;
}

static int cable_key(struct rck_topology *t, uint32_t host, const char *kind, const char *v,
		     uint32_t ci, uint32_t *old)
{
	char *key;
	int rc;

	if (asprintf(&key, "%s\x1f%s%s", tp_host_name(t, host), kind, v) < 0)
		return -ENOMEM;
	if (old)
		rc = map_find(&t->cable_keys, t->cable_idx, key, old);
	else
		rc = map_add(&t->cable_keys, &t->cable_idx, &t->cap_cable_idx, key, ci, NULL);
	free(key);
	return rc;
}

/* The host as a whole hangs off switch @c->sw (Slurm's Nodes=). */
static int host_member(struct rck_topology *t, const struct tp_cabling *c, uint32_t host)
{
	uint32_t ci;
	int rc;

	if (!cable_key(t, host, "\x1d", t->sw[c->sw].name, 0, &ci))
		return 0;
	rc = new_cable(t, c, host, &ci);
	if (rc)
		return rc;
	t->cables[ci].sw = c->sw;
	rc = cable_key(t, host, "\x1d", t->sw[c->sw].name, ci, NULL);
	return rc ? rc : mark_dirty(t, host);
}

static int merge_nic(struct rck_topology *t, const struct tp_cabling *c, uint32_t ci)
{
	struct tp_cable *cab = &t->cables[ci];
	char nl[320], was[320], now[320];
	int rc = 0;

	nic_label(t, cab, nl, sizeof(nl));
	if (c->netdev) {
		if (!cab->netdev) {
			cab->netdev = strdup(c->netdev);
			if (!cab->netdev)
				return -ENOMEM;
			rc = cable_key(t, cab->host, "\x1e", c->netdev, ci, NULL);
			if (rc && rc != -EEXIST)
				return rc;
		} else if (strcmp(cab->netdev, c->netdev)) {
			rc = tp_conflict(t, cab->src, c->src, "%s: netdev %s vs %s", nl, cab->netdev,
					 c->netdev);
			if (rc)
				return rc;
		}
	}
	if (c->rail >= 0) {
		if (cab->rail < 0) {
			cab->rail = (int16_t)c->rail;
			cab->rail_src = c->src;
		} else if (cab->rail != c->rail) {
			rc = tp_conflict(t, cab->rail_src, c->src, "%s: rail %d vs %d", nl, cab->rail, c->rail);
			if (rc)
				return rc;
		}
	}
	if (c->sw < 0)
		return 0;
	if (cab->sw < 0) {
		cab->src = c->src;
		return attach(t, ci, c->sw, c->port);
	}
	if (cab->sw != c->sw || (c->port >= 0 && cab->port >= 0 && cab->port != c->port)) {
		tp_port_label(t, cab->sw, cab->port, was, sizeof(was));
		tp_port_label(t, c->sw, c->port, now, sizeof(now));
		return tp_conflict(t, cab->src, c->src, "%s: cabled to %s vs %s", nl, was, now);
	}
	if (cab->port < 0 && c->port >= 0)
		return attach(t, ci, c->sw, c->port);
	return 0;
}

int tp_cable(struct rck_topology *t, const struct tp_cabling *c)
{
	uint32_t host, ci;
	int rc;

	rc = host_get(t, c->host, &host);
	if (rc)
		return rc;
	if (!c->nic)
		return c->sw >= 0 ? host_member(t, c, host) : 0;
	rc = mark_dirty(t, host);
	if (rc)
		return rc;
	if (!cable_key(t, host, "", c->nic, 0, &ci) ||
	    (c->netdev && !cable_key(t, host, "\x1e", c->netdev, 0, &ci)) ||
	    !cable_key(t, host, "\x1e", c->nic, 0, &ci))
		return merge_nic(t, c, ci);
	rc = new_cable(t, c, host, &ci);
	if (!rc)
		rc = cable_key(t, host, "", c->nic, ci, NULL);
	if (!rc && c->netdev)
		rc = cable_key(t, host, "\x1e", c->netdev, ci, NULL);
	if (rc && rc != -EEXIST)
		return rc;
	if (c->rail >= 0) {
		t->cables[ci].rail = (int16_t)c->rail;
		t->cables[ci].rail_src = c->src;
	}
	return c->sw >= 0 ? attach(t, ci, c->sw, c->port) : 0;
}

int tp_uplink(struct rck_topology *t, uint32_t lower, uint32_t upper, int32_t lport, int32_t uport,
	      uint16_t src)
{
	struct tp_uplink *u;
	char *key, was[700], now[700], a[320], b[320];
	uint32_t ui;
	int rc;

	if (asprintf(&key, "%s\x1f%s", t->sw[lower].name, t->sw[upper].name) < 0)
		return -ENOMEM;
	if (GROW(t->uplinks, t->cap_uplinks, t->n_uplinks + 1)) {
		free(key);
		return -ENOMEM;
	}
	rc = map_add(&t->uplink_keys, &t->uplink_idx, &t->cap_uplink_idx, key, (uint32_t)t->n_uplinks, &ui);
	free(key);
	if (!rc) {
		t->uplinks[t->n_uplinks++] = (struct tp_uplink){ lower, upper, lport, uport, src };
		return 0;
	}
	if (rc != -EEXIST)
		return rc;
	u = &t->uplinks[ui];
	if ((lport >= 0 && u->lport >= 0 && lport != u->lport) ||
	    (uport >= 0 && u->uport >= 0 && uport != u->uport)) {
		tp_port_label(t, (int32_t)lower, u->lport, a, sizeof(a));
		tp_port_label(t, (int32_t)upper, u->uport, b, sizeof(b));
		snprintf(was, sizeof(was), "%s to %s", a, b);
		tp_port_label(t, (int32_t)lower, lport, a, sizeof(a));
		tp_port_label(t, (int32_t)upper, uport, b, sizeof(b));
		snprintf(now, sizeof(now), "%s to %s", a, b);
		return tp_conflict(t, u->src, src, "uplink %s vs %s", was, now);
	}
	if (u->lport < 0)
		u->lport = lport;
	if (u->uport < 0)
		u->uport = uport;
	return 0;
}

/* A host Slurm put under switch S whose NICs another source cabled, none
 * of them to S. */
static int check_host(struct rck_topology *t, uint32_t host)
{
	const struct tp_host *h = &t->hosts[host];

	for (uint32_t i = 0; i < h->n; i++) {
		struct tp_cable *m = &t->cables[h->cables[i]];
		int other = -1;
		bool on = false;

		if (m->nic || m->reported)
			continue;
		for (uint32_t j = 0; j < h->n; j++) {
			const struct tp_cable *c = &t->cables[h->cables[j]];

			if (!c->nic || c->sw < 0)
				continue;
			on |= c->sw == m->sw;
			if (c->src != m->src && other < 0)
				other = (int)h->cables[j];
		}
		if (other >= 0 && !on) {
			char pl[320];

			m->reported = true;
			tp_port_label(t, t->cables[other].sw, t->cables[other].port, pl, sizeof(pl));
			if (tp_conflict(t, m->src, t->cables[other].src,
					"host %s: under switch %s vs no NIC on it (%s on %s)",
					tp_host_name(t, host), t->sw[m->sw].name, t->cables[other].nic, pl))
				return -ENOMEM;
		}
	}
	return 0;
}

int tp_check_hosts(struct rck_topology *t)
{
	int rc = 0;

	for (size_t i = 0; i < t->n_dirty; i++) {
		if (!rc)
			rc = check_host(t, t->dirty[i]);
		t->hosts[t->dirty[i]].dirty = false;
	}
	t->n_dirty = 0;
	return rc;
}
