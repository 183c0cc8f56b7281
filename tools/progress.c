/* The progress line of long runs on a terminal, redrawn in place and
 * erased to its end (ECMA-48 EL, as every terminal emulator has it). */
#include <math.h>

#include "progress.h"

const char *progress_format(char *buf, size_t len, const struct progress_state *s)
{
	char eta[48] = "", down[48] = "";

	if (!len)
		return buf;
	if (isfinite(s->eta_s) && s->done < s->total)
		snprintf(eta, sizeof(eta), ", ETA %.1f s", s->eta_s);
	if (s->hosts_down)
		snprintf(down, sizeof(down), ", %u host%s down", s->hosts_down, s->hosts_down == 1 ? "" : "s");
	if (snprintf(buf, len, "%s: %s%s%u/%u probes, %.1f s elapsed%s%s", s->who, s->phase ? s->phase : "",
		     s->phase ? ", " : "", s->done, s->total, s->elapsed_s, eta, down) < 0)
		*buf = 0;
	return buf;
}

void progress_show(FILE *f, const struct progress_state *s, bool last)
{
	char line[256];

	fprintf(f, "\r%s\033[K%s", progress_format(line, sizeof(line), s), last ? "\n" : "");
	fflush(f);
}
