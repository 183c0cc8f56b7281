/* The DCB state of a port as text or JSON (one print layer), also the
 * format of rocedcb's state file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dcb_internal.h"
#include "emit.h"

/* The "schema" of each document: NAME/VERSION (schemas/rocedcb.schema.json). */
#define SHOW_SCHEMA "rocedcb.show/1"
#define STATE_SCHEMA "rocedcb.state/1"

const char *dcb_tsa_name(uint8_t tsa)
{
	switch (tsa) {
	case IEEE_8021QAZ_TSA_STRICT: return "strict";
	case IEEE_8021QAZ_TSA_CB_SHAPER: return "cbs";
	case IEEE_8021QAZ_TSA_ETS: return "ets";
	case IEEE_8021QAZ_TSA_VENDOR: return "vendor";
	default: return "unknown";
	}
}

const char *dcb_selector_name(uint8_t sel, char *buf, size_t len)
{
	static const char *const names[] = { NULL, "ethertype", "stream", "dgram", "any", "dscp" };

	if (sel < RCK_ARRAY_SIZE(names) && names[sel])
		return names[sel];
	if (sel == RCK_DCB_SEL_PCP)
		return "pcp";
	snprintf(buf, len, "sel-%u", sel);
	return buf;
}

const char *dcb_err_str(int err)
{
	if (err == -EOPNOTSUPP)
		return "not supported by this driver";
	/* A recorded sysfs tree holds no netlink or configfs answers. */
	if (err == -ENODATA)
		return "not in a recorded tree";
	return strerror(-err);
}

void dcb_prio_list(uint8_t bm, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < DCB_NPRIO; i++)
		if (bm & (1u << i))
			o += (size_t)snprintf(buf + o, len - o, "%s%d", o ? "," : "", i);
	if (!o)
		snprintf(buf, len, "none");
}

void dcb_u8_list(const uint8_t *v, bool tsa, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < DCB_NPRIO && o < len; i++) {
		if (tsa)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "", dcb_tsa_name(v[i]));
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%u", i ? " " : "", v[i]);
	}
}

void dcb_emit_prio_array(struct emit *e, const char *key, uint8_t bm)
{
	int n = 0;

	/* JSON: the enabled priorities; text: every priority with on/off as
	 * `dcb pfc show` prints prio-pfc ("0:off 1:off 2:off 3:on ..."). */
	emit_arr_open(e, key);
	for (int i = 0; i < DCB_NPRIO; i++) {
		emit_text(e, "%s%d:%s", n++ ? " " : "", i, bm & (1u << i) ? "on" : "off");
		if (bm & (1u << i))
			emit_u64(e, NULL, NULL, (uint64_t)i);
	}
	emit_arr_close(e);
}

void dcb_emit_app(struct emit *e, uint8_t selector, uint16_t protocol, uint8_t priority)
{
	char buf[16];

	emit_obj_open(e, NULL);
	emit_str(e, "selector", "%s ", dcb_selector_name(selector, buf, sizeof(buf)));
	emit_u64(e, "protocol", "%s", protocol);
	emit_u64(e, "priority", ":%s  ", priority);
	emit_obj_close(e);
}

/* "not supported by this driver" for EOPNOTSUPP, the error text otherwise. */
static bool feature_open(struct emit *e, const struct rck_dcb *d, enum rck_dcb_feature f,
			 const char *key, const char *label)
{
	int err = d->err[f];

	emit_obj_open(e, key);
	emit_text(e, "  %-9s", label);
	emit_bool(e, "supported", NULL, err == 0);
	if (err) {
		emit_str(e, "reason", "%s\n", dcb_err_str(err));
		emit_obj_close(e);
		return false;
	}
	return true;
}

/* Eight values (numbers or TSA names) under @key, a text line after @label. */
void dcb_emit_eight(struct emit *e, const char *key, const char *label, const uint8_t *v, bool tsa)
{
	emit_text(e, "  %-9s%-12s", "", label);
	/* Index:value as `dcb ets show` prints prio-tc and tc-bw. */
	emit_arr_open(e, key);
	for (int i = 0; i < DCB_NPRIO; i++) {
		emit_text(e, "%s%d:", i ? " " : "", i);
		if (tsa)
			emit_str(e, NULL, "%s", dcb_tsa_name(v[i]));
		else
			emit_u64(e, NULL, "%s", v[i]);
	}
	emit_arr_close(e);
	emit_text(e, "\n");
}

static void u64_array(struct emit *e, const char *key, const char *label, const __u64 *v,
		      uint64_t scale)
{
	emit_text(e, "  %-9s%-12s", "", label);
	emit_arr_open(e, key);
	for (int i = 0; i < DCB_NPRIO; i++) {
		emit_text(e, "%s%d:", i ? " " : "", i);
		emit_u64(e, NULL, "%s", v[i] * scale);
	}
	emit_arr_close(e);
	emit_text(e, "\n");
}

