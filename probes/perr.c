/* Error record of a probe session: keeps the first failure and its class,
 * which decide the result's status and the tool's exit code. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "perr.h"

int perr_set(struct perr *e, enum rck_probe_status st, int rc, const char *fmt, ...)
{
	va_list ap;

	if (e->status != RCK_PROBE_OK)
		return rc;
	e->status = st;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return rc;
}

int perr_overrun(struct perr *e)
{
	return perr_set(e, RCK_PROBE_TIMEOUT, -ETIMEDOUT,
			"the run went past the server's end of it (its --max-duration, or the client's "
			"shorter duration, plus the timeout)");
}

enum rck_probe_status perr_sock_status(int rc)
{
	switch (-rc) {
	case ETIMEDOUT:
		return RCK_PROBE_TIMEOUT;
	case EPROTO:
	case EPROTONOSUPPORT:
	case EMSGSIZE:
	case EBADMSG:
		return RCK_PROBE_PROTOCOL;
	case ECONNREFUSED:
	case ECONNRESET:
	case ECONNABORTED:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ENETDOWN:
	case EHOSTDOWN:
	case EPIPE:
	case ENOTCONN:
	case EADDRNOTAVAIL:
		return RCK_PROBE_UNREACHABLE;
	default:
		return RCK_PROBE_SYSTEM;
	}
}
