/* Shared by the counters fuzz targets: one context whose log function
 * drops the errors it is given (formatted: warnings, one per bad line of
 * input, are not, which keeps runs short), and a sink for written output. */
#ifndef RCK_FUZZ_COMMON_H
#define RCK_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include "rocecheck/rocecheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_log(void *data, int prio, const char *msg)
{
	(void)data;
	(void)prio;
	(void)msg;
}

static inline struct rck_ctx *fuzz_ctx(void)
{
	static struct rck_ctx *ctx;

	if (!ctx) {
		if (rck_ctx_new(&ctx))
			abort();
		rck_ctx_set_log_fn(ctx, fuzz_log, NULL);
		rck_ctx_set_log_priority(ctx, LOG_ERR);
	}
	return ctx;
}

static inline FILE *fuzz_sink(void)
{
	static FILE *f;

	if (!f && !(f = fopen("/dev/null", "w")))
		abort();
	return f;
}

#endif
