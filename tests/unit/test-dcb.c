/* DCB library on built data: dcbnl replies assembled attribute by attribute,
 * set replies, profiles and their errors, check, the state file, rdma_cm
 * configfs on a scratch tree. */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../dcb/dcb_internal.h"

/* An IEEE_GET reply like dcbnl_ieee_fill() builds for a driver with @ops:
 * bit 0 ETS, 1 PFC, 2 maxrate, 3 buffer, 4 DCBX; the APP table always. */
static struct nl_msg *ieee_reply(unsigned int ops)
{
	struct dcbmsg hdr = { .dcb_family = AF_UNSPEC, .cmd = DCB_CMD_IEEE_GET };
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_GETDCB, 0);
	struct ieee_ets ets = { .ets_cap = 8, .willing = 1 };
	struct ieee_pfc pfc = { .pfc_cap = 8, .pfc_en = 0x08, .delay = 32 };
	struct ieee_maxrate mr = { .tc_maxrate = { 0, 1000000 } };
	struct dcbnl_buffer buf = { .prio2buffer = { 0, 0, 0, 1 }, .buffer_size = { 1000, 2000 },
				    .total_size = 4096 };
	struct dcb_app apps[] = { { 5, 3, 26 }, { 5, 6, 48 }, { 255, 1, 1 } };
	struct nlattr *ie, *tab;

	for (int i = 0; i < 8; i++) {
		ets.prio_tc[i] = (uint8_t)i;
		ets.tc_tx_bw[i] = i == 3 ? 30 : 10;
		ets.tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
		pfc.requests[i] = 100 + (uint64_t)i;
		pfc.indications[i] = 200 + (uint64_t)i;
	}
	pfc.requests[7] = UINT64_MAX;
	assert_non_null(msg);
	assert_int_equal(nlmsg_append(msg, &hdr, sizeof(hdr), NLMSG_ALIGNTO), 0);
	assert_int_equal(nla_put_string(msg, DCB_ATTR_IFNAME, "dcbtest0"), 0);
	ie = nla_nest_start(msg, DCB_ATTR_IEEE);
	if (ops & 1)
		nla_put(msg, DCB_ATTR_IEEE_ETS, sizeof(ets), &ets);
	if (ops & 4)
		nla_put(msg, DCB_ATTR_IEEE_MAXRATE, sizeof(mr), &mr);
	if (ops & 2)
		nla_put(msg, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	if (ops & 8)
		nla_put(msg, DCB_ATTR_DCB_BUFFER, sizeof(buf), &buf);
	tab = nla_nest_start(msg, DCB_ATTR_IEEE_APP_TABLE);
	for (size_t i = 0; i < sizeof(apps) / sizeof(apps[0]); i++)
		nla_put(msg, DCB_ATTR_IEEE_APP, sizeof(apps[i]), &apps[i]);
	/* Something a newer kernel might add: skipped. */
	nla_put_u32(msg, 99, 7);
	nla_nest_end(msg, tab);
	nla_nest_end(msg, ie);
	if (ops & 16)
		nla_put_u8(msg, DCB_ATTR_DCBX, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
	return msg;
}

static void test_parse_full(void **state)
{
	struct nl_msg *msg = ieee_reply(31);
	struct rck_dcb *d = dcb_alloc("dcbtest0");
	uint8_t en, cap, tc, bw, tsa, sel, prio, mode, pb;
	uint64_t req, ind, bps;
	uint32_t bsz, total;
	uint16_t proto, delay;
	const char *from;
	bool mbc;

	(void)state;
	assert_int_equal(dcbnl_parse_ieee(nlmsg_hdr(msg), d), 0);
	dcb_derive_trust(d);
	assert_int_equal(rck_dcb_pfc(d, &en, &cap, &mbc, &delay), 0);
	assert_int_equal(en, 0x08);
	assert_int_equal(cap, 8);
	assert_false(mbc);
	assert_int_equal(delay, 32);
	assert_int_equal(rck_dcb_pfc_counters(d, 7, &req, &ind), 0);
	assert_true(req == UINT64_MAX);
	assert_int_equal(ind, 207);
	assert_int_equal(rck_dcb_pfc_counters(d, 8, &req, &ind), -EINVAL);
	assert_int_equal(rck_dcb_ets(d, 3, &tc, &bw, &tsa), 0);
	assert_int_equal(tc, 3);
	assert_int_equal(bw, 30);
	assert_int_equal(tsa, IEEE_8021QAZ_TSA_ETS);
	assert_int_equal(rck_dcb_app_count(d), 3);
	assert_int_equal(rck_dcb_app(d, 1, &sel, &proto, &prio), 0);
	assert_int_equal(sel, RCK_DCB_SEL_DSCP);
	assert_int_equal(proto, 48);
	assert_int_equal(prio, 6);
	assert_int_equal(rck_dcb_app(d, 3, &sel, &proto, &prio), -ERANGE);
	assert_int_equal(rck_dcb_dcbx(d, &mode), 0);
	assert_int_equal(mode, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
	assert_int_equal(rck_dcb_maxrate(d, 1, &bps), 0);
	assert_true(bps == 1000000000ULL);
	assert_int_equal(rck_dcb_buffer(d, 3, &pb, &bsz, &total), 0);
	assert_int_equal(pb, 1);
	assert_int_equal(total, 4096);
	assert_string_equal(rck_dcb_trust(d, &from), "dscp");
	assert_non_null(strstr(from, "2 DSCP APP entries"));
	rck_dcb_free(d);
	nlmsg_free(msg);
}

/* A driver with only the APP table (no get operations): every other
 * feature is "not supported", never zero. */
static void test_parse_app_only(void **state)
{
	struct nl_msg *msg = ieee_reply(0);
	struct rck_dcb *d = dcb_alloc("x");
	uint8_t en, mode;
	uint64_t bps;

	(void)state;
	assert_int_equal(dcbnl_parse_ieee(nlmsg_hdr(msg), d), 0);
	assert_int_equal(rck_dcb_pfc(d, &en, NULL, NULL, NULL), -EOPNOTSUPP);
	assert_int_equal(rck_dcb_ets(d, 0, NULL, NULL, NULL), -EOPNOTSUPP);
	assert_int_equal(rck_dcb_dcbx(d, &mode), -EOPNOTSUPP);
	assert_int_equal(rck_dcb_maxrate(d, 0, &bps), -EOPNOTSUPP);
	assert_int_equal(rck_dcb_buffer(d, 0, NULL, NULL, NULL), -EOPNOTSUPP);
	assert_int_equal(rck_dcb_supported(d, RCK_DCB_APP), 0);
	assert_int_equal(rck_dcb_supported(d, RCK_DCB_PFC), -EOPNOTSUPP);
	assert_int_equal(rck_dcb_supported(d, 42), -EINVAL);
	assert_int_equal(rck_dcb_app_count(d), 3);
	rck_dcb_free(d);
	nlmsg_free(msg);
}

static void test_parse_malformed(void **state)
{
	struct dcbmsg hdr = { .dcb_family = AF_UNSPEC, .cmd = DCB_CMD_IEEE_GET };
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_GETDCB, 0);
	struct rck_dcb *d = dcb_alloc("x");
	struct nlattr *ie;
	struct nlmsghdr *nlh;
	uint8_t en;

	(void)state;
	/* No dcbmsg at all. */
	assert_int_equal(dcbnl_parse_ieee(nlmsg_hdr(msg), d), -EBADMSG);
	nlmsg_append(msg, &hdr, sizeof(hdr), NLMSG_ALIGNTO);
	/* No IEEE nest. */
	assert_int_equal(dcbnl_parse_ieee(nlmsg_hdr(msg), d), -EBADMSG);
	/* A PFC member cut short (an older, smaller struct): the tail reads 0. */
	ie = nla_nest_start(msg, DCB_ATTR_IEEE);
	nla_put(msg, DCB_ATTR_IEEE_PFC, 2, "\x08\x18");
	nla_nest_end(msg, ie);
	assert_int_equal(dcbnl_parse_ieee(nlmsg_hdr(msg), d), 0);
	assert_int_equal(rck_dcb_pfc(d, &en, NULL, NULL, NULL), 0);
	assert_int_equal(en, 0x18);
	assert_int_equal(rck_dcb_supported(d, RCK_DCB_APP), -EOPNOTSUPP);
	/* A length field that runs past the buffer is refused. */
	nlh = nlmsg_hdr(msg);
	nlh->nlmsg_len = NLMSG_HDRLEN + 2;
	assert_int_equal(dcbnl_parse_ieee(nlh, d), -EBADMSG);
	rck_dcb_free(d);
	nlmsg_free(msg);
}

static void test_set_reply(void **state)
{
	struct dcbmsg hdr = { .dcb_family = AF_UNSPEC, .cmd = DCB_CMD_IEEE_SET };
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_SETDCB, 0);

	(void)state;
	nlmsg_append(msg, &hdr, sizeof(hdr), NLMSG_ALIGNTO);
	assert_int_equal(dcbnl_parse_set_reply(nlmsg_hdr(msg), DCB_ATTR_IEEE), -EBADMSG);
	/* The driver's -EIO in the u8 the kernel answers with. */
	nla_put_u8(msg, DCB_ATTR_IEEE, (uint8_t)-EIO);
	nla_put_u8(msg, DCB_ATTR_DCBX, 1);
	assert_int_equal(dcbnl_parse_set_reply(nlmsg_hdr(msg), DCB_ATTR_IEEE), -EIO);
	assert_int_equal(dcbnl_parse_set_reply(nlmsg_hdr(msg), DCB_ATTR_DCBX), -EINVAL);
	nlmsg_free(msg);
	msg = nlmsg_alloc_simple(RTM_SETDCB, 0);
	nlmsg_append(msg, &hdr, sizeof(hdr), NLMSG_ALIGNTO);
	nla_put_u8(msg, DCB_ATTR_IEEE, 0);
	assert_int_equal(dcbnl_parse_set_reply(nlmsg_hdr(msg), DCB_ATTR_IEEE), 0);
	nlmsg_free(msg);
}