static void write_pfc(struct emit *e, const struct rck_dcb *d)
{
	if (!feature_open(e, d, RCK_DCB_PFC, "pfc", "pfc"))
		return;
	emit_text(e, "enabled ");
	dcb_emit_prio_array(e, "enabled", d->pfc.pfc_en);
	emit_u64(e, "cap", "  cap %s", d->pfc.pfc_cap);
	emit_bool(e, "mbc", "  mbc %s", d->pfc.mbc);
	emit_u64(e, "delay", "  delay %s\n", d->pfc.delay);
	u64_array(e, "requests", "requests", d->pfc.requests, 1);
	u64_array(e, "indications", "indications", d->pfc.indications, 1);
	emit_obj_close(e);
}

static void write_ets(struct emit *e, const struct rck_dcb *d)
{
	if (!feature_open(e, d, RCK_DCB_ETS, "ets", "ets"))
		return;
	emit_bool(e, "willing", "willing %s", d->ets.willing);
	emit_u64(e, "ets_cap", "  cap %s", d->ets.ets_cap);
	emit_bool(e, "cbs", "  cbs %s\n", d->ets.cbs);
	dcb_emit_eight(e, "prio_tc", "prio_tc", d->ets.prio_tc, false);
	dcb_emit_eight(e, "tc_bw", "tc_bw", d->ets.tc_tx_bw, false);
	dcb_emit_eight(e, "tc_tsa", "tc_tsa", d->ets.tc_tsa, true);
	if (emit_is_json(e)) {
		/* Kept for restore; the text view leaves them out. */
		dcb_emit_eight(e, "tc_rx_bw", "", d->ets.tc_rx_bw, false);
		dcb_emit_eight(e, "reco_prio_tc", "", d->ets.reco_prio_tc, false);
		dcb_emit_eight(e, "reco_tc_bw", "", d->ets.tc_reco_bw, false);
		dcb_emit_eight(e, "reco_tc_tsa", "", d->ets.tc_reco_tsa, true);
	}
	emit_obj_close(e);
}

static void write_app(struct emit *e, const struct rck_dcb *d)
{
	if (!feature_open(e, d, RCK_DCB_APP, "app", "app"))
		return;
	emit_arr_open(e, "entries");
	for (size_t i = 0; i < d->n_apps; i++)
		dcb_emit_app(e, d->apps[i].selector, d->apps[i].protocol, d->apps[i].priority);
	emit_arr_close(e);
	emit_text(e, d->n_apps ? "\n" : "empty\n");
	emit_obj_close(e);
}

static const struct {
	uint8_t bit;
	const char *name;
} dcbx_bits[] = {
	{ DCB_CAP_DCBX_HOST, "host" }, { DCB_CAP_DCBX_LLD_MANAGED, "lld-managed" },
	{ DCB_CAP_DCBX_VER_CEE, "cee" }, { DCB_CAP_DCBX_VER_IEEE, "ieee" },
	{ DCB_CAP_DCBX_STATIC, "static" },
};

