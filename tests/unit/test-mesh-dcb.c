/* DCB state over the agent: loopback agents answering from recorded states
 * (and one that cannot read its file, one reading this machine), the
 * coordinator keeping each host's state, the result's JSON round trip,
 * and the AG_DCB encoding against truncation. `--emit` prints the sweep;
 * `--seeds WIRE_DIR MESH_LOAD_DIR DCB_STATE_DIR` writes fuzz seeds (run by
 * hand). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rocecheck/rocecheck.h>

#include "../../dcb/dcb_internal.h"
#include "../../mesh/agent_proto.h"
#include "wire.h"

#define KEY "unit-test-key-0123456789"
#define N 5

static struct rck_ctx *new_ctx(void)
{
	struct rck_ctx *ctx;
	char root[4096];
	const char *fx = getenv("ROCECHECK_FIXTURES");

	if (rck_ctx_new(&ctx))
		abort();
	rck_ctx_set_log_priority(ctx, 0);
	rck_ctx_set_timeout_ms(ctx, getenv("ROCECHECK_WRAP") ? 15000 : 3000);
	/* An agent reading "this machine" reads a recorded host without RDMA. */
	snprintf(root, sizeof(root), "%s/sysfs/empty", fx ? fx : "tests/fixtures");
	rck_ctx_set_sysfs_root(ctx, root);
	return ctx;
}

/* A port as a roce-lossless host has it; @odd gives PFC on 3 and 4 and no
 * DSCP 48 entry. */
static struct rck_dcb *sample_port(const char *ifname, bool odd)
{
	struct rck_dcb *d = dcb_alloc(ifname);

	if (!d)
		abort();
	for (int f = RCK_DCB_PFC; f <= RCK_DCB_RDMA_CM; f++)
		d->err[f] = 0;
	d->err[RCK_DCB_MAXRATE] = -EOPNOTSUPP;
	d->pfc.pfc_en = odd ? 0x18 : 0x08;
	d->pfc.pfc_cap = 8;
	d->pfc.requests[3] = 12345678901ull;
	d->ets.ets_cap = 8;
	for (int i = 0; i < DCB_NPRIO; i++) {
		d->ets.prio_tc[i] = i == 3 ? 3 : 0;
		d->ets.tc_tx_bw[i] = i == 0 ? 50 : i == 3 ? 50 : 0;
		d->ets.tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
	}
	if (dcb_app_push(d, RCK_DCB_SEL_DSCP, 26, 3) ||
	    (!odd && dcb_app_push(d, RCK_DCB_SEL_DSCP, 48, 6)) ||
	    dcb_vendor_push(d, "ecn/roce_np/enable/3", "1"))
		abort();
	d->dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	d->rdma_dev = strdup("mlx5_0");
	d->rdma_port = 1;
	d->roce_tos = 106;
	snprintf(d->roce_mode, sizeof(d->roce_mode), "RoCE v2");
	dcb_derive_trust(d);
	return d;
}

/* Write @odd's two-port show document into @path. */
static void write_recorded(const char *path, bool odd)
{
	struct rck_dcb *p[2] = { sample_port("eth0", odd), sample_port("eth1", false) };
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(rck_dcb_write((const struct rck_dcb *const *)p, 2, RCK_FORMAT_JSON, f), 0);
	fclose(f);
	rck_dcb_free(p[0]);
	rck_dcb_free(p[1]);
}

struct agent {
	struct rck_ctx *ctx;
	struct rck_agent *a;
	pthread_t t;
	char file[256];
};

static void *serve_loop(void *arg)
{
	struct agent *ag = arg;

	while (rck_agent_serve(ag->a, -1) != -EINTR)
		;
	return NULL;
}

static char dir[] = "/tmp/rck-mesh-dcb.XXXXXX";

/* Host 0, 1, 3: recorded, host 1 the odd one; host 2: a file that is not
 * there; host 4: reads "this machine" (no RDMA netdev). */
static void start_agents(struct agent *ag)
{
	for (int i = 0; i < N; i++) {
		struct rck_agent_opts o;

		rck_agent_opts_init(&o);
		o.bind_addr = "127.0.0.1";
		o.port = 0;
		o.key = (const uint8_t *)KEY;
		o.key_len = strlen(KEY);
		snprintf(ag[i].file, sizeof(ag[i].file), "%s/h%d.json", dir, i);
		if (i != 2 && i != 4)
			write_recorded(ag[i].file, i == 1);
		o.dcb_file = i == 4 ? NULL : ag[i].file;
		ag[i].ctx = new_ctx();
		assert_int_equal(rck_agent_new(ag[i].ctx, &o, &ag[i].a), 0);
		assert_int_equal(pthread_create(&ag[i].t, NULL, serve_loop, &ag[i]), 0);
	}
}