static void test_profile_builtin(void **state)
{
	struct rck_dcb_profile *p;
	char err[256];

	(void)state;
	assert_int_equal(rck_dcb_profile_load("roce-lossless", err, sizeof(err), &p), 0);
	assert_string_equal(rck_dcb_profile_name(p), "roce-lossless");
	assert_int_equal(p->pfc, 0x08);
	assert_int_equal(p->n_dscp, 2);
	assert_int_equal(p->dscp[0].protocol, 26);
	assert_int_equal(p->dscp[0].priority, 3);
	assert_int_equal(p->dscp[1].protocol, 48);
	assert_int_equal(p->dscp[1].priority, 6);
	assert_int_equal(p->tos, 106);
	assert_string_equal(p->mode, "RoCE v2");
	assert_int_equal(p->tsa[6], IEEE_8021QAZ_TSA_STRICT);
	rck_dcb_profile_free(p);
	assert_int_equal(rck_dcb_profile_load("/nonexistent/profile", err, sizeof(err), &p), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/profile"));
}

static void test_profile_errors(void **state)
{
	static const struct {
		const char *text;
		const char *err;
	} cases[] = {
		{ "name = a\nroce_priority = 3\nfoo = 1\n", "t:3: unknown key 'foo'" },
		{ "# c\n\nname = a\npfc = 3, 9\n", "t:4: pfc: '9' is not a priority (0-7)" },
		{ "name = a\nname = b\n", "t:2: 'name' given twice" },
		{ "name = a\njust words\n", "t:2: expected KEY = VALUE" },
		{ "name = a\ndscp = 64:3\n", "t:2: dscp: '64' is not a value 0-63" },
		{ "name = a\ndscp = 26:3\ndscp = 26:4\n", "t:3: dscp: 26 mapped twice" },
		{ "name = a\ndscp = 26\n", "t:2: dscp: '26' is not VALUE:PRIORITY" },
		{ "name = a\nets_tc_bw = 1 2 3 4 5 6 7\n", "t:2: ets_tc_bw: 8 values needed, 7 given" },
		{ "name = a\nets_tsa = ets ets ets ets ets ets ets fast\n",
		  "t:2: ets_tsa: 'fast' is not strict, ets, cbs or vendor" },
		{ "name = a\nets_tc_bw = 10 10 10 10 10 10 10 10\nets_tsa = ets ets ets ets ets ets ets ets\n",
		  "t:0: ets_tc_bw: the ETS classes' shares add up to 80, not 100" },
		{ "pfc = 3\n", "t:0: no 'name'" },
		{ "name = a\nroce_tos = 256\n", "t:2: roce_tos: '256' is not a number 0-255" },
		{ "name = a\nroce_mode = 3\n", "t:2: roce_mode: '3' is not 1 or 2" },
		{ "name = a\ntrust =\n", "t:2: 'trust' has no value" },
		{ "name = a\npfc = -1\n", "t:2: pfc: '-1' is not a priority (0-7)" },
		{ "name = a\ncnp_priority = 0x6\n", "t:2: cnp_priority: '0x6' is not a priority (0-7)" },
		{ "name = a\ndcbx = host ieee fast\n",
		  "t:2: dcbx: 'fast' is not host, lld-managed, cee, ieee or static" },
		{ "name = a\ndcbx = ieee\n", "t:2: dcbx: one of host and lld-managed is needed" },
		{ "name = a\ndcbx = host lld-managed ieee\n",
		  "t:2: dcbx: one of host and lld-managed is needed" },
		{ "name = a\ndcbx = host\n", "t:2: dcbx: a version (cee, ieee or both) is needed" },
		{ "name = a\ndcbx = host ieee ieee\n", "t:2: dcbx: 'ieee' given twice" },
		{ "name = a\ndcbx = host ieee\ndcbx = host cee\n", "t:3: 'dcbx' given twice" },
	};
	struct rck_dcb_profile *p;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = rck_dcb_profile_parse(cases[i].text, strlen(cases[i].text), "t", err,
					       sizeof(err), &p);

		if (rc != -EINVAL || strcmp(err, cases[i].err))
			fail_msg("case %zu: rc %d, '%s', expected '%s'", i, rc, err, cases[i].err);
		assert_null(p);
	}
	/* Comments, blanks, no final newline, lists with commas and blanks. */
	const char *ok = "  name=x # c\n\tpfc = 3,4 5 \npcp = 1:1\ntrust = pcp";

	if (rck_dcb_profile_parse(ok, strlen(ok), "t", err, sizeof(err), &p))
		fail_msg("%s", err);
	assert_int_equal(p->pfc, 0x38);
	assert_int_equal(p->dscp[0].selector, RCK_DCB_SEL_PCP);
	assert_false(p->has_dcbx);
	rck_dcb_profile_free(p);
	ok = "name = x\ndcbx = lld-managed, cee ieee static\n";
	if (rck_dcb_profile_parse(ok, strlen(ok), "t", err, sizeof(err), &p))
		fail_msg("%s", err);
	assert_true(p->has_dcbx);
	assert_int_equal(p->dcbx, DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_CEE |
				  DCB_CAP_DCBX_VER_IEEE | DCB_CAP_DCBX_STATIC);
	rck_dcb_profile_free(p);
	assert_int_equal(rck_dcb_profile_parse("name = a\0pfc=3\n", 15, "t", err, sizeof(err), &p),
			 -EINVAL);
	assert_string_equal(err, "t:1: NUL byte");
}

