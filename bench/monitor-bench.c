/* The monitor's cost (issue 21): one host's probes and answers at the default
 * rates (read on the tick, and as they come), port polls, link share, RSS a day. */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "../monitor/monitor_int.h"
#include "rocecheck/inventory.h"
#include "sysfs_cache.h"

/* A host at the default rates: 8 NICs, 64 peers each, 16 under the same
 * leaf at 10/s and 48 sampled others at 1/s. */
#define NICS 8
#define PEERS 64
#define LEAF_PEERS 16
#define PROBE_HZ_PER_NIC (LEAF_PEERS * RCK_PINGLIST_LEAF_HZ + (PEERS - LEAF_PEERS) * RCK_PINGLIST_OTHER_HZ)
/* one probe datagram on the wire: 24 B payload, UDP 8, IPv4 20, Ethernet 18,
 * preamble and gap 20 (a RoCE UD probe is about the same size) */
#define WIRE_BYTES 90.0
#define LINK_BPS 100e9

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			v = atol(line + 6);
	if (f)
		fclose(f);
	return v;
}

/* The kernel's UDP drops so far (/proc/net/snmp: receive buffer full, send
 * buffer full, other input errors), to say where a lost probe went. */
static void udp_drops(unsigned long long v[3])
{
	FILE *f = fopen("/proc/net/snmp", "r");
	char head[1024], vals[1024];

	v[0] = v[1] = v[2] = 0;
	while (f && fgets(head, sizeof(head), f) && fgets(vals, sizeof(vals), f)) {
		char *hs = NULL, *vs = NULL, *h = strtok_r(head, " \n", &hs), *x = strtok_r(vals, " \n", &vs);

		if (!h || strcmp(h, "Udp:"))
			continue;
		while ((h = strtok_r(NULL, " \n", &hs)) && (x = strtok_r(NULL, " \n", &vs))) {
			if (!strcmp(h, "RcvbufErrors"))
				v[0] = strtoull(x, NULL, 10);
			else if (!strcmp(h, "SndbufErrors"))
				v[1] = strtoull(x, NULL, 10);
			else if (!strcmp(h, "InErrors"))
				v[2] = strtoull(x, NULL, 10);
		}
	}
	if (f)
		fclose(f);
}

static void *run_thread(void *arg)
{
	rck_monitor_run(arg);
	return NULL;
}

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The other hosts' probers, as the host under test sees them: pings at
 * random (Poisson) times, at the rate it sends its own, each from a prober
 * on its own phase. @dwell: pings asking for the dwell (the host answers on
 * its tick); without, pings of a prober before dwell (answered as they come). */
struct pinger {
	unsigned int port;
	double hz, seconds;
	bool dwell;
	unsigned long long sent, answered;
};

static void *pinger_run(void *arg)
{
	struct pinger *pg = arg;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				  .sin_port = htons((uint16_t)pg->port) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	unsigned int seed = 7;
	uint64_t t = md_now(), end = t + (uint64_t)(pg->seconds * 1e9), next_read = t;
	unsigned char buf[64];

	if (fd < 0)
		return NULL;
	while (t < end) {
		struct md_msg msg = { .magic = htonl(MD_MAGIC), .type = htonl(MD_PING),
				      .id = htonl((uint32_t)pg->sent % 512 | (pg->dwell ? MD_ID_DWELL : 0)),
				      .seq = htonl((uint32_t)pg->sent), .t_ns = t };
		double gap = -log((rand_r(&seed) + 1.0) / ((double)RAND_MAX + 2.0)) / pg->hz;
		struct timespec ts;

		t += (uint64_t)(gap * 1e9);
		ts.tv_sec = (time_t)(t / 1000000000ull);
		ts.tv_nsec = (long)(t % 1000000000ull);
		(void)clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (sendto(fd, &msg, MD_MSG_LEN, 0, (struct sockaddr *)&sa, sizeof(sa)) == MD_MSG_LEN)
			pg->sent++;
		if (t >= next_read) { /* bounded: the socket holds what came since */
			for (int k = 0; k < 4096 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0; k++)
				pg->answered++;
			next_read = t + 10000000ull;
		}
	}
	usleep(100000);
	for (int k = 0; k < 4096 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0; k++)
		pg->answered++;
	close(fd);
	return NULL;
}

