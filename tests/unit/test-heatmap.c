/* The heatmap on synthetic sweeps of 4, 64 and 1024 hosts with one slow row
 * and one slow link: sizes, determinism, pixels read back, SVG checked as XML. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cairo.h>
#include <cmocka.h>

#include "heatmap-fabric.h"
#include "heatmap_int.h"

#define MB5 (5u << 20)

static char dir[256];

struct buf {
	char *data;
	size_t len;
	size_t off; /* read position for cairo */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void render(const struct hm_fabric *f, enum rck_heatmap_format fmt, struct buf *b, double *secs)
{
	FILE *m = open_memstream(&b->data, &b->len);
	double t0 = now();

	assert_non_null(m);
	assert_int_equal(rck_heatmap_write(f->mesh, f->lat ? RCK_MESH_TEST_LAT : RCK_MESH_TEST_BW,
					   f->report, fmt, m), 0);
	assert_int_equal(fclose(m), 0);
	if (secs)
		*secs = now() - t0;
	b->off = 0;
}

static void save(const char *name, const char *ext, const struct buf *b)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(b->data, 1, b->len, f), b->len);
	assert_int_equal(fclose(f), 0);
}

static cairo_status_t get(void *closure, unsigned char *data, unsigned int len)
{
	struct buf *b = closure;

	if (b->len - b->off < len)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(data, b->data + b->off, len);
	b->off += len;
	return CAIRO_STATUS_SUCCESS;
}

/* Warm (red over blue) and cool cells sampled at block centres of row @rb. */
static void row_hues(cairo_surface_t *s, const struct hm_grid *g, unsigned int rb,
		     unsigned int *warm, unsigned int *cool)
{
	double gx, gy, cs;
	unsigned char *px = cairo_image_surface_get_data(s);
	int stride = cairo_image_surface_get_stride(s);

	hm_layout_grid(g, &gx, &gy, &cs);
	*warm = *cool = 0;
	for (unsigned int k = 0; k < g->nb; k++) {
		int x = (int)(gx + k * cs + cs / 2), y = (int)(gy + rb * cs + cs / 2);
		uint32_t p = *(uint32_t *)(px + (size_t)y * stride + (size_t)x * 4);
		int r = (p >> 16) & 0xff, bl = p & 0xff;

		*warm += r > bl + 60;
		*cool += bl > r + 40;
	}
}

/* The slow row, read back from the PNG, is warm across; a healthy row is not. */
static void check_png_row(const struct hm_fabric *f, struct buf *png)
{
	cairo_surface_t *s = cairo_image_surface_create_from_png_stream(get, png);
	unsigned int warm, cool, rb, healthy;
	struct hm_grid g;

	assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
	cairo_surface_flush(s);
	assert_int_equal(hm_grid_build(&g, f->mesh, f->lat ? RCK_MESH_TEST_LAT : RCK_MESH_TEST_BW,
				       f->report), 0);
	rb = f->bad_row / g.block;
	healthy = (rb + g.nb / 2) % g.nb;
	row_hues(s, &g, rb, &warm, &cool);
	print_message("  bad row block %u: %u of %u blocks warm\n", rb, warm, g.nb);
	assert_true(warm >= g.nb * 8 / 10);
	row_hues(s, &g, healthy, &warm, &cool);
	print_message("  healthy row block %u: %u warm, %u cool\n", healthy, warm, cool);
	assert_true(warm <= 2);
	/* Aggregated, a block shows its worst of 64 noisy cells: paler, still not warm. */
	if (g.block == 1)
		assert_true(cool >= g.nb * 7 / 10);
	hm_grid_free(&g);
	cairo_surface_destroy(s);
}

