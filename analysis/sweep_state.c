/* Sweep state between runs: the previous snapshot, boot id and time, the
 * last N runs' finding keys and the findings remembered; strict JSON load. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "file.h"
#include "sweep_int.h"

void sw_run_clear(struct sw_run *r)
{
	for (unsigned int i = 0; i < r->n_keys; i++)
		free(r->keys[i]);
	free(r->keys);
	memset(r, 0, sizeof(*r));
}

void sw_entry_clear(struct sw_entry *e)
{
	free(e->key);
	free(e->host);
	free(e->nic);
	free(e->peer_host);
	free(e->peer_nic);
	free(e->reason);
	memset(e, 0, sizeof(*e));
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

unsigned int sw_keys_sort(char **keys, unsigned int n)
{
	unsigned int out = 0;

	if (!n)
		return 0;
	qsort(keys, n, sizeof(*keys), cmp_key);
	for (unsigned int i = 0; i < n; i++) {
		if (out && !strcmp(keys[out - 1], keys[i])) {
			free(keys[i]);
			continue;
		}
		keys[out++] = keys[i];
	}
	return out;
}

bool sw_run_has(const struct sw_run *r, const char *key)
{
	return r->n_keys && bsearch(&key, r->keys, r->n_keys, sizeof(*r->keys), cmp_key);
}

RCK_EXPORT int rck_sweep_state_new(struct rck_sweep_state **out)
{
	struct rck_sweep_state *st;

	if (!out)
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->hold_k = RCK_SWEEP_HOLD_K;
	st->hold_n = RCK_SWEEP_HOLD_N;
	*out = st;
	return 0;
}

RCK_EXPORT void rck_sweep_state_free(struct rck_sweep_state *st)
{
	if (!st)
		return;
	for (unsigned int i = 0; i < st->n_runs; i++)
		sw_run_clear(&st->runs[i]);
	for (unsigned int i = 0; i < st->n_entries; i++)
		sw_entry_clear(&st->entries[i]);
	free(st->entries);
	free(st->boot_id);
	rck_snapshot_free(st->snap);
	rck_pcie_free(st->pcie_aer);
	free(st);
}

RCK_EXPORT unsigned int rck_sweep_state_runs(const struct rck_sweep_state *st)
{
	return st ? st->n_runs : 0;
}

RCK_EXPORT const char *rck_sweep_state_boot_id(const struct rck_sweep_state *st)
{
	return st ? st->boot_id : NULL;
}

RCK_EXPORT uint64_t rck_sweep_state_time_ns(const struct rck_sweep_state *st)
{
	return st ? st->time_ns : 0;
}

/* ---- writing ---- */

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* The snapshot as the counters module writes it, as a JSON value. */
static json_t *snap_json(const struct rck_snapshot *snap)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	json_t *j = NULL;
	int rc;

	if (!mem)
		return NULL;
	rc = rck_snapshot_write_all(snap, mem, RCK_FORMAT_JSON, true);
	if (fclose(mem) || rc) {
		free(buf);
		return NULL;
	}
	j = json_loadb(buf, len, 0, NULL);
	free(buf);
	return j;
}