/* One host at the default rates, measured: its monitor (this thread) probes
 * 8 NICs x 64 peers (a responder in another thread) and answers the same
 * rate of pings from the other hosts, arriving at random. CPU of this thread
 * only: the share of a core the host's monitor takes for its probes. */
static int host_cost(bool dwell, double seconds, unsigned int peers, double ping_hz, double *share,
		     double *per_probe, double *lost_frac, unsigned long long *answered)
{
	struct rck_monitor_config *cr = NULL, *cs = NULL;
	struct rck_monitor *resp = NULL, *host = NULL;
	struct rck_pinglist *pl = NULL;
	struct rck_ctx *ctx = NULL;
	struct pinger pg = { .hz = ping_hz, .seconds = seconds - 0.5, .dwell = dwell };
	uint64_t sent = 0, lost = 0;
	unsigned long long d0[3], d1[3];
	pthread_t th, tp;
	double c0, c1;
	char name[16], addr[32];

	if (rck_ctx_new(&ctx) || rck_monitor_config_new(&cr) || rck_monitor_config_new(&cs) ||
	    rck_pinglist_new(&pl))
		return -ENOMEM;
	rck_monitor_config_set_listen(cr, "127.0.0.1", 0);
	rck_monitor_config_set_counters(cr, false);
	rck_monitor_config_set_transport(cr, RCK_MONITOR_TRANSPORT_UDP);
	rck_monitor_config_set_duration(cr, seconds + 1);
	if (rck_monitor_new(ctx, cr, &resp))
		return -EIO;
	for (unsigned int i = 0; i < peers; i++) {
		snprintf(name, sizeof(name), "p%u", i);
		snprintf(addr, sizeof(addr), "127.0.0.1:%u", rck_monitor_port(resp));
		rck_pinglist_add(pl, name, addr, i % PEERS < LEAF_PEERS ? RCK_PINGLIST_LEAF_HZ : RCK_PINGLIST_OTHER_HZ,
				 NULL);
	}
	rck_monitor_config_set_pinglist(cs, pl);
	rck_monitor_config_set_listen(cs, "127.0.0.1", 0);
	rck_monitor_config_set_counters(cs, false);
	rck_monitor_config_set_transport(cs, RCK_MONITOR_TRANSPORT_UDP);
	rck_monitor_config_set_duration(cs, seconds);
	/* windows of 2 s, not the default 10: their cost counted 5 times over */
	rck_monitor_config_set_window(cs, 2, 2, 3);
	if (rck_monitor_new(ctx, cs, &host))
		return -EIO;
	pg.port = rck_monitor_port(host);
	udp_drops(d0);
	pthread_create(&th, NULL, run_thread, resp);
	if (ping_hz > 0)
		pthread_create(&tp, NULL, pinger_run, &pg);
	c0 = thread_cpu_s();
	rck_monitor_run(host);
	c1 = thread_cpu_s();
	if (ping_hz > 0)
		pthread_join(tp, NULL);
	rck_monitor_stop(resp);
	pthread_join(th, NULL);
	udp_drops(d1);
	for (unsigned int i = 0; i < host->n_peers; i++) {
		sent += host->peers[i].sent_total;
		lost += host->peers[i].lost_total;
	}
	*share = (c1 - c0) / seconds;
	*per_probe = sent + pg.sent ? (c1 - c0) / (double)(sent + pg.sent) : NAN;
	*lost_frac = sent ? (double)lost / (double)sent : 1;
	*answered = pg.answered;
	if (!peers && ping_hz <= 0) {
		printf("host idle (no peers, no pings): CPU %.4f s in %.0f s, %llu ticks of %.0f ms\n", c1 - c0,
		       seconds, (unsigned long long)(seconds * 1e9 / host->tick_ns), host->tick_ns / 1e6);
		*per_probe = (c1 - c0) / (seconds * 1e9 / host->tick_ns);
	} else
	printf("host, pings %s: sent %llu probes (%llu lost), answered %llu of %llu pings (%llu with the dwell, "
	       "%llu without), CPU %.3f s in %.0f s; stalls %llu; host UDP drops: receive buffer %llu, send buffer %llu, input errors %llu\n",
	       dwell ? "asking for the dwell" : "of probers before dwell", (unsigned long long)sent,
	       (unsigned long long)lost, pg.answered, pg.sent, (unsigned long long)host->dwell_pongs,
	       (unsigned long long)host->legacy_pongs, c1 - c0, seconds, (unsigned long long)host->stalls,
	       d1[0] - d0[0], d1[1] - d0[1], d1[2] - d0[2]);
	rck_monitor_free(host);
	rck_monitor_free(resp);
	rck_monitor_config_free(cr);
	rck_monitor_config_free(cs);
	rck_pinglist_free(pl);
	rck_ctx_free(ctx);
	return 0;
}