/* XML well-formed, marks present, names escaped: tests/unit/heatmap-svg.py. */
static void check_svg(const char *name, const char *expect)
{
	const char *script = getenv("HEATMAP_SVG_CHECK");
	char cmd[2048];

	if (!script) {
		print_message("  HEATMAP_SVG_CHECK unset: SVG not parsed\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s/%s.svg' %s", script, dir, name, expect);
	assert_int_equal(system(cmd), 0);
}

static void check(struct hm_fabric *f, const char *name, const char *expect)
{
	struct buf svg = {0}, svg2 = {0}, png = {0}, png2 = {0};
	double ts, tp;

	assert_int_equal(hm_fabric_build(f), 0);
	print_message("%s: %u NICs, sweep built in %.2f s, %u analysis passes in %.2f s, verdict %s, "
		      "%u findings\n", name, f->hosts * f->nics, f->build_s, f->rounds, f->analysis_s,
		      rck_verdict_name(rck_report_verdict(f->report)),
		      rck_report_finding_count(f->report));
	render(f, RCK_HEATMAP_SVG, &svg, &ts);
	render(f, RCK_HEATMAP_PNG, &png, &tp);
	print_message("  SVG %zu bytes in %.3f s, PNG %zu bytes in %.3f s\n", svg.len, ts, png.len, tp);
	assert_true(svg.len < MB5);
	assert_true(png.len < MB5);
	/* Deterministic: the same input gives the same bytes. */
	render(f, RCK_HEATMAP_SVG, &svg2, NULL);
	render(f, RCK_HEATMAP_PNG, &png2, NULL);
	assert_true(svg.len == svg2.len && !memcmp(svg.data, svg2.data, svg.len));
	assert_true(png.len == png2.len && !memcmp(png.data, png2.data, png.len));
	save(name, "svg", &svg);
	save(name, "png", &png);
	check_png_row(f, &png);
	check_svg(name, expect);
	free(svg.data);
	free(svg2.data);
	free(png.data);
	free(png2.data);
	hm_fabric_free(f);
}

static void test_small(void **state)
{
	static const char *const names[] = {"n<0>&", "n'1\"", "bad\xff\x01name", "n3"};
	struct hm_fabric f = {.hosts = 4, .nics = 2, .bad_row = 2, .slow_src = 0, .slow_dst = 5,
			      .down_host = -1, .fail_src = 6, .fail_dst = 1, .names = names};

	(void)state;
	check(&f, "heatmap-4", "--name 'n<0>& mlx5_0/1' --name 'bad??name mlx5_1/1' --failed 1");
}

static void test_64(void **state)
{
	struct hm_fabric f = {.hosts = 64, .nics = 1, .bad_row = 17, .slow_src = 40, .slow_dst = 9,
			      .down_host = 50, .fail_src = 3, .fail_dst = 60};

	(void)state;
	check(&f, "heatmap-64", "--name n0017 --failed 1");
}

/* The largest fabric drawn cell by cell (tooltips on every cell) and the
 * smallest aggregated one, with plain and with long names full of XML
 * specials and multibyte characters: every SVG under 5 MB. */
static void test_edges(void **state)
{
	static char *names[129];

	for (unsigned int i = 0; i < 129; i++) {
		char buf[400];
		int n = snprintf(buf, sizeof(buf), "%u", i);

		while (n < 240) /* RCK_HOST_NAME_MAX is 253 */
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "&<\xc3\xa9\xf0\x9d\x84\x9e");
		names[i] = strdup(buf);
	}
	for (unsigned int k = 0; k < 4; k++) {
		unsigned int hosts = 128 + k % 2;
		struct hm_fabric f = {.hosts = hosts, .nics = 1, .bad_row = 7, .down_host = -1,
				      .names = k >= 2 ? (const char *const *)names : NULL};
		struct buf svg = {0};
		struct hm_grid g;

		assert_int_equal(hm_fabric_build(&f), 0);
		render(&f, RCK_HEATMAP_SVG, &svg, NULL);
		assert_int_equal(hm_grid_build(&g, f.mesh, RCK_MESH_TEST_BW, f.report), 0);
		print_message("%u hosts%s: blocks of %u, SVG %zu bytes\n", hosts,
			      f.names ? " (long names)" : "", g.block, svg.len);
		assert_int_equal(g.block, hosts <= HM_FULL_MAX ? 1 : 2);
		assert_true(svg.len < MB5);
		if (f.names) {
			char cmd[600];

			save("heatmap-names", "svg", &svg);
			snprintf(cmd, sizeof(cmd), "python3 -c 'import sys, xml.etree.ElementTree as E; "
				 "E.parse(sys.argv[1])' '%s/heatmap-names.svg'", dir);
			assert_int_equal(system(cmd), 0);
		}
		hm_grid_free(&g);
		free(svg.data);
		hm_fabric_free(&f);
	}
	for (unsigned int i = 0; i < 129; i++)
		free(names[i]);
}

