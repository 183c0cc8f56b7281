/* Sweep writers: the JSON of schemas/sweep.schema.json, a text form (summary,
 * probes, findings with their hold state), and the one-line NPD message. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "sweep_int.h"
#include "units.h"

static void write_probes(struct emit *e, const struct rck_sweep *s)
{
	emit_arr_open(e, "probes");
	for (unsigned int i = 0; i < s->n_probes; i++) {
		const struct rck_sweep_probe_copy *p = &s->probes[i];

		emit_obj_open(e, NULL);
		emit_text(e, "probe ");
		emit_str(e, "device", "%s", p->device ? p->device : "host");
		if (p->device)
			emit_u64(e, "port", "/%s", p->port);
		else
			emit_null(e, "port", NULL);
		emit_str(e, "transport", " (%s): ", p->transport);
		emit_bool(e, "ok", NULL, p->ok);
		if (p->ok) {
			char rate[32];

			emit_double(e, "gbps", NULL, 2, p->gbps);
			emit_text(e, "%s", units_rate(rate, sizeof(rate), p->gbps));
		} else
			emit_null(e, "gbps", NULL);
		if (p->ok)
			emit_null(e, "error", NULL);
		else
			emit_str(e, "error", "failed: %s", p->error ? p->error : "unknown error");
		emit_text(e, "\n");
		emit_obj_close(e);
	}
	emit_arr_close(e);
}

RCK_EXPORT int rck_sweep_write(const struct rck_sweep *s, FILE *out, enum rck_format fmt)
{
	unsigned int pending = 0;
	struct emit *e;
	int rc;

	if (!s || !out)
		return -EINVAL;
	if ((rc = emit_new(fmt, out, &e)))
		return rc;
	for (unsigned int i = 0; i < s->n_items; i++)
		pending += s->items[i].hold == RCK_SWEEP_PENDING;
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, "rocecheck.sweep/1");
	emit_str(e, "host", "%s: ", s->host);
	emit_str(e, "verdict", "%s", rck_verdict_name(rck_sweep_verdict(s)));
	emit_str(e, "boot_id", NULL, s->boot_id);
	emit_bool(e, "rebooted", NULL, s->rebooted);
	if (s->seconds > 0)
		emit_double(e, "seconds", "; counters over %s s", 1, s->seconds);
	else
		emit_null(e, "seconds", NULL);
	emit_obj_open(e, "hold");
	emit_u64(e, "k", "; hold %s", s->hold_k);
	emit_u64(e, "n", "/%s", s->hold_n);
	emit_u64(e, "runs", " (%s runs)", s->runs);
	emit_obj_close(e);
	emit_obj_open(e, "counts");
	for (int sev = RCK_SEVERITY_CRITICAL; sev >= RCK_SEVERITY_INFO; sev--) {
		unsigned int n = rck_report_severity_count(s->counted, (enum rck_severity)sev);

		emit_u64(e, rck_severity_name((enum rck_severity)sev), NULL, n);
		if (n)
			emit_text(e, ", %u %s", n, rck_severity_name((enum rck_severity)sev));
	}
	emit_obj_close(e);
	emit_u64(e, "pending", pending ? ", %s pending" : NULL, pending);
	emit_text(e, "\n");
	write_probes(e, s);
	emit_arr_open(e, "findings");
	for (unsigned int i = 0; i < s->n_items; i++)
		an_write_finding(e, &s->all->findings[s->items[i].idx],
				 rck_sweep_hold_name(s->items[i].hold));
	emit_arr_close(e);
	emit_obj_close(e);
	rc = emit_finish(e);
	emit_free(e);
	return rc;
}

/* Append @src to @buf (length *@used, room for @max characters) as
 * printable ASCII; stops at the last whole word that fits when @words. */
static void put(char *buf, size_t *used, size_t max, const char *src, bool words)
{
	size_t n = *used, last_space = 0;

	for (; *src && n < max; src++)
		buf[n++] = isprint((unsigned char)*src) ? *src : '?';
	if (*src && words) {
		/* Cut: back to the last space of what fits, so no word is broken. */
		for (size_t i = n; i > *used; i--)
			if (buf[i - 1] == ' ') {
				last_space = i - 1;
				break;
			}
		if (last_space > *used)
			n = last_space;
		/* Nor is a parenthesis left open: "... Disabled (expected" ends
		 * before it. */
		for (size_t i = n, depth = 0; i > *used; i--) {
			if (buf[i - 1] == ')')
				depth++;
			else if (buf[i - 1] == '(' && depth)
				depth--;
			else if (buf[i - 1] == '(')
				n = i - 1;
		}
		while (n > *used && strchr(" ,;:(", buf[n - 1]))
			n--;
	}
	buf[n] = '\0';
	*used = n;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Whether counted finding @f is one absent in this run (clearing): its old
 * reason is not today's fact. */
static bool is_clearing(const struct rck_sweep *s, const struct rck_finding *f)
{
	for (unsigned int i = 0; i < s->n_items; i++) {
		const struct rck_finding *a = &s->all->findings[s->items[i].idx];

		if (s->items[i].hold == RCK_SWEEP_CLEARING && a->code == f->code && a->entity == f->entity &&
		    same_str(a->host, f->host) && same_str(a->nic, f->nic) &&
		    same_str(a->peer_host, f->peer_host) && same_str(a->peer_nic, f->peer_nic))
			return true;
	}
	return false;
}

RCK_EXPORT int rck_sweep_npd_line(const struct rck_sweep *s, char *buf, size_t len)
{
	const struct rck_report *r;
	const struct rck_finding *f = NULL;
	unsigned int more = 0;
	char suffix[32] = "";
	size_t used = 0, room;

	if (!s || !buf || len < RCK_SWEEP_NPD_MAX + 1)
		return -EINVAL;
	r = s->counted;
	for (unsigned int i = 0; i < r->n_findings; i++) {
		if (r->findings[i].sev < RCK_SEVERITY_DEGRADED)
			continue;
		if (!f)
			f = &r->findings[i];   /* most severe first */
		else
			more++;
	}
	buf[0] = '\0';
	put(buf, &used, RCK_SWEEP_NPD_MAX, "rocecheck: ", false);
	if (!f) {
		put(buf, &used, RCK_SWEEP_NPD_MAX, "healthy", false);
		return 0;
	}
	if (more)
		snprintf(suffix, sizeof(suffix), " (+%u)", more);
	room = RCK_SWEEP_NPD_MAX - strlen(suffix);
	put(buf, &used, room, rck_finding_code_name(f->code), false);
	if (f->nic || f->host) {
		put(buf, &used, room, " ", false);
		put(buf, &used, room, f->nic ? f->nic : f->host, true);
	}
	put(buf, &used, room, " ", false);
	/* As the text's [clearing] line: never the old reason as news. */
	if (is_clearing(s, f))
		put(buf, &used, room, "[clearing] not seen in this run", true);
	else
		put(buf, &used, room, f->reason ? f->reason : "", true);
	while (used && buf[used - 1] == ' ')
		buf[--used] = '\0';
	put(buf, &used, RCK_SWEEP_NPD_MAX, suffix, false);
	return 0;
}
