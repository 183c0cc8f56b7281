/* A probe through this host's own stack: the server in a thread of ours,
 * the client to it, for host-local checks (rocecheck sweep --probe quick). */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "internal.h"
#include "rocecheck/probe.h"

struct serve_arg {
	struct rck_probe_server *srv;
	int wait_ms;
};

static void *serve(void *p)
{
	struct serve_arg *a = p;

	rck_probe_server_serve(a->srv, a->wait_ms, NULL);
	return NULL;
}

RCK_EXPORT int rck_probe_loopback(struct rck_ctx *ctx, const char *addr,
				  const struct rck_probe_opts *opts, struct rck_probe_result **out)
{
	struct rck_probe_opts o;
	struct rck_probe_server *srv = NULL;
	struct serve_arg sa;
	char err[256];
	pthread_t th;
	int rc;

	if (!ctx || !addr || !opts || !out || opts->size < sizeof(size_t))
		return -EINVAL;
	rck_probe_opts_init(&o);
	memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
	o.size = sizeof(o);
	/* The client's options first: a refusal must not leave a server
	 * waiting out its deadline for a client that never comes. */
	o.port = RCK_PROBE_DEFAULT_PORT;
	rc = rck_probe_opts_validate(&o, RCK_PROBE_ROLE_CLIENT, err, sizeof(err));
	if (rc) {
		rck_err(ctx, "%s", err);
		return rc;
	}
	o.port = 0;
	o.bind_addr = addr;
	rc = rck_probe_server_new(ctx, &o, &srv);
	if (rc)
		return rc;
	/* The server waits no longer than the client's steps may take. */
	sa = (struct serve_arg){ srv, (int)(ctx->timeout_ms > 1000000 ? 1000000 : ctx->timeout_ms) * 2 + 1000 };
	rc = pthread_create(&th, NULL, serve, &sa);
	if (rc) {
		rck_probe_server_free(srv);
		return -rc;
	}
	o.port = rck_probe_server_port(srv);
	o.bind_addr = NULL;
	rc = rck_probe_run(ctx, addr, &o, out);
	/* A client that never connected (bad options) leaves the server
	 * waiting out its deadline: that wait is bounded above. */
	pthread_join(th, NULL);
	rck_probe_server_free(srv);
	return rc;
}
