/* rocecap: packet-level evidence of PFC, ECN, CNPs and loss from a pcap or
 * pcapng file or a live interface. Its option table drives the shared CLI
 * plumbing (tools/cli.c): parsing, usage, help, errors and completion. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define SNAPLEN 256            /* every header rocecap reads fits */
#define LIVE_POLL_MS 100
#define FIFO_WAIT_MS 500       /* a named FIFO's writer has this long to send */

enum {
	OPT_SPEED = 256, OPT_FLOWS, OPT_TIMELINE, OPT_SVG, OPT_INTERVAL, OPT_MAX_FLOWS,
	OPT_STORM_WINDOW, OPT_STORM_SHARE, OPT_OPCODES,
};

/* The options of the capture, beside the general ones. */
static const struct cli_opt cap_opts[] = {
	{ 'r', 'r', "read", "FILE", "read a pcap or pcapng file ('-': standard input)" },
	{ 'i', 'i', "interface", "IF", "capture live on IF (needs CAP_NET_RAW)" },
	{ 'c', 'c', "count", "COUNT", "stop after COUNT frames" },
	{ 'G', 'G', "seconds", "SECONDS", "stop after SECONDS (live: wall clock; file: capture time)" },
	{ 'a', 'a', "autostop", "COND", "as tshark's -a: duration:SECONDS (as -G) or packets:COUNT (as -c)" },
	{ OPT_SPEED, 0, "speed", "GBPS", "link speed for pause quanta (default: IF's speed, else 100)" },
	{ OPT_FLOWS, 0, "flows", NULL, "text: every flow, not only the 10 worst" },
	{ OPT_OPCODES, 0, "opcodes", NULL, "text: packets per BTH opcode" },
	{ OPT_TIMELINE, 0, "timeline", NULL, "pause time and CE marks per interval" },
	{ OPT_SVG, 0, "timeline-svg", "FILE", "write the timeline as an SVG plot" },
	{ OPT_INTERVAL, 0, "interval", "SECONDS", "timeline interval (default 1)" },
	{ OPT_MAX_FLOWS, 0, "max-flows", "N", "flows followed at most (default 65536)" },
	{ OPT_STORM_WINDOW, 0, "storm-window", "SECONDS", "pause storm window (default 0.1)" },
	{ OPT_STORM_SHARE, 0, "storm-share", "FRACTION", "paused share that makes a storm (default 0.5)" },
	{ 0 }
};

/* rocecap reads no sysfs and sets no library deadline: of the standard
 * global options it takes the output format, the version and the help. */
static const struct cli_opt cap_globals[] = {
	{ 'j', 'j', "json", NULL, "JSON output (schemas/rocecap.schema.json)" },
	{ 'p', 'p', "pretty", NULL, "indented JSON (implies -j)" },
	{ 'V', 'V', "version", NULL, "print the version" },
	{ 'h', 'h', "help", NULL, "this help (so is the word help in place of FILTER)" },
	{ 0 }
};

static int cmd_rocecap(struct cli *cli, int argc, char **argv);

static const struct cli_cmd rocecap_cmd = {
	"rocecap", cmd_rocecap, "-r FILE | -i IF [FILTER]",
	"Packet evidence of PFC, ECN, CNPs and loss; FILTER is a BPF expression as in tcpdump.",
	cap_opts, .json = true, .no_ctx = true,
};

static const struct cli_tool rocecap = {
	.prog = "rocecap",
	.summary = "packet evidence of PFC, ECN, CNPs and loss",
	.man = "rocecap(8)",
	.globals = cap_globals,
	.single = &rocecap_cmd,
};

struct args {
	const char *file, *ifname, *svg;
	unsigned long count;
	double seconds;
	bool speed_set;
	unsigned int flags;
	char *filter;
	struct rck_cap_opts o;
};

static volatile sig_atomic_t stop;
static pcap_t *live_handle;

/* An error after the arguments were taken: "rocecap: what", exit 1. */
static const struct cli *the_cli;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	char line[PCAP_ERRBUF_SIZE + PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	cli_msg(the_cli, "%s", line);
	return EXIT_FAIL;
}