static void test_check(void **state)
{
	struct nl_msg *msg = ieee_reply(31);
	struct rck_dcb *d = dcb_alloc("dcbtest0");
	struct rck_dcb_profile *p;
	struct rck_dcb_diff *diff;
	const char *field, *want, *have;
	size_t n, bad;
	bool match;

	(void)state;
	assert_int_equal(dcbnl_parse_ieee(nlmsg_hdr(msg), d), 0);
	dcb_derive_trust(d);
	assert_int_equal(rck_dcb_profile_load("roce-lossless", NULL, 0, &p), 0);
	assert_int_equal(rck_dcb_check(p, d, &diff), 0);
	n = rck_dcb_diff_count(diff, &bad);
	assert_int_equal(n, 11);
	/* ETS bandwidth and TSA differ; without an RDMA device the two rdma_cm
	 * fields do not apply: unknown, not drift. */
	assert_int_equal(bad, 2);
	assert_int_equal(rck_dcb_diff_unknowns(diff), 2);
	assert_int_equal(rck_dcb_diff_field(diff, 0, &field, &want, &have, &match), 0);
	assert_string_equal(field, "pfc.enabled");
	assert_true(match);
	assert_int_equal(rck_dcb_diff_field(diff, 8, &field, &want, &have, &match), 0);
	assert_string_equal(field, "ets.tc_tsa");
	assert_false(match);
	assert_string_equal(have, "ets ets ets ets ets ets ets ets");
	assert_int_equal(rck_dcb_diff_field(diff, 11, NULL, NULL, NULL, NULL), -ERANGE);
	rck_dcb_diff_free(diff);
	/* Without dcbnl every field is unknown, saying why; none is drift. */
	rck_dcb_free(d);
	d = dcb_alloc("lo");
	dcb_derive_trust(d);
	assert_int_equal(rck_dcb_check(p, d, &diff), 0);
	rck_dcb_diff_count(diff, &bad);
	assert_int_equal(bad, 0);
	assert_int_equal(rck_dcb_diff_unknowns(diff), 11);
	rck_dcb_diff_field(diff, 0, NULL, NULL, &have, &match);
	assert_string_equal(have, "not supported by this driver");
	assert_false(match);
	rck_dcb_diff_free(diff);
	rck_dcb_profile_free(p);
	rck_dcb_free(d);
	nlmsg_free(msg);
}

