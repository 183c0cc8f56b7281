/* The library context: options carried into every call, and the one place
 * messages leave the library (through the caller's log function). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

RCK_EXPORT int rck_ctx_new(struct rck_ctx **out)
{
	struct rck_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return -ENOMEM;
	ctx->log_priority = LOG_WARNING;
	ctx->timeout_ms = 10000;
	*out = ctx;
	return 0;
}

RCK_EXPORT void rck_ctx_free(struct rck_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->sysfs_root);
	free(ctx);
}

RCK_EXPORT int rck_ctx_set_sysfs_root(struct rck_ctx *ctx, const char *dir)
{
	char *copy = NULL;

	if (dir) {
		if (!*dir)
			return -EINVAL;
		copy = strdup(dir);
		if (!copy)
			return -ENOMEM;
		/* Trailing slashes would double up when paths are joined. */
		for (size_t n = strlen(copy); n > 1 && copy[n - 1] == '/'; n--)
			copy[n - 1] = '\0';
	}
	free(ctx->sysfs_root);
	ctx->sysfs_root = copy;
	return 0;
}

RCK_EXPORT const char *rck_ctx_get_sysfs_root(const struct rck_ctx *ctx)
{
	return ctx->sysfs_root;
}

RCK_EXPORT void rck_ctx_set_log_fn(struct rck_ctx *ctx, rck_log_fn fn, void *userdata)
{
	ctx->log_fn = fn;
	ctx->log_data = userdata;
}

RCK_EXPORT int rck_ctx_set_log_priority(struct rck_ctx *ctx, int priority)
{
	if (priority < LOG_EMERG || priority > LOG_DEBUG)
		return -EINVAL;
	ctx->log_priority = priority;
	return 0;
}

RCK_EXPORT int rck_ctx_set_timeout_ms(struct rck_ctx *ctx, unsigned int ms)
{
	if (ms == 0)
		return -EINVAL;
	ctx->timeout_ms = ms;
	return 0;
}

RCK_EXPORT unsigned int rck_ctx_get_timeout_ms(const struct rck_ctx *ctx)
{
	return ctx->timeout_ms;
}

RCK_EXPORT const char *rck_version(void)
{
	return RCK_VERSION;
}

void rck_log(const struct rck_ctx *ctx, int priority, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!ctx || !ctx->log_fn || priority > ctx->log_priority)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Messages quote names and values from sysfs trees and snapshots of
	 * other hosts: no control character reaches the caller's terminal. */
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	ctx->log_fn(ctx->log_data, priority, msg);
}
