/* Encoder and decoder of the probe control protocol: bounds-checked
 * big-endian cursors over a buffer, one function pair per message. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "exchange.h"

const struct wire_proto xq_proto = {
	.magic = XQ_MAGIC,
	.version = XQ_VERSION,
	.max_payload = XQ_MAX_PAYLOAD,
	.name = "probe",
};

struct wcur {
	uint8_t *p;
	size_t cap, len;
	bool overflow;
};

struct rcur {
	const uint8_t *p;
	size_t len, off;
	bool short_read;
};

static void put(struct wcur *w, uint64_t v, unsigned int bytes)
{
	if (w->len + bytes > w->cap) {
		w->overflow = true;
		return;
	}
	for (unsigned int i = 0; i < bytes; i++)
		w->p[w->len + i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
	w->len += bytes;
}

static void put8(struct wcur *w, uint8_t v) { put(w, v, 1); }
static void put16(struct wcur *w, uint16_t v) { put(w, v, 2); }
static void put32(struct wcur *w, uint32_t v) { put(w, v, 4); }
static void put64(struct wcur *w, uint64_t v) { put(w, v, 8); }

static void put_double(struct wcur *w, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	put64(w, v);
}

static void put_bytes(struct wcur *w, const void *b, size_t n)
{
	if (w->len + n > w->cap) {
		w->overflow = true;
		return;
	}
	memcpy(w->p + w->len, b, n);
	w->len += n;
}

static void put_str(struct wcur *w, const char *s, size_t max)
{
	size_t n = strnlen(s, max - 1);

	put16(w, (uint16_t)n);
	put_bytes(w, s, n);
}

static uint64_t get(struct rcur *r, unsigned int bytes)
{
	uint64_t v = 0;

	if (r->off + bytes > r->len) {
		r->short_read = true;
		r->off = r->len;
		return 0;
	}
	for (unsigned int i = 0; i < bytes; i++)
		v = v << 8 | r->p[r->off + i];
	r->off += bytes;
	return v;
}

static uint8_t get8(struct rcur *r) { return (uint8_t)get(r, 1); }
static uint16_t get16(struct rcur *r) { return (uint16_t)get(r, 2); }
static uint32_t get32(struct rcur *r) { return (uint32_t)get(r, 4); }
static uint64_t get64(struct rcur *r) { return get(r, 8); }

static double get_double(struct rcur *r, bool *bad)
{
	uint64_t v = get64(r);
	double d;

	memcpy(&d, &v, sizeof(d));
	if (!isfinite(d))
		*bad = true;
	return d;
}

static void get_bytes(struct rcur *r, void *b, size_t n)
{
	if (r->off + n > r->len) {
		r->short_read = true;
		r->off = r->len;
		memset(b, 0, n);
		return;
	}
	if (n)
		memcpy(b, r->p + r->off, n);
	r->off += n;
}

/* Strings longer than the field are malformed, not truncated: a peer that
 * sends them is not one of ours. */
