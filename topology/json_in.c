/* Our topology file (schemas/topology.schema.json) into the model: the
 * whole document is checked first, then merged. */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "topo_int.h"

struct js {
	const char *name;
	char *err;
	size_t errlen;
	struct strset seen;           /* duplicates within the file */
};

RCK_PRINTF(3, 4) static int js_fail(struct js *j, const char *where, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tp_fail(j->err, j->errlen, -EINVAL, "%s: %s: %s", j->name, where, msg);
}

/* Every member of @o must be one of @keys (NULL-terminated). */
static int only_keys(struct js *j, json_t *o, const char *where, const char *const *keys)
{
	const char *k;
	json_t *v;

	if (!json_is_object(o))
		return js_fail(j, where, "not an object");
	json_object_foreach(o, k, v) {
		size_t i;

		for (i = 0; keys[i] && strcmp(keys[i], k); i++)
			;
		if (!keys[i])
			return js_fail(j, where, "unknown member \"%.40s\"", k);
	}
	return 0;
}

static int str_member(struct js *j, json_t *o, const char *key, bool required, const char *where,
		      const char **out)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v)) {
		if (required)
			return js_fail(j, where, "\"%s\" is missing", key);
		return 0;
	}
	if (!json_is_string(v) || !json_string_length(v) || json_string_length(v) > 255 ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return js_fail(j, where, "\"%s\" is not a name (1 to 255 characters, no NUL)", key);
	*out = json_string_value(v);
	return 0;
}

static int num_member(struct js *j, json_t *o, const char *key, double min, double max, bool whole,
		      const char *where, double *out)
{
	json_t *v = json_object_get(o, key);
	double d;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_number(v))
		return js_fail(j, where, "\"%s\" is not a number", key);
	d = json_number_value(v);
	if (!isfinite(d) || d < min || d > max || (whole && !json_is_integer(v)))
		return js_fail(j, where, "\"%s\" out of range (%g to %g%s)", key, min, max, whole ? ", whole" : "");
	*out = d;
	return 0;
}

static int tier_of(struct js *j, json_t *o, const char *where, enum rck_switch_tier *tier)
{
	const char *s;
	int rc = str_member(j, o, "tier", false, where, &s);

	*tier = RCK_SWITCH_TIER_UNKNOWN;
	if (rc || !s)
		return rc;
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, rck_switch_tier_name((enum rck_switch_tier)i))) {
			*tier = (enum rck_switch_tier)i;
			return 0;
		}
	return js_fail(j, where, "tier \"%.20s\" is not leaf, spine or unknown", s);
}

/* The file names each thing once: "kind\x1fa\x1fb" keys. */
static int once(struct js *j, const char *where, const char *kind, const char *a, const char *b)
{
	char *k;
	int rc;

	if (asprintf(&k, "%s\x1f%s\x1f%s", kind, a, b ? b : "") < 0)
		return -ENOMEM;
	rc = strset_add(&j->seen, k, NULL);
	if (rc)
		free(k);
	if (rc == -EEXIST)
		return js_fail(j, where, "%s %s%s%s given twice", kind, a, b ? " " : "", b ? b : "");
	return rc;
}

static const char *const sw_keys[] = {"name", "chassis_id", "tier", "rail", "declared", "link_speed",
				       "ports", "uplinks", NULL};
static const char *const port_keys[] = {"name", "speed_gbps", NULL};
static const char *const up_keys[] = {"port", "switch", "switch_port", "source", NULL};
static const char *const host_keys[] = {"name", "switches", "nics", NULL};
static const char *const nic_keys[] = {"nic", "netdev", "switch", "port", "rail", "source", NULL};
static const char *const top_keys[] = {"schema", "switches", "hosts", "conflicts", "findings", NULL};

static int check_switch(struct js *j, json_t *s, size_t i)
{
	char where[320];
	const char *name, *x;
	enum rck_switch_tier tier;
	double d = 0;
	size_t k;
	json_t *p;
	int rc;

	snprintf(where, sizeof(where), "switches[%zu]", i);
	rc = only_keys(j, s, where, sw_keys);
	if (!rc)
		rc = str_member(j, s, "name", true, where, &name);
	if (!rc)
		rc = once(j, where, "switch", name, NULL);
	if (!rc)
		rc = str_member(j, s, "chassis_id", false, where, &x);
	if (!rc)
		rc = tier_of(j, s, where, &tier);
	if (!rc)
		rc = num_member(j, s, "rail", 0, TP_RAIL_MAX - 1, true, where, &d);
	if (!rc)
		rc = num_member(j, s, "link_speed", 0, UINT32_MAX, true, where, &d);
	if (!rc && json_object_get(s, "declared") && !json_is_boolean(json_object_get(s, "declared")))
		rc = js_fail(j, where, "\"declared\" is not true or false");
	if (!rc && json_object_get(s, "ports") && !json_is_array(json_object_get(s, "ports")))
		rc = js_fail(j, where, "\"ports\" is not an array");
	json_array_foreach(json_object_get(s, "ports"), k, p) {
		if (rc)
			break;
		snprintf(where, sizeof(where), "switch %s: ports[%zu]", name, k);
		rc = only_keys(j, p, where, port_keys);
		if (!rc)
			rc = str_member(j, p, "name", true, where, &x);
		if (!rc)
			rc = once(j, where, "port", name, x);
		if (!rc)
			rc = num_member(j, p, "speed_gbps", 0, 1e6, false, where, &d);
	}
	if (!rc && json_object_get(s, "uplinks") && !json_is_array(json_object_get(s, "uplinks")))
		rc = js_fail(j, where, "\"uplinks\" is not an array");
	json_array_foreach(json_object_get(s, "uplinks"), k, p) {
		if (rc)
			break;
		snprintf(where, sizeof(where), "switch %s: uplinks[%zu]", name, k);
		rc = only_keys(j, p, where, up_keys);
		if (!rc)
			rc = str_member(j, p, "switch", true, where, &x);
		if (!rc && !strcmp(x, name))
			rc = js_fail(j, where, "a switch is not its own uplink");
		if (!rc)
			rc = str_member(j, p, "port", false, where, &x);
		if (!rc)
			rc = str_member(j, p, "switch_port", false, where, &x);
	}
	return rc;
}

