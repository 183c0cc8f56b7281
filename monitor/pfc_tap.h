/* PFC frames counted off the wire where the NIC counts no pause time: rxe
 * over virtio_net or veth, whose pauses, if any, pass the host's stack. */
#ifndef RCK_MONITOR_PFC_TAP_H
#define RCK_MONITOR_PFC_TAP_H
#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

struct msghdr;

/* A NIC that makes its own PFC frames (mlx5, bnxt, irdma) never hands them
 * to the stack: there the counters say it, and no tap is opened. */
struct mt_tap {
	int fd;                      /* AF_PACKET, MAC Control frames only; -1 closed */
	char netdev[IF_NAMESIZE];
	double quantum_ns;           /* one pause quantum: 512 bit times at the port's rate */
	uint64_t frames[2][8];       /* [0] received, [1] sent; per priority */
	uint64_t paused_ns[2][8];    /* pauses ended or cut short by a newer frame */
	uint64_t start_ns[2][8];     /* the pause running: its frame's time ... */
	uint64_t until_ns[2][8];     /* ... and its end (<= start: none) */
	uint64_t drops;              /* frames the socket lost (its buffer full) */
};

/* Opens @t on @netdev for a port of @rate_gbps (<= 0: unknown, the tap is
 * not opened: -EINVAL). 0 or a negative errno (-EPERM without CAP_NET_RAW). */
int mt_open(struct mt_tap *t, const char *netdev, double rate_gbps);
void mt_close(struct mt_tap *t);
/* Reads every frame queued; never blocks. */
void mt_drain(struct mt_tap *t);
/* One frame (from the Ethernet header on) at @t_ns (CLOCK_REALTIME), sent
 * (@tx) or received: what mt_drain() does with each; 0, or -EINVAL for a
 * frame that is no PFC frame (802.3x PAUSE is not per priority: not counted). */
int mt_frame(struct mt_tap *t, const uint8_t *f, size_t len, bool tx, uint64_t t_ns);
/* Frames and microseconds paused per priority and direction up to @now_ns
 * (CLOCK_REALTIME), as the NIC counters would read. */
void mt_read(const struct mt_tap *t, uint64_t now_ns, uint64_t frames[2][8], uint64_t pause_us[2][8]);

/* The kernel's receive stamp of a datagram read with @h (SO_TIMESTAMPNS:
 * CLOCK_REALTIME, ns), 0 when it carries none. */
uint64_t mt_rx_stamp(struct msghdr *h);

#endif
