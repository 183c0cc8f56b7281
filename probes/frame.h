/* The frame reader of the probe control protocol: assembles whole frames
 * (header and payload) from a byte stream fed in pieces, without I/O. */
#ifndef RCK_PROBE_FRAME_H
#define RCK_PROBE_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "exchange.h"

/*
 * One frame in the making. The header is checked as soon as its 12 bytes
 * are in, so a peer that speaks another protocol or announces an oversize
 * payload is refused before anything is allocated for it; the payload
 * buffer is sized to the announced length (at most XQ_MAX_PAYLOAD).
 */
struct pframe {
	uint8_t hdr[XQ_HDR_LEN];
	struct xq_hdr h;        /* valid once the header is complete */
	uint8_t *payload;       /* h.length bytes once complete; owned */
	size_t cap;             /* allocated bytes of @payload */
	size_t got;             /* bytes of this frame taken so far */
	int err;                /* a refused header: the first error, kept */
};

void pframe_init(struct pframe *f);
void pframe_free(struct pframe *f);
/* Forget the frame taken (after it was used) and start the next one. */
void pframe_next(struct pframe *f);
/* True when nothing of a frame has been taken yet. */
static inline int pframe_empty(const struct pframe *f)
{
	return f->got == 0;
}
/* Bytes the frame still needs: never ask the stream for more than this,
 * so what follows a frame stays in the stream. */
size_t pframe_want(const struct pframe *f);
/*
 * Take up to @len bytes of @p (no more than pframe_want()); *used gets how
 * many were taken. Returns 1 when the frame is complete (f->h and
 * f->payload), 0 when it needs more, -EPROTO (not our magic),
 * -EPROTONOSUPPORT (another version) or -EMSGSIZE (payload above the
 * limit) for a refused header (f->h holds it, for messages), -ENOMEM.
 */
int pframe_put(struct pframe *f, const uint8_t *p, size_t len, size_t *used);
/*
 * Read what a non-blocking stream socket @fd has for the frame. Returns 1
 * (complete), 0 (needs more: wait for POLLIN), -ECONNRESET at the end of
 * the stream (*eof set when no byte of the frame had come), a refused
 * header as pframe_put(), or -errno.
 */
int pframe_recv(struct pframe *f, int fd, int *eof);

#endif
