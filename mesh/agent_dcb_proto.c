/* The agent protocol's DCB reply: each netdev's DCB state as one nest of
 * attributes (byte arrays for the eight-entry u8 tables, nests of u64 for
 * wider ones), decoded with the same bounds the state file loader keeps. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../dcb/dcb_internal.h"
#include "agent_proto.h"

enum {
	D_IFNAME = 1, D_RDMA_DEV, D_RDMA_PORT, D_ERRS, D_PFC_EN, D_PFC_CAP, D_PFC_MBC, D_PFC_DELAY,
	D_PFC_REQ, D_PFC_IND, D_ETS_WILLING, D_ETS_CAP, D_ETS_CBS, D_ETS_PRIO_TC, D_ETS_TC_BW,
	D_ETS_TSA, D_ETS_RX_BW, D_ETS_RECO_PRIO_TC, D_ETS_RECO_BW, D_ETS_RECO_TSA, D_APPS, D_DCBX,
	D_MAXRATE, D_BUF_PRIO, D_BUF_SIZE, D_BUF_TOTAL, D_TOS, D_MODE, D_TRUST, D_TRUST_FROM,
	D_VENDOR,
	D_MAX = D_VENDOR
};

enum { V_NAME = 1, V_VALUE, V_MAX = V_VALUE };

#define N_FEAT (RCK_DCB_RDMA_CM + 1)
#define APP_LEN 4 /* selector, priority, protocol (big-endian u16) */

static void put_u64s(struct wire_buf *b, uint16_t type, const uint64_t *v)
{
	size_t nest = wire_attr_nest_start(b, type);

	for (uint16_t i = 0; i < DCB_NPRIO; i++)
		wire_attr_put_u64(b, i + 1, v[i]);
	wire_attr_nest_end(b, nest);
}

static void put_port(struct wire_buf *b, const struct rck_dcb *d)
{
	size_t nest = wire_attr_nest_start(b, AG_A_DCB_PORT), errs;
	uint64_t v[DCB_NPRIO];

	wire_attr_put_str(b, D_IFNAME, d->ifname);
	if (d->rdma_dev) {
		wire_attr_put_str(b, D_RDMA_DEV, d->rdma_dev);
		wire_attr_put_u32(b, D_RDMA_PORT, d->rdma_port);
	}
	errs = wire_attr_nest_start(b, D_ERRS);
	for (uint16_t f = 0; f < N_FEAT; f++)
		wire_attr_put_u32(b, f + 1, (uint32_t)-d->err[f]);
	wire_attr_nest_end(b, errs);
	wire_attr_put_u32(b, D_PFC_EN, d->pfc.pfc_en);
	wire_attr_put_u32(b, D_PFC_CAP, d->pfc.pfc_cap);
	wire_attr_put_u32(b, D_PFC_MBC, d->pfc.mbc);
	wire_attr_put_u32(b, D_PFC_DELAY, d->pfc.delay);
	put_u64s(b, D_PFC_REQ, (const uint64_t *)d->pfc.requests);
	put_u64s(b, D_PFC_IND, (const uint64_t *)d->pfc.indications);
	wire_attr_put_u32(b, D_ETS_WILLING, d->ets.willing);
	wire_attr_put_u32(b, D_ETS_CAP, d->ets.ets_cap);
	wire_attr_put_u32(b, D_ETS_CBS, d->ets.cbs);
	wire_attr_put(b, D_ETS_PRIO_TC, d->ets.prio_tc, DCB_NPRIO);
	wire_attr_put(b, D_ETS_TC_BW, d->ets.tc_tx_bw, DCB_NPRIO);
	wire_attr_put(b, D_ETS_TSA, d->ets.tc_tsa, DCB_NPRIO);
	wire_attr_put(b, D_ETS_RX_BW, d->ets.tc_rx_bw, DCB_NPRIO);
	wire_attr_put(b, D_ETS_RECO_PRIO_TC, d->ets.reco_prio_tc, DCB_NPRIO);
	wire_attr_put(b, D_ETS_RECO_BW, d->ets.tc_reco_bw, DCB_NPRIO);
	wire_attr_put(b, D_ETS_RECO_TSA, d->ets.tc_reco_tsa, DCB_NPRIO);
	if (d->n_apps) {
		uint8_t *apps = malloc(d->n_apps * APP_LEN);

		if (!apps) {
			b->bad = true;
			return;
		}
		for (size_t i = 0; i < d->n_apps; i++) {
			apps[i * APP_LEN] = d->apps[i].selector;
			apps[i * APP_LEN + 1] = d->apps[i].priority;
			apps[i * APP_LEN + 2] = (uint8_t)(d->apps[i].protocol >> 8);
			apps[i * APP_LEN + 3] = (uint8_t)d->apps[i].protocol;
		}
		wire_attr_put(b, D_APPS, apps, d->n_apps * APP_LEN);
		free(apps);
	}
	wire_attr_put_u32(b, D_DCBX, d->dcbx);
	put_u64s(b, D_MAXRATE, (const uint64_t *)d->maxrate.tc_maxrate);
	wire_attr_put(b, D_BUF_PRIO, d->buffer.prio2buffer, DCB_NPRIO);
	for (int i = 0; i < DCB_NPRIO; i++)
		v[i] = d->buffer.buffer_size[i];
	put_u64s(b, D_BUF_SIZE, v);
	wire_attr_put_u32(b, D_BUF_TOTAL, d->buffer.total_size);
	wire_attr_put_u32(b, D_TOS, d->roce_tos);
	wire_attr_put_str(b, D_MODE, d->roce_mode);
	wire_attr_put_str(b, D_TRUST, d->trust);
	wire_attr_put_str(b, D_TRUST_FROM, d->trust_from);
	for (size_t i = 0; i < d->n_vendor; i++) {
		size_t vn = wire_attr_nest_start(b, D_VENDOR);

		wire_attr_put_str(b, V_NAME, d->vendor[i].name);
		wire_attr_put_str(b, V_VALUE, d->vendor[i].value);
		wire_attr_nest_end(b, vn);
	}
	wire_attr_nest_end(b, nest);
}

