/* PFC frames the host's stack sends and receives on a netdev, turned into
 * the pause counters a NIC would keep (frames, microseconds per priority). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pfc_tap.h"

#define MT_OP_PFC 0x0101
#define MT_PFC_LEN 34 /* header, opcode, enable vector, 8 times */

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

int mt_open(struct mt_tap *t, const char *netdev, double rate_gbps)
{
	/* MAC Control frames alone reach the socket: ldh [12]; jeq 0x8808 */
	static struct sock_filter code[] = {
		{ BPF_LD | BPF_H | BPF_ABS, 0, 0, 12 },
		{ BPF_JMP | BPF_JEQ | BPF_K, 0, 1, ETH_P_PAUSE },
		{ BPF_RET | BPF_K, 0, 0, 128 },
		{ BPF_RET | BPF_K, 0, 0, 0 },
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct packet_mreq mr = { .mr_type = PACKET_MR_MULTICAST, .mr_alen = 6,
				  .mr_address = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 } };
	int one = 1, buf = 1 << 20, err;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (!netdev || !*netdev || strlen(netdev) >= sizeof(t->netdev) || !(rate_gbps > 0))
		return -EINVAL;
	snprintf(t->netdev, sizeof(t->netdev), "%s", netdev);
	t->quantum_ns = 512.0 / rate_gbps; /* bits over Gb/s: ns */
	sll.sll_ifindex = (int)if_nametoindex(netdev);
	if (!sll.sll_ifindex)
		return -ENODEV;
	mr.mr_ifindex = sll.sll_ifindex;
	/* protocol 0 until the filter is on: nothing queues unfiltered before it */
	t->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (t->fd < 0)
		return -errno;
	/* a storm is thousands of frames a second, read every 100 ms: room for
	 * them (FORCE needs CAP_NET_ADMIN; the plain size is tried after) */
	if (setsockopt(t->fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		(void)setsockopt(t->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (setsockopt(t->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ||
	    setsockopt(t->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) ||
	    bind(t->fd, (struct sockaddr *)&sll, sizeof(sll))) {
		err = -errno;
		mt_close(t);
		return err;
	}
	/* Received pauses go to 01:80:c2:00:00:01, a group the netdev does not
	 * listen to: a filtering device (virtio_net under qemu, with its
	 * receive filter) drops them unless the group is joined. Only the
	 * received side needs it; a device that refuses keeps the sent side. */
	(void)setsockopt(t->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr));
	return 0;
}

void mt_close(struct mt_tap *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

int mt_frame(struct mt_tap *t, const uint8_t *f, size_t len, bool tx, uint64_t t_ns)
{
	unsigned int d = tx ? 1 : 0, en;

	if (len < MT_PFC_LEN || be16(f + 12) != ETH_P_PAUSE || be16(f + 14) != MT_OP_PFC)
		return -EINVAL;
	en = be16(f + 16) & 0xff;
	for (unsigned int p = 0; p < 8; p++) {
		uint64_t q = be16(f + 18 + 2 * p);

		if (!(en & (1u << p)))
			continue;
		t->frames[d][p]++;
		/* A newer frame replaces the pause running (quanta 0 ends it):
		 * what ran of the old one until now is kept. */
		if (t->until_ns[d][p] > t->start_ns[d][p] && t_ns > t->start_ns[d][p])
			t->paused_ns[d][p] += (t->until_ns[d][p] < t_ns ? t->until_ns[d][p] : t_ns) - t->start_ns[d][p];
		t->start_ns[d][p] = t_ns;
		t->until_ns[d][p] = t_ns + (uint64_t)((double)q * t->quantum_ns);
	}
	return 0;
}

uint64_t mt_rx_stamp(struct msghdr *h)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
		struct timespec ts;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS ||
		    c->cmsg_len < CMSG_LEN(sizeof(ts)))
			continue;
		memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	return 0;
}

void mt_drain(struct mt_tap *t)
{
	for (int budget = 0; t->fd >= 0 && budget < 65536; budget++) {
		uint8_t f[128];
		union {
			char b[CMSG_SPACE(sizeof(struct timespec))];
			struct cmsghdr align;
		} c;
		struct sockaddr_ll from;
		struct iovec iov = { .iov_base = f, .iov_len = sizeof(f) };
		struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
				     .msg_iovlen = 1, .msg_control = c.b, .msg_controllen = sizeof(c.b) };
		ssize_t n = recvmsg(t->fd, &mh, MSG_DONTWAIT);
		uint64_t at;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (!(at = mt_rx_stamp(&mh))) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			at = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		}
		(void)mt_frame(t, f, (size_t)n, from.sll_pkttype == PACKET_OUTGOING, at);
	}
	if (t->fd >= 0) {
		struct tpacket_stats st;
		socklen_t sl = sizeof(st);

		/* reading the statistics resets them */
		if (!getsockopt(t->fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl))
			t->drops += st.tp_drops;
	}
}

void mt_read(const struct mt_tap *t, uint64_t now_ns, uint64_t frames[2][8], uint64_t pause_us[2][8])
{
	for (unsigned int d = 0; d < 2; d++) {
		for (unsigned int p = 0; p < 8; p++) {
			uint64_t ns = t->paused_ns[d][p], s = t->start_ns[d][p], u = t->until_ns[d][p];

			if (u > s && now_ns > s)
				ns += (u < now_ns ? u : now_ns) - s;
			frames[d][p] = t->frames[d][p];
			pause_us[d][p] = ns / 1000;
		}
	}
}
