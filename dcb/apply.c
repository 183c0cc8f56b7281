/* Moving a port from its current DCB state to a target (a profile, or a
 * saved state): planned steps in a safe order, written one at a time, and
 * on a failure the done steps undone in reverse order. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcb_internal.h"
#include "nlsock.h"

enum step_kind { ST_DCBX, ST_ETS, ST_BUFFER, ST_MAXRATE, ST_PFC, ST_APP_ADD, ST_APP_DEL, ST_CM };

struct step {
	enum step_kind kind;
	/* A dry run's entry that is not a write: the current value could not
	 * be read (unknown), or the part does not apply (skipped). */
	enum rck_dcb_change_kind what;
	struct dcb_app_ent app;
	char text[256];
	bool done, undone;
};

struct rck_dcb_change_log {
	struct step *s;
	size_t n;
	char failed[64];
	bool rolled_back;
	char **lines;
};

struct plan {
	const struct rck_dcb *cur, *tgt;
	struct rck_dcb_change_log *log;
	/* A dry run of a profile: parts the profile names but the port cannot
	 * report are planned as "unknown -> X" instead of refused. */
	const struct rck_dcb_profile *dry;
};

static int push_as(struct rck_dcb_change_log *log, enum step_kind kind, enum rck_dcb_change_kind what,
		   const struct dcb_app_ent *app, const char *text)
{
	struct step *n = realloc(log->s, (log->n + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	log->s = n;
	memset(&n[log->n], 0, sizeof(*n));
	n[log->n].kind = kind;
	n[log->n].what = what;
	if (app)
		n[log->n].app = *app;
	snprintf(n[log->n].text, sizeof(n[log->n].text), "%s", text);
	log->n++;
	return 0;
}

static int push(struct rck_dcb_change_log *log, enum step_kind kind, const struct dcb_app_ent *app,
		const char *text)
{
	return push_as(log, kind, RCK_DCB_CHANGE_SET, app, text);
}

/* The ETS fields a set writes (ets_cap describes the device, not a setting). */
static bool ets_differs(const struct ieee_ets *a, const struct ieee_ets *b)
{
	return a->willing != b->willing || a->cbs != b->cbs ||
	       memcmp(a->tc_tx_bw, b->tc_tx_bw, DCB_NPRIO) || memcmp(a->tc_rx_bw, b->tc_rx_bw, DCB_NPRIO) ||
	       memcmp(a->tc_tsa, b->tc_tsa, DCB_NPRIO) || memcmp(a->prio_tc, b->prio_tc, DCB_NPRIO) ||
	       memcmp(a->tc_reco_bw, b->tc_reco_bw, DCB_NPRIO) ||
	       memcmp(a->tc_reco_tsa, b->tc_reco_tsa, DCB_NPRIO) ||
	       memcmp(a->reco_prio_tc, b->reco_prio_tc, DCB_NPRIO);
}

static int plan_ets(struct plan *pl)
{
	const struct ieee_ets *a = &pl->cur->ets, *b = &pl->tgt->ets;
	char text[256], x[64], y[64];
	size_t o;

	if (!ets_differs(a, b))
		return 0;
	o = (size_t)snprintf(text, sizeof(text), "ets:");
	if (memcmp(a->prio_tc, b->prio_tc, DCB_NPRIO)) {
		dcb_u8_list(a->prio_tc, false, x, sizeof(x));
		dcb_u8_list(b->prio_tc, false, y, sizeof(y));
		o += (size_t)snprintf(text + o, sizeof(text) - o, " prio_tc [%s] -> [%s]", x, y);
	}
	if (memcmp(a->tc_tx_bw, b->tc_tx_bw, DCB_NPRIO) && o < sizeof(text)) {
		dcb_u8_list(a->tc_tx_bw, false, x, sizeof(x));
		dcb_u8_list(b->tc_tx_bw, false, y, sizeof(y));
		o += (size_t)snprintf(text + o, sizeof(text) - o, " tc_bw [%s] -> [%s]", x, y);
	}
	if (memcmp(a->tc_tsa, b->tc_tsa, DCB_NPRIO) && o < sizeof(text)) {
		dcb_u8_list(a->tc_tsa, true, x, sizeof(x));
		dcb_u8_list(b->tc_tsa, true, y, sizeof(y));
		o += (size_t)snprintf(text + o, sizeof(text) - o, " tc_tsa [%s] -> [%s]", x, y);
	}
	if (o == 4)
		snprintf(text + o, sizeof(text) - o, " willing/cbs/recommendation changed");
	return push(pl->log, ST_ETS, NULL, text);
}

/* A dry run's entry for a part the profile sets but the port cannot report
 * (err): "unknown -> X" with why. */
__attribute__((format(printf, 5, 6)))
static int unknown(struct plan *pl, enum step_kind kind, const struct dcb_app_ent *app, int err,
		   const char *fmt, ...)
{
	char text[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(text))
		snprintf(text + n, sizeof(text) - (size_t)n, " (%s)", dcb_err_str(err));
	return push_as(pl->log, kind, RCK_DCB_CHANGE_UNKNOWN, app, text);
}

static int unknown_ets(struct plan *pl)
{
	const struct ieee_ets *b = &pl->tgt->ets;
	const struct rck_dcb_profile *p = pl->dry;
	char text[256], y[64];
	size_t o = (size_t)snprintf(text, sizeof(text), "ets:");

	if (p->has_prio_tc) {
		dcb_u8_list(b->prio_tc, false, y, sizeof(y));
		o += (size_t)snprintf(text + o, sizeof(text) - o, " prio_tc unknown -> [%s]", y);
	}
	if (p->has_tc_bw && o < sizeof(text)) {
		dcb_u8_list(b->tc_tx_bw, false, y, sizeof(y));
		o += (size_t)snprintf(text + o, sizeof(text) - o, " tc_bw unknown -> [%s]", y);
	}
	if (p->has_tsa && o < sizeof(text)) {
		dcb_u8_list(b->tc_tsa, true, y, sizeof(y));
		snprintf(text + o, sizeof(text) - o, " tc_tsa unknown -> [%s]", y);
	}
	return unknown(pl, ST_ETS, NULL, pl->cur->err[RCK_DCB_ETS], "%s", text);
}

static int unknown_pfc(struct plan *pl)
{
	const struct rck_dcb_profile *p = pl->dry;
	int err = pl->cur->err[RCK_DCB_PFC];
	char y[40];

	if (!p->has_pfc)
		return unknown(pl, ST_PFC, NULL, err, "pfc: priority %u unknown -> on", p->roce_prio);
	dcb_prio_list(p->pfc, y, sizeof(y));
	return unknown(pl, ST_PFC, NULL, err, "pfc: enabled unknown -> %s", y);
}

static int unknown_apps(struct plan *pl)
{
	const struct rck_dcb_profile *p = pl->dry;
	int rc = 0;
	char sb[16];

	for (size_t i = 0; i < p->n_dscp && !rc; i++) {
		const struct dcb_app_ent *a = &p->dscp[i];

		rc = unknown(pl, ST_APP_ADD, a, pl->cur->err[RCK_DCB_APP], "app: %s %u priority unknown -> %u",
			     dcb_selector_name(a->selector, sb, sizeof(sb)), a->protocol, a->priority);
	}
	return rc;
}

/* rdma_cm defaults a profile sets, on a port whose defaults cannot be read
 * or that has no RDMA device (then apply leaves them: skipped). */
static int unknown_cm(struct plan *pl)
{
	const struct rck_dcb *c = pl->cur, *t = pl->tgt;
	const struct rck_dcb_profile *p = pl->dry;
	const char *from = c->rdma_dev ? " unknown" : "";
	char text[256], what[128] = "";
	size_t o = 0;

	if (p->has_tos)
		o = (size_t)snprintf(what, sizeof(what), "default_roce_tos%s -> %u", from, t->roce_tos);
	if (p->has_mode)
		snprintf(what + o, sizeof(what) - o, "%sdefault_roce_mode%s -> %s", o ? ", " : "", from,
			 t->roce_mode);
	if (!c->rdma_dev) {
		snprintf(text, sizeof(text), "rdma_cm: %s left out: no RDMA device on this interface", what);
		return push_as(pl->log, ST_CM, RCK_DCB_CHANGE_SKIPPED, NULL, text);
	}
	return unknown(pl, ST_CM, NULL, c->err[RCK_DCB_RDMA_CM], "rdma_cm %s/%u: %s", c->rdma_dev,
		       c->rdma_port, what);
}

static int plan_all(struct plan *pl)
{
	const struct rck_dcb *c = pl->cur, *t = pl->tgt;
	const struct rck_dcb_profile *p = pl->dry;
	char text[256], x[40], y[40], sb[16];
	int rc = 0;

	if (p && p->has_dcbx && c->err[RCK_DCB_DCBX])
		rc = unknown(pl, ST_DCBX, NULL, c->err[RCK_DCB_DCBX], "dcbx: mode unknown -> 0x%x", t->dcbx);
	else if (!c->err[RCK_DCB_DCBX] && !t->err[RCK_DCB_DCBX] && c->dcbx != t->dcbx) {
		snprintf(text, sizeof(text), "dcbx: mode 0x%x -> 0x%x", c->dcbx, t->dcbx);
		rc = push(pl->log, ST_DCBX, NULL, text);
	}
	if (!rc && p && (p->has_prio_tc || p->has_tc_bw || p->has_tsa) && c->err[RCK_DCB_ETS])
		rc = unknown_ets(pl);
	else if (!rc && !c->err[RCK_DCB_ETS] && !t->err[RCK_DCB_ETS])
		rc = plan_ets(pl);
	if (!rc && !c->err[RCK_DCB_BUFFER] && !t->err[RCK_DCB_BUFFER] &&
	    (memcmp(c->buffer.prio2buffer, t->buffer.prio2buffer, DCB_NPRIO) ||
	     memcmp(c->buffer.buffer_size, t->buffer.buffer_size, sizeof(c->buffer.buffer_size)))) {
		dcb_u8_list(c->buffer.prio2buffer, false, x, sizeof(x));
		dcb_u8_list(t->buffer.prio2buffer, false, y, sizeof(y));
		snprintf(text, sizeof(text), "buffer: prio_buffer [%s] -> [%s], sizes set", x, y);
		rc = push(pl->log, ST_BUFFER, NULL, text);
	}
	if (!rc && !c->err[RCK_DCB_MAXRATE] && !t->err[RCK_DCB_MAXRATE] &&
	    memcmp(c->maxrate.tc_maxrate, t->maxrate.tc_maxrate, sizeof(c->maxrate.tc_maxrate)))
		rc = push(pl->log, ST_MAXRATE, NULL, "maxrate: per-TC maximum rates set");
	if (!rc && p && (p->has_pfc || p->has_roce_prio) && c->err[RCK_DCB_PFC])
		rc = unknown_pfc(pl);
	else if (!rc && !c->err[RCK_DCB_PFC] && !t->err[RCK_DCB_PFC] &&
		 (c->pfc.pfc_en != t->pfc.pfc_en || c->pfc.delay != t->pfc.delay || c->pfc.mbc != t->pfc.mbc)) {
		dcb_prio_list(c->pfc.pfc_en, x, sizeof(x));
		dcb_prio_list(t->pfc.pfc_en, y, sizeof(y));
		snprintf(text, sizeof(text), "pfc: enabled %s -> %s%s", x, y,
			 c->pfc.delay != t->pfc.delay || c->pfc.mbc != t->pfc.mbc ? ", delay/mbc set" : "");
		rc = push(pl->log, ST_PFC, NULL, text);
	}
	if (!rc && p && p->n_dscp && c->err[RCK_DCB_APP])
		rc = unknown_apps(pl);
	/* New mappings before removing old ones: a DSCP value is never unmapped in between. */
	else if (!c->err[RCK_DCB_APP] && !t->err[RCK_DCB_APP]) {
		for (size_t i = 0; i < t->n_apps && !rc; i++) {
			const struct dcb_app_ent *a = &t->apps[i];

			if (dcb_app_has(c, a->selector, a->protocol, a->priority))
				continue;
			snprintf(text, sizeof(text), "app: add %s %u:%u",
				 dcb_selector_name(a->selector, sb, sizeof(sb)), a->protocol, a->priority);
			rc = push(pl->log, ST_APP_ADD, a, text);
		}
		for (size_t i = 0; i < c->n_apps && !rc; i++) {
			const struct dcb_app_ent *a = &c->apps[i];

			if (dcb_app_has(t, a->selector, a->protocol, a->priority))
				continue;
			snprintf(text, sizeof(text), "app: delete %s %u:%u",
				 dcb_selector_name(a->selector, sb, sizeof(sb)), a->protocol, a->priority);
			rc = push(pl->log, ST_APP_DEL, a, text);
		}
	}
	if (!rc && p && (p->has_tos || p->has_mode) && (!c->rdma_dev || c->err[RCK_DCB_RDMA_CM]))
		rc = unknown_cm(pl);
	else if (!rc && c->rdma_dev && !c->err[RCK_DCB_RDMA_CM] && !t->err[RCK_DCB_RDMA_CM] &&
		 (c->roce_tos != t->roce_tos || strcmp(c->roce_mode, t->roce_mode))) {
		size_t o = (size_t)snprintf(text, sizeof(text), "rdma_cm %s/%u:", c->rdma_dev, c->rdma_port);

		if (c->roce_tos != t->roce_tos)
			o += (size_t)snprintf(text + o, sizeof(text) - o, " default_roce_tos %u -> %u",
					      c->roce_tos, t->roce_tos);
		if (strcmp(c->roce_mode, t->roce_mode) && o < sizeof(text))
			snprintf(text + o, sizeof(text) - o, " default_roce_mode %s -> %s", c->roce_mode,
				 t->roce_mode);
		rc = push(pl->log, ST_CM, NULL, text);
	}
	return rc;
}

/* Write step @s towards @to (the target, or the old state when undoing). */
static int run_step(struct nl_sock *sk, const struct step *s, const struct rck_dcb *to, bool undo)
{
	const char *ifn = to->ifname;
	int cmd;

	switch (s->kind) {
	case ST_DCBX:
		return dcbnl_set_dcbx(sk, ifn, to->dcbx);
	case ST_ETS:
		return dcbnl_set_ieee(sk, ifn, DCB_ATTR_IEEE_ETS, &to->ets, sizeof(to->ets));
	case ST_BUFFER:
		return dcbnl_set_ieee(sk, ifn, DCB_ATTR_DCB_BUFFER, &to->buffer, sizeof(to->buffer));
	case ST_MAXRATE:
		return dcbnl_set_ieee(sk, ifn, DCB_ATTR_IEEE_MAXRATE, &to->maxrate, sizeof(to->maxrate));
	case ST_PFC:
		return dcbnl_set_ieee(sk, ifn, DCB_ATTR_IEEE_PFC, &to->pfc, sizeof(to->pfc));
	case ST_APP_ADD:
	case ST_APP_DEL:
		cmd = (s->kind == ST_APP_ADD) != undo ? DCB_CMD_IEEE_SET : DCB_CMD_IEEE_DEL;
		return dcbnl_app(sk, ifn, cmd, &s->app, 1);
	case ST_CM:
		return dcb_cm_write(DCB_CONFIGFS, to->rdma_dev, to->rdma_port, &to->roce_tos, to->roce_mode);
	}
	return -EINVAL;
}

static int make_lines(struct rck_dcb_change_log *log)
{
	log->lines = calloc(log->n + 1, sizeof(char *));
	if (!log->lines)
		return -ENOMEM;
	for (size_t i = 0; i < log->n; i++) {
		const struct step *s = &log->s[i];

		if (asprintf(&log->lines[i], "%s%s", s->text,
			     s->undone ? " (restored)" : !s->done && log->failed[0] ? " (not done)" : "") < 0) {
			log->lines[i] = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

static const char *step_name(const struct step *s)
{
	static const char *const names[] = { "dcbx", "ets", "buffer", "maxrate", "pfc", "app add",
					     "app delete", "rdma_cm" };

	return names[s->kind];
}

/* Execute the plan; on a failure undo what was done, newest first. */
static int execute(const struct rck_ctx *ctx, struct plan *pl)
{
	struct rck_dcb_change_log *log = pl->log;
	struct nl_sock *sk = NULL;
	int rc = 0, urc = 0;
	size_t i;

	rc = rck_nlsock_open(ctx, NETLINK_ROUTE, &sk);
	if (rc) {
		snprintf(log->failed, sizeof(log->failed), "netlink socket");
		return rc;
	}
	nl_socket_disable_auto_ack(sk);
	for (i = 0; i < log->n; i++) {
		rc = run_step(sk, &log->s[i], pl->tgt, false);
		if (rc) {
			snprintf(log->failed, sizeof(log->failed), "%s", step_name(&log->s[i]));
			rck_dbg(ctx, "%s: %s: %s", pl->cur->ifname, log->s[i].text, strerror(-rc));
			break;
		}
		log->s[i].done = true;
	}
	if (rc) {
		bool all = true;

		while (i-- > 0) {
			urc = run_step(sk, &log->s[i], pl->cur, true);
			log->s[i].undone = urc == 0;
			all &= urc == 0;
			if (urc)
				rck_err(ctx, "%s: undoing '%s' failed: %s", pl->cur->ifname, log->s[i].text,
					strerror(-urc));
		}
		log->rolled_back = all;
	}
	nl_socket_free(sk);
	return rc;
}

/* With @dry a dry run of that profile: nothing written, unreadable parts planned as unknown. */
static int transition(struct rck_ctx *ctx, const struct rck_dcb *cur, const struct rck_dcb *tgt,
		      const struct rck_dcb_profile *dry, const char *state_path, bool dry_run,
		      struct rck_dcb_change_log *log)
{
	struct plan pl = { cur, tgt, log, dry };
	int rc = plan_all(&pl);

	if (!rc && !dry_run && log->n) {
		if (state_path) {
			rc = dcb_state_save(cur, state_path);
			if (rc)
				snprintf(log->failed, sizeof(log->failed), "saving the state file");
		}
		if (!rc)
			rc = execute(ctx, &pl);
	}
	if (make_lines(log) && !rc)
		rc = -ENOMEM;
	return rc;
}

/* The profile applied on top of the current state; -EOPNOTSUPP (with the
 * feature in @failed) when the profile needs what the driver lacks, unless
 * @dry_run: a plan then shows such parts as unknown. */
static int profile_target(const struct rck_dcb_profile *p, const struct rck_dcb *cur, bool dry_run,
			  struct rck_dcb **out, char *failed, size_t len)
{
	struct rck_dcb *t;
	int need[][2] = {
		{ p->has_pfc || p->has_roce_prio, RCK_DCB_PFC },
		{ p->has_prio_tc || p->has_tc_bw || p->has_tsa, RCK_DCB_ETS },
		{ p->n_dscp > 0, RCK_DCB_APP },
		{ (p->has_tos || p->has_mode) && cur->rdma_dev, RCK_DCB_RDMA_CM },
		{ p->has_dcbx, RCK_DCB_DCBX },
	};
	static const char *const names[] = { "pfc", "ets", "app", "rdma_cm", "dcbx" };

	for (size_t i = 0; i < RCK_ARRAY_SIZE(need) && !dry_run; i++)
		if (need[i][0] && cur->err[need[i][1]]) {
			snprintf(failed, len, "%s", names[i]);
			return cur->err[need[i][1]];
		}
	t = dcb_dup(cur);
	if (!t)
		return -ENOMEM;
	if (p->has_dcbx)
		t->dcbx = p->dcbx;
	if (p->has_pfc)
		t->pfc.pfc_en = p->pfc;
	if (p->has_roce_prio && !p->has_pfc)
		t->pfc.pfc_en |= (uint8_t)(1u << p->roce_prio);
	if (p->has_prio_tc)
		memcpy(t->ets.prio_tc, p->prio_tc, DCB_NPRIO);
	if (p->has_tc_bw)
		memcpy(t->ets.tc_tx_bw, p->tc_bw, DCB_NPRIO);
	if (p->has_tsa)
		memcpy(t->ets.tc_tsa, p->tsa, DCB_NPRIO);
	/* Each profile entry replaces whatever that value was mapped to. */
	for (size_t i = 0; i < p->n_dscp; i++) {
		const struct dcb_app_ent *a = &p->dscp[i];
		size_t k = 0;

		for (size_t j = 0; j < t->n_apps; j++)
			if (t->apps[j].selector != a->selector || t->apps[j].protocol != a->protocol)
				t->apps[k++] = t->apps[j];
		t->n_apps = k;
		if (dcb_app_push(t, a->selector, a->protocol, a->priority)) {
			rck_dcb_free(t);
			return -ENOMEM;
		}
	}
	if (p->has_tos)
		t->roce_tos = p->tos;
	if (p->has_mode)
		snprintf(t->roce_mode, sizeof(t->roce_mode), "%s", p->mode);
	*out = t;
	return 0;
}

static struct rck_dcb_change_log *log_new(void)
{
	return calloc(1, sizeof(struct rck_dcb_change_log));
}

RCK_EXPORT int rck_dcb_apply(struct rck_ctx *ctx, const struct rck_dcb_profile *p, const char *ifname,
			     const char *state_path, bool dry_run, struct rck_dcb_change_log **out)
{
	struct rck_dcb *cur = NULL, *tgt = NULL;
	struct rck_dcb_change_log *log;
	int rc;

	*out = NULL;
	if (!ctx || !p || !ifname)
		return -EINVAL;
	log = log_new();
	if (!log)
		return -ENOMEM;
	*out = log;
	rc = rck_dcb_read(ctx, ifname, &cur);
	if (rc) {
		snprintf(log->failed, sizeof(log->failed), "reading the current state");
		make_lines(log);
		return rc;
	}
	rc = profile_target(p, cur, dry_run, &tgt, log->failed, sizeof(log->failed));
	if (!rc)
		rc = transition(ctx, cur, tgt, dry_run ? p : NULL, state_path, dry_run, log);
	else
		make_lines(log);
	rck_dcb_free(cur);
	rck_dcb_free(tgt);
	return rc;
}

int dcb_apply_plan(const struct rck_dcb_profile *p, const struct rck_dcb *cur,
		   struct rck_dcb_change_log **out)
{
	struct rck_dcb_change_log *log = log_new();
	struct rck_dcb *tgt = NULL;
	int rc;

	*out = log;
	if (!log)
		return -ENOMEM;
	rc = profile_target(p, cur, true, &tgt, log->failed, sizeof(log->failed));
	if (!rc)
		rc = transition(NULL, cur, tgt, p, NULL, true, log);
	rck_dcb_free(tgt);
	return rc;
}

RCK_EXPORT int rck_dcb_restore(struct rck_ctx *ctx, const char *state_path, const char *ifname,
			       struct rck_dcb_change_log **out)
{
	struct rck_dcb *cur = NULL, *saved = NULL;
	struct rck_dcb_change_log *log;
	int rc;

	*out = NULL;
	if (!ctx || !state_path)
		return -EINVAL;
	log = log_new();
	if (!log)
		return -ENOMEM;
	*out = log;
	rc = dcb_state_load(state_path, &saved);
	if (rc) {
		snprintf(log->failed, sizeof(log->failed), "loading the state file");
		make_lines(log);
		return rc;
	}
	if (ifname && strcmp(ifname, saved->ifname)) {
		snprintf(log->failed, sizeof(log->failed), "state file is for %s", saved->ifname);
		rck_dcb_free(saved);
		make_lines(log);
		return -EINVAL;
	}
	rc = rck_dcb_read(ctx, saved->ifname, &cur);
	if (!rc)
		rc = transition(ctx, cur, saved, NULL, NULL, false, log);
	else {
		snprintf(log->failed, sizeof(log->failed), "reading the current state");
		make_lines(log);
	}
	rck_dcb_free(cur);
	rck_dcb_free(saved);
	return rc;
}

RCK_EXPORT void rck_dcb_change_log_free(struct rck_dcb_change_log *log)
{
	if (!log)
		return;
	for (size_t i = 0; log->lines && i < log->n; i++)
		free(log->lines[i]);
	free(log->lines);
	free(log->s);
	free(log);
}

RCK_EXPORT size_t rck_dcb_change_count(const struct rck_dcb_change_log *log)
{
	return log->lines ? log->n : 0;
}

RCK_EXPORT const char *rck_dcb_change(const struct rck_dcb_change_log *log, size_t i,
				      bool *rolled_back)
{
	if (!log->lines || i >= log->n)
		return NULL;
	if (rolled_back)
		*rolled_back = log->s[i].undone;
	return log->lines[i];
}

RCK_EXPORT enum rck_dcb_change_kind rck_dcb_change_kind(const struct rck_dcb_change_log *log, size_t i)
{
	return log->lines && i < log->n ? log->s[i].what : RCK_DCB_CHANGE_SET;
}

RCK_EXPORT const char *rck_dcb_change_failed_step(const struct rck_dcb_change_log *log)
{
	return log->failed[0] ? log->failed : NULL;
}

RCK_EXPORT bool rck_dcb_change_rolled_back(const struct rck_dcb_change_log *log)
{
	return log->rolled_back;
}
