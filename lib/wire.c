/* Wire layer: header encode/check, bounded cursors and writers, and
 * netlink-style attributes. Pure functions, no I/O. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "wire.h"

void wire_hdr_encode(uint8_t *buf, const struct wire_proto *p, uint16_t type, uint32_t length)
{
	struct wire_buf b = { .p = buf, .cap = WIRE_HDR_LEN };

	wire_put_u32(&b, p->magic);
	wire_put_u16(&b, p->version);
	wire_put_u16(&b, type);
	wire_put_u32(&b, length);
}

int wire_hdr_decode(const struct wire_proto *p, const uint8_t *buf, struct wire_hdr *h)
{
	struct wire_cur c = { .p = buf, .len = WIRE_HDR_LEN };

	h->magic = wire_get_u32(&c);
	h->version = wire_get_u16(&c);
	h->type = wire_get_u16(&c);
	h->length = wire_get_u32(&c);
	if (h->magic != p->magic)
		return -EPROTO;
	if (h->version != p->version)
		return -EPROTONOSUPPORT;
	if (h->length > p->max_payload)
		return -EMSGSIZE;
	return 0;
}

const char *wire_hdr_strerror(const struct wire_proto *p, const struct wire_hdr *h, int rc,
			      char *buf, size_t len)
{
	switch (rc) {
	case -EPROTO:
		snprintf(buf, len, "peer does not speak the rocecheck %s protocol (magic 0x%08x)",
			 p->name, h->magic);
		break;
	case -EPROTONOSUPPORT:
		snprintf(buf, len, "peer speaks %s protocol version %u, we speak version %u",
			 p->name, h->version, p->version);
		break;
	case -EMSGSIZE:
		snprintf(buf, len, "peer announced a %u-byte %s frame, the limit is %u", h->length,
			 p->name, p->max_payload);
		break;
	case -EBADMSG: /* WIRE_EINTEGRITY */
		snprintf(buf, len, "integrity check failed: a %s frame was changed, replayed, reordered or dropped on the way",
			 p->name);
		break;
	default:
		snprintf(buf, len, "%s frame refused: %s", p->name, strerror(rc < 0 ? -rc : rc));
	}
	return buf;
}

const uint8_t *wire_get_bytes(struct wire_cur *c, size_t n)
{
	const uint8_t *r;

	if (c->bad || n > c->len - c->off) {
		c->bad = true;
		return NULL;
	}
	r = c->p + c->off;
	c->off += n;
	return r;
}