static void stop_agents(struct agent *ag)
{
	for (int i = 0; i < N; i++) {
		rck_agent_stop(ag[i].a);
		pthread_join(ag[i].t, NULL);
		rck_agent_free(ag[i].a);
		rck_ctx_free(ag[i].ctx);
		unlink(ag[i].file);
	}
}

static struct rck_mesh *sweep(struct agent *ag, bool dcb)
{
	struct rck_ctx *ctx = new_ctx();
	struct rck_mesh_config *c;
	struct rck_mesh *m = NULL;
	char name[16];

	assert_int_equal(rck_mesh_config_new(&c), 0);
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "h%d", i);
		assert_int_equal(rck_mesh_config_add_host(c, name, "127.0.0.1", rck_agent_port(ag[i].a),
							  NULL, 0), 0);
	}
	assert_int_equal(rck_mesh_config_set_key(c, (const uint8_t *)KEY, strlen(KEY)), 0);
	assert_int_equal(rck_mesh_config_set_probe(c, RCK_PROBE_TRANSPORT_TCP, 4096, 5, 0), 0);
	assert_int_equal(rck_mesh_config_set_pattern(c, "quick", NULL, 0, NULL), 0);
	assert_int_equal(rck_mesh_config_set_dcb(c, dcb), 0);
	assert_int_equal(rck_mesh_run(ctx, c, &m), 0);
	rck_mesh_config_free(c);
	rck_ctx_free(ctx);
	return m;
}

static void check_port(const struct rck_dcb *d, const char *ifname, bool odd)
{
	uint8_t en, cap, sel, prio;
	uint16_t delay, proto;
	uint64_t req, ind;
	unsigned int tos, port;
	const char *mode, *from;
	bool mbc;

	assert_non_null(d);
	assert_string_equal(rck_dcb_ifname(d), ifname);
	assert_string_equal(rck_dcb_rdma_device(d, &port), "mlx5_0");
	assert_int_equal(port, 1);
	assert_int_equal(rck_dcb_pfc(d, &en, &cap, &mbc, &delay), 0);
	assert_int_equal(en, odd ? 0x18 : 0x08);
	assert_int_equal(rck_dcb_pfc_counters(d, 3, &req, &ind), 0);
	assert_true(req == 12345678901ull);
	assert_int_equal(rck_dcb_maxrate(d, 0, &req), -EOPNOTSUPP);
	assert_int_equal(rck_dcb_app_count(d), odd ? 1 : 2);
	assert_int_equal(rck_dcb_app(d, 0, &sel, &proto, &prio), 0);
	assert_true(sel == RCK_DCB_SEL_DSCP && proto == 26 && prio == 3);
	assert_string_equal(rck_dcb_trust(d, &from), "dscp");
	assert_non_null(strstr(from, "DSCP APP"));
	assert_int_equal(rck_dcb_roce_defaults(d, &tos, &mode), 0);
	assert_int_equal(tos, 106);
	assert_string_equal(mode, "RoCE v2");
	assert_int_equal(rck_dcb_vendor_count(d), 1);
}

static void check_hosts(const struct rck_mesh *m)
{
	const char *err;
	size_t n;

	for (unsigned int h = 0; h < N; h++) {
		assert_null(rck_mesh_host_unreachable(m, h));
		assert_int_equal(rck_mesh_host_dcb_count(m, h, &n, &err), 0);
		if (h == 2) {
			assert_int_equal(n, 0);
			assert_non_null(err);
			assert_non_null(strstr(err, "h2.json"));
			continue;
		}
		assert_null(err);
		if (h == 4) { /* no RDMA netdev on the recorded machine */
			assert_int_equal(n, 0);
			continue;
		}
		assert_int_equal(n, 2);
		check_port(rck_mesh_host_dcb(m, h, 0), "eth0", h == 1);
		check_port(rck_mesh_host_dcb(m, h, 1), "eth1", false);
		assert_null(rck_mesh_host_dcb(m, h, 2));
	}
}

/* The adapter's DCB part (analysis/from_mesh_dcb.c), internal. */
int an_add_mesh_dcb(struct rck_analysis *a, unsigned int base_host, const struct rck_mesh *m);

/* The sweep's states through the adapter into the lint: h1's eth0 is the
 * odd port (PFC and DSCP map), h2 was not read. */
