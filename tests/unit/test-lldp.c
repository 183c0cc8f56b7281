/* LLDP/DCBX decoding on frames written out byte by byte from IEEE 802.1AB
 * and 802.1Qaz, including truncated and malformed TLVs, and the
 * host-versus-switch fields of a check. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../dcb/dcb_internal.h"
#include "../../dcb/lldp.h"

/* dst 01:80:c2:00:00:0e, src 02:00:00:00:00:01, ethertype 0x88cc */
#define ETH 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x88, 0xcc
/* Chassis ID: type 1, length 7, subtype 4 (MAC) 00:11:22:33:44:55 */
#define CHASSIS 0x02, 0x07, 0x04, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55
/* Port ID: type 2, length 7, subtype 5 (interface name) "Eth1/7" */
#define PORT 0x04, 0x07, 0x05, 'E', 't', 'h', '1', '/', '7'
/* TTL: type 3, length 2, 120 s */
#define TTL 0x06, 0x02, 0x00, 0x78
/* System name: type 5, length 4 "sw01" */
#define SYSNAME 0x0a, 0x04, 's', 'w', '0', '1'
/* ETS configuration: type 127, length 25; OUI 00-80-C2 subtype 9; willing,
 * max TCs 8 (0); priorities 0-7 on TCs 0 0 0 3 0 0 6 0; TC bandwidth; TSA. */
#define ETS_CFG 0xfe, 0x19, 0x00, 0x80, 0xc2, 0x09, 0x80, 0x00, 0x03, 0x00, 0x60, \
	50, 0, 0, 50, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 0, 2
/* ETS recommendation: subtype 10, reserved byte, same tables. */
#define ETS_RECO 0xfe, 0x19, 0x00, 0x80, 0xc2, 0x0a, 0x00, 0x00, 0x03, 0x00, 0x60, \
	40, 0, 0, 60, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 0, 2
/* PFC configuration: length 6, subtype 11, not willing, MBC off, cap 8, PFC on 3. */
#define PFC 0xfe, 0x06, 0x00, 0x80, 0xc2, 0x0b, 0x08, 0x08
/* APP priority: length 11, subtype 12, reserved, DSCP 26 -> 3, DSCP 48 -> 6. */
#define APP 0xfe, 0x0b, 0x00, 0x80, 0xc2, 0x0c, 0x00, 0x65, 0x00, 0x1a, 0xc5, 0x00, 0x30
#define END 0x00, 0x00

static void test_full(void **state)
{
	static const uint8_t f[] = { ETH, CHASSIS, PORT, TTL, SYSNAME, ETS_CFG, ETS_RECO, PFC, APP, END };
	struct rck_lldp *l;
	unsigned int sub;
	uint8_t en, cap, tc, bw, tsa, sel, prio;
	uint16_t proto;
	bool willing, mbc;

	(void)state;
	assert_int_equal(rck_lldp_decode(f, sizeof(f), &l), 0);
	assert_string_equal(rck_lldp_chassis_id(l, &sub), "00:11:22:33:44:55");
	assert_int_equal(sub, 4);
	assert_string_equal(rck_lldp_port_id(l, &sub), "Eth1/7");
	assert_int_equal(sub, 5);
	assert_string_equal(rck_lldp_system_name(l), "sw01");
	assert_null(rck_lldp_port_description(l));
	assert_int_equal(l->ttl, 120);
	assert_int_equal(rck_lldp_pfc(l, &en, &cap, &willing, &mbc), 0);
	assert_int_equal(en, 0x08);
	assert_int_equal(cap, 8);
	assert_false(willing);
	assert_false(mbc);
	assert_true(l->ets.willing);
	assert_int_equal(l->ets.max_tcs, 8);
	assert_int_equal(rck_lldp_ets(l, false, 3, &tc, &bw, &tsa), 0);
	assert_int_equal(tc, 3);
	assert_int_equal(bw, 50);
	assert_int_equal(tsa, 2);
	assert_int_equal(rck_lldp_ets(l, false, 6, &tc, NULL, &tsa), 0);
	assert_int_equal(tc, 6);
	assert_int_equal(rck_lldp_ets(l, false, 6, NULL, NULL, &tsa), 0);
	assert_int_equal(tsa, 0);
	assert_int_equal(rck_lldp_ets(l, true, 0, NULL, &bw, NULL), 0);
	assert_int_equal(bw, 40);
	assert_int_equal(rck_lldp_ets(l, true, 8, NULL, &bw, NULL), -EINVAL);
	assert_int_equal(rck_lldp_app_count(l), 2);
	assert_int_equal(rck_lldp_app(l, 0, &sel, &proto, &prio), 0);
	assert_int_equal(sel, 5);
	assert_int_equal(proto, 26);
	assert_int_equal(prio, 3);
	assert_int_equal(rck_lldp_app(l, 1, &sel, &proto, &prio), 0);
	assert_int_equal(proto, 48);
	assert_int_equal(prio, 6);
	assert_int_equal(rck_lldp_warning_count(l), 0);
	rck_lldp_free(l);
}

