/* The public face of the LLDP decoder: handle, accessors, the text and JSON
 * writer, and the host-versus-switch fields of a check. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcb_internal.h"
#include "emit.h"
#include "lldp.h"

RCK_EXPORT int rck_lldp_decode(const uint8_t *frame, size_t len, struct rck_lldp **out)
{
	struct rck_lldp *l = malloc(sizeof(*l));
	int rc;

	*out = NULL;
	if (!l)
		return -ENOMEM;
	rc = lldp_decode(frame, len, l);
	if (rc) {
		free(l);
		return rc;
	}
	*out = l;
	return 0;
}

RCK_EXPORT void rck_lldp_free(struct rck_lldp *l)
{
	free(l);
}

RCK_EXPORT const char *rck_lldp_chassis_id(const struct rck_lldp *l, unsigned int *subtype)
{
	if (subtype)
		*subtype = l->chassis_subtype;
	return l->chassis_id;
}

RCK_EXPORT const char *rck_lldp_port_id(const struct rck_lldp *l, unsigned int *subtype)
{
	if (subtype)
		*subtype = l->port_subtype;
	return l->port_id;
}

RCK_EXPORT const char *rck_lldp_system_name(const struct rck_lldp *l)
{
	return l->sys_name[0] ? l->sys_name : NULL;
}

RCK_EXPORT const char *rck_lldp_port_description(const struct rck_lldp *l)
{
	return l->port_desc[0] ? l->port_desc : NULL;
}

RCK_EXPORT int rck_lldp_pfc(const struct rck_lldp *l, uint8_t *enabled, uint8_t *cap, bool *willing,
			    bool *mbc)
{
	if (!l->has_pfc)
		return -ENOENT;
	if (enabled)
		*enabled = l->pfc_en;
	if (cap)
		*cap = l->pfc_cap;
	if (willing)
		*willing = l->pfc_willing;
	if (mbc)
		*mbc = l->pfc_mbc;
	return 0;
}

RCK_EXPORT int rck_lldp_ets(const struct rck_lldp *l, bool recommendation, unsigned int i,
			    uint8_t *prio_tc, uint8_t *tc_bw, uint8_t *tc_tsa)
{
	const struct lldp_ets *e = recommendation ? &l->reco : &l->ets;

	if (i >= 8)
		return -EINVAL;
	if (!e->present)
		return -ENOENT;
	if (prio_tc)
		*prio_tc = e->prio_tc[i];
	if (tc_bw)
		*tc_bw = e->tc_bw[i];
	if (tc_tsa)
		*tc_tsa = e->tsa[i];
	return 0;
}

RCK_EXPORT size_t rck_lldp_app_count(const struct rck_lldp *l)
{
	return l->n_apps;
}

RCK_EXPORT int rck_lldp_app(const struct rck_lldp *l, size_t i, uint8_t *selector, uint16_t *protocol,
			    uint8_t *priority)
{
	if (i >= l->n_apps)
		return -ERANGE;
	if (selector)
		*selector = l->apps[i].selector;
	if (protocol)
		*protocol = l->apps[i].protocol;
	if (priority)
		*priority = l->apps[i].priority;
	return 0;
}

RCK_EXPORT size_t rck_lldp_warning_count(const struct rck_lldp *l)
{
	return l->n_warn;
}

RCK_EXPORT const char *rck_lldp_warning(const struct rck_lldp *l, size_t i)
{
	return i < l->n_warn ? l->warn[i] : NULL;
}

static void write_ets(struct emit *e, const char *key, const char *label, const struct lldp_ets *t,
		      bool cfg)
{
	if (!t->present) {
		emit_null(e, key, NULL);
		emit_text(e, "  %-9snot announced\n", label);
		return;
	}
	emit_obj_open(e, key);
	emit_text(e, "  %-9s", label);
	if (cfg) {
		emit_bool(e, "willing", "willing %s", t->willing);
		emit_bool(e, "cbs", "  cbs %s", t->cbs);
		emit_u64(e, "max_tcs", "  max TCs %s", t->max_tcs);
	}
	emit_text(e, "\n");
	dcb_emit_eight(e, "prio_tc", "prio_tc", t->prio_tc, false);
	dcb_emit_eight(e, "tc_bw", "tc_bw", t->tc_bw, false);
	dcb_emit_eight(e, "tc_tsa", "tc_tsa", t->tsa, true);
	emit_obj_close(e);
}

/* The ID subtypes (IEEE 802.1AB 8.5.2.2, 8.5.3.2) as lldpctl names them
 * ("ChassisID: mac 0c:42:..."); the number stays in JSON as "subtype". */