void dcb_dcbx_text(uint8_t mode, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (size_t i = 0; i < RCK_ARRAY_SIZE(dcbx_bits); i++)
		if (mode & dcbx_bits[i].bit && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", dcbx_bits[i].name);
	if (mode & ~(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_CEE |
		     DCB_CAP_DCBX_VER_IEEE | DCB_CAP_DCBX_STATIC) && o < len)
		o += (size_t)snprintf(buf + o, len - o, "%s0x%02x", o ? " " : "", mode);
	if (!o)
		snprintf(buf, len, "none");
}

uint8_t dcb_dcbx_bit(const char *word)
{
	for (size_t i = 0; i < RCK_ARRAY_SIZE(dcbx_bits); i++)
		if (!strcmp(word, dcbx_bits[i].name))
			return dcbx_bits[i].bit;
	return 0;
}

static void write_dcbx(struct emit *e, const struct rck_dcb *d)
{
	if (!feature_open(e, d, RCK_DCB_DCBX, "dcbx", "dcbx"))
		return;
	emit_u64(e, "mode", NULL, d->dcbx);
	emit_arr_open(e, "flags");
	for (size_t i = 0; i < RCK_ARRAY_SIZE(dcbx_bits); i++)
		if (d->dcbx & dcbx_bits[i].bit)
			emit_str(e, NULL, "%s ", dcbx_bits[i].name);
	emit_arr_close(e);
	emit_text(e, "\n");
	emit_obj_close(e);
}

static void write_maxrate(struct emit *e, const struct rck_dcb *d)
{
	if (!feature_open(e, d, RCK_DCB_MAXRATE, "maxrate", "maxrate"))
		return;
	/* The raw kernel value, kbit/s by linux/dcbnl.h (mlx5 reads it so);
	 * iproute2 6.1's `dcb maxrate` writes and reads it as bytes/s. */
	emit_text(e, "kbit/s per TC (0: unlimited)\n");
	u64_array(e, "tc_maxrate_kbps", "", d->maxrate.tc_maxrate, 1);
	emit_obj_close(e);
}

static void write_buffer(struct emit *e, const struct rck_dcb *d)
{
	__u64 sizes[DCB_NPRIO];

	if (!feature_open(e, d, RCK_DCB_BUFFER, "buffer", "buffer"))
		return;
	emit_u64(e, "total_size", "total %s bytes\n", d->buffer.total_size);
	dcb_emit_eight(e, "prio_buffer", "prio_buffer", d->buffer.prio2buffer, false);
	for (int i = 0; i < DCB_NPRIO; i++)
		sizes[i] = d->buffer.buffer_size[i];
	u64_array(e, "buffer_size", "buffer_size", sizes, 1);
	emit_obj_close(e);
}

static void write_cm(struct emit *e, const struct rck_dcb *d)
{
	if (!d->rdma_dev) {
		emit_obj_open(e, "rdma_cm");
		emit_text(e, "  %-9s", "rdma_cm");
		emit_bool(e, "supported", NULL, false);
		emit_str(e, "reason", "%s\n", "no RDMA device on this interface");
		emit_obj_close(e);
		return;
	}
	if (!feature_open(e, d, RCK_DCB_RDMA_CM, "rdma_cm", "rdma_cm"))
		return;
	emit_u64(e, "default_roce_tos", "tos %s", d->roce_tos);
	emit_str(e, "default_roce_mode", "  mode %s\n", d->roce_mode);
	emit_obj_close(e);
}

/* One port; a state file (@schema set) names its layout, a port inside
 * `show` does not. */
static void write_state(struct emit *e, const struct rck_dcb *d, const char *schema)
{
	emit_obj_open(e, NULL);
	if (schema)
		emit_str(e, "schema", NULL, schema);
	emit_str(e, "interface", "%s", d->ifname);
	if (d->rdma_dev) {
		emit_str(e, "rdma_device", " (RDMA %s", d->rdma_dev);
		emit_u64(e, "rdma_port", "/%s)", d->rdma_port);
	} else {
		emit_null(e, "rdma_device", NULL);
		emit_null(e, "rdma_port", NULL);
	}
	emit_text(e, "\n");
	write_pfc(e, d);
	write_ets(e, d);
	write_app(e, d);
	emit_obj_open(e, "trust");
	emit_str(e, "mode", "  trust    %s", d->trust);
	emit_str(e, "derived_from", " (%s)\n", d->trust_from);
	emit_obj_close(e);
	write_dcbx(e, d);
	write_maxrate(e, d);
	write_buffer(e, d);
	write_cm(e, d);
	emit_obj_open(e, "vendor");
	for (size_t i = 0; i < d->n_vendor; i++) {
		emit_text(e, "  %-9s%s: ", i ? "" : "vendor", d->vendor[i].name);
		emit_str(e, d->vendor[i].name, "%s\n", d->vendor[i].value);
	}
	emit_obj_close(e);
	emit_obj_close(e); /* the port: a second one in `show` is its sibling */
}

int dcb_emit_doc(enum rck_format fmt, FILE *out, void (*fn)(struct emit *e, const void *arg),
		 const void *arg)
{
	struct emit *e;
	int rc;

	if (!out)
		return -EINVAL;
	rc = emit_new(fmt, out, &e);
	if (rc)
		return rc;
	fn(e, arg);
	rc = emit_finish(e);
	emit_free(e);
	return rc;
}

void dcb_emit_port(struct emit *e, const struct rck_dcb *d)
{
	write_state(e, d, NULL);
}

static void port_doc(struct emit *e, const void *arg)
{
	write_state(e, arg, STATE_SCHEMA);
}

int dcb_write_port(const struct rck_dcb *d, enum rck_format fmt, FILE *out)
{
	return dcb_emit_doc(fmt, out, port_doc, d);
}

struct port_list {
	const struct rck_dcb *const *ports;
	size_t n;
};

static void list_doc(struct emit *e, const void *arg)
{
	const struct port_list *l = arg;

	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, SHOW_SCHEMA);
	emit_arr_open(e, "ports");
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			emit_text(e, "\n");
		write_state(e, l->ports[i], NULL);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}

RCK_EXPORT int rck_dcb_write(const struct rck_dcb *const *ports, size_t n, enum rck_format fmt,
			     FILE *out)
{
	struct port_list l = { ports, n };

	if (!ports)
		return -EINVAL;
	return dcb_emit_doc(fmt, out, list_doc, &l);
}