int ag_dcb_encode(uint32_t id, const struct rck_dcb *const *ports, size_t n, const char *error,
		  uint8_t *buf, size_t cap, size_t *len)
{
	struct ag_msg *m = calloc(1, sizeof(*m));
	struct wire_buf b = { .p = buf, .cap = cap };
	int rc;

	if (!m)
		return -ENOMEM;
	if (n > AG_MAX_DCB_PORTS || (n && error)) {
		free(m);
		return -EINVAL;
	}
	m->type = AG_DCB;
	m->id = id;
	m->status = error ? AG_ERR_BADREQ : 0;
	snprintf(m->text, sizeof(m->text), "%s", error ? error : "");
	rc = ag_encode(m, buf, cap, &b.len);
	free(m);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)
		put_port(&b, ports[i]);
	*len = b.len;
	return b.bad ? -ENOBUFS : 0;
}

/* Eight bytes, each at most @max. */
static int get_eight(const struct wire_attr *a, uint8_t *out, unsigned int max)
{
	if (!a->v)
		return 0;
	if (a->len != DCB_NPRIO)
		return -EBADMSG;
	for (int i = 0; i < DCB_NPRIO; i++)
		if (a->v[i] > max)
			return -EBADMSG;
	memcpy(out, a->v, DCB_NPRIO);
	return 0;
}

static int get_u64s(const struct wire_attr *a, uint64_t *out, uint64_t max)
{
	struct wire_attr tb[DCB_NPRIO + 1];
	int rc;

	if (!a->v)
		return 0;
	rc = wire_attr_parse(a->v, a->len, tb, DCB_NPRIO);
	for (int i = 0; !rc && i < DCB_NPRIO; i++) {
		rc = wire_attr_u64(&tb[i + 1], &out[i]);
		if (!rc && out[i] > max)
			rc = -EBADMSG;
	}
	return rc ? -EBADMSG : 0;
}

/* An optional u32 no larger than @max into @out (@size 1, 2 or 4 bytes). */
static int get_u32(const struct wire_attr *a, void *out, size_t size, uint32_t max)
{
	uint32_t v;
	int rc = wire_attr_u32(a, &v);

	if (rc == -ENOENT)
		return 0;
	if (rc || v > max)
		return -EBADMSG;
	if (size == 1)
		*(uint8_t *)out = (uint8_t)v;
	else if (size == 2)
		*(uint16_t *)out = (uint16_t)v;
	else
		*(uint32_t *)out = v;
	return 0;
}

