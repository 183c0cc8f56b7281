/* Task-bound probe listeners on loopback (TCP): another task's client and a
 * wrong key are refused while the wait goes on; nobody by the deadline. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rocecheck/rocecheck.h>

#include "../../probes/task.h"
#include "wire.h"

#define KEY "probe-task-test-key-0123456789ab"

struct served {
	struct rck_probe_server *srv;
	uint32_t task;
	uint64_t wait_ns;
	int rc;
	struct rck_probe_result *res;
};

static void *serve(void *arg)
{
	struct served *s = arg;

	s->rc = psrv_serve_task(s->srv, s->task, wire_now_ns() + s->wait_ns, &s->res);
	return NULL;
}

static struct rck_probe_result *run(struct rck_ctx *ctx, unsigned int port, uint32_t task, const char *key)
{
	struct rck_probe_result *res = NULL;
	struct rck_probe_opts o;

	rck_probe_opts_init(&o);
	o.transport = RCK_PROBE_TRANSPORT_TCP;
	o.port = port;
	o.iters = 20;
	o.msg_size = 4096;
	o.task = task;
	o.key = (const uint8_t *)key;
	o.key_len = strlen(key);
	assert_int_equal(rck_probe_run(ctx, "127.0.0.1", &o, &res), 0);
	return res;
}

static void setup_server(struct rck_ctx **ctx, struct served *s, uint32_t task, double wait_s)
{
	struct rck_probe_opts o;

	assert_int_equal(rck_ctx_new(ctx), 0);
	rck_ctx_set_log_priority(*ctx, 0);
	rck_ctx_set_timeout_ms(*ctx, 3000);
	rck_probe_opts_init(&o);
	o.bind_addr = "127.0.0.1";
	o.port = 0;
	o.key = (const uint8_t *)KEY;
	o.key_len = strlen(KEY);
	memset(s, 0, sizeof(*s));
	assert_int_equal(rck_probe_server_new(*ctx, &o, &s->srv), 0);
	s->task = task;
	s->wait_ns = (uint64_t)(wait_s * 1e9);
}

static void test_bound(void **state)
{
	struct rck_ctx *ctx;
	struct served s;
	struct rck_probe_result *res;
	pthread_t t;

	(void)state;
	setup_server(&ctx, &s, 7, 10);
	assert_int_equal(pthread_create(&t, NULL, serve, &s), 0);
	/* A late client of task 6 and one of no task: refused, the wait goes on. */
	res = run(ctx, rck_probe_server_port(s.srv), 6, KEY);
	assert_int_equal(rck_probe_result_status(res), RCK_PROBE_UNREACHABLE);
	assert_non_null(strstr(rck_probe_result_error(res), "serves task 7"));
	rck_probe_result_free(res);
	res = run(ctx, rck_probe_server_port(s.srv), 0, KEY);
	assert_int_equal(rck_probe_result_status(res), RCK_PROBE_UNREACHABLE);
	rck_probe_result_free(res);
	/* Without the sweep's key: refused before its HELLO is read. */
	res = run(ctx, rck_probe_server_port(s.srv), 7, "not-the-probe-key-of-this-sweep!");
	assert_int_not_equal(rck_probe_result_status(res), RCK_PROBE_OK);
	rck_probe_result_free(res);
	/* Task 7 itself: served. */
	res = run(ctx, rck_probe_server_port(s.srv), 7, KEY);
	assert_int_equal(rck_probe_result_status(res), RCK_PROBE_OK);
	rck_probe_result_free(res);
	pthread_join(t, NULL);
	assert_int_equal(s.rc, 0);
	assert_int_equal(rck_probe_result_status(s.res), RCK_PROBE_OK);
	rck_probe_result_free(s.res);
	rck_probe_server_free(s.srv);
	rck_ctx_free(ctx);
}

static void test_nobody(void **state)
{
	struct rck_ctx *ctx;
	struct served s;

	(void)state;
	setup_server(&ctx, &s, 3, 0.2);
	serve(&s);
	assert_int_equal(s.rc, -ETIMEDOUT);
	rck_probe_server_free(s.srv);
	rck_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_nobody),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
