/* Numbers as a person reads them: rates scaled to their size, ratios that
 * keep the side of their threshold, counts with the right plural. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "units.h"

const char *units_sig3(char *buf, size_t len, double v)
{
	double a = fabs(v);
	int dec;

	if (!isfinite(v)) {
		snprintf(buf, len, "%g", v);
		return buf;
	}
	if (a == 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	/* Digits after the point for three significant ones; a value that
	 * rounds up to the next decade (99.96) takes one fewer. */
	dec = 2 - (int)floor(log10(a));
	if (round(a * pow(10, dec)) >= 1000)
		dec--;
	if (dec < 0)
		dec = 0;
	snprintf(buf, len, "%.*f", dec, v);
	return buf;
}

const char *units_rate(char *buf, size_t len, double gbps)
{
	static const char *const unit[] = {"kb/s", "Mb/s", "Gb/s", "Tb/s"};
	double v = gbps * 1e6; /* kb/s */
	unsigned int u = 0;
	char num[32];

	if (!isfinite(gbps) || gbps == 0) {
		snprintf(buf, len, "%g Gb/s", isfinite(gbps) ? 0.0 : gbps);
		return buf;
	}
	/* Scale while the value would read 1000 or more once rounded. */
	while (u < 3 && fabs(v) >= 999.5)
		v /= 1000, u++;
	snprintf(buf, len, "%s %s", units_sig3(num, sizeof(num), v), unit[u]);
	return buf;
}

const char *units_ratio(char *buf, size_t len, double ratio, double threshold)
{
	for (int dec = 2; dec <= 6; dec++) {
		double shown;

		snprintf(buf, len, "%.*f", dec, ratio);
		shown = strtod(buf, NULL);
		if ((ratio < threshold) == (shown < threshold) && (ratio > threshold) == (shown > threshold))
			return buf;
	}
	return buf;
}

const char *units_count(char *buf, size_t len, unsigned long n, const char *one, const char *many)
{
	snprintf(buf, len, "%lu %s", n, n == 1 ? one : many);
	return buf;
}

/* @v scaled by 1000 through @unit (n of them) while it would read 1000
 * or more once rounded, then "<sig3> <unit>". */
static const char *scaled(char *buf, size_t len, double v, const char *const *unit, unsigned int n)
{
	unsigned int u = 0;
	char num[32];

	if (!isfinite(v)) {
		snprintf(buf, len, "%g %s", v, unit[0]);
		return buf;
	}
	while (u + 1 < n && fabs(v) >= 999.5)
		v /= 1000, u++;
	snprintf(buf, len, "%s %s", units_sig3(num, sizeof(num), v), unit[u]);
	return buf;
}

const char *units_bytes_rate(char *buf, size_t len, double bps)
{
	static const char *const unit[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s"};

	return scaled(buf, len, bps, unit, sizeof(unit) / sizeof(unit[0]));
}

const char *units_events_rate(char *buf, size_t len, double eps)
{
	static const char *const unit[] = {"/s", "k/s", "M/s", "G/s", "T/s"};

	if (isfinite(eps) && fabs(eps) < 999.5) {
		snprintf(buf, len, "%.1f/s", eps);
		return buf;
	}
	return scaled(buf, len, eps, unit, sizeof(unit) / sizeof(unit[0]));
}

const char *units_usec(char *buf, size_t len, double us)
{
	static const char *const unit[] = {"us", "ms", "s"};

	return scaled(buf, len, us, unit, sizeof(unit) / sizeof(unit[0]));
}

const char *units_pcie_link(char *buf, size_t len, const char *addr, double gts, unsigned int width,
			    double max_gts, unsigned int max_width)
{
	bool narrow = width < max_width, slow = gts < max_gts;

	if (narrow && slow)
		snprintf(buf, len, "x%u of x%u, %.1f of %.1f GT/s at %s", width, max_width, gts, max_gts, addr);
	else if (slow)
		snprintf(buf, len, "%.1f of %.1f GT/s at %s (x%u)", gts, max_gts, addr, width);
	else
		snprintf(buf, len, "x%u of x%u at %s (%.1f GT/s)", width, max_width, addr, gts);
	return buf;
}
