/* The control connection of a probe session: whole protocol messages in
 * and out with deadlines, the peer's ERROR adopted as our error, and
 * keep-alive TICKs while a long measurement runs. */
#ifndef RCK_PROBE_CHAN_H
#define RCK_PROBE_CHAN_H

#include <stdbool.h>
#include <stdint.h>

#include "exchange.h"
#include "perr.h"

struct pchan {
	int fd;
	char peer[80];          /* "10.0.0.1 port 18520" for messages */
	unsigned int timeout_ms;
	uint64_t next_tick;
	bool has_pending;       /* a message read by pchan_poll() */
	uint16_t pending_type;
	union xq_msg *pending;
};

void pchan_init(struct pchan *c, int fd, const char *peer, unsigned int timeout_ms);
/* Closes the descriptor and frees what pchan_poll() kept. */
void pchan_close(struct pchan *c);
int pchan_send(struct pchan *c, enum xq_type type, const union xq_msg *m, struct perr *e);
/* Wait for a message of type @want; TICKs restart the deadline. A peer's
 * ERROR becomes our error "peer ...: text" with its status. */
int pchan_recv(struct pchan *c, enum xq_type want, union xq_msg *m, struct perr *e);
/* Tell the peer why we give up (best effort, short deadline). */
void pchan_send_error(struct pchan *c, const struct perr *e);
/* Send a TICK when one is due (the client, during a measurement). */
int pchan_tick(struct pchan *c, uint64_t now, struct perr *e);
/* Without blocking: 1 when a message other than TICK waits (kept for the
 * next pchan_recv()), 0 when none, negative when the peer went away. */
int pchan_poll(struct pchan *c, struct perr *e);

#endif