static void get_str(struct rcur *r, char *s, size_t max, bool *bad)
{
	size_t n = get16(r);

	if (n >= max) {
		*bad = true;
		s[0] = '\0';
		return;
	}
	get_bytes(r, s, n);
	s[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			s[i] = '?';
}

static void put_params(struct wcur *w, const struct xq_params *p)
{
	put8(w, p->test);
	put8(w, p->transport);
	put8(w, p->flags);
	put8(w, p->sl);
	put32(w, p->size);
	put16(w, p->qps);
	put16(w, p->tx_depth);
	put64(w, p->iters);
	put32(w, p->duration_ms);
	put32(w, p->warmup);
	put32(w, p->window_us);
	put16(w, (uint16_t)p->tclass);
	put16(w, p->mtu);
	put32(w, p->flow_label);
	put16(w, p->udp_sport);
}

static void get_params(struct rcur *r, struct xq_params *p)
{
	p->test = get8(r);
	p->transport = get8(r);
	p->flags = get8(r);
	p->sl = get8(r);
	p->size = get32(r);
	p->qps = get16(r);
	p->tx_depth = get16(r);
	p->iters = get64(r);
	p->duration_ms = get32(r);
	p->warmup = get32(r);
	p->window_us = get32(r);
	p->tclass = (int16_t)get16(r);
	p->mtu = get16(r);
	p->flow_label = get32(r);
	p->udp_sport = get16(r);
}

static int put_endpoint(struct wcur *w, const struct xq_endpoint *ep)
{
	if (ep->n_qps > XQ_MAX_QPS)
		return -EINVAL;
	put_str(w, ep->device, sizeof(ep->device));
	put8(w, ep->ib_port);
	put_bytes(w, ep->gid, sizeof(ep->gid));
	put32(w, (uint32_t)ep->gid_index);
	put16(w, ep->lid);
	put16(w, ep->active_mtu);
	put32(w, ep->rkey);
	put64(w, ep->addr);
	put64(w, ep->len);
	put16(w, ep->cm_port);
	put16(w, ep->n_qps);
	for (unsigned int i = 0; i < ep->n_qps; i++) {
		put32(w, ep->qp[i].qpn);
		put32(w, ep->qp[i].psn);
	}
	return 0;
}

static void get_endpoint(struct rcur *r, struct xq_endpoint *ep, bool *bad)
{
	get_str(r, ep->device, sizeof(ep->device), bad);
	ep->ib_port = get8(r);
	get_bytes(r, ep->gid, sizeof(ep->gid));
	ep->gid_index = (int32_t)get32(r);
	ep->lid = get16(r);
	ep->active_mtu = get16(r);
	ep->rkey = get32(r);
	ep->addr = get64(r);
	ep->len = get64(r);
	ep->cm_port = get16(r);
	ep->n_qps = get16(r);
	if (ep->n_qps > XQ_MAX_QPS) {
		*bad = true;
		ep->n_qps = 0;
		return;
	}
	for (unsigned int i = 0; i < ep->n_qps; i++) {
		ep->qp[i].qpn = get32(r);
		ep->qp[i].psn = get32(r);
	}
}

static void put_stats(struct wcur *w, const struct xq_stats *s)
{
	put64(w, s->bytes);
	put64(w, s->msgs);
	put64(w, s->ns);
	put8(w, s->has_worst);
	put8(w, s->has_lat);
	put_double(w, s->worst_gbps);
	for (unsigned int i = 0; i < XQ_LAT_STATS; i++)
		put_double(w, s->lat[i]);
	put64(w, s->lat_count);
	put16(w, (uint16_t)s->tclass);
	put16(w, s->mtu);
	put_str(w, s->device, sizeof(s->device));
	put8(w, s->ib_port);
	put32(w, (uint32_t)s->gid_index);
	put_bytes(w, s->gid, sizeof(s->gid));
}

static void get_stats(struct rcur *r, struct xq_stats *s, bool *bad)
{
	s->bytes = get64(r);
	s->msgs = get64(r);
	s->ns = get64(r);
	s->has_worst = get8(r);
	s->has_lat = get8(r);
	s->worst_gbps = get_double(r, bad);
	for (unsigned int i = 0; i < XQ_LAT_STATS; i++)
		s->lat[i] = get_double(r, bad);
	s->lat_count = get64(r);
	s->tclass = (int16_t)get16(r);
	s->mtu = get16(r);
	get_str(r, s->device, sizeof(s->device), bad);
	s->ib_port = get8(r);
	s->gid_index = (int32_t)get32(r);
	get_bytes(r, s->gid, sizeof(s->gid));
	if (s->has_worst > 1 || s->has_lat > 1)
		*bad = true;
}

static int put_counters(struct wcur *w, const struct xq_counters *c)
{
	if (c->n > XQ_MAX_COUNTERS)
		return -EINVAL;
	put8(w, c->present);
	put16(w, c->n);
	for (unsigned int i = 0; i < c->n; i++) {
		put16(w, c->c[i].id);
		put8(w, c->c[i].state);
		put64(w, c->c[i].delta);
	}
	return 0;
}

static void get_counters(struct rcur *r, struct xq_counters *c, bool *bad)
{
	c->present = get8(r);
	c->n = get16(r);
	if (c->n > XQ_MAX_COUNTERS || c->present > 1) {
		*bad = true;
		c->n = 0;
		return;
	}
	for (unsigned int i = 0; i < c->n; i++) {
		c->c[i].id = get16(r);
		c->c[i].state = get8(r);
		c->c[i].delta = get64(r);
	}
}

static int put_payload(enum xq_type type, const union xq_msg *m, struct wcur *w)
{
	switch (type) {
	case XQ_START:
	case XQ_TICK:
		return 0;
	case XQ_HELLO:
		put_params(w, &m->hello.p);
		if (put_endpoint(w, &m->hello.ep))
			return -EINVAL;
		if (m->hello.task)
			put32(w, m->hello.task);
		return 0;
	case XQ_ACCEPT:
		put64(w, m->accept.cookie);
		return put_endpoint(w, &m->accept.ep);
	case XQ_DONE:
		put_stats(w, &m->done.st);
		return put_counters(w, &m->done.ctr);
	case XQ_RESULT:
		put_stats(w, &m->result.st);
		return put_counters(w, &m->result.ctr);
	case XQ_ERROR:
		put16(w, m->error.status);
		put_str(w, m->error.text, sizeof(m->error.text));
		return 0;
	case XQ_ATTACH:
		put64(w, m->attach.cookie);
		put16(w, m->attach.index);
		return 0;
	}
	return -EINVAL;
}

int xq_encode(enum xq_type type, const union xq_msg *m, uint8_t *buf, size_t cap, size_t *len)
{
	struct wcur w = { .p = buf, .cap = cap, .len = XQ_HDR_LEN };
	size_t payload;
	int rc;

	if (cap < XQ_HDR_LEN)
		return -ENOBUFS;
	if (!m && type != XQ_START && type != XQ_TICK)
		return -EINVAL;
	rc = put_payload(type, m, &w);
	if (rc)
		return rc;
	if (w.overflow)
		return -ENOBUFS;
	payload = w.len - XQ_HDR_LEN;
	if (payload > XQ_MAX_PAYLOAD)
		return -EINVAL;
	wire_hdr_encode(buf, &xq_proto, (uint16_t)type, (uint32_t)payload);
	*len = w.len;
	return 0;
}

int xq_decode_hdr(const uint8_t *buf, struct xq_hdr *h)
{
	return wire_hdr_decode(&xq_proto, buf, h);
}

int xq_decode(uint16_t type, const uint8_t *p, size_t len, union xq_msg *m)
{
	struct rcur r = { .p = p, .len = len };
	bool bad = false;

	memset(m, 0, sizeof(*m));
	switch (type) {
	case XQ_START:
	case XQ_TICK:
		break;
	case XQ_HELLO:
		get_params(&r, &m->hello.p);
		get_endpoint(&r, &m->hello.ep, &bad);
		if (!bad && r.off + 4 <= r.len)
			m->hello.task = get32(&r);
		break;
	case XQ_ACCEPT:
		m->accept.cookie = get64(&r);
		get_endpoint(&r, &m->accept.ep, &bad);
		break;
	case XQ_DONE:
		get_stats(&r, &m->done.st, &bad);
		get_counters(&r, &m->done.ctr, &bad);
		break;
	case XQ_RESULT:
		get_stats(&r, &m->result.st, &bad);
		get_counters(&r, &m->result.ctr, &bad);
		break;
	case XQ_ERROR:
		m->error.status = get16(&r);
		get_str(&r, m->error.text, sizeof(m->error.text), &bad);
		break;
	case XQ_ATTACH:
		m->attach.cookie = get64(&r);
		m->attach.index = get16(&r);
		break;
	default:
		return -ENOMSG;
	}
	return bad || r.short_read ? -EBADMSG : 0;
}

const char *xq_type_name(uint16_t type)
{
	static const char *const names[] = {
		[XQ_HELLO] = "HELLO", [XQ_ACCEPT] = "ACCEPT", [XQ_START] = "START",
		[XQ_DONE] = "DONE", [XQ_RESULT] = "RESULT", [XQ_ERROR] = "ERROR",
		[XQ_ATTACH] = "ATTACH", [XQ_TICK] = "TICK",
	};

	return type < sizeof(names) / sizeof(names[0]) && names[type] ? names[type] : "unknown";
}

int xq_encode_cm(const struct xq_cm_pdata *pd, uint8_t *buf, size_t cap)
{
	struct wcur w = { .p = buf, .cap = cap };

	put32(&w, XQ_CM_MAGIC);
	put16(&w, pd->version);
	put16(&w, pd->qp_index);
	put64(&w, pd->cookie);
	put32(&w, pd->rkey);
	put64(&w, pd->addr);
	put64(&w, pd->len);
	return w.overflow ? -ENOBUFS : 0;
}

int xq_decode_cm(const uint8_t *buf, size_t len, struct xq_cm_pdata *pd)
{
	struct rcur r = { .p = buf, .len = len };

	if (get32(&r) != XQ_CM_MAGIC)
		return -EPROTO;
	pd->version = get16(&r);
	if (pd->version != XQ_VERSION)
		return r.short_read ? -EBADMSG : -EPROTONOSUPPORT;
	pd->qp_index = get16(&r);
	pd->cookie = get64(&r);
	pd->rkey = get32(&r);
	pd->addr = get64(&r);
	pd->len = get64(&r);
	return r.short_read ? -EBADMSG : 0;
}
