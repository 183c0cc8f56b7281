/* Wire frames on a stream: the incremental frame reader (never a byte taken
 * beyond the frame's end) and blocking send/receive with deadlines. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include "wire.h"

void wire_frame_init(struct wire_frame *f, const struct wire_proto *p)
{
	memset(f, 0, sizeof(*f));
	f->proto = p;
}

void wire_frame_free(struct wire_frame *f)
{
	wire_sec_free(f->sec);
	free(f->payload);
	wire_frame_init(f, f->proto);
}

void wire_frame_next(struct wire_frame *f)
{
	f->got = 0;
	f->err = 0;
	f->opened = false;
	memset(&f->h, 0, sizeof(f->h));
}

void wire_frame_trim(struct wire_frame *f, size_t keep)
{
	wire_frame_next(f);
	if (f->cap > keep) {
		free(f->payload);
		f->payload = NULL;
		f->cap = 0;
	}
}

size_t wire_frame_want(const struct wire_frame *f)
{
	if (f->err)
		return 0;
	if (f->got < WIRE_HDR_LEN)
		return WIRE_HDR_LEN - f->got;
	return WIRE_HDR_LEN + f->h.length - f->got;
}

static int header_done(struct wire_frame *f)
{
	int rc = wire_hdr_decode(f->proto, f->hdr, &f->h);

	/* A sealed frame carries its tag beyond the protocol's payload limit. */
	if (rc == -EMSGSIZE && f->sec && f->h.length <= f->proto->max_payload + WIRE_TAG_LEN)
		rc = 0;
	if (rc)
		return f->err = rc;
	/* Never NULL, even for an empty payload: decoders get a real buffer. */
	if (!f->payload || f->h.length > f->cap) {
		size_t cap = f->h.length ? f->h.length : 1;
		uint8_t *p = realloc(f->payload, cap);

		if (!p)
			return f->err = -ENOMEM;
		f->payload = p;
		f->cap = cap;
	}
	return 0;
}

/* 1 when the frame is whole (and, secured, passed its check), else 0. */
static int complete(struct wire_frame *f)
{
	int rc;

	if (wire_frame_want(f))
		return 0;
	if (f->sec && !f->opened && (rc = wire_sec_open(f->sec, f)))
		return f->err = rc;
	return 1;
}

int wire_frame_put(struct wire_frame *f, const uint8_t *p, size_t len, size_t *used)
{
	size_t take;
	int rc;

	*used = 0;
	if (f->err)
		return f->err;
	if (f->got < WIRE_HDR_LEN) {
		take = WIRE_HDR_LEN - f->got < len ? WIRE_HDR_LEN - f->got : len;
		memcpy(f->hdr + f->got, p, take);
		f->got += take;
		*used += take;
		p += take;
		len -= take;
		if (f->got < WIRE_HDR_LEN)
			return 0;
		if (f->got == WIRE_HDR_LEN && (rc = header_done(f)))
			return rc;
	}
	take = wire_frame_want(f) < len ? wire_frame_want(f) : len;
	if (take) {
		memcpy(f->payload + (f->got - WIRE_HDR_LEN), p, take);
		f->got += take;
		*used += take;
	}
	return complete(f);
}

int wire_frame_recv(struct wire_frame *f, int fd, int *eof)
{
	uint8_t buf[WIRE_HDR_LEN];

	*eof = 0;
	for (;;) {
		size_t want = wire_frame_want(f), used;
		uint8_t *dst;
		ssize_t n;
		int rc;

		if (f->err)
			return f->err;
		if (!want)
			return complete(f);
		dst = f->got < WIRE_HDR_LEN ? buf : f->payload + (f->got - WIRE_HDR_LEN);
		n = recv(fd, dst, want, MSG_DONTWAIT);
		if (n == 0) {
			*eof = f->got == 0;
			return -ECONNRESET;
		}
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
		if (dst == buf) {
			rc = wire_frame_put(f, buf, (size_t)n, &used);
			if (rc)
				return rc;
		} else {
			f->got += (size_t)n;
		}
	}
}

uint64_t wire_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int wait_fd(int fd, short ev, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = ev };
		uint64_t now = wire_now_ns();
		int rc;

		if (now >= deadline)
			return -ETIMEDOUT;
		rc = poll(&p, 1, (int)((deadline - now + 999999) / 1000000));
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
}

static int send_all(int fd, const uint8_t *p, size_t len, uint64_t deadline)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		int rc;

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		rc = wait_fd(fd, POLLOUT, deadline);
		if (rc)
			return rc;
	}
	return 0;
}

int wire_send_raw(int fd, const void *p, size_t len, uint64_t deadline)
{
	return send_all(fd, p, len, deadline);
}

int wire_send(int fd, const struct wire_proto *p, uint16_t type, const void *payload, size_t len,
	      uint64_t deadline)
{
	uint8_t hdr[WIRE_HDR_LEN];
	struct iovec iov[2] = { { hdr, sizeof(hdr) }, { (void *)payload, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	ssize_t n;

	if (len > p->max_payload)
		return -EMSGSIZE;
	wire_hdr_encode(hdr, p, type, (uint32_t)len);
	/* Header and payload in one segment when they fit: two small writes
	 * meet Nagle and the peer's delayed ACK (40 ms a message). */
	n = sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		n = 0;
	}
	if ((size_t)n < sizeof(hdr)) {
		int rc = send_all(fd, hdr + n, sizeof(hdr) - (size_t)n, deadline);

		if (rc)
			return rc;
		n = sizeof(hdr);
	}
	return send_all(fd, (const uint8_t *)payload + ((size_t)n - sizeof(hdr)),
			len - ((size_t)n - sizeof(hdr)), deadline);
}

int wire_recv(int fd, struct wire_frame *f, uint64_t deadline)
{
	for (;;) {
		int eof, rc = wire_frame_recv(f, fd, &eof);

		if (rc)
			return rc;
		rc = wait_fd(fd, POLLIN, deadline);
		if (rc)
			return rc;
	}
}