/* The dcbx key: the mode's words compared, "not supported" without getdcbx. */
static void test_check_dcbx(void **state)
{
	const char *text = "name = x\ndcbx = host ieee\n", *field, *want, *have;
	struct rck_dcb *d = dcb_alloc("x");
	struct rck_dcb_profile *p;
	struct rck_dcb_diff *diff;
	size_t bad;
	bool match;

	(void)state;
	assert_int_equal(rck_dcb_profile_parse(text, strlen(text), "t", NULL, 0, &p), 0);
	dcb_derive_trust(d);
	assert_int_equal(rck_dcb_check(p, d, &diff), 0);
	assert_int_equal(rck_dcb_diff_field(diff, 0, &field, &want, &have, &match), 0);
	assert_string_equal(field, "dcbx.mode");
	assert_string_equal(have, "not supported by this driver");
	rck_dcb_diff_free(diff);
	d->err[RCK_DCB_DCBX] = 0;
	d->dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_CEE;
	assert_int_equal(rck_dcb_check(p, d, &diff), 0);
	assert_int_equal(rck_dcb_diff_field(diff, 0, &field, &want, &have, &match), 0);
	assert_string_equal(want, "host ieee");
	assert_string_equal(have, "host cee");
	assert_false(match);
	rck_dcb_diff_free(diff);
	d->dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	assert_int_equal(rck_dcb_check(p, d, &diff), 0);
	assert_int_equal(rck_dcb_diff_count(diff, &bad), 1);
	assert_int_equal(bad, 0);
	rck_dcb_diff_free(diff);
	rck_dcb_profile_free(p);
	rck_dcb_free(d);
}

