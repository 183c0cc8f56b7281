/* The agents' schedule's messages: PLAN, PLANNED, TASKS and TRES encode
 * and decode to the same values; malformed or out-of-range ones fail. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../mesh/agent_tasks_proto.h"

static uint8_t buf[AG_MAX_PAYLOAD];

static void test_plan(void **state)
{
	static struct ag_plan p, q;
	struct ag_planned a = { .n = 2, .probe_port = { 40000, 40001 } }, b;
	size_t len;

	(void)state;
	memset(p.key, 0xa5, sizeof(p.key));
	p.transport = 1;
	p.size = 4096;
	p.iters = 100;
	p.duration_ms = 300;
	p.timeout_ms = 10000;
	p.n_nics = 2;
	strcpy(p.nics[0].device, "mlx5_0");
	p.nics[0].port = 1;
	strcpy(p.nics[1].device, "mlx5_1");
	p.nics[1].port = 2;
	assert_int_equal(ag_plan_encode(&p, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_plan_decode(buf, len, &q), 0);
	assert_memory_equal(q.key, p.key, sizeof(p.key));
	assert_int_equal(q.size, 4096);
	assert_int_equal(q.iters, 100);
	assert_int_equal(q.n_nics, 2);
	assert_string_equal(q.nics[1].device, "mlx5_1");
	assert_int_equal(q.nics[1].port, 2);
	assert_int_equal(q.lanes, 1); /* absent: one listener per NIC */
	p.lanes = 3;
	assert_int_equal(ag_plan_encode(&p, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_plan_decode(buf, len, &q), 0);
	assert_int_equal(q.lanes, 3);
	p.lanes = AG_MAX_LANES + 1;
	assert_int_equal(ag_plan_encode(&p, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_plan_decode(buf, len, &q), -EBADMSG);
	p.lanes = 1;
	/* A short key, no NICs, a transport out of range: refused. */
	assert_int_equal(ag_plan_decode(buf, 8, &q), -EBADMSG);
	p.n_nics = 0;
	assert_int_equal(ag_plan_encode(&p, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_plan_decode(buf, len, &q), -EBADMSG);
	p.n_nics = 1;
	p.transport = 7;
	assert_int_equal(ag_plan_encode(&p, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_plan_decode(buf, len, &q), -EBADMSG);
	p.n_nics = AG_MAX_NICS + 1;
	assert_int_equal(ag_plan_encode(&p, buf, sizeof(buf), &len), -EINVAL);

	assert_int_equal(ag_planned_encode(&a, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_planned_decode(buf, len, &b), 0);
	assert_int_equal(b.n, 2);
	assert_int_equal(b.probe_port[1], 40001);
	a.probe_port[0] = 70000;
	assert_int_equal(ag_planned_encode(&a, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_planned_decode(buf, len, &b), -EBADMSG);
}

static void test_tasks(void **state)
{
	static struct ag_task t[AG_TASKS_PER_FRAME], u[AG_TASKS_PER_FRAME];
	size_t len, n;

	(void)state;
	for (unsigned int i = 0; i < AG_TASKS_PER_FRAME; i++) {
		t[i].id = 1000 + i;
		t[i].role = i % 2;
		t[i].test = i % 3 == 0;
		t[i].nic = i % 4;
		snprintf(t[i].peer, sizeof(t[i].peer), "10.0.%u.%u", i / 256, i % 256);
		t[i].peer_port = 30000 + i;
		/* Groups of 3 consecutive ids, each member on its own lane. */
		t[i].group = t[i].id - i % 3;
		t[i].lane = (uint8_t)(i % 3);
		t[i].ahead = i % 7;
		if (i % 5 == 0) {
			strcpy(t[i].peer_device, "rxe0");
			t[i].peer_ib_port = 1;
		}
	}
	/* A full chunk fits one frame. */
	assert_int_equal(ag_tasks_encode(t, AG_TASKS_PER_FRAME, buf, sizeof(buf), &len), 0);
	assert_true(len < AG_MAX_PAYLOAD);
	assert_int_equal(ag_tasks_decode(buf, len, u, AG_TASKS_PER_FRAME, &n), 0);
	assert_int_equal(n, AG_TASKS_PER_FRAME);
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(u[i].id, t[i].id);
		assert_int_equal(u[i].role, t[i].role);
		assert_int_equal(u[i].test, t[i].test);
		assert_int_equal(u[i].nic, t[i].nic);
		assert_string_equal(u[i].peer, t[i].peer);
		assert_int_equal(u[i].peer_port, t[i].peer_port);
		assert_string_equal(u[i].peer_device, t[i].peer_device);
		assert_int_equal(u[i].group, t[i].group);
		assert_int_equal(u[i].lane, t[i].lane);
		assert_int_equal(u[i].ahead, t[i].ahead);
	}
	/* A group after its member, a lane out of range: refused. */
	t[0].group = t[0].id + 1;
	assert_int_equal(ag_tasks_encode(t, 1, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_tasks_decode(buf, len, u, 1, &n), -EBADMSG);
	t[0].group = t[0].id - 1;
	t[0].lane = AG_MAX_LANES;
	assert_int_equal(ag_tasks_encode(t, 1, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_tasks_decode(buf, len, u, 1, &n), -EBADMSG);
	t[0].lane = 0;
	t[0].group = t[0].id;
	/* More than the reader's room, a role or port out of range: refused. */
	assert_int_equal(ag_tasks_decode(buf, len, u, 10, &n), -EBADMSG);
	t[0].role = 2;
	assert_int_equal(ag_tasks_encode(t, 1, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_tasks_decode(buf, len, u, 1, &n), -EBADMSG);
	t[0].role = 0;
	t[0].peer_port = 65536;
	assert_int_equal(ag_tasks_encode(t, 1, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_tasks_decode(buf, len, u, 1, &n), -EBADMSG);
	assert_int_equal(ag_tasks_encode(t, AG_TASKS_PER_FRAME + 1, buf, sizeof(buf), &len), -EINVAL);
	/* A truncated frame. */
	t[0].peer_port = 1;
	assert_int_equal(ag_tasks_encode(t, 2, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_tasks_decode(buf, len - 3, u, 2, &n), -EBADMSG);
}

static void test_results(void **state)
{
	static struct ag_tres r[AG_TRES_PER_FRAME], s[AG_TRES_PER_FRAME];
	size_t len, n;
	bool last;

	(void)state;
	for (unsigned int i = 0; i < AG_TRES_PER_FRAME; i++) {
		r[i].id = i * 7;
		r[i].role = i & 1;
		r[i].status = i % 3 ? 0 : 3;
		r[i].text[0] = '\0';
		if (i % 3 == 0)
			snprintf(r[i].text, sizeof(r[i].text), "peer never came for task %u", i);
		r[i].gbps = 10.5 + i;
		r[i].lat_p50_us = NAN;
		r[i].lat_p99_us = 3.25;
		r[i].seconds = 0.5;
		r[i].ago = 0.125;
		r[i].start_ago = 0.5;
		/* The worst case: every counter the frame can hold still fits. */
		r[i].n_ctr = AG_MAX_CTRS;
		for (unsigned int k = 0; k < AG_MAX_CTRS; k++)
			r[i].ctr[k] = (struct ag_ctr){ .id = k, .value = (uint64_t)i << 40 | k };
	}
	assert_int_equal(ag_tres_encode(r, AG_TRES_PER_FRAME, true, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_tres_decode(buf, len, s, AG_TRES_PER_FRAME, &n, &last), 0);
	assert_int_equal(n, AG_TRES_PER_FRAME);
	assert_true(last);
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(s[i].id, r[i].id);
		assert_int_equal(s[i].role, r[i].role);
		assert_int_equal(s[i].status, r[i].status);
		assert_string_equal(s[i].text, r[i].text);
		assert_true(s[i].gbps == r[i].gbps && isnan(s[i].lat_p50_us) && s[i].lat_p99_us == 3.25);
		assert_int_equal(s[i].n_ctr, AG_MAX_CTRS);
		assert_int_equal(s[i].ctr[5].value, r[i].ctr[5].value);
		assert_true(s[i].ago == 0.125 && s[i].start_ago == 0.5);
	}
	assert_int_equal(ag_tres_encode(r, 0, false, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_tres_decode(buf, len, s, 1, &n, &last), 0);
	assert_int_equal(n, 0);
	assert_false(last);
	r[0].ago = -1;
	assert_int_equal(ag_tres_encode(r, 1, false, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_tres_decode(buf, len, s, 1, &n, &last), 0); /* not sent: only > 0 goes */
	r[0].status = 99;
	assert_int_equal(ag_tres_encode(r, 1, false, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_tres_decode(buf, len, s, 1, &n, &last), -EBADMSG);
	assert_string_equal(ag_task_type_name(AG_TRES), "TRES");
	assert_string_equal(ag_task_type_name(AG_HOST), "HOST");
}

static void test_drop(void **state)
{
	struct ag_peer p[2] = { { "10.0.0.3", 40000 }, { "10.0.1.3", 40001 } }, q[2];
	size_t len, n;

	(void)state;
	assert_int_equal(ag_drop_encode(p, 2, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_drop_decode(buf, len, q, 2, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(q[1].addr, "10.0.1.3");
	assert_int_equal(q[1].port, 40001);
	assert_int_equal(ag_drop_decode(buf, len, q, 1, &n), -EBADMSG);
	p[0].port = 65536;
	assert_int_equal(ag_drop_encode(p, 1, buf, sizeof(buf), &len), 0);
	assert_int_equal(ag_drop_decode(buf, len, q, 2, &n), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_tasks),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_drop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
