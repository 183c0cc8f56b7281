/* The monitor's PFC tap: pause time from frames (a newer frame replaces the
 * pause running, XON ends it), and live on lo in a network namespace of its own. */
#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../monitor/pfc_tap.h"

#define MS 1000000ull

/* A PFC frame (802.1Qbb) for the priorities of @en, each at @q quanta. */
static size_t pfc(uint8_t *f, unsigned int en, uint16_t q)
{
	static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

	memset(f, 0, 60);
	memcpy(f, dst, 6);
	f[6] = 0x02;
	f[11] = 0x07;
	f[12] = 0x88;
	f[13] = 0x08;
	f[14] = 0x01;
	f[15] = 0x01;
	f[17] = (uint8_t)en;
	for (unsigned int p = 0; p < 8; p++) {
		f[18 + 2 * p] = (uint8_t)(q >> 8);
		f[19 + 2 * p] = (uint8_t)q;
	}
	return 60;
}

static void tap_at(struct mt_tap *t, double gbps)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->quantum_ns = 512.0 / gbps;
}

static void test_pause_time(void **state)
{
	struct mt_tap t;
	uint8_t f[60];
	uint64_t fr[2][8], us[2][8];

	(void)state;
	/* 2.5 Gb/s (rxe's rate on virtio_net): a quantum is 204.8 ns, 65535 of
	 * them 13.42 ms */
	tap_at(&t, 2.5);
	assert_int_equal(mt_frame(&t, f, pfc(f, 1 << 3, 65535), true, 1000 * MS), 0);
	mt_read(&t, 1005 * MS, fr, us);
	assert_int_equal(fr[1][3], 1);
	assert_int_equal(us[1][3], 5000);
	assert_int_equal(fr[0][3] + fr[1][2] + us[0][3] + us[1][4], 0);
	/* refreshed at 5 ms: 5 ms kept, a new 13.42 ms from there */
	mt_frame(&t, f, pfc(f, 1 << 3, 65535), true, 1005 * MS);
	mt_read(&t, 1100 * MS, fr, us);
	assert_int_equal(fr[1][3], 2);
	assert_int_equal(us[1][3], 5000 + 13421);
	/* XON at 1200 ms: nothing more after the pause ran out */
	mt_frame(&t, f, pfc(f, 1 << 3, 0), true, 1200 * MS);
	mt_read(&t, 1300 * MS, fr, us);
	assert_int_equal(fr[1][3], 3);
	assert_int_equal(us[1][3], 5000 + 13421);
	/* XOFF then XON 2 ms later: 2 ms */
	mt_frame(&t, f, pfc(f, 1 << 3, 65535), true, 1400 * MS);
	mt_frame(&t, f, pfc(f, 1 << 3, 0), true, 1402 * MS);
	mt_read(&t, 1500 * MS, fr, us);
	assert_int_equal(us[1][3], 5000 + 13421 + 2000);
	/* received frames for 3 and 4 are their own */
	mt_frame(&t, f, pfc(f, (1 << 3) | (1 << 4), 1000), false, 1500 * MS);
	mt_read(&t, 1600 * MS, fr, us);
	assert_int_equal(fr[0][3], 1);
	assert_int_equal(fr[0][4], 1);
	assert_int_equal(us[0][4], 204); /* 1000 quanta: 204.8 us */
	assert_int_equal(us[1][3], 5000 + 13421 + 2000);
}

