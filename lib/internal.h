/* Internal declarations shared by librocecheck's source files.
 * Never installed; the public API lives in include/rocecheck/. */
#ifndef RCK_INTERNAL_H
#define RCK_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <syslog.h>

#include "rocecheck/rocecheck.h"

#define RCK_EXPORT __attribute__((visibility("default")))
#define RCK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define RCK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct rck_ctx {
	char *sysfs_root;       /* NULL: the live system, "/sys" */
	rck_log_fn log_fn;
	void *log_data;
	int log_priority;
	unsigned int timeout_ms;
};

void rck_log(const struct rck_ctx *ctx, int priority, const char *fmt, ...) RCK_PRINTF(3, 4);
#define rck_err(ctx, ...) rck_log(ctx, LOG_ERR, __VA_ARGS__)
#define rck_warn(ctx, ...) rck_log(ctx, LOG_WARNING, __VA_ARGS__)
/* What a daemon says by default (its listen socket, a refused peer). */
#define rck_notice(ctx, ...) rck_log(ctx, LOG_NOTICE, __VA_ARGS__)
#define rck_info(ctx, ...) rck_log(ctx, LOG_INFO, __VA_ARGS__)
#define rck_dbg(ctx, ...) rck_log(ctx, LOG_DEBUG, __VA_ARGS__)

/* Write @path atomically: @fn fills a temporary file beside it, which is
 * synced and renamed over @path only when @fn returned 0. */
int rck_write_atomic(const char *path, int (*fn)(FILE *f, const void *arg), const void *arg);
/* The target of an atomic save may be absent or a regular file; a symlink
 * is refused (-ELOOP) rather than followed or replaced: a root-run save into
 * a shared directory must not write where a link points. -EISDIR for a
 * directory, -EINVAL for anything else. *@mode (may be NULL) gets the
 * permission bits to keep (untouched when absent). */
#include <sys/types.h>
int rck_atomic_check_target(const char *path, mode_t *mode);

/* Dump the JSON object @root (not empty) with the sweep @m as its last
 * member @key (plain ASCII), the sweep streamed as it is written, so a
 * report that embeds a sweep never holds it as a tree (mesh/result_io.c). */
struct json_t;
struct rck_mesh;
int mesh_dump_with(struct json_t *root, const char *key, const struct rck_mesh *m, FILE *out, bool pretty);

/* True when the context reads a recorded tree rather than the live system:
 * verbs, ethtool and netlink sources are then not consulted. */
static inline int rck_ctx_is_recorded(const struct rck_ctx *ctx)
{
	return ctx->sysfs_root != NULL;
}

#endif
