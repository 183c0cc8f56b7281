/* The heatmap's colour scale (a cell's ratio to the fabric median), state
 * colours, and text safe to draw: locale-free numbers, clean UTF-8 labels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heatmap_int.h"

/* Goodness g (1 at the median, lower is worse) to colour: warm below the
 * relative floor's neighbourhood (0.93 by default), cool around the median,
 * so the 2% noise of a healthy fabric stays in one hue. */
static const struct {
	double g;
	uint32_t rgb;
} stops[] = {
	{0.50, HM_RGB(0xa5, 0x00, 0x26)}, {0.75, HM_RGB(0xd7, 0x30, 0x27)},
	{0.88, HM_RGB(0xf4, 0x6d, 0x43)}, {0.93, HM_RGB(0xfd, 0xae, 0x61)},
	{0.95, HM_RGB(0xff, 0xff, 0xbf)}, {0.97, HM_RGB(0xab, 0xd9, 0xe9)},
	{1.00, HM_RGB(0x74, 0xad, 0xd1)}, {1.05, HM_RGB(0x45, 0x75, 0xb4)},
};
#define NSTOPS (sizeof(stops) / sizeof(stops[0]))

static double goodness(enum rck_mesh_test test, double v, double median)
{
	if (median <= 0)
		return 1;
	if (test == RCK_MESH_TEST_BW)
		return v / median;
	return v > 0 ? median / v : stops[NSTOPS - 1].g;
}

static uint32_t mix(uint32_t a, uint32_t b, double t)
{
	uint32_t out = 0;

	for (int sh = 16; sh >= 0; sh -= 8) {
		double ca = (a >> sh) & 0xff, cb = (b >> sh) & 0xff;

		out |= (uint32_t)lround(ca + (cb - ca) * t) << sh;
	}
	return out;
}

uint32_t hm_value_colour(enum rck_mesh_test test, double value, double median)
{
	double g = goodness(test, value, median);

	if (!(g > stops[0].g))
		return stops[0].rgb;
	for (size_t i = 1; i < NSTOPS; i++)
		if (g <= stops[i].g)
			return mix(stops[i - 1].rgb, stops[i].rgb,
				   (g - stops[i - 1].g) / (stops[i].g - stops[i - 1].g));
	return stops[NSTOPS - 1].rgb;
}

uint32_t hm_state_colour(enum hm_state s)
{
	switch (s) {
	case HM_FAILED:
		return HM_RGB(0x1a, 0x1a, 0x1a);
	case HM_UNREACHABLE:
		return HM_RGB(0x8c, 0x8c, 0x8c);
	case HM_SKIPPED:
		return HM_RGB(0xd9, 0xd9, 0xd9);
	default:
		return HM_RGB(0xff, 0xff, 0xff);
	}
}

unsigned int hm_scale_stops(void)
{
	return NSTOPS;
}

double hm_scale_value(enum rck_mesh_test test, unsigned int i, double median)
{
	if (i >= NSTOPS || median <= 0)
		return 0;
	return test == RCK_MESH_TEST_BW ? median * stops[i].g : median / stops[i].g;
}

void hm_num(char *buf, size_t len, double v, int dec)
{
	static const long long scale[] = {1, 10, 100, 1000};
	long long q;

	if (!isfinite(v) || fabs(v) > 1e15) {
		snprintf(buf, len, "n/a");
		return;
	}
	dec = dec < 0 ? 0 : dec > 3 ? 3 : dec;
	q = llround(fabs(v) * (double)scale[dec]);
	if (dec)
		snprintf(buf, len, "%s%lld.%0*lld", v < 0 && q ? "-" : "", q / scale[dec], dec,
			 q % scale[dec]);
	else
		snprintf(buf, len, "%s%lld", v < 0 && q ? "-" : "", q);
}

void hm_sig3(char *buf, size_t len, double v, int min_dec)
{
	double a = fabs(v);
	int dec = 0;

	if (a > 0 && isfinite(a)) {
		dec = 2 - (int)floor(log10(a));
		/* 99.96 rounds to 100.0: one digit fewer. */
		if (dec > 0 && llround(a * pow(10, dec)) >= 1000)
			dec--;
	}
	hm_num(buf, len, v, dec > min_dec ? dec : min_dec);
}

const char *hm_bw_unit(double gbps, double *mul)
{
	double a = fabs(gbps);

	if (a > 0 && a < 0.0009995) {
		*mul = 1e6;
		return "kb/s";
	}
	if (a > 0 && a < 0.9995) {
		*mul = 1e3;
		return "Mb/s";
	}
	*mul = 1;
	return "Gb/s";
}

void hm_value_text(char *buf, size_t len, enum rck_mesh_test test, double v)
{
	const char *unit = "\xc2\xb5s";
	double mul = 1;
	char num[32];

	if (test == RCK_MESH_TEST_BW)
		unit = hm_bw_unit(v, &mul);
	hm_sig3(num, sizeof(num), v * mul, 0);
	snprintf(buf, len, "%s %s", num, unit);
}

/* Length of the UTF-8 sequence at @s and its code point, 0 when invalid. */
static size_t utf8_next(const unsigned char *s, uint32_t *cp)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
		 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	uint32_t c = n == 1 ? s[0] : n == 2 ? s[0] & 0x1f : n == 3 ? s[0] & 0x0f : s[0] & 0x07;

	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, past U+10FFFF. */
	if (!n || (n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return n;
}

char *hm_clean(const char *s, unsigned int max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t cap = strlen(s) + 4, o = 0;
	unsigned int chars = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	while (*p) {
		uint32_t cp = 0;
		size_t n = utf8_next(p, &cp);

		if (chars + 1 == max && p[n ? n : 1]) {
			memcpy(out + o, "\xe2\x80\xa6", 3); /* ... */
			o += 3;
			break;
		}
		/* Control characters, what XML 1.0 cannot carry, and the line
		 * breaks, zero-width and bidirectional controls that would
		 * hide or reorder a name become '?'. */
		if (!n || cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0xfffe || cp == 0xffff ||
		    (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
		    (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff) {
			out[o++] = '?';
			p += n ? n : 1;
		} else {
			memcpy(out + o, p, n);
			o += n;
			p += n;
		}
		chars++;
	}
	out[o] = 0;
	return out;
}