int sw_state_write(const struct rck_sweep_state *st, FILE *f)
{
	json_t *root = json_object(), *runs = json_array(), *fs = json_array(), *snap;
	int rc = -ENOMEM;

	if (!root || !runs || !fs)
		goto out;
	snap = st->snap ? snap_json(st->snap) : json_null();
	if (!snap)
		goto out;
	for (unsigned int i = 0; i < st->n_runs; i++) {
		json_t *keys = json_array();

		for (unsigned int k = 0; keys && k < st->runs[i].n_keys; k++)
			json_array_append_new(keys, json_string(st->runs[i].keys[k]));
		json_array_append_new(runs, json_pack("{s:I,s:o*}", "time_ns",
						      (json_int_t)st->runs[i].time_ns, "keys", keys));
	}
	for (unsigned int i = 0; i < st->n_entries; i++) {
		const struct sw_entry *e = &st->entries[i];

		json_array_append_new(fs, json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:b}",
			"key", e->key, "code", rck_finding_code_name(e->code),
			"severity", rck_severity_name(e->sev), "entity", rck_entity_name(e->ent),
			"host", str_or_null(e->host), "nic", str_or_null(e->nic),
			"peer_host", str_or_null(e->peer_host), "peer_nic", str_or_null(e->peer_nic),
			"reason", str_or_null(e->reason), "counts", e->counts));
	}
	json_object_set_new(root, "schema", json_string(SW_STATE_SCHEMA));
	json_object_set_new(root, "version", json_integer(SW_STATE_VERSION));
	json_object_set_new(root, "boot_id", str_or_null(st->boot_id));
	json_object_set_new(root, "time_ns", json_integer((json_int_t)st->time_ns));
	json_object_set_new(root, "hold", json_pack("{s:i,s:i}", "k", st->hold_k, "n", st->hold_n));
	json_object_set_new(root, "runs", runs);
	json_object_set_new(root, "findings", fs);
	json_object_set_new(root, "snapshot", snap);
	if (st->pcie_aer && json_object_set_new(root, "pcie_aer", sw_aer_json(st->pcie_aer)))
		goto out;
	runs = fs = NULL;
	rc = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) ? -EIO : 0;
	if (!rc && fputc('\n', f) == EOF)
		rc = -EIO;
out:
	json_decref(root);
	json_decref(runs);
	json_decref(fs);
	return rc;
}

static int save_fn(FILE *f, const void *arg)
{
	return sw_state_write(arg, f);
}

RCK_EXPORT int rck_sweep_state_save(const struct rck_sweep_state *st, const char *path)
{
	int rc;

	if (!st || !path || !*path)
		return -EINVAL;
	rc = rck_atomic_check_target(path, NULL);
	return rc ? rc : rck_write_atomic(path, save_fn, st);
}

/* ---- loading ---- */

struct sw_loader {
	struct rck_ctx *ctx;
	const char *name;
};

static int bad(const struct sw_loader *l, const char *what)
{
	rck_err(l->ctx, "%s: not a sweep state: %s", l->name, what);
	return -EINVAL;
}

