/* The sweep result in and out: text and JSON through the print layer, and
 * a strict loader of that JSON, so analysis runs on recorded sweeps. */
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

#define MESH_JSON_VERSION 1
/* Bounds a loaded file must keep: hostile input cannot ask for more. */
#define LOAD_MAX_NICS (RCK_HOSTLIST_MAX * 16)
#define LOAD_MAX_PROBES (1u << 25)

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

static int ctr_id(const char *key)
{
	const char *br = strchr(key, '[');
	size_t len = br ? (size_t)(br - key) : strlen(key);
	int want = -1;

	/* "name" or "name[P]" with one digit 0..7, nothing after. */
	if (br) {
		if (br[1] < '0' || br[1] > '7' || br[2] != ']' || br[3])
			return -1;
		want = br[1] - '0';
	}
	for (unsigned int id = 0; id < RCK_CTR_COUNT; id++) {
		int prio;
		const char *name = rck_counter_name((enum rck_counter)id, &prio);

		if (prio == (want < 0 ? -1 : want) && strlen(name) == len && !memcmp(name, key, len))
			return (int)id;
		if (prio >= 0 && want < 0 && strlen(name) == len && !memcmp(name, key, len))
			return -1; /* a per-priority name needs its [P] */
	}
	return -1;
}

/* A measurement that was not taken (NaN) is null in JSON, "n/a" in text. */
static void put_num(struct emit *e, const char *key, const char *tfmt, int prec, double v)
{
	if (isfinite(v))
		emit_double(e, key, tfmt, prec, v);
	else
		emit_null(e, key, tfmt);
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

static void write_nic(struct emit *e, const struct rck_mesh *m, unsigned int i)
{
	const struct mesh_nic *n = &m->nics[i];
	char key[64];

	emit_obj_open(e, NULL);
	emit_u64(e, "id", "  nic %s", i);
	emit_str(e, "device", " %s", n->device);
	emit_u64(e, "port", "/%s", n->port);
	emit_u64(e, "rail", " rail %s", (uint64_t)n->rail);
	emit_str(e, "netdev", " %s", n->netdev);
	emit_str(e, "state", " %s", n->state);
	emit_double(e, "rate_gbps", " %s Gb/s", 0, n->rate_gbps);
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

static int write_hosts(struct emit *e, const struct rck_mesh *m)
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
		anywhere[m->nics[i].rail] = true;
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
		for (unsigned int i = 0; i < m->hosts[h].n_nics; i++)
			write_nic(e, m, m->hosts[h].nics[i]);
		emit_arr_close(e);
		write_dcb(e, &m->hosts[h]);
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
	put_num(e, "gbps", isfinite(x->gbps) ? " %s Gb/s" : NULL, 2, x->gbps);
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

static void write_probes(struct emit *e, const struct rck_mesh *m)
{
	emit_arr_open(e, "probes");
	for (unsigned int i = 0; i < m->n_cells; i++) {
		const struct mesh_cell *c = &m->cells[i];
		const struct mesh_nic *s = &m->nics[c->src], *d = &m->nics[c->dst];

		emit_obj_open(e, NULL);
		emit_str(e, "test", "%-4s", rck_mesh_test_name((enum rck_mesh_test)c->test));
		emit_text(e, "%s/%s/%u -> %s/%s/%u", m->names.names[s->host], s->device, s->port,
			  m->names.names[d->host], d->device, d->port);
		emit_u64(e, "src", NULL, c->src);
		emit_u64(e, "dst", NULL, c->dst);
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

RCK_EXPORT int rck_mesh_write(const struct rck_mesh *m, FILE *out, enum rck_format fmt)
{
	struct emit *e;
	int rc;

	if (!m || !out)
		return -EINVAL;
	rc = emit_new(fmt, out, &e);
	if (rc)
		return rc;
	emit_obj_open(e, NULL);
	emit_u64(e, "version", NULL, MESH_JSON_VERSION);
	emit_str(e, "pattern", "sweep: pattern %s", m->pattern);
	emit_str(e, "rails", ", rails %s", m->rails);
	emit_u64(e, "start_ns", NULL, m->start_ns);
	emit_double(e, "seconds", ", %s s", 1, m->seconds);
	emit_text(e, ", %u hosts, %u NICs, %u probes\n", m->names.n, m->n_nics, m->n_cells);
	rc = write_hosts(e, m);
	emit_text(e, "probes:\n");
	write_probes(e, m);
	emit_obj_close(e);
	if (!rc)
		rc = emit_finish(e);
	emit_free(e);
	return rc;
}

/* ---- loading ---- */

struct loader {
	struct rck_ctx *ctx;
	const char *name;
	char where[96];
};

static int bad(struct loader *l, const char *what)
{
	if (l->ctx)
		rck_err(l->ctx, "%s: %s%s", l->name, l->where, what);
	return -EINVAL;
}

/* A string from a file reaches terminals as one from an agent does:
 * anything but printable ASCII becomes '?' (in place: same length, still
 * valid UTF-8 in the document). */
static const char *printable(const json_t *v)
{
	char *s = (char *)json_string_value(v);

	for (char *p = s; p && *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	return s;
}

/* Optional string: absent or null gives NULL. */
static int opt_str(struct loader *l, const json_t *o, const char *key, const char **out)
{
	const json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return bad(l, key);
	*out = printable(v);
	return 0;
}

static int get_uint(struct loader *l, const json_t *o, const char *key, int64_t max, uint64_t *out)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
		return bad(l, key);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* A number >= @min, or null (NaN) where @nullable. */
static int get_num(struct loader *l, const json_t *o, const char *key, bool nullable, double min,
		   double *out)
{
	const json_t *v = json_object_get(o, key);

	if (nullable && (!v || json_is_null(v))) {
		*out = NAN;
		return 0;
	}
	if (!json_is_number(v) || !(json_number_value(v) >= min))
		return bad(l, key);
	*out = json_number_value(v);
	return 0;
}

static int load_nic(struct loader *l, struct rck_mesh *m, unsigned int h, const json_t *jn)
{
	struct rck_mesh_nic n = {.size = sizeof(n)};
	const json_t *ctrs = json_object_get(jn, "counters"), *v;
	uint64_t id, port, rail, amtu, nmtu;
	const json_t *gid = json_object_get(jn, "gid_index");
	size_t i;
	int rc;

	if (!json_is_object(jn))
		return bad(l, "a NIC is not an object");
	if ((rc = get_uint(l, jn, "id", UINT32_MAX, &id)) || (rc = get_uint(l, jn, "port", 255, &port)) ||
	    (rc = get_uint(l, jn, "rail", 1023, &rail)) ||
	    (rc = get_uint(l, jn, "active_mtu", 1 << 20, &amtu)) ||
	    (rc = get_uint(l, jn, "netdev_mtu", 1 << 20, &nmtu)) ||
	    (rc = get_num(l, jn, "rate_gbps", false, 0, &n.rate_gbps)) ||
	    (rc = opt_str(l, jn, "device", &n.device)) || (rc = opt_str(l, jn, "netdev", &n.netdev)) ||
	    (rc = opt_str(l, jn, "state", &n.state)) || (rc = opt_str(l, jn, "fw_ver", &n.fw_ver)))
		return rc;
	if (id != m->n_nics)
		return bad(l, "NIC ids are not 0, 1, 2, ... in order");
	if (!json_is_integer(gid) || json_integer_value(gid) < -1 || json_integer_value(gid) > 65535)
		return bad(l, "gid_index");
	if (!json_is_array(ctrs))
		return bad(l, "counters");
	json_array_foreach(ctrs, i, v) {
		int c = json_is_string(v) ? ctr_id(json_string_value(v)) : -1;

		if (c < 0)
			return bad(l, "not a neutral counter name in counters");
		n.counters |= 1ULL << c;
	}
	n.port = (unsigned int)port;
	n.rail = (int)rail;
	n.active_mtu = (unsigned int)amtu;
	n.netdev_mtu = (unsigned int)nmtu;
	n.gid_index = (int)json_integer_value(gid);
	rc = rck_mesh_add_nic(m, h, &n, NULL);
	if (rc == -EINVAL || rc == -EEXIST)
		return bad(l, "a NIC without device or port, or one given twice");
	return rc;
}

/* "dcb": null (not collected) or {"error", "ports": [port objects]}. */
static int load_dcb(struct loader *l, struct rck_mesh *m, unsigned int h, const json_t *jd)
{
	const json_t *ports = json_object_get(jd, "ports"), *p;
	struct rck_dcb **v = NULL;
	const char *error;
	size_t i, n = 0;
	int rc;

	if (!jd || json_is_null(jd))
		return 0;
	if (!json_is_object(jd) || !json_is_array(ports) || json_array_size(ports) > 256)
		return bad(l, "\"dcb\" needs \"ports\", an array of at most 256");
	if ((rc = opt_str(l, jd, "error", &error)))
		return rc;
	if (error && json_array_size(ports))
		return bad(l, "dcb: ports and an error");
	if (json_array_size(ports) && !(v = calloc(json_array_size(ports), sizeof(*v))))
		return -ENOMEM;
	json_array_foreach(ports, i, p) {
		rc = dcb_port_from_json(p, &v[n]);
		if (rc) {
			if (rc == -EINVAL) {
				snprintf(l->where + strlen(l->where), sizeof(l->where) - strlen(l->where),
					 "dcb.ports[%zu]: ", i);
				rc = bad(l, "not a DCB port state (rocedcb show)");
			}
			break;
		}
		n++;
	}
	if (!rc)
		rc = rck_mesh_host_set_dcb(m, h, (const struct rck_dcb *const *)v, n, error);
	for (i = 0; i < n; i++)
		rck_dcb_free(v[i]);
	free(v);
	return rc;
}

/* A NIC's JSON and where it stands, by its id. */
struct nic_at {
	const json_t *jn;
	uint32_t host, i, j;
};

/* NIC ids number NICs in the order the sweep met them, which is not the
 * hosts' order (agents answer in any order): collect them by id, then add
 * them in id order so a NIC's number is its id. */
static int load_nics_by_id(struct loader *l, struct rck_mesh *m, const json_t *hosts, size_t total)
{
	struct nic_at *at = calloc(total + 1, sizeof(*at));
	const json_t *jh, *jn;
	size_t i, j;
	int rc = 0;

	if (!at)
		return -ENOMEM;
	json_array_foreach(hosts, i, jh) {
		json_array_foreach(json_object_get(jh, "nics"), j, jn) {
			const json_t *id = json_object_get(jn, "id");
			json_int_t v = json_is_integer(id) ? json_integer_value(id) : -1;

			snprintf(l->where, sizeof(l->where), "hosts[%zu].nics[%zu]: ", i, j);
			if (v < 0 || (size_t)v >= total || at[v].jn) {
				rc = bad(l, "NIC ids are not 0, 1, 2, ... each once");
				goto out;
			}
			at[v] = (struct nic_at){.jn = jn, .host = (uint32_t)i, .i = (uint32_t)i, .j = (uint32_t)j};
		}
	}
	for (size_t id = 0; id < total && !rc; id++) {
		snprintf(l->where, sizeof(l->where), "hosts[%u].nics[%u]: ", at[id].i, at[id].j);
		rc = load_nic(l, m, at[id].host, at[id].jn);
	}
out:
	free(at);
	return rc;
}

static int load_hosts(struct loader *l, struct rck_mesh *m, const json_t *hosts)
{
	const json_t *jh;
	size_t i, total = 0;
	int rc;

	if (!json_is_array(hosts) || json_array_size(hosts) > RCK_HOSTLIST_MAX)
		return bad(l, "no \"hosts\" array of at most 65536");
	json_array_foreach(hosts, i, jh) {
		const char *name = printable(json_object_get(jh, "name")), *why;
		const json_t *nics = json_object_get(jh, "nics");
		unsigned int h;

		snprintf(l->where, sizeof(l->where), "hosts[%zu]: ", i);
		if (!name || !json_is_array(nics))
			return bad(l, "a host needs \"name\" and \"nics\"");
		rc = rck_mesh_add_host(m, name, &h);
		if (rc == -EEXIST || rc == -EINVAL)
			return bad(l, "a host name given twice, empty or too long");
		if (!rc)
			rc = opt_str(l, jh, "unreachable", &why);
		if (!rc && why)
			rc = rck_mesh_host_set_unreachable(m, h, why);
		if (rc)
			return rc;
		total += json_array_size(nics);
		if (total > LOAD_MAX_NICS)
			return bad(l, "too many NICs");
		rc = load_dcb(l, m, h, json_object_get(jh, "dcb"));
		if (rc)
			return rc;
	}
	return load_nics_by_id(l, m, hosts, total);
}

static int load_counters(struct loader *l, struct rck_mesh *m, unsigned int cell, unsigned int attempt,
			 const json_t *jc)
{
	if (!json_is_object(jc))
		return bad(l, "counters");
	for (unsigned int end = 0; end < 2; end++) {
		const json_t *obj = json_object_get(jc, end ? "dst" : "src"), *v;
		const char *key;

		if (!json_is_object(obj))
			return bad(l, "counters need \"src\" and \"dst\" objects");
		json_object_foreach((json_t *)obj, key, v) {
			int id = ctr_id(key), rc;

			if (id < 0 || !json_is_integer(v) || json_integer_value(v) < 0)
				return bad(l, "not a neutral counter with a count");
			rc = rck_mesh_set_counter(m, cell, attempt, (enum rck_mesh_end)end,
						  (enum rck_counter)id, (uint64_t)json_integer_value(v));
			if (rc == -ENOENT)
				return bad(l, "a counter delta the NIC does not have");
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int load_meas(struct loader *l, struct rck_mesh *m, enum rck_mesh_test test, unsigned int src,
		     unsigned int dst, unsigned int attempt, const json_t *jm)
{
	struct rck_mesh_meas x = {.size = sizeof(x)};
	const char *status = json_string_value(json_object_get(jm, "status"));
	unsigned int cell;
	int rc;

	if (!json_is_object(jm) || !status)
		return bad(l, "a result needs \"status\"");
	x.status = RCK_MESH_STATUS_COUNT;
	for (unsigned int s = 0; s < RCK_MESH_STATUS_COUNT; s++)
		if (!strcmp(status, rck_mesh_status_name((enum rck_mesh_status)s)))
			x.status = (enum rck_mesh_status)s;
	if (x.status == RCK_MESH_STATUS_COUNT)
		return bad(l, "unknown status");
	if ((rc = get_num(l, jm, "gbps", true, 0, &x.gbps)) ||
	    (rc = get_num(l, jm, "lat_p50_us", true, 0, &x.lat_p50_us)) ||
	    (rc = get_num(l, jm, "lat_p99_us", true, 0, &x.lat_p99_us)) ||
	    (rc = get_num(l, jm, "start_s", true, 0, &x.start_s)) ||
	    (rc = get_num(l, jm, "seconds", true, 0, &x.seconds)) ||
	    (rc = opt_str(l, jm, "reason", &x.reason)))
		return rc;
	rc = rck_mesh_set_result(m, test, src, dst, attempt, &x, &cell);
	if (rc)
		return rc;
	return load_counters(l, m, cell, attempt, json_object_get(jm, "counters"));
}

static int load_probes(struct loader *l, struct rck_mesh *m, const json_t *probes)
{
	const json_t *jp;
	size_t i;
	int rc;

	if (!json_is_array(probes) || json_array_size(probes) > LOAD_MAX_PROBES)
		return bad(l, "no \"probes\" array");
	json_array_foreach(probes, i, jp) {
		const char *test = json_string_value(json_object_get(jp, "test"));
		const json_t *retest = json_object_get(jp, "retest");
		const json_t *later = json_object_get(jp, "later_retests");
		uint64_t src, dst, attempts;
		enum rck_mesh_test t;

		snprintf(l->where, sizeof(l->where), "probes[%zu]: ", i);
		if (!json_is_object(jp) || !test)
			return bad(l, "a probe needs \"test\"");
		if (!strcmp(test, "bw"))
			t = RCK_MESH_TEST_BW;
		else if (!strcmp(test, "lat"))
			t = RCK_MESH_TEST_LAT;
		else
			return bad(l, "unknown test");
		if ((rc = get_uint(l, jp, "src", (int64_t)m->n_nics - 1, &src)) ||
		    (rc = get_uint(l, jp, "dst", (int64_t)m->n_nics - 1, &dst)) ||
		    (rc = get_uint(l, jp, "attempts", 1 + RCK_MESH_RETEST_MAX, &attempts)))
			return rc;
		if (later && (!json_is_array(later) || !json_array_size(later)))
			return bad(l, "\"later_retests\" is not a non-empty array");
		if (src == dst || attempts == 0 ||
		    (attempts >= 2) != (retest && !json_is_null(retest)) ||
		    (attempts > 2 ? !later || json_array_size(later) != attempts - 2 : later != NULL))
			return bad(l, "src equals dst, or attempts does not match retest");
		if (!rck_mesh_find_cell(m, t, (unsigned int)src, (unsigned int)dst, NULL))
			return bad(l, "the same test and NICs twice");
		rc = load_meas(l, m, t, (unsigned int)src, (unsigned int)dst, 0, json_object_get(jp, "result"));
		if (!rc && attempts >= 2)
			rc = load_meas(l, m, t, (unsigned int)src, (unsigned int)dst, 1, retest);
		for (unsigned int k = 2; !rc && k < attempts; k++)
			rc = load_meas(l, m, t, (unsigned int)src, (unsigned int)dst, k,
				       json_array_get(later, k - 2));
		if (rc)
			return rc;
	}
	return 0;
}

static int load_root(struct loader *l, struct rck_mesh *m, const json_t *root)
{
	struct rck_mesh_info info = {.size = sizeof(info)};
	uint64_t version;
	int rc;

	if (!json_is_object(root))
		return bad(l, "not a JSON object");
	if ((rc = get_uint(l, root, "version", INT64_MAX, &version)))
		return rc;
	if (version != MESH_JSON_VERSION)
		return bad(l, "unknown version (this library reads 1)");
	if ((rc = opt_str(l, root, "pattern", &info.pattern)) || (rc = opt_str(l, root, "rails", &info.rails)) ||
	    (rc = get_uint(l, root, "start_ns", INT64_MAX, &info.start_ns)) ||
	    (rc = get_num(l, root, "seconds", false, 0, &info.seconds)))
		return rc;
	rc = rck_mesh_set_info(m, &info);
	if (!rc)
		rc = load_hosts(l, m, json_object_get(root, "hosts"));
	if (!rc)
		rc = load_probes(l, m, json_object_get(root, "probes"));
	return rc;
}

RCK_EXPORT int rck_mesh_load_buf(struct rck_ctx *ctx, const char *buf, size_t len, const char *name,
				 struct rck_mesh **out)
{
	struct loader l = {.ctx = ctx, .name = name ? name : "mesh result"};
	struct rck_mesh *m;
	json_error_t jerr;
	json_t *root;
	int rc;

	if (!out || (!buf && len))
		return -EINVAL;
	root = json_loadb(buf ? buf : "", len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (ctx)
			rck_err(ctx, "%s: line %d: %s", l.name, jerr.line, jerr.text);
		return -EINVAL;
	}
	rc = rck_mesh_new(&m);
	if (!rc)
		rc = load_root(&l, m, root);
	json_decref(root);
	if (rc) {
		rck_mesh_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

RCK_EXPORT int rck_mesh_load(struct rck_ctx *ctx, const char *path, struct rck_mesh **out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (!path || !out)
		return -EINVAL;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* The whole file: jansson parses from one buffer. */
	for (size_t cap = 0;;) {
		size_t r;

		if (len == cap) {
			char *nb = cap > ((size_t)1 << 34) ? NULL : realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
		}
		r = fread(buf + len, 1, cap - len, f);
		len += r;
		if (r == 0)
			break;
	}
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!rc)
		rc = rck_mesh_load_buf(ctx, buf, len, path, out);
	free(buf);
	return rc;
}
