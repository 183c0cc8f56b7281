/* One host sweep: the analysis' host checks on this run's inventory and
 * counter delta, resets and reboots, probes, then K-of-N hysteresis. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "sweep_int.h"

char *sw_finding_key(const struct rck_finding *f)
{
	char *key;

	if (asprintf(&key, "%s|%s|%s|%s|%s|%s", rck_finding_code_name(f->code), f->host ? f->host : "",
		     f->nic ? f->nic : "", f->peer_host ? f->peer_host : "",
		     f->peer_nic ? f->peer_nic : "", f->n_values ? f->keys[0] : "") < 0)
		return NULL;
	return key;
}

RCK_EXPORT const char *rck_sweep_hold_name(enum rck_sweep_hold h)
{
	static const char *const n[] = {"counts", "pending", "clearing"};

	return (unsigned int)h < RCK_SWEEP_HOLD_COUNT ? n[h] : NULL;
}

/* Ports whose counters went backwards were reset (driver reload, firmware
 * reset, counters cleared): every neutral value of such a port is dropped
 * from the delta, so one that has since grown past its old value is not
 * judged as a huge increase, and the port gets one counter_reset finding. */
static void drop_reset_ports(struct rck_delta *d, struct rck_report *r, const char *host)
{
	for (unsigned int i = 0; i < d->n_ports; i++) {
		struct ctr_dport *p = &d->ports[i];
		char names[160] = "", nic[96];
		unsigned int n = 0;
		size_t used = 0;
		struct rck_finding *f;

		for (unsigned int id = 0; id < RCK_CTR_COUNT; id++) {
			const char *name = rck_counter_name((enum rck_counter)id, NULL);

			if (p->neutral[id].state != RCK_DELTA_RESET)
				continue;
			if (n++ < 3 && used < sizeof(names)) {
				int w = snprintf(names + used, sizeof(names) - used, "%s%s",
						 used ? ", " : "", name);
				used += w > 0 ? (size_t)w : 0;
			}
		}
		if (!n)
			continue;
		for (unsigned int id = 0; id < RCK_CTR_COUNT; id++)
			p->neutral[id].state = RCK_DELTA_ABSENT;
		for (size_t k = 0; k < p->n_raw; k++)
			p->raw[k].d.state = RCK_DELTA_ABSENT;
		snprintf(nic, sizeof(nic), "%s/%u", p->dev, p->port);
		f = an_add(r, RCK_FINDING_COUNTER_RESET, RCK_SEVERITY_INFO, RCK_ENTITY_NIC, host, nic,
			   NULL, NULL, "%u counter%s went backwards (%s%s): reset, not judged this run",
			   n, n > 1 ? "s" : "", names, n > 3 ? ", ..." : "");
		an_value(f, "counters_reset", n);
	}
}

static void add_probes(struct rck_sweep *s, struct rck_report *r)
{
	for (unsigned int i = 0; i < s->n_probes; i++) {
		const struct rck_sweep_probe_copy *p = &s->probes[i];
		char nic[96];

		if (p->ok)
			continue;
		if (p->device) {
			snprintf(nic, sizeof(nic), "%s/%u", p->device, p->port);
			an_add(r, RCK_FINDING_PROBE_FAILED, RCK_SEVERITY_DEGRADED, RCK_ENTITY_NIC, s->host,
			       nic, NULL, NULL, "loopback probe (%s) failed: %s", p->transport,
			       p->error ? p->error : "unknown error");
		} else {
			an_add(r, RCK_FINDING_PROBE_FAILED, RCK_SEVERITY_DEGRADED, RCK_ENTITY_HOST, s->host,
			       NULL, NULL, NULL, "loopback probe (%s) failed: %s", p->transport,
			       p->error ? p->error : "unknown error");
		}
	}
}

