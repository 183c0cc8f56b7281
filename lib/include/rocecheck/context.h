/* librocecheck context: the options every call takes (sysfs root, timeouts,
 * logging), plus the conventions shared by the whole API.
 *
 * Conventions, for every function of this library:
 *  - A function returning int returns 0 on success or a negative errno.
 *  - Constructors are `int rck_x_new(..., struct rck_x **out)`; on failure
 *    *out is left untouched. Every handle is freed with rck_x_free(), which
 *    accepts NULL.
 *  - Strings returned by accessors are owned by the handle they came from
 *    and stay valid until that handle is freed, unless a comment says else.
 *  - Health verdicts are data in the returned structures, never errors.
 *  - The library never prints on its own, never exits and never reads the
 *    environment; it logs only through the context's log function.
 */
#ifndef ROCECHECK_CONTEXT_H
#define ROCECHECK_CONTEXT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque library context. One per thread of use; not shared mutable state. */
struct rck_ctx;

/** Output forms of every rck_*_write() function. */
enum rck_format {
	RCK_FORMAT_TEXT = 0,        /**< human-readable text */
	RCK_FORMAT_JSON = 1,        /**< one line of JSON */
	RCK_FORMAT_JSON_PRETTY = 2, /**< indented JSON */
};

/**
 * Log callback. @priority is a syslog priority (LOG_ERR .. LOG_DEBUG),
 * @msg a single line without a trailing newline, valid during the call only.
 */
typedef void (*rck_log_fn)(void *userdata, int priority, const char *msg);

/**
 * Create a context with defaults: the live /sys, a 10000 ms timeout for
 * blocking work, no log function (messages are dropped), priority LOG_WARNING.
 * The caller owns *out and frees it with rck_ctx_free().
 * Returns 0 or -ENOMEM.
 */
int rck_ctx_new(struct rck_ctx **out);

/** Free a context. Handles created from it must be freed first. NULL is ok. */
void rck_ctx_free(struct rck_ctx *ctx);

/**
 * Read sysfs from @dir (a recorded tree laid out as /sys is) instead of /sys.
 * NULL restores the live system. While a recorded tree is set, sources that
 * only the live kernel can give (verbs, ethtool, netlink) are not consulted
 * and their fields are absent. The string is copied.
 * Returns 0, -EINVAL for an empty string, or -ENOMEM.
 */
int rck_ctx_set_sysfs_root(struct rck_ctx *ctx, const char *dir);

/** The recorded sysfs root, or NULL for the live system. Owned by @ctx. */
const char *rck_ctx_get_sysfs_root(const struct rck_ctx *ctx);

/** Set the log function and its user data; NULL drops every message. */
void rck_ctx_set_log_fn(struct rck_ctx *ctx, rck_log_fn fn, void *userdata);

/** Messages above @priority (a syslog priority) are dropped. Returns 0 or -EINVAL. */
int rck_ctx_set_log_priority(struct rck_ctx *ctx, int priority);

/** Deadline for each blocking step (socket, completion, netlink), in ms. Returns 0 or -EINVAL for 0. */
int rck_ctx_set_timeout_ms(struct rck_ctx *ctx, unsigned int ms);

/** The deadline set by rck_ctx_set_timeout_ms(). */
unsigned int rck_ctx_get_timeout_ms(const struct rck_ctx *ctx);

/** The library's version string, e.g. "0.1.0". Static storage. */
const char *rck_version(void);

/**
 * Writes @path atomically, as every save of the library does: @fn writes
 * the content into a temporary file beside @path, which is synced and
 * renamed over @path only when @fn returned 0 (else removed: @path is
 * untouched). A symlink at @path is refused (-ELOOP), a directory
 * (-EISDIR); an existing file keeps its permission bits. Returns 0, @fn's
 * negative error, or -errno. Thread-safe for different paths.
 */
int rck_write_file_atomic(const char *path, int (*fn)(FILE *f, const void *arg), const void *arg);

#ifdef __cplusplus
}
#endif

#endif