static int get_errs(const struct wire_attr *a, struct rck_dcb *d)
{
	struct wire_attr tb[N_FEAT + 1];
	int rc;

	if (!a->v)
		return 0;
	rc = wire_attr_parse(a->v, a->len, tb, N_FEAT);
	for (int f = 0; !rc && f < N_FEAT; f++) {
		uint32_t e = 0;

		if (!tb[f + 1].v)
			continue;
		rc = wire_attr_u32(&tb[f + 1], &e);
		if (!rc && e > 4095)
			rc = -EBADMSG;
		if (!rc)
			d->err[f] = -(int)e;
	}
	return rc ? -EBADMSG : 0;
}

static int get_apps(const struct wire_attr *a, struct rck_dcb *d)
{
	if (!a->v)
		return 0;
	if (a->len % APP_LEN || a->len / APP_LEN > DCB_MAX_APPS)
		return -EBADMSG;
	for (size_t i = 0; i < a->len / APP_LEN; i++) {
		const uint8_t *e = a->v + i * APP_LEN;
		int rc;

		if (e[1] >= DCB_NPRIO)
			return -EBADMSG;
		rc = dcb_app_push(d, e[0], (uint16_t)(e[2] << 8 | e[3]), e[1]);
		if (rc)
			return rc;
	}
	return 0;
}

static int get_vendor(const uint8_t *p, size_t len, struct rck_dcb *d)
{
	struct wire_attr a, tb[V_MAX + 1];
	char name[128], value[256];
	size_t off = 0;
	uint16_t t;
	int rc;

	while ((rc = wire_attr_next(p, len, &off, &t, &a)) == 1) {
		if (t != D_VENDOR)
			continue;
		if (d->n_vendor >= 64 || wire_attr_parse(a.v, a.len, tb, V_MAX) ||
		    wire_attr_str(&tb[V_NAME], name, sizeof(name)) ||
		    wire_attr_str(&tb[V_VALUE], value, sizeof(value)) || !name[0])
			return -EBADMSG;
		rc = dcb_vendor_push(d, name, value);
		if (rc)
			return rc;
	}
	return rc ? -EBADMSG : 0;
}