/* A number option within [lo, hi], named as it is in the table. */
static int number(const struct cli *cli, int id, const char *arg, double lo, double hi, double *out)
{
	const struct cli_opt *o = cap_opts;

	while (o->id && o->id != id)
		o++;
	if (cli_parse_double(arg, lo, hi, out)) {
		if (o->short_name)
			return cli_bad_args(cli, "invalid -%c '%s': %g to %g", o->short_name, arg, lo, hi);
		return cli_bad_args(cli, "invalid --%s '%s': %g to %g", o->name, arg, lo, hi);
	}
	return 0;
}

static int on_opt(struct cli *cli, void *data, int id, const char *arg)
{
	struct args *a = data;
	unsigned long ul;
	double d;

	switch (id) {
	case 'r':
		a->file = arg;
		return 0;
	case 'i':
		a->ifname = arg;
		return 0;
	case 'c':
		if (cli_parse_uint(arg, 1, ULONG_MAX, &a->count))
			return cli_bad_args(cli, "invalid -c '%s': a count of frames, 1 or more", arg);
		return 0;
	case 'G':
		return number(cli, id, arg, 1e-6, 1e7, &a->seconds);
	case 'a':
		if (!strncmp(arg, "duration:", 9)) {
			if (cli_parse_double(arg + 9, 1e-6, 1e7, &a->seconds))
				return cli_bad_args(cli, "invalid -a '%s': duration:SECONDS, %g to %g", arg, 1e-6, 1e7);
			return 0;
		}
		if (!strncmp(arg, "packets:", 8)) {
			if (cli_parse_uint(arg + 8, 1, ULONG_MAX, &a->count))
				return cli_bad_args(cli, "invalid -a '%s': packets:COUNT, 1 or more", arg);
			return 0;
		}
		return cli_bad_args(cli, "invalid -a '%s': duration:SECONDS or packets:COUNT", arg);
	case OPT_SPEED:
		a->speed_set = true;
		return number(cli, id, arg, 0.01, 10000, &a->o.speed_gbps);
	case OPT_FLOWS:
		a->flags |= RCK_CAP_WRITE_FLOWS;
		return 0;
	case OPT_OPCODES:
		a->flags |= RCK_CAP_WRITE_OPCODES;
		return 0;
	case OPT_TIMELINE:
		a->flags |= RCK_CAP_WRITE_TIMELINE;
		return 0;
	case OPT_SVG:
		if (!*arg)
			return cli_bad_args(cli, "invalid --timeline-svg '': a file name");
		a->svg = arg;
		return 0;
	case OPT_INTERVAL:
		return number(cli, id, arg, 1e-6, 86400, &a->o.interval_s);
	case OPT_MAX_FLOWS:
		if (cli_parse_uint(arg, 1, 1u << 24, &ul))
			return cli_bad_args(cli, "invalid --max-flows '%s': 1 to %u", arg, 1u << 24);
		a->o.max_flows = (unsigned int)ul;
		return 0;
	case OPT_STORM_WINDOW:
		return number(cli, id, arg, 1e-6, 3600, &a->o.storm_window_s);
	case OPT_STORM_SHARE:
		if (number(cli, id, arg, 0, 1, &d))
			return EXIT_USAGE;
		a->o.storm_share = d;
		return 0;
	}
	return cli_bad_args(cli, "option %d is not handled", id);
}

/* The remaining words are the filter, joined as tcpdump joins them. */
static int join_filter(struct args *a, int n, char **words)
{
	size_t len = 1;

	if (!n)
		return 0;
	for (int i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	a->filter = calloc(1, len);
	if (!a->filter)
		return fail("out of memory");
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(a->filter, " ");
		strcat(a->filter, words[i]);
	}
	return 0;
}

/* Live capture: the interface's speed (Mb/s in sysfs), when it has one. */
static void detect_speed(struct args *a)
{
	char path[256];
	long mbps = 0;
	FILE *f;

	if (a->speed_set || !a->ifname)
		return;
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", a->ifname);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fscanf(f, "%ld", &mbps) == 1 && mbps > 0)
		a->o.speed_gbps = (double)mbps / 1000.0;
	fclose(f);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
	if (live_handle)
		pcap_breakloop(live_handle);
}

