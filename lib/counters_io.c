/* Snapshots in and out: text and JSON through the print layer, saving
 * (atomically, the JSON plus "version" and "time_ns") and loading back. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "emit.h"
#include "internal.h"

void ctr_label_fmt(char *buf, size_t len, const char *indent, const char *label, int width,
		   const char *value)
{
	size_t o = 0;
	int pad = width - (int)strlen(label);

	/* The label becomes part of a printf format: '%' must be doubled. */
	for (const char *s = indent; *s && o + 1 < len; s++)
		buf[o++] = *s;
	for (const char *s = label; *s && o + 2 < len; s++) {
		if (*s == '%')
			buf[o++] = '%';
		buf[o++] = *s;
	}
	while (pad-- > 0 && o + 1 < len)
		buf[o++] = ' ';
	/* At least one space between label and value. */
	if (o + 1 < len && o && buf[o - 1] != ' ')
		buf[o++] = ' ';
	buf[o] = '\0';
	snprintf(buf + o, len - o, "%s", value);
}

void ctr_write_devices(struct emit *e, unsigned int n, const char *(*dev_name)(const void *, unsigned int),
		       void (*write_port)(struct emit *, const void *, unsigned int, bool),
		       const void *arg, bool all)
{
	emit_arr_open(e, "devices");
	for (unsigned int i = 0, j; i < n; i = j) {
		const char *name = dev_name(arg, i);

		if (i)
			emit_text(e, "\n");
		emit_obj_open(e, NULL);
		emit_str(e, "name", "%s\n", name);
		emit_arr_open(e, "ports");
		for (j = i; j < n && !strcmp(dev_name(arg, j), name); j++)
			write_port(e, arg, j, all);
		emit_arr_close(e);
		emit_obj_close(e);
	}
	emit_arr_close(e);
}

static const char *snap_dev(const void *arg, unsigned int i)
{
	return ((const struct rck_snapshot *)arg)->ports[i].dev;
}

static void write_neutral(struct emit *e, const struct ctr_port *p)
{
	char fmt[128], label[64];

	emit_obj_open(e, "counters");
	for (unsigned int id = 0; id < RCK_CTR_COUNT;) {
		const char *name = rck_counter_name((enum rck_counter)id, NULL);
		bool any = false;

		ctr_label_fmt(fmt, sizeof(fmt), "    ", name, CTR_NEUTRAL_WIDTH, "%s\n");
		if (id < RCK_CTR_PFC_RX_PAUSE) {
			if (p->has[id])
				emit_u64(e, name, fmt, p->val[id]);
			else
				emit_null(e, name, fmt);
			id++;
			continue;
		}
		/* Per priority: null when no priority has it, else 8 entries. */
		for (unsigned int q = 0; q < 8; q++)
			any |= p->has[id + q];
		if (!any) {
			emit_null(e, name, fmt);
			id += 8;
			continue;
		}
		emit_arr_open(e, name);
		for (unsigned int q = 0; q < 8; q++, id++) {
			snprintf(label, sizeof(label), "%s[%u]", name, q);
			ctr_label_fmt(fmt, sizeof(fmt), "    ", label, CTR_NEUTRAL_WIDTH, "%s\n");
			if (p->has[id])
				emit_u64(e, NULL, fmt, p->val[id]);
			else
				emit_null(e, NULL, NULL);
		}
		emit_arr_close(e);
	}
	emit_obj_close(e);
}

/* Which raw values each neutral one came from (JSON only). */
static void write_sources(struct emit *e, const struct ctr_port *p)
{
	emit_obj_open(e, "sources");
	for (unsigned int id = 0; id < RCK_CTR_COUNT;) {
		const char *name = rck_counter_name((enum rck_counter)id, NULL);
		bool any = false;

		if (id < RCK_CTR_PFC_RX_PAUSE) {
			emit_str(e, name, NULL, p->src[id]);
			id++;
			continue;
		}
		for (unsigned int q = 0; q < 8; q++)
			any |= p->src[id + q] != NULL;
		if (!any) {
			emit_null(e, name, NULL);
			id += 8;
			continue;
		}
		emit_arr_open(e, name);
		for (unsigned int q = 0; q < 8; q++, id++)
			emit_str(e, NULL, NULL, p->src[id]);
		emit_arr_close(e);
	}
	emit_obj_close(e);
}

static void write_raw(struct emit *e, const struct ctr_port *p)
{
	char fmt[CTR_KEY_LEN * 2 + 32];

	if (p->n_raw)
		emit_text(e, "    raw:\n");
	emit_obj_open(e, "raw");
	for (size_t i = 0; i < p->n_raw; i++) {
		const struct ctr_raw *r = &p->raw[i];

		switch (r->state) {
		case RAW_OK:
			ctr_label_fmt(fmt, sizeof(fmt), "      ", r->key, CTR_RAW_WIDTH, "%s\n");
			emit_u64(e, r->key, fmt, r->val);
			break;
		case RAW_TEXT:
			/* Quoted in text, so "" and "0" stay apart from numbers. */
			ctr_label_fmt(fmt, sizeof(fmt), "      ", r->key, CTR_RAW_WIDTH, "\"%s\"\n");
			emit_str(e, r->key, fmt, r->text);
			break;
		default:
			ctr_label_fmt(fmt, sizeof(fmt), "      ", r->key, CTR_RAW_WIDTH, "%s\n");
			emit_null(e, r->key, fmt);
			break;
		}
	}
	emit_obj_close(e);
}

