/* The sweep result: hosts, NICs and probe cells with their measurements
 * and counter deltas; building it and reading it back. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "internal.h"
#include "result.h"
#include "rocecheck/topology.h"

static const char *const test_names[] = {"bw", "lat"};
static const char *const status_names[] = {"ok", "failed", "unreachable", "skipped"};

RCK_EXPORT const char *rck_mesh_test_name(enum rck_mesh_test t)
{
	return (unsigned int)t < RCK_ARRAY_SIZE(test_names) ? test_names[t] : NULL;
}

RCK_EXPORT const char *rck_mesh_status_name(enum rck_mesh_status s)
{
	return (unsigned int)s < RCK_ARRAY_SIZE(status_names) ? status_names[s] : NULL;
}

RCK_EXPORT int rck_mesh_new(struct rck_mesh **out)
{
	struct rck_mesh *m;

	if (!out)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	*out = m;
	return 0;
}

static void meas_clear(struct mesh_meas *x)
{
	free(x->reason);
	free(x->ctr);
	memset(x, 0, sizeof(*x));
}

RCK_EXPORT void rck_mesh_free(struct rck_mesh *m)
{
	if (!m)
		return;
	for (unsigned int i = 0; i < m->names.n; i++) {
		free(m->hosts[i].unreachable);
		free(m->hosts[i].nics);
		dcb_set_clear(&m->hosts[i].dcb);
		mesh_host_pcie_clear(&m->hosts[i]);
		mesh_lldp_clear(&m->hosts[i].lldp);
	}
	rck_topology_free(m->topo);
	for (unsigned int i = 0; i < m->n_nics; i++) {
		free(m->nics[i].device);
		free(m->nics[i].netdev);
		free(m->nics[i].state);
		free(m->nics[i].fw_ver);
	}
	for (unsigned int i = 0; i < m->n_cells; i++) {
		meas_clear(&m->cells[i].first);
		for (unsigned int k = 0; k + 1 < m->cells[i].attempts; k++)
			meas_clear(&m->cells[i].retest[k]);
		free(m->cells[i].retest);
	}
	strset_free(&m->names);
	free(m->hosts);
	free(m->nics);
	free(m->cells);
	free(m->cell_slots);
	free(m->pattern);
	free(m->rails);
	free(m);
}

/* Copy @src into *@dst (NULL stays NULL). 0 or -ENOMEM; *dst untouched then. */
static int dup_opt(char **dst, const char *src)
{
	char *c = NULL;

	if (src && !(c = strdup(src)))
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

RCK_EXPORT int rck_mesh_set_info(struct rck_mesh *m, const struct rck_mesh_info *info)
{
	char *pattern = NULL, *rails = NULL;

	if (!m || !info || info->size < sizeof(*info) || !(info->seconds >= 0))
		return -EINVAL;
	if (dup_opt(&pattern, info->pattern) || dup_opt(&rails, info->rails)) {
		free(pattern);
		return -ENOMEM;
	}
	free(m->pattern);
	free(m->rails);
	m->pattern = pattern;
	m->rails = rails;
	m->start_ns = info->start_ns;
	m->seconds = info->seconds;
	return 0;
}

RCK_EXPORT int rck_mesh_get_info(const struct rck_mesh *m, struct rck_mesh_info *info)
{
	if (!m || !info || info->size < sizeof(*info))
		return -EINVAL;
	info->pattern = m->pattern;
	info->rails = m->rails;
	info->start_ns = m->start_ns;
	info->seconds = m->seconds;
	return 0;
}

RCK_EXPORT int rck_mesh_add_host(struct rck_mesh *m, const char *name, unsigned int *idx)
{
	char *copy;
	int rc;

	if (!m || !name || !*name || strlen(name) > RCK_HOST_NAME_MAX)
		return -EINVAL;
	if (strset_find(&m->names, name, NULL) == 0)
		return -EEXIST;
	if (mesh_grow((void **)&m->hosts, &m->host_cap, m->names.n + 1, sizeof(*m->hosts)))
		return -ENOMEM;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	memset(&m->hosts[m->names.n], 0, sizeof(m->hosts[0]));
	rc = strset_add(&m->names, copy, idx);
	if (rc)
		free(copy);
	return rc;
}

RCK_EXPORT int rck_mesh_host_set_unreachable(struct rck_mesh *m, unsigned int h, const char *reason)
{
	if (!m || h >= m->names.n)
		return -EINVAL;
	return dup_opt(&m->hosts[h].unreachable, reason);
}

RCK_EXPORT unsigned int rck_mesh_host_count(const struct rck_mesh *m)
{
	return m ? m->names.n : 0;
}

RCK_EXPORT int rck_mesh_find_host(const struct rck_mesh *m, const char *name, unsigned int *idx)
{
	if (!m || !name)
		return -EINVAL;
	return strset_find(&m->names, name, idx);
}

RCK_EXPORT const char *rck_mesh_host_name(const struct rck_mesh *m, unsigned int h)
{
	return m && h < m->names.n ? m->names.names[h] : NULL;
}

RCK_EXPORT const char *rck_mesh_host_unreachable(const struct rck_mesh *m, unsigned int h)
{
	return m && h < m->names.n ? m->hosts[h].unreachable : NULL;
}

RCK_EXPORT int rck_mesh_add_nic(struct rck_mesh *m, unsigned int h, const struct rck_mesh_nic *info,
				unsigned int *nic)
{
	struct mesh_host *host;
	struct mesh_nic *n;
	uint32_t *list;

	if (!m || !info || info->size < sizeof(*info) || h >= m->names.n || !info->device ||
	    !*info->device || !info->port || info->rail < -1 || info->rail > RCK_MESH_RAIL_MAX || !(info->rate_gbps >= 0) ||
	    info->gid_index < -1 || m->n_nics >= UINT32_MAX / 2)
		return -EINVAL;
	host = &m->hosts[h];
	if (info->rail < 0 && host->n_nics > RCK_MESH_RAIL_MAX)
		return -EINVAL;
	for (unsigned int i = 0; i < host->n_nics; i++) {
		const struct mesh_nic *o = &m->nics[host->nics[i]];

		if (o->port == info->port && !strcmp(o->device, info->device))
			return -EEXIST;
	}
	if (mesh_grow((void **)&m->nics, &m->nic_cap, m->n_nics + 1, sizeof(*m->nics)))
		return -ENOMEM;
	list = realloc(host->nics, (host->n_nics + 1) * sizeof(*list));
	if (!list)
		return -ENOMEM;
	host->nics = list;
	n = &m->nics[m->n_nics];
	memset(n, 0, sizeof(*n));
	if (dup_opt(&n->device, info->device) || dup_opt(&n->netdev, info->netdev) ||
	    dup_opt(&n->state, info->state) || dup_opt(&n->fw_ver, info->fw_ver)) {
		free(n->device);
		free(n->netdev);
		free(n->state);
		free(n->fw_ver);
		return -ENOMEM;
	}
	n->port = info->port;
	n->rail = info->rail >= 0 ? info->rail : (int)host->n_nics;
	n->rate_gbps = info->rate_gbps;
	n->active_mtu = info->active_mtu;
	n->netdev_mtu = info->netdev_mtu;
	n->gid_index = info->gid_index;
	n->counters = info->counters;
	n->host = h;
	host->nics[host->n_nics++] = m->n_nics;
	if (nic)
		*nic = m->n_nics;
	m->n_nics++;
	return 0;
}

RCK_EXPORT unsigned int rck_mesh_nic_count(const struct rck_mesh *m)
{
	return m ? m->n_nics : 0;
}

RCK_EXPORT unsigned int rck_mesh_host_nic_count(const struct rck_mesh *m, unsigned int h)
{
	return m && h < m->names.n ? m->hosts[h].n_nics : 0;
}

RCK_EXPORT int rck_mesh_host_nic(const struct rck_mesh *m, unsigned int h, unsigned int i,
				 unsigned int *nic)
{
	if (!m || h >= m->names.n || i >= m->hosts[h].n_nics || !nic)
		return -EINVAL;
	*nic = m->hosts[h].nics[i];
	return 0;
}

RCK_EXPORT int rck_mesh_get_nic(const struct rck_mesh *m, unsigned int nic,
				struct rck_mesh_nic *info, unsigned int *host)
{
	const struct mesh_nic *n;

	if (!m || nic >= m->n_nics || (info && info->size < sizeof(*info)))
		return -EINVAL;
	n = &m->nics[nic];
	if (info) {
		info->device = n->device;
		info->port = n->port;
		info->rail = n->rail;
		info->netdev = n->netdev;
		info->state = n->state;
		info->fw_ver = n->fw_ver;
		info->rate_gbps = n->rate_gbps;
		info->active_mtu = n->active_mtu;
		info->netdev_mtu = n->netdev_mtu;
		info->gid_index = n->gid_index;
		info->counters = n->counters;
	}
	if (host)
		*host = n->host;
	return 0;
}

/* ---- cells ---- */

static uint32_t cell_hash(unsigned int test, uint32_t src, uint32_t dst)
{
	uint64_t k = ((uint64_t)src << 32 | dst) ^ ((uint64_t)test << 31);

	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (uint32_t)k;
}

static uint32_t *cell_slot(const struct rck_mesh *m, unsigned int test, uint32_t src, uint32_t dst)
{
	uint32_t mask = m->n_cell_slots - 1;

	for (uint32_t i = cell_hash(test, src, dst) & mask;; i = (i + 1) & mask) {
		const struct mesh_cell *c;

		if (!m->cell_slots[i])
			return &m->cell_slots[i];
		c = &m->cells[m->cell_slots[i] - 1];
		if (c->test == test && c->src == src && c->dst == dst)
			return &m->cell_slots[i];
	}
}

static int cells_grow(struct rck_mesh *m)
{
	unsigned int cap = m->cell_cap ? m->cell_cap * 2 : 64;
	struct mesh_cell *c;
	uint32_t *slots;

	if (m->cell_cap >= UINT32_MAX / 4)
		return -ENOMEM;
	c = realloc(m->cells, cap * sizeof(*c));
	if (!c)
		return -ENOMEM;
	m->cells = c;
	m->cell_cap = cap;
	slots = calloc(2 * (size_t)cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	free(m->cell_slots);
	m->cell_slots = slots;
	m->n_cell_slots = 2 * cap;
	for (unsigned int i = 0; i < m->n_cells; i++)
		*cell_slot(m, m->cells[i].test, m->cells[i].src, m->cells[i].dst) = i + 1;
	return 0;
}

static int meas_set(struct mesh_meas *x, const struct rck_mesh_meas *in)
{
	char *reason = NULL;

	if (dup_opt(&reason, in->reason))
		return -ENOMEM;
	meas_clear(x);
	x->status = (uint8_t)in->status;
	x->gbps = in->gbps;
	x->p50 = in->lat_p50_us;
	x->p99 = in->lat_p99_us;
	x->start_s = in->start_s;
	x->seconds = in->seconds;
	x->reason = reason;
	return 0;
}

RCK_EXPORT int rck_mesh_set_result(struct rck_mesh *m, enum rck_mesh_test test, unsigned int src_nic,
				   unsigned int dst_nic, unsigned int attempt,
				   const struct rck_mesh_meas *meas, unsigned int *cell)
{
	struct mesh_cell *c;
	uint32_t *slot;
	int rc;

	if (!m || !meas || meas->size < sizeof(*meas) || (unsigned int)test >= RCK_MESH_TEST_COUNT ||
	    src_nic >= m->n_nics || dst_nic >= m->n_nics || src_nic == dst_nic || attempt > RCK_MESH_RETEST_MAX ||
	    (unsigned int)meas->status >= RCK_MESH_STATUS_COUNT)
		return -EINVAL;
	slot = m->n_cell_slots ? cell_slot(m, test, src_nic, dst_nic) : NULL;
	if (!slot || !*slot) {
		if (attempt)
			return -ENOENT;
		if (2 * (uint64_t)(m->n_cells + 1) > m->n_cell_slots || m->n_cells == m->cell_cap) {
			rc = cells_grow(m);
			if (rc)
				return rc;
		}
		slot = cell_slot(m, test, src_nic, dst_nic);
		c = &m->cells[m->n_cells];
		memset(c, 0, sizeof(*c));
		c->test = (uint8_t)test;
		c->src = src_nic;
		c->dst = dst_nic;
		c->attempts = 1;
		rc = meas_set(&c->first, meas);
		if (rc)
			return rc;
		*slot = ++m->n_cells;
	} else {
		c = &m->cells[*slot - 1];
		if (attempt == 0) {
			rc = meas_set(&c->first, meas);
		} else if (attempt < c->attempts) {
			rc = meas_set(&c->retest[attempt - 1], meas);
		} else if (attempt == c->attempts) {
			struct mesh_meas *r = realloc(c->retest, attempt * sizeof(*r));

			if (!r)
				return -ENOMEM;
			c->retest = r;
			memset(&r[attempt - 1], 0, sizeof(*r));
			rc = meas_set(&r[attempt - 1], meas);
			if (!rc)
				c->attempts++;
		} else {
			return -ENOENT;
		}
		if (rc)
			return rc;
	}
	if (cell)
		*cell = *slot - 1;
	return 0;
}

static struct mesh_meas *cell_attempt(const struct rck_mesh *m, unsigned int cell, unsigned int attempt)
{
	struct mesh_cell *c = &m->cells[cell];

	return attempt == 0 ? &c->first : attempt < c->attempts ? &c->retest[attempt - 1] : NULL;
}

static const struct mesh_nic *end_nic(const struct rck_mesh *m, unsigned int cell, enum rck_mesh_end end)
{
	return &m->nics[end == RCK_MESH_SRC ? m->cells[cell].src : m->cells[cell].dst];
}

RCK_EXPORT int rck_mesh_set_counter(struct rck_mesh *m, unsigned int cell, unsigned int attempt,
				    enum rck_mesh_end end, enum rck_counter id, uint64_t delta)
{
	struct mesh_meas *x;
	struct mesh_ctr *c;

	if (!m || cell >= m->n_cells || (end != RCK_MESH_SRC && end != RCK_MESH_DST) ||
	    (unsigned int)id >= RCK_CTR_COUNT)
		return -EINVAL;
	x = cell_attempt(m, cell, attempt);
	if (!x || !(end_nic(m, cell, end)->counters >> id & 1))
		return -ENOENT;
	for (unsigned int i = 0; i < x->n_ctr; i++)
		if (x->ctr[i].id == id && x->ctr[i].end == end) {
			x->ctr[i].val = delta;
			return 0;
		}
	if (!delta)
		return 0;
	if (x->n_ctr >= 2 * RCK_CTR_COUNT)
		return -EINVAL;
	c = realloc(x->ctr, (x->n_ctr + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	x->ctr = c;
	c[x->n_ctr].id = (uint8_t)id;
	c[x->n_ctr].end = (uint8_t)end;
	c[x->n_ctr].val = delta;
	x->n_ctr++;
	return 0;
}

RCK_EXPORT unsigned int rck_mesh_cell_count(const struct rck_mesh *m)
{
	return m ? m->n_cells : 0;
}

RCK_EXPORT int rck_mesh_find_cell(const struct rck_mesh *m, enum rck_mesh_test test,
				  unsigned int src_nic, unsigned int dst_nic, unsigned int *cell)
{
	const uint32_t *slot;

	if (!m || (unsigned int)test >= RCK_MESH_TEST_COUNT)
		return -EINVAL;
	if (!m->n_cell_slots)
		return -ENOENT;
	slot = cell_slot(m, test, src_nic, dst_nic);
	if (!*slot)
		return -ENOENT;
	if (cell)
		*cell = *slot - 1;
	return 0;
}

RCK_EXPORT int rck_mesh_cell(const struct rck_mesh *m, unsigned int cell, enum rck_mesh_test *test,
			     unsigned int *src_nic, unsigned int *dst_nic)
{
	if (!m || cell >= m->n_cells)
		return -EINVAL;
	if (test)
		*test = (enum rck_mesh_test)m->cells[cell].test;
	if (src_nic)
		*src_nic = m->cells[cell].src;
	if (dst_nic)
		*dst_nic = m->cells[cell].dst;
	return 0;
}

RCK_EXPORT unsigned int rck_mesh_cell_attempts(const struct rck_mesh *m, unsigned int cell)
{
	return m && cell < m->n_cells ? m->cells[cell].attempts : 0;
}

RCK_EXPORT int rck_mesh_cell_meas(const struct rck_mesh *m, unsigned int cell, unsigned int attempt,
				  struct rck_mesh_meas *meas)
{
	const struct mesh_meas *x;

	if (!m || cell >= m->n_cells || !meas || meas->size < sizeof(*meas))
		return -EINVAL;
	x = cell_attempt(m, cell, attempt);
	if (!x)
		return -ENOENT;
	meas->status = (enum rck_mesh_status)x->status;
	meas->gbps = x->gbps;
	meas->lat_p50_us = x->p50;
	meas->lat_p99_us = x->p99;
	meas->start_s = x->start_s;
	meas->seconds = x->seconds;
	meas->reason = x->reason;
	return 0;
}

RCK_EXPORT int rck_mesh_cell_counter(const struct rck_mesh *m, unsigned int cell, unsigned int attempt,
				     enum rck_mesh_end end, enum rck_counter id, uint64_t *delta)
{
	const struct mesh_meas *x;

	if (!m || cell >= m->n_cells || (end != RCK_MESH_SRC && end != RCK_MESH_DST) ||
	    (unsigned int)id >= RCK_CTR_COUNT || !delta)
		return -EINVAL;
	x = cell_attempt(m, cell, attempt);
	if (!x || !(end_nic(m, cell, end)->counters >> id & 1))
		return -ENOENT;
	*delta = 0;
	for (unsigned int i = 0; i < x->n_ctr; i++)
		if (x->ctr[i].id == id && x->ctr[i].end == end)
			*delta = x->ctr[i].val;
	return 0;
}
