/* pfc-inject IF: sends a fixed sequence of PFC and PAUSE frames on IF
 * through an AF_PACKET socket, for the rocecap fabric test. The sequence:
 * XOFF priority 3 (65535 quanta), the same again, XON priority 3, one frame
 * for priorities 3 and 4 (1000 and 2000 quanta), one PAUSE (500 quanta).
 * pfc-inject IF storm PRIO SECONDS [INTERVAL_MS]: XOFF on PRIO at 65535
 * quanta every INTERVAL_MS (default 5) for SECONDS, then one XON: a port
 * that keeps pausing its peer, for the monitor's fabric test. */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "capgen.h"

static uint8_t buf[CG_MAX];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int storm(struct sockaddr_ll *sll, char **av, int ac)
{
	uint16_t q[8] = { 0 };
	uint8_t xoff[64], xon[64];
	size_t lx, ln;
	char *e1, *e2, *e3 = NULL;
	long prio = strtol(av[0], &e1, 10);
	double secs = strtod(av[1], &e2), ms = ac > 2 ? strtod(av[2], &e3) : 5, end;
	unsigned long sent = 0;
	int fd, rc = 0;

	if (*e1 || prio < 0 || prio > 7 || *e2 || !(secs > 0 && secs <= 600) || (e3 && *e3) ||
	    !(ms >= 0.1 && ms <= 1000)) {
		fprintf(stderr, "pfc-inject: storm PRIO (0-7) SECONDS (up to 600) [INTERVAL_MS (0.1-1000)]\n");
		return 2;
	}
	q[prio] = 65535;
	lx = cg_pfc(xoff, (uint16_t)(1 << prio), q);
	q[prio] = 0;
	ln = cg_pfc(xon, (uint16_t)(1 << prio), q);
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0) {
		perror("socket(AF_PACKET)");
		return 1;
	}
	memcpy(sll->sll_addr, xoff, 6);
	end = now_s() + secs;
	while (now_s() < end) {
		if (sendto(fd, xoff, lx, 0, (struct sockaddr *)sll, sizeof(*sll)) == (ssize_t)lx)
			sent++;
		usleep((useconds_t)(ms * 1000));
	}
	if (sendto(fd, xon, ln, 0, (struct sockaddr *)sll, sizeof(*sll)) != (ssize_t)ln)
		rc = 1;
	close(fd);
	printf("%lu XOFF frames on priority %ld in %.1f s\n", sent, prio, secs);
	return sent ? rc : 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	uint16_t q[8] = { 0 };
	size_t len[5];
	uint8_t frames[5][64];
	int fd, rc = 0;

	if (argc != 2 && !(argc >= 5 && argc <= 6 && !strcmp(argv[2], "storm"))) {
		fprintf(stderr, "usage: pfc-inject IF [storm PRIO SECONDS [INTERVAL_MS]]\n");
		return 2;
	}
	sll.sll_ifindex = (int)if_nametoindex(argv[1]);
	if (!sll.sll_ifindex) {
		perror(argv[1]);
		return 1;
	}
	if (argc > 2)
		return storm(&sll, argv + 3, argc - 3);
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