static void test_state_file(void **state)
{
	char path[512], out[] = "/tmp/rck-dcb-state-XXXXXX";
	struct rck_dcb *a, *b;
	uint8_t en, tc, sz8;
	uint32_t bsz;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/dcb/state-default.json", getenv("ROCECHECK_FIXTURES"));
	assert_int_equal(dcb_state_load(path, &a), 0);
	assert_string_equal(rck_dcb_ifname(a), "dcbtest0");
	assert_string_equal(rck_dcb_rdma_device(a, NULL), "rxe1");
	assert_int_equal(rck_dcb_pfc(a, &en, NULL, NULL, NULL), 0);
	assert_int_equal(en, 0);
	assert_int_equal(rck_dcb_ets(a, 0, &tc, &sz8, NULL), 0);
	assert_int_equal(sz8, 13);
	assert_int_equal(rck_dcb_buffer(a, 0, NULL, &bsz, NULL), 0);
	assert_int_equal(bsz, 131072);
	/* Save and load again: the same state. */
	fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(dcb_state_save(a, out), 0);
	assert_int_equal(dcb_state_load(out, &b), 0);
	assert_memory_equal(&a->ets, &b->ets, sizeof(a->ets));
	assert_int_equal(a->pfc.pfc_en, b->pfc.pfc_en);
	assert_memory_equal(&a->buffer, &b->buffer, sizeof(a->buffer));
	assert_int_equal(a->roce_tos, b->roce_tos);
	assert_int_equal(a->n_apps, b->n_apps);
	rck_dcb_free(b);
	/* Not a state file. */
	FILE *f = fopen(out, "w");

	fputs("{\"schema\": \"rocedcb.state/2\", \"interface\": \"x\"}", f);
	fclose(f);
	assert_int_equal(dcb_state_load(out, &b), -EINVAL);
	unlink(out);
	assert_int_equal(dcb_state_load(out, &b), -ENOENT);
	rck_dcb_free(a);
}

