/* Deltas and rates between two snapshots, port by port: saturated narrow
 * PMA counters and counters that went backwards are states, not numbers. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "emit.h"
#include "internal.h"
#include "units.h"

static const char *const state_names[] = {
	[RCK_DELTA_OK] = "ok",
	[RCK_DELTA_ABSENT] = "absent",
	[RCK_DELTA_SATURATED] = "saturated",
	[RCK_DELTA_RESET] = "reset",
};

/* @bits > 0: a PMA counter of that width, which sticks at its maximum. */
static struct ctr_dval compare(uint64_t old, uint64_t new_, unsigned int bits)
{
	struct ctr_dval d = { RCK_DELTA_OK, 0 };

	if (bits && bits < 64 && new_ == (UINT64_C(1) << bits) - 1)
		d.state = RCK_DELTA_SATURATED;
	else if (new_ < old)
		d.state = RCK_DELTA_RESET; /* cleared, driver reload, or a wrap */
	else
		d.delta = new_ - old;
	return d;
}

static struct ctr_dval compare_raw(const struct ctr_raw *o, const struct ctr_raw *n)
{
	struct ctr_dval absent = { RCK_DELTA_ABSENT, 0 };

	if (!o || !n || o->state != RAW_OK || n->state != RAW_OK)
		return absent;
	return compare(o->val, n->val, ctr_saturation_bits(n->key));
}

static int delta_port(const struct ctr_port *o, const struct ctr_port *n, struct ctr_dport *d)
{
	size_t i = 0, j = 0;

	d->dev = strdup(n->dev);
	d->netdev = n->netdev ? strdup(n->netdev) : NULL;
	d->port = n->port;
	if (!d->dev || (n->netdev && !d->netdev))
		return -ENOMEM;
	for (unsigned int id = 0; id < RCK_CTR_COUNT; id++) {
		d->neutral[id].state = RCK_DELTA_ABSENT;
		/* Values from different raw sources cannot be subtracted. */
		if (!o->has[id] || !n->has[id] ||
		    (o->src[id] && n->src[id] && strcmp(o->src[id], n->src[id])) ||
		    (!o->src[id] != !n->src[id]))
			continue;
		d->neutral[id] = compare(o->val[id], n->val[id], ctr_source_bits(n->src[id]));
	}
	/* Merge the two sorted raw lists; a key in only one is absent. */
	d->raw = calloc(o->n_raw + n->n_raw + 1, sizeof(*d->raw));
	if (!d->raw)
		return -ENOMEM;
	while (i < o->n_raw || j < n->n_raw) {
		const struct ctr_raw *a = i < o->n_raw ? &o->raw[i] : NULL;
		const struct ctr_raw *b = j < n->n_raw ? &n->raw[j] : NULL;
		int c = !a ? 1 : !b ? -1 : strcmp(a->key, b->key);
		struct ctr_draw *r = &d->raw[d->n_raw];

		r->key = strdup(c <= 0 ? a->key : b->key);
		if (!r->key)
			return -ENOMEM;
		r->d = compare_raw(c <= 0 ? a : NULL, c >= 0 ? b : NULL);
		d->n_raw++;
		i += c <= 0;
		j += c >= 0;
	}
	return 0;
}

static void clear_dport(struct ctr_dport *d)
{
	for (size_t i = 0; i < d->n_raw; i++)
		free(d->raw[i].key);
	free(d->raw);
	free(d->dev);
	free(d->netdev);
}

static const struct ctr_port *find_port(const struct rck_snapshot *s, const char *dev,
					unsigned int port)
{
	for (unsigned int i = 0; i < s->n_ports; i++)
		if (s->ports[i].port == port && !strcmp(s->ports[i].dev, dev))
			return &s->ports[i];
	return NULL;
}

RCK_EXPORT int rck_delta_new(const struct rck_snapshot *old, const struct rck_snapshot *new_,
			     struct rck_delta **out)
{
	struct rck_delta *d;
	int rc = 0;

