/* Field-by-field comparison of a port's DCB state with a profile; a field
 * the driver cannot report, or that does not apply, is unknown (with why),
 * never drift: a cron job must tell a wrong setting from an unreadable one. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcb_internal.h"
#include "emit.h"

struct diff_field {
	char field[48];
	char want[96];
	char have[96];
	bool match;
	bool unknown;
};

struct rck_dcb_diff {
	char ifname[IF_NAMESIZE];
	char profile[64];
	struct diff_field *f;
	size_t n, cap, bad, unknown;
};

static int diff_push(struct rck_dcb_diff *d, const char *field, const char *want, const char *have,
		     bool unknown)
{
	struct diff_field *f;

	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;

		f = realloc(d->f, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		d->f = f;
		d->cap = cap;
	}
	f = &d->f[d->n++];
	snprintf(f->field, sizeof(f->field), "%s", field);
	snprintf(f->want, sizeof(f->want), "%s", want);
	snprintf(f->have, sizeof(f->have), "%s", have);
	f->unknown = unknown;
	f->match = !unknown && !strcmp(want, have);
	d->bad += !f->match && !unknown;
	d->unknown += unknown;
	return 0;
}

int dcb_diff_add(struct rck_dcb_diff *d, const char *field, const char *want, const char *have)
{
	return diff_push(d, field, want, have, false);
}

int dcb_diff_add_unknown(struct rck_dcb_diff *d, const char *field, const char *want, const char *why)
{
	return diff_push(d, field, want, why, true);
}

/* @h when @err is 0, else unknown with the reason of @err. */
static int add(struct rck_dcb_diff *d, const char *field, const char *want, const char *h, int err)
{
	return err ? dcb_diff_add_unknown(d, field, want, dcb_err_str(err)) : dcb_diff_add(d, field, want, h);
}

/* The priorities @sel/@proto maps to, "none" when unmapped. */
static void app_prios(const struct rck_dcb *s, uint8_t sel, uint16_t proto, char *buf, size_t len)
{
	uint8_t bm = 0;

	for (size_t i = 0; i < s->n_apps; i++)
		if (s->apps[i].selector == sel && s->apps[i].protocol == proto)
			bm |= (uint8_t)(1u << s->apps[i].priority);
	dcb_prio_list(bm, buf, len);
}

static int check_ets(struct rck_dcb_diff *d, const struct rck_dcb_profile *p, const struct rck_dcb *s)
{
	static const char *const names[] = { "ets.prio_tc", "ets.tc_bw", "ets.tc_tsa" };
	const bool has[] = { p->has_prio_tc, p->has_tc_bw, p->has_tsa };
	const uint8_t *want[] = { p->prio_tc, p->tc_bw, p->tsa };
	const uint8_t *have[] = { s->ets.prio_tc, s->ets.tc_tx_bw, s->ets.tc_tsa };
	int rc = 0;

	for (int i = 0; i < 3 && !rc; i++) {
		char w[96], h[96];

		if (!has[i])
			continue;
		dcb_u8_list(want[i], i == 2, w, sizeof(w));
		dcb_u8_list(have[i], i == 2, h, sizeof(h));
		rc = add(d, names[i], w, h, s->err[RCK_DCB_ETS]);
	}
	return rc;
}

static int check_cm(struct rck_dcb_diff *d, const struct rck_dcb_profile *p, const struct rck_dcb *s)
{
	char w[16], h[96];
	int rc = 0;

	/* Without an RDMA device the field does not apply: unknown. */
	if (p->has_tos) {
		snprintf(w, sizeof(w), "%u", p->tos);
		snprintf(h, sizeof(h), "%u", s->roce_tos);
		if (!s->rdma_dev)
			rc = dcb_diff_add_unknown(d, "rdma_cm.default_roce_tos", w, "no RDMA device on this interface");
		else
			rc = add(d, "rdma_cm.default_roce_tos", w, h, s->err[RCK_DCB_RDMA_CM]);
	}
	if (!rc && p->has_mode) {
		if (!s->rdma_dev)
			rc = dcb_diff_add_unknown(d, "rdma_cm.default_roce_mode", p->mode,
						  "no RDMA device on this interface");
		else
			rc = add(d, "rdma_cm.default_roce_mode", p->mode, s->roce_mode,
				 s->err[RCK_DCB_RDMA_CM]);
	}
	return rc;
}