/* The kernel's floor under the UDP probes: one loopback datagram of a
 * probe's size sent and received, batches of MD_BATCH through sendmmsg and
 * recvmmsg in one thread, no wakeups. A probe is two (ping and pong). */
static int datagram_floor(double *per_dgram)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t salen = sizeof(sa);
	int a = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), b = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	unsigned char buf[MD_BATCH][64] = { { 0 } };
	struct iovec iov[MD_BATCH];
	struct mmsghdr h[MD_BATCH];
	unsigned int got = 0;
	double c0;

	if (a < 0 || b < 0 || bind(b, (struct sockaddr *)&sa, salen) || getsockname(b, (struct sockaddr *)&sa, &salen)) {
		if (a >= 0)
			close(a);
		if (b >= 0)
			close(b);
		return -errno;
	}
	c0 = cpu_s();
	for (int r = 0; r < 400; r++) {
		int n;

		for (unsigned int k = 0; k < MD_BATCH; k++) {
			iov[k] = (struct iovec){ .iov_base = buf[k], .iov_len = sizeof(struct md_msg) };
			h[k] = (struct mmsghdr){ .msg_hdr = { .msg_name = &sa, .msg_namelen = salen, .msg_iov = &iov[k],
							      .msg_iovlen = 1 } };
		}
		if (sendmmsg(a, h, MD_BATCH, 0) != MD_BATCH)
			break;
		for (unsigned int k = 0; k < MD_BATCH; k++) {
			iov[k].iov_len = sizeof(buf[k]);
			h[k].msg_hdr.msg_name = NULL;
			h[k].msg_hdr.msg_namelen = 0;
		}
		/* bounded: loopback delivered them during the send */
		for (int t = 0, left = MD_BATCH; left > 0 && t < 100; t++, left -= n > 0 ? n : 0)
			n = recvmmsg(b, h, (unsigned int)left, MSG_DONTWAIT, NULL);
		got += MD_BATCH;
	}
	*per_dgram = got ? (cpu_s() - c0) / got : NAN;
	close(a);
	close(b);
	return got ? 0 : -EIO;
}

/* Port polls: the recorded mlx5 tree read and judged, as each second. */
static int poll_cost(const char *tree, double *per_port)
{
	struct rck_ctx *ctx = NULL;
	struct rck_inventory *inv = NULL;
	struct sysfs_cache *files = NULL;
	struct mr_port ports[64];
	struct mf_list out = { 0 };
	struct mr_th th;
	unsigned int total = 0;
	double c0, c1;

	if (rck_ctx_new(&ctx) || rck_ctx_set_sysfs_root(ctx, tree))
		return -EINVAL;
	memset(ports, 0, sizeof(ports));
	mr_th_from(&th, NULL);
	c0 = cpu_s();
	for (int r = 0; r < 200; r++) {
		struct ms_sample *s = NULL;
		char (*names)[MF_STR] = NULL;
		unsigned int *pn = NULL, n = 0;

		/* as the daemon: the inventory again every 10th poll */
		if (ms_poll(ctx, false, &inv, &files, r % 10 == 0, &s, &names, &pn, &n))
			return -EIO;
		for (unsigned int i = 0; i < n && i < 64; i++) {
			snprintf(ports[i].device, sizeof(ports[i].device), "%s", names[i]);
			ports[i].port = pn[i];
			mr_poll(&ports[i], &s[i], &th, &out);
		}
		mf_list_clear(&out);
		total += n;
		free(s);
		free(names);
		free(pn);
	}
	c1 = cpu_s();
	*per_port = total ? (c1 - c0) / total : NAN;
	printf("polls: 200 of %u ports of %s in %.3f s of CPU\n", total / 200, tree, c1 - c0);
	mf_list_free(&out);
	rck_inventory_free(inv);
	sysfs_cache_free(files);
	rck_ctx_free(ctx);
	return 0;
}

