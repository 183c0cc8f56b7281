/* The control connection of a probe session: whole protocol messages in
 * and out with deadlines, the peer's ERROR adopted as our error, and
 * keep-alive TICKs while a long measurement runs. */
#ifndef RCK_PROBE_CHAN_H
#define RCK_PROBE_CHAN_H

#include <stdbool.h>
#include <stdint.h>

#include "exchange.h"
#include "frame.h"
#include "perr.h"

struct pchan {
	int fd;
	char peer[80];          /* "10.0.0.1 port 18520" for messages */
	unsigned int timeout_ms;
	uint64_t next_tick;
	struct pframe fr;       /* the frame being read */
	bool has_pending;       /* a message read by pchan_poll() */
	uint16_t pending_type;
	union xq_msg *pending;
};

void pchan_init(struct pchan *c, int fd, const char *peer, unsigned int timeout_ms);
/* Closes the descriptor and frees what pchan_poll() kept. */
void pchan_close(struct pchan *c);
int pchan_send(struct pchan *c, enum xq_type type, const union xq_msg *m, struct perr *e);
/* Wait for a message of type @want, for the timeout in all: TICKs do not
 * extend it. A peer's ERROR becomes our error "peer ...: text" with its
 * status. */
int pchan_recv(struct pchan *c, enum xq_type want, union xq_msg *m, struct perr *e);
/* The same with an absolute deadline (CLOCK_MONOTONIC ns) for the whole wait. */
int pchan_recv_until(struct pchan *c, enum xq_type want, uint64_t deadline, union xq_msg *m,
		     struct perr *e);
/* Tell the peer why we give up (best effort, short deadline). */
void pchan_send_error(struct pchan *c, const struct perr *e);
/* Send a TICK when one is due (the client, during a measurement). */
int pchan_tick(struct pchan *c, uint64_t now, struct perr *e);
/* Without blocking: 1 when a message other than TICK waits (kept for the
 * next pchan_recv()), 0 when none (a partial one stays for later),
 * negative when the peer went away or misbehaved. */
int pchan_poll(struct pchan *c, struct perr *e);
/* The error a received frame's refused header (pframe_recv()'s -EPROTO,
 * -EPROTONOSUPPORT, -EMSGSIZE) stands for, in one line naming @peer. */
int pchan_frame_error(const struct pframe *f, int rc, const char *peer, struct perr *e);

#endif
