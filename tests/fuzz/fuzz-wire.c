/* Fuzz target of the shared wire layer and the agent protocol (libFuzzer
 * entry point): the input is a peer's byte stream of agent frames, after
 * one byte giving the piece size it arrives in (0: all at once). Frames go
 * through the frame reader, their payloads through the attribute parser
 * and the agent protocol decoder, whose output must encode again (the
 * DCB reply's ports and the agents' schedule's messages too). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../mesh/agent_proto.h"
#include "../../mesh/agent_tasks_proto.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ag_msg m;
static uint8_t out[AG_MAX_PAYLOAD];

/* An AG_DCB: decoded ports encode again and decode to as many. */
static void dcb_payload(const uint8_t *p, size_t len)
{
	struct ag_dcb d, again;
	size_t olen;

	if (ag_dcb_decode(p, len, &d))
		return;
	if (d.n > AG_MAX_DCB_PORTS || (d.failed && d.n))
		abort();
	if (ag_dcb_encode(d.id, (const struct rck_dcb *const *)d.ports, d.n,
			  d.failed ? d.error : NULL, out, sizeof(out), &olen) == 0) {
		if (ag_dcb_decode(out, olen, &again) || again.n != d.n)
			abort();
		ag_dcb_clear(&again);
	}
	ag_dcb_clear(&d);
}

/* The agents' schedule: what decodes encodes again to as many entries. */
static void tasks_payload(uint16_t type, const uint8_t *p, size_t len)
{
	static struct ag_plan plan;
	static struct ag_planned pl, pl2;
	static struct ag_task t[AG_TASKS_PER_FRAME];
	static struct ag_tres r[AG_TRES_PER_FRAME];
	static struct ag_peer gone[AG_MAX_NICS];
	size_t n, n2, olen;
	bool last;

	switch (type) {
	case AG_PLAN:
		if (!ag_plan_decode(p, len, &plan) &&
		    (ag_plan_encode(&plan, out, sizeof(out), &olen) || ag_plan_decode(out, olen, &plan)))
			abort();
		break;
	case AG_PLANNED:
		/* The agent's idle time (the keepalive's interval) survives too. */
		if (!ag_planned_decode(p, len, &pl) &&
		    (ag_planned_encode(&pl, out, sizeof(out), &olen) || ag_planned_decode(out, olen, &pl2) ||
		     pl2.n != pl.n || pl2.idle_ms != pl.idle_ms))
			abort();
		break;
	case AG_TASKS:
		if (!ag_tasks_decode(p, len, t, AG_TASKS_PER_FRAME, &n) &&
		    (ag_tasks_encode(t, n, out, sizeof(out), &olen) ||
		     ag_tasks_decode(out, olen, t, AG_TASKS_PER_FRAME, &n2) || n2 != n))
			abort();
		break;
	case AG_TRES:
		if (!ag_tres_decode(p, len, r, AG_TRES_PER_FRAME, &n, &last) &&
		    (ag_tres_encode(r, n, last, out, sizeof(out), &olen) ||
		     ag_tres_decode(out, olen, r, AG_TRES_PER_FRAME, &n2, &last) || n2 != n))
			abort();
		break;
	case AG_DROP:
		if (!ag_drop_decode(p, len, gone, AG_MAX_NICS, &n) &&
		    (ag_drop_encode(gone, n, out, sizeof(out), &olen) ||
		     ag_drop_decode(out, olen, gone, AG_MAX_NICS, &n2) || n2 != n))
			abort();
		break;
	default:
		break;
	}
}

static void payload(uint16_t type, const uint8_t *p, size_t len)
{
	struct wire_attr tb[8], a;
	size_t off = 0, olen;
	uint16_t t;
	int rc;

	if (wire_attr_parse(p, len, tb, 7) == 0) {
		for (unsigned int i = 0; i < 8; i++)
			if (tb[i].v && (tb[i].v < p || tb[i].v + tb[i].len > p + len))
				abort();
	}
	while ((rc = wire_attr_next(p, len, &off, &t, &a)) == 1)
		if (off > len)
			abort();
	if (type == AG_DCB)
		dcb_payload(p, len);
	if (type >= AG_PLAN && type <= AG_TASK_TYPE_MAX)
		tasks_payload(type, p, len);
	rc = ag_decode(type, p, len, &m);
	if (rc == 0) {
		/* What decoded encodes within the frame limit (strings bounded). */
		if (m.n_nics > AG_MAX_NICS || m.n_ctr[0] > AG_MAX_CTRS || m.n_ctr[1] > AG_MAX_CTRS)
			abort();
		if (ag_encode(&m, out, sizeof(out), &olen) || olen > AG_MAX_PAYLOAD)
			abort();
		if (ag_decode(type, out, olen, &m))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_frame f;
	size_t chunk, taken = 0;

	if (size < 1)
		return 0;
	chunk = data[0];
	data++;
	size--;
	wire_frame_init(&f, &ag_proto);
	while (size) {
		size_t n = chunk && chunk < size ? chunk : size, used;
		int rc = wire_frame_put(&f, data, n, &used);

		if (used > n)
			abort();
		data += used;
		size -= used;
		taken += used;
		if (rc < 0)
			break;
		if (rc == 1) {
			if (taken != WIRE_HDR_LEN + f.h.length || wire_frame_want(&f))
				abort();
			payload(f.h.type, f.payload, f.h.length);
			wire_frame_next(&f);
			taken = 0;
		}
	}
	wire_frame_free(&f);
	return 0;
}
