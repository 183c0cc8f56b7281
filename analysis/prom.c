/* Prometheus text exposition of a sweep for node_exporter's textfile
 * collector: rocecheck_* families, escaped labels, written atomically. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sweep_int.h"

/* A label value: backslash, double quote and newline escaped as the text
 * format wants; other control bytes and bytes past ASCII (names from sysfs
 * need not be UTF-8) become '?'. */
void sw_prom_label(FILE *f, const char *name, const char *v)
{
	fprintf(f, "%s=\"", name);
	for (const unsigned char *p = (const unsigned char *)(v ? v : ""); *p; p++) {
		if (*p == '\\' || *p == '"')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else
			fputc(*p >= 0x20 && *p < 0x7f ? *p : '?', f);
	}
	fputc('"', f);
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void ports(FILE *f, const struct rck_inventory *inv)
{
	static const char *const what[2] = {"rocecheck_port_up", "rocecheck_port_rate_bytes_per_second"};
	static const char *const help[2] = {
		"1 when the RDMA port is ACTIVE and LinkUp, else 0.",
		"Link rate of the RDMA port in bytes per second.",
	};

	for (int m = 0; m < 2; m++) {
		family(f, what[m], "gauge", help[m]);
		for (unsigned int i = 0; i < rck_inventory_device_count(inv); i++) {
			const struct rck_device *d = rck_inventory_device(inv, i);

			for (unsigned int j = 0; j < rck_device_port_count(d); j++) {
				const struct rck_port *p = rck_device_port(d, j);
				const char *st = rck_port_state(p), *ph = rck_port_phys_state(p);
				double rate = 0;
				char num[16];

				if (m && !rck_port_rate_gbps(p, &rate))
					continue;
				snprintf(num, sizeof(num), "%u", rck_port_num(p));
				fprintf(f, "%s{", what[m]);
				sw_prom_label(f, "device", rck_device_name(d));
				fputc(',', f);
				sw_prom_label(f, "port", num);
				if (m)
					fprintf(f, "} %.17g\n", rate * 1e9 / 8);
				else
					fprintf(f, "} %d\n", st && ph && !strcmp(st, "ACTIVE") && !strcmp(ph, "LinkUp"));
			}
		}
	}
}

/* One family per neutral counter (per-priority ones with a priority label);
 * pause durations in seconds. Families no port has are left out. */
static void counters(FILE *f, const struct rck_snapshot *snap)
{
	for (unsigned int id = 0; id < RCK_CTR_COUNT;) {
		int prio;
		const char *name = rck_counter_name((enum rck_counter)id, &prio);
		unsigned int width = prio < 0 ? 1 : 8;
		bool secs = id >= RCK_CTR_PFC_RX_PAUSE_DURATION, any = false;
		char fam[96], help[160];

		snprintf(fam, sizeof(fam), "rocecheck_port_%s%s_total", name, secs ? "_seconds" : "");
		for (unsigned int i = 0; i < rck_snapshot_port_count(snap); i++) {
			for (unsigned int q = 0; q < width; q++) {
				const char *dev;
				unsigned int port;
				uint64_t v;
				char num[16];

				if (rck_snapshot_get(snap, i, (enum rck_counter)(id + q), &v) ||
				    !rck_snapshot_port(snap, i, &dev, &port))
					continue;
				if (!any) {
					snprintf(help, sizeof(help), "RDMA port counter %s (rocecheck-counters(8))%s.",
						 name, secs ? ", in seconds" : "");
					family(f, fam, "counter", help);
					any = true;
				}
				snprintf(num, sizeof(num), "%u", port);
				fprintf(f, "%s{", fam);
				sw_prom_label(f, "device", dev);
				fputc(',', f);
				sw_prom_label(f, "port", num);
				if (prio >= 0)
					fprintf(f, ",priority=\"%u\"", q);
				if (secs)
					fprintf(f, "} %.6f\n", (double)v / 1e6);
				else
					fprintf(f, "} %llu\n", (unsigned long long)v);
			}
		}
		id += width;
	}
}

RCK_EXPORT int rck_sweep_write_prom(const struct rck_sweep *s, FILE *f)
{
	const struct rck_report *r;

	if (!s || !f)
		return -EINVAL;
	r = s->counted;
	family(f, "rocecheck_health", "gauge",
	       "1 when the last sweep judged the host healthy, 0 when degraded.");
	fprintf(f, "rocecheck_health %d\n", rck_sweep_verdict(s) == RCK_VERDICT_HEALTHY);
	if (s->time_ns) {
		family(f, "rocecheck_sweep_timestamp_seconds", "gauge",
		       "Time of the last sweep's counter snapshot, seconds since the epoch.");
		fprintf(f, "rocecheck_sweep_timestamp_seconds %.3f\n", (double)s->time_ns / 1e9);
	}
	family(f, "rocecheck_findings", "gauge",
	       "Findings of the last sweep that count after hysteresis, by code and severity.");
	for (unsigned int c = 0; c < RCK_FINDING_CODE_COUNT; c++) {
		for (unsigned int sev = 0; sev < RCK_SEVERITY_COUNT; sev++) {
			unsigned int n = 0;

			for (unsigned int i = 0; i < r->n_findings; i++)
				n += r->findings[i].code == c && r->findings[i].sev == sev;
			if (!n)
				continue;
			fputs("rocecheck_findings{", f);
			sw_prom_label(f, "code", rck_finding_code_name((enum rck_finding_code)c));
			fputc(',', f);
			sw_prom_label(f, "severity", rck_severity_name((enum rck_severity)sev));
			fprintf(f, "} %u\n", n);
		}
	}
	if (s->inv)
		ports(f, s->inv);
	if (s->snap)
		counters(f, s->snap);
	if (s->pcie)
		sw_prom_pcie(f, s->pcie);
	return ferror(f) ? -EIO : 0;
}

static int prom_fn(FILE *f, const void *arg)
{
	return rck_sweep_write_prom(arg, f);
}

RCK_EXPORT int rck_sweep_save_prom(const struct rck_sweep *s, const char *path)
{
	int rc;

	if (!s || !path || !*path)
		return -EINVAL;
	rc = rck_atomic_check_target(path, NULL);
	return rc ? rc : rck_write_atomic(path, prom_fn, s);
}
