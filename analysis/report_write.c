/* Report writer: the JSON of schemas/analysis.schema.json and a text form
 * (summary first, then one line per finding), through the one print layer. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analysis_int.h"
#include "emit.h"
#include "units.h"

static void write_links(struct emit *e, const struct rck_report_links *l)
{
	char rate[32];

	emit_obj_open(e, "links");
	emit_u64(e, "samples", NULL, l->samples);
	emit_u64(e, "ok", NULL, l->ok);
	emit_u64(e, "failed", NULL, l->failed);
	emit_double(e, "centre_gbps", NULL, 2, l->centre_gbps);
	emit_double(e, "noise_cv", NULL, 4, l->noise_cv);
	emit_double(e, "median_lat_us", NULL, 2, l->median_lat_us);
	emit_u64(e, "suspects", NULL, l->suspects);
	emit_u64(e, "confirmed", NULL, l->confirmed);
	emit_u64(e, "cleared", NULL, l->cleared);
	emit_u64(e, "inconclusive", NULL, l->inconclusive);
	emit_obj_close(e);
	if (!l->samples)
		return;
	emit_text(e, "%u link %s, %u ok, %u failed", l->samples, l->samples == 1 ? "sample" : "samples", l->ok,
		  l->failed);
	if (l->centre_gbps > 0)
		emit_text(e, "; fabric median %s (noise %.1f%%)", units_rate(rate, sizeof(rate), l->centre_gbps),
			  100 * l->noise_cv);
	if (l->median_lat_us > 0)
		emit_text(e, "; median latency %.2f us", l->median_lat_us);
	if (l->suspects)
		emit_text(e, "; %u %s: %u confirmed, %u cleared, %u inconclusive", l->suspects,
			  l->suspects == 1 ? "suspect" : "suspects", l->confirmed, l->cleared, l->inconclusive);
	emit_text(e, "\n");
}

/* Hosts to drain or held: JSON always, text only for @text (the drain lines
 * are the preflight's to print). */
static void write_drains(struct emit *e, const char *key, const struct an_drain *d, unsigned int n,
			 const char *text)
{
	emit_arr_open(e, key);
	for (unsigned int i = 0; i < n; i++) {
		emit_obj_open(e, NULL);
		if (text)
			emit_text(e, "%s ", key);
		emit_str(e, "host", text ? "%s" : NULL, d[i].host);
		if (text)
			emit_text(e, " (%s): ", text);
		emit_str(e, "reason", text ? "%s\n" : NULL, d[i].reason);
		emit_obj_close(e);
	}
	emit_arr_close(e);
}

void an_write_finding(struct emit *e, const struct rck_finding *f, const char *hold)
{
	emit_obj_open(e, NULL);
	emit_str(e, "code", "%-18s ", rck_finding_code_name(f->code));
	emit_str(e, "severity", "%-9s ", rck_severity_name(f->sev));
	emit_str(e, "entity", NULL, rck_entity_name(f->entity));
	emit_str(e, "host", NULL, f->host);
	emit_str(e, "nic", NULL, f->nic);
	emit_str(e, "peer_host", NULL, f->peer_host);
	emit_str(e, "peer_nic", NULL, f->peer_nic);
	switch (f->entity) {
	case RCK_ENTITY_HOST:
		emit_text(e, "%s: ", f->host ? f->host : "?");
		break;
	case RCK_ENTITY_NIC:
		emit_text(e, "%s %s: ", f->host ? f->host : "?", f->nic ? f->nic : "?");
		break;
	case RCK_ENTITY_LINK:
		emit_text(e, "%s %s -> %s %s: ", f->host ? f->host : "?", f->nic ? f->nic : "?",
			  f->peer_host ? f->peer_host : "?", f->peer_nic ? f->peer_nic : "?");
		break;
	default:
		emit_text(e, "fabric: ");
		break;
	}
	if (hold)
		emit_str(e, "hold", "[%s] ", hold);
	if (f->suspect)
		emit_text(e, "suspect, not drained: ");
	emit_bool(e, "suspect", NULL, f->suspect);
	/* A clearing finding was not seen this run: its old reason would read
	 * as today's fact. JSON keeps it, with the hold beside it. */
	if (hold && !strcmp(hold, "clearing")) {
		emit_str(e, "reason", NULL, f->reason);
		emit_text(e, "not seen in this run; still counted until the hold window passes\n");
	} else {
		emit_str(e, "reason", "%s\n", f->reason);
	}
	emit_obj_open(e, "values");
	for (unsigned int i = 0; i < f->n_values; i++)
		emit_double(e, f->keys[i], NULL, 3, f->values[i]);
	emit_obj_close(e);
	emit_obj_close(e);
}

RCK_EXPORT int rck_report_write(const struct rck_report *r, FILE *out, enum rck_format fmt)
{
	struct emit *e;
	int rc = emit_new(fmt, out, &e);

	if (rc)
		return rc;
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, "rocecheck.analysis/1");
	emit_str(e, "verdict", "verdict: %s", rck_verdict_name(r->verdict));
	if (rck_report_error(r))
		emit_str(e, "error", " (%s)", rck_report_error(r));
	else
		emit_null(e, "error", NULL);
	emit_text(e, "; %u %s", r->n_findings, r->n_findings == 1 ? "finding" : "findings");
	emit_obj_open(e, "counts");
	for (int s = RCK_SEVERITY_CRITICAL; s >= RCK_SEVERITY_INFO; s--) {
		unsigned int n = rck_report_severity_count(r, (enum rck_severity)s);

		emit_u64(e, rck_severity_name((enum rck_severity)s), NULL, n);
		if (n)
			emit_text(e, ", %u %s", n, rck_severity_name((enum rck_severity)s));
	}
	emit_obj_close(e);
	emit_text(e, "\n");
	write_links(e, &r->links);
	if (r->n_retests)
		emit_text(e, "%u %s a retest\n", r->n_retests, r->n_retests == 1 ? "link needs" : "links need");
	emit_arr_open(e, "retest");
	for (unsigned int i = 0; i < r->n_retests && emit_is_json(e); i++) {
		emit_obj_open(e, NULL);
		emit_str(e, "test", NULL, r->retests[i].test == RCK_LINK_TEST_BW ? "bw" : "lat");
		emit_u64(e, "src_nic", NULL, r->retests[i].src);
		emit_u64(e, "dst_nic", NULL, r->retests[i].dst);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_arr_open(e, "findings");
	for (unsigned int i = 0; i < r->n_findings; i++)
		an_write_finding(e, &r->findings[i], NULL);
	emit_arr_close(e);
	write_drains(e, "drain", r->drains, r->n_drains, NULL);
	write_drains(e, "held", r->held, r->n_held, "held by the circuit breaker, not drained");
	emit_obj_close(e);
	rc = emit_finish(e);
	emit_free(e);
	return rc;
}
