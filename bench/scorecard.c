/* The synthetic scorecard: seeded random faults of every class on rail-aligned
 * fabrics, judged by the analysis with its retests; precision, recall, drains. */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rocecheck/analysis.h>
#include <rocecheck/preflight.h>

#include "fabric.h"

/* usage: scorecard [-n TRIALS] [-s SEED] [-j THREADS] [-z HOSTSxRAILS[:TRIALS],...]
 * [-p PROBE_S] [-o ROUND_OVERHEAD_MS] [-P PASSES] [-J FILE] [-v] [-g drains] [-c CLASS]: TRIALS per
 * class and size (a size's own count first), JSON lines to FILE, -v prints
 * every report with a wrong or missing finding, -g drains fails the run on
 * a false drain alone, -c runs one class alone, -P the retest passes a trial
 * may run (default the preflight's, RCK_PREFLIGHT_RETEST_PASSES; most 64). */
#define MAX_RETEST_PASSES RCK_LINK_RETESTS_MOST
#define MAX_SIZES 16
#define T_PRECISION 0.99
#define T_RECALL 0.995
#define T_LOCAL 0.97

struct acc {
	uint64_t trials, named_ok, named_bad, detected, localised, false_drains, healthy_hosts;
	uint64_t probes, rounds, passes, noisy_false_drains, inconclusive, held, max_rounds;
	uint64_t miss_by_noise[SF_NOISE_COUNT], wrong_by_noise[SF_NOISE_COUNT];
};

struct opts {
	unsigned int trials, threads, n_sizes;
	bool verbose;
	int only;              /* -c CLASS: that class alone; -1 all */
	bool gate_drains;      /* -g drains: only false drains fail the run */
	unsigned int hosts[MAX_SIZES], rails[MAX_SIZES], size_trials[MAX_SIZES]; /* 0: trials */
	unsigned int passes;   /* analyses a trial: -P retest passes + 1 */
	uint64_t seed;
	double probe_s, overhead_s;
	const char *json;
};

struct job {
	const struct opts *o;
	unsigned int size, worker;
	struct acc acc[SF_FAULT_COUNT];
	int rc;
};

static bool eq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Does finding @x name (a part of) the injected fault? */
static bool right(const struct sf_fabric *f, const struct rck_finding *x)
{
	enum rck_entity e = rck_finding_entity(x);
	char vh[16], vp[16], vn[16], vd[16];
	bool nic_here, nic_peer;

	sf_host_name(f->victim_host, vh);
	sf_host_name(f->victim_peer, vp);
	snprintf(vn, sizeof(vn), "mlx5_%u/1", f->victim_rail);
	snprintf(vd, sizeof(vd), "mlx5_%u", f->victim_rail); /* device findings (PCIe) */
	nic_here = eq(rck_finding_host(x), vh) && (eq(rck_finding_nic(x), vn) || eq(rck_finding_nic(x), vd));
	nic_peer = eq(rck_finding_peer_host(x), vh) && eq(rck_finding_peer_nic(x), vn);
	switch (sf_fault_part(f->fault)) {
	case SF_PART_LINK:
		return e == RCK_ENTITY_LINK && nic_here && eq(rck_finding_peer_host(x), vp) &&
		       eq(rck_finding_peer_nic(x), vn);
	case SF_PART_NIC:
		return (e == RCK_ENTITY_NIC && nic_here) || (e == RCK_ENTITY_HOST && eq(rck_finding_host(x), vh)) ||
		       (e == RCK_ENTITY_LINK && (nic_here || nic_peer));
	case SF_PART_HOST:
		return eq(rck_finding_host(x), vh) || (e == RCK_ENTITY_LINK && eq(rck_finding_peer_host(x), vh));
	default:
		return false;
	}
}

/* May host @h be drained for this fault? */
static bool drain_ok(const struct sf_fabric *f, const char *h)
{
	char vh[16], vp[16];

	switch (sf_fault_part(f->fault)) {
	case SF_PART_LINK:
		return eq(h, sf_host_name(f->victim_host, vh)) || eq(h, sf_host_name(f->victim_peer, vp));
	case SF_PART_NIC:
	case SF_PART_HOST:
		return eq(h, sf_host_name(f->victim_host, vh));
	default:
		return false;
	}
}