static uint64_t get_be(struct wire_cur *c, size_t n)
{
	const uint8_t *p = wire_get_bytes(c, n);
	uint64_t v = 0;

	if (!p)
		return 0;
	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

uint8_t wire_get_u8(struct wire_cur *c)
{
	return (uint8_t)get_be(c, 1);
}

uint16_t wire_get_u16(struct wire_cur *c)
{
	return (uint16_t)get_be(c, 2);
}

uint32_t wire_get_u32(struct wire_cur *c)
{
	return (uint32_t)get_be(c, 4);
}

uint64_t wire_get_u64(struct wire_cur *c)
{
	return get_be(c, 8);
}

void wire_put_bytes(struct wire_buf *b, const void *p, size_t n)
{
	if (b->bad || n > b->cap - b->len) {
		b->bad = true;
		return;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_be(struct wire_buf *b, uint64_t v, size_t n)
{
	uint8_t tmp[8];

	for (size_t i = 0; i < n; i++)
		tmp[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	wire_put_bytes(b, tmp, n);
}

void wire_put_u8(struct wire_buf *b, uint8_t v)
{
	put_be(b, v, 1);
}

void wire_put_u16(struct wire_buf *b, uint16_t v)
{
	put_be(b, v, 2);
}

void wire_put_u32(struct wire_buf *b, uint32_t v)
{
	put_be(b, v, 4);
}

void wire_put_u64(struct wire_buf *b, uint64_t v)
{
	put_be(b, v, 8);
}

static void pad(struct wire_buf *b)
{
	static const uint8_t zero[4];

	wire_put_bytes(b, zero, WIRE_ALIGN(b->len) - b->len);
}

void wire_attr_put(struct wire_buf *b, uint16_t type, const void *v, size_t len)
{
	if (len > UINT16_MAX) {
		b->bad = true;
		return;
	}
	wire_put_u16(b, type);
	wire_put_u16(b, (uint16_t)len);
	wire_put_bytes(b, v, len);
	pad(b);
}

void wire_attr_put_u32(struct wire_buf *b, uint16_t type, uint32_t v)
{
	uint8_t t[4];
	struct wire_buf x = { .p = t, .cap = sizeof(t) };

	wire_put_u32(&x, v);
	wire_attr_put(b, type, t, sizeof(t));
}

void wire_attr_put_u64(struct wire_buf *b, uint16_t type, uint64_t v)
{
	uint8_t t[8];
	struct wire_buf x = { .p = t, .cap = sizeof(t) };

	wire_put_u64(&x, v);
	wire_attr_put(b, type, t, sizeof(t));
}

void wire_attr_put_f64(struct wire_buf *b, uint16_t type, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	wire_attr_put_u64(b, type, bits);
}

void wire_attr_put_str(struct wire_buf *b, uint16_t type, const char *s)
{
	if (s)
		wire_attr_put(b, type, s, strlen(s));
}

size_t wire_attr_nest_start(struct wire_buf *b, uint16_t type)
{
	size_t start = b->len;

	wire_put_u16(b, type);
	wire_put_u16(b, 0);
	return start;
}

void wire_attr_nest_end(struct wire_buf *b, size_t start)
{
	size_t len = b->len - start - WIRE_ATTR_HDR;

	if (b->bad)
		return;
	if (len > UINT16_MAX) {
		b->bad = true;
		return;
	}
	b->p[start + 2] = (uint8_t)(len >> 8);
	b->p[start + 3] = (uint8_t)len;
	pad(b);
}

int wire_attr_next(const uint8_t *p, size_t len, size_t *off, uint16_t *type, struct wire_attr *a)
{
	struct wire_cur c = { .p = p, .len = len, .off = *off };
	uint16_t alen;

	if (*off >= len)
		return 0;
	*type = wire_get_u16(&c);
	alen = wire_get_u16(&c);
	a->v = wire_get_bytes(&c, alen);
	a->len = alen;
	if (c.bad)
		return -EBADMSG;
	/* The padding of the last attribute may be cut off. */
	*off = WIRE_ALIGN(c.off) < len ? WIRE_ALIGN(c.off) : len;
	return 1;
}

int wire_attr_parse(const uint8_t *p, size_t len, struct wire_attr *tb, unsigned int max)
{
	struct wire_attr a;
	size_t off = 0;
	uint16_t type;
	int rc;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	while ((rc = wire_attr_next(p, len, &off, &type, &a)) == 1)
		if (type <= max)
			tb[type] = a;
	return rc;
}

int wire_attr_u32(const struct wire_attr *a, uint32_t *v)
{
	struct wire_cur c;

	if (!a->v)
		return -ENOENT;
	if (a->len != 4)
		return -EBADMSG;
	c = (struct wire_cur){ .p = a->v, .len = 4 };
	*v = wire_get_u32(&c);
	return 0;
}

int wire_attr_u64(const struct wire_attr *a, uint64_t *v)
{
	struct wire_cur c;

	if (!a->v)
		return -ENOENT;
	if (a->len != 8)
		return -EBADMSG;
	c = (struct wire_cur){ .p = a->v, .len = 8 };
	*v = wire_get_u64(&c);
	return 0;
}

int wire_attr_f64(const struct wire_attr *a, double *v)
{
	uint64_t bits;
	int rc = wire_attr_u64(a, &bits);

	if (!rc)
		memcpy(v, &bits, sizeof(*v));
	return rc;
}

int wire_attr_str(const struct wire_attr *a, char *buf, size_t size)
{
	if (!a->v)
		return -ENOENT;
	if (!size || a->len >= size)
		return -EBADMSG;
	for (size_t i = 0; i < a->len; i++)
		buf[i] = a->v[i] >= 0x20 && a->v[i] < 0x7f ? (char)a->v[i] : '?';
	buf[a->len] = '\0';
	return 0;
}
