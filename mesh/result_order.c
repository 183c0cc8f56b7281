/* The order a sweep result is written in (NICs numbered by host order,
 * probes sorted by host, never by answer order) and its text summary. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "result.h"
#include "units.h"

struct mesh_order_ctx {
	const struct rck_mesh *m;
	const struct mesh_order *o;
};

/* Worst links named in the summary. */
#define WORST_MAX 3

/* A host's NICs by device name and port, as its inventory lists them,
 * whatever order they were added in. */
static bool nic_before(const struct rck_mesh *m, uint32_t a, uint32_t b)
{
	int c = strcmp(m->nics[a].device, m->nics[b].device);

	return c < 0 || (c == 0 && m->nics[a].port < m->nics[b].port);
}

/* Text order of two cells: source NIC number, destination, test. */
static int cell_cmp(const void *pa, const void *pb, void *arg)
{
	const struct mesh_order_ctx *c = arg;
	const struct mesh_cell *x = &c->m->cells[*(const uint32_t *)pa], *y = &c->m->cells[*(const uint32_t *)pb];
	uint32_t xs = c->o->nic_num[x->src], ys = c->o->nic_num[y->src];
	uint32_t xd = c->o->nic_num[x->dst], yd = c->o->nic_num[y->dst];

	if (xs != ys)
		return xs < ys ? -1 : 1;
	if (xd != yd)
		return xd < yd ? -1 : 1;
	return (x->test > y->test) - (x->test < y->test);
}

int mesh_order_new(const struct rck_mesh *m, struct mesh_order *o, bool sort_cells)
{
	uint32_t k = 0;

	o->cells = NULL;
	o->nic_num = calloc(m->n_nics ? m->n_nics : 1, sizeof(*o->nic_num));
	/* JSON keeps the recorded order: only text pays for the sorted copy. */
	if (sort_cells)
		o->cells = calloc(m->n_cells ? m->n_cells : 1, sizeof(*o->cells));
	if (!o->nic_num || (sort_cells && !o->cells)) {
		mesh_order_free(o);
		return -ENOMEM;
	}
	for (unsigned int h = 0; h < m->names.n; h++) {
		const struct mesh_host *host = &m->hosts[h];

		for (unsigned int i = 0; i < host->n_nics; i++) {
			uint32_t r = 0;

			for (unsigned int j = 0; j < host->n_nics; j++)
				r += nic_before(m, host->nics[j], host->nics[i]);
			o->nic_num[host->nics[i]] = k + r;
		}
		k += host->n_nics;
	}
	if (sort_cells) {
		struct mesh_order_ctx c = {.m = m, .o = o};

		for (unsigned int i = 0; i < m->n_cells; i++)
			o->cells[i] = i;
		qsort_r(o->cells, m->n_cells, sizeof(*o->cells), cell_cmp, &c);
	}
	return 0;
}

void mesh_order_free(struct mesh_order *o)
{
	free(o->nic_num);
	free(o->cells);
	o->nic_num = o->cells = NULL;
}

