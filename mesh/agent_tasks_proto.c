/* Encode and decode of the delegated schedule's messages: AG_PLAN,
 * AG_PLANNED, AG_TASKS, AG_TRES, AG_DROP (AG_GO and AG_STOP carry nothing). */
#include <errno.h>
#include <string.h>

#include "rocecheck/probe.h"

#include "agent_tasks_proto.h"

enum {
	T_KEY = 1, T_TRANSPORT, T_SIZE, T_DURATION, T_TIMEOUT, T_ITERS, T_NIC, T_DEV, T_PORT,
	T_STATUS, T_TEXT, T_PROBE_PORT, T_TASK, T_ID, T_ROLE, T_TEST, T_NIC_IDX, T_PEER,
	T_PEER_PORT, T_PEER_DEV, T_PEER_IBPORT, T_RES, T_GBPS, T_P50, T_P99, T_SECONDS, T_CTR,
	T_CTR_ID, T_CTR_VAL, T_DROPPED, T_LANES, T_GROUP, T_LANE, T_AHEAD, T_AGO, T_START_AGO,
	T_IDLE_MS, T_MAX = T_IDLE_MS
};

const char *ag_task_type_name(uint16_t type)
{
	static const char *const names[] = {
		[AG_PLAN] = "PLAN", [AG_PLANNED] = "PLANNED", [AG_TASKS] = "TASKS",
		[AG_GO] = "GO", [AG_TRES] = "TRES", [AG_STOP] = "STOP", [AG_DROP] = "DROP",
	};

	if (type < AG_PLAN)
		return ag_type_name(type);
	return type < sizeof(names) / sizeof(names[0]) && names[type] ? names[type] : "unknown";
}

static int done(const struct wire_buf *b, size_t *len)
{
	*len = b->len;
	return b->bad ? -ENOBUFS : 0;
}

int ag_plan_encode(const struct ag_plan *p, uint8_t *buf, size_t cap, size_t *len)
{
	struct wire_buf b = { .p = buf, .cap = cap };

	if (p->n_nics > AG_MAX_NICS)
		return -EINVAL;
	wire_attr_put(&b, T_KEY, p->key, sizeof(p->key));
	wire_attr_put_u32(&b, T_TRANSPORT, p->transport);
	wire_attr_put_u32(&b, T_SIZE, p->size);
	wire_attr_put_u32(&b, T_DURATION, p->duration_ms);
	wire_attr_put_u32(&b, T_TIMEOUT, p->timeout_ms);
	wire_attr_put_u64(&b, T_ITERS, p->iters);
	if (p->lanes > 1)
		wire_attr_put_u32(&b, T_LANES, p->lanes);
	for (uint32_t i = 0; i < p->n_nics; i++) {
		size_t nest = wire_attr_nest_start(&b, T_NIC);

		wire_attr_put_str(&b, T_DEV, p->nics[i].device);
		wire_attr_put_u32(&b, T_PORT, p->nics[i].port);
		wire_attr_nest_end(&b, nest);
	}
	return done(&b, len);
}

int ag_planned_encode(const struct ag_planned *p, uint8_t *buf, size_t cap, size_t *len)
{
	struct wire_buf b = { .p = buf, .cap = cap };

	if (p->n > AG_MAX_NICS * AG_MAX_LANES)
		return -EINVAL;
	wire_attr_put_u32(&b, T_STATUS, p->status);
	wire_attr_put_str(&b, T_TEXT, p->text);
	if (p->idle_ms)
		wire_attr_put_u32(&b, T_IDLE_MS, p->idle_ms);
	for (uint32_t i = 0; i < p->n; i++)
		wire_attr_put_u32(&b, T_PROBE_PORT, p->probe_port[i]);
	return done(&b, len);
}

