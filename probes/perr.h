/* The first error of a probe session: its status class, one line of text
 * and, for a failed completion, the ibv_wc_status name. */
#ifndef RCK_PROBE_PERR_H
#define RCK_PROBE_PERR_H

#include <stdbool.h>

#include "rocecheck/probe.h"

struct perr {
	enum rck_probe_status status;   /* RCK_PROBE_OK until the first error */
	char msg[400];
	const char *wc_status;          /* static, or NULL */
};

/* Record the error unless one is recorded already (the first one is the
 * cause, the rest are consequences). Returns @rc, a negative errno. */
int perr_set(struct perr *e, enum rck_probe_status st, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The server's end of a run came (its --max-duration, or the client's
 * shorter duration, plus the timeout): RCK_PROBE_TIMEOUT, -ETIMEDOUT. */
int perr_overrun(struct perr *e);
/* The status class a socket errno falls into (refused, reset: unreachable). */
enum rck_probe_status perr_sock_status(int rc);
static inline bool perr_failed(const struct perr *e)
{
	return e->status != RCK_PROBE_OK;
}

#endif
