/* Unit tests of the monitor's pure parts: pinglists, probe windows, K-of-N
 * hysteresis, and the 1 s rules on recorded series (tests/fixtures/monitor/). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../monitor/monitor_int.h"

/* ---- pinglists ---- */

static void test_pinglist_parse(void **state)
{
	static const char text[] = "# peers\n"
				   "h1/mlx5_0 10.0.0.1 rate=10 leaf=L1\n"
				   "  h2/mlx5_0\t10.0.0.2:7000   # a comment\n"
				   "\n"
				   "h3 [fe80::1]:18515 leaf=L2 rate=0.5\r\n"
				   "h4 ::1\n";
	struct rck_pinglist *pl = NULL;
	const char *name, *addr, *leaf;
	char err[256] = "";
	double rate;

	(void)state;
	assert_int_equal(rck_pinglist_parse(text, strlen(text), "t", &pl, err, sizeof(err)), 0);
	assert_int_equal(rck_pinglist_count(pl), 4);
	assert_true(rck_pinglist_peer(pl, 0, &name, &addr, &rate, &leaf));
	assert_string_equal(name, "h1/mlx5_0");
	assert_string_equal(leaf, "L1");
	assert_true(rate == 10);
	assert_true(rck_pinglist_peer(pl, 1, &name, &addr, &rate, &leaf));
	assert_string_equal(addr, "10.0.0.2:7000");
	assert_null(leaf);
	assert_true(rate == RCK_PINGLIST_OTHER_HZ);
	assert_true(rck_pinglist_peer(pl, 2, NULL, &addr, &rate, &leaf));
	assert_string_equal(addr, "[fe80::1]:18515");
	assert_true(rate == 0.5);
	assert_false(rck_pinglist_peer(pl, 4, NULL, NULL, NULL, NULL));
	rck_pinglist_free(pl);
}

