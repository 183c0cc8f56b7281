/* The frame reader of the probe control protocol: the shared wire layer's
 * frame reader (lib/wire.h) bound to the probe protocol. */
#ifndef RCK_PROBE_FRAME_H
#define RCK_PROBE_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "exchange.h"
#include "wire.h"

/* A probe frame in the making: see struct wire_frame. */
#define pframe wire_frame

static inline void pframe_init(struct wire_frame *f)
{
	wire_frame_init(f, &xq_proto);
}

static inline void pframe_free(struct wire_frame *f)
{
	wire_frame_free(f);
}

static inline void pframe_next(struct wire_frame *f)
{
	wire_frame_next(f);
}

static inline int pframe_empty(const struct wire_frame *f)
{
	return f->got == 0;
}

static inline size_t pframe_want(const struct wire_frame *f)
{
	return wire_frame_want(f);
}

static inline int pframe_put(struct wire_frame *f, const uint8_t *p, size_t len, size_t *used)
{
	return wire_frame_put(f, p, len, used);
}

static inline int pframe_recv(struct wire_frame *f, int fd, int *eof)
{
	return wire_frame_recv(f, fd, eof);
}

#endif
