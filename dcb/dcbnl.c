/* dcbnl over rtnetlink: the IEEE GET reply parser, and GET/SET/DEL requests
 * with one reply each, every receive bounded by the socket's deadline. */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include "dcb_internal.h"
#include "nlsock.h"

/* Copy an attribute holding a kernel struct; a shorter one (older kernel)
 * leaves the tail zero. */
static void get_struct(const struct nlattr *a, void *dst, size_t len)
{
	size_t n = (size_t)nla_len(a);

	memset(dst, 0, len);
	memcpy(dst, nla_data(a), n < len ? n : len);
}

static int parse_apps(struct nlattr *table, struct rck_dcb *d)
{
	struct nlattr *a;
	int rem, rc;

	nla_for_each_nested(a, table, rem) {
		struct dcb_app app;

		if (nla_type(a) != DCB_ATTR_IEEE_APP || nla_len(a) < (int)sizeof(app))
			continue;
		memcpy(&app, nla_data(a), sizeof(app));
		rc = dcb_app_push(d, app.selector, app.protocol, app.priority);
		if (rc)
			return rc;
	}
	return 0;
}

int dcbnl_parse_ieee(const struct nlmsghdr *nlh, struct rck_dcb *d)
{
	struct nlattr *tb[DCB_ATTR_MAX + 1], *ie[DCB_ATTR_IEEE_MAX + 1];
	int rc;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct dcbmsg)) ||
	    nlmsg_parse((struct nlmsghdr *)nlh, sizeof(struct dcbmsg), tb, DCB_ATTR_MAX, NULL))
		return -EBADMSG;
	for (int f = RCK_DCB_PFC; f <= RCK_DCB_BUFFER; f++)
		d->err[f] = -EOPNOTSUPP;
	if (!tb[DCB_ATTR_IEEE] || nla_parse_nested(ie, DCB_ATTR_IEEE_MAX, tb[DCB_ATTR_IEEE], NULL))
		return -EBADMSG;
	/* The kernel fills a member only when the driver has its get operation. */
	if (ie[DCB_ATTR_IEEE_PFC]) {
		get_struct(ie[DCB_ATTR_IEEE_PFC], &d->pfc, sizeof(d->pfc));
		d->err[RCK_DCB_PFC] = 0;
	}
	if (ie[DCB_ATTR_IEEE_ETS]) {
		get_struct(ie[DCB_ATTR_IEEE_ETS], &d->ets, sizeof(d->ets));
		d->err[RCK_DCB_ETS] = 0;
	}
	if (ie[DCB_ATTR_IEEE_MAXRATE]) {
		get_struct(ie[DCB_ATTR_IEEE_MAXRATE], &d->maxrate, sizeof(d->maxrate));
		d->err[RCK_DCB_MAXRATE] = 0;
	}
	if (ie[DCB_ATTR_DCB_BUFFER]) {
		get_struct(ie[DCB_ATTR_DCB_BUFFER], &d->buffer, sizeof(d->buffer));
		d->err[RCK_DCB_BUFFER] = 0;
	}
	/* The APP table is the kernel's own list: present for every dcbnl driver. */
	if (ie[DCB_ATTR_IEEE_APP_TABLE]) {
		rc = parse_apps(ie[DCB_ATTR_IEEE_APP_TABLE], d);
		if (rc)
			return rc;
		d->err[RCK_DCB_APP] = 0;
	}
	/* DCBX sits next to the IEEE nest, only with a getdcbx operation. */
	if (tb[DCB_ATTR_DCBX] && nla_len(tb[DCB_ATTR_DCBX]) >= 1) {
		d->dcbx = nla_get_u8(tb[DCB_ATTR_DCBX]);
		d->err[RCK_DCB_DCBX] = 0;
	}
	return 0;
}

int dcbnl_parse_set_reply(const struct nlmsghdr *nlh, int attr)
{
	struct nlattr *tb[DCB_ATTR_MAX + 1];

	if (nlh->nlmsg_len < NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct dcbmsg)) ||
	    nlmsg_parse((struct nlmsghdr *)nlh, sizeof(struct dcbmsg), tb, DCB_ATTR_MAX, NULL) ||
	    !tb[attr] || nla_len(tb[attr]) < 1)
		return -EBADMSG;
	/* The kernel stores the driver's negative errno in a u8. For SDCBX
	 * the byte is the driver's own status: non-zero means refused. */
	if (attr == DCB_ATTR_DCBX)
		return nla_get_u8(tb[attr]) ? -EINVAL : 0;
	return (int8_t)nla_get_u8(tb[attr]);
}

static struct nl_msg *dcb_msg(int type, int cmd, const char *ifname)
{
	struct dcbmsg hdr = { .dcb_family = AF_UNSPEC, .cmd = (uint8_t)cmd };
	struct nl_msg *msg = nlmsg_alloc_simple(type, 0);

