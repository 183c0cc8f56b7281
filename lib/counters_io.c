/* Snapshots in and out: text and JSON through the print layer, saving
 * (atomically, cancellable) and loading back (bounded, regular files). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "emit.h"
#include "file.h"
#include "internal.h"

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
	char label[64];

	emit_obj_open(e, "counters");
	for (unsigned int id = 0; id < RCK_CTR_COUNT;) {
		const char *name = rck_counter_name((enum rck_counter)id, NULL);
		bool any = false;

		if (id < RCK_CTR_PFC_RX_PAUSE) {
			/* Without a vendor map most names stay empty: the text
			 * shows the ones that have a value, then the raw ones. */
			if (!p->has[id] && !p->over[id] && p->raw_only && !emit_is_json(e)) {
				id++;
				continue;
			}
			emit_label(e, "    ", name, CTR_NEUTRAL_WIDTH);
			if (p->has[id])
				emit_u64(e, name, "%s\n", p->val[id]);
			else if (p->over[id])
				emit_null(e, name, NULL);
			else
				emit_null(e, name, "%s\n");
			if (!p->has[id] && p->over[id])
				emit_text(e, "n/a (%s overflows 64 bits)\n", p->over[id]);
			id++;
			continue;
		}
		/* Per priority: null when no priority has it, else 8 entries. */
		for (unsigned int q = 0; q < 8; q++)
			any |= p->has[id + q];
		if (!any) {
			if (!p->raw_only || emit_is_json(e))
				emit_label(e, "    ", name, CTR_NEUTRAL_WIDTH);
			emit_null(e, name, p->raw_only ? NULL : "%s\n");
			id += 8;
			continue;
		}
		emit_arr_open(e, name);
		for (unsigned int q = 0; q < 8; q++, id++) {
			if (!p->has[id]) {
				emit_null(e, NULL, NULL);
				continue;
			}
			snprintf(label, sizeof(label), "%s[%u]", name, q);
			emit_label(e, "    ", label, CTR_NEUTRAL_WIDTH);
			emit_u64(e, NULL, "%s\n", p->val[id]);
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

/* Neutral values whose scaling passed 64 bits (JSON; the text says it in
 * place of the value). */
static void write_overflows(struct emit *e, const struct ctr_port *p)
{
	bool any = false;

	for (unsigned int id = 0; id < RCK_CTR_COUNT; id++)
		any |= p->over[id] != NULL;
	if (!any || !emit_is_json(e))
		return;
	emit_obj_open(e, "overflows");
	for (unsigned int id = 0; id < RCK_CTR_COUNT; id++)
		if (p->over[id])
			emit_str(e, rck_counter_name((enum rck_counter)id, NULL), NULL, p->over[id]);
	emit_obj_close(e);
}

static void write_raw(struct emit *e, const struct ctr_port *p)
{
	if (p->n_raw)
		emit_text(e, "    raw:\n");
	emit_obj_open(e, "raw");
	for (size_t i = 0; i < p->n_raw; i++) {
		const struct ctr_raw *r = &p->raw[i];

		emit_label(e, "      ", r->key, CTR_RAW_WIDTH);
		switch (r->state) {
		case RAW_OK:
			emit_u64(e, r->key, "%s\n", r->val);
			break;
		case RAW_TEXT:
			/* Quoted in text, so "" and "0" stay apart from numbers. */
			emit_str(e, r->key, "\"%s\"\n", r->text);
			break;
		default:
			emit_null(e, r->key, "%s\n");
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
	if (p->raw_only)
		emit_text(e, "    raw counters only: no counter map for this driver\n");
	write_neutral(e, p);
	write_sources(e, p);
	write_overflows(e, p);
	if (p->raw_only)
		emit_bool(e, "counter_map", NULL, false);
	if (emit_is_json(e) || all || p->raw_only)
		write_raw(e, p);
	emit_obj_close(e);
}

static int write_snapshot(const struct rck_snapshot *snap, FILE *out, enum rck_format fmt,
			  bool all)
{
	struct emit *e;
	int rc;

	if (!snap || !out)
		return -EINVAL;
	rc = emit_new(fmt, out, &e);
	if (rc)
		return rc;
	emit_obj_open(e, NULL);
	/* JSON: one form for -j and --save, so either can be loaded back. */
	emit_str(e, "schema", NULL, CTR_SAVE_SCHEMA);
	emit_u64(e, "version", NULL, CTR_SAVE_VERSION);
	emit_u64(e, "time_ns", NULL, snap->time_ns);
	emit_str(e, "host", NULL, snap->host);
	ctr_write_devices(e, snap->n_ports, snap_dev, write_snap_port, snap, all);
	emit_obj_close(e);
	rc = emit_finish(e);
	emit_free(e);
	return rc;
}

RCK_EXPORT int rck_snapshot_write(const struct rck_snapshot *snap, FILE *out, enum rck_format fmt)
{
	return write_snapshot(snap, out, fmt, false);
}

RCK_EXPORT int rck_snapshot_write_all(const struct rck_snapshot *snap, FILE *out,
				      enum rck_format fmt, bool all)
{
	return write_snapshot(snap, out, fmt, all);
}

RCK_EXPORT int rck_snapshot_set_host(struct rck_snapshot *snap, const char *host)
{
	char *copy = NULL;

	if (!snap || (host && strlen(host) > CTR_HOST_MAX))
		return -EINVAL;
	if (host && !(copy = strdup(host)))
		return -ENOMEM;
	free(snap->host);
	snap->host = copy;
	return 0;
}

RCK_EXPORT const char *rck_snapshot_host(const struct rck_snapshot *snap)
{
	return snap->host;
}

/* ---- saving ---- */

static bool cancelled(const volatile sig_atomic_t *cancel)
{
	return cancel && *cancel;
}

/* Write @len bytes, a chunk at a time, giving up when @cancel is set. */
static int write_all(int fd, const char *buf, size_t len, const volatile sig_atomic_t *cancel)
{
	while (len) {
		ssize_t n;

		if (cancelled(cancel))
			return -ECANCELED;
		n = write(fd, buf, len < 65536 ? len : 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The directory of @path ("." when it has none), fsynced so the rename
 * that published the file survives a crash. */
static int sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	int fd, rc = 0;

	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -errno;
	/* Some file systems cannot sync a directory; the data is safe then. */
	if (fsync(fd) && errno != EINVAL && errno != EROFS)
		rc = -errno;
	close(fd);
	return rc;
}

RCK_EXPORT int rck_snapshot_save_cancellable(const struct rck_snapshot *snap, const char *path,
					     const volatile sig_atomic_t *cancel)
{
	const char *slash;
	char *json = NULL, *tmp = NULL;
	size_t len = 0;
	mode_t mode = 0;
	FILE *mem;
	int fd = -1, rc;

	if (!snap || !path || !*path)
		return -EINVAL;
	rc = rck_atomic_check_target(path, &mode);
	if (rc)
		return rc;
	/* The whole document first: nothing touches the disk unless it was
	 * built completely. */
	mem = open_memstream(&json, &len);
	if (!mem)
		return -ENOMEM;
	rc = write_snapshot(snap, mem, RCK_FORMAT_JSON_PRETTY, true);
	if (fclose(mem) && !rc)
		rc = -ENOMEM;
	/* A hidden unique name in the target's directory, so rename() replaces
	 * the target whole and a leftover is never taken for a snapshot.
	 * open() with 0666 (not mkstemp's 0600): a new file gets the umask's
	 * permissions, as any file the user writes. */
	slash = strrchr(path, '/');
	for (unsigned int attempt = 0; !rc && fd < 0 && attempt < 64; attempt++) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		free(tmp);
		if (asprintf(&tmp, "%.*s.%s.tmp.%ld.%lx", slash ? (int)(slash - path + 1) : 0, path,
			     slash ? slash + 1 : path, (long)getpid(),
			     (unsigned long)ts.tv_nsec ^ ((unsigned long)attempt << 20)) < 0) {
			tmp = NULL;
			rc = -ENOMEM;
		} else if (cancelled(cancel)) {
			rc = -ECANCELED;
		} else {
			fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
			if (fd < 0 && errno != EEXIST)
				rc = -errno;
		}
	}
	if (!rc && fd < 0)
		rc = -EEXIST;
	if (fd >= 0) {
		if (mode && fchmod(fd, mode))
			rc = -errno;
		if (!rc)
			rc = write_all(fd, json, len, cancel);
		if (!rc && fsync(fd))
			rc = -errno;
		if (close(fd) && !rc)
			rc = -errno;
		if (!rc && cancelled(cancel))
			rc = -ECANCELED;
		if (!rc && rename(tmp, path))
			rc = -errno;
		if (rc)
			unlink(tmp);
		else
			rc = sync_dir(path);
	}
	free(tmp);
	free(json);
	return rc;
}

RCK_EXPORT int rck_snapshot_save(const struct rck_snapshot *snap, const char *path)
{
	return rck_snapshot_save_cancellable(snap, path, NULL);
}

/* ---- loading ---- */

struct loader {
	struct rck_ctx *ctx;
	const char *path;
	char where[CTR_NAME_MAX + 64];
	int version;
};

static int bad(struct loader *l, const char *what, const char *name)
{
	rck_err(l->ctx, "%s: %s%s%s%s", l->path, l->where, name ? name : "", name ? ": " : "", what);
	return -EINVAL;
}

/* The writer's form of a value from 2^63 up: canonical decimal text. */
static int big_decimal(const char *s, uint64_t *out)
{
	size_t n = strlen(s);
	uint64_t v = 0;

	if (n == 0 || n > 20 || (s[0] == '0' && n > 1))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		unsigned int d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	if (v <= INT64_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

/* A counter value: a JSON integer below 2^63, a decimal string from there
 * up (jansson integers are signed 64-bit). Version 1 files wrote reals up
 * there: taken, rounded as they were written. */
static int json_counter(const struct loader *l, const json_t *v, uint64_t *out)
{
	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return -EINVAL;
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v))
		return big_decimal(json_string_value(v), out);
	if (json_is_real(v) && l->version == 1) {
		double d = json_real_value(v);

		if (!(d >= 0) || d != floor(d) || !isfinite(d))
			return -EINVAL;
		*out = d >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)d;
		return 0;
	}
	return -EINVAL;
}

/* "counter_map": false and the "overflows" object, both optional. */
static int load_port_notes(struct loader *l, const json_t *jp, struct ctr_port *p)
{
	const json_t *map = json_object_get(jp, "counter_map"), *over = json_object_get(jp, "overflows");

	if (map && !json_is_boolean(map))
		return bad(l, "not a boolean", "counter_map");
	p->raw_only = map && json_is_false(map);
	if (over && !json_is_object(over))
		return bad(l, "not an object", "overflows");
	for (unsigned int id = 0; over && id < RCK_CTR_PFC_RX_PAUSE; id++) {
		const json_t *v = json_object_get(over, rck_counter_name((enum rck_counter)id, NULL));

		if (!v || p->has[id])
			continue;
		if (!json_is_string(v) || strlen(json_string_value(v)) > CTR_SRC_LEN)
			return bad(l, "not a string of at most 256 bytes", "overflows");
		p->over[id] = strdup(json_string_value(v));
		if (!p->over[id])
			return -ENOMEM;
	}
	return 0;
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
				if (!json_is_string(x) || strlen(json_string_value(x)) > CTR_SRC_LEN)
					return bad(l, "source is not a string of at most 256 bytes", name);
				p->src[id] = strdup(json_string_value(x));
				if (!p->src[id])
					return -ENOMEM;
			} else {
				if (json_counter(l, x, &p->val[id]))
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

		/* Keys and texts longer than any kernel writes are not counters
		 * and would only swell every line printed after them. */
		if (strlen(key) > CTR_KEY_MAX) {
			rck_warn(l->ctx, "%s: %sraw key of %zu bytes skipped (at most %d)", l->path,
				 l->where, strlen(key), CTR_KEY_MAX);
			continue;
		}
		if (json_is_string(v) && !big_decimal(json_string_value(v), &val)) {
			rc = ctr_raw_add(p, key, RAW_OK, val, NULL);
		} else if (json_is_string(v)) {
			if (strlen(json_string_value(v)) > CTR_TEXT_MAX) {
				rck_warn(l->ctx, "%s: %s%.*s...: raw text of %zu bytes skipped (at most %d)",
					 l->path, l->where, 32, key, strlen(json_string_value(v)),
					 CTR_TEXT_MAX);
				continue;
			}
			rc = ctr_raw_add(p, key, RAW_TEXT, 0, json_string_value(v));
		} else if (json_is_null(v)) {
			rc = ctr_raw_add(p, key, RAW_UNREADABLE, 0, NULL);
		} else if (!json_counter(l, v, &val)) {
			rc = ctr_raw_add(p, key, RAW_OK, val, NULL);
		} else {
			return bad(l, "not a counter value, text or null", key);
		}
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
	if (nd && !json_is_null(nd) && (!json_is_string(nd) || !*json_string_value(nd) ||
					strlen(json_string_value(nd)) > CTR_NAME_MAX))
		return bad(l, "\"netdev\" is not a name of 1 to 64 bytes", NULL);
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
	if (!rc)
		rc = load_port_notes(l, jp, p);
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
		if (strlen(json_string_value(name)) > CTR_NAME_MAX)
			return bad(l, "a device name longer than 64 bytes", NULL);
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

static int load_host(struct loader *l, const json_t *h, struct rck_snapshot *snap)
{
	if (!h || json_is_null(h))
		return 0;
	if (!json_is_string(h) || strlen(json_string_value(h)) > CTR_HOST_MAX)
		return bad(l, "\"host\" is not a name of at most 255 bytes", NULL);
	return rck_snapshot_set_host(snap, json_string_value(h));
}

int ctr_snapshot_parse(struct rck_ctx *ctx, const char *name, const char *buf, size_t len,
		       struct rck_snapshot **out)
{
	struct loader l = { .ctx = ctx, .path = name };
	struct rck_snapshot *snap;
	const json_t *ver, *t;
	json_error_t jerr;
	json_t *root;
	int rc;

	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		rck_err(ctx, "%s: line %d: %s", name, jerr.line, jerr.text);
		return -EINVAL;
	}
	ver = json_object_get(root, "version");
	t = json_object_get(root, "time_ns");
	snap = calloc(1, sizeof(*snap));
	if (!snap)
		rc = -ENOMEM;
	else if (!json_is_object(root))
		rc = bad(&l, "not a saved snapshot (no JSON object)", NULL);
	else if (json_object_get(root, "schema") &&
		 (!json_is_string(json_object_get(root, "schema")) ||
		  strcmp(json_string_value(json_object_get(root, "schema")), CTR_SAVE_SCHEMA)))
		rc = bad(&l, "not a saved snapshot (\"schema\" is not " CTR_SAVE_SCHEMA ")", NULL);
	else if (!json_is_integer(ver))
		rc = bad(&l, "not a saved snapshot (no \"version\")", NULL);
	else if (json_integer_value(ver) < 1 || json_integer_value(ver) > CTR_SAVE_VERSION)
		rc = bad(&l, "unsupported snapshot version", NULL);
	else if ((l.version = (int)json_integer_value(ver)), json_counter(&l, t, &snap->time_ns))
		rc = bad(&l, "no valid \"time_ns\"", NULL);
	else if (!(rc = load_host(&l, json_object_get(root, "host"), snap)))
		rc = load_devices(&l, json_object_get(root, "devices"), snap);
	json_decref(root);
	if (rc) {
		rck_snapshot_free(snap);
		return rc;
	}
	*out = snap;
	return 0;
}

RCK_EXPORT int rck_snapshot_load(struct rck_ctx *ctx, const char *path, struct rck_snapshot **out)
{
	size_t len;
	char *buf;
	int rc;

	if (!ctx || !path || !out)
		return -EINVAL;
	/* A snapshot may come from another host: a FIFO or device in its
	 * place fails at once, and the size is bounded. */
	rc = rck_file_read(path, false, CTR_LOAD_MAX, &buf, &len);
	if (rc == -EFBIG) {
		rck_err(ctx, "%s: larger than %d MiB, not a saved snapshot", path, CTR_LOAD_MAX >> 20);
		return -EINVAL;
	}
	if (rc) {
		rck_err(ctx, "%s: %s", path, rck_strerror(rc));
		return rc == -RCK_ENOTREG || rc == -EISDIR ? -EINVAL : rc;
	}
	rc = ctr_snapshot_parse(ctx, path, buf, len, out);
	free(buf);
	return rc;
}
