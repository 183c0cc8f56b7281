/* rocecap: packet-level evidence of PFC, ECN, CNPs and loss from a pcap or
 * pcapng file or a live interface. One option table drives parsing and help. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define SNAPLEN 256            /* every header rocecap reads fits */
#define LIVE_POLL_MS 100

enum {
	OPT_SPEED = 256, OPT_FLOWS, OPT_TIMELINE, OPT_SVG, OPT_INTERVAL, OPT_MAX_FLOWS,
	OPT_STORM_WINDOW, OPT_STORM_SHARE, OPT_OPCODES,
};

/* The option table: getopt's long options, the short string and the
 * usage text all come from it. */
struct cap_opt {
	const char *name;
	int val;
	const char *arg;       /* NULL: a flag */
	const char *help;
};

static const struct cap_opt options[] = {
	{ "read", 'r', "FILE", "read a pcap or pcapng file ('-': standard input)" },
	{ "interface", 'i', "IF", "capture live on IF (needs CAP_NET_RAW)" },
	{ "count", 'c', "COUNT", "stop after COUNT frames" },
	{ "seconds", 'G', "SECONDS", "stop after SECONDS (live: wall clock; file: capture time)" },
	{ "speed", OPT_SPEED, "GBPS", "link speed for pause quanta (default: IF's speed, else 100)" },
	{ "json", 'j', NULL, "JSON output (schemas/rocecap.schema.json)" },
	{ "pretty", 'p', NULL, "indented JSON (implies -j)" },
	{ "flows", OPT_FLOWS, NULL, "text: every flow, not only the 10 worst" },
	{ "opcodes", OPT_OPCODES, NULL, "text: packets per BTH opcode" },
	{ "timeline", OPT_TIMELINE, NULL, "pause time and CE marks per interval" },
	{ "timeline-svg", OPT_SVG, "FILE", "write the timeline as an SVG plot" },
	{ "interval", OPT_INTERVAL, "SECONDS", "timeline interval (default 1)" },
	{ "max-flows", OPT_MAX_FLOWS, "N", "flows followed at most (default 65536)" },
	{ "storm-window", OPT_STORM_WINDOW, "SECONDS", "pause storm window (default 0.1)" },
	{ "storm-share", OPT_STORM_SHARE, "FRACTION", "paused share that makes a storm (default 0.5)" },
	{ "version", 'V', NULL, "print the version" },
	{ "help", 'h', NULL, "this help" },
	{ 0 }
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

static const char *prog = "rocecap";
static volatile sig_atomic_t stop;
static pcap_t *live_handle;

static void usage(FILE *f)
{
	fprintf(f, "Usage: %s -r FILE | -i IF [-c COUNT] [-G SECONDS] [--speed GBPS] [-j] [--flows]\n"
		   "       [--timeline] [--timeline-svg FILE] [OPTIONS] [FILTER]\n\n"
		   "FILTER is a BPF expression as in tcpdump.\n\nOptions:\n", prog);
	for (const struct cap_opt *o = options; o->name; o++) {
		char syn[48];

		if (o->val < 256)
			snprintf(syn, sizeof(syn), "-%c, --%s%s%s", o->val, o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		else
			snprintf(syn, sizeof(syn), "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-28s %s\n", syn, o->help);
	}
}

/* One error line "rocecap: ..."; bad arguments add the usage. */
static int complain(int rc, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static int complain(int rc, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	if (rc == EXIT_USAGE)
		usage(stderr);
	return rc;
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = complain(EXIT_USAGE, fmt, ap);
	va_end(ap);
	return rc;
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = complain(EXIT_FAIL, fmt, ap);
	va_end(ap);
	return rc;
}

static const struct cap_opt *find_opt(int val)
{
	for (const struct cap_opt *o = options; o->name; o++)
		if (o->val == val)
			return o;
	return NULL;
}

static int number(int val, const char *arg, double lo, double hi, double *out)
{
	const struct cap_opt *o = find_opt(val);

	if (cli_parse_double(arg, lo, hi, out))
		return bad("invalid --%s '%s': %g to %g", o ? o->name : "?", arg, lo, hi);
	return 0;
}

/* The remaining words are the filter, joined as tcpdump joins them. */
static int join_filter(struct args *a, int argc, char **argv)
{
	size_t len = 1;

	for (int i = optind; i < argc; i++)
		len += strlen(argv[i]) + 1;
	if (optind >= argc)
		return 0;
	a->filter = calloc(1, len);
	if (!a->filter)
		return fail("out of memory");
	for (int i = optind; i < argc; i++) {
		if (i > optind)
			strcat(a->filter, " ");
		strcat(a->filter, argv[i]);
	}
	return 0;
}

static int parse(int argc, char **argv, struct args *a, enum rck_format *fmt)
{
	struct option lopts[sizeof(options) / sizeof(options[0])];
	char shorts[64] = "+:";
	size_t n = 0, s = 2;
	unsigned long ul;
	double d;
	int c, rc;

	for (const struct cap_opt *o = options; o->name; o++, n++) {
		lopts[n] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL, o->val };
		if (o->val < 256) {
			shorts[s++] = (char)o->val;
			if (o->arg)
				shorts[s++] = ':';
		}
	}
	lopts[n] = (struct option){ 0 };
	shorts[s] = '\0';
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		rc = 0;
		switch (c) {
		case 'r':
			a->file = optarg;
			break;
		case 'i':
			a->ifname = optarg;
			break;
		case 'c':
			if (cli_parse_uint(optarg, 1, ULONG_MAX, &a->count))
				return bad("invalid -c '%s': a count of frames, 1 or more", optarg);
			break;
		case 'G':
			rc = number(c, optarg, 1e-6, 1e7, &a->seconds);
			break;
		case OPT_SPEED:
			rc = number(c, optarg, 0.01, 10000, &a->o.speed_gbps);
			a->speed_set = true;
			break;
		case 'j':
			if (*fmt == RCK_FORMAT_TEXT)
				*fmt = RCK_FORMAT_JSON;
			break;
		case 'p':
			*fmt = RCK_FORMAT_JSON_PRETTY;
			break;
		case OPT_FLOWS:
			a->flags |= RCK_CAP_WRITE_FLOWS;
			break;
		case OPT_OPCODES:
			a->flags |= RCK_CAP_WRITE_OPCODES;
			break;
		case OPT_TIMELINE:
			a->flags |= RCK_CAP_WRITE_TIMELINE;
			break;
		case OPT_SVG:
			if (!*optarg)
				return bad("--timeline-svg needs a file name");
			a->svg = optarg;
			break;
		case OPT_INTERVAL:
			rc = number(c, optarg, 1e-6, 86400, &a->o.interval_s);
			break;
		case OPT_MAX_FLOWS:
			if (cli_parse_uint(optarg, 1, 1u << 24, &ul))
				return bad("invalid --max-flows '%s': 1 to %u", optarg, 1u << 24);
			a->o.max_flows = (unsigned int)ul;
			break;
		case OPT_STORM_WINDOW:
			rc = number(c, optarg, 1e-6, 3600, &a->o.storm_window_s);
			break;
		case OPT_STORM_SHARE:
			rc = number(c, optarg, 0, 1, &d);
			a->o.storm_share = d;
			break;
		case 'V':
			printf("%s %s\n", prog, rck_version());
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			return bad("option '%s' needs a value", argv[optind - 1]);
		default:
			return bad("unknown option '%s'", argv[optind - 1]);
		}
		if (rc)
			return rc;
	}
	if (optind < argc && !strcmp(argv[optind], "help")) {
		usage(stdout);
		exit(0);
	}
	if (!a->file == !a->ifname)
		return bad(a->file ? "-r and -i exclude each other" : "give -r FILE or -i IF");
	return join_filter(a, argc, argv);
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

static int open_file(const struct args *a, pcap_t **out)
{
	char err[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_open_offline_with_tstamp_precision(a->file, PCAP_TSTAMP_PRECISION_NANO, err);

	/* libpcap's message names the file already. */
	if (!p)
		return fail("%s", err);
	*out = p;
	return 0;
}

static int set_filter(pcap_t *p, const char *filter)
{
	struct bpf_program prog_;

	if (!filter)
		return 0;
	if (pcap_compile(p, &prog_, filter, 1, PCAP_NETMASK_UNKNOWN) < 0)
		return bad("invalid filter '%s': %s", filter, pcap_geterr(p));
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
		if (rc == 0)
			continue; /* live: the poll timeout passed without a frame */
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

int main(int argc, char **argv)
{
	enum rck_format fmt = RCK_FORMAT_TEXT;
	struct args a = { 0 };
	struct rck_cap *cap = NULL;
	pcap_t *p = NULL;
	int rc;

	rck_cap_opts_init(&a.o);
	rc = parse(argc, argv, &a, &fmt);
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
	if (rck_cap_write(cap, stdout, fmt, a.flags))
		rc = fail("cannot write the results");
out:
	rck_cap_free(cap);
	if (p)
		pcap_close(p);
	free(a.filter);
	return rc;
}