/* Hosts the report drains that the fault does not allow. */
static unsigned int false_drains(const struct sf_fabric *f, const struct rck_report *r)
{
	unsigned int n = rck_report_drain_count(r), bad = 0;

	for (unsigned int i = 0; i < n; i++) {
		const char *h = NULL;

		if (!rck_report_drain(r, i, &h, NULL) && !drain_ok(f, h))
			bad++;
	}
	return bad;
}

static void judge(const struct sf_fabric *f, const struct rck_report *r, const struct opts *o,
		  struct acc *a)
{
	unsigned int n = rck_report_finding_count(r), ok = 0, bad = 0, fd = false_drains(f, r);
	unsigned int victims = sf_fault_part(f->fault) == SF_PART_NONE ? 0 :
			       sf_fault_part(f->fault) == SF_PART_LINK ? 0 : 1;

	for (unsigned int i = 0; i < n; i++) {
		const struct rck_finding *x = rck_report_finding(r, i);

		if (rck_finding_severity(x) < RCK_SEVERITY_DEGRADED || rck_finding_suspect(x) ||
		    rck_finding_code(x) == RCK_FINDING_DRAIN_HELD)
			continue;
		if (right(f, x))
			ok++;
		else
			bad++;
	}
	if (o->verbose && (bad || fd || (!ok && f->fault != SF_HEALTHY) || rck_report_verdict(r) == RCK_VERDICT_INCONCLUSIVE)) {
		flockfile(stdout);
		printf("-- %s, noise %s, trial seed 0x%016" PRIx64 ", victim n%04u rail %u peer n%04u noisy n%04u: "
		       "%u right, %u wrong, %u false drains\n", sf_fault_name(f->fault), sf_noise_name(f->noise), f->seed,
		       f->victim_host, f->victim_rail, f->victim_peer, f->noisy_host, ok, bad, fd);
		rck_report_write(r, stdout, RCK_FORMAT_TEXT);
		funlockfile(stdout);
	}
	a->trials++;
	a->inconclusive += rck_report_verdict(r) == RCK_VERDICT_INCONCLUSIVE;
	a->held += rck_report_held_count(r) > 0;
	a->named_ok += ok;
	a->named_bad += bad;
	a->detected += ok > 0;
	a->localised += ok > 0 && !bad && !fd;
	if (!ok && f->fault != SF_HEALTHY)
		a->miss_by_noise[f->noise]++;
	if (bad || fd)
		a->wrong_by_noise[f->noise]++;
	a->false_drains += fd;
	if (f->noise == SF_NOISE_NOISY_HOST)
		a->noisy_false_drains += fd;
	a->healthy_hosts += f->hosts - victims;
	a->probes += sf_links(f) + f->retests_done;
	a->rounds += 2 * (f->hosts - 1) + f->slots;
	if (2 * (f->hosts - 1) + f->slots > a->max_rounds)
		a->max_rounds = 2 * (f->hosts - 1) + f->slots;
	a->passes += f->passes;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	const struct opts *o = j->o;
	struct sf_fabric f = {.hosts = o->hosts[j->size], .rails = o->rails[j->size], .mean_gbps = 388,
			      .line_rate = 400, .probe_s = o->probe_s};
	uint64_t base = sf_mix(o->seed ^ sf_mix(((uint64_t)f.hosts << 8) | f.rails));

	unsigned int trials = o->size_trials[j->size] ? o->size_trials[j->size] : o->trials;

	if ((j->rc = sf_init(&f)))
		return NULL;
	for (unsigned int c = 0; c < SF_FAULT_COUNT; c++)
		for (unsigned int t = j->worker; t < trials && (o->only < 0 || (int)c == o->only);
		     t += o->threads) {
			struct rck_report *r = NULL;

			sf_trial(&f, sf_mix(base ^ sf_mix((uint64_t)c << 32 | t)), (enum sf_noise)(t % SF_NOISE_COUNT),
				 (enum sf_fault)c);
			if ((j->rc = sf_run(&f, NULL, o->passes, &r)))
				goto out;
			judge(&f, r, o, &j->acc[c]);
			rck_report_free(r);
		}
out:
	sf_fini(&f);
	return NULL;
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : -1;
}

static void num(FILE *out, double v)
{
	if (v < 0)
		fprintf(out, "     -");
	else
		fprintf(out, " %5.3f", v);
}

static void jnum(FILE *out, const char *key, double v)
{
	if (v < 0)
		fprintf(out, ",\"%s\":null", key);
	else
		fprintf(out, ",\"%s\":%.4f", key, v);
}