static void write_snap_port(struct emit *e, const void *arg, unsigned int i, bool all)
{
	const struct ctr_port *p = &((const struct rck_snapshot *)arg)->ports[i];

	emit_obj_open(e, NULL);
	emit_u64(e, "port", "  port %s", p->port);
	emit_str(e, "netdev", " netdev %s\n", p->netdev);
	write_neutral(e, p);
	write_sources(e, p);
	if (emit_is_json(e) || all)
		write_raw(e, p);
	emit_obj_close(e);
}

static int write_snapshot(const struct rck_snapshot *snap, FILE *out, enum rck_format fmt,
			  bool save, bool all)
{
	struct emit *e;
	int rc;

	if (!snap || !out)
		return -EINVAL;
	rc = emit_new(fmt, out, &e);
	if (rc)
		return rc;
	emit_obj_open(e, NULL);
	if (save) {
		emit_u64(e, "version", NULL, CTR_SAVE_VERSION);
		emit_u64(e, "time_ns", NULL, snap->time_ns);
	}
	ctr_write_devices(e, snap->n_ports, snap_dev, write_snap_port, snap, all);
	emit_obj_close(e);
	rc = emit_finish(e);
	emit_free(e);
	return rc;
}

RCK_EXPORT int rck_snapshot_write(const struct rck_snapshot *snap, FILE *out, enum rck_format fmt)
{
	return write_snapshot(snap, out, fmt, false, false);
}

RCK_EXPORT int rck_snapshot_write_all(const struct rck_snapshot *snap, FILE *out,
				      enum rck_format fmt, bool all)
{
	return write_snapshot(snap, out, fmt, false, all);
}

static int save_fn(FILE *f, const void *arg)
{
	return write_snapshot(arg, f, RCK_FORMAT_JSON_PRETTY, true, true);
}

RCK_EXPORT int rck_snapshot_save(const struct rck_snapshot *snap, const char *path)
{
	if (!snap || !path || !*path)
		return -EINVAL;
	return rck_write_atomic(path, save_fn, snap);
}

/* ---- loading ---- */

struct loader {
	struct rck_ctx *ctx;
	const char *path;
	char where[CTR_KEY_LEN + 64];
};

static int bad(struct loader *l, const char *what, const char *name)
{
	rck_err(l->ctx, "%s: %s%s%s%s", l->path, l->where, name ? name : "", name ? ": " : "", what);
	return -EINVAL;
}

/* A counter value: a JSON integer, or a real for values past 2^63 (jansson
 * integers are signed 64-bit, so the writer uses reals up there). */
static int json_counter(const json_t *v, uint64_t *out)
{
	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return -EINVAL;
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);

		if (!(d >= 0) || d != floor(d))
			return -EINVAL;
		*out = d >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)d;
		return 0;
	}
	return -EINVAL;
}

/* Neutral values or their sources: for each name a scalar, or for the
 * per-priority ones null or an array of 8. */
static int load_neutral(struct loader *l, const json_t *obj, struct ctr_port *p, bool sources)
{
	const char *what = sources ? "sources" : "counters";

	if (!obj)
		return sources ? 0 : bad(l, "no \"counters\"", NULL);
	if (!json_is_object(obj))
		return bad(l, "not an object", what);
	for (unsigned int id = 0; id < RCK_CTR_COUNT;) {
		const char *name = rck_counter_name((enum rck_counter)id, NULL);
		const json_t *v = json_object_get(obj, name);
		unsigned int n = id < RCK_CTR_PFC_RX_PAUSE ? 1 : 8;

		if (n == 8 && v && !json_is_null(v) && (!json_is_array(v) || json_array_size(v) != 8))
			return bad(l, "not null or an array of 8", name);
		for (unsigned int q = 0; q < n; q++, id++) {
			const json_t *x = n == 8 && json_is_array(v) ? json_array_get(v, q) : v;

			if (!x || json_is_null(x))
				continue;
			if (sources) {
				if (!json_is_string(x))
					return bad(l, "source is not a string", name);
				p->src[id] = strdup(json_string_value(x));
				if (!p->src[id])
					return -ENOMEM;
			} else {
				if (json_counter(x, &p->val[id]))
					return bad(l, "not a counter value", name);
				p->has[id] = true;
			}
		}
	}
	return 0;
}