static void test_trust_vendor(void **state)
{
	struct rck_dcb *d = dcb_alloc("x");
	const char *from;

	(void)state;
	d->err[RCK_DCB_APP] = 0;
	dcb_app_push(d, RCK_DCB_SEL_PCP, 3, 3);
	dcb_derive_trust(d);
	assert_string_equal(rck_dcb_trust(d, &from), "pcp");
	dcb_vendor_push(d, "qos/trust", "Priority trust state: dscp");
	dcb_derive_trust(d);
	assert_string_equal(rck_dcb_trust(d, &from), "dscp");
	assert_string_equal(from, "the vendor driver's qos/trust file");
	rck_dcb_free(d);
}

static void test_configfs(void **state)
{
	char root[] = "/tmp/rck-cfs-XXXXXX", path[512], mode[32];
	unsigned int tos = 7, want = 106;
	struct stat st;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	/* No rdma_cm folder: rdma_cm not loaded. */
	assert_int_equal(dcb_cm_read(root, "rxe0", 1, &tos, mode, sizeof(mode)), -ENOENT);
	snprintf(path, sizeof(path), "%s/rdma_cm", root);
	assert_int_equal(mkdir(path, 0755), 0);
	/* The kernel would fill DEV/ports/; here the made folder stays empty
	 * and is removed again. */
	assert_int_equal(dcb_cm_read(root, "rxe0", 1, &tos, mode, sizeof(mode)), -ENOENT);
	snprintf(path, sizeof(path), "%s/rdma_cm/rxe0", root);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(dcb_cm_read(root, "../x", 1, &tos, mode, sizeof(mode)), -EINVAL);
	/* An existing DEV folder is left alone. */
	snprintf(path, sizeof(path), "mkdir -p %s/rdma_cm/rxe0/ports/1", root);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/rdma_cm/rxe0/ports/1/default_roce_tos", root);
	f = fopen(path, "w");
	fputs("0\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/rdma_cm/rxe0/ports/1/default_roce_mode", root);
	f = fopen(path, "w");
	fputs("RoCE v2\n", f);
	fclose(f);
	assert_int_equal(dcb_cm_read(root, "rxe0", 1, &tos, mode, sizeof(mode)), 0);
	assert_int_equal(tos, 0);
	assert_string_equal(mode, "RoCE v2");
	assert_int_equal(dcb_cm_write(root, "rxe0", 1, &want, NULL), 0);
	assert_int_equal(dcb_cm_read(root, "rxe0", 1, &tos, mode, sizeof(mode)), 0);
	assert_int_equal(tos, 106);
	snprintf(path, sizeof(path), "%s/rdma_cm/rxe0", root);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

/* The plan of apply --dry-run: every change from -> to; a part the port
 * cannot report is "unknown -> X (why)", never a reason to stop planning. */
static void expect_plan(const struct rck_dcb_change_log *log, const char *const *want,
			const enum rck_dcb_change_kind *kind, size_t n)
{
	assert_int_equal(rck_dcb_change_count(log), n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(rck_dcb_change(log, i, NULL), want[i]);
		assert_int_equal(rck_dcb_change_kind(log, i), kind[i]);
	}
}

/* Profile @text planned on @d: the lines @want of kinds @kind. */
static void check_plan(const char *text, const struct rck_dcb *d, const char *const *want,
		       const enum rck_dcb_change_kind *kind, size_t n)
{
	struct rck_dcb_change_log *log;
	struct rck_dcb_profile *p;

	assert_int_equal(rck_dcb_profile_parse(text, strlen(text), "t", NULL, 0, &p), 0);
	assert_int_equal(dcb_apply_plan(p, d, &log), 0);
	expect_plan(log, want, kind, n);
	rck_dcb_change_log_free(log);
	rck_dcb_profile_free(p);
}

static void test_apply_plan(void **state)
{
	static const char *const full[] = {
		"ets: tc_bw [10 10 10 30 10 10 10 10] -> [10 10 10 40 10 10 0 10] "
		"tc_tsa [ets ets ets ets ets ets ets ets] -> [ets ets ets ets ets ets strict ets]",
		"rdma_cm: default_roce_tos -> 106, default_roce_mode -> RoCE v2 left out: "
		"no RDMA device on this interface",
	};
	static const char *const app_only[] = {
		"ets: prio_tc unknown -> [0 1 2 3 4 5 6 7] tc_bw unknown -> [10 10 10 40 10 10 0 10] "
		"tc_tsa unknown -> [ets ets ets ets ets ets strict ets] (not supported by this driver)",
		"pfc: enabled unknown -> 3 (not supported by this driver)",
		"app: add dscp 26:5",
		"app: delete dscp 26:3",
		"rdma_cm: default_roce_tos -> 106, default_roce_mode -> RoCE v2 left out: "
		"no RDMA device on this interface",
	};
	static const char *const recorded[] = {
		"dcbx: mode unknown -> 0x9 (not in a recorded tree)",
		"pfc: priority 3 unknown -> on (not in a recorded tree)",
		"app: dscp 26 priority unknown -> 5 (not in a recorded tree)",
		"rdma_cm mlx5_0/1: default_roce_tos unknown -> 106 (not in a recorded tree)",
	};
	const enum rck_dcb_change_kind S = RCK_DCB_CHANGE_SET, U = RCK_DCB_CHANGE_UNKNOWN,
				       K = RCK_DCB_CHANGE_SKIPPED;
	const enum rck_dcb_change_kind k_full[] = { S, K }, k_app[] = { U, U, S, S, K },
				       k_rec[] = { U, U, U, U };
	struct nl_msg *msg = ieee_reply(31);
	struct rck_dcb *d = dcb_alloc("dcbtest0");
	struct rck_dcb_change_log *log;
	struct rck_dcb_profile *p;

	(void)state;
	/* Every part read: the changes only, from -> to. */
	assert_int_equal(dcbnl_parse_ieee(nlmsg_hdr(msg), d), 0);
	assert_int_equal(rck_dcb_profile_load("roce-lossless", NULL, 0, &p), 0);
	assert_int_equal(dcb_apply_plan(p, d, &log), 0);
	expect_plan(log, full, k_full, 2);
	assert_null(rck_dcb_change_failed_step(log));
	rck_dcb_change_log_free(log);
	rck_dcb_free(d);
	nlmsg_free(msg);
	rck_dcb_profile_free(p);

	/* Only the APP table (no ieee_getpfc, no ieee_getets): the rest of the
	 * plan is still there, with 26:5 replacing 26:3 (48:6 is in place). */
	msg = ieee_reply(0);
	d = dcb_alloc("dcbtest0");
	assert_int_equal(dcbnl_parse_ieee(nlmsg_hdr(msg), d), 0);
	check_plan("name = x\npfc = 3\ndscp = 26:5 48:6\nets_prio_tc = 0 1 2 3 4 5 6 7\n"
		   "ets_tc_bw = 10 10 10 40 10 10 0 10\nets_tsa = ets ets ets ets ets ets strict ets\n"
		   "roce_tos = 106\nroce_mode = 2\n", d, app_only, k_app, 5);
	rck_dcb_free(d);
	nlmsg_free(msg);

	/* A recorded tree (nothing from dcbnl or configfs) of an RDMA port. */
	d = dcb_alloc("ens1f0np0");
	for (size_t f = 0; f < RCK_ARRAY_SIZE(d->err); f++)
		d->err[f] = -ENODATA;
	d->rdma_dev = strdup("mlx5_0");
	d->rdma_port = 1;
	check_plan("name = x\ndcbx = host ieee\nroce_priority = 3\ndscp = 26:5\nroce_tos = 106\n", d, recorded,
		   k_rec, 4);
	rck_dcb_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_full),
		cmocka_unit_test(test_parse_app_only),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_set_reply),
		cmocka_unit_test(test_profile_builtin),
		cmocka_unit_test(test_profile_errors),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_check_dcbx),
		cmocka_unit_test(test_state_file),
		cmocka_unit_test(test_trust_vendor),
		cmocka_unit_test(test_configfs),
		cmocka_unit_test(test_apply_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