static void test_pinglist_bad(void **state)
{
	static const struct { const char *text, *msg; } cases[] = {
		{"h1\n", "t:1: a peer needs NAME and ADDRESS"},
		{"h1 10.0.0.1\nh1 10.0.0.2\n", "t:2: peer listed twice"},
		{"h1 10.0.0.300\n", "t:1: bad address"},
		{"h1 10.0.0.1:0\n", "t:1: bad address"},
		{"h1 10.0.0.1:65536\n", "t:1: bad address"},
		{"h1 10.0.0.1 rate=0\n", "t:1: rate must be"},
		{"h1 10.0.0.1 rate=1e9\n", "t:1: rate must be"},
		{"h1 10.0.0.1 rate=nan\n", "t:1: rate must be"},
		{"h1 10.0.0.1 rate=1 rate=2\n", "t:1: unknown or repeated"},
		{"h1 10.0.0.1 color=red\n", "t:1: unknown or repeated"},
		{"h\"1 10.0.0.1\n", "t:1: bad peer name"},
		{"h1 10.0.0.1 a b c\n", "t:1: too many fields"},
		{"h1 10.0.0.1 leaf=\n", "t:1: bad leaf"},
		{"\n\nh1 [::1\n", "t:3: bad address"},
	};
	struct rck_pinglist *pl = NULL;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = 0;
		assert_int_equal(rck_pinglist_parse(cases[i].text, strlen(cases[i].text), "t", &pl, err,
						    sizeof(err)), -EINVAL);
		if (strncmp(err, cases[i].msg, strlen(cases[i].msg)))
			fail_msg("case %zu: '%s' does not start with '%s'", i, err, cases[i].msg);
		assert_null(strchr(err, '\n'));
	}
	/* a NUL inside, a line too long */
	assert_int_equal(rck_pinglist_parse("h1 1.2.3.4\0\n", 12, "t", &pl, err, sizeof(err)), -EINVAL);
	{
		char big[2000];

		memset(big, 'a', sizeof(big));
		assert_int_equal(rck_pinglist_parse(big, sizeof(big), "t", &pl, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "longer than"));
	}
	assert_int_equal(rck_pinglist_load("/nonexistent/pl", &pl, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/pl"));
}

static void test_pinglist_build(void **state)
{
	struct rck_pinglist *hosts = NULL, *pl = NULL;
	unsigned int seen[16] = {0};
	char name[32], addr[32];
	double rate;
	const char *n;

	(void)state;
	assert_int_equal(rck_pinglist_new(&hosts), 0);
	/* 4 hosts under L0 (self h0 among them), 12 under L1..L3 */
	for (unsigned int i = 0; i < 16; i++) {
		char leaf[8];

		snprintf(name, sizeof(name), "h%u", i);
		snprintf(addr, sizeof(addr), "10.0.%u.%u", i / 4, i);
		snprintf(leaf, sizeof(leaf), "L%u", i / 4);
		assert_int_equal(rck_pinglist_add(hosts, name, addr, 1, leaf), 0);
	}
	assert_int_equal(rck_pinglist_build(hosts, "nope", 10, 1, 4, 0, &pl), -ENOENT);
	/* three rounds of 4 cover the 12 other-leaf peers exactly once */
	for (unsigned int round = 0; round < 3; round++) {
		unsigned int same = 0, other = 0;

		assert_int_equal(rck_pinglist_build(hosts, "h0", RCK_PINGLIST_LEAF_HZ, RCK_PINGLIST_OTHER_HZ,
						    4, round, &pl), 0);
		assert_int_equal(rck_pinglist_count(pl), 7);
		for (unsigned int i = 0; rck_pinglist_peer(pl, i, &n, NULL, &rate, NULL); i++) {
			unsigned int h = (unsigned int)atoi(n + 1);

			assert_string_not_equal(n, "h0");
			if (h < 4) {
				assert_true(rate == 10);
				same++;
			} else {
				assert_true(rate == 1);
				seen[h]++;
				other++;
			}
		}
		assert_int_equal(same, 3);
		assert_int_equal(other, 4);
		rck_pinglist_free(pl);
	}
	for (unsigned int h = 4; h < 16; h++)
		assert_int_equal(seen[h], 1);
	rck_pinglist_free(hosts);
	/* without leaves: a sample of everyone else */
	assert_int_equal(rck_pinglist_new(&hosts), 0);
	for (unsigned int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "h%u", i);
		snprintf(addr, sizeof(addr), "10.0.0.%u", i + 1);
		assert_int_equal(rck_pinglist_add(hosts, name, addr, 1, NULL), 0);
	}
	assert_int_equal(rck_pinglist_build(hosts, "h2", 10, 1, 3, 1, &pl), 0);
	assert_int_equal(rck_pinglist_count(pl), 3);
	for (unsigned int i = 0; rck_pinglist_peer(pl, i, &n, NULL, &rate, NULL); i++) {
		assert_string_not_equal(n, "h2");
		assert_true(rate == 1);
	}
	rck_pinglist_free(pl);
	/* a sample larger than the others: all of them */
	assert_int_equal(rck_pinglist_build(hosts, "h0", 10, 1, 100, 7, &pl), 0);
	assert_int_equal(rck_pinglist_count(pl), 4);
	rck_pinglist_free(pl);
	rck_pinglist_free(hosts);
}

