/* Frame reader: a header check at 12 bytes, a payload buffer of the
 * announced size, and never a byte taken beyond the frame's end. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "frame.h"

void pframe_init(struct pframe *f)
{
	memset(f, 0, sizeof(*f));
}

void pframe_free(struct pframe *f)
{
	free(f->payload);
	pframe_init(f);
}

void pframe_next(struct pframe *f)
{
	f->got = 0;
	f->err = 0;
	memset(&f->h, 0, sizeof(f->h));
}

size_t pframe_want(const struct pframe *f)
{
	if (f->err)
		return 0;
	if (f->got < XQ_HDR_LEN)
		return XQ_HDR_LEN - f->got;
	return XQ_HDR_LEN + f->h.length - f->got;
}

/* The header is complete: check it and make room for the payload. */
static int header_done(struct pframe *f)
{
	int rc = xq_decode_hdr(f->hdr, &f->h);

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

int pframe_put(struct pframe *f, const uint8_t *p, size_t len, size_t *used)
{
	size_t take;
	int rc;

	*used = 0;
	if (f->err)
		return f->err;
	if (f->got < XQ_HDR_LEN) {
		take = XQ_HDR_LEN - f->got < len ? XQ_HDR_LEN - f->got : len;
		memcpy(f->hdr + f->got, p, take);
		f->got += take;
		*used += take;
		p += take;
		len -= take;
		if (f->got < XQ_HDR_LEN)
			return 0;
		if (f->got == XQ_HDR_LEN && (rc = header_done(f)))
			return rc;
	}
	take = pframe_want(f) < len ? pframe_want(f) : len;
	if (take) {
		memcpy(f->payload + (f->got - XQ_HDR_LEN), p, take);
		f->got += take;
		*used += take;
	}
	return pframe_want(f) == 0;
}

int pframe_recv(struct pframe *f, int fd, int *eof)
{
	uint8_t buf[XQ_HDR_LEN];

	*eof = 0;
	for (;;) {
		size_t want = pframe_want(f), used;
		uint8_t *dst;
		ssize_t n;
		int rc;

		if (f->err)
			return f->err;
		if (!want)
			return 1;
		/* The header lands in a scratch buffer (pframe_put() checks it);
		 * the payload straight in place. */
		dst = f->got < XQ_HDR_LEN ? buf : f->payload + (f->got - XQ_HDR_LEN);
		n = recv(fd, dst, want, MSG_DONTWAIT);
		if (n == 0) {
			*eof = f->got == 0;
			return -ECONNRESET;
		}
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
		if (dst == buf) {
			rc = pframe_put(f, buf, (size_t)n, &used);
			if (rc)
				return rc;
		} else {
			f->got += (size_t)n;
		}
	}
}
