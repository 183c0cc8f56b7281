/* The sweep result's strict loader, streamed: the outer object and its
 * "hosts" and "probes" arrays are walked element by element (json_stream.c),
 * so memory grows with the result, never with a tree of the document. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dcb/dcb_internal.h"
#include "internal.h"
#include "json_stream.h"
#include "result.h"

/* Bounds a loaded file must keep: hostile input cannot ask for more. */
#define LOAD_MAX_NICS (RCK_HOSTLIST_MAX * 16)
#define LOAD_MAX_PROBES (1u << 25)
/* One host (its NICs and DCB ports) or one probe in JSON: far below. */
#define LOAD_MAX_ELEMENT ((size_t)16 << 20)
#define LOAD_MAX_MEMBERS 64

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

/* A NIC read from its host, added once all are read: NIC ids number NICs
 * in the order the sweep met them, not the hosts' order. */
struct pend_nic {
	struct rck_mesh_nic n; /* strings owned */
	uint32_t id, host, i, j;
};

struct loader {
	struct rck_ctx *ctx;
	const char *name;
	char where[96];
	struct pend_nic *nics;
	size_t n_nics, nic_cap;
	const json_t *top; /* the outer object's members read so far */
	bool hosts, probes; /* both arrays read */
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

static void pend_free(struct pend_nic *p)
{
	free((char *)p->n.device);
	free((char *)p->n.netdev);
	free((char *)p->n.state);
	free((char *)p->n.fw_ver);
}

static int dup_field(const char *s, const char **out)
{
	*out = NULL;
	if (s && !(*out = strdup(s)))
		return -ENOMEM;
	return 0;
}

/* Check a NIC's fields and keep it for later. */
static int read_nic(struct loader *l, unsigned int h, uint32_t i, uint32_t j, const json_t *jn)
{
	struct pend_nic p = {.n = {.size = sizeof(p.n)}, .host = h, .i = i, .j = j};
	const json_t *ctrs = json_object_get(jn, "counters"), *v;
	const json_t *gid = json_object_get(jn, "gid_index");
	const char *dev, *nd, *st, *fw;
	uint64_t id, port, rail, amtu, nmtu;
	size_t k;
	int rc;

	snprintf(l->where, sizeof(l->where), "hosts[%u].nics[%u]: ", i, j);
	if (!json_is_object(jn))
		return bad(l, "a NIC is not an object");
	if ((rc = get_uint(l, jn, "id", UINT32_MAX, &id)) || (rc = get_uint(l, jn, "port", 255, &port)) ||
	    (rc = get_uint(l, jn, "rail", 1023, &rail)) ||
	    (rc = get_uint(l, jn, "active_mtu", 1 << 20, &amtu)) ||
	    (rc = get_uint(l, jn, "netdev_mtu", 1 << 20, &nmtu)) ||
	    (rc = get_num(l, jn, "rate_gbps", false, 0, &p.n.rate_gbps)) ||
	    (rc = opt_str(l, jn, "device", &dev)) || (rc = opt_str(l, jn, "netdev", &nd)) ||
	    (rc = opt_str(l, jn, "state", &st)) || (rc = opt_str(l, jn, "fw_ver", &fw)))
		return rc;
	if (id >= LOAD_MAX_NICS)
		return bad(l, "NIC ids are not 0, 1, 2, ... each once");
	if (!json_is_integer(gid) || json_integer_value(gid) < -1 || json_integer_value(gid) > 65535)
		return bad(l, "gid_index");
	if (!json_is_array(ctrs))
		return bad(l, "counters");
	json_array_foreach(ctrs, k, v) {
		int c = json_is_string(v) ? ctr_id(json_string_value(v)) : -1;

		if (c < 0)
			return bad(l, "not a neutral counter name in counters");
		p.n.counters |= 1ULL << c;
	}
	p.id = (uint32_t)id;
	p.n.port = (unsigned int)port;
	p.n.rail = (int)rail;
	p.n.active_mtu = (unsigned int)amtu;
	p.n.netdev_mtu = (unsigned int)nmtu;
	p.n.gid_index = (int)json_integer_value(gid);
	if (l->n_nics == l->nic_cap) {
		size_t cap = l->nic_cap ? l->nic_cap * 2 : 64;
		struct pend_nic *n = realloc(l->nics, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->nics = n;
		l->nic_cap = cap;
	}
	if (dup_field(dev, &p.n.device) || dup_field(nd, &p.n.netdev) || dup_field(st, &p.n.state) ||
	    dup_field(fw, &p.n.fw_ver)) {
		pend_free(&p);
		return -ENOMEM;
	}
	l->nics[l->n_nics++] = p;
	return 0;
}

/* The NICs read, added in id order so a NIC's number is its id. */
static int add_nics(struct loader *l, struct rck_mesh *m)
{
	uint32_t *at = calloc(l->n_nics + 1, sizeof(*at)); /* index + 1, 0 none */
	int rc = 0;

	if (!at)
		return -ENOMEM;
	for (size_t k = 0; k < l->n_nics && !rc; k++) {
		struct pend_nic *p = &l->nics[k];

		if (p->id >= l->n_nics || at[p->id]) {
			snprintf(l->where, sizeof(l->where), "hosts[%u].nics[%u]: ", p->i, p->j);
			rc = bad(l, "NIC ids are not 0, 1, 2, ... each once");
		} else {
			at[p->id] = (uint32_t)k + 1;
		}
	}
	for (size_t id = 0; id < l->n_nics && !rc; id++) {
		struct pend_nic *p = &l->nics[at[id] - 1];

		snprintf(l->where, sizeof(l->where), "hosts[%u].nics[%u]: ", p->i, p->j);
		rc = rck_mesh_add_nic(m, p->host, &p->n, NULL);
		if (rc == -EINVAL || rc == -EEXIST)
			rc = bad(l, "a NIC without device or port, or one given twice");
	}
	free(at);
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

static int load_host(struct loader *l, struct rck_mesh *m, size_t i, const json_t *jh)
{
	const char *name = printable(json_object_get(jh, "name")), *why;
	const json_t *nics = json_object_get(jh, "nics"), *jn;
	unsigned int h;
	size_t j;
	int rc;

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
	if (l->n_nics + json_array_size(nics) > LOAD_MAX_NICS)
		return bad(l, "too many NICs");
	rc = load_dcb(l, m, h, json_object_get(jh, "dcb"));
	if (!rc) {
		const char *pwhy;

		rc = mesh_load_pcie(m, h, json_object_get(jh, "pcie"), &pwhy);
		if (rc == -EINVAL)
			rc = bad(l, pwhy ? pwhy : "\"pcie\" is not a PCIe summary");
	}
	json_array_foreach(nics, j, jn) {
		if (rc)
			break;
		rc = read_nic(l, h, (uint32_t)i, (uint32_t)j, jn);
	}
	return rc;
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

static int load_probe(struct loader *l, struct rck_mesh *m, size_t i, const json_t *jp)
{
	const char *test = json_string_value(json_object_get(jp, "test"));
	const json_t *retest = json_object_get(jp, "retest");
	const json_t *later = json_object_get(jp, "later_retests");
	uint64_t src, dst, attempts;
	enum rck_mesh_test t;
	int rc;

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
	if (src == dst || attempts == 0 || (attempts >= 2) != (retest && !json_is_null(retest)) ||
	    (attempts > 2 ? !later || json_array_size(later) != attempts - 2 : later != NULL))
		return bad(l, "src equals dst, or attempts does not match retest");
	if (!rck_mesh_find_cell(m, t, (unsigned int)src, (unsigned int)dst, NULL))
		return bad(l, "the same test and NICs twice");
	rc = load_meas(l, m, t, (unsigned int)src, (unsigned int)dst, 0, json_object_get(jp, "result"));
	if (!rc && attempts >= 2)
		rc = load_meas(l, m, t, (unsigned int)src, (unsigned int)dst, 1, retest);
	for (unsigned int k = 2; !rc && k < attempts; k++)
		rc = load_meas(l, m, t, (unsigned int)src, (unsigned int)dst, k, json_array_get(later, k - 2));
	return rc;
}

/* One line for bad JSON, with its line in the document. */
static int syntax(struct loader *l, int rc, int line, const char *text)
{
	if (rc == -EINVAL && l->ctx)
		rck_err(l->ctx, "%s: line %d: %s", l->name, line, text);
	return rc;
}

/* The elements of an array, each handed to @fn as jansson parses it. */
static int load_array(struct loader *l, struct rck_mesh *m, struct jstream *js, size_t max, const char *what,
		      int (*fn)(struct loader *, struct rck_mesh *, size_t, const json_t *))
{
	json_error_t jerr;
	size_t i = 0;
	int rc;

	if (!jstream_eat(js, '['))
		return bad(l, what);
	if (jstream_eat(js, ']'))
		return 0;
	for (;; i++) {
		json_t *v;

		if (i == max)
			return bad(l, what);
		rc = jstream_value(js, LOAD_MAX_ELEMENT, &v, &jerr);
		if (rc == -E2BIG)
			return bad(l, "an element over 16 MiB");
		if (rc)
			return syntax(l, rc, jerr.line, jerr.text);
		rc = fn(l, m, i, v);
		json_decref(v);
		if (rc)
			return rc;
		if (jstream_eat(js, ']'))
			return 0;
		if (!jstream_eat(js, ','))
			return syntax(l, js->err ? js->err : -EINVAL, js->line, "',' or ']' expected");
	}
}

static int check_version(struct loader *l, const json_t *top)
{
	uint64_t version;
	const json_t *schema = json_object_get(top, "schema");
	int rc = get_uint(l, top, "version", INT64_MAX, &version);

	if (!rc && version != MESH_JSON_VERSION)
		rc = bad(l, "unknown version (this library reads 1)");
	/* Files written before the member have none; one that names another
	 * document is not a sweep. */
	if (!rc && schema && (!json_is_string(schema) || strcmp(json_string_value(schema), MESH_JSON_SCHEMA)))
		rc = bad(l, "\"schema\" is not " MESH_JSON_SCHEMA);
	return rc;
}

/* One member of the outer object: "hosts" and "probes" streamed (their
 * value in *@v is null), anything else parsed whole. */
static int member(struct loader *l, struct rck_mesh *m, struct jstream *js, const char *key, json_t **v,
		  bool *hosts, bool *probes)
{
	json_error_t jerr;
	int rc;

	*v = NULL;
	if (!strcmp(key, "hosts") || !strcmp(key, "probes")) {
		bool h = key[0] == 'h';

		if (json_object_get(l->top, "version") && (rc = check_version(l, l->top)))
			return rc;
		if (!h && !*hosts)
			return bad(l, "no \"hosts\" array before \"probes\"");
		rc = h ? load_array(l, m, js, RCK_HOSTLIST_MAX, "no \"hosts\" array of at most 65536", load_host)
		       : load_array(l, m, js, LOAD_MAX_PROBES, "no \"probes\" array", load_probe);
		if (!rc && h)
			rc = add_nics(l, m);
		if (rc)
			return rc;
		*(h ? hosts : probes) = true;
		*v = json_null();
		return 0;
	}
	rc = jstream_value(js, LOAD_MAX_ELEMENT, v, &jerr);
	if (rc == -E2BIG)
		return bad(l, "an element over 16 MiB");
	return rc ? syntax(l, rc, jerr.line, jerr.text) : 0;
}

/* The outer object's members in the order they come; "hosts" must come
 * before "probes" (rocecheck writes them so), other members are small. */
static int load_members(struct loader *l, struct rck_mesh *m, struct jstream *js, json_t *top)
{
	bool hosts = false, probes = false;
	json_error_t jerr;
	int rc;

	if (jstream_eat(js, '}'))
		goto end;
	for (;;) {
		json_t *k, *v;
		const char *key;

		if (jstream_peek(js) != '"')
			return syntax(l, js->err ? js->err : -EINVAL, js->line, "string or '}' expected");
		rc = jstream_value(js, 4096, &k, &jerr);
		if (rc == -E2BIG)
			return bad(l, "a member name over 4096 bytes");
		if (rc)
			return syntax(l, rc, jerr.line, jerr.text);
		key = json_string_value(k);
		if (json_object_get(top, key))
			rc = syntax(l, -EINVAL, js->line, "duplicate object key");
		else if (json_object_size(top) >= LOAD_MAX_MEMBERS)
			rc = bad(l, "more than 64 members");
		else if (!jstream_eat(js, ':'))
			rc = syntax(l, js->err ? js->err : -EINVAL, js->line, "':' expected");
		else
			rc = member(l, m, js, key, &v, &hosts, &probes);
		/* Members keep their value (the head's scalars) or null. */
		if (!rc && json_object_set_new(top, key, v))
			rc = -ENOMEM;
		json_decref(k);
		if (rc)
			return rc;
		if (jstream_eat(js, '}'))
			break;
		if (!jstream_eat(js, ','))
			return syntax(l, js->err ? js->err : -EINVAL, js->line, "',' or '}' expected");
	}
end:
	l->where[0] = '\0';
	if (jstream_peek(js) >= 0 || js->err)
		return syntax(l, js->err ? js->err : -EINVAL, js->line, "end of file expected");
	l->hosts = hosts;
	l->probes = probes;
	return 0;
}

static int load_stream(struct loader *l, struct rck_mesh *m, struct jstream *js)
{
	struct rck_mesh_info info = {.size = sizeof(info)};
	json_t *top, *v;
	json_error_t jerr;
	int rc;

	if (jstream_peek(js) != '{') {
		/* Not an object: bad JSON, or JSON of the wrong kind. */
		rc = jstream_value(js, LOAD_MAX_ELEMENT, &v, &jerr);
		json_decref(v);
		if (rc == -EINVAL)
			return syntax(l, rc, jerr.line, jerr.text);
		if (rc && rc != -E2BIG)
			return rc;
		return bad(l, "not a JSON object");
	}
	jstream_eat(js, '{');
	top = json_object();
	if (!top)
		return -ENOMEM;
	l->top = top;
	rc = load_members(l, m, js, top);
	if (!rc)
		rc = check_version(l, top);
	if (!rc && (!(rc = opt_str(l, top, "pattern", &info.pattern))) &&
	    !(rc = opt_str(l, top, "rails", &info.rails)) &&
	    !(rc = get_uint(l, top, "start_ns", INT64_MAX, &info.start_ns)) &&
	    !(rc = get_num(l, top, "seconds", false, 0, &info.seconds)) &&
	    !(rc = rck_mesh_set_info(m, &info))) {
		if (!l->hosts)
			rc = bad(l, "no \"hosts\" array of at most 65536");
		else if (!l->probes)
			rc = bad(l, "no \"probes\" array");
	}
	json_decref(top);
	return rc;
}

static int load(struct rck_ctx *ctx, struct jstream *js, const char *name, struct rck_mesh **out)
{
	struct loader l = {.ctx = ctx, .name = name};
	struct rck_mesh *m;
	int rc = rck_mesh_new(&m);

	if (!rc)
		rc = load_stream(&l, m, js);
	for (size_t k = 0; k < l.n_nics; k++)
		pend_free(&l.nics[k]);
	free(l.nics);
	if (rc) {
		rck_mesh_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

RCK_EXPORT int rck_mesh_load_buf(struct rck_ctx *ctx, const char *buf, size_t len, const char *name,
				 struct rck_mesh **out)
{
	struct jstream js;
	int rc;

	if (!out || (!buf && len))
		return -EINVAL;
	jstream_init_buf(&js, buf, len);
	rc = load(ctx, &js, name ? name : "mesh result", out);
	jstream_clear(&js);
	return rc;
}

RCK_EXPORT int rck_mesh_load(struct rck_ctx *ctx, const char *path, struct rck_mesh **out)
{
	struct jstream js;
	FILE *f;
	int rc;

	if (!path || !out)
		return -EINVAL;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	rc = jstream_init_file(&js, f);
	if (!rc)
		rc = load(ctx, &js, path, out);
	jstream_clear(&js);
	fclose(f);
	return rc;
}
