/* Probe counter deltas: two snapshots of one port around the measurement,
 * reduced to (neutral counter, state, increase) triples. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "pctr.h"

void pctr_begin(struct rck_ctx *ctx, struct pctr *c, const struct rck_inventory *inv,
		const char *device, unsigned int port)
{
	int rc;

	memset(c, 0, sizeof(*c));
	snprintf(c->device, sizeof(c->device), "%s", device);
	c->port = port;
	rc = rck_snapshot_new(ctx, inv, device, port, &c->before);
	if (rc) {
		rck_info(ctx, "no counters for %s/%u: %s", device, port, strerror(-rc));
		c->before = NULL;
	}
}

static void fill(const struct rck_delta *d, struct xq_counters *out)
{
	out->present = 1;
	for (unsigned int id = 0; id < RCK_CTR_COUNT && out->n < XQ_MAX_COUNTERS; id++) {
		uint64_t delta = 0;
		double rate;
		enum rck_delta_state st = rck_delta_get(d, 0, id, &delta, &rate);

		if (st == RCK_DELTA_ABSENT)
			continue;
		out->c[out->n].id = (uint16_t)id;
		out->c[out->n].state = (uint8_t)st;
		out->c[out->n].delta = st == RCK_DELTA_OK ? delta : 0;
		out->n++;
	}
}

void pctr_end(struct rck_ctx *ctx, struct pctr *c, const struct rck_inventory *inv,
	      struct xq_counters *out)
{
	struct rck_snapshot *after = NULL;
	struct rck_delta *d = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!c->before)
		return;
	rc = rck_snapshot_new(ctx, inv, c->device, c->port, &after);
	if (!rc)
		rc = rck_delta_new(c->before, after, &d);
	if (!rc && rck_delta_port_count(d) < 1)
		rc = -ENOENT;
	if (rc)
		rck_info(ctx, "no counter delta for %s/%u: %s", c->device, c->port, strerror(-rc));
	else
		fill(d, out);
	rck_delta_free(d);
	rck_snapshot_free(after);
}

void pctr_free(struct pctr *c)
{
	rck_snapshot_free(c->before);
	c->before = NULL;
}