static void check_lint(const struct rck_mesh *m)
{
	struct rck_analysis *a;
	struct rck_report *r;
	unsigned int mismatch = 0, unread = 0;

	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	for (unsigned int h = 0; h < rck_mesh_host_count(m); h++)
		assert_int_equal(rck_analysis_add_host(a, rck_mesh_host_name(m, h), NULL, NULL, NULL), 0);
	assert_int_equal(an_add_mesh_dcb(a, 0, m), 0);
	assert_int_equal(rck_analysis_run(a, &r), 0);
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		if (rck_finding_code(f) == RCK_FINDING_CONFIG_MISMATCH) {
			assert_string_equal(rck_finding_host(f), "h1");
			assert_string_equal(rck_finding_nic(f), "mlx5_0/1 (eth0)");
			mismatch++;
		} else {
			assert_int_equal(rck_finding_code(f), RCK_FINDING_DCB_UNSUPPORTED);
			assert_string_equal(rck_finding_host(f), "h2");
			unread++;
		}
	}
	assert_int_equal(mismatch, 2);
	assert_int_equal(unread, 1);
	rck_report_free(r);
	rck_analysis_free(a);
}

static char *to_json(const struct rck_mesh *m, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	assert_int_equal(rck_mesh_write(m, f, RCK_FORMAT_JSON), 0);
	fclose(f);
	return buf;
}

/* The hosts and DCB states of @m with NICs numbered in host order (the
 * loader wants NIC ids 0, 1, 2 ... host by host; a sweep numbers them in
 * the order the agents answered). */
static struct rck_mesh *in_host_order(const struct rck_mesh *m)
{
	struct rck_mesh *c;

	assert_int_equal(rck_mesh_new(&c), 0);
	for (unsigned int h = 0; h < rck_mesh_host_count(m); h++) {
		const struct rck_dcb *p[4];
		const char *err;
		size_t n;

		assert_int_equal(rck_mesh_add_host(c, rck_mesh_host_name(m, h), NULL), 0);
		assert_int_equal(rck_mesh_host_dcb_count(m, h, &n, &err), 0);
		assert_true(n <= 4);
		for (size_t i = 0; i < n; i++)
			p[i] = rck_mesh_host_dcb(m, h, i);
		assert_int_equal(rck_mesh_host_set_dcb(c, h, p, n, err), 0);
	}
	return c;
}

static void test_sweep_keeps_dcb(void **state)
{
	struct agent ag[N];
	struct rck_mesh *m, *back, *ordered;
	char *j1, *j2;
	size_t l1, l2, n;

	(void)state;
	start_agents(ag);
	m = sweep(ag, true);
	check_hosts(m);
	check_lint(m);
	/* The JSON round trip keeps every host's state. */
	ordered = in_host_order(m);
	check_hosts(ordered);
	j1 = to_json(ordered, &l1);
	rck_mesh_free(ordered);
	assert_int_equal(rck_mesh_load_buf(NULL, j1, l1, "sweep", &back), 0);
	check_hosts(back);
	j2 = to_json(back, &l2);
	assert_int_equal(l1, l2);
	assert_memory_equal(j1, j2, l1);
	free(j1);
	free(j2);
	rck_mesh_free(back);
	rck_mesh_free(m);
	/* Not asked: not collected. */
	m = sweep(ag, false);
	assert_int_equal(rck_mesh_host_dcb_count(m, 0, &n, NULL), -ENOENT);
	rck_mesh_free(m);
	stop_agents(ag);
}

/* Every truncation of a reply is refused or decodes, never more. */
static void test_wire_truncated(void **state)
{
	struct rck_dcb *p[2] = { sample_port("eth0", false), sample_port("eth1", true) };
	uint8_t *buf = malloc(AG_MAX_PAYLOAD);
	struct ag_dcb d;
	size_t len;

	(void)state;
	assert_int_equal(ag_dcb_encode(7, (const struct rck_dcb *const *)p, 2, NULL, buf,
				       AG_MAX_PAYLOAD, &len), 0);
	assert_int_equal(ag_dcb_decode(buf, len, &d), 0);
	assert_int_equal(d.id, 7);
	assert_int_equal(d.n, 2);
	assert_false(d.failed);
	check_port(d.ports[1], "eth1", true);
	ag_dcb_clear(&d);
	for (size_t cut = 0; cut < len; cut++) {
		int rc = ag_dcb_decode(buf, cut, &d);

		assert_true(rc == 0 || rc == -EBADMSG);
		assert_true(rc || d.n <= 2);
		ag_dcb_clear(&d);
	}
	assert_int_equal(ag_dcb_encode(7, (const struct rck_dcb *const *)p, 2, NULL, buf, 64, &len),
			 -ENOBUFS);
	assert_int_equal(ag_dcb_encode(8, NULL, 0, "no dcb here", buf, AG_MAX_PAYLOAD, &len), 0);
	assert_int_equal(ag_dcb_decode(buf, len, &d), 0);
	assert_true(d.failed && d.n == 0);
	assert_string_equal(d.error, "no dcb here");
	ag_dcb_clear(&d);
	rck_dcb_free(p[0]);
	rck_dcb_free(p[1]);
	free(buf);
}