static const char *id_type(unsigned int subtype, bool port)
{
	static const char *const chassis[] = { NULL, "chassis", "ifalias", "port", "mac", "ip", "ifname",
					       "local" };
	static const char *const ports[] = { NULL, "ifalias", "port", "mac", "ip", "ifname", "agentcid",
					     "local" };
	const char *const *t = port ? ports : chassis;

	return subtype < 8 && t[subtype] ? t[subtype] : "unknown";
}

static void write_lldp(struct emit *e, const struct rck_lldp *l, const char *ifname)
{
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, "rocedcb.peer/1");
	emit_str(e, "interface", "%s", ifname);
	if (l->src_mac[0])
		emit_str(e, "source_mac", ": LLDP from %s\n", l->src_mac);
	else /* lldpad's view: the TLVs without the frame they came in */
		emit_null(e, "source_mac", ": LLDP as lldpad heard it\n");
	emit_obj_open(e, "chassis_id");
	emit_u64(e, "subtype", NULL, l->chassis_subtype);
	emit_str(e, "type", "  chassis  %s ", id_type(l->chassis_subtype, false));
	emit_str(e, "id", "%s\n", l->chassis_id);
	emit_obj_close(e);
	emit_obj_open(e, "port_id");
	emit_u64(e, "subtype", NULL, l->port_subtype);
	emit_str(e, "type", "  port     %s ", id_type(l->port_subtype, true));
	emit_str(e, "id", "%s\n", l->port_id);
	emit_obj_close(e);
	emit_u64(e, "ttl", "  ttl      %s s\n", l->ttl);
	emit_str(e, "system_name", "  system   %s\n", l->sys_name[0] ? l->sys_name : NULL);
	emit_str(e, "port_description", "  port description %s\n", l->port_desc[0] ? l->port_desc : NULL);
	write_ets(e, "ets", "ets", &l->ets, true);
	write_ets(e, "ets_recommendation", "ets reco", &l->reco, false);
	if (l->has_pfc) {
		emit_obj_open(e, "pfc");
		emit_text(e, "  %-9senabled ", "pfc");
		dcb_emit_prio_array(e, "enabled", l->pfc_en);
		emit_bool(e, "willing", "  willing %s", l->pfc_willing);
		emit_bool(e, "mbc", "  mbc %s", l->pfc_mbc);
		emit_u64(e, "cap", "  cap %s\n", l->pfc_cap);
		emit_obj_close(e);
	} else {
		emit_null(e, "pfc", NULL);
		emit_text(e, "  %-9snot announced\n", "pfc");
	}
	if (l->has_app) {
		emit_text(e, "  %-9s", "app");
		emit_arr_open(e, "app");
		for (size_t i = 0; i < l->n_apps; i++)
			dcb_emit_app(e, l->apps[i].selector, l->apps[i].protocol, l->apps[i].priority);
		emit_arr_close(e);
		emit_text(e, l->n_apps ? "\n" : "empty\n");
	} else {
		emit_null(e, "app", NULL);
		emit_text(e, "  %-9snot announced\n", "app");
	}
	emit_arr_open(e, "warnings");
	for (size_t i = 0; i < l->n_warn; i++)
		emit_str(e, NULL, "  warning  %s\n", l->warn[i]);
	emit_arr_close(e);
	emit_obj_close(e);
}

struct lldp_doc {
	const struct rck_lldp *l;
	const char *ifname;
};

static void lldp_doc_fn(struct emit *e, const void *arg)
{
	const struct lldp_doc *d = arg;

	write_lldp(e, d->l, d->ifname);
}

RCK_EXPORT int rck_lldp_write(const struct rck_lldp *l, const char *ifname, enum rck_format fmt,
			      FILE *out)
{
	struct lldp_doc d = { l, ifname };

	if (!l || !ifname)
		return -EINVAL;
	return dcb_emit_doc(fmt, out, lldp_doc_fn, &d);
}