/* Sent every 5 ms at 65535 quanta the port never resumes: 100% of a second. */
static void test_storm(void **state)
{
	struct mt_tap t;
	uint8_t f[60];
	uint64_t fr[2][8], us[2][8];

	(void)state;
	tap_at(&t, 2.5);
	for (uint64_t ms = 0; ms < 1000; ms += 5)
		mt_frame(&t, f, pfc(f, 1 << 3, 65535), true, 5000 * MS + ms * MS);
	mt_read(&t, 6000 * MS, fr, us);
	assert_int_equal(fr[1][3], 200);
	assert_int_equal(us[1][3], 1000000);
	/* at 100 Gb/s the same frames pause 335 us of every 5 ms */
	tap_at(&t, 100);
	for (uint64_t ms = 0; ms < 1000; ms += 5)
		mt_frame(&t, f, pfc(f, 1 << 3, 65535), true, 5000 * MS + ms * MS);
	mt_read(&t, 6000 * MS, fr, us);
	assert_in_range(us[1][3], 200 * 335, 200 * 336);
}

static void test_not_pfc(void **state)
{
	struct mt_tap t;
	uint8_t f[60];
	uint64_t fr[2][8], us[2][8];

	(void)state;
	tap_at(&t, 25);
	pfc(f, 0xff, 100);
	f[15] = 0x01;
	f[14] = 0x00; /* 802.3x PAUSE: not per priority */
	assert_int_equal(mt_frame(&t, f, 60, false, MS), -EINVAL);
	pfc(f, 0xff, 100);
	f[13] = 0x00; /* IPv4 */
	assert_int_equal(mt_frame(&t, f, 60, false, MS), -EINVAL);
	assert_int_equal(mt_frame(&t, f, 20, false, MS), -EINVAL);
	pfc(f, 0, 100); /* no priority enabled */
	assert_int_equal(mt_frame(&t, f, 60, false, MS), 0);
	mt_read(&t, 10 * MS, fr, us);
	for (unsigned int p = 0; p < 8; p++)
		assert_int_equal(fr[0][p] + fr[1][p] + us[0][p] + us[1][p], 0);
	assert_int_equal(mt_open(&t, "lo", 0), -EINVAL);
	assert_int_equal(mt_open(&t, "no-such-if0", 25), -ENODEV);
	assert_int_equal(t.fd, -1);
}

/* lo in a namespace of this process's own: what a packet socket sends on it
 * the tap sees going out and coming back in; an IPv4 frame it never sees. */
static void test_live_lo(void **state)
{
	struct ifreq ifr = { 0 };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	struct mt_tap t;
	uint8_t f[60];
	uint64_t fr[2][8], us[2][8];
	int s, out;

	(void)state;
	if (unshare(CLONE_NEWNET)) {
		const char *ci = getenv("CI");

		if (ci && !strcmp(ci, "true"))
			fail_msg("unshare(CLONE_NEWNET): %s (CI runs this as root)", strerror(errno));
		skip();
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(s >= 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	assert_int_equal(ioctl(s, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags |= IFF_UP;
	assert_int_equal(ioctl(s, SIOCSIFFLAGS, &ifr), 0);
	close(s);

	assert_int_equal(mt_open(&t, "lo", 2.5), 0);
	out = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	assert_true(out >= 0);
	sll.sll_ifindex = (int)if_nametoindex("lo");
	for (int i = 0; i < 3; i++)
		assert_int_equal(sendto(out, f, pfc(f, 1 << 3, 65535), 0, (struct sockaddr *)&sll, sizeof(sll)), 60);
	pfc(f, 1 << 3, 65535);
	f[12] = 0x08;
	f[13] = 0x00;
	assert_int_equal(sendto(out, f, 60, 0, (struct sockaddr *)&sll, sizeof(sll)), 60);
	close(out);
	mt_drain(&t);
	mt_read(&t, UINT64_MAX / 2, fr, us);
	assert_int_equal(fr[1][3], 3);
	assert_int_equal(fr[0][3], 3);
	assert_int_equal(fr[1][2] + fr[0][4], 0);
	/* three refreshes within microseconds: one pause of about 13.4 ms */
	assert_in_range(us[1][3], 13421, 13421 + 1000);
	assert_int_equal(t.drops, 0);
	mt_close(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pause_time),
		cmocka_unit_test(test_storm),
		cmocka_unit_test(test_not_pfc),
		cmocka_unit_test(test_live_lo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