/* Latency: the slow row and link are the high ones, marked from link_latency. */
static void test_lat(void **state)
{
	struct hm_fabric f = {.hosts = 16, .nics = 1, .bad_row = 5, .slow_src = 9, .slow_dst = 2,
			      .down_host = -1, .fail_src = 1, .fail_dst = 3, .lat = 1};

	(void)state;
	check(&f, "heatmap-lat", "--name n0005 --failed 1");
}

static void test_1024(void **state)
{
	struct hm_fabric f = {.hosts = 1024, .nics = 1, .bad_row = 517, .slow_src = 100,
			      .slow_dst = 900, .down_host = 800, .fail_src = 10, .fail_dst = 20};

	(void)state;
	/* A million probes analysed three times: minutes under valgrind. */
	if (getenv("ROCECHECK_WRAP") && strstr(getenv("ROCECHECK_WRAP"), "valgrind"))
		skip();
	check(&f, "heatmap-1024", "--name 'n0517 mlx5_0/1' --aggregated");
}

static void test_api(void **state)
{
	struct hm_fabric f = {.hosts = 3, .nics = 1, .bad_row = 9, .down_host = -1};
	enum rck_heatmap_format fmt = RCK_HEATMAP_PNG;
	struct rck_mesh *empty;
	struct buf b = {0};
	FILE *m;

	(void)state;
	assert_int_equal(rck_heatmap_format_from_path("a/b.svg", &fmt), 0);
	assert_int_equal(fmt, RCK_HEATMAP_SVG);
	assert_int_equal(rck_heatmap_format_from_path("x.PNG", &fmt), 0);
	assert_int_equal(fmt, RCK_HEATMAP_PNG);
	assert_int_equal(rck_heatmap_format_from_path("x.svgz", &fmt), -EINVAL);
	assert_int_equal(rck_heatmap_format_from_path("png", &fmt), -EINVAL);
	assert_int_equal(rck_heatmap_format_from_path(NULL, &fmt), -EINVAL);
	assert_int_equal(hm_fabric_build(&f), 0);
	m = open_memstream(&b.data, &b.len);
	assert_int_equal(rck_heatmap_write(NULL, RCK_MESH_TEST_BW, NULL, RCK_HEATMAP_SVG, m), -EINVAL);
	assert_int_equal(rck_heatmap_write(f.mesh, RCK_MESH_TEST_COUNT, NULL, RCK_HEATMAP_SVG, m), -EINVAL);
	assert_int_equal(rck_heatmap_write(f.mesh, RCK_MESH_TEST_BW, NULL, (enum rck_heatmap_format)7, m),
			 -EINVAL);
	assert_int_equal(rck_mesh_new(&empty), 0);
	assert_int_equal(rck_heatmap_write(empty, RCK_MESH_TEST_BW, NULL, RCK_HEATMAP_SVG, m), -EINVAL);
	/* Without a report, and for a test never run: no marks, cells not probed. */
	assert_int_equal(rck_heatmap_write(f.mesh, RCK_MESH_TEST_BW, NULL, RCK_HEATMAP_SVG, m), 0);
	assert_int_equal(rck_heatmap_write(f.mesh, RCK_MESH_TEST_LAT, f.report, RCK_HEATMAP_PNG, m), 0);
	fclose(m);
	free(b.data);
	rck_mesh_free(empty);
	hm_fabric_free(&f);
}

/* Labels: valid UTF-8 without control characters, shortened; numbers
 * without the locale. */
