/* Probe sockets: non-blocking TCP with poll() deadlines, so a silent or
 * dead peer ends in -ETIMEDOUT instead of a hang. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "sock.h"

static int wait_ms(uint64_t deadline)
{
	return deadline == UINT64_MAX ? -1 : pclock_left_ms(deadline);
}

int psock_wait(int fd, short events, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int n;

	for (;;) {
		n = poll(&pfd, 1, wait_ms(deadline));
		if (n > 0)
			return pfd.revents;
		if (n == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
		if (deadline != UINT64_MAX && pclock_ns() >= deadline)
			return -ETIMEDOUT;
	}
}

static int setup_fd(int fd)
{
	int one = 1;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	/* Best effort: not every socket family knows TCP_NODELAY. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

int psock_connect_addr(const struct sockaddr_storage *sa, uint64_t deadline, int *fdp)
{
	socklen_t len = sa->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	int fd, rc, err = 0;
	socklen_t elen = sizeof(err);

	fd = socket(sa->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = setup_fd(fd);
	if (rc)
		goto fail;
	if (connect(fd, (const struct sockaddr *)sa, len) < 0) {
		if (errno != EINPROGRESS) {
			rc = -errno;
			goto fail;
		}
		rc = psock_wait(fd, POLLOUT, deadline);
		if (rc < 0)
			goto fail;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0) {
			rc = -errno;
			goto fail;
		}
		if (err) {
			rc = -err;
			goto fail;
		}
	}
	*fdp = fd;
	return 0;
fail:
	close(fd);
	return rc;
}

int psock_connect(const char *host, unsigned int port, uint64_t deadline, int *fdp,
		  struct sockaddr_storage *peer, int *gai)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res, *ai;
	char service[8];
	int rc = -ENOENT;

	*gai = 0;
	snprintf(service, sizeof(service), "%u", port);
	/* Names go through the resolver, which has its own timeouts; literal
	 * addresses never leave the process. */
	*gai = getaddrinfo(host, service, &hints, &res);
	if (*gai)
		return -ENOENT;
	for (ai = res; ai; ai = ai->ai_next) {
		struct sockaddr_storage sa = { 0 };

		if (ai->ai_addrlen > sizeof(sa))
			continue;
		memcpy(&sa, ai->ai_addr, ai->ai_addrlen);
		rc = psock_connect_addr(&sa, deadline, fdp);
		if (rc == 0) {
			*peer = sa;
			break;
		}
		if (rc == -ETIMEDOUT)
			break;
	}
	freeaddrinfo(res);
	return rc;
}

int psock_listen(const char *addr, unsigned int port, int *fdp, unsigned int *bound)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res, *ai;
	struct sockaddr_storage sa;
	char service[8];
	int fd = -1, rc = -EADDRNOTAVAIL, one = 1, zero = 0;

	snprintf(service, sizeof(service), "%u", port);
	if (!addr)
		hints.ai_family = AF_INET6;
	if (getaddrinfo(addr, service, &hints, &res) == 0) {
		for (ai = res; ai; ai = ai->ai_next) {
			fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
			if (fd < 0) {
				rc = -errno;
				continue;
			}
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (!addr)
				setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
			if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 16) < 0)
				rc = -errno;
			else if ((rc = setup_fd(fd)) == 0)
				break;
			close(fd);
			fd = -1;
		}
		freeaddrinfo(res);
	}
	/* A kernel without IPv6: listen on IPv4 any instead. */
	if (fd < 0 && !addr && rc != -EADDRINUSE)
		return psock_listen("0.0.0.0", port, fdp, bound);
	if (fd < 0)
		return rc;
	if (psock_local(fd, &sa) == 0)
		*bound = psock_addr_port(&sa);
	*fdp = fd;
	return 0;
}

int psock_send_all(int fd, const void *buf, size_t len, uint64_t deadline)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		int rc;

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		rc = psock_wait(fd, POLLOUT, deadline);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int psock_recv_msg(int fd, void *buf, size_t len, uint64_t deadline, bool *eof)
{
	uint8_t *p = buf;
	size_t got = 0;

	*eof = false;
	while (got < len) {
		ssize_t n = recv(fd, p + got, len - got, 0);
		int rc;

		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0) {
			*eof = got == 0;
			return got ? -ECONNRESET : 0;
		}
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		rc = psock_wait(fd, POLLIN, deadline);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int psock_recv_all(int fd, void *buf, size_t len, uint64_t deadline)
{
	bool eof;
	int rc = psock_recv_msg(fd, buf, len, deadline, &eof);

	return rc ? rc : eof && len ? -ECONNRESET : 0;
}

int psock_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0;
}

void psock_addr_str(const struct sockaddr_storage *sa, char *buf, size_t len)
{
	const void *a = sa->ss_family == AF_INET ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
						 : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;

	if (!inet_ntop(sa->ss_family, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

unsigned int psock_addr_port(const struct sockaddr_storage *sa)
{
	if (sa->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
}

void psock_set_port(struct sockaddr_storage *sa, unsigned int port)
{
	if (sa->ss_family == AF_INET)
		((struct sockaddr_in *)sa)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)sa)->sin6_port = htons((uint16_t)port);
}

int psock_local(int fd, struct sockaddr_storage *sa)
{
	socklen_t len = sizeof(*sa);

	memset(sa, 0, sizeof(*sa));
	if (getsockname(fd, (struct sockaddr *)sa, &len) < 0)
		return -errno;
	psock_unmap(sa);
	return 0;
}

int psock_peer(int fd, struct sockaddr_storage *sa)
{
	socklen_t len = sizeof(*sa);

	memset(sa, 0, sizeof(*sa));
	if (getpeername(fd, (struct sockaddr *)sa, &len) < 0)
		return -errno;
	psock_unmap(sa);
	return 0;
}

void psock_unmap(struct sockaddr_storage *sa)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;
	struct sockaddr_in s4 = { .sin_family = AF_INET };

	if (sa->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return;
	s4.sin_port = s6->sin6_port;
	memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
	memset(sa, 0, sizeof(*sa));
	memcpy(sa, &s4, sizeof(s4));
}