	if (!old || !new_ || !out || new_->time_ns < old->time_ns)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	/* Both taken by this process: the monotonic clock; saved ones carry
	 * only the wall clock. */
	if (old->mono_ns && new_->mono_ns && new_->mono_ns >= old->mono_ns)
		d->seconds = (double)(new_->mono_ns - old->mono_ns) / 1e9;
	else
		d->seconds = (double)(new_->time_ns - old->time_ns) / 1e9;
	d->ports = calloc(new_->n_ports ? new_->n_ports : 1, sizeof(*d->ports));
	if (!d->ports)
		rc = -ENOMEM;
	for (unsigned int i = 0; !rc && i < new_->n_ports; i++) {
		const struct ctr_port *n = &new_->ports[i];
		const struct ctr_port *o = find_port(old, n->dev, n->port);

		if (!o)
			continue;
		rc = delta_port(o, n, &d->ports[d->n_ports]);
		d->n_ports++;
	}
	if (rc) {
		rck_delta_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

RCK_EXPORT void rck_delta_free(struct rck_delta *d)
{
	if (!d)
		return;
	for (unsigned int i = 0; i < d->n_ports; i++)
		clear_dport(&d->ports[i]);
	free(d->ports);
	free(d);
}

RCK_EXPORT double rck_delta_seconds(const struct rck_delta *d)
{
	return d->seconds;
}

RCK_EXPORT unsigned int rck_delta_port_count(const struct rck_delta *d)
{
	return d->n_ports;
}

RCK_EXPORT bool rck_delta_port(const struct rck_delta *d, unsigned int i, const char **dev,
			       unsigned int *port)
{
	if (i >= d->n_ports)
		return false;
	if (dev)
		*dev = d->ports[i].dev;
	if (port)
		*port = d->ports[i].port;
	return true;
}

static double rate_of(const struct rck_delta *d, uint64_t delta)
{
	return d->seconds > 0 ? (double)delta / d->seconds : 0.0;
}

static enum rck_delta_state give(const struct rck_delta *d, const struct ctr_dval *v,
				 uint64_t *delta, double *rate)
{
	if (v->state == RCK_DELTA_OK) {
		if (delta)
			*delta = v->delta;
		if (rate)
			*rate = rate_of(d, v->delta);
	}
	return v->state;
}

RCK_EXPORT enum rck_delta_state rck_delta_get(const struct rck_delta *d, unsigned int i,
					      enum rck_counter id, uint64_t *delta, double *rate)
{
	if (i >= d->n_ports || (unsigned int)id >= RCK_CTR_COUNT)
		return RCK_DELTA_ABSENT;
	return give(d, &d->ports[i].neutral[id], delta, rate);
}

static int cmp_draw(const void *k, const void *e)
{
	return strcmp(k, ((const struct ctr_draw *)e)->key);
}

RCK_EXPORT enum rck_delta_state rck_delta_get_raw(const struct rck_delta *d, unsigned int i,
						  const char *key, uint64_t *delta, double *rate)
{
	const struct ctr_draw *r;

	if (i >= d->n_ports || !key || !d->ports[i].n_raw)
		return RCK_DELTA_ABSENT;
	r = bsearch(key, d->ports[i].raw, d->ports[i].n_raw, sizeof(*r), cmp_draw);
	return r ? give(d, &r->d, delta, rate) : RCK_DELTA_ABSENT;
}

/* ---- writing ---- */

/* The writer's argument for ctr_write_devices(). */
struct dwrite {
	const struct rck_delta *d;
};

static bool worth_showing(const struct ctr_dval *v)
{
	return v->state == RCK_DELTA_SATURATED || v->state == RCK_DELTA_RESET ||
	       (v->state == RCK_DELTA_OK && v->delta);
}

/* @word in @key between separators ('/', '_', '.') or its ends. */
static bool has_word(const char *key, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = key; (p = strstr(p, word)); p++) {
		bool start = p == key || strchr("/_.", p[-1]);
		bool end = !p[n] || strchr("/_.", p[n]);

		if (start && end)
			return true;
	}
	return false;
}

/* What a counter counts, for its text: bytes, microseconds of pause, or
 * events. A raw counter (id -1) says it by its name: ethtool's byte
 * counters have the word "bytes" (rx_bytes_phy, rx_vport_rdma_unicast_bytes,
 * ice's rx_bytes.nic) or "octets", pause times end in "pause_duration"
 * (microseconds, as mlx5's rx_prio3_pause_duration). The IB port_*_data
 * counters count 4-byte words and stay events. */
static int ctr_kind(int id, const char *key)
{
	if (id == RCK_CTR_RX_BYTES || id == RCK_CTR_TX_BYTES)
		return 'B';
	if (id >= RCK_CTR_PFC_RX_PAUSE_DURATION && id < RCK_CTR_COUNT)
		return 'u';
	if (id < 0 && key && (has_word(key, "bytes") || has_word(key, "octets")))
		return 'B';
	if (id < 0 && key && has_word(key, "pause_duration"))
		return 'u';
	return 0;
}

/* The text of a delta and its rate in their units: "12.3 ms" and
 * "1.23 ms/s" of pause, "1.25 GB/s" of bytes, "5.0/s" or "1.23 M/s" of
 * events. */
static void write_dval_text(struct emit *e, const struct rck_delta *d, int id, const char *key,
			    const struct ctr_dval *v)
{
	double rate = rate_of(d, v->delta);
	char num[48], buf[64];

	switch (ctr_kind(id, key)) {
	case 'B':
		emit_text(e, "%14llu%16s\n", (unsigned long long)v->delta,
			  isfinite(rate) ? units_bytes_rate(num, sizeof(num), rate) : "n/a");
		break;
	case 'u':
		units_usec(num, sizeof(num), (double)v->delta);
		emit_text(e, "%14s", num);
		snprintf(buf, sizeof(buf), "%s/s", units_usec(num, sizeof(num), rate));
		emit_text(e, "%16s\n", isfinite(rate) ? buf : "n/a");
		break;
	default:
		emit_u64(e, NULL, "%14s", v->delta);
		emit_text(e, "%16s\n", isfinite(rate) ? units_events_rate(num, sizeof(num), rate) : "n/a");
	}
}

/* One value: JSON {"state","delta","rate"} (null when absent); text one
 * line "label  delta  rate/s" or "label  state". */
static void write_dval(struct emit *e, const struct rck_delta *d, const char *key, int id,
		       const char *label, int width, const char *indent, const struct ctr_dval *v,
		       bool show)
{
	if (!show && !emit_is_json(e))
		return;
	/* The label is printed, never made part of a format. */
	emit_label(e, indent, label, width);
	if (v->state == RCK_DELTA_ABSENT) {
		emit_null(e, key, "%14s\n");
		return;
	}
	emit_obj_open(e, key);
	if (v->state == RCK_DELTA_OK) {
		emit_str(e, "state", NULL, state_names[v->state]);
		emit_u64(e, "delta", NULL, v->delta);
		emit_double(e, "rate", NULL, 1, rate_of(d, v->delta));
		if (!emit_is_json(e))
			write_dval_text(e, d, id, label, v);
	} else {
		emit_str(e, "state", "%14s\n", state_names[v->state]);
		emit_null(e, "delta", NULL);
		emit_null(e, "rate", NULL);
	}
	emit_obj_close(e);
}

static void write_delta_neutral(struct emit *e, const struct rck_delta *d,
				const struct ctr_dport *p, bool all)
{
	char label[64];

	emit_obj_open(e, "counters");
	for (unsigned int id = 0; id < RCK_CTR_COUNT;) {
		const char *name = rck_counter_name((enum rck_counter)id, NULL);
		const struct ctr_dval *v = &p->neutral[id];
		bool any = false;

		if (id < RCK_CTR_PFC_RX_PAUSE) {
			write_dval(e, d, name, (int)id, name, CTR_NEUTRAL_WIDTH, "    ", v,
				   all || worth_showing(v));
			id++;
			continue;
		}
		for (unsigned int q = 0; q < 8; q++)
			any |= p->neutral[id + q].state != RCK_DELTA_ABSENT;
		if (!any) {
			write_dval(e, d, name, (int)id, name, CTR_NEUTRAL_WIDTH, "    ", v, all);
			id += 8;
			continue;
		}
		emit_arr_open(e, name);
		for (unsigned int q = 0; q < 8; q++, id++) {
			v = &p->neutral[id];
			snprintf(label, sizeof(label), "%s[%u]", name, q);
			write_dval(e, d, NULL, (int)id, label, CTR_NEUTRAL_WIDTH, "    ", v,
				   v->state != RCK_DELTA_ABSENT && (all || worth_showing(v)));
		}
		emit_arr_close(e);
	}
	emit_obj_close(e);
}

static const char *delta_dev(const void *arg, unsigned int i)
{
	return ((const struct dwrite *)arg)->d->ports[i].dev;
}

static void write_delta_port(struct emit *e, const void *arg, unsigned int i, bool all)
{
	const struct rck_delta *d = ((const struct dwrite *)arg)->d;
	const struct ctr_dport *p = &d->ports[i];

	emit_obj_open(e, NULL);
	emit_u64(e, "port", "  port %s", p->port);
	emit_str(e, "netdev", " netdev %s\n", p->netdev);
	write_delta_neutral(e, d, p, all);
	for (size_t r = 0; r < p->n_raw; r++)
		if (all || worth_showing(&p->raw[r].d)) {
			emit_text(e, "    raw:\n");
			break;
		}
	emit_obj_open(e, "raw");
	for (size_t r = 0; r < p->n_raw; r++) {
		const struct ctr_dval *v = &p->raw[r].d;

		/* In JSON too, unchanged raw values only with @all: a busy NIC
		 * has thousands of them. */
		if (all || worth_showing(v))
			write_dval(e, d, p->raw[r].key, -1, p->raw[r].key, CTR_RAW_WIDTH, "      ", v, true);
	}
	emit_obj_close(e);
	emit_obj_close(e);
}

RCK_EXPORT int rck_delta_write(const struct rck_delta *d, FILE *out, enum rck_format fmt, bool all)
{
	struct dwrite w = { d };
	struct emit *e;
	int rc;

	if (!d || !out)
		return -EINVAL;
	rc = emit_new(fmt, out, &e);
	if (rc)
		return rc;
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, CTR_DELTA_SCHEMA);
	emit_u64(e, "version", NULL, CTR_DELTA_VERSION);
	emit_double(e, "seconds", "interval %s s\n", 3, d->seconds);
	ctr_write_devices(e, d->n_ports, delta_dev, write_delta_port, &w, all);
	emit_obj_close(e);
	rc = emit_finish(e);
	emit_free(e);
	return rc;
}