static void test_pinglist_roundtrip(void **state)
{
	static const char text[] = "a 1.2.3.4 rate=0.3 leaf=x\nb [::1]:9 rate=10\n";
	struct rck_pinglist *pl = NULL, *back = NULL;
	char *buf = NULL, err[128];
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(rck_pinglist_parse(text, strlen(text), "t", &pl, err, sizeof(err)), 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(rck_pinglist_write(pl, f), 0);
	fclose(f);
	assert_int_equal(rck_pinglist_parse(buf, len, "t", &back, err, sizeof(err)), 0);
	assert_int_equal(rck_pinglist_count(back), 2);
	for (unsigned int i = 0; i < 2; i++) {
		const char *n1, *n2, *a1, *a2, *l1, *l2;
		double r1, r2;

		rck_pinglist_peer(pl, i, &n1, &a1, &r1, &l1);
		rck_pinglist_peer(back, i, &n2, &a2, &r2, &l2);
		assert_string_equal(n1, n2);
		assert_string_equal(a1, a2);
		assert_true(r1 == r2);
		assert_true((!l1 && !l2) || !strcmp(l1, l2));
	}
	free(buf);
	rck_pinglist_free(pl);
	rck_pinglist_free(back);
}

/* ---- windows ---- */

static void test_window_stats(void **state)
{
	struct mw_peer *w = calloc(1, sizeof(*w));
	struct mw_stats s;

	(void)state;
	mw_stats(w, &s);
	assert_int_equal(s.sent, 0);
	assert_true(isnan(s.p50_us) && isnan(s.p99_us) && s.loss == 0);
	/* 100 probes, RTT 1..99 us and one of 1000 us, 2 lost */
	for (unsigned int i = 1; i <= 102; i++) {
		mw_sent(w);
		if (i > 100)
			mw_lost(w);
		else
			mw_rtt(w, i == 100 ? 1000 : i);
	}
	mw_stats(w, &s);
	assert_int_equal(s.sent, 102);
	assert_int_equal(s.lost, 2);
	assert_int_equal(s.samples, 100);
	assert_true(fabs(s.loss - 2.0 / 102) < 1e-12);
	assert_true(s.p50_us == 50);
	assert_true(s.p99_us == 99);
	mw_rtt(w, NAN);
	mw_rtt(w, -1);
	assert_int_equal(w->n_rtt, 100);
	/* the cap: probes still count, RTTs stop */
	mw_reset(w);
	for (unsigned int i = 0; i < MW_RTT_CAP + 10; i++) {
		mw_sent(w);
		mw_rtt(w, 5);
	}
	mw_stats(w, &s);
	assert_int_equal(s.sent, MW_RTT_CAP + 10);
	assert_int_equal(s.samples, MW_RTT_CAP);
	free(w);
}

/* ---- hysteresis ---- */

static int window(struct mh *h, bool present, bool immediate, bool *counts)
{
	struct mf_list l = { 0 };
	unsigned int ch[8];
	int n;

	if (present) {
		struct mf *f = mf_add(&l, "probe_loss", RCK_SEVERITY_DEGRADED, "udp", 1, "h2", "x");

		assert_non_null(f);
		f->immediate = immediate;
	}
	n = mh_window(h, &l, ch, 8);
	assert_true(n >= 0);
	*counts = false;
	for (unsigned int i = 0; i < h->cnt; i++)
		*counts |= h->v[i].counts;
	mf_list_free(&l);
	return n;
}

static void test_hold(void **state)
{
	struct mh h;
	bool c;

	(void)state;
	mh_init(&h, 2, 3);
	/* one dip is not a page */
	assert_int_equal(window(&h, true, false, &c), 0);
	assert_false(c);
	assert_int_equal(window(&h, false, false, &c), 0);
	assert_false(c);
	assert_int_equal(window(&h, false, false, &c), 0);
	assert_false(c);
	/* K of N: present 2 of the last 3 */
	window(&h, true, false, &c);
	assert_false(c);
	window(&h, false, false, &c);
	assert_false(c);
	assert_int_equal(window(&h, true, false, &c), 1);
	assert_true(c);
	/* last three 0,1,0 after one more absence: absent in 2 of 3, cleared */
	assert_int_equal(window(&h, false, false, &c), 1);
	assert_false(c);
	/* present twice running counts; one absence keeps it, two clear it */
	window(&h, false, false, &c);
	window(&h, false, false, &c);
	window(&h, true, false, &c);
	assert_false(c);
	assert_int_equal(window(&h, true, false, &c), 1);
	assert_true(c);
	window(&h, false, false, &c);
	assert_true(c);
	assert_int_equal(window(&h, false, false, &c), 1);
	assert_false(c);
	/* forgotten after N absent windows */
	window(&h, false, false, &c);
	window(&h, false, false, &c);
	assert_int_equal(h.cnt, 0);
	/* immediate: counts at once, held while the window holds it */
	assert_int_equal(window(&h, true, true, &c), 1);
	assert_true(c);
	window(&h, false, false, &c);
	assert_true(c);
	window(&h, false, false, &c);
	assert_false(c);
	mh_free(&h);
}

/* ---- rules on recorded series ---- */

struct series_port {
	char dev[MF_STR];
	unsigned int port;
	struct ms_sample s;
	struct mr_port p;
	char gid[64], map[64];
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h | 1;
}

static void set_key(struct series_port *sp, const char *k, const char *v)
{
	struct ms_sample *s = &sp->s;
	char name[64];
	const char *dot = strchr(k, '.');
	int prio = -1;

	if (!strcmp(k, "link_up"))
		s->link_up = atoi(v);
	else if (!strcmp(k, "carrier_changes") || !strcmp(k, "slow_restart")) {
		enum ms_extra e = k[0] == 'c' ? MS_CARRIER_CHANGES : MS_SLOW_RESTART;

		s->extra[e] = strtoull(v, NULL, 10);
		s->has_extra[e] = 1;
	} else if (!strcmp(k, "gid_table"))
		s->st.gid_hash = !strcmp(v, "EMPTY") ? hash("") : hash(v);
	else if (!strcmp(k, "gid_index"))
		s->st.gid_index = atoi(v);
	else if (!strcmp(k, "dscp_trust"))
		s->st.dscp_trust = atoi(v);
	else if (!strcmp(k, "pfc"))
		s->st.pfc_mask = atoi(v);
	else if (!strcmp(k, "dscp_map"))
		s->st.dscp_map_hash = hash(v);
	else {
		snprintf(name, sizeof(name), "%.*s", dot ? (int)(dot - k) : (int)strlen(k), k);
		if (dot)
			prio = atoi(dot + 1);
		for (unsigned int id = 0; id < RCK_CTR_COUNT; id++) {
			int p;
			const char *n = rck_counter_name((enum rck_counter)id, &p);

			if (n && !strcmp(n, name) && p == prio) {
				s->ctr[id] = strtoull(v, NULL, 10);
				s->has[id] = 1;
				return;
			}
		}
		fail_msg("unknown key %s", k);
	}
}

/* Replay @file: every poll of a second through mr_poll(), then the storm
 * attribution; findings of each second through a 2-of-3 hold. Returns the
 * findings that ever counted, as "code device/port peer" lines. */
static char *replay(const char *file, struct series_port *ports, unsigned int *n_ports,
		    unsigned int *first_second)
{
	char path[4096], line[1024], *out = NULL;
	size_t out_len = 0;
	const char *fix = getenv("ROCECHECK_FIXTURES");
	FILE *f, *o = open_memstream(&out, &out_len);
	struct mf_list now = { 0 };
	struct mr_th th;
	struct mh h;
	long sec = -1;

	assert_non_null(fix);
	snprintf(path, sizeof(path), "%s/monitor/%s", fix, file);
	f = fopen(path, "r");
	assert_non_null(f);
	mr_th_from(&th, NULL);
	mh_init(&h, 2, 3);
	*n_ports = 0;
	*first_second = 0;
	for (int more = 1; more;) {
		long t = -1;
		char *tok, *save = NULL;
		struct series_port *sp = NULL;

		more = fgets(line, sizeof(line), f) != NULL;
		if (more) {
			char *hash_ = strchr(line, '#');

			if (hash_)
				*hash_ = 0;
			if (!(tok = strtok_r(line, " \t\n", &save)))
				continue;
			t = atol(tok);
		}
		/* a new second: close the previous one */
		if (sec >= 0 && t != sec) {
			struct mr_pause pv[8];
			unsigned int ch[64];
			int n;

			for (unsigned int i = 0; i < *n_ports; i++) {
				ports[i].s.t_ns = (uint64_t)sec * 1000000000ull;
				mr_poll(&ports[i].p, &ports[i].s, &th, &now);
				pv[i] = (struct mr_pause){ .host = "h1", .device = ports[i].p.device,
							   .port = ports[i].p.port, .tx_frac = ports[i].p.tx_frac,
							   .rx_frac = ports[i].p.rx_frac, .prio = ports[i].p.tx_prio };
			}
			mr_storms(pv, *n_ports, th.pause_fraction, &now);
			n = mh_window(&h, &now, ch, 64);
			assert_true(n >= 0);
			for (int i = 0; i < n; i++) {
				const struct mf *x = &h.v[ch[i]].last;

				if (!h.v[ch[i]].counts)
					continue;
				fprintf(o, "%s %s/%u %s|%s\n", x->code, x->device, x->port, x->peer, x->reason);
				if (!*first_second)
					*first_second = (unsigned int)sec;
			}
			mf_list_clear(&now);
		}
		if (!more)
			break;
		sec = t;
		tok = strtok_r(NULL, " \t\n", &save);
		assert_non_null(tok);
		for (unsigned int i = 0; i < *n_ports; i++)
			if (!strncmp(tok, ports[i].dev, strlen(ports[i].dev)) && tok[strlen(ports[i].dev)] == '/')
				sp = &ports[i];
		if (!sp) {
			char *slash = strchr(tok, '/');

			assert_non_null(slash);
			sp = &ports[(*n_ports)++];
			memset(sp, 0, sizeof(*sp));
			snprintf(sp->dev, sizeof(sp->dev), "%.*s", (int)(slash - tok), tok);
			sp->port = (unsigned int)atoi(slash + 1);
			snprintf(sp->p.device, sizeof(sp->p.device), "%s", sp->dev);
			sp->p.port = sp->port;
			sp->s.st.gid_index = sp->s.st.dscp_trust = sp->s.st.pfc_mask = -1;
		}
		while ((tok = strtok_r(NULL, " \t\n", &save))) {
			char *eq = strchr(tok, '=');

			assert_non_null(eq);
			*eq = 0;
			set_key(sp, tok, eq + 1);
		}
	}
	fclose(f);
	fclose(o);
	mf_list_free(&now);
	mh_free(&h);
	return out;
}

static void test_series_healthy(void **state)
{
	struct series_port ports[4];
	unsigned int n, first;
	char *out = replay("healthy.series", ports, &n, &first);

	(void)state;
	assert_string_equal(out, "");
	assert_int_equal(ports[0].p.flaps, 0);
	assert_int_equal(ports[0].p.ecn_total, 2);
	assert_int_equal(ports[0].p.err_total[RCK_CTR_SYMBOL_ERRORS], 1);
	free(out);
}

static void test_series_flap(void **state)
{
	struct series_port ports[4];
	unsigned int n, first;
	char *out = replay("flap.series", ports, &n, &first);

	(void)state;
	/* the flap counts at once (the poll after it), nothing about the state */
	assert_non_null(strstr(out, "link_flap mlx5_0/1 |link went down 1 time"));
	assert_null(strstr(out, "rdma_state_changed"));
	assert_int_equal(first, 2);
	assert_int_equal(ports[0].p.flaps, 1);
	/* the state was compared after the flap and found the same */
	assert_true(ports[0].p.compared);
	for (int w = 0; w < MS_WHAT_COUNT; w++)
		assert_false(ports[0].p.changed[w]);
	free(out);
}

/* link_downed a poll behind the carrier (rxe): one bounce counts once */
static void test_series_flap_late(void **state)
{
	struct series_port ports[4];
	unsigned int n, first;
	char *out = replay("flap-late.series", ports, &n, &first);

	(void)state;
	assert_non_null(strstr(out, "link_flap rxe0/1 |link went down 1 time"));
	assert_int_equal(ports[0].p.flaps, 1);
	free(out);
}

static void test_series_flap_gid(void **state)
{
	struct series_port ports[4];
	unsigned int n, first;
	char *out = replay("flap-gid.series", ports, &n, &first);

	(void)state;
	assert_non_null(strstr(out, "port_down mlx5_0/1"));
	assert_non_null(strstr(out, "link_flap mlx5_0/1"));
	/* up again, but the table and the RoCE v2 GID's index moved: a finding */
	assert_non_null(strstr(out, "rdma_state_changed mlx5_0/1 |RDMA state differs from before: gid_table, gid_index"));
	assert_non_null(strstr(out, "GID index 1, was 3"));
	assert_true(ports[0].p.changed[MS_GID_TABLE]);
	assert_true(ports[0].p.changed[MS_GID_INDEX]);
	assert_false(ports[0].p.changed[MS_DSCP_TRUST]);
	assert_false(ports[0].p.changed[MS_PFC]);
	assert_false(ports[0].p.changed[MS_DSCP_MAP]);
	assert_int_equal(ports[0].p.flaps, 1);
	free(out);
}

static void test_series_storm(void **state)
{
	struct series_port ports[4];
	unsigned int n, first;
	char *out = replay("storm.series", ports, &n, &first);

	(void)state;
	/* one finding, on the sender, naming the paused port; none on the receiver */
	assert_non_null(strstr(out, "pause_storm mlx5_0/1 |sends pauses on priority 3 90% of the time; paused: h1:mlx5_1/1"));
	assert_null(strstr(out, "pause_storm mlx5_1/1"));
	assert_true(fabs(ports[0].p.pause_s[1][3] - 2.7) < 1e-9);
	assert_true(fabs(ports[1].p.pause_s[0][3] - 2.55) < 1e-9);
	free(out);
}

static void test_series_ecn(void **state)
{
	struct series_port ports[4];
	unsigned int n, first;
	char *out = replay("ecn.series", ports, &n, &first);

	(void)state;
	assert_non_null(strstr(out, "ecn_no_cnp mlx5_0/1 |400 ECN-marked packets and no CNP sent"));
	assert_int_equal(first, 2);
	free(out);
}

static void test_series_errors(void **state)
{
	struct series_port ports[4];
	unsigned int n, first;
	char *out = replay("errors.series", ports, &n, &first);

	(void)state;
	assert_non_null(strstr(out, "error_counter mlx5_0/1 symbol_errors|symbol_errors rose by 50"));
	assert_non_null(strstr(out, "error_counter mlx5_0/1 tx_discards|"));
	assert_non_null(strstr(out, "error_counter mlx5_0/1 slow_restart|"));
	assert_int_equal(ports[0].p.err_total[RCK_CTR_COUNT + MS_SLOW_RESTART], 9);
	free(out);
}

/* ---- probe windows of a NIC's peers ---- */

static void test_probe_rules(void **state)
{
	struct mr_peerwin v[4];
	struct mf_list l = { 0 };
	struct mr_th th;

	(void)state;
	mr_th_from(&th, NULL);
	memset(v, 0, sizeof(v));
	for (int i = 0; i < 4; i++) {
		v[i].peer = (const char *[]){"a", "b", "c", "d"}[i];
		v[i].s = (struct mw_stats){ .sent = 100, .samples = 100, .p50_us = 100, .p99_us = 150 };
	}
	/* healthy */
	mr_probes("udp", 1, v, 4, &th, &l);
	assert_int_equal(l.n, 0);
	/* one peer lossy: that peer named */
	v[2].s.lost = 3;
	v[2].s.loss = 0.03;
	mr_probes("udp", 1, v, 4, &th, &l);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].code, "probe_loss");
	assert_string_equal(l.v[0].peer, "c");
	/* 1% everywhere: the NIC named once, no peer */
	mf_list_clear(&l);
	for (int i = 0; i < 4; i++) {
		v[i].s.lost = 1;
		v[i].s.loss = 0.01;
	}
	mr_probes("udp", 1, v, 4, &th, &l);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].code, "probe_loss");
	assert_string_equal(l.v[0].peer, "");
	/* a dead peer, and one slow peer */
	mf_list_clear(&l);
	for (int i = 0; i < 4; i++)
		v[i].s.lost = 0;
	v[0].s = (struct mw_stats){ .sent = 10, .lost = 10, .loss = 1, .p50_us = NAN, .p99_us = NAN };
	v[3].s.p99_us = 5000;
	mr_probes("udp", 1, v, 4, &th, &l);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0].code, "probe_failed");
	assert_string_equal(l.v[0].peer, "a");
	assert_string_equal(l.v[1].code, "link_latency");
	assert_string_equal(l.v[1].peer, "d");
	mf_list_free(&l);
}