static int get_port(const struct wire_attr *a, struct rck_dcb **out)
{
	struct wire_attr tb[D_MAX + 1];
	char ifname[IF_NAMESIZE], dev[AG_NAME_MAX], trust[16], from[160];
	uint64_t v[DCB_NPRIO];
	struct rck_dcb *d;
	int rc = wire_attr_parse(a->v, a->len, tb, D_MAX);

	if (rc || wire_attr_str(&tb[D_IFNAME], ifname, sizeof(ifname)) || !ifname[0])
		return -EBADMSG;
	d = dcb_alloc(ifname);
	if (!d)
		return -ENOMEM;
	if (tb[D_RDMA_DEV].v) {
		rc = wire_attr_str(&tb[D_RDMA_DEV], dev, sizeof(dev)) ?:
		     get_u32(&tb[D_RDMA_PORT], &d->rdma_port, 4, 255);
		if (!rc && !(d->rdma_dev = strdup(dev)))
			rc = -ENOMEM;
	}
	rc = rc ?: get_errs(&tb[D_ERRS], d) ?:
	     get_u32(&tb[D_PFC_EN], &d->pfc.pfc_en, 1, 255) ?:
	     get_u32(&tb[D_PFC_CAP], &d->pfc.pfc_cap, 1, 255) ?:
	     get_u32(&tb[D_PFC_MBC], &d->pfc.mbc, 1, 1) ?:
	     get_u32(&tb[D_PFC_DELAY], &d->pfc.delay, 2, UINT16_MAX) ?:
	     get_u64s(&tb[D_PFC_REQ], (uint64_t *)d->pfc.requests, UINT64_MAX) ?:
	     get_u64s(&tb[D_PFC_IND], (uint64_t *)d->pfc.indications, UINT64_MAX) ?:
	     get_u32(&tb[D_ETS_WILLING], &d->ets.willing, 1, 1) ?:
	     get_u32(&tb[D_ETS_CAP], &d->ets.ets_cap, 1, 255) ?:
	     get_u32(&tb[D_ETS_CBS], &d->ets.cbs, 1, 1) ?:
	     get_eight(&tb[D_ETS_PRIO_TC], d->ets.prio_tc, DCB_NPRIO - 1) ?:
	     get_eight(&tb[D_ETS_TC_BW], d->ets.tc_tx_bw, 100) ?:
	     get_eight(&tb[D_ETS_TSA], d->ets.tc_tsa, 255) ?:
	     get_eight(&tb[D_ETS_RX_BW], d->ets.tc_rx_bw, 100) ?:
	     get_eight(&tb[D_ETS_RECO_PRIO_TC], d->ets.reco_prio_tc, DCB_NPRIO - 1) ?:
	     get_eight(&tb[D_ETS_RECO_BW], d->ets.tc_reco_bw, 100) ?:
	     get_eight(&tb[D_ETS_RECO_TSA], d->ets.tc_reco_tsa, 255) ?:
	     get_apps(&tb[D_APPS], d) ?:
	     get_u32(&tb[D_DCBX], &d->dcbx, 1, 255) ?:
	     get_u64s(&tb[D_MAXRATE], (uint64_t *)d->maxrate.tc_maxrate, INT64_MAX) ?:
	     get_eight(&tb[D_BUF_PRIO], d->buffer.prio2buffer, DCBX_MAX_BUFFERS - 1) ?:
	     get_u64s(&tb[D_BUF_SIZE], v, UINT32_MAX) ?:
	     get_u32(&tb[D_BUF_TOTAL], &d->buffer.total_size, 4, UINT32_MAX) ?:
	     get_u32(&tb[D_TOS], &d->roce_tos, 4, 255) ?:
	     get_vendor(a->v, a->len, d);
	if (!rc && tb[D_BUF_SIZE].v)
		for (int i = 0; i < DCB_NPRIO; i++)
			d->buffer.buffer_size[i] = (uint32_t)v[i];
	if (!rc && tb[D_MODE].v)
		rc = wire_attr_str(&tb[D_MODE], d->roce_mode, sizeof(d->roce_mode));
	if (!rc) {
		dcb_derive_trust(d);
		if (tb[D_TRUST].v)
			rc = wire_attr_str(&tb[D_TRUST], trust, sizeof(trust)) ?:
			     (tb[D_TRUST_FROM].v ? wire_attr_str(&tb[D_TRUST_FROM], from, sizeof(from)) :
						  (from[0] = 0)) ?:
			     dcb_set_trust(d, trust, from);
	}
	if (rc) {
		rck_dcb_free(d);
		return rc == -ENOMEM ? rc : -EBADMSG;
	}
	*out = d;
	return 0;
}

void ag_dcb_clear(struct ag_dcb *d)
{
	for (size_t i = 0; i < d->n; i++)
		rck_dcb_free(d->ports[i]);
	free(d->ports);
	memset(d, 0, sizeof(*d));
}

int ag_dcb_decode(const uint8_t *p, size_t len, struct ag_dcb *out)
{
	struct ag_msg *m = malloc(sizeof(*m));
	struct wire_attr a;
	size_t off = 0;
	uint16_t t;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!m)
		return -ENOMEM;
	rc = ag_decode(AG_DCB, p, len, m);
	out->id = m->id;
	out->failed = m->status != 0;
	snprintf(out->error, sizeof(out->error), "%s", m->text);
	free(m);
	if (rc)
		return -EBADMSG;
	while ((rc = wire_attr_next(p, len, &off, &t, &a)) == 1) {
		struct rck_dcb **np;

		if (t != AG_A_DCB_PORT)
			continue;
		if (out->failed || out->n >= AG_MAX_DCB_PORTS) {
			rc = -EBADMSG;
			break;
		}
		np = realloc(out->ports, (out->n + 1) * sizeof(*np));
		if (!np) {
			rc = -ENOMEM;
			break;
		}
		out->ports = np;
		rc = get_port(&a, &out->ports[out->n]);
		if (rc)
			break;
		out->n++;
	}
	if (rc) {
		ag_dcb_clear(out);
		return rc == -ENOMEM ? rc : -EBADMSG;
	}
	return 0;
}