/* Print one size's table; returns the number of targets missed. */
static unsigned int report(const struct opts *o, unsigned int s, const struct acc *acc, FILE *json)
{
	unsigned int missed = 0;

	uint64_t trials = 0;

	for (unsigned int c = 0; c < SF_FAULT_COUNT; c++)
		trials = acc[c].trials > trials ? acc[c].trials : trials;
	printf("\n%u hosts x %u rails (%u NICs, %zu probes a sweep), %" PRIu64 " trials a class\n", o->hosts[s],
	       o->rails[s], o->hosts[s] * o->rails[s], (size_t)o->rails[s] * o->hosts[s] * (o->hosts[s] - 1),
	       trials);
	printf("%-16s %6s %6s %6s %9s %6s %6s %8s %7s %7s %6s  %s\n", "class", "prec", "recall", "local", "fd/1000h",
	       "inconc", "held", "probes", "time_s", "max_s", "passes",
	       "misses | wrong, by noise cv2/cv5/cv10/dips/noisy");
	for (unsigned int c = 0; c < SF_FAULT_COUNT; c++) {
		const struct acc *a = &acc[c];

		if (!a->trials)
			continue;
		bool fault = c != SF_HEALTHY, tgt = sf_fault_targeted((enum sf_fault)c);
		double prec = fault ? ratio(a->named_ok, a->named_ok + a->named_bad) : -1;
		double rec = fault ? ratio(a->detected, a->trials) : -1;
		double loc = fault ? ratio(a->localised, a->trials) : -1;
		double fd = 1000.0 * ratio(a->false_drains, a->healthy_hosts);
		double secs = (double)a->rounds / (double)a->trials * (o->probe_s + o->overhead_s);
		double max_s = (double)a->max_rounds * (o->probe_s + o->overhead_s);
		char why[96] = "";

		if (fault && a->named_ok + a->named_bad && prec < T_PRECISION)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), " precision<%.2f", T_PRECISION);
		if (tgt && rec < T_RECALL)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), " recall<%.3f", T_RECALL);
		if (tgt && loc < T_LOCAL)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), " localisation<%.2f", T_LOCAL);
		if (c == SF_HEALTHY && a->named_bad)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), " %" PRIu64 " false findings",
				 a->named_bad);
		printf("%-16s", sf_fault_name((enum sf_fault)c));
		num(stdout, prec);
		num(stdout, rec);
		num(stdout, loc);
		printf(" %9.3f %6.3f %6.3f %8.0f %7.1f %7.1f %6.2f ", fd, ratio(a->inconclusive, a->trials),
		       ratio(a->held, a->trials), ratio(a->probes, a->trials), secs, max_s,
		       ratio(a->passes, a->trials));
		for (unsigned int k = 0; k < SF_NOISE_COUNT; k++)
			printf("%s%" PRIu64, k ? "/" : " ", a->miss_by_noise[k]);
		for (unsigned int k = 0; k < SF_NOISE_COUNT; k++)
			printf("%s%" PRIu64, k ? "/" : " | ", a->wrong_by_noise[k]);
		printf("%s%s\n", *why ? "  MISSED:" : "", why);
		missed += *why != 0;
		if (json) {
			fprintf(json, "{\"hosts\":%u,\"rails\":%u,\"class\":\"%s\",\"trials\":%" PRIu64 ",\"retest_passes\":%u",
				o->hosts[s], o->rails[s], sf_fault_name((enum sf_fault)c), a->trials, o->passes - 1);
			jnum(json, "precision", prec);
			jnum(json, "recall", rec);
			jnum(json, "localisation", loc);
			jnum(json, "inconclusive", ratio(a->inconclusive, a->trials));
			jnum(json, "held", ratio(a->held, a->trials));
			fprintf(json, ",\"false_drains\":%" PRIu64 ",\"false_drains_per_1000_hosts\":%.4f"
				",\"probes\":%.1f,\"modelled_s\":%.2f,\"modelled_max_s\":%.2f,\"passes\":%.2f",
				a->false_drains, fd, ratio(a->probes, a->trials), secs, max_s,
				ratio(a->passes, a->trials));
			for (unsigned int k = 0; k < SF_NOISE_COUNT; k++)
				fprintf(json, "%s%" PRIu64, k ? "," : ",\"missed_by_noise\":[", a->miss_by_noise[k]);
			for (unsigned int k = 0; k < SF_NOISE_COUNT; k++)
				fprintf(json, "%s%" PRIu64, k ? "," : "],\"wrong_by_noise\":[", a->wrong_by_noise[k]);
			fprintf(json, "],\"met\":%s}\n", *why ? "false" : "true");
		}
	}
	return missed;
}