/* The priorities DSCP @dscp maps to in an APP table, "none" if unmapped. */
static void dscp_prios(const struct dcb_app_ent *apps, size_t n, unsigned int dscp, char *buf,
		       size_t len)
{
	uint8_t bm = 0;

	for (size_t i = 0; i < n; i++)
		if (apps[i].selector == RCK_DCB_SEL_DSCP && apps[i].protocol == dscp)
			bm |= (uint8_t)(1u << apps[i].priority);
	dcb_prio_list(bm, buf, len);
}

static void peer_dscp(const struct rck_lldp *l, unsigned int dscp, char *buf, size_t len)
{
	uint8_t bm = 0;

	for (size_t i = 0; i < l->n_apps; i++)
		if (l->apps[i].selector == IEEE_8021QAZ_APP_SEL_DSCP && l->apps[i].protocol == dscp)
			bm |= (uint8_t)(1u << l->apps[i].priority);
	dcb_prio_list(bm, buf, len);
}

/* What the switch should announce: the host's own setting when the host
 * reports it, else the profile's (a NIC without dcbnl still has a switch
 * port that must match the profile). */
static bool want_pfc(const struct rck_dcb_profile *p, const struct rck_dcb *h, char *buf, size_t len)
{
	if (!h->err[RCK_DCB_PFC]) {
		dcb_prio_list(h->pfc.pfc_en, buf, len);
		return true;
	}
	if (p && p->has_pfc) {
		dcb_prio_list(p->pfc, buf, len);
		return true;
	}
	return false;
}

static const struct dcb_app_ent *want_apps(const struct rck_dcb_profile *p, const struct rck_dcb *h,
					   size_t *n)
{
	if (!h->err[RCK_DCB_APP]) {
		*n = h->n_apps;
		return h->apps;
	}
	*n = p ? p->n_dscp : 0;
	return p ? p->dscp : NULL;
}

RCK_EXPORT int rck_dcb_diff_add_peer(struct rck_dcb_diff *d, const struct rck_dcb_profile *p,
				     const struct rck_dcb *h, const struct rck_lldp *l)
{
	char want[96], have[96], field[48];
	const struct dcb_app_ent *apps;
	uint64_t dscps = 0; /* bit per DSCP 0-63 */
	size_t n_apps;
	int rc = 0;

	if (!l)
		return dcb_diff_add(d, "peer.lldp", "heard", "no LLDP from the link partner");
	if (want_pfc(p, h, want, sizeof(want))) {
		if (l->has_pfc)
			dcb_prio_list(l->pfc_en, have, sizeof(have));
		else
			snprintf(have, sizeof(have), "no PFC TLV from the switch");
		rc = dcb_diff_add(d, "peer.pfc.enabled", want, have);
	}
	/* IEEE DCBX settles only when the switch leads: a willing switch
	 * follows the host, and with both willing nobody leads. */
	if (!rc) {
		bool sw = (l->has_pfc && l->pfc_willing) || (l->ets.present && l->ets.willing);

		snprintf(have, sizeof(have), "switch %s", sw ? "willing" : "not willing");
		rc = dcb_diff_add(d, "peer.willing", "switch not willing", have);
	}
	apps = want_apps(p, h, &n_apps);
	for (size_t i = 0; i < n_apps; i++)
		if (apps[i].selector == RCK_DCB_SEL_DSCP && apps[i].protocol < 64)
			dscps |= 1ULL << apps[i].protocol;
	for (size_t i = 0; i < l->n_apps; i++)
		if (l->apps[i].selector == IEEE_8021QAZ_APP_SEL_DSCP && l->apps[i].protocol < 64)
			dscps |= 1ULL << l->apps[i].protocol;
	for (unsigned int v = 0; v < 64 && !rc; v++) {
		if (!(dscps & (1ULL << v)))
			continue;
		snprintf(field, sizeof(field), "peer.app.dscp.%u", v);
		dscp_prios(apps, n_apps, v, want, sizeof(want));
		if (l->has_app)
			peer_dscp(l, v, have, sizeof(have));
		else
			snprintf(have, sizeof(have), "no APP TLV from the switch");
		rc = dcb_diff_add(d, field, want, have);
	}
	return rc;
}