static int open_live(const struct args *a, pcap_t **out)
{
	char err[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_create(a->ifname, err);
	int rc;

	if (!p)
		return fail("%s: %s", a->ifname, err);
	pcap_set_snaplen(p, SNAPLEN);
	pcap_set_promisc(p, 0);
	pcap_set_timeout(p, LIVE_POLL_MS);
	pcap_set_immediate_mode(p, 1);
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
	rc = pcap_activate(p);
	/* Non-blocking, waited for with poll(): a quiet link must not hold the
	 * capture past -G (a blocking read may never return without traffic). */
	if (rc >= 0 && pcap_setnonblock(p, 1, err) < 0) {
		pcap_close(p);
		return fail("%s: %s", a->ifname, err);
	}
	if (rc == PCAP_ERROR_PERM_DENIED || rc == PCAP_ERROR_PROMISC_PERM_DENIED) {
		pcap_close(p);
		return fail("%s: live capture needs CAP_NET_RAW (run as root, or: setcap cap_net_raw+ep %s)",
			    a->ifname, "rocecap");
	}
	if (rc == PCAP_ERROR_NO_SUCH_DEVICE) {
		pcap_close(p);
		return fail("%s: no such interface", a->ifname);
	}
	if (rc < 0) {
		rc = fail("%s: %s", a->ifname, pcap_geterr(p));
		pcap_close(p);
		return rc;
	}
	*out = p;
	return 0;
}

/* A named FIFO without a writer would block open() and then the read of
 * the file header forever: open without blocking and wait a bounded time
 * for something to read. Standard input ('-') is libpcap's as it is. */
static int open_file(const struct args *a, pcap_t **out)
{
	char err[PCAP_ERRBUF_SIZE] = "";
	struct pollfd pfd = { .events = POLLIN };
	struct stat st = { 0 };
	pcap_t *p;
	FILE *f;
	int fd;

	if (!strcmp(a->file, "-")) {
		if (isatty(STDIN_FILENO))
			return fail("-r -: standard input is a terminal, not a capture");
		p = pcap_open_offline_with_tstamp_precision(a->file, PCAP_TSTAMP_PRECISION_NANO, err);
		if (!p)
			return fail("standard input: %s", err);
		*out = p;
		return 0;
	}
	fd = open(a->file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return fail("%s: %s", a->file, strerror(errno));
	if (fstat(fd, &st) || S_ISDIR(st.st_mode)) {
		int e = S_ISDIR(st.st_mode) ? EISDIR : errno;

		close(fd);
		return fail("%s: %s", a->file, strerror(e));
	}
	if (S_ISFIFO(st.st_mode)) {
		pfd.fd = fd;
		if (poll(&pfd, 1, FIFO_WAIT_MS) <= 0 || !(pfd.revents & POLLIN)) {
			close(fd);
			return fail("%s: a FIFO with nothing to read within %d ms (no writer?)", a->file,
				    FIFO_WAIT_MS);
		}
	}
	if (fcntl(fd, F_SETFL, 0) || !(f = fdopen(fd, "rb"))) {
		close(fd);
		return fail("%s: %s", a->file, strerror(errno));
	}
	p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!p) {
		fclose(f);
		return fail("%s: %s", a->file, err);
	}
	*out = p; /* pcap_close() closes f */
	return 0;
}

static int set_filter(pcap_t *p, const char *filter)
{
	struct bpf_program prog_;

	if (!filter)
		return 0;
	if (pcap_compile(p, &prog_, filter, 1, PCAP_NETMASK_UNKNOWN) < 0)
		return cli_bad_args(the_cli, "invalid filter '%s': %s", filter, pcap_geterr(p));
	if (pcap_setfilter(p, &prog_) < 0) {
		pcap_freecode(&prog_);
		return fail("cannot set filter: %s", pcap_geterr(p));
	}
	pcap_freecode(&prog_);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Live: wait until a frame may be there, LIVE_POLL_MS at most and never
 * past @deadline (0: none). */
static void wait_frame(pcap_t *p, uint64_t deadline)
{
	struct pollfd pfd = { .fd = pcap_get_selectable_fd(p), .events = POLLIN };
	uint64_t now = now_ns();
	int ms = LIVE_POLL_MS;

	if (deadline) {
		if (now >= deadline)
			return;
		if (deadline - now < (uint64_t)ms * 1000000ull)
			ms = (int)((deadline - now + 999999) / 1000000);
	}
	if (pfd.fd < 0) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
		return;
	}
	poll(&pfd, 1, ms);
}

/* Feed every frame to @cap until the end, -c, -G or a signal. */
static int run(const struct args *a, pcap_t *p, struct rck_cap *cap)
{
	int link = pcap_datalink(p);
	uint64_t n = 0, first = 0, deadline = 0;
	bool live = a->ifname != NULL;
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;

	if (link != RCK_CAP_LINK_ETHERNET && link != RCK_CAP_LINK_LINUX_SLL && link != RCK_CAP_LINK_LINUX_SLL2 &&
	    link != RCK_CAP_LINK_RAW && link != DLT_RAW)
		return fail("%s: link type %s is not decoded (Ethernet, Linux cooked and raw IP are)",
			    a->file ? a->file : a->ifname, pcap_datalink_val_to_name(link));
	if (link == DLT_RAW)
		link = RCK_CAP_LINK_RAW;
	if (live && a->seconds > 0)
		deadline = now_ns() + (uint64_t)(a->seconds * 1e9);
	while (!stop) {
		uint64_t ts;

		if (deadline && now_ns() >= deadline)
			break;
		rc = pcap_next_ex(p, &h, &data);
		if (rc == 0) {
			wait_frame(p, deadline); /* live: nothing to read yet */
			continue;
		}
		if (rc == PCAP_ERROR_BREAK)
			break;
		if (rc == PCAP_ERROR)
			return fail("%s: %s", a->file ? a->file : a->ifname, pcap_geterr(p));
		if (rc < 0)
			break; /* end of the file */
		/* With nanosecond precision requested, tv_usec holds ns. */
		ts = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
		if (!live && a->seconds > 0) {
			if (!n)
				first = ts;
			else if (ts >= first + (uint64_t)(a->seconds * 1e9))
				break;
		}
		rc = rck_cap_add(cap, link, ts, data, h->caplen, h->len < h->caplen ? h->caplen : h->len);
		if (rc == -ENOMEM)
			return fail("out of memory");
		if (++n == a->count)
			break;
	}
	return 0;
}

/* Written to FILE.tmp, then renamed: never a partial plot. */
static int write_svg(const char *path, const struct rck_cap *cap)
{
	char tmp[PATH_MAX];
	FILE *f;
	int rc;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return fail("%s: name too long", path);
	f = fopen(tmp, "w");
	if (!f)
		return fail("%s: %s", tmp, strerror(errno));
	rc = rck_cap_write_svg(cap, f);
	if (fclose(f) || rc) {
		unlink(tmp);
		return fail("%s: write failed", path);
	}
	if (rename(tmp, path)) {
		rc = errno;
		unlink(tmp);
		return fail("%s: %s", path, strerror(rc));
	}
	return 0;
}

static int cmd_rocecap(struct cli *cli, int argc, char **argv)
{
	struct args a = { 0 };
	struct rck_cap *cap = NULL;
	pcap_t *p = NULL;
	int rc;

	the_cli = cli;
	rck_cap_opts_init(&a.o);
	rc = cli_parse(cli, argc, argv, on_opt, &a);
	if (rc != CLI_CONTINUE)
		return rc;
	if (!a.file == !a.ifname)
		return cli_usage_err(cli, a.file ? "-r and -i exclude each other" : "give -r FILE or -i IF");
	rc = join_filter(&a, cli->nargs, cli->args);
	if (rc)
		goto out;
	detect_speed(&a);
	rc = a.file ? open_file(&a, &p) : open_live(&a, &p);
	if (rc)
		goto out;
	rc = set_filter(p, a.filter);
	if (rc)
		goto out;
	rc = rck_cap_new(&a.o, &cap);
	if (rc) {
		rc = fail("cannot start the analysis: %s", strerror(-rc));
		goto out;
	}
	if (a.ifname) {
		live_handle = p;
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
	}
	rc = run(&a, p, cap);
	if (rc)
		goto out;
	rck_cap_finish(cap);
	if (a.svg && (rc = write_svg(a.svg, cap)))
		goto out;
	if (rck_cap_write(cap, stdout, cli->fmt, a.flags))
		rc = fail("cannot write the results");
out:
	rck_cap_free(cap);
	if (p)
		pcap_close(p);
	free(a.filter);
	return rc;
}

int main(int argc, char **argv)
{
	return cli_main(&rocecap, argc, argv);
}
