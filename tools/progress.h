/* The progress line of long runs (mesh, preflight) on a terminal: one line
 * redrawn in place, erased to its end, never left half-overwritten. */
#ifndef RCK_TOOLS_PROGRESS_H
#define RCK_TOOLS_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct progress_state {
	const char *who;     /* "mesh", "preflight" */
	const char *phase;   /* NULL: none */
	unsigned int done, total, hosts_down;
	double elapsed_s;
	double eta_s;        /* NAN: unknown */
};

/* "preflight: sweep, 12/24 probes, 3.1 s elapsed, ETA 3.0 s, 1 host down"
 * into @buf (truncated to @len); returns @buf. */
const char *progress_format(char *buf, size_t len, const struct progress_state *s);
/* @s's line over the last one: carriage return, the text, erase to the
 * end of the line; a newline after it when @last. */
void progress_show(FILE *f, const struct progress_state *s, bool last);

#endif