int ag_tasks_encode(const struct ag_task *t, size_t n, uint8_t *buf, size_t cap, size_t *len)
{
	struct wire_buf b = { .p = buf, .cap = cap };

	if (n > AG_TASKS_PER_FRAME)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		size_t nest = wire_attr_nest_start(&b, T_TASK);

		wire_attr_put_u32(&b, T_ID, t[i].id);
		if (t[i].group != t[i].id) {
			wire_attr_put_u32(&b, T_GROUP, t[i].group);
			wire_attr_put_u32(&b, T_LANE, t[i].lane);
		}
		if (t[i].ahead)
			wire_attr_put_u32(&b, T_AHEAD, t[i].ahead);
		wire_attr_put_u32(&b, T_ROLE, t[i].role);
		wire_attr_put_u32(&b, T_TEST, t[i].test);
		wire_attr_put_u32(&b, T_NIC_IDX, t[i].nic);
		wire_attr_put_str(&b, T_PEER, t[i].peer);
		wire_attr_put_u32(&b, T_PEER_PORT, t[i].peer_port);
		if (t[i].peer_device[0]) {
			wire_attr_put_str(&b, T_PEER_DEV, t[i].peer_device);
			wire_attr_put_u32(&b, T_PEER_IBPORT, t[i].peer_ib_port);
		}
		wire_attr_nest_end(&b, nest);
	}
	return done(&b, len);
}

int ag_tres_encode(const struct ag_tres *r, size_t n, bool last, uint8_t *buf, size_t cap,
		   size_t *len)
{
	struct wire_buf b = { .p = buf, .cap = cap };

	if (n > AG_TRES_PER_FRAME)
		return -EINVAL;
	wire_attr_put_u32(&b, T_STATUS, last);
	for (size_t i = 0; i < n; i++) {
		size_t nest = wire_attr_nest_start(&b, T_RES);

		if (r[i].n_ctr > AG_MAX_CTRS)
			return -EINVAL;
		wire_attr_put_u32(&b, T_ID, r[i].id);
		wire_attr_put_u32(&b, T_ROLE, r[i].role);
		wire_attr_put_u32(&b, T_STATUS, r[i].status);
		if (r[i].text[0])
			wire_attr_put_str(&b, T_TEXT, r[i].text);
		wire_attr_put_f64(&b, T_GBPS, r[i].gbps);
		wire_attr_put_f64(&b, T_P50, r[i].lat_p50_us);
		wire_attr_put_f64(&b, T_P99, r[i].lat_p99_us);
		wire_attr_put_f64(&b, T_SECONDS, r[i].seconds);
		if (r[i].ago > 0)
			wire_attr_put_f64(&b, T_AGO, r[i].ago);
		if (r[i].start_ago > 0)
			wire_attr_put_f64(&b, T_START_AGO, r[i].start_ago);
		for (uint32_t k = 0; k < r[i].n_ctr; k++) {
			size_t one = wire_attr_nest_start(&b, T_CTR);

			wire_attr_put_u32(&b, T_CTR_ID, r[i].ctr[k].id);
			wire_attr_put_u64(&b, T_CTR_VAL, r[i].ctr[k].value);
			wire_attr_nest_end(&b, one);
		}
		wire_attr_nest_end(&b, nest);
	}
	return done(&b, len);
}

int ag_plan_decode(const uint8_t *p, size_t len, struct ag_plan *out)
{
	struct wire_attr tb[T_MAX + 1], a;
	size_t off = 0;
	uint16_t t;
	int rc;

	memset(out, 0, sizeof(*out));
	if (wire_attr_parse(p, len, tb, T_MAX) || !tb[T_KEY].v || tb[T_KEY].len != AG_PROBE_KEY_LEN)
		return -EBADMSG;
	memcpy(out->key, tb[T_KEY].v, AG_PROBE_KEY_LEN);
	if (ag_opt_u32(&tb[T_TRANSPORT], &out->transport) || ag_opt_u32(&tb[T_SIZE], &out->size) ||
	    ag_opt_u32(&tb[T_DURATION], &out->duration_ms) || ag_opt_u32(&tb[T_TIMEOUT], &out->timeout_ms) ||
	    ag_opt_u64(&tb[T_ITERS], &out->iters))
		return -EBADMSG;
	out->lanes = 1;
	if (ag_opt_u32(&tb[T_LANES], &out->lanes) || !out->lanes || out->lanes > AG_MAX_LANES)
		return -EBADMSG;
	while ((rc = wire_attr_next(p, len, &off, &t, &a)) == 1) {
		struct wire_attr nt[T_MAX + 1];
		struct ag_plan_nic *n;

		if (t != T_NIC)
			continue;
		if (out->n_nics >= AG_MAX_NICS || wire_attr_parse(a.v, a.len, nt, T_MAX))
			return -EBADMSG;
		n = &out->nics[out->n_nics++];
		if (ag_opt_str(&nt[T_DEV], n->device, sizeof(n->device)) || wire_attr_u32(&nt[T_PORT], &n->port) ||
		    n->port > 255)
			return -EBADMSG;
	}
	return rc || out->transport > RCK_PROBE_TRANSPORT_TCP || !out->n_nics ? -EBADMSG : 0;
}