static int copy_probes(struct rck_sweep *s, const struct rck_sweep_input *in)
{
	if (!in->n_probes)
		return 0;
	s->probes = calloc(in->n_probes, sizeof(*s->probes));
	if (!s->probes)
		return -ENOMEM;
	for (unsigned int i = 0; i < in->n_probes; i++) {
		const struct rck_sweep_probe *p = &in->probes[i];
		struct rck_sweep_probe_copy *c = &s->probes[i];

		if (p->size < sizeof(*p))
			return -EINVAL;
		s->n_probes++;
		c->port = p->port;
		c->ok = p->ok;
		c->gbps = p->gbps;
		if ((p->device && !(c->device = strdup(p->device))) ||
		    !(c->transport = strdup(p->transport ? p->transport : "tcp")) ||
		    (p->error && !(c->error = strdup(p->error))))
			return -ENOMEM;
	}
	return 0;
}

static unsigned int inventory_ports(const struct rck_inventory *inv)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < rck_inventory_device_count(inv); i++)
		n += rck_device_port_count(rck_inventory_device(inv, i));
	return n;
}

/* This run's findings before hysteresis: the analysis of the host, resets
 * and reboot, probes. */
static const struct rck_pcie *input_pcie(const struct rck_sweep_input *in)
{
	return in->size >= offsetof(struct rck_sweep_input, pcie) + sizeof(in->pcie) ? in->pcie : NULL;
}

static int judge(struct rck_sweep *s, const struct rck_sweep_input *in,
		 const struct rck_sweep_state *st, struct rck_report **out)
{
	struct rck_analysis *a = NULL;
	struct rck_report *ar = NULL, *r = sw_report_new();
	struct rck_delta *d = NULL;
	int rc;

	if (!r)
		return -ENOMEM;
	if (s->rebooted) {
		an_add(r, RCK_FINDING_COUNTER_RESET, RCK_SEVERITY_INFO, RCK_ENTITY_HOST, s->host, NULL,
		       NULL, NULL, "the host rebooted since the last sweep (boot id changed): counters "
		       "start again, not compared this run");
	} else if (st && st->snap && in->snap) {
		rc = rck_delta_new(st->snap, in->snap, &d);
		if (rc == -EINVAL) {
			an_add(r, RCK_FINDING_COUNTER_RESET, RCK_SEVERITY_INFO, RCK_ENTITY_HOST, s->host,
			       NULL, NULL, NULL, "the previous snapshot is newer than this one (clock "
			       "set back?): counters not compared this run");
		} else if (rc) {
			goto out;
		} else {
			drop_reset_ports(d, r, s->host);
			s->seconds = rck_delta_seconds(d);
		}
	}
	rc = rck_analysis_new(in->th, &a);
	if (!rc)
		rc = rck_analysis_add_host(a, s->host, in->inv, d, NULL);
	/* AER counts restart at boot: compared only within one. */
	if (!rc && input_pcie(in))
		rc = rck_analysis_set_host_pcie(a, 0, input_pcie(in), st && !s->rebooted ? st->pcie_aer : NULL);
	if (!rc)
		rc = rck_analysis_run(a, &ar);
	if (rc)
		goto out;
	for (unsigned int i = 0; i < ar->n_findings; i++)
		sw_report_copy(r, &ar->findings[i]);
	if (!inventory_ports(in->inv))
		an_add(r, RCK_FINDING_PORT_MISSING, RCK_SEVERITY_CRITICAL, RCK_ENTITY_HOST, s->host, NULL,
		       NULL, NULL, "no RDMA port found (driver not loaded, or the NIC is gone)");
	add_probes(s, r);
	an_finish(r);   /* most severe first */
	rc = r->err;
out:
	rck_report_free(ar);
	rck_analysis_free(a);
	rck_delta_free(d);
	if (rc) {
		rck_report_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

/* The next state, built aside so a failure leaves the caller's untouched. */
struct next {
	struct sw_run run;                      /* this run's keys */
	struct sw_entry *entries;
	unsigned int n_entries, cap_entries;
};

static struct sw_entry *entry_find(struct sw_entry *e, unsigned int n, const char *key)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;
		int c = strcmp(e[mid].key, key);

		if (!c)
			return &e[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int entry_from(struct sw_entry *e, const char *key, const struct rck_finding *f)
{
	memset(e, 0, sizeof(*e));
	e->code = f->code;
	e->sev = f->sev;
	e->ent = f->entity;
	if (!(e->key = strdup(key)) || (f->host && !(e->host = strdup(f->host))) ||
	    (f->nic && !(e->nic = strdup(f->nic))) ||
	    (f->peer_host && !(e->peer_host = strdup(f->peer_host))) ||
	    (f->peer_nic && !(e->peer_nic = strdup(f->peer_nic))) ||
	    (f->reason && !(e->reason = strdup(f->reason))))
		return -ENOMEM;
	return 0;
}

/* A remembered finding as a finding (no values: the state keeps none). */
static struct rck_finding entry_finding(const struct sw_entry *e)
{
	return (struct rck_finding){
		.code = e->code, .sev = e->sev, .entity = e->ent, .host = e->host, .nic = e->nic,
		.peer_host = e->peer_host, .peer_nic = e->peer_nic, .reason = e->reason,
	};
}

static struct sw_entry *next_entry(struct next *nx)
{
	if (nx->n_entries == nx->cap_entries) {
		unsigned int nc = nx->cap_entries ? nx->cap_entries * 2 : 16;
		struct sw_entry *p = realloc(nx->entries, nc * sizeof(*p));

		if (!p)
			return NULL;
		nx->entries = p;
		nx->cap_entries = nc;
	}
	return &nx->entries[nx->n_entries++];
}

static void next_clear(struct next *nx)
{
	sw_run_clear(&nx->run);
	for (unsigned int i = 0; i < nx->n_entries; i++)
		sw_entry_clear(&nx->entries[i]);
	free(nx->entries);
}

/* How often @key was seen in the window: the state's newest n-1 runs and
 * this one. */
static unsigned int seen(const struct rck_sweep_state *st, unsigned int first, const struct sw_run *now,
			 const char *key, unsigned int *window)
{
	unsigned int n = sw_run_has(now, key);

	*window = 1 + st->n_runs - first;
	for (unsigned int i = first; i < st->n_runs; i++)
		n += sw_run_has(&st->runs[i], key);
	return n;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct sw_entry *)a)->key, ((const struct sw_entry *)b)->key);
}

