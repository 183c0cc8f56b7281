/* The raw side of a port snapshot: every value under "source/name", kept as
 * a number or as the text that was not one, plus the PMA saturation widths. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "internal.h"
#include "sysfs.h"

/* Kernel text is not always clean (a driver bug, a torn read); the JSON
 * writer needs valid UTF-8, so anything but printable ASCII becomes '?'. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
}

int ctr_raw_add(struct ctr_port *p, const char *key, enum raw_state state, uint64_t val,
		const char *text)
{
	struct ctr_raw *r;

	if (strlen(key) > CTR_KEY_MAX)
		return -ENAMETOOLONG;
	if (p->want && !ctr_want_key(p->want, p->vendor, key))
		return 0;
	if (p->n_raw == p->cap_raw) {
		size_t ncap = p->cap_raw ? p->cap_raw * 2 : 64;
		struct ctr_raw *n = realloc(p->raw, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->raw = n;
		p->cap_raw = ncap;
	}
	r = &p->raw[p->n_raw];
	memset(r, 0, sizeof(*r));
	r->key = strdup(key);
	if (!r->key)
		return -ENOMEM;
	sanitize(r->key);
	r->state = state;
	if (state == RAW_OK) {
		r->val = val;
	} else if (state == RAW_TEXT) {
		r->text = strdup(text ? text : "");
		if (!r->text) {
			free(r->key);
			return -ENOMEM;
		}
		sanitize(r->text);
	}
	r->seq = (unsigned int)p->n_raw;
	p->n_raw++;
	return 0;
}

int ctr_raw_add_text(struct ctr_port *p, const char *key, const char *text)
{
	uint64_t v;

	if (!sysfs_parse_u64(text, &v))
		return ctr_raw_add(p, key, RAW_OK, v, NULL);
	return ctr_raw_add(p, key, RAW_TEXT, 0, text);
}

static int cmp_raw(const void *a, const void *b)
{
	const struct ctr_raw *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void ctr_raw_finish(struct ctr_port *p)
{
	size_t out = 0;

	if (!p->n_raw)
		return;
	qsort(p->raw, p->n_raw, sizeof(*p->raw), cmp_raw);
	for (size_t i = 0; i < p->n_raw; i++) {
		/* Some drivers repeat an ethtool string; the first one wins. */
		if (out && !strcmp(p->raw[out - 1].key, p->raw[i].key)) {
			free(p->raw[i].key);
			free(p->raw[i].text);
			continue;
		}
		p->raw[out++] = p->raw[i];
	}
	p->n_raw = out;
}

static int cmp_key(const void *k, const void *e)
{
	return strcmp(k, ((const struct ctr_raw *)e)->key);
}

const struct ctr_raw *ctr_raw_find(const struct ctr_port *p, const char *key)
{
	if (!p->n_raw)
		return NULL;
	return bsearch(key, p->raw, p->n_raw, sizeof(*p->raw), cmp_key);
}

void ctr_port_clear(struct ctr_port *p)
{
	for (size_t i = 0; i < p->n_raw; i++) {
		free(p->raw[i].key);
		free(p->raw[i].text);
	}
	free(p->raw);
	for (int i = 0; i < RCK_CTR_COUNT; i++) {
		free(p->src[i]);
		free(p->over[i]);
	}
	free(p->dev);
	free(p->netdev);
	memset(p, 0, sizeof(*p));
}

/*
 * The IB PMA PortCounters attribute (IBTA vol. 1, 16.1.3.5) gives these
 * fields fixed widths, and the PMA saturates them: a counter at its maximum
 * stays there until cleared, so its delta is unknown, not zero. The 64-bit
 * data and packet counters (PortCountersExtended) never saturate.
 */
static const struct {
	const char *key;
	unsigned int bits;
} pma_widths[] = {
	{ "counters/symbol_error", 16 },
	{ "counters/link_error_recovery", 8 },
	{ "counters/link_downed", 8 },
	{ "counters/port_rcv_errors", 16 },
	{ "counters/port_rcv_remote_physical_errors", 16 },
	{ "counters/port_rcv_switch_relay_errors", 16 },
	{ "counters/port_xmit_discards", 16 },
	{ "counters/port_xmit_constraint_errors", 8 },
	{ "counters/port_rcv_constraint_errors", 8 },
	{ "counters/local_link_integrity_errors", 4 },
	{ "counters/excessive_buffer_overrun_errors", 4 },
	{ "counters/VL15_dropped", 16 },
	{ "counters/port_xmit_wait", 32 },
};

unsigned int ctr_saturation_bits(const char *key)
{
	for (size_t i = 0; i < RCK_ARRAY_SIZE(pma_widths); i++)
		if (!strcmp(key, pma_widths[i].key))
			return pma_widths[i].bits;
	return 0;
}

unsigned int ctr_source_bits(const char *src)
{
	/* A sum or a scaled value is no longer the PMA field itself. */
	if (!src || strpbrk(src, "+*"))
		return 0;
	return ctr_saturation_bits(src);
}