static int parse_sizes(struct opts *o, const char *s)
{
	o->n_sizes = 0;
	while (*s && o->n_sizes < MAX_SIZES) {
		unsigned int h, r, n = 0;
		int used = 0;

		if (sscanf(s, "%ux%u%n", &h, &r, &used) != 2 || h < 4 || h > 1024 || r < 1 || r > 8)
			return -EINVAL;
		s += used;
		if (*s == ':' && (sscanf(s, ":%u%n", &n, &used) != 1 || !n))
			return -EINVAL;
		if (*s == ':')
			s += used;
		o->hosts[o->n_sizes] = h;
		o->size_trials[o->n_sizes] = n;
		o->rails[o->n_sizes++] = r;
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return *s ? -EINVAL : 0;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

int main(int argc, char **argv)
{
	struct opts o = {.trials = 1000, .threads = 2, .seed = 20261204, .probe_s = 1.0, .overhead_s = 0.002,
			 .only = -1, .passes = RCK_PREFLIGHT_RETEST_PASSES + 1};
	unsigned int missed = 0;
	uint64_t fd_quiet = 0, fd_noisy = 0;
	FILE *json = NULL;
	double t0 = now();
	int opt;

	parse_sizes(&o, "16x1,16x8,64x1,64x8,256x1,256x8");
	while ((opt = getopt(argc, argv, "n:s:j:z:p:o:J:vg:c:P:")) != -1) {
		switch (opt) {
		case 'n': o.trials = (unsigned int)strtoul(optarg, NULL, 10); break;
		case 's': o.seed = strtoull(optarg, NULL, 0); break;
		case 'j': o.threads = (unsigned int)strtoul(optarg, NULL, 10); break;
		case 'z':
			if (parse_sizes(&o, optarg)) {
				fprintf(stderr, "scorecard: bad sizes '%s' (HOSTSxRAILS,...)\n", optarg);
				return 2;
			}
			break;
		case 'p': o.probe_s = atof(optarg); break;
		case 'P': o.passes = (unsigned int)strtoul(optarg, NULL, 10) + 1; break;
		case 'o': o.overhead_s = atof(optarg) / 1000; break;
		case 'J': o.json = optarg; break;
		case 'v': o.verbose = true; break;
		case 'c':
			for (o.only = 0; o.only < SF_FAULT_COUNT; o.only++)
				if (!strcmp(optarg, sf_fault_name((enum sf_fault)o.only)))
					break;
			if (o.only == SF_FAULT_COUNT) {
				fprintf(stderr, "scorecard: no class '%s'\n", optarg);
				return 2;
			}
			break;
		case 'g':
			if (strcmp(optarg, "drains")) {
				fprintf(stderr, "scorecard: -g takes 'drains'\n");
				return 2;
			}
			o.gate_drains = true;
			break;
		default:
			fprintf(stderr, "usage: scorecard [-n TRIALS] [-s SEED] [-j THREADS] [-z HxR[:N],...] [-p PROBE_S] "
					"[-o OVERHEAD_MS] [-P PASSES] [-J FILE] [-v] [-g drains] [-c CLASS]\n");
			return 2;
		}
	}
	if (o.passes < 1 || o.passes > MAX_RETEST_PASSES + 1) {
		fprintf(stderr, "scorecard: -P takes 0 to %u retest passes\n", MAX_RETEST_PASSES);
		return 2;
	}
	if (!o.trials || !o.threads || o.threads > 64 || !(o.probe_s > 0)) {
		fprintf(stderr, "scorecard: trials, threads and probe time must be positive\n");
		return 2;
	}
	if (o.json && !(json = fopen(o.json, "w"))) {
		fprintf(stderr, "scorecard: %s: %s\n", o.json, strerror(errno));
		return 2;
	}
	/* Each pass allocates and frees arrays of every link (tens of MB at
	 * 256 x 8): kept in the heap, they are not mapped and zeroed by the
	 * kernel again every pass (a fifth of the run's time was page faults). */
	mallopt(M_MMAP_THRESHOLD, 32 << 20); /* glibc's largest */
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	if (sf_fixtures_init())
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0); /* a long run's log shows each size as it ends */
	printf("scorecard: seed %" PRIu64 ", %u trials per class and size unless a size says, %u threads, probes %.2f s + %.1f ms a round\n",
	       o.seed, o.trials, o.threads, o.probe_s, o.overhead_s * 1000);
	printf("retest passes: at most %u a trial%s\n", o.passes - 1,
	       o.passes - 1 == RCK_PREFLIGHT_RETEST_PASSES ? " (the preflight's default)" : "");
	printf("noise models by trial number mod 5: CV 2%%, 5%%, 10%%, CV 2%% with a probe in 50 at half speed, "
	       "CV 2%% with one host at CV 15%%\n");
	printf("prec: right findings / findings (degraded or worse); recall: trials naming the fault; local: trials "
	       "naming it, nothing else, no other host drained\n");
	for (unsigned int s = 0; s < o.n_sizes; s++) {
		struct job *jobs = calloc(o.threads, sizeof(*jobs));
		pthread_t *tids = calloc(o.threads, sizeof(*tids));
		struct acc sum[SF_FAULT_COUNT] = {{0}};
		double ts = now(), cs = clock_s(CLOCK_PROCESS_CPUTIME_ID);

		if (!jobs || !tids)
			return 2;
		for (unsigned int w = 0; w < o.threads; w++) {
			jobs[w] = (struct job){.o = &o, .size = s, .worker = w};
			if (pthread_create(&tids[w], NULL, worker, &jobs[w]))
				return 2;
		}
		for (unsigned int w = 0; w < o.threads; w++) {
			pthread_join(tids[w], NULL);
			if (jobs[w].rc) {
				fprintf(stderr, "scorecard: a trial failed: %s\n", strerror(-jobs[w].rc));
				return 2;
			}
			for (unsigned int c = 0; c < SF_FAULT_COUNT; c++) {
				uint64_t *d = (uint64_t *)&sum[c];
				const uint64_t *x = (const uint64_t *)&jobs[w].acc[c];
				uint64_t mx = sum[c].max_rounds > jobs[w].acc[c].max_rounds ? sum[c].max_rounds
											    : jobs[w].acc[c].max_rounds;

				for (size_t k = 0; k < sizeof(struct acc) / sizeof(uint64_t); k++)
					d[k] += x[k];
				sum[c].max_rounds = mx; /* a maximum, not a sum */
			}
		}
		missed += report(&o, s, sum, json);
		if (json)
			fflush(json);
		fd_quiet += sum[SF_HEALTHY].false_drains;
		for (unsigned int c = 0; c < SF_FAULT_COUNT; c++)
			fd_noisy += sum[c].noisy_false_drains;
		printf("(%.1f s, %.1f s of CPU)\n", now() - ts, clock_s(CLOCK_PROCESS_CPUTIME_ID) - cs);
		free(jobs);
		free(tids);
	}
	printf("\nfalse drains: %" PRIu64 " in healthy trials, %" PRIu64 " in noisy-host trials (target 0)\n", fd_quiet,
	       fd_noisy);
	if (fd_quiet + fd_noisy)
		missed++;
	if (json) {
		fprintf(json, "{\"seed\":%" PRIu64 ",\"trials\":%u,\"false_drains_healthy\":%" PRIu64
			",\"false_drains_noisy_host\":%" PRIu64 ",\"targets_missed\":%u}\n",
			o.seed, o.trials, fd_quiet, fd_noisy, missed);
		if (fclose(json))
			return 2;
	}
	/* Under -g drains the verdict is the drains', the misses a count. */
	if (o.gate_drains)
		printf("scorecard: %.1f s, %.1f s of CPU; %s on false drains (%u other targets missed)\n",
		       now() - t0, clock_s(CLOCK_PROCESS_CPUTIME_ID), fd_quiet + fd_noisy ? "FAIL" : "PASS",
		       missed);
	else
		printf("scorecard: %.1f s, %.1f s of CPU; %s (%u targets missed)\n", now() - t0,
		       clock_s(CLOCK_PROCESS_CPUTIME_ID), missed ? "FAIL" : "PASS", missed);
	/* -g drains: only a false drain fails the run (the first rule); the
	 * other targets are printed above, MISSED where missed. */
	if (o.gate_drains)
		return fd_quiet + fd_noisy ? 1 : 0;
	return missed ? 1 : 0;
}