/* A probe's last word: its latest retest, else its first result. */
static const struct mesh_meas *last_meas(const struct mesh_cell *c)
{
	return c->attempts > 1 ? &c->retest[c->attempts - 2] : &c->first;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned int n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Worse first: failed before measured, then the lower bandwidth or the
 * higher latency. */
static bool worse(const struct rck_mesh *m, uint32_t a, uint32_t b)
{
	const struct mesh_meas *x = last_meas(&m->cells[a]), *y = last_meas(&m->cells[b]);

	if ((x->status == RCK_MESH_FAILED) != (y->status == RCK_MESH_FAILED))
		return x->status == RCK_MESH_FAILED;
	if (m->cells[a].test == RCK_MESH_TEST_BW && m->cells[b].test == RCK_MESH_TEST_BW)
		return x->gbps < y->gbps;
	if (m->cells[a].test != m->cells[b].test)
		return m->cells[a].test == RCK_MESH_TEST_BW;
	return x->p50 > y->p50;
}

/* The worst links, those measured only when worse than the median
 * (@med_bw, @med_lat): the best of three probes is no worst link. */
static void write_worst(struct emit *e, const struct rck_mesh *m, const uint32_t *worst, unsigned int n,
			double med_bw, double med_lat)
{
	char num[32];

	for (unsigned int i = 0; i < n; i++) {
		const struct mesh_cell *c = &m->cells[worst[i]];
		const struct mesh_meas *x = last_meas(c);
		const struct mesh_nic *s = &m->nics[c->src], *d = &m->nics[c->dst];

		if (x->status == RCK_MESH_OK &&
		    (c->test == RCK_MESH_TEST_BW ? !(x->gbps < med_bw) : !(x->p50 > med_lat)))
			continue;
		emit_text(e, "  worst %s %s/%s/%u -> %s/%s/%u: ", rck_mesh_test_name((enum rck_mesh_test)c->test),
			  m->names.names[s->host], s->device, s->port, m->names.names[d->host], d->device,
			  d->port);
		if (x->status == RCK_MESH_FAILED)
			emit_text(e, "failed%s%s%s\n", x->reason ? " (" : "", x->reason ? x->reason : "",
				  x->reason ? ")" : "");
		else if (c->test == RCK_MESH_TEST_BW)
			emit_text(e, "%s\n", units_rate(num, sizeof(num), x->gbps));
		else
			emit_text(e, "p50 %s us\n", units_sig3(num, sizeof(num), x->p50));
	}
}

int mesh_write_summary(struct emit *e, const struct rck_mesh *m)
{
	unsigned int n_st[RCK_MESH_STATUS_COUNT] = {0}, n_bw = 0, n_lat = 0, n_worst = 0, down = 0;
	double *bw = calloc(m->n_cells + 1, sizeof(*bw)), *lat = calloc(m->n_cells + 1, sizeof(*lat));
	uint32_t worst[WORST_MAX];
	double med_bw, med_lat;
	char a[32], b[32];

	if (!bw || !lat) {
		free(bw);
		free(lat);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < m->n_cells; i++) {
		const struct mesh_meas *x = last_meas(&m->cells[i]);
		unsigned int j;

		if (x->status < RCK_MESH_STATUS_COUNT)
			n_st[x->status]++;
		if (x->status == RCK_MESH_OK && m->cells[i].test == RCK_MESH_TEST_BW && isfinite(x->gbps))
			bw[n_bw++] = x->gbps;
		else if (x->status == RCK_MESH_OK && m->cells[i].test == RCK_MESH_TEST_LAT && isfinite(x->p50))
			lat[n_lat++] = x->p50;
		else if (x->status != RCK_MESH_FAILED)
			continue; /* unreachable and skipped: counted, named by host below */
		/* Keep the WORST_MAX worst, worst first. */
		for (j = n_worst; j > 0 && worse(m, i, worst[j - 1]); j--)
			if (j < WORST_MAX)
				worst[j] = worst[j - 1];
		if (j < WORST_MAX) {
			worst[j] = i;
			n_worst += n_worst < WORST_MAX;
		}
	}
	emit_text(e, "summary: %u probes, %u ok, %u failed", m->n_cells, n_st[RCK_MESH_OK],
		  m->n_cells - n_st[RCK_MESH_OK]);
	if (n_st[RCK_MESH_UNREACHABLE] || n_st[RCK_MESH_SKIPPED])
		emit_text(e, " (%u unreachable, %u skipped)", n_st[RCK_MESH_UNREACHABLE], n_st[RCK_MESH_SKIPPED]);
	med_bw = median(bw, n_bw);
	med_lat = median(lat, n_lat);
	if (n_bw)
		emit_text(e, "; median bandwidth %s", units_rate(a, sizeof(a), med_bw));
	if (n_lat)
		emit_text(e, "; median latency p50 %s us", units_sig3(b, sizeof(b), med_lat));
	emit_text(e, "\n");
	write_worst(e, m, worst, n_worst, med_bw, med_lat);
	for (unsigned int h = 0; h < m->names.n; h++)
		if (m->hosts[h].unreachable)
			emit_text(e, "%s%s", down++ ? ", " : "  unreachable hosts: ", m->names.names[h]);
	if (down)
		emit_text(e, "\n");
	free(bw);
	free(lat);
	return 0;
}