static int get_u64(const json_t *v, uint64_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -EINVAL;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* A string member of at most SW_STR_MAX bytes without NUL; null (when
 * @nullable) gives NULL. 0, -EINVAL, -ENOMEM. */
static int get_str(const json_t *obj, const char *key, bool nullable, char **out)
{
	const json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (nullable && (!v || json_is_null(v)))
		return 0;
	if (!json_is_string(v) || json_string_length(v) > SW_STR_MAX ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return -EINVAL;
	*out = strdup(json_string_value(v));
	return *out ? 0 : -ENOMEM;
}

static int name_index(const char *s, const char *(*fn)(int), int count)
{
	for (int i = 0; s && i < count; i++)
		if (fn(i) && !strcmp(fn(i), s))
			return i;
	return -1;
}

static const char *code_name(int i)
{
	return rck_finding_code_name((enum rck_finding_code)i);
}

static const char *sev_name(int i)
{
	return rck_severity_name((enum rck_severity)i);
}

static const char *ent_name(int i)
{
	return rck_entity_name((enum rck_entity)i);
}

static int load_runs(const struct sw_loader *l, const json_t *runs, struct rck_sweep_state *st)
{
	const json_t *jr;
	size_t i;

	if (!json_is_array(runs) || json_array_size(runs) > st->hold_n)
		return bad(l, "\"runs\" is not an array of at most N runs");
	json_array_foreach(runs, i, jr) {
		struct sw_run *r = &st->runs[st->n_runs];
		const json_t *keys = json_object_get(jr, "keys"), *jk;
		size_t k;

		if (!json_is_object(jr) || get_u64(json_object_get(jr, "time_ns"), &r->time_ns))
			return bad(l, "a run without a valid \"time_ns\"");
		if (!json_is_array(keys) || json_array_size(keys) > SW_KEYS_MAX)
			return bad(l, "a run's \"keys\" is not an array of at most 4096 keys");
		st->n_runs++;
		r->keys = calloc(json_array_size(keys) + 1, sizeof(*r->keys));
		if (!r->keys)
			return -ENOMEM;
		json_array_foreach(keys, k, jk) {
			if (!json_is_string(jk) || json_string_length(jk) > SW_STR_MAX ||
			    strlen(json_string_value(jk)) != json_string_length(jk))
				return bad(l, "a run's key is not a string of at most 1024 bytes");
			if (!(r->keys[r->n_keys] = strdup(json_string_value(jk))))
				return -ENOMEM;
			r->n_keys++;
		}
		r->n_keys = sw_keys_sort(r->keys, r->n_keys);
	}
	return 0;
}

static int load_entry(const struct sw_loader *l, const json_t *jf, struct sw_entry *e)
{
	const json_t *counts = json_object_get(jf, "counts");
	int code, sev, ent, rc;
	char *s = NULL;

	if (!json_is_object(jf) || !json_is_boolean(counts))
		return bad(l, "a finding is not an object with \"counts\"");
	if ((rc = get_str(jf, "key", false, &e->key)))
		return rc == -ENOMEM ? rc : bad(l, "a finding without a valid \"key\"");
	if ((rc = get_str(jf, "code", false, &s)))
		return rc == -ENOMEM ? rc : bad(l, "a finding without a \"code\"");
	code = name_index(s, code_name, RCK_FINDING_CODE_COUNT);
	free(s);
	if ((rc = get_str(jf, "severity", false, &s)))
		return rc == -ENOMEM ? rc : bad(l, "a finding without a \"severity\"");
	sev = name_index(s, sev_name, RCK_SEVERITY_COUNT);
	free(s);
	if ((rc = get_str(jf, "entity", false, &s)))
		return rc == -ENOMEM ? rc : bad(l, "a finding without an \"entity\"");
	ent = name_index(s, ent_name, RCK_ENTITY_COUNT);
	free(s);
	if (code < 0 || sev < 0 || ent < 0)
		return bad(l, "a finding with an unknown code, severity or entity");
	e->code = (enum rck_finding_code)code;
	e->sev = (enum rck_severity)sev;
	e->ent = (enum rck_entity)ent;
	e->counts = json_is_true(counts);
	if ((rc = get_str(jf, "host", true, &e->host)) || (rc = get_str(jf, "nic", true, &e->nic)) ||
	    (rc = get_str(jf, "peer_host", true, &e->peer_host)) ||
	    (rc = get_str(jf, "peer_nic", true, &e->peer_nic)) ||
	    (rc = get_str(jf, "reason", true, &e->reason)))
		return rc == -ENOMEM ? rc : bad(l, "a finding with a string member that is not one");
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct sw_entry *)a)->key, ((const struct sw_entry *)b)->key);
}

static int load_entries(const struct sw_loader *l, const json_t *fs, struct rck_sweep_state *st)
{
	const json_t *jf;
	size_t i;

	if (!json_is_array(fs) || json_array_size(fs) > SW_KEYS_MAX)
		return bad(l, "\"findings\" is not an array of at most 4096 findings");
	st->entries = calloc(json_array_size(fs) + 1, sizeof(*st->entries));
	if (!st->entries)
		return -ENOMEM;
	json_array_foreach(fs, i, jf) {
		int rc = load_entry(l, jf, &st->entries[st->n_entries]);

		st->n_entries++;
		if (rc)
			return rc;
	}
	qsort(st->entries, st->n_entries, sizeof(*st->entries), cmp_entry);
	for (unsigned int k = 1; k < st->n_entries; k++)
		if (!strcmp(st->entries[k - 1].key, st->entries[k].key))
			return bad(l, "two findings with the same key");
	return 0;
}

static int load_snapshot(const struct sw_loader *l, const json_t *js, struct rck_sweep_state *st)
{
	char *text;
	int rc;

	if (!js || json_is_null(js))
		return 0;
	if (!json_is_object(js))
		return bad(l, "\"snapshot\" is not an object");
	text = json_dumps(js, JSON_COMPACT);
	if (!text)
		return -ENOMEM;
	rc = ctr_snapshot_parse(l->ctx, l->name, text, strlen(text), &st->snap);
	free(text);
	return rc == -ENOMEM ? rc : rc ? bad(l, "its \"snapshot\" does not load") : 0;
}