static int check_all(struct rck_dcb_diff *d, const struct rck_dcb_profile *p, const struct rck_dcb *s)
{
	char w[96], h[96], field[48];
	int rc = 0;

	if (p->has_pfc) {
		dcb_prio_list(p->pfc, w, sizeof(w));
		dcb_prio_list(s->pfc.pfc_en, h, sizeof(h));
		rc = add(d, "pfc.enabled", w, h, s->err[RCK_DCB_PFC]);
	}
	for (size_t i = 0; i < p->n_dscp && !rc; i++) {
		const struct dcb_app_ent *a = &p->dscp[i];

		snprintf(field, sizeof(field), "app.%s.%u",
			 a->selector == RCK_DCB_SEL_DSCP ? "dscp" : "pcp", a->protocol);
		snprintf(w, sizeof(w), "%u", a->priority);
		app_prios(s, a->selector, a->protocol, h, sizeof(h));
		rc = add(d, field, w, h, s->err[RCK_DCB_APP]);
	}
	/* "unknown" trust: neither a qos/trust file nor an APP table to derive
	 * it from (trust_from says which). */
	if (!rc && p->has_trust && (!s->trust || !strcmp(s->trust, "unknown")))
		rc = dcb_diff_add_unknown(d, "trust", p->trust,
					  s->trust_from ? s->trust_from : "not reported by this driver");
	else if (!rc && p->has_trust)
		rc = dcb_diff_add(d, "trust", p->trust, s->trust);
	if (!rc && p->has_dcbx) {
		dcb_dcbx_text(p->dcbx, w, sizeof(w));
		dcb_dcbx_text(s->dcbx, h, sizeof(h));
		rc = add(d, "dcbx.mode", w, h, s->err[RCK_DCB_DCBX]);
	}
	/* CNPs must reach their priority and must not be paused with the data. */
	if (!rc && p->has_cnp_prio) {
		bool mapped = false;

		for (size_t i = 0; i < s->n_apps; i++)
			mapped |= s->apps[i].selector == RCK_DCB_SEL_DSCP &&
				  s->apps[i].priority == p->cnp_prio;
		snprintf(w, sizeof(w), "%u (DSCP-mapped, PFC off)", p->cnp_prio);
		if (!mapped)
			snprintf(h, sizeof(h), "%u (no DSCP maps to it)", p->cnp_prio);
		else if (s->pfc.pfc_en & (1u << p->cnp_prio))
			snprintf(h, sizeof(h), "%u (PFC on)", p->cnp_prio);
		else
			snprintf(h, sizeof(h), "%s", w);
		rc = add(d, "cnp_priority", w, h, s->err[RCK_DCB_APP] ? s->err[RCK_DCB_APP] : s->err[RCK_DCB_PFC]);
	}
	if (!rc && p->has_roce_prio) {
		snprintf(w, sizeof(w), "%u (PFC on)", p->roce_prio);
		snprintf(h, sizeof(h), "%u (PFC %s)", p->roce_prio,
			 s->pfc.pfc_en & (1u << p->roce_prio) ? "on" : "off");
		rc = add(d, "roce_priority", w, h, s->err[RCK_DCB_PFC]);
	}
	if (!rc)
		rc = check_ets(d, p, s);
	if (!rc)
		rc = check_cm(d, p, s);
	return rc;
}

RCK_EXPORT int rck_dcb_check(const struct rck_dcb_profile *p, const struct rck_dcb *s,
			     struct rck_dcb_diff **out)
{
	struct rck_dcb_diff *d;
	int rc;

	*out = NULL;
	if (!p || !s)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	snprintf(d->ifname, sizeof(d->ifname), "%s", s->ifname);
	snprintf(d->profile, sizeof(d->profile), "%s", p->name);
	rc = check_all(d, p, s);
	if (rc) {
		rck_dcb_diff_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

RCK_EXPORT void rck_dcb_diff_free(struct rck_dcb_diff *d)
{
	if (!d)
		return;
	free(d->f);
	free(d);
}

RCK_EXPORT size_t rck_dcb_diff_count(const struct rck_dcb_diff *d, size_t *mismatches)
{
	if (mismatches)
		*mismatches = d->bad;
	return d->n;
}

RCK_EXPORT size_t rck_dcb_diff_unknowns(const struct rck_dcb_diff *d)
{
	return d->unknown;
}

RCK_EXPORT int rck_dcb_diff_field(const struct rck_dcb_diff *d, size_t i, const char **field,
				  const char **want, const char **have, bool *match)
{
	if (i >= d->n)
		return -ERANGE;
	if (field)
		*field = d->f[i].field;
	if (want)
		*want = d->f[i].want;
	if (have)
		*have = d->f[i].have;
	if (match)
		*match = d->f[i].match;
	return 0;
}

static void write_diff(struct emit *e, const struct rck_dcb_diff *d)
{
	emit_obj_open(e, NULL);
	emit_str(e, "interface", "%s", d->ifname);
	emit_str(e, "profile", ": profile %s", d->profile);
	emit_bool(e, "match", NULL, d->bad == 0 && d->unknown == 0);
	emit_u64(e, "mismatches", ", %s field(s) differ", d->bad);
	emit_u64(e, "unknowns", ", %s unknown\n", d->unknown);
	emit_arr_open(e, "fields");
	for (size_t i = 0; i < d->n; i++) {
		emit_obj_open(e, NULL);
		emit_text(e, "  %-7s ", d->f[i].match ? "ok" : d->f[i].unknown ? "UNKNOWN" : "DRIFT");
		emit_str(e, "field", "%-26s ", d->f[i].field);
		emit_str(e, "want", "want %s", d->f[i].want);
		if (!d->f[i].match)
			emit_text(e, ", have %s", d->f[i].have);
		emit_str(e, "have", NULL, d->f[i].have);
		emit_bool(e, "match", NULL, d->f[i].match);
		emit_bool(e, "unknown", NULL, d->f[i].unknown);
		emit_text(e, "\n");
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}

struct diff_list {
	const struct rck_dcb_diff *const *diffs;
	size_t n;
};

static void diff_doc(struct emit *e, const void *arg)
{
	const struct diff_list *l = arg;
	bool match = true;

	for (size_t i = 0; i < l->n; i++)
		match &= l->diffs[i]->bad == 0 && l->diffs[i]->unknown == 0;
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, "rocedcb.check/1");
	emit_bool(e, "match", NULL, match);
	emit_arr_open(e, "ports");
	for (size_t i = 0; i < l->n; i++)
		write_diff(e, l->diffs[i]);
	emit_arr_close(e);
	emit_obj_close(e);
}

RCK_EXPORT int rck_dcb_diff_write(const struct rck_dcb_diff *const *diffs, size_t n,
				  enum rck_format fmt, FILE *out)
{
	struct diff_list l = { diffs, n };

	if (!diffs)
		return -EINVAL;
	return dcb_emit_doc(fmt, out, diff_doc, &l);
}