static int check_host(struct js *j, json_t *h, size_t i)
{
	char where[320];
	const char *name, *x, *sw, *port;
	double d;
	size_t k;
	json_t *n;
	int rc;

	snprintf(where, sizeof(where), "hosts[%zu]", i);
	rc = only_keys(j, h, where, host_keys);
	if (!rc)
		rc = str_member(j, h, "name", true, where, &name);
	if (!rc)
		rc = once(j, where, "host", name, NULL);
	if (!rc && json_object_get(h, "switches") && !json_is_array(json_object_get(h, "switches")))
		rc = js_fail(j, where, "\"switches\" is not an array");
	json_array_foreach(json_object_get(h, "switches"), k, n)
		if (!rc && (!json_is_string(n) || !json_string_length(n)))
			rc = js_fail(j, where, "switches[%zu] is not a name", k);
	if (!rc && json_object_get(h, "nics") && !json_is_array(json_object_get(h, "nics")))
		rc = js_fail(j, where, "\"nics\" is not an array");
	json_array_foreach(json_object_get(h, "nics"), k, n) {
		if (rc)
			break;
		snprintf(where, sizeof(where), "host %s: nics[%zu]", name, k);
		rc = only_keys(j, n, where, nic_keys);
		if (!rc)
			rc = str_member(j, n, "nic", true, where, &x);
		if (!rc)
			rc = once(j, where, "NIC", name, x);
		if (!rc)
			rc = str_member(j, n, "netdev", false, where, &x);
		if (!rc)
			rc = str_member(j, n, "switch", false, where, &sw);
		if (!rc)
			rc = str_member(j, n, "port", false, where, &port);
		if (!rc && port && !sw)
			rc = js_fail(j, where, "a port without its switch");
		if (!rc && port)
			rc = once(j, where, "cabled switch port", sw, port);
		if (!rc)
			rc = num_member(j, n, "rail", 0, TP_RAIL_MAX - 1, true, where, &d);
	}
	return rc;
}

static int check_doc(struct js *j, json_t *doc)
{
	json_t *v;
	size_t i;
	int rc = only_keys(j, doc, "document", top_keys);

	if (!rc && (!json_is_string(json_object_get(doc, "schema")) ||
		    strcmp(json_string_value(json_object_get(doc, "schema")), "rocecheck.topology/1")))
		rc = js_fail(j, "document", "\"schema\" is not \"rocecheck.topology/1\"");
	for (const char *const *a = (const char *const[]){"switches", "hosts", NULL}; !rc && *a; a++)
		if (json_object_get(doc, *a) && !json_is_array(json_object_get(doc, *a)))
			rc = js_fail(j, "document", "\"%s\" is not an array", *a);
	json_array_foreach(json_object_get(doc, "switches"), i, v)
		if (!rc)
			rc = check_switch(j, v, i);
	json_array_foreach(json_object_get(doc, "hosts"), i, v)
		if (!rc)
			rc = check_host(j, v, i);
	return rc;
}