/* A day of windows, accelerated: 86400 polls of 8 ports, 8640 windows of
 * 8 x 64 peers, findings coming and going; RSS after 1 h and after 24 h. */
static int day(long *rss_hour, long *rss_day)
{
	struct mr_port *ports = calloc(NICS, sizeof(*ports));
	struct mw_peer *win = calloc(NICS * PEERS, sizeof(*win));
	struct mr_peerwin *pw = calloc(PEERS, sizeof(*pw));
	struct mf_list now = { 0 };
	struct mh hc, hp;
	struct mr_th th;
	struct ms_sample s;
	char peer[NICS * PEERS][16];
	unsigned int seed = 1;

	if (!ports || !win || !pw)
		return -ENOMEM;
	mr_th_from(&th, NULL);
	mh_init(&hc, 2, 3);
	mh_init(&hp, 2, 3);
	for (int i = 0; i < NICS; i++) {
		snprintf(ports[i].device, sizeof(ports[i].device), "mlx5_%d", i);
		ports[i].port = 1;
	}
	for (int i = 0; i < NICS * PEERS; i++)
		snprintf(peer[i], sizeof(peer[i]), "h%d/mlx5_%d", i / NICS, i % NICS);
	memset(&s, 0, sizeof(s));
	s.link_up = true;
	s.has[RCK_CTR_SYMBOL_ERRORS] = s.has[RCK_CTR_ECN_MARKED_PACKETS] = s.has[RCK_CTR_CNP_SENT] = 1;
	s.has_extra[MS_CARRIER_CHANGES] = 1;
	s.st.gid_hash = 7;
	s.st.gid_index = 3;
	s.st.dscp_trust = s.st.pfc_mask = -1;
	for (unsigned int t = 1; t <= 86400; t++) {
		s.t_ns = (uint64_t)t * 1000000000ull;
		mf_list_clear(&now);
		for (int i = 0; i < NICS; i++) {
			/* now and then a burst of symbol errors or a flap on some port */
			if (rand_r(&seed) % 600 == 0)
				s.ctr[RCK_CTR_SYMBOL_ERRORS] += 100;
			if (rand_r(&seed) % 20000 == 0)
				s.extra[MS_CARRIER_CHANGES] += 2;
			mr_poll(&ports[i], &s, &th, &now);
		}
		if (mh_window(&hc, &now, NULL, 0) < 0)
			return -ENOMEM;
		if (t % RCK_MONITOR_WINDOW_S == 0) {
			mf_list_clear(&now);
			for (int n = 0; n < NICS; n++) {
				for (int p = 0; p < PEERS; p++) {
					struct mw_peer *w = &win[n * PEERS + p];
					unsigned int probes = p < LEAF_PEERS ? 100 : 10;

					for (unsigned int k = 0; k < probes; k++) {
						mw_sent(w);
						if (rand_r(&seed) % 5000 == 0)
							mw_lost(w);
						else
							mw_rtt(w, 5 + rand_r(&seed) % 10);
					}
					mw_stats(w, &pw[p].s);
					pw[p].peer = peer[n * PEERS + p];
					mw_reset(w);
				}
				mr_probes(ports[n].device, 1, pw, PEERS, &th, &now);
			}
			if (mh_window(&hp, &now, NULL, 0) < 0)
				return -ENOMEM;
		}
		if (t == 3600)
			*rss_hour = rss_kib();
	}
	*rss_day = rss_kib();
	printf("day: %u findings tracked at the end (counters %u, probes %u)\n", hc.cnt + hp.cnt, hc.cnt, hp.cnt);
	mh_free(&hc);
	mh_free(&hp);
	mf_list_free(&now);
	free(ports);
	free(win);
	free(pw);
	return 0;
}