/* The text names subtypes as lldpctl does and prints arrays with their
 * indices as `dcb` does; JSON keeps the subtype number beside its name. */
static void test_words(void **state)
{
	static const uint8_t f[] = { ETH, CHASSIS, PORT, TTL, SYSNAME, ETS_CFG, ETS_RECO, PFC, APP, END };
	struct rck_lldp *l;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	assert_int_equal(rck_lldp_decode(f, sizeof(f), &l), 0);
	out = open_memstream(&buf, &len);
	assert_int_equal(rck_lldp_write(l, "eth0", RCK_FORMAT_TEXT, out), 0);
	fclose(out);
	assert_non_null(strstr(buf, "\n  chassis  mac 00:11:22:33:44:55\n"));
	assert_non_null(strstr(buf, "\n  port     ifname Eth1/7\n"));
	assert_non_null(strstr(buf, "enabled 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off "));
	assert_non_null(strstr(buf, "prio_tc     0:0 1:0 2:0 3:3 4:0 5:0 6:6 7:0\n"));
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	assert_int_equal(rck_lldp_write(l, "eth0", RCK_FORMAT_JSON, out), 0);
	fclose(out);
	assert_non_null(strstr(buf, "\"chassis_id\":{\"subtype\":4,\"type\":\"mac\",\"id\":\"00:11:22:33:44:55\"}"));
	assert_non_null(strstr(buf, "\"enabled\":[3]"));
	free(buf);
	rck_lldp_free(l);
}

/* A VLAN tag, no DCBX TLVs, no End TLV: decoded, one warning. */
static void test_minimal_tagged(void **state)
{
	static const uint8_t f[] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e, 0x02, 0, 0, 0, 0, 2,
				     0x81, 0x00, 0x00, 0x05, 0x88, 0xcc, CHASSIS, PORT, TTL };
	struct rck_lldp *l;

	(void)state;
	assert_int_equal(rck_lldp_decode(f, sizeof(f), &l), 0);
	assert_int_equal(rck_lldp_pfc(l, NULL, NULL, NULL, NULL), -ENOENT);
	assert_int_equal(rck_lldp_ets(l, false, 0, NULL, NULL, NULL), -ENOENT);
	assert_int_equal(rck_lldp_app_count(l), 0);
	assert_int_equal(rck_lldp_warning_count(l), 1);
	assert_string_equal(rck_lldp_warning(l, 0), "no End of LLDPDU TLV");
	assert_null(rck_lldp_warning(l, 1));
	rck_lldp_free(l);
}

static void test_refused(void **state)
{
	static const uint8_t not_lldp[] = { 0x01, 0x80, 0xc2, 0, 0, 0x0e, 2, 0, 0, 0, 0, 1, 0x08, 0x00,
					    CHASSIS, PORT, TTL, END };
	static const uint8_t no_port[] = { ETH, CHASSIS, TTL, END };
	static const uint8_t only_end[] = { ETH, END };
	static const uint8_t short_chassis[] = { ETH, 0x02, 0x01, 0x04, PORT, TTL, END };
	static const uint8_t short_ttl[] = { ETH, CHASSIS, PORT, 0x06, 0x01, 0x00, END };
	/* The port ID TLV says 7 bytes, the frame ends after 3 of them. */
	static const uint8_t cut[] = { ETH, CHASSIS, 0x04, 0x07, 0x05, 'E', 't' };
	static const uint8_t *frames[] = { not_lldp, no_port, only_end, short_chassis, short_ttl, cut };
	static const size_t lens[] = { sizeof(not_lldp), sizeof(no_port), sizeof(only_end),
				       sizeof(short_chassis), sizeof(short_ttl), sizeof(cut) };
	struct rck_lldp *l;

	(void)state;
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		if (rck_lldp_decode(frames[i], lens[i], &l) != -EBADMSG)
			fail_msg("frame %zu was not refused", i);
		assert_null(l);
	}
	assert_int_equal(rck_lldp_decode(not_lldp, 13, &l), -EBADMSG);
	assert_int_equal(rck_lldp_decode(not_lldp, 0, &l), -EBADMSG);
}