static void test_text(void **state)
{
	char *s, num[32];

	(void)state;
	s = hm_clean("a\x01\xff\xc3\xa9\xe2\x82", 40);
	assert_string_equal(s, "a??\xc3\xa9??");
	free(s);
	s = hm_clean("a\xe2\x80\xa8" "b\xe2\x80\xae" "c\xef\xbb\xbf", 40); /* LS, RLO, BOM */
	assert_string_equal(s, "a?b?c?");
	free(s);
	s = hm_clean("abcdefghij", 5);
	assert_string_equal(s, "abcd\xe2\x80\xa6");
	free(s);
	s = hm_clean("abcde", 5);
	assert_string_equal(s, "abcde");
	free(s);
	s = hm_clean("\xed\xa0\x80\xc0\xaf", 40); /* a surrogate, an overlong '/' */
	assert_null(strchr(s, '/'));
	assert_int_equal(strspn(s, "?"), strlen(s));
	free(s);
	hm_num(num, sizeof(num), 96.25, 1);
	assert_string_equal(num, "96.3");
	hm_num(num, sizeof(num), -0.04, 1);
	assert_string_equal(num, "0.0");
	hm_num(num, sizeof(num), 1.0 / 0.0, 1);
	assert_string_equal(num, "n/a");
}

/* A slow fabric (62.7 Mb/s, a TCP loopback under load): the legend in
 * Mb/s with three significant digits and no two ticks alike, cells too. */
static void test_slow_legend(void **state)
{
	static const int pct[] = {50, 75, 88, 93, 95, 97, 100, 105};
	struct hm_fabric f = {.hosts = 4, .nics = 1, .bad_row = 4, .slow_src = 0, .slow_dst = 0,
			      .down_host = -1, .fail_src = 0, .fail_dst = 0, .mean = 0.0627};
	char tick[8][32], num[64];
	struct buf svg = {0};

	(void)state;
	assert_int_equal(hm_fabric_build(&f), 0);
	render(&f, RCK_HEATMAP_SVG, &svg, NULL);
	assert_non_null(memmem(svg.data, svg.len, "Mb/s, against the fabric median", 31));
	assert_null(memmem(svg.data, svg.len, "Gb/s", 4));
	for (int i = 0; i < 8; i++) {
		char key[16], *at, *gt;

		snprintf(key, sizeof(key), " (%d%%)", pct[i]);
		at = memmem(svg.data, svg.len, key, strlen(key));
		assert_non_null(at);
		for (gt = at; gt > svg.data && gt[-1] != '>'; gt--)
			;
		snprintf(tick[i], sizeof(tick[i]), "%.*s", (int)(at - gt), gt);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(tick[i], tick[j]);
	}
	hm_value_text(num, sizeof(num), RCK_MESH_TEST_BW, 0.0627);
	assert_string_equal(num, "62.7 Mb/s");
	hm_value_text(num, sizeof(num), RCK_MESH_TEST_BW, 388.4);
	assert_string_equal(num, "388 Gb/s");
	hm_value_text(num, sizeof(num), RCK_MESH_TEST_BW, 0.000512);
	assert_string_equal(num, "512 kb/s");
	hm_value_text(num, sizeof(num), RCK_MESH_TEST_LAT, 3.876);
	assert_string_equal(num, "3.88 \xc2\xb5s");
	hm_sig3(num, sizeof(num), 99.96, 0);
	assert_string_equal(num, "100");
	hm_sig3(num, sizeof(num), 59.6, 2);
	assert_string_equal(num, "59.60");
	free(svg.data);
	hm_fabric_free(&f);
}

static int setup(void **state)
{
	const char *tmp = getenv("HEATMAP_OUT");

	(void)state;
	if (tmp) {
		snprintf(dir, sizeof(dir), "%s", tmp);
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/rck-heatmap.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[600];

	(void)state;
	if (getenv("HEATMAP_OUT"))
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_slow_legend),
		cmocka_unit_test(test_api),
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_64),
		cmocka_unit_test(test_lat),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_1024),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