int main(int argc, char **argv)
{
	double per_probe = NAN, per_port = NAN, per_dgram = NAN, lost = 1, share, bw, floor_share, probes_share = NAN;
	double old_share = NAN, old_per_probe = NAN, old_lost = 1, idle_share = NAN, per_tick = NAN, idle_lost;
	unsigned long long answered = 0, old_answered = 0, idle_answered;
	long rss_hour = 0, rss_day = 0;
	int fails = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: monitor-bench SYSFS_TREE\n");
		return 2;
	}
	if (host_cost(true, 6, NICS * PEERS, NICS * PROBE_HZ_PER_NIC, &probes_share, &per_probe, &lost, &answered) ||
	    host_cost(false, 6, NICS * PEERS, NICS * PROBE_HZ_PER_NIC, &old_share, &old_per_probe, &old_lost,
		      &old_answered) ||
	    host_cost(true, 3, 0, 0, &idle_share, &per_tick, &idle_lost, &idle_answered) ||
	    datagram_floor(&per_dgram) || poll_cost(argv[1], &per_port) || day(&rss_hour, &rss_day)) {
		fprintf(stderr, "monitor-bench: a part could not run\n");
		return 1;
	}
	share = probes_share + NICS * per_port;
	bw = PROBE_HZ_PER_NIC * 2 * WIRE_BYTES * 8 / LINK_BPS;
	printf("default rates, %d NICs x %d peers (%d at 10/s, %d at 1/s): %.0f probes/s sent and as many "
	       "pings answered, %d polls/s\n",
	       NICS, PEERS, LEAF_PEERS, PEERS - LEAF_PEERS, NICS * PROBE_HZ_PER_NIC, NICS);
	printf("cpu per datagram pair (a probe sent and its pong read, or a ping answered): %.2f us; "
	       "answered as they come (probers before dwell): %.2f us, ratio %.2f\n",
	       per_probe * 1e6, old_per_probe * 1e6, old_per_probe / per_probe);
	printf("kernel floor: %.2f us per loopback datagram sent and read (a pair's), the monitor's %.2f x that\n",
	       per_dgram * 1e6, per_probe / per_dgram);
	printf("cpu per idle tick (the wakeup, nothing to send or read): %.1f us, %.5f of a core\n", per_tick * 1e6,
	       idle_share);
	printf("cpu per port poll (read + rules): %.2f us\n", per_port * 1e6);
	printf("share of one core, probes %.5f + polls %.5f: %.5f (target <= 0.005)%s\n", probes_share,
	       NICS * per_port, share, share <= 0.005 ? "" : " MISSED");
	printf("share of one core answering probers before dwell as they come: %.5f\n", old_share + NICS * per_port);
	/* the host sends a datagram and reads one for each probe and for each
	 * ping it answers: one floor datagram (sent and read) a pair */
	floor_share = NICS * PROBE_HZ_PER_NIC * 2 * per_dgram;
	printf("share of one core for the probes' datagrams alone (kernel floor, UDP): %.5f\n", floor_share);
	printf("share of a 100 Gb/s link: %.2e (target <= 1e-4)%s\n", bw, bw <= 1e-4 ? "" : " MISSED");
	printf("rss after 1 h of windows: %ld KiB, after 24 h: %ld KiB, ratio %.3f (flat: <= 1.05)\n",
	       rss_hour, rss_day, rss_hour > 0 ? (double)rss_day / rss_hour : NAN);
	printf("probes lost on loopback: %.4f (answered as they come: %.4f)\n", lost, old_lost);
	/* what is deterministic fails the bench; the CPU share is printed
	 * (a loaded runner would fail it for nothing) */
	if (!(bw <= 1e-4))
		fails++;
	if (!(rss_hour > 0 && (double)rss_day / rss_hour <= 1.05))
		fails++;
	/* every ping answered, in both modes (one may be in flight at the end) */
	if (!answered || !old_answered)
		fails++;
	return fails ? 1 : 0;
}