/* Malformed optional TLVs are skipped with a warning; the rest is kept. */
static void test_malformed_optional(void **state)
{
	static const uint8_t f[] = {
		ETH, CHASSIS, PORT, TTL,
		/* ETS configuration one byte short (length 24) */
		0xfe, 0x18, 0x00, 0x80, 0xc2, 0x09, 0x80, 0, 0, 0, 0, 50, 0, 0, 50, 0, 0, 0, 0,
		2, 2, 2, 2, 2, 2, 0,
		/* PFC with an extra byte (length 7) */
		0xfe, 0x07, 0x00, 0x80, 0xc2, 0x0b, 0x08, 0x08, 0x00,
		/* APP with half an entry (length 7) */
		0xfe, 0x07, 0x00, 0x80, 0xc2, 0x0c, 0x00, 0x65, 0x00,
		/* Organisation TLV too short for its OUI */
		0xfe, 0x02, 0x00, 0x80,
		/* Another organisation's TLV: ignored silently */
		0xfe, 0x05, 0x00, 0x12, 0x0f, 0x01, 0x03,
		/* ETS recommendation, well formed, TC 9 for priority 0 */
		0xfe, 0x19, 0x00, 0x80, 0xc2, 0x0a, 0x00, 0x90, 0x00, 0x00, 0x00,
		100, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2,
		/* A TLV whose length runs past the end */
		0x0a, 0x40, 's', 'w',
	};
	struct rck_lldp *l;

	(void)state;
	assert_int_equal(rck_lldp_decode(f, sizeof(f), &l), 0);
	assert_int_equal(rck_lldp_ets(l, false, 0, NULL, NULL, NULL), -ENOENT);
	assert_int_equal(rck_lldp_pfc(l, NULL, NULL, NULL, NULL), -ENOENT);
	assert_int_equal(rck_lldp_app_count(l), 0);
	assert_int_equal(rck_lldp_ets(l, true, 1, NULL, NULL, NULL), 0);
	assert_int_equal(rck_lldp_warning_count(l), 7);
	assert_string_equal(rck_lldp_warning(l, 0), "ETS configuration TLV of 24 bytes (21 expected)");
	assert_string_equal(rck_lldp_warning(l, 1), "PFC TLV of 7 bytes (6 expected)");
	assert_string_equal(rck_lldp_warning(l, 2), "APP TLV of 7 bytes (5 + 3 per entry expected)");
	assert_string_equal(rck_lldp_warning(l, 3), "organisation TLV of 2 bytes (at least 4)");
	assert_string_equal(rck_lldp_warning(l, 4), "ETS: priority 0 on traffic class 9 (0-7)");
	assert_string_equal(rck_lldp_warning(l, 5), "TLV type 5 of 64 bytes runs past the frame's end");
	assert_string_equal(rck_lldp_warning(l, 6), "no End of LLDPDU TLV");
	rck_lldp_free(l);
}

/* Host with PFC on 3 and DSCP 26:3 48:6 against a switch with PFC on 3,4,
 * DSCP 26:3 only, and willing. */
/* lldpad's answers as its socket sends them (recorded from lldpad 1.1 in a
 * namespace; the PFC TLV added by hand, as lldpad relays it from a DCB
 * port): statuses and the hex TLVs decoded. */
static void test_lldpad_answer(void **state)
{
	static const char hdr[] = "R00C3010000000202dB0000007f";
	static const char tlvs[] = "02070412b9bec12fc004070312b9bec12fc006020078"
				   "fe060080c20b08080000";
	char rsp[256];
	struct rck_lldp *l = NULL;
	uint8_t en, cap;
	bool willing, mbc;

	(void)state;
	snprintf(rsp, sizeof(rsp), "%s%s", hdr, tlvs);
	assert_int_equal(dcb_lldpad_parse(rsp, strlen(rsp), "dB", &l), 0);
	assert_string_equal(rck_lldp_chassis_id(l, NULL), "12:b9:be:c1:2f:c0");
	assert_int_equal(rck_lldp_pfc(l, &en, &cap, &willing, &mbc), 0);
	assert_int_equal(en, 0x08);
	assert_int_equal(cap, 8);
	rck_lldp_free(l);
	/* Another interface's answer, no neighbor, statuses, odd hex. */
	assert_int_equal(dcb_lldpad_parse(rsp, strlen(rsp), "dA", &l), -EBADMSG);
	assert_int_equal(dcb_lldpad_parse(hdr, strlen(hdr), "dB", &l), -ENODATA);
	assert_int_equal(dcb_lldpad_parse("R02C3010000000206nosuch", 23, "nosuch", &l), -ENODEV);
	assert_int_equal(dcb_lldpad_parse("R06", 3, "dB", &l), -ENODATA);
	assert_int_equal(dcb_lldpad_parse("R01", 3, "dB", &l), -EIO);
	assert_int_equal(dcb_lldpad_parse(rsp, strlen(rsp) - 1, "dB", &l), -EBADMSG);
	assert_int_equal(dcb_lldpad_parse("E00", 3, "dB", &l), -EBADMSG);
	rsp[strlen(hdr) + 3] = 'x';
	assert_int_equal(dcb_lldpad_parse(rsp, strlen(rsp), "dB", &l), -EBADMSG);
	assert_null(l);
}