static int load_root(const struct sw_loader *l, const json_t *root, struct rck_sweep_state *st)
{
	const json_t *ver = json_object_get(root, "version"), *hold = json_object_get(root, "hold");
	json_int_t k, n;
	int rc;

	if (!json_is_object(root))
		return bad(l, "no JSON object");
	if (!json_is_string(json_object_get(root, "schema")) ||
	    strcmp(json_string_value(json_object_get(root, "schema")), SW_STATE_SCHEMA))
		return bad(l, "no \"schema\": \"" SW_STATE_SCHEMA "\"");
	if (!json_is_integer(ver))
		return bad(l, "no \"version\"");
	if (json_integer_value(ver) != SW_STATE_VERSION)
		return bad(l, "unsupported version");
	if (get_u64(json_object_get(root, "time_ns"), &st->time_ns))
		return bad(l, "no valid \"time_ns\"");
	k = json_integer_value(json_object_get(hold, "k"));
	n = json_integer_value(json_object_get(hold, "n"));
	if (!json_is_object(hold) || n < 1 || n > RCK_SWEEP_HOLD_MAX || k < 1 || k > n)
		return bad(l, "\"hold\" is not {\"k\", \"n\"} with 1 <= k <= n <= 32");
	st->hold_k = (unsigned int)k;
	st->hold_n = (unsigned int)n;
	if ((rc = get_str(root, "boot_id", true, &st->boot_id)))
		return rc == -ENOMEM ? rc : bad(l, "\"boot_id\" is not a string");
	if (st->boot_id && strlen(st->boot_id) > RCK_SWEEP_BOOT_ID_MAX)
		return bad(l, "\"boot_id\" longer than 64 bytes");
	if ((rc = load_runs(l, json_object_get(root, "runs"), st)) ||
	    (rc = load_entries(l, json_object_get(root, "findings"), st)))
		return rc;
	rc = sw_aer_load(json_object_get(root, "pcie_aer"), &st->pcie_aer);
	if (rc)
		return rc == -ENOMEM ? rc : bad(l, "\"pcie_aer\" is not {address: [3 counts]}");
	return load_snapshot(l, json_object_get(root, "snapshot"), st);
}

int sw_state_parse(struct rck_ctx *ctx, const char *name, const char *buf, size_t len,
		   struct rck_sweep_state **out)
{
	struct sw_loader l = { .ctx = ctx, .name = name };
	struct rck_sweep_state *st;
	json_error_t jerr;
	json_t *root;
	int rc;

	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		rck_err(ctx, "%s: not a sweep state: line %d: %s", name, jerr.line, jerr.text);
		return -EINVAL;
	}
	rc = rck_sweep_state_new(&st);
	if (!rc)
		rc = load_root(&l, root, st);
	json_decref(root);
	if (rc) {
		rck_sweep_state_free(st);
		return rc;
	}
	*out = st;
	return 0;
}

RCK_EXPORT int rck_sweep_state_load(struct rck_ctx *ctx, const char *path,
				    struct rck_sweep_state **out)
{
	size_t len;
	char *buf;
	int rc;

	if (!ctx || !path || !out)
		return -EINVAL;
	/* The state lives in a directory root's cron job writes to: a link
	 * there is refused, a FIFO fails at once, the size is bounded. */
	rc = rck_file_read(path, true, SW_STATE_MAX, &buf, &len);
	if (rc == -ENOENT)
		return rc;
	if (rc == -EFBIG) {
		rck_err(ctx, "%s: larger than %d MiB, not a sweep state", path, SW_STATE_MAX >> 20);
		return -EINVAL;
	}
	if (rc == -ELOOP) {
		rck_err(ctx, "%s: a symbolic link, refused", path);
		return rc;
	}
	if (rc) {
		rck_err(ctx, "%s: %s", path, rck_strerror(rc));
		return rc == -RCK_ENOTREG || rc == -EISDIR ? -EINVAL : rc;
	}
	rc = sw_state_parse(ctx, path, buf, len, out);
	free(buf);
	return rc;
}
