/* Numbers as a person reads them: rates scaled to their size with three
 * significant digits, ratios that never round across their threshold. */
#ifndef RCK_UNITS_H
#define RCK_UNITS_H

#include <stddef.h>

/* @gbps as "41.2 Gb/s", "627 Mb/s", "3.10 Tb/s" (three significant digits,
 * Mb/s below 1 Gb/s, kb/s below 1 Mb/s); returns @buf. */
const char *units_rate(char *buf, size_t len, double gbps);
/* @v with three significant digits ("0.0627", "41.2", "1.00"); @buf. */
const char *units_sig3(char *buf, size_t len, double v);
/* @ratio with two decimals, or as many more as it takes (up to six) for
 * the text to stay on the same side of @threshold as the number: 0.997
 * against 1 is "0.997", never "1.00"; @buf. */
const char *units_ratio(char *buf, size_t len, double ratio, double threshold);
/* "1 host", "3 hosts": @n and @one or @many; @buf. */
const char *units_count(char *buf, size_t len, unsigned long n, const char *one, const char *many);

/* @bps bytes a second as "1.25 GB/s", "812 kB/s", "3 B/s" (decimal
 * prefixes, three significant digits); @buf. */
const char *units_bytes_rate(char *buf, size_t len, double bps);
/* @eps events a second as "5.0/s" below 1000, then "12.3 k/s", "4.56 M/s",
 * "1.00 G/s"; @buf. */
const char *units_events_rate(char *buf, size_t len, double eps);
/* @us microseconds as "812 us", "12.3 ms", "4.00 s"; @buf. */
const char *units_usec(char *buf, size_t len, double us);
/* A PCIe link below what it could do, the fact first so a cut line keeps
 * it: "x8 of x16 at 0000:3b:00.0 (16.0 GT/s)", "8.0 of 16.0 GT/s at ADDR
 * (x16)", "x8 of x16, 8.0 of 16.0 GT/s at ADDR"; @buf. */
const char *units_pcie_link(char *buf, size_t len, const char *addr, double gts, unsigned int width,
			    double max_gts, unsigned int max_width);

#endif