/* Add finding @f with hold @hold to s->all and, when it counts, to s->counted. */
static int item_add(struct rck_sweep *s, const struct rck_finding *f, enum rck_sweep_hold hold)
{
	struct sw_item *p = realloc(s->items, (s->n_items + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	s->items = p;
	if (!sw_report_copy(s->all, f) || (hold != RCK_SWEEP_PENDING && !sw_report_copy(s->counted, f)))
		return -ENOMEM;
	s->items[s->n_items++] = (struct sw_item){ .idx = s->all->n_findings - 1, .hold = hold };
	return 0;
}

/* The hysteresis: which of this run's findings (@r) and of the state's
 * remembered ones count, and the next state's keys and entries. */
static int hold(struct rck_sweep *s, const struct rck_report *r, const struct rck_sweep_state *st,
		struct next *nx)
{
	unsigned int first = st->n_runs >= s->hold_n ? st->n_runs - (s->hold_n - 1) : 0;
	char **keys = calloc(r->n_findings + 1, sizeof(*keys));
	int rc = 0;

	if (!keys)
		return -ENOMEM;
	nx->run.keys = keys;
	for (unsigned int i = 0; i < r->n_findings; i++) {
		if (r->findings[i].sev == RCK_SEVERITY_INFO)
			continue;
		if (!(keys[nx->run.n_keys] = sw_finding_key(&r->findings[i])))
			return -ENOMEM;
		nx->run.n_keys++;
	}
	nx->run.n_keys = sw_keys_sort(keys, nx->run.n_keys);
	/* This run's findings. */
	for (unsigned int i = 0; i < r->n_findings && !rc; i++) {
		const struct rck_finding *f = &r->findings[i];
		const struct sw_entry *old, *dup;
		struct sw_entry *e;
		unsigned int n, window;
		bool counts;
		char *key;

		if (f->sev == RCK_SEVERITY_INFO) {
			rc = item_add(s, f, RCK_SWEEP_COUNTS);
			continue;
		}
		if (!(key = sw_finding_key(f)))
			return -ENOMEM;
		if ((dup = entry_find(nx->entries, nx->n_entries, key))) {
			free(key);      /* a second finding with the same key: judged once */
			rc = item_add(s, f, dup->counts ? RCK_SWEEP_COUNTS : RCK_SWEEP_PENDING);
			continue;
		}
		old = entry_find(st->entries, st->n_entries, key);
		n = seen(st, first, &nx->run, key, &window);
		counts = old && old->counts ? window - n < s->hold_k : n >= s->hold_k;
		e = next_entry(nx);
		rc = e ? entry_from(e, key, f) : -ENOMEM;
		free(key);
		if (rc)
			return rc;
		e->counts = counts;
		/* Kept sorted for entry_find(): few findings, insertion is cheap. */
		qsort(nx->entries, nx->n_entries, sizeof(*nx->entries), cmp_entry);
		rc = item_add(s, f, counts ? RCK_SWEEP_COUNTS : RCK_SWEEP_PENDING);
	}
	/* Remembered findings not seen now: clearing while they count, kept
	 * while the window still holds them. */
	for (unsigned int i = 0; i < st->n_entries && !rc; i++) {
		const struct sw_entry *old = &st->entries[i];
		unsigned int n, window;
		struct rck_finding f;
		struct sw_entry *e;
		bool counts;

		if (sw_run_has(&nx->run, old->key))
			continue;
		n = seen(st, first, &nx->run, old->key, &window);
		counts = old->counts && window - n < s->hold_k;
		if (!counts && !n)
			continue;
		f = entry_finding(old);
		e = next_entry(nx);
		if (!e || entry_from(e, old->key, &f))
			return -ENOMEM;
		e->counts = counts;
		if (counts)
			rc = item_add(s, &f, RCK_SWEEP_CLEARING);
	}
	if (!rc && nx->n_entries)
		qsort(nx->entries, nx->n_entries, sizeof(*nx->entries), cmp_entry);
	return rc;
}

static void state_commit(struct rck_sweep_state *st, struct next *nx, const struct rck_sweep *s,
			 char *boot_id, struct rck_snapshot *snap, uint64_t now)
{
	/* Keep the newest n-1 runs, then this one. */
	while (st->n_runs && st->n_runs >= s->hold_n) {
		sw_run_clear(&st->runs[0]);
		memmove(&st->runs[0], &st->runs[1], (st->n_runs - 1) * sizeof(st->runs[0]));
		memset(&st->runs[--st->n_runs], 0, sizeof(st->runs[0]));
	}
	nx->run.time_ns = now;
	st->runs[st->n_runs++] = nx->run;
	memset(&nx->run, 0, sizeof(nx->run));
	for (unsigned int i = 0; i < st->n_entries; i++)
		sw_entry_clear(&st->entries[i]);
	free(st->entries);
	st->entries = nx->entries;
	st->n_entries = nx->n_entries;
	nx->entries = NULL;
	nx->n_entries = nx->cap_entries = 0;
	free(st->boot_id);
	st->boot_id = boot_id;
	if (snap) {
		rck_snapshot_free(st->snap);
		st->snap = snap;
	}
	st->time_ns = now;
	st->hold_k = s->hold_k;
	st->hold_n = s->hold_n;
}

/* A copy of @snap to keep in the state (through its JSON, which carries
 * every value exactly). */
static int snap_copy(const struct rck_snapshot *snap, struct rck_snapshot **out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int rc;

	if (!mem)
		return -ENOMEM;
	rc = rck_snapshot_write_all(snap, mem, RCK_FORMAT_JSON, true);
	if (fclose(mem) && !rc)
		rc = -ENOMEM;
	if (!rc)
		rc = ctr_snapshot_parse(NULL, "snapshot", buf, len, out);
	free(buf);
	return rc;
}

static int check_input(const struct rck_sweep_input *in, unsigned int *k, unsigned int *n)
{
	/* Callers built before @pcie was added pass the shorter size. */
	if (!in || in->size < offsetof(struct rck_sweep_input, pcie) || !in->inv || (in->n_probes && !in->probes))
		return -EINVAL;
	if (in->boot_id && strlen(in->boot_id) > RCK_SWEEP_BOOT_ID_MAX)
		return -EINVAL;
	*k = in->hold_k;
	*n = in->hold_n;
	if (!*k && !*n) {
		*k = RCK_SWEEP_HOLD_K;
		*n = RCK_SWEEP_HOLD_N;
	}
	if (!*k || *k > *n || *n > RCK_SWEEP_HOLD_MAX)
		return -EINVAL;
	return 0;
}

RCK_EXPORT int rck_sweep_run(const struct rck_sweep_input *in, struct rck_sweep_state *st,
			     struct rck_sweep **out)
{
	struct rck_snapshot *keep = NULL;
	struct rck_report *r = NULL;
	struct next nx = { 0 };
	struct rck_sweep *s;
	char *boot_id = NULL;
	unsigned int k, n;
	int rc;

	if (!out || (rc = check_input(in, &k, &n)))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->hold_k = st ? k : 1;
	s->hold_n = st ? n : 1;
	s->inv = in->inv;
	s->snap = in->snap;
	s->pcie = input_pcie(in);
	s->time_ns = in->snap ? rck_snapshot_time_ns(in->snap) : 0;
	s->rebooted = st && st->boot_id && in->boot_id && strcmp(st->boot_id, in->boot_id);
	rc = -ENOMEM;
	if (!(s->host = strdup(in->host ? in->host : "localhost")) ||
	    (in->boot_id && !(s->boot_id = strdup(in->boot_id))) ||
	    !(s->all = sw_report_new()) || !(s->counted = sw_report_new()))
		goto fail;
	if ((rc = copy_probes(s, in)) || (rc = judge(s, in, st, &r)))
		goto fail;
	if (st) {
		rc = -ENOMEM;
		if ((in->boot_id && !(boot_id = strdup(in->boot_id))) ||
		    (in->snap && (rc = snap_copy(in->snap, &keep))) || (rc = hold(s, r, st, &nx)))
			goto fail;
		if (s->all->err || s->counted->err)
			goto fail;
		s->runs = st->n_runs >= s->hold_n ? s->hold_n : st->n_runs + 1;
		state_commit(st, &nx, s, boot_id, keep, s->time_ns ? s->time_ns : st->time_ns);
		boot_id = NULL;
		keep = NULL;
		sw_keep_aer(st, input_pcie(in));
	} else {
		for (unsigned int i = 0; i < r->n_findings && !rc; i++)
			rc = item_add(s, &r->findings[i], RCK_SWEEP_COUNTS);
		s->runs = 1;
		if (rc)
			goto fail;
	}
	an_finish(s->counted);
	rck_report_free(r);
	next_clear(&nx);
	*out = s;
	return 0;
fail:
	rck_report_free(r);
	next_clear(&nx);
	free(boot_id);
	rck_snapshot_free(keep);
	rck_sweep_free(s);
	return rc ? rc : -ENOMEM;
}

RCK_EXPORT void rck_sweep_free(struct rck_sweep *s)
{
	if (!s)
		return;
	for (unsigned int i = 0; i < s->n_probes; i++) {
		free(s->probes[i].device);
		free(s->probes[i].transport);
		free(s->probes[i].error);
	}
	free(s->probes);
	rck_report_free(s->counted);
	rck_report_free(s->all);
	free(s->items);
	free(s->host);
	free(s->boot_id);
	free(s);
}

RCK_EXPORT enum rck_verdict rck_sweep_verdict(const struct rck_sweep *s)
{
	return s->counted->verdict;
}

RCK_EXPORT const struct rck_report *rck_sweep_report(const struct rck_sweep *s)
{
	return s->counted;
}

RCK_EXPORT unsigned int rck_sweep_finding_count(const struct rck_sweep *s)
{
	return s->n_items;
}

RCK_EXPORT const struct rck_finding *rck_sweep_finding(const struct rck_sweep *s, unsigned int i,
						       enum rck_sweep_hold *h)
{
	if (i >= s->n_items)
		return NULL;
	if (h)
		*h = s->items[i].hold;
	return &s->all->findings[s->items[i].idx];
}

RCK_EXPORT bool rck_sweep_rebooted(const struct rck_sweep *s)
{
	return s->rebooted;
}

RCK_EXPORT double rck_sweep_seconds(const struct rck_sweep *s)
{
	return s->seconds;
}