static void test_set_dcb_args(void **state)
{
	struct rck_dcb *p = sample_port("eth0", false);
	const struct rck_dcb *pp[1] = { p };
	struct rck_mesh *m;
	size_t n;

	(void)state;
	assert_int_equal(rck_mesh_new(&m), 0);
	assert_int_equal(rck_mesh_add_host(m, "a", NULL), 0);
	assert_int_equal(rck_mesh_host_set_dcb(m, 1, pp, 1, NULL), -EINVAL);
	assert_int_equal(rck_mesh_host_set_dcb(m, 0, pp, 1, "both"), -EINVAL);
	assert_int_equal(rck_mesh_host_set_dcb(m, 0, NULL, 1, NULL), -EINVAL);
	assert_int_equal(rck_mesh_host_dcb_count(m, 0, &n, NULL), -ENOENT);
	assert_int_equal(rck_mesh_host_set_dcb(m, 0, pp, 1, NULL), 0);
	rck_dcb_free(p); /* copied */
	assert_int_equal(rck_mesh_host_set_dcb(m, 0, pp, 0, "replaced"), 0);
	assert_int_equal(rck_mesh_host_dcb_count(m, 0, &n, NULL), 0);
	assert_int_equal(n, 0);
	rck_mesh_free(m);
}

static void save(const char *to, const char *name, const void *b, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", to, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n || fclose(f))
		abort();
}

/* A frame as fuzz-wire reads it: piece size 0, header, payload. */
static void save_frame(const char *to, const char *name, uint16_t type, const uint8_t *p, size_t len)
{
	uint8_t *b = calloc(1, 1 + WIRE_HDR_LEN + len);

	wire_hdr_encode(b + 1, &ag_proto, type, (uint32_t)len);
	memcpy(b + 1 + WIRE_HDR_LEN, p, len);
	save(to, name, b, 1 + WIRE_HDR_LEN + len);
	free(b);
}

static int seeds(const char *wire, const char *load, const char *state)
{
	char path[4096];

	struct rck_dcb *p[1] = { sample_port("eth0", true) };
	uint8_t *buf = malloc(AG_MAX_PAYLOAD);
	struct rck_mesh *m;
	char *json;
	size_t len;

	if (ag_dcb_encode(3, (const struct rck_dcb *const *)p, 1, NULL, buf, AG_MAX_PAYLOAD, &len))
		abort();
	save_frame(wire, "dcb", AG_DCB, buf, len);
	if (ag_dcb_encode(4, NULL, 0, "cannot read", buf, AG_MAX_PAYLOAD, &len))
		abort();
	save_frame(wire, "dcb-error", AG_DCB, buf, len);
	if (rck_mesh_new(&m) || rck_mesh_add_host(m, "a", NULL) || rck_mesh_add_host(m, "b", NULL) ||
	    rck_mesh_host_set_dcb(m, 0, (const struct rck_dcb *const *)p, 1, NULL) ||
	    rck_mesh_host_set_dcb(m, 1, NULL, 0, "no file"))
		abort();
	json = to_json(m, &len);
	save(load, "dcb-hosts.json", json, len);
	snprintf(path, sizeof(path), "%s/show-two.json", state);
	write_recorded(path, true);
	free(json);
	rck_mesh_free(m);
	rck_dcb_free(p[0]);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_keeps_dcb),
		cmocka_unit_test(test_wire_truncated),
		cmocka_unit_test(test_set_dcb_args),
	};
	int rc;

	if (!mkdtemp(dir))
		return 1;
	if (argc == 5 && !strcmp(argv[1], "--seeds"))
		return seeds(argv[2], argv[3], argv[4]);
	if (argc == 2 && !strcmp(argv[1], "--emit")) {
		struct agent ag[N];
		struct rck_mesh *m;

		start_agents(ag);
		m = sweep(ag, true);
		rc = rck_mesh_write(m, stdout, RCK_FORMAT_JSON_PRETTY);
		rck_mesh_free(m);
		stop_agents(ag);
	} else {
		rc = cmocka_run_group_tests(tests, NULL, NULL);
	}
	rmdir(dir);
	return rc ? 1 : 0;
}