/* ---- across hosts ---- */

static void test_collect(void **state)
{
	static const char *const hosts[] = {"h1", "h2", "h3", "h4"};
	struct mc_set s = { 0 };
	struct mf_list l = { 0 };
	char path[4096], err[256];
	const char *fix = getenv("ROCECHECK_FIXTURES");

	(void)state;
	assert_non_null(fix);
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/monitor/events-%s.jsonl", fix, hosts[i]);
		assert_int_equal(mc_load_events(&s, path, err, sizeof(err)), 0);
	}
	assert_int_equal(mc_group(&s, NULL, NULL, &l), 0);
	/* h1 (its own NIC, and the two peers losing to it) is one finding; h6
	 * (three hosts without an answer) one; h2 -> h3 a link; the cleared
	 * dip and the counter finding nothing */
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0].code, "probe_loss");
	assert_string_equal(l.v[0].device, "h1");
	assert_string_equal(l.v[1].code, "nic_degraded");
	assert_string_equal(l.v[1].device, "h6");
	assert_non_null(strstr(l.v[1].reason, "3 bad pairs share it: with h2, h3, h4"));
	assert_string_equal(l.v[2].code, "link_latency");
	assert_string_equal(l.v[2].device, "h2");
	assert_string_equal(l.v[2].peer, "h3");
	mf_list_free(&l);
	mc_set_free(&s);
	/* bad lines name the file and line */
	assert_int_equal(mc_add_events(&s, "{}\n", 3, "x", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "x:1: not a monitor event line");
	assert_int_equal(mc_add_events(&s, "\n{\"event\":\"finding\"}", 20, "x", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "x:2: a finding needs"));
	mc_set_free(&s);
}

