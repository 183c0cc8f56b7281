/* One netlink socket helper for the library: connect a libnl socket to a
 * netlink protocol with the context's deadline on every send and receive. */
#ifndef RCK_NLSOCK_H
#define RCK_NLSOCK_H

#include <netlink/netlink.h>

struct rck_ctx;

/* A connected socket for @protocol (NETLINK_ROUTE, NETLINK_GENERIC) whose
 * sends and receives give up after the context's timeout (-ETIMEDOUT/-EAGAIN
 * from libnl as NLE_AGAIN). Returns 0 or -errno; free with nl_socket_free(). */
int rck_nlsock_open(const struct rck_ctx *ctx, int protocol, struct nl_sock **out);

/* Map a libnl error (NLE_*, negative) to a negative errno. */
int rck_nlsock_errno(int nlerr);

#endif
