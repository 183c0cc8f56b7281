/* Netlink sockets with a deadline, shared by the ethtool pause reader and
 * the dcbnl code. */
#include <errno.h>
#include <netlink/errno.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "internal.h"
#include "nlsock.h"

static int set_deadline(struct nl_sock *sk, unsigned int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
	int fd = nl_socket_get_fd(sk);

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -errno;
	return 0;
}

int rck_nlsock_open(const struct rck_ctx *ctx, int protocol, struct nl_sock **out)
{
	struct nl_sock *sk;
	int rc;

	*out = NULL;
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	rc = nl_connect(sk, protocol);
	if (rc) {
		rc = rck_nlsock_errno(rc);
		nl_socket_free(sk);
		return rc;
	}
	rc = set_deadline(sk, ctx->timeout_ms);
	if (rc) {
		nl_socket_free(sk);
		return rc;
	}
	*out = sk;
	return 0;
}

int rck_nlsock_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case 0: return 0;
	case NLE_NOMEM: return -ENOMEM;
	case NLE_AGAIN: return -ETIMEDOUT; /* SO_RCVTIMEO expired */
	case NLE_PERM: return -EPERM;
	case NLE_OPNOTSUPP: return -EOPNOTSUPP;
	case NLE_NODEV: return -ENODEV;
	case NLE_OBJ_NOTFOUND: return -ENOENT;
	case NLE_INVAL: return -EINVAL;
	case NLE_RANGE: return -ERANGE;
	case NLE_BUSY: return -EBUSY;
	case NLE_EXIST: return -EEXIST;
	case NLE_NOACCESS: return -EACCES;
	case NLE_MSGSIZE: return -EMSGSIZE;
	case NLE_AF_NOSUPPORT: return -EAFNOSUPPORT;
	case NLE_PROTO_MISMATCH: return -EPROTONOSUPPORT;
	case NLE_BAD_SOCK: return -EBADF;
	case NLE_INTR: return -EINTR;
	default: return -EIO;
	}
}