/* A storm from n4: each paused host's monitor sees only its own port (a
 * warning); across hosts it is one finding on the sender naming them. */
static void test_collect_storm(void **state)
{
	static const char ev[] =
		"{\"event\":\"finding\",\"state\":\"active\",\"code\":\"pause_storm\",\"severity\":\"degraded\","
		"\"device\":\"rxe0\",\"port\":1,\"reason\":\"sends pauses\",\"host\":\"n4\"}\n"
		"{\"event\":\"finding\",\"state\":\"active\",\"code\":\"pause_storm\",\"severity\":\"warning\","
		"\"device\":\"rxe0\",\"port\":1,\"reason\":\"paused\",\"host\":\"n1\"}\n"
		"{\"event\":\"finding\",\"state\":\"active\",\"code\":\"pause_storm\",\"severity\":\"warning\","
		"\"device\":\"rxe0\",\"port\":1,\"reason\":\"paused\",\"host\":\"n2\"}\n"
		"{\"event\":\"finding\",\"state\":\"active\",\"code\":\"pause_storm\",\"severity\":\"warning\","
		"\"device\":\"rxe0\",\"port\":1,\"reason\":\"paused\",\"host\":\"n3\"}\n"
		"{\"event\":\"finding\",\"state\":\"cleared\",\"code\":\"pause_storm\",\"severity\":\"warning\","
		"\"device\":\"rxe0\",\"port\":1,\"reason\":\"paused\",\"host\":\"n3\"}\n";
	static const char sender_gone[] =
		"{\"event\":\"finding\",\"state\":\"cleared\",\"code\":\"pause_storm\",\"severity\":\"degraded\","
		"\"device\":\"rxe0\",\"port\":1,\"reason\":\"sends pauses\",\"host\":\"n4\"}\n";
	struct mc_set s = { 0 };
	struct mf_list l = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(mc_add_events(&s, ev, sizeof(ev) - 1, "ev", err, sizeof(err)), 0);
	assert_int_equal(mc_group(&s, NULL, NULL, &l), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].code, "pause_storm");
	assert_string_equal(l.v[0].device, "n4");
	assert_int_equal(l.v[0].sev, RCK_SEVERITY_DEGRADED);
	assert_string_equal(l.v[0].reason, "rxe0/1 sends the pauses; paused: n1:rxe0/1, n2:rxe0/1");
	mf_list_free(&l);
	/* the sender gone from the watch: the paused ports, one warning */
	assert_int_equal(mc_add_events(&s, sender_gone, sizeof(sender_gone) - 1, "ev", err, sizeof(err)), 0);
	assert_int_equal(mc_group(&s, NULL, NULL, &l), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0].sev, RCK_SEVERITY_WARNING);
	assert_string_equal(l.v[0].reason, "2 ports paused by a sender no monitor watches: n1:rxe0/1, n2:rxe0/1");
	mf_list_free(&l);
	mc_set_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pinglist_parse),
		cmocka_unit_test(test_pinglist_bad),
		cmocka_unit_test(test_pinglist_build),
		cmocka_unit_test(test_pinglist_roundtrip),
		cmocka_unit_test(test_window_stats),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_series_healthy),
		cmocka_unit_test(test_series_flap),
		cmocka_unit_test(test_series_flap_gid),
		cmocka_unit_test(test_series_flap_late),
		cmocka_unit_test(test_series_storm),
		cmocka_unit_test(test_series_ecn),
		cmocka_unit_test(test_series_errors),
		cmocka_unit_test(test_probe_rules),
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_collect_storm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
