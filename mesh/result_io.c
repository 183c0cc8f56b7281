/* The sweep result out: text and JSON through the print layer, streamed
 * as it is written (the loader is result_load.c). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dcb/dcb_internal.h"
#include "emit.h"
#include "internal.h"
#include "result.h"
#include "units.h"


/* "ecn_marked_packets", "pfc_rx_pause[3]": the key of a counter in JSON. */
static void ctr_key(unsigned int id, char *buf, size_t len)
{
	int prio;
	const char *name = rck_counter_name((enum rck_counter)id, &prio);

	if (prio >= 0)
		snprintf(buf, len, "%s[%d]", name, prio);
	else
		snprintf(buf, len, "%s", name);
}

/* A measurement that was not taken (NaN) is null in JSON, "n/a" in text. */
static void put_num(struct emit *e, const char *key, const char *tfmt, int prec, double v)
{
	if (isfinite(v))
		emit_double(e, key, tfmt, prec, v);
	else
		emit_null(e, key, tfmt);
}

/* TCP sweeps give each host one pseudo NIC with nothing to tell: its line
 * would only repeat "rail -1 0 Gb/s mtu 0/0". */
static bool pseudo_nic(const struct mesh_nic *n)
{
	return !strcmp(n->device, "tcp") && !n->netdev && !n->state && !n->rate_gbps;
}

/* Rails some host has and host @h has not (@anywhere: rails of any host). */
static void write_missing_rails(struct emit *e, const struct rck_mesh *m, unsigned int h,
				const bool *anywhere, bool *here, int max)
{
	const struct mesh_host *host = &m->hosts[h];

	memset(here, 0, (size_t)(max + 1) * sizeof(*here));
	for (unsigned int i = 0; i < host->n_nics; i++)
		here[m->nics[host->nics[i]].rail] = true;
	emit_arr_open(e, "missing_rails");
	for (int r = 0; r <= max; r++)
		if (anywhere[r] && !here[r]) {
			emit_text(e, "  missing rail %d\n", r);
			emit_u64(e, NULL, NULL, (uint64_t)r);
		}
	emit_arr_close(e);
}

static void write_nic(struct emit *e, const struct rck_mesh *m, const struct mesh_order *o, unsigned int i)
{
	const struct mesh_nic *n = &m->nics[i];
	char key[64];

	emit_obj_open(e, NULL);
	if (pseudo_nic(n) && !emit_is_json(e)) {
		emit_obj_close(e);
		return;
	}
	emit_u64(e, "id", "  nic %s", o->nic_num[i]);
	emit_str(e, "device", " %s", n->device);
	emit_u64(e, "port", "/%s", n->port);
	emit_u64(e, "rail", " rail %s", (uint64_t)n->rail);
	emit_str(e, "netdev", " %s", n->netdev);
	emit_str(e, "state", " %s", n->state);
	emit_double(e, "rate_gbps", NULL, 0, n->rate_gbps);
	emit_text(e, " %s", units_rate(key, sizeof(key), n->rate_gbps));
	emit_u64(e, "active_mtu", " mtu %s", n->active_mtu);
	emit_u64(e, "netdev_mtu", "/%s", n->netdev_mtu);
	emit_str(e, "fw_ver", " fw %s", n->fw_ver);
	emit_i64(e, "gid_index", " gid %s\n", n->gid_index);
	emit_arr_open(e, "counters");
	for (unsigned int id = 0; id < RCK_CTR_COUNT; id++)
		if (n->counters >> id & 1) {
			ctr_key(id, key, sizeof(key));
			emit_str(e, NULL, NULL, key);
		}
	emit_arr_close(e);
	emit_obj_close(e);
}

/* The host's DCB state, left out when not collected (results of sweeps
 * that did not ask stay as they were). */
