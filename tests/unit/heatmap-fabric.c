/* Synthetic sweeps for the heatmap tests, built twice over: as a sweep
 * result (rck_mesh) and as the analysis input its report comes from. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heatmap-fabric.h"
#include "synth.h"

#define CHUNK 4096

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned int host_of(const struct hm_fabric *f, unsigned int nic)
{
	return nic / f->nics;
}

/* Probe (s, d) at @attempt: status and Gb/s (or p50 us). */
static enum rck_mesh_status measure(const struct hm_fabric *f, unsigned int s, unsigned int d,
				    unsigned int attempt, double *gbps)
{
	unsigned int n = f->hosts * f->nics;
	double mu = f->lat ? 2.0 : f->mean > 0 ? f->mean : 95;

	*gbps = 0;
	if (f->down_host >= 0 && (host_of(f, s) == (unsigned int)f->down_host ||
				  host_of(f, d) == (unsigned int)f->down_host))
		return RCK_MESH_UNREACHABLE;
	if (f->fail_src != f->fail_dst && s == f->fail_src && d == f->fail_dst)
		return RCK_MESH_FAILED;
	if (s == f->bad_row)
		mu *= f->lat ? 3 : 0.5;
	if (f->slow_src != f->slow_dst && s == f->slow_src && d == f->slow_dst)
		mu *= f->lat ? 2.5 : 0.8;
	*gbps = mu * (1 + 0.02 * synth_normal(7, (uint64_t)s * n + d, attempt));
	return RCK_MESH_OK;
}

static int names(struct hm_fabric *f, struct rck_analysis *a)
{
	int rc = 0;

	for (unsigned int h = 0; !rc && h < f->hosts; h++) {
		char buf[32];
		const char *name = f->names ? f->names[h] : buf;

		snprintf(buf, sizeof(buf), "n%04u", h);
		rc = a ? rck_analysis_add_host(a, name, NULL, NULL, NULL) : rck_mesh_add_host(f->mesh, name, NULL);
		if (!rc && (int)h == f->down_host)
			rc = a ? rck_analysis_set_unreachable(a, h, "no answer")
			       : rck_mesh_host_set_unreachable(f->mesh, h, "no answer");
		for (unsigned int i = 0; !rc && i < f->nics; i++) {
			char dev[16];
			struct rck_mesh_nic mn = {.size = sizeof(mn), .device = dev, .port = 1, .rail = -1,
						  .rate_gbps = 100, .gid_index = -1};
			struct rck_analysis_nic an = {.size = sizeof(an), .device = dev, .port = 1,
						      .line_rate_gbps = 100};

			snprintf(dev, sizeof(dev), "mlx5_%u", i);
			rc = a ? rck_analysis_add_nic(a, h, &an, NULL) : rck_mesh_add_nic(f->mesh, h, &mn, NULL);
		}
	}
	return rc;
}

static int analyse(struct hm_fabric *f, const uint8_t *retests, struct rck_report **out)
{
	unsigned int n = f->hosts * f->nics;
	struct rck_link_sample *buf = calloc(CHUNK, sizeof(*buf));
	struct rck_analysis *a = NULL;
	size_t k = 0, link = 0;
	int rc = buf ? rck_analysis_new(NULL, &a) : -ENOMEM;

	if (!rc)
		rc = names(f, a);
	for (unsigned int s = 0; !rc && s < n; s++)
		for (unsigned int d = 0; !rc && d < n; d++, link++) {
			struct rck_link_sample *x = &buf[k++];
			enum rck_mesh_status st;

			if (s == d) {
				k--;
				continue;
			}
			memset(x, 0, sizeof(*x));
			x->size = sizeof(*x);
			x->test = f->lat ? RCK_LINK_TEST_LAT : RCK_LINK_TEST_BW;
			x->src_nic = s;
			x->dst_nic = d;
			st = measure(f, s, d, 0, f->lat ? &x->meas.lat_p50_us : &x->meas.gbps);
			x->meas.status = st == RCK_MESH_OK ? RCK_LINK_OK : st == RCK_MESH_FAILED
				? RCK_LINK_FAILED : RCK_LINK_UNREACHABLE;
			x->n_retests = retests[link];
			for (unsigned int r = 0; r < x->n_retests; r++)
				measure(f, s, d, r + 1, f->lat ? &x->retest[r].lat_p50_us
							       : &x->retest[r].gbps);
			if (k == CHUNK) {
				rc = rck_analysis_add_links(a, buf, k);
				k = 0;
			}
		}
	if (!rc && k)
		rc = rck_analysis_add_links(a, buf, k);
	if (!rc)
		rc = rck_analysis_run(a, out);
	rck_analysis_free(a);
	free(buf);
	return rc;
}

/* Attempt @attempt of the sweep result's cell (s, d): measurement @draw. */
static int set_result(struct hm_fabric *f, unsigned int s, unsigned int d, unsigned int attempt,
		      unsigned int draw)
{
	struct rck_mesh_meas x = {.size = sizeof(x), .gbps = NAN, .lat_p50_us = NAN,
				  .lat_p99_us = NAN, .seconds = 0.1};
	double v;

	x.status = measure(f, s, d, draw, &v);
	if (x.status != RCK_MESH_OK)
		x.reason = "synthetic";
	else if (f->lat)
		x.lat_p50_us = x.lat_p99_us = v;
	else
		x.gbps = v;
	return rck_mesh_set_result(f->mesh, f->lat ? RCK_MESH_TEST_LAT : RCK_MESH_TEST_BW, s, d,
				   attempt, &x, NULL);
}

int hm_fabric_build(struct hm_fabric *f)
{
	unsigned int n = f->hosts * f->nics;
	uint8_t *retests = calloc((size_t)n * n, 1);
	double t0 = now();
	int rc = retests ? rck_mesh_new(&f->mesh) : -ENOMEM;

	if (!rc)
		rc = names(f, NULL);
	for (unsigned int s = 0; !rc && s < n; s++)
		for (unsigned int d = 0; !rc && d < n; d++) {
			struct rck_mesh_meas x = {.size = sizeof(x), .lat_p50_us = NAN,
						  .lat_p99_us = NAN, .seconds = 0.1};

			if (s == d)
				continue;
			rc = set_result(f, s, d, 0, 0);
		}
	f->build_s = now() - t0;
	t0 = now();
	for (f->rounds = 0; !rc && f->rounds < 3;) {
		unsigned int k;

		rck_report_free(f->report);
		f->report = NULL;
		rc = analyse(f, retests, &f->report);
		f->rounds++;
		if (rc || !(k = rck_report_retest_count(f->report)))
			break;
		for (unsigned int i = 0; i < k; i++) {
			unsigned int s, d;
			uint8_t *r;

			rck_report_retest(f->report, i, NULL, &s, &d);
			r = &retests[(size_t)s * n + d];
			if (*r < RCK_LINK_RETEST_MAX)
				(*r)++;
		}
	}
	f->analysis_s = now() - t0;
	/* The sweep result keeps the last retest as its attempt 1. */
	for (size_t i = 0; !rc && i < (size_t)n * n; i++)
		if (retests[i])
			rc = set_result(f, (unsigned int)(i / n), (unsigned int)(i % n), 1, retests[i]);
	free(retests);
	if (rc)
		hm_fabric_free(f);
	return rc;
}

void hm_fabric_free(struct hm_fabric *f)
{
	rck_mesh_free(f->mesh);
	rck_report_free(f->report);
	f->mesh = NULL;
	f->report = NULL;
}