	if (!msg)
		return NULL;
	if (nlmsg_append(msg, &hdr, sizeof(hdr), NLMSG_ALIGNTO) ||
	    nla_put_string(msg, DCB_ATTR_IFNAME, ifname)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

typedef int (*reply_fn)(const struct nlmsghdr *nlh, void *arg);

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The socket's SO_RCVTIMEO (set by rck_nlsock_open) is the deadline of the
 * whole exchange: each receive gets what is left of it. */
static int set_left(int fd, int64_t deadline)
{
	int64_t left = deadline - mono_us();
	struct timeval tv;

	if (left <= 0)
		return -ETIMEDOUT;
	tv.tv_sec = left / 1000000;
	tv.tv_usec = left % 1000000;
	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ? -errno : 0;
}

/* Send @msg (freed here), then read until its reply or error arrives. The
 * socket's SO_RCVTIMEO bounds each receive; 64 foreign messages at most. */
static int transact(struct nl_sock *sk, struct nl_msg *msg, reply_fn fn, void *arg)
{
	int fd = nl_socket_get_fd(sk);
	struct timeval tv = { 0 };
	socklen_t tl = sizeof(tv);
	int64_t deadline;
	uint32_t seq;
	int rc;

	if (!msg)
		return -ENOMEM;
	if (getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &tl)) {
		nlmsg_free(msg);
		return -errno;
	}
	deadline = mono_us() + (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
	nl_complete_msg(sk, msg);
	seq = nlmsg_hdr(msg)->nlmsg_seq;
	rc = nl_send(sk, msg);
	nlmsg_free(msg);
	if (rc < 0)
		return rck_nlsock_errno(rc);
	for (int round = 0; round < 64; round++) {
		unsigned char *buf = NULL;
		struct sockaddr_nl who;
		struct nlmsghdr *h;
		int n;

		rc = set_left(fd, deadline);
		if (rc)
			break;
		n = nl_recv(sk, &who, &buf, NULL);
		if (n <= 0) {
			free(buf);
			rc = n < 0 ? rck_nlsock_errno(n) : -ECONNRESET;
			break;
		}
		rc = 1;
		for (h = (struct nlmsghdr *)buf; rc == 1 && nlmsg_ok(h, n); h = nlmsg_next(h, &n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = nlmsg_data(h);

				rc = h->nlmsg_len >= (uint32_t)nlmsg_size(sizeof(*e)) ? e->error : -EBADMSG;
				if (rc > 0)
					rc = -rc;
			} else if (h->nlmsg_type != NLMSG_NOOP && h->nlmsg_type != NLMSG_DONE) {
				rc = fn(h, arg);
			}
		}
		free(buf);
		if (rc != 1)
			break;
	}
	/* Later exchanges on this socket start with the full deadline again. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return rc == 1 ? -EPROTO : rc;
}

static int get_reply(const struct nlmsghdr *nlh, void *arg)
{
	return dcbnl_parse_ieee(nlh, arg);
}

int dcbnl_get(const struct rck_ctx *ctx, struct nl_sock *sk, struct rck_dcb *d)
{
	int rc = transact(sk, dcb_msg(RTM_GETDCB, DCB_CMD_IEEE_GET, d->ifname), get_reply, d);

	if (rc) {
		/* EOPNOTSUPP: no dcbnl operations at all (veth, virtio). */
		for (int f = RCK_DCB_PFC; f <= RCK_DCB_BUFFER; f++)
			d->err[f] = rc;
		rck_dbg(ctx, "%s: dcbnl IEEE get: %s", d->ifname, strerror(-rc));
	}
	return rc;
}

struct set_reply {
	int attr;
};

static int set_reply_fn(const struct nlmsghdr *nlh, void *arg)
{
	const struct set_reply *r = arg;

	return dcbnl_parse_set_reply(nlh, r->attr);
}

int dcbnl_set_ieee(struct nl_sock *sk, const char *ifname, int attr, const void *data, size_t len)
{
	struct nl_msg *msg = dcb_msg(RTM_SETDCB, DCB_CMD_IEEE_SET, ifname);
	struct set_reply r = { DCB_ATTR_IEEE };
	struct nlattr *nest;

	if (!msg)
		return -ENOMEM;
	if (!(nest = nla_nest_start(msg, DCB_ATTR_IEEE)) || nla_put(msg, attr, (int)len, data)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nla_nest_end(msg, nest);
	return transact(sk, msg, set_reply_fn, &r);
}

int dcbnl_app(struct nl_sock *sk, const char *ifname, int cmd, const struct dcb_app_ent *apps,
	      size_t n)
{
	struct nl_msg *msg = dcb_msg(RTM_SETDCB, cmd, ifname);
	struct set_reply r = { DCB_ATTR_IEEE };
	struct nlattr *nest, *table;

	if (!msg)
		return -ENOMEM;
	if (!(nest = nla_nest_start(msg, DCB_ATTR_IEEE)) ||
	    !(table = nla_nest_start(msg, DCB_ATTR_IEEE_APP_TABLE)))
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		struct dcb_app app = { .selector = apps[i].selector, .priority = apps[i].priority,
				       .protocol = apps[i].protocol };

		if (nla_put(msg, DCB_ATTR_IEEE_APP, sizeof(app), &app))
			goto nomem;
	}
	nla_nest_end(msg, table);
	nla_nest_end(msg, nest);
	return transact(sk, msg, set_reply_fn, &r);
nomem:
	nlmsg_free(msg);
	return -ENOMEM;
}

int dcbnl_set_dcbx(struct nl_sock *sk, const char *ifname, uint8_t mode)
{
	struct nl_msg *msg = dcb_msg(RTM_SETDCB, DCB_CMD_SDCBX, ifname);
	struct set_reply r = { DCB_ATTR_DCBX };

	if (!msg)
		return -ENOMEM;
	if (nla_put_u8(msg, DCB_ATTR_DCBX, mode)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return transact(sk, msg, set_reply_fn, &r);
}