static void write_dcb(struct emit *e, const struct mesh_host *h)
{
	if (!h->dcb.has)
		return;
	emit_obj_open(e, "dcb");
	if (h->dcb.error)
		emit_str(e, "error", "  dcb: not read: %s\n", h->dcb.error);
	else
		emit_null(e, "error", h->dcb.n ? NULL : "  dcb: no RDMA netdev\n");
	emit_arr_open(e, "ports");
	for (size_t i = 0; i < h->dcb.n; i++) {
		emit_text(e, "  dcb ");
		dcb_emit_port(e, h->dcb.ports[i]);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}

/* A host's NICs in number order (device name, then port). */
static void write_host_nics(struct emit *e, const struct rck_mesh *m, const struct mesh_order *o,
			    const struct mesh_host *host)
{
	uint32_t base = UINT32_MAX;

	for (unsigned int i = 0; i < host->n_nics; i++)
		if (o->nic_num[host->nics[i]] < base)
			base = o->nic_num[host->nics[i]];
	for (unsigned int r = 0; r < host->n_nics; r++)
		for (unsigned int i = 0; i < host->n_nics; i++)
			if (o->nic_num[host->nics[i]] == base + r)
				write_nic(e, m, o, host->nics[i]);
}

static int write_hosts(struct emit *e, const struct rck_mesh *m, const struct mesh_order *o)
{
	bool *anywhere, *here;
	int max = -1;

	for (unsigned int i = 0; i < m->n_nics; i++)
		if (m->nics[i].rail > max)
			max = m->nics[i].rail;
	anywhere = calloc((size_t)max + 2, sizeof(*anywhere));
	here = calloc((size_t)max + 2, sizeof(*here));
	if (!anywhere || !here) {
		free(anywhere);
		free(here);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < m->n_nics; i++)
		anywhere[m->nics[i].rail] |= !pseudo_nic(&m->nics[i]);
	emit_arr_open(e, "hosts");
	for (unsigned int h = 0; h < m->names.n; h++) {
		emit_obj_open(e, NULL);
		emit_str(e, "name", "host %s", m->names.names[h]);
		if (m->hosts[h].unreachable)
			emit_str(e, "unreachable", " unreachable: %s", m->hosts[h].unreachable);
		else
			emit_null(e, "unreachable", NULL);
		emit_text(e, "\n");
		write_missing_rails(e, m, h, anywhere, here, max);
		emit_arr_open(e, "nics");
		write_host_nics(e, m, o, &m->hosts[h]);
		emit_arr_close(e);
		write_dcb(e, &m->hosts[h]);
		mesh_write_pcie(e, &m->hosts[h]);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	free(anywhere);
	free(here);
	return 0;
}

static void write_meas(struct emit *e, const char *key, const struct mesh_meas *x)
{
	char name[64];

	emit_obj_open(e, key);
	emit_str(e, "status", " %s", rck_mesh_status_name((enum rck_mesh_status)x->status));
	put_num(e, "gbps", NULL, 2, x->gbps);
	if (isfinite(x->gbps))
		emit_text(e, " %s", units_rate(name, sizeof(name), x->gbps));
	put_num(e, "lat_p50_us", isfinite(x->p50) ? " p50 %s us" : NULL, 2, x->p50);
	put_num(e, "lat_p99_us", isfinite(x->p99) ? " p99 %s us" : NULL, 2, x->p99);
	put_num(e, "start_s", NULL, 3, x->start_s);
	put_num(e, "seconds", NULL, 3, x->seconds);
	emit_str(e, "reason", x->reason ? " (%s)" : NULL, x->reason);
	emit_obj_open(e, "counters");
	for (unsigned int end = 0; end < 2; end++) {
		emit_obj_open(e, end ? "dst" : "src");
		for (unsigned int i = 0; i < x->n_ctr; i++) {
			if (x->ctr[i].end != end || !x->ctr[i].val)
				continue;
			ctr_key(x->ctr[i].id, name, sizeof(name));
			emit_text(e, " %s.%s=", end ? "dst" : "src", name);
			emit_u64(e, name, "%s", x->ctr[i].val);
		}
		emit_obj_close(e);
	}
	emit_obj_close(e);
	emit_obj_close(e);
}

static void write_probes(struct emit *e, const struct rck_mesh *m, const struct mesh_order *o)
{
	emit_arr_open(e, "probes");
	/* Text rows sorted by host; JSON keeps the order probes were recorded. */
	for (unsigned int i = 0; i < m->n_cells; i++) {
		const struct mesh_cell *c = &m->cells[emit_is_json(e) ? i : o->cells[i]];
		const struct mesh_nic *s = &m->nics[c->src], *d = &m->nics[c->dst];

		emit_obj_open(e, NULL);
		emit_str(e, "test", "%-4s", rck_mesh_test_name((enum rck_mesh_test)c->test));
		emit_text(e, "%s/%s/%u -> %s/%s/%u", m->names.names[s->host], s->device, s->port,
			  m->names.names[d->host], d->device, d->port);
		emit_u64(e, "src", NULL, o->nic_num[c->src]);
		emit_u64(e, "dst", NULL, o->nic_num[c->dst]);
		emit_u64(e, "attempts", NULL, c->attempts);
		write_meas(e, "result", &c->first);
		if (c->attempts > 1) {
			emit_text(e, "; retest");
			write_meas(e, "retest", &c->retest[0]);
		} else {
			emit_null(e, "retest", NULL);
		}
		/* Retests after the first, oldest first (rounds of retests). */
		if (c->attempts > 2) {
			emit_arr_open(e, "later_retests");
			for (unsigned int k = 1; k + 1 < c->attempts; k++) {
				emit_text(e, "; retest");
				write_meas(e, NULL, &c->retest[k]);
			}
			emit_arr_close(e);
		}
		emit_text(e, "\n");
		emit_obj_close(e);
	}
	emit_arr_close(e);
}

/* The sweep as one JSON document (or text), written as it is emitted:
 * memory for writing stays that of one probe, whatever the sweep's size.
 * @base: indent level of a document inside another. */
static int write_at(const struct rck_mesh *m, FILE *out, enum rck_format fmt, int base)
{
	struct mesh_order o;
	struct emit *e;
	int rc;

	if (!m || !out)
		return -EINVAL;
	rc = mesh_order_new(m, &o, fmt == RCK_FORMAT_TEXT);
	if (rc)
		return rc;
	rc = emit_new_nested(fmt, out, base, &e);
	if (rc) {
		mesh_order_free(&o);
		return rc;
	}
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, MESH_JSON_SCHEMA);
	emit_u64(e, "version", NULL, MESH_JSON_VERSION);
	emit_str(e, "pattern", "sweep: pattern %s", m->pattern);
	emit_str(e, "rails", ", rails %s", m->rails);
	emit_u64(e, "start_ns", NULL, m->start_ns);
	emit_double(e, "seconds", ", %s s", 1, m->seconds);
	emit_text(e, ", %u hosts, %u NICs, %u probes\n", m->names.n, m->n_nics, m->n_cells);
	rc = write_hosts(e, m, &o);
	emit_text(e, "probes:\n");
	write_probes(e, m, &o);
	if (!rc && !emit_is_json(e)) /* text only: JSON readers compute their own */
		rc = mesh_write_summary(e, m);
	emit_obj_close(e);
	if (!rc)
		rc = emit_finish(e);
	emit_free(e);
	mesh_order_free(&o);
	return rc;
}

RCK_EXPORT int rck_mesh_write(const struct rck_mesh *m, FILE *out, enum rck_format fmt)
{
	return write_at(m, out, fmt, 0);
}

int mesh_dump_with(json_t *root, const char *key, const struct rck_mesh *m, FILE *out, bool pretty)
{
	size_t flags = JSON_PRESERVE_ORDER | (pretty ? JSON_INDENT(2) : JSON_COMPACT);
	char *head = json_is_object(root) && json_object_size(root) ? json_dumps(root, flags) : NULL;
	size_t n = head ? strlen(head) : 0;
	int rc = 0;

	if (!head)
		return -ENOMEM;
	/* The object without its closing brace, then @key and the sweep. */
	n -= pretty ? 2 : 1;
	if (fwrite(head, 1, n, out) != n || fputs(",", out) == EOF)
		rc = -EIO;
	free(head);
	if (!rc && (fputs(pretty ? "\n  \"" : "\"", out) == EOF || fputs(key, out) == EOF ||
		    fputs(pretty ? "\": " : "\":", out) == EOF))
		rc = -EIO;
	if (!rc)
		rc = write_at(m, out, pretty ? RCK_FORMAT_JSON_PRETTY : RCK_FORMAT_JSON, 1);
	if (!rc && fputs(pretty ? "\n}\n" : "}\n", out) == EOF)
		rc = -EIO;
	return rc;
}