int ag_planned_decode(const uint8_t *p, size_t len, struct ag_planned *out)
{
	struct wire_attr tb[T_MAX + 1], a;
	size_t off = 0;
	uint16_t t;
	int rc;

	memset(out, 0, sizeof(*out));
	if (wire_attr_parse(p, len, tb, T_MAX) || ag_opt_u32(&tb[T_STATUS], &out->status) ||
	    ag_opt_str(&tb[T_TEXT], out->text, sizeof(out->text)) || ag_opt_u32(&tb[T_IDLE_MS], &out->idle_ms))
		return -EBADMSG;
	while ((rc = wire_attr_next(p, len, &off, &t, &a)) == 1) {
		if (t != T_PROBE_PORT)
			continue;
		if (out->n >= AG_MAX_NICS * AG_MAX_LANES || wire_attr_u32(&a, &out->probe_port[out->n]) ||
		    !out->probe_port[out->n] || out->probe_port[out->n] > 65535)
			return -EBADMSG;
		out->n++;
	}
	return rc ? -EBADMSG : 0;
}

static int get_task(const struct wire_attr *a, struct ag_task *t)
{
	struct wire_attr tb[T_MAX + 1];
	uint32_t role = 0, test = 0, nic = 0, lane = 0;

	memset(t, 0, sizeof(*t));
	if (wire_attr_parse(a->v, a->len, tb, T_MAX) || wire_attr_u32(&tb[T_ID], &t->id) ||
	    wire_attr_u32(&tb[T_ROLE], &role) || wire_attr_u32(&tb[T_TEST], &test) ||
	    wire_attr_u32(&tb[T_NIC_IDX], &nic) || wire_attr_str(&tb[T_PEER], t->peer, sizeof(t->peer)) ||
	    wire_attr_u32(&tb[T_PEER_PORT], &t->peer_port) ||
	    ag_opt_str(&tb[T_PEER_DEV], t->peer_device, sizeof(t->peer_device)) ||
	    ag_opt_u32(&tb[T_PEER_IBPORT], &t->peer_ib_port))
		return -EBADMSG;
	t->group = t->id;
	if (ag_opt_u32(&tb[T_GROUP], &t->group) || ag_opt_u32(&tb[T_LANE], &lane) ||
	    ag_opt_u32(&tb[T_AHEAD], &t->ahead) || t->group > t->id || t->ahead > AG_MAX_TASKS ||
	    lane >= AG_MAX_LANES)
		return -EBADMSG;
	t->lane = (uint8_t)lane;
	if (role > AG_ROLE_RUN || test > RCK_PROBE_TEST_SEND_LAT || nic >= AG_MAX_NICS ||
	    t->peer_port > 65535 || t->peer_ib_port > 255 || t->id == UINT32_MAX)
		return -EBADMSG;
	t->role = (uint8_t)role;
	t->test = (uint8_t)test;
	t->nic = (uint8_t)nic;
	return 0;
}

int ag_tasks_decode(const uint8_t *p, size_t len, struct ag_task *out, size_t cap, size_t *n)
{
	struct wire_attr a;
	size_t off = 0;
	uint16_t t;
	int rc;

	*n = 0;
	while ((rc = wire_attr_next(p, len, &off, &t, &a)) == 1) {
		if (t != T_TASK)
			continue;
		if (*n >= cap || get_task(&a, &out[*n]))
			return -EBADMSG;
		(*n)++;
	}
	return rc ? -EBADMSG : 0;
}