static const char *sget(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static int iget(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? (int)json_integer_value(v) : TP_NONE;
}

static int port_of(struct rck_topology *t, uint32_t sw, const char *name, int32_t *port)
{
	uint32_t p;
	int rc;

	*port = TP_NONE;
	if (!name)
		return 0;
	rc = tp_port(t, sw, name, &p);
	*port = (int32_t)p;
	return rc;
}

/* A switch the file names elsewhere is declared unless its own entry
 * says "declared": false (a written model's switch heard only by LLDP). */
static bool declares(json_t *listed, const char *name)
{
	return !json_is_false(json_object_get(listed, name));
}

static int merge_switch(struct rck_topology *t, json_t *s, json_t *listed, uint16_t src)
{
	json_t *v = json_object_get(s, "declared"), *p;
	enum rck_switch_tier tier = RCK_SWITCH_TIER_UNKNOWN;
	uint32_t sw = 0, up = 0, pi = 0;
	int32_t lp, upp;
	size_t k;
	int rc;

	rc = tp_switch(t, sget(s, "name"), !json_is_false(v), &sw);
	if (!rc && sget(s, "chassis_id"))
		rc = tp_set_chassis(t, sw, sget(s, "chassis_id"), src);
	for (int i = 0; sget(s, "tier") && i < 3; i++)
		if (!strcmp(sget(s, "tier"), rck_switch_tier_name((enum rck_switch_tier)i)))
			tier = (enum rck_switch_tier)i;
	if (!rc)
		rc = tp_set_tier(t, sw, tier, src);
	if (!rc)
		rc = tp_set_rail(t, sw, iget(s, "rail"), src);
	if (!rc && iget(s, "link_speed") > 0)
		t->sw[sw].slurm_speed = (double)json_integer_value(json_object_get(s, "link_speed"));
	json_array_foreach(json_object_get(s, "ports"), k, p) {
		if (!rc)
			rc = tp_port(t, sw, sget(p, "name"), &pi);
		if (!rc && json_is_number(json_object_get(p, "speed_gbps")))
			rc = tp_set_speed(t, pi, json_number_value(json_object_get(p, "speed_gbps")), src);
	}
	json_array_foreach(json_object_get(s, "uplinks"), k, p) {
		if (!rc)
			rc = tp_switch(t, sget(p, "switch"), declares(listed, sget(p, "switch")), &up);
		if (!rc)
			rc = port_of(t, sw, sget(p, "port"), &lp);
		if (!rc)
			rc = port_of(t, up, sget(p, "switch_port"), &upp);
		if (!rc)
			rc = tp_uplink(t, sw, up, lp, upp, src);
	}
	return rc;
}

static int merge_host(struct rck_topology *t, json_t *h, json_t *listed, uint16_t src)
{
	const char *name = sget(h, "name");
	json_t *n;
	size_t k;
	int rc = 0;

	json_array_foreach(json_object_get(h, "switches"), k, n) {
		struct tp_cabling c = { .host = name, .port = TP_NONE, .rail = TP_NONE, .src = src };
		uint32_t sw = 0;

		if (rc)
			break;
		rc = tp_switch(t, json_string_value(n), declares(listed, json_string_value(n)), &sw);
		c.sw = (int32_t)sw;
		if (!rc)
			rc = tp_cable(t, &c);
	}
	json_array_foreach(json_object_get(h, "nics"), k, n) {
		struct tp_cabling c = { .host = name, .nic = sget(n, "nic"), .netdev = sget(n, "netdev"),
					.sw = TP_NONE, .port = TP_NONE, .rail = iget(n, "rail"), .src = src };
		uint32_t sw = 0;

		if (!rc && sget(n, "switch")) {
			rc = tp_switch(t, sget(n, "switch"), declares(listed, sget(n, "switch")), &sw);
			c.sw = (int32_t)sw;
			if (!rc)
				rc = port_of(t, sw, sget(n, "port"), &c.port);
		}
		if (!rc)
			rc = tp_cable(t, &c);
	}
	return rc;
}

RCK_EXPORT int rck_topology_add_json(struct rck_topology *t, const char *text, size_t len,
				     const char *name, char *err, size_t errlen)
{
	struct js j = { .name = name ? name : "topology file", .err = err, .errlen = errlen };
	json_error_t je;
	json_t *doc, *v, *listed = NULL;
	uint16_t src;
	size_t i;
	int rc;

	if (!t || (!text && len))
		return -EINVAL;
	if (len > TP_FILE_MAX)
		return tp_fail(err, errlen, -E2BIG, "%s: larger than %u bytes", j.name, TP_FILE_MAX);
	doc = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &je);
	if (!doc)
		return tp_fail(err, errlen, -EINVAL, "%s:%d:%d: %s", j.name, je.line, je.column, je.text);
	rc = check_doc(&j, doc);
	strset_free(&j.seen);
	if (!rc)
		rc = tp_source(t, j.name, &src);
	if (!rc && !(listed = json_object()))
		rc = -ENOMEM;
	json_array_foreach(json_object_get(doc, "switches"), i, v)
		if (!rc && json_object_set(listed, sget(v, "name"), json_is_false(json_object_get(v, "declared")) ?
					   json_false() : json_true()))
			rc = -ENOMEM;
	json_array_foreach(json_object_get(doc, "switches"), i, v)
		if (!rc)
			rc = merge_switch(t, v, listed, src);
	json_array_foreach(json_object_get(doc, "hosts"), i, v)
		if (!rc)
			rc = merge_host(t, v, listed, src);
	json_decref(listed);
	if (!rc)
		rc = tp_check_hosts(t);
	json_decref(doc);
	return rc;
}

RCK_EXPORT int rck_topology_load_json(struct rck_topology *t, const char *path, char *err,
				      size_t errlen)
{
	return tp_load_add(t, path, rck_topology_add_json, err, errlen);
}
