/* pfc-inject IF: sends a fixed sequence of PFC and PAUSE frames on IF
 * through an AF_PACKET socket, for the rocecap fabric test. The sequence:
 * XOFF priority 3 (65535 quanta), the same again, XON priority 3, one frame
 * for priorities 3 and 4 (1000 and 2000 quanta), one PAUSE (500 quanta). */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "capgen.h"

static uint8_t buf[CG_MAX];

int main(int argc, char **argv)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	uint16_t q[8] = { 0 };
	size_t len[5];
	uint8_t frames[5][64];
	int fd, rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: pfc-inject IF\n");
		return 2;
	}
	sll.sll_ifindex = (int)if_nametoindex(argv[1]);
	if (!sll.sll_ifindex) {
		perror(argv[1]);
		return 1;
	}
	q[3] = 65535;
	len[0] = cg_pfc(frames[0], 1 << 3, q);
	len[1] = cg_pfc(frames[1], 1 << 3, q);
	q[3] = 0;
	len[2] = cg_pfc(frames[2], 1 << 3, q);
	q[3] = 1000;
	q[4] = 2000;
	len[3] = cg_pfc(frames[3], 1 << 3 | 1 << 4, q);
	len[4] = cg_pause(frames[4], 500);
	(void)buf;
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0) {
		perror("socket(AF_PACKET)");
		return 1;
	}
	memcpy(sll.sll_addr, frames[0], 6);
	for (int i = 0; i < 5; i++) {
		if (sendto(fd, frames[i], len[i], 0, (struct sockaddr *)&sll, sizeof(sll)) != (ssize_t)len[i]) {
			perror("sendto");
			rc = 1;
		}
		usleep(20000);
	}
	close(fd);
	return rc;
}
