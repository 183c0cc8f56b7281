/* Test helper for the fabric: sends one Ethernet frame, read whole from
 * standard input, COUNT times on IF through an AF_PACKET socket.
 * usage: lldp-send IF COUNT INTERVAL_MS < frame.bin */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned char frame[9216];
	struct sockaddr_ll sll;
	long count, ms;
	size_t len;
	int fd;

	if (argc != 4 || (count = strtol(argv[2], NULL, 10)) < 1 || count > 100000 ||
	    (ms = strtol(argv[3], NULL, 10)) < 0 || ms > 60000) {
		fprintf(stderr, "usage: lldp-send IF COUNT INTERVAL_MS < frame\n");
		return 2;
	}
	len = fread(frame, 1, sizeof(frame), stdin);
	if (len < ETH_HLEN) {
		fprintf(stderr, "lldp-send: frame of %zu bytes is too short\n", len);
		return 2;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)if_nametoindex(argv[1]);
	sll.sll_halen = ETH_ALEN;
	memcpy(sll.sll_addr, frame, ETH_ALEN);
	if (!sll.sll_ifindex) {
		perror(argv[1]);
		return 1;
	}
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("socket(AF_PACKET)");
		return 1;
	}
	for (long i = 0; i < count; i++) {
		struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

		if (sendto(fd, frame, len, 0, (struct sockaddr *)&sll, sizeof(sll)) != (ssize_t)len) {
			perror("sendto");
			return 1;
		}
		if (i + 1 < count)
			nanosleep(&ts, NULL);
	}
	close(fd);
	return 0;
}