static int load_raw(struct loader *l, const json_t *obj, struct ctr_port *p)
{
	const char *key;
	json_t *v;
	int rc = 0;

	if (!json_is_object(obj))
		return bad(l, "no \"raw\" object", NULL);
	json_object_foreach((json_t *)obj, key, v) {
		uint64_t val;

		if (json_is_string(v))
			rc = ctr_raw_add(p, key, RAW_TEXT, 0, json_string_value(v));
		else if (json_is_null(v))
			rc = ctr_raw_add(p, key, RAW_UNREADABLE, 0, NULL);
		else if (!json_counter(v, &val))
			rc = ctr_raw_add(p, key, RAW_OK, val, NULL);
		else
			return bad(l, "not a counter value, text or null", key);
		if (rc)
			return rc;
	}
	ctr_raw_finish(p);
	return 0;
}

static int load_port(struct loader *l, const char *dev, const json_t *jp, struct ctr_port *p)
{
	const json_t *num = json_object_get(jp, "port"), *nd = json_object_get(jp, "netdev");
	int rc;

	snprintf(l->where, sizeof(l->where), "device %s: ", dev);
	if (!json_is_object(jp) || !json_is_integer(num) || json_integer_value(num) < 1 ||
	    json_integer_value(num) > 255)
		return bad(l, "a port without a valid \"port\" number", NULL);
	if (nd && !json_is_null(nd) && !json_is_string(nd))
		return bad(l, "\"netdev\" is not a string", NULL);
	p->port = (unsigned int)json_integer_value(num);
	snprintf(l->where, sizeof(l->where), "device %s port %u: ", dev, p->port);
	p->dev = strdup(dev);
	p->netdev = json_is_string(nd) ? strdup(json_string_value(nd)) : NULL;
	if (!p->dev || (json_is_string(nd) && !p->netdev))
		return -ENOMEM;
	rc = load_neutral(l, json_object_get(jp, "counters"), p, false);
	if (!rc)
		rc = load_neutral(l, json_object_get(jp, "sources"), p, true);
	/* A source names where a value came from: none without a value. */
	for (unsigned int id = 0; !rc && id < RCK_CTR_COUNT; id++)
		if (!p->has[id]) {
			free(p->src[id]);
			p->src[id] = NULL;
		}
	if (!rc)
		rc = load_raw(l, json_object_get(jp, "raw"), p);
	return rc;
}

static int load_devices(struct loader *l, const json_t *devs, struct rck_snapshot *snap)
{
	size_t total = 0, i;
	const json_t *d;

	if (!json_is_array(devs))
		return bad(l, "no \"devices\" array", NULL);
	json_array_foreach(devs, i, d) {
		const json_t *ports = json_object_get(d, "ports");
		const json_t *name = json_object_get(d, "name");

		if (!json_is_object(d) || !json_is_string(name) || !*json_string_value(name) ||
		    !json_is_array(ports))
			return bad(l, "a device without \"name\" and \"ports\"", NULL);
		total += json_array_size(ports);
	}
	if (total > 65536)
		return bad(l, "too many ports", NULL);
	snap->ports = calloc(total ? total : 1, sizeof(*snap->ports));
	if (!snap->ports)
		return -ENOMEM;
	json_array_foreach(devs, i, d) {
		const char *name = json_string_value(json_object_get(d, "name"));
		const json_t *jp;
		size_t j;

		json_array_foreach(json_object_get(d, "ports"), j, jp) {
			int rc = load_port(l, name, jp, &snap->ports[snap->n_ports]);

			snap->n_ports++;
			if (rc)
				return rc;
		}
	}
	return 0;
}

RCK_EXPORT int rck_snapshot_load(struct rck_ctx *ctx, const char *path, struct rck_snapshot **out)
{
	struct loader l = { .ctx = ctx, .path = path };
	struct rck_snapshot *snap;
	const json_t *ver, *t;
	json_error_t jerr;
	json_t *root;
	FILE *f;
	int rc;

	if (!ctx || !path || !out)
		return -EINVAL;
	f = fopen(path, "re");
	if (!f) {
		rc = -errno;
		rck_err(ctx, "%s: %s", path, strerror(-rc));
		return rc;
	}
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	fclose(f);
	if (!root) {
		rck_err(ctx, "%s: line %d: %s", path, jerr.line, jerr.text);
		return -EINVAL;
	}
	ver = json_object_get(root, "version");
	t = json_object_get(root, "time_ns");
	snap = calloc(1, sizeof(*snap));
	if (!snap)
		rc = -ENOMEM;
	else if (!json_is_object(root))
		rc = bad(&l, "not a saved snapshot (no JSON object)", NULL);
	else if (!json_is_integer(ver))
		rc = bad(&l, "not a saved snapshot (no \"version\")", NULL);
	else if (json_integer_value(ver) != CTR_SAVE_VERSION)
		rc = bad(&l, "unsupported snapshot version", NULL);
	else if (json_counter(t, &snap->time_ns))
		rc = bad(&l, "no valid \"time_ns\"", NULL);
	else
		rc = load_devices(&l, json_object_get(root, "devices"), snap);
	json_decref(root);
	if (rc) {
		rck_snapshot_free(snap);
		return rc;
	}
	*out = snap;
	return 0;
}