static void test_peer_check(void **state)
{
	static const uint8_t f[] = { ETH, CHASSIS, PORT, TTL,
				     0xfe, 0x06, 0x00, 0x80, 0xc2, 0x0b, 0x88, 0x18,
				     0xfe, 0x08, 0x00, 0x80, 0xc2, 0x0c, 0x00, 0x65, 0x00, 0x1a, END };
	struct rck_dcb *h = dcb_alloc("eth0");
	struct rck_dcb_profile *p;
	struct rck_dcb_diff *d;
	struct rck_lldp *l;
	const char *field, *want, *have;
	size_t n, bad;
	bool match;

	(void)state;
	h->err[RCK_DCB_PFC] = h->err[RCK_DCB_APP] = 0;
	h->pfc.pfc_en = 0x08;
	dcb_app_push(h, RCK_DCB_SEL_DSCP, 26, 3);
	dcb_app_push(h, RCK_DCB_SEL_DSCP, 48, 6);
	dcb_derive_trust(h);
	assert_int_equal(rck_lldp_decode(f, sizeof(f), &l), 0);
	assert_int_equal(rck_dcb_profile_parse("name = p\n", 9, "p", NULL, 0, &p), 0);
	assert_int_equal(rck_dcb_check(p, h, &d), 0);
	assert_int_equal(rck_dcb_diff_add_peer(d, NULL, h, l), 0);
	n = rck_dcb_diff_count(d, &bad);
	assert_int_equal(n, 4);
	assert_int_equal(bad, 3);
	rck_dcb_diff_field(d, 0, &field, &want, &have, &match);
	assert_string_equal(field, "peer.pfc.enabled");
	assert_string_equal(want, "3");
	assert_string_equal(have, "3,4");
	rck_dcb_diff_field(d, 1, &field, &want, &have, &match);
	assert_string_equal(field, "peer.willing");
	assert_string_equal(have, "switch willing");
	rck_dcb_diff_field(d, 2, &field, &want, &have, &match);
	assert_string_equal(field, "peer.app.dscp.26");
	assert_true(match);
	rck_dcb_diff_field(d, 3, &field, &want, &have, &match);
	assert_string_equal(field, "peer.app.dscp.48");
	assert_string_equal(want, "6");
	assert_string_equal(have, "none");
	/* No LLDP heard at all: one field says so. */
	assert_int_equal(rck_dcb_diff_add_peer(d, NULL, h, NULL), 0);
	rck_dcb_diff_field(d, 4, &field, &want, &have, &match);
	assert_string_equal(have, "no LLDP from the link partner");
	rck_dcb_diff_free(d);
	/* A host without dcbnl: the switch is held to the profile instead. */
	rck_dcb_free(h);
	h = dcb_alloc("eth1");
	dcb_derive_trust(h);
	rck_dcb_profile_free(p);
	assert_int_equal(rck_dcb_profile_load("roce-lossless", NULL, 0, &p), 0);
	assert_int_equal(rck_dcb_check(p, h, &d), 0);
	n = rck_dcb_diff_count(d, NULL);
	assert_int_equal(rck_dcb_diff_add_peer(d, p, h, l), 0);
	rck_dcb_diff_field(d, n, &field, &want, &have, NULL);
	assert_string_equal(field, "peer.pfc.enabled");
	assert_string_equal(want, "3");
	assert_string_equal(have, "3,4");
	rck_dcb_diff_field(d, n + 3, &field, &want, &have, NULL);
	assert_string_equal(field, "peer.app.dscp.48");
	assert_string_equal(want, "6");
	assert_int_equal(rck_dcb_diff_count(d, NULL), n + 4);
	rck_dcb_diff_free(d);
	rck_dcb_profile_free(p);
	rck_lldp_free(l);
	rck_dcb_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_minimal_tagged),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_malformed_optional),
		cmocka_unit_test(test_peer_check),
		cmocka_unit_test(test_lldpad_answer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
