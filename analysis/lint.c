/* Cross-host configuration lint (firmware, port rate, MTUs, RoCE v2 GID
 * index, active ports; DCB in lint_dcb.c): the odd one out, named with the
 * majority value. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "lint.h"

void lint_add(struct lint *l, const char *group, unsigned int host, const char *nic, const char *fmt, ...)
{
	struct litem *it;
	va_list ap;

	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 64;
		struct litem *p = realloc(l->it, nc * sizeof(*p));

		if (!p) {
			l->err = -ENOMEM;
			return;
		}
		l->it = p;
		l->cap = nc;
	}
	it = &l->it[l->n++];
	snprintf(it->group, sizeof(it->group), "%s", group);
	snprintf(it->nic, sizeof(it->nic), "%s", nic ? nic : "");
	it->host = host;
	va_start(ap, fmt);
	vsnprintf(it->val, sizeof(it->val), fmt, ap);
	va_end(ap);
}

static int cmp_item(const void *pa, const void *pb)
{
	const struct litem *a = pa, *b = pb;
	int c = strcmp(a->group, b->group);

	return c ? c : strcmp(a->val, b->val);
}

/* Judge one group [@b, @e) of items sorted by value. */
static void judge(const struct rck_analysis *a, struct rck_report *r, const struct what *w,
		  const struct litem *it, size_t b, size_t e)
{
	size_t n = e - b, best = b, best_n = 0, distinct = 0, second = b, second_n = 0;

	for (size_t i = b; i < e;) {
		size_t j = i;

		while (j < e && !strcmp(it[j].val, it[i].val))
			j++;
		distinct++;
		if (j - i > best_n) {
			second = best;
			second_n = best_n;
			best = i;
			best_n = j - i;
		} else if (j - i > second_n) {
			second = i;
			second_n = j - i;
		}
		i = j;
	}
	if (distinct < 2 || n < 3)
		return;
	if (2 * best_n <= n) {
		struct rck_finding *f = an_add(
			r, RCK_FINDING_CONFIG_MISMATCH, RCK_SEVERITY_WARNING, RCK_ENTITY_FABRIC, NULL, NULL,
			NULL, NULL, "%s%s%s differs with no majority: %s%s on %zu, %s%s on %zu (%zu values)",
			w->attr, it[b].group[0] ? " of " : "", it[b].group, it[best].val, w->unit, best_n,
			it[second].val, w->unit, second_n, distinct);
		an_value(f, "values", (double)distinct);
		an_value(f, "items", (double)n);
		return;
	}
	for (size_t i = b; i < e; i++) {
		struct rck_finding *f;

		if (!strcmp(it[i].val, it[best].val))
			continue;
		f = an_add(r, RCK_FINDING_CONFIG_MISMATCH, w->sev,
			   it[i].nic[0] ? RCK_ENTITY_NIC : RCK_ENTITY_HOST, a->hosts[it[i].host].name,
			   it[i].nic[0] ? it[i].nic : NULL, NULL, NULL,
			   "%s %s%s%s%s, the majority (%zu of %zu) has %s%s", w->attr, it[i].val, w->unit,
			   it[i].group[0] ? " on " : "", it[i].group, best_n, n, it[best].val, w->unit);
		an_value(f, "majority_count", (double)best_n);
		an_value(f, "count", (double)n);
	}
}

void lint_run(const struct rck_analysis *a, struct rck_report *r, struct lint *l, const struct what *w)
{
	if (l->err) {
		r->err = l->err;
		return;
	}
	if (l->n)
		qsort(l->it, l->n, sizeof(*l->it), cmp_item);
	for (size_t b = 0; b < l->n;) {
		size_t e = b;

		while (e < l->n && !strcmp(l->it[e].group, l->it[b].group))
			e++;
		judge(a, r, w, l->it, b, e);
		b = e;
	}
	l->n = 0;
}

static bool lint_port(const struct rck_port *p)
{
	const char *ll = rck_port_link_layer(p);

	return ll && !strcmp(ll, "Ethernet");
}

static int v2_ipv4_index(const struct rck_port *p)
{
	for (unsigned int g = 0; g < rck_port_gid_count(p); g++) {
		const struct rck_gid *gid = rck_port_gid(p, g);

		if (rck_gid_type(gid) == RCK_GID_TYPE_ROCE_V2 && rck_gid_ipv4(gid))
			return (int)rck_gid_index(gid);
	}
	return -1;
}

enum { L_FW, L_RATE, L_NMTU, L_AMTU, L_GID, L_PORTS, L_COUNT };

static const struct what whats[L_COUNT] = {
	[L_FW] = {"firmware", "", RCK_SEVERITY_WARNING},
	[L_RATE] = {"port rate", " Gb/s", RCK_SEVERITY_DEGRADED},
	[L_NMTU] = {"netdev MTU", "", RCK_SEVERITY_DEGRADED},
	[L_AMTU] = {"active RDMA MTU", "", RCK_SEVERITY_DEGRADED},
	[L_GID] = {"RoCE v2 IPv4 GID index", "", RCK_SEVERITY_WARNING},
	[L_PORTS] = {"active RoCE ports", "", RCK_SEVERITY_DEGRADED},
};

static void collect(const struct rck_analysis *a, unsigned int kind, struct lint *l)
{
	for (unsigned int h = 0; h < a->n_hosts; h++) {
		const struct rck_inventory *inv = a->hosts[h].inv;
		unsigned int active = 0;

		if (!inv || a->hosts[h].unreachable)
			continue;
		for (unsigned int i = 0; i < rck_inventory_device_count(inv); i++) {
			const struct rck_device *d = rck_inventory_device(inv, i);
			const char *board = rck_device_board_id(d);
			bool roce = false;

			for (unsigned int p = 0; p < rck_device_port_count(d); p++) {
				const struct rck_port *port = rck_device_port(d, p);
				const char *st = rck_port_state(port);
				unsigned int mtu;
				double rate;
				char nic[80];

				if (!lint_port(port))
					continue;
				roce = true;
				snprintf(nic, sizeof(nic), "%s/%u", rck_device_name(d), rck_port_num(port));
				if (!st || strcmp(st, "ACTIVE"))
					continue;
				active++;
				if (kind == L_RATE && rck_port_rate_gbps(port, &rate))
					lint_add(l, "", h, nic, "%g", rate);
				else if (kind == L_NMTU && rck_port_netdev_mtu(port, &mtu))
					lint_add(l, "", h, nic, "%u", mtu);
				else if (kind == L_AMTU && rck_port_active_mtu(port, &mtu))
					lint_add(l, "", h, nic, "%u", mtu);
				else if (kind == L_GID && v2_ipv4_index(port) >= 0)
					lint_add(l, "", h, nic, "%d", v2_ipv4_index(port));
			}
			if (kind == L_FW && roce && rck_device_fw_ver(d))
				lint_add(l, board ? board : (rck_device_driver(d) ? rck_device_driver(d) : ""), h,
				    rck_device_name(d), "%s", rck_device_fw_ver(d));
		}
		if (kind == L_PORTS)
			lint_add(l, "", h, NULL, "%u", active);
	}
}

void an_check_lint(const struct rck_analysis *a, struct rck_report *r)
{
	struct lint l = {0};

	for (unsigned int k = 0; k < L_COUNT; k++) {
		collect(a, k, &l);
		lint_run(a, r, &l, &whats[k]);
	}
	free(l.it);
	an_check_dcb(a, r);
}
