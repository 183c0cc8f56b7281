/* Agent protocol bodies: which attributes each message carries, and the
 * checked decode of all of them into one flat struct. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "rocecheck/probe.h"

#include "agent_proto.h"

const struct wire_proto ag_proto = {
	.magic = AG_MAGIC,
	.version = AG_VERSION,
	.max_payload = AG_MAX_PAYLOAD,
	.name = "agent",
};

enum {
	A_ID = 1, A_STATUS, A_TEXT, A_NIC, A_DEV, A_PORT, A_NETDEV, A_STATE, A_FW, A_ADDR,
	A_RATE, A_MTU, A_NETDEV_MTU, A_GID_INDEX, A_CTRMASK, A_TEST, A_TRANSPORT, A_SIZE,
	A_ITERS, A_DURATION, A_TIMEOUT, A_PEER, A_PROBE_PORT, A_GBPS, A_P50, A_P99, A_SECONDS,
	A_CTR_SRC, A_CTR_DST, A_CTR, A_CTR_ID, A_CTR_VAL,
	A_MAX = A_CTR_VAL
};

const char *ag_type_name(uint16_t type)
{
	static const char *const names[] = {
		[AG_ERROR] = "ERROR", [AG_DESCRIBE] = "DESCRIBE", [AG_HOST] = "HOST",
		[AG_SNAPSHOT] = "SNAPSHOT", [AG_COUNTERS] = "COUNTERS", [AG_SERVE] = "SERVE",
		[AG_SERVING] = "SERVING", [AG_SERVED] = "SERVED", [AG_RUN] = "RUN",
		[AG_RESULT] = "RESULT", [AG_CLOSE] = "CLOSE", [AG_DCB_GET] = "DCB_GET", [AG_DCB] = "DCB",
		[AG_PCIE_GET] = "PCIE_GET", [AG_PCIE] = "PCIE",
	};

	return type < sizeof(names) / sizeof(names[0]) && names[type] ? names[type] : "unknown";
}

static void put_nic(struct wire_buf *b, const struct ag_nic *n)
{
	size_t nest = wire_attr_nest_start(b, A_NIC);

	wire_attr_put_str(b, A_DEV, n->device);
	wire_attr_put_u32(b, A_PORT, n->port);
	wire_attr_put_str(b, A_NETDEV, n->netdev);
	wire_attr_put_str(b, A_STATE, n->state);
	wire_attr_put_str(b, A_FW, n->fw_ver);
	wire_attr_put_str(b, A_ADDR, n->addr);
	wire_attr_put_f64(b, A_RATE, n->rate_gbps);
	wire_attr_put_u32(b, A_MTU, n->active_mtu);
	wire_attr_put_u32(b, A_NETDEV_MTU, n->netdev_mtu);
	wire_attr_put_u32(b, A_GID_INDEX, (uint32_t)n->gid_index);
	wire_attr_put_u64(b, A_CTRMASK, n->counters);
	wire_attr_nest_end(b, nest);
}

static void put_ctrs(struct wire_buf *b, uint16_t type, const struct ag_ctr *c, uint32_t n)
{
	size_t list = wire_attr_nest_start(b, type);

	for (uint32_t i = 0; i < n; i++) {
		size_t one = wire_attr_nest_start(b, A_CTR);

		wire_attr_put_u32(b, A_CTR_ID, c[i].id);
		wire_attr_put_u64(b, A_CTR_VAL, c[i].value);
		wire_attr_nest_end(b, one);
	}
	wire_attr_nest_end(b, list);
}

static void put_probe(struct wire_buf *b, const struct ag_msg *m)
{
	wire_attr_put_str(b, A_DEV, m->device);
	wire_attr_put_u32(b, A_PORT, m->ib_port);
	wire_attr_put_u32(b, A_TEST, m->test);
	wire_attr_put_u32(b, A_TRANSPORT, m->transport);
	wire_attr_put_u32(b, A_SIZE, m->size);
	wire_attr_put_u64(b, A_ITERS, m->iters);
	wire_attr_put_u32(b, A_DURATION, m->duration_ms);
	wire_attr_put_u32(b, A_TIMEOUT, m->timeout_ms);
}

void ag_msg_clear(struct ag_msg *m)
{
	memset(m, 0, offsetof(struct ag_msg, nics));
}

void ag_msg_copy(struct ag_msg *dst, const struct ag_msg *src)
{
	memcpy(dst, src, offsetof(struct ag_msg, nics));
	if (src->n_nics <= AG_MAX_NICS)
		memcpy(dst->nics, src->nics, src->n_nics * sizeof(src->nics[0]));
	for (int end = 0; end < 2; end++)
		if (src->n_ctr[end] <= AG_MAX_CTRS)
			memcpy(dst->ctr[end], src->ctr[end], src->n_ctr[end] * sizeof(src->ctr[end][0]));
}

int ag_encode(const struct ag_msg *m, uint8_t *buf, size_t cap, size_t *len)
{
	struct wire_buf b = { .p = buf, .cap = cap };

	wire_attr_put_u32(&b, A_ID, m->id);
	switch (m->type) {
	case AG_ERROR:
	case AG_SERVED:
	case AG_DCB:
	case AG_PCIE:
		wire_attr_put_u32(&b, A_STATUS, m->status);
		wire_attr_put_str(&b, A_TEXT, m->text);
		break;
	case AG_DESCRIBE:
	case AG_CLOSE:
	case AG_DCB_GET:
	case AG_PCIE_GET:
		break;
	case AG_HOST:
		if (m->n_nics > AG_MAX_NICS)
			return -EINVAL;
		wire_attr_put_str(&b, A_TEXT, m->text);
		for (uint32_t i = 0; i < m->n_nics; i++)
			put_nic(&b, &m->nics[i]);
		break;
	case AG_SNAPSHOT:
		wire_attr_put_str(&b, A_DEV, m->device);
		wire_attr_put_u32(&b, A_PORT, m->ib_port);
		break;
	case AG_COUNTERS:
		if (m->n_ctr[0] > AG_MAX_CTRS)
			return -EINVAL;
		wire_attr_put_u32(&b, A_STATUS, m->status);
		put_ctrs(&b, A_CTR_SRC, m->ctr[0], m->n_ctr[0]);
		break;
	case AG_SERVE:
		put_probe(&b, m);
		break;
	case AG_SERVING:
		wire_attr_put_u32(&b, A_PROBE_PORT, m->probe_port);
		break;
	case AG_RUN:
		put_probe(&b, m);
		wire_attr_put_str(&b, A_PEER, m->peer);
		wire_attr_put_u32(&b, A_PROBE_PORT, m->probe_port);
		break;
	case AG_RESULT:
		if (m->n_ctr[0] > AG_MAX_CTRS || m->n_ctr[1] > AG_MAX_CTRS)
			return -EINVAL;
		wire_attr_put_u32(&b, A_STATUS, m->status);
		wire_attr_put_str(&b, A_TEXT, m->text);
		wire_attr_put_f64(&b, A_GBPS, m->gbps);
		wire_attr_put_f64(&b, A_P50, m->lat_p50_us);
		wire_attr_put_f64(&b, A_P99, m->lat_p99_us);
		wire_attr_put_f64(&b, A_SECONDS, m->seconds);
		put_ctrs(&b, A_CTR_SRC, m->ctr[0], m->n_ctr[0]);
		put_ctrs(&b, A_CTR_DST, m->ctr[1], m->n_ctr[1]);
		break;
	default:
		return -EINVAL;
	}
	*len = b.len;
	return b.bad ? -ENOBUFS : 0;
}

int ag_opt_u32(const struct wire_attr *a, uint32_t *v)
{
	int rc = wire_attr_u32(a, v);

	return rc == -ENOENT ? 0 : rc;
}

int ag_opt_u64(const struct wire_attr *a, uint64_t *v)
{
	int rc = wire_attr_u64(a, v);

	return rc == -ENOENT ? 0 : rc;
}

int ag_opt_f64(const struct wire_attr *a, double *v)
{
	int rc = wire_attr_f64(a, v);

	return rc == -ENOENT ? 0 : rc;
}

int ag_opt_str(const struct wire_attr *a, char *buf, size_t size)
{
	int rc = wire_attr_str(a, buf, size);

	return rc == -ENOENT ? 0 : rc;
}

static int get_nic(const struct wire_attr *a, struct ag_nic *n)
{
	struct wire_attr tb[A_MAX + 1];
	uint32_t gid = (uint32_t)-1;
	int rc = wire_attr_parse(a->v, a->len, tb, A_MAX);

	if (rc)
		return rc;
	if (!tb[A_DEV].v || !tb[A_PORT].v)
		return -EBADMSG;
	rc = ag_opt_str(&tb[A_DEV], n->device, sizeof(n->device)) ?:
	     ag_opt_u32(&tb[A_PORT], &n->port) ?:
	     ag_opt_str(&tb[A_NETDEV], n->netdev, sizeof(n->netdev)) ?:
	     ag_opt_str(&tb[A_STATE], n->state, sizeof(n->state)) ?:
	     ag_opt_str(&tb[A_FW], n->fw_ver, sizeof(n->fw_ver)) ?:
	     ag_opt_str(&tb[A_ADDR], n->addr, sizeof(n->addr)) ?:
	     ag_opt_f64(&tb[A_RATE], &n->rate_gbps) ?:
	     ag_opt_u32(&tb[A_MTU], &n->active_mtu) ?:
	     ag_opt_u32(&tb[A_NETDEV_MTU], &n->netdev_mtu) ?:
	     ag_opt_u32(&tb[A_GID_INDEX], &gid) ?:
	     ag_opt_u64(&tb[A_CTRMASK], &n->counters);
	n->gid_index = (int32_t)gid;
	if (!rc && (n->port == 0 || n->port > 255 || !n->device[0] || n->gid_index < -1 ||
		    !(isfinite(n->rate_gbps) && n->rate_gbps >= 0)))
		rc = -EBADMSG;
	return rc;
}

static bool measure_ok(double v)
{
	return isnan(v) || (isfinite(v) && v >= 0);
}

bool ag_numbers_ok(bool measured, double gbps, double p50, double p99, double seconds)
{
	if (!measure_ok(gbps) || !measure_ok(p50) || !measure_ok(p99) || !measure_ok(seconds))
		return false;
	return !measured || !isnan(gbps) || !isnan(p50);
}

static int get_ctrs(const struct wire_attr *list, struct ag_ctr *c, uint32_t *n)
{
	struct wire_attr a, tb[A_MAX + 1];
	size_t off = 0;
	uint16_t type;
	int rc;

	*n = 0;
	if (!list->v)
		return 0;
	while ((rc = wire_attr_next(list->v, list->len, &off, &type, &a)) == 1) {
		if (type != A_CTR)
			continue;
		if (*n >= AG_MAX_CTRS)
			return -EBADMSG;
		rc = wire_attr_parse(a.v, a.len, tb, A_MAX);
		if (rc || wire_attr_u32(&tb[A_CTR_ID], &c[*n].id) ||
		    wire_attr_u64(&tb[A_CTR_VAL], &c[*n].value))
			return -EBADMSG;
		(*n)++;
	}
	return rc;
}

int ag_decode(uint16_t type, const uint8_t *p, size_t len, struct ag_msg *m)
{
	struct wire_attr tb[A_MAX + 1], a;
	size_t off = 0;
	uint16_t t;
	int rc;

	ag_msg_clear(m);
	m->type = type;
	if (type < AG_ERROR || type > AG_TYPE_MAX || (type > AG_DCB && type < AG_PCIE_GET))
		return -ENOMSG;
	rc = wire_attr_parse(p, len, tb, A_MAX);
	if (rc)
		return rc;
	rc = ag_opt_u32(&tb[A_ID], &m->id) ?:
	     ag_opt_u32(&tb[A_STATUS], &m->status) ?:
	     ag_opt_str(&tb[A_TEXT], m->text, sizeof(m->text)) ?:
	     ag_opt_str(&tb[A_DEV], m->device, sizeof(m->device)) ?:
	     ag_opt_u32(&tb[A_PORT], &m->ib_port) ?:
	     ag_opt_u32(&tb[A_TEST], &m->test) ?:
	     ag_opt_u32(&tb[A_TRANSPORT], &m->transport) ?:
	     ag_opt_u32(&tb[A_SIZE], &m->size) ?:
	     ag_opt_u64(&tb[A_ITERS], &m->iters) ?:
	     ag_opt_u32(&tb[A_DURATION], &m->duration_ms) ?:
	     ag_opt_u32(&tb[A_TIMEOUT], &m->timeout_ms) ?:
	     ag_opt_str(&tb[A_PEER], m->peer, sizeof(m->peer)) ?:
	     ag_opt_u32(&tb[A_PROBE_PORT], &m->probe_port) ?:
	     ag_opt_f64(&tb[A_GBPS], &m->gbps) ?:
	     ag_opt_f64(&tb[A_P50], &m->lat_p50_us) ?:
	     ag_opt_f64(&tb[A_P99], &m->lat_p99_us) ?:
	     ag_opt_f64(&tb[A_SECONDS], &m->seconds) ?:
	     get_ctrs(&tb[A_CTR_SRC], m->ctr[0], &m->n_ctr[0]) ?:
	     get_ctrs(&tb[A_CTR_DST], m->ctr[1], &m->n_ctr[1]);
	if (rc)
		return -EBADMSG;
	if (m->probe_port > 65535 || m->ib_port > 255)
		return -EBADMSG;
	if (type == AG_RESULT && !ag_numbers_ok(m->status == RCK_PROBE_OK, m->gbps, m->lat_p50_us, m->lat_p99_us, m->seconds))
		return -EBADMSG;
	if (type != AG_HOST)
		return 0;
	while ((rc = wire_attr_next(p, len, &off, &t, &a)) == 1) {
		if (t != A_NIC)
			continue;
		if (m->n_nics >= AG_MAX_NICS)
			return -EBADMSG;
		memset(&m->nics[m->n_nics], 0, sizeof(m->nics[0]));
		if (get_nic(&a, &m->nics[m->n_nics]))
			return -EBADMSG;
		m->n_nics++;
	}
	return rc ? -EBADMSG : 0;
}
