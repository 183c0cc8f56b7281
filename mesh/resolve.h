/* The agents' addresses: every name resolved at once (c-ares), inside the
 * sweep's deadline and its cancel, each name once, literals never. */
#ifndef RCK_MESH_RESOLVE_H
#define RCK_MESH_RESOLVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct mesh_addr {
	struct sockaddr_storage sa;
	socklen_t len;
	/* 0; -ENOENT the name does not resolve; -ETIMEDOUT no answer by the
	 * deadline; -ECANCELED cancelled; -EAGAIN another resolver error;
	 * -EALREADY not looked up (@skip). */
	int err;
	const char *why; /* a static text naming the error, NULL when 0 */
};

/* What the caller does while names are out: @ready(@arg, i, answer) for
 * each host as soon as its name has an answer (or has failed), and
 * @extra(@arg) whenever @extra_fd (-1: none) is readable, e.g. the
 * coordinator's epoll set with the connections already under way. */
struct mesh_resolve_cb {
	void (*ready)(void *arg, size_t i, const struct mesh_addr *a);
	int extra_fd;
	void (*extra)(void *arg);
	void *arg;
};

/*
 * Resolve @names[i] into @out[i] with port @ports[i], except where
 * @skip[i] (may be NULL): all names at once, each distinct name once, an
 * IP literal without any lookup. Returns when every name has an answer, at
 * @deadline_ns (CLOCK_MONOTONIC, wire_now_ns()) or soon after *@cancel is
 * set (checked every 50 ms). 0, or -ENOMEM / -EIO when the resolver could
 * not start (then nothing was resolved). @cb may be NULL. Not
 * async-signal-safe; callers may run it from several threads.
 */
int mesh_resolve(const char *const *names, const unsigned int *ports, const bool *skip, size_t n,
		 uint64_t deadline_ns, const atomic_int *cancel, const struct mesh_resolve_cb *cb,
		 struct mesh_addr *out);

struct coord_host;
/* mesh_resolve() of the config's @n hosts, skipping those whose launcher
 * failed; *@out (free() it) gets one answer a host. */
int mesh_resolve_hosts(const struct coord_host *hosts, size_t n, uint64_t deadline_ns, const atomic_int *cancel,
		       const struct mesh_resolve_cb *cb, struct mesh_addr **out);

#endif
