/* lldpad's view of a link partner through its client socket: our own client
 * of lldpad's documented datagram message format (not its GPL library), the
 * neighbor's TLVs it returns in hex decoded by the LLDP decoder. */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "dcb_internal.h"
#include "lldp.h"

/* The daemon's socket: an abstract name, so one per network namespace. */
#define LLDPAD_SOCK "/com/intel/lldpad"
#define LLDPAD_MSG_MAX 4096
/* A request: 'M', module (8 hex, 1: the LLDP core), 'C' and version 3,
 * command 01 (get TLV), options (8 hex, 2: the neighbor's), the interface
 * (2 hex length, name), agent type 00 (nearest bridge), TLV id 7f (all). */
#define LLDPAD_GET_NEIGHBOR "M00000001C30100000002%02x%s000000007f"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* @n hex digits at @p as a number; -1 when any is not one. */
static long hexnum(const char *p, size_t n)
{
	long v = 0;

	for (size_t i = 0; i < n; i++) {
		int d = hexval(p[i]);

		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

int dcb_lldpad_parse(const char *rsp, size_t len, const char *ifname, struct rck_lldp **out)
{
	/* 'R', status, 'C', version, command, options, name length. */
	static const size_t head = 1 + 2 + 1 + 1 + 2 + 8 + 2;
	uint8_t *frame;
	size_t off, n, flen;
	long status, iflen;
	int rc;

	*out = NULL;
	if (len < 3 || rsp[0] != 'R' || (status = hexnum(rsp + 1, 2)) < 0)
		return -EBADMSG;
	/* lldpad's statuses: device not found, agent not found, peer absent. */
	if (status == 2 || status == 3)
		return -ENODEV;
	if (status == 6)
		return -ENODATA;
	if (status)
		return -EIO;
	if (len < head || rsp[3] != 'C' || hexnum(rsp + 5, 2) != 1 ||
	    (iflen = hexnum(rsp + head - 2, 2)) < 0 || len < head + (size_t)iflen + 8 ||
	    strlen(ifname) != (size_t)iflen || memcmp(rsp + head, ifname, (size_t)iflen))
		return -EBADMSG;
	/* The answer names no agent type: the TLV id follows the name. */
	if (hexnum(rsp + head + iflen, 8) < 0)
		return -EBADMSG;
	off = head + (size_t)iflen + 8;
	n = len - off;
	if (!n)
		return -ENODATA; /* no neighbor heard */
	if (n % 2)
		return -EBADMSG;
	/* An Ethernet header (nearest-bridge address, no source) and the TLVs. */
	flen = 14 + n / 2;
	frame = calloc(1, flen);
	if (!frame)
		return -ENOMEM;
	memcpy(frame, "\x01\x80\xc2\x00\x00\x0e", 6);
	frame[12] = 0x88;
	frame[13] = 0xcc;
	for (size_t i = 0; i < n / 2; i++) {
		long b = hexnum(rsp + off + 2 * i, 2);

		if (b < 0) {
			free(frame);
			return -EBADMSG;
		}
		frame[14 + i] = (uint8_t)b;
	}
	rc = rck_lldp_decode(frame, flen, out);
	free(frame);
	if (!rc)
		(*out)->src_mac[0] = 0; /* not known: no frame */
	return rc;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

RCK_EXPORT int rck_lldp_lldpad(struct rck_ctx *ctx, const char *ifname, struct rck_lldp **out)
{
	struct sockaddr_un to = { .sun_family = AF_UNIX };
	sa_family_t self = AF_UNIX;
	char req[64], *rsp;
	uint64_t deadline;
	ssize_t got = -1;
	int fd, rc;

	if (!ctx || !ifname || !out || !*ifname || strlen(ifname) >= IF_NAMESIZE)
		return -EINVAL;
	*out = NULL;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Binding the family alone gives an abstract name lldpad answers to. */
	memcpy(to.sun_path + 1, LLDPAD_SOCK, strlen(LLDPAD_SOCK));
	if (bind(fd, (struct sockaddr *)&self, sizeof(self)) ||
	    connect(fd, (struct sockaddr *)&to, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
								  strlen(LLDPAD_SOCK)))) {
		rc = errno == ENOENT ? -ECONNREFUSED : -errno;
		close(fd);
		return rc; /* -ECONNREFUSED: lldpad does not run here */
	}
	snprintf(req, sizeof(req), LLDPAD_GET_NEIGHBOR, (unsigned int)strlen(ifname), ifname);
	if (send(fd, req, strlen(req), 0) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	rsp = malloc(LLDPAD_MSG_MAX);
	if (!rsp) {
		close(fd);
		return -ENOMEM;
	}
	deadline = now_ms() + rck_ctx_get_timeout_ms(ctx);
	/* Events lldpad sends to attached clients start otherwise: skip them. */
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t t = now_ms();

		if (t >= deadline) {
			got = -1;
			errno = ETIMEDOUT;
			break;
		}
		rc = poll(&p, 1, (int)(deadline - t));
		if (rc < 0 && errno != EINTR)
			break;
		if (rc <= 0)
			continue;
		got = recv(fd, rsp, LLDPAD_MSG_MAX, 0);
		if (got < 0 || (got > 0 && rsp[0] == 'R'))
			break;
	}
	rc = got < 0 ? -errno : dcb_lldpad_parse(rsp, (size_t)got, ifname, out);
	if (rc == -ETIMEDOUT)
		rck_err(ctx, "lldpad: no answer within %u ms", rck_ctx_get_timeout_ms(ctx));
	free(rsp);
	close(fd);
	return rc;
}
