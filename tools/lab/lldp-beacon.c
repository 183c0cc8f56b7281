/* rocelab's switch ports: every INTERVAL_MS, sends each frame file of DIR on
 * the interface the file is named after; ends when DIR goes away.
 * usage: lldp-beacon DIR INTERVAL_MS (rocelab runs it in the lab's namespace, and
 * in a guest for `impair pfc=`) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FRAME_MAX 1518

/* One file's frame out of its interface; a missing interface (a tap being
 * moved, a guest gone) is skipped quietly until it is back. */
static void send_file(int sock, int dfd, const char *name)
{
	unsigned char frame[FRAME_MAX];
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = ETH_ALEN };
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return;
	len = read(fd, frame, sizeof(frame));
	close(fd);
	sll.sll_ifindex = (int)if_nametoindex(name);
	if (len < ETH_HLEN || !sll.sll_ifindex)
		return;
	memcpy(sll.sll_addr, frame, ETH_ALEN);
	/* ENETDOWN while rocelab holds a port down: nothing to say. */
	sendto(sock, frame, (size_t)len, 0, (struct sockaddr *)&sll, sizeof(sll));
}

int main(int argc, char **argv)
{
	long ms;
	int sock;

	if (argc != 3 || (ms = strtol(argv[2], NULL, 10)) < 1 || ms > 60000) {
		fprintf(stderr, "usage: lldp-beacon DIR INTERVAL_MS (1..60000)\n");
		return 2;
	}
	sock = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (sock < 0) {
		perror("lldp-beacon: socket(AF_PACKET)");
		return 1;
	}
	for (;;) {
		struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
		DIR *d = opendir(argv[1]);
		struct dirent *e;

		if (!d) {
			if (errno == ENOENT)
				return 0; /* the lab is down */
			perror(argv[1]);
			return 1;
		}
		while ((e = readdir(d)))
			if (e->d_name[0] != '.' && strlen(e->d_name) < IFNAMSIZ)
				send_file(sock, dirfd(d), e->d_name);
		closedir(d);
		nanosleep(&ts, NULL);
	}
}