static int get_tres(const struct wire_attr *a, struct ag_tres *r)
{
	struct wire_attr tb[T_MAX + 1], c;
	size_t off = 0;
	uint32_t role = 0;
	uint16_t t;
	int rc;

	memset(r, 0, offsetof(struct ag_tres, ctr));
	if (wire_attr_parse(a->v, a->len, tb, T_MAX) || wire_attr_u32(&tb[T_ID], &r->id) ||
	    wire_attr_u32(&tb[T_ROLE], &role) || wire_attr_u32(&tb[T_STATUS], &r->status) ||
	    ag_opt_str(&tb[T_TEXT], r->text, sizeof(r->text)) || ag_opt_f64(&tb[T_GBPS], &r->gbps) ||
	    ag_opt_f64(&tb[T_P50], &r->lat_p50_us) || ag_opt_f64(&tb[T_P99], &r->lat_p99_us) ||
	    ag_opt_f64(&tb[T_SECONDS], &r->seconds) || ag_opt_f64(&tb[T_AGO], &r->ago) ||
	    ag_opt_f64(&tb[T_START_AGO], &r->start_ago) || role > AG_ROLE_RUN || r->status > RCK_PROBE_SYSTEM ||
	    !(r->ago >= 0 && r->ago < 1e6) || !(r->start_ago >= 0 && r->start_ago < 1e6) ||
	    !ag_numbers_ok(r->status == RCK_PROBE_OK && role == AG_ROLE_RUN, r->gbps, r->lat_p50_us,
			   r->lat_p99_us, r->seconds))
		return -EBADMSG;
	r->role = (uint8_t)role;
	while ((rc = wire_attr_next(a->v, a->len, &off, &t, &c)) == 1) {
		struct wire_attr ct[T_MAX + 1];

		if (t != T_CTR)
			continue;
		if (r->n_ctr >= AG_MAX_CTRS || wire_attr_parse(c.v, c.len, ct, T_MAX) ||
		    wire_attr_u32(&ct[T_CTR_ID], &r->ctr[r->n_ctr].id) ||
		    wire_attr_u64(&ct[T_CTR_VAL], &r->ctr[r->n_ctr].value))
			return -EBADMSG;
		r->n_ctr++;
	}
	return rc ? -EBADMSG : 0;
}

int ag_tres_decode(const uint8_t *p, size_t len, struct ag_tres *out, size_t cap, size_t *n,
		   bool *last)
{
	struct wire_attr tb[T_MAX + 1], a;
	uint32_t st = 0;
	size_t off = 0;
	uint16_t t;
	int rc;

	*n = 0;
	if (wire_attr_parse(p, len, tb, T_MAX) || ag_opt_u32(&tb[T_STATUS], &st) || st > 1)
		return -EBADMSG;
	*last = st;
	while ((rc = wire_attr_next(p, len, &off, &t, &a)) == 1) {
		if (t != T_RES)
			continue;
		if (*n >= cap || get_tres(&a, &out[*n]))
			return -EBADMSG;
		(*n)++;
	}
	return rc ? -EBADMSG : 0;
}

int ag_drop_encode(const struct ag_peer *p, size_t n, uint8_t *buf, size_t cap, size_t *len)
{
	struct wire_buf b = { .p = buf, .cap = cap };

	if (n > AG_MAX_NICS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		size_t nest = wire_attr_nest_start(&b, T_DROPPED);

		wire_attr_put_str(&b, T_PEER, p[i].addr);
		wire_attr_put_u32(&b, T_PEER_PORT, p[i].port);
		wire_attr_nest_end(&b, nest);
	}
	return done(&b, len);
}

int ag_drop_decode(const uint8_t *p, size_t len, struct ag_peer *out, size_t cap, size_t *n)
{
	struct wire_attr a;
	size_t off = 0;
	uint16_t t;
	int rc;

	*n = 0;
	while ((rc = wire_attr_next(p, len, &off, &t, &a)) == 1) {
		struct wire_attr tb[T_MAX + 1];

		if (t != T_DROPPED)
			continue;
		if (*n >= cap || wire_attr_parse(a.v, a.len, tb, T_MAX) ||
		    wire_attr_str(&tb[T_PEER], out[*n].addr, sizeof(out[*n].addr)) ||
		    wire_attr_u32(&tb[T_PEER_PORT], &out[*n].port) || out[*n].port > 65535)
			return -EBADMSG;
		(*n)++;
	}
	return rc ? -EBADMSG : 0;
}
