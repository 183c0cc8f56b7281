/* The agent's PCIe reply: recorded trees through AG_PCIE and back equal,
 * refusals, truncated and hostile payloads, and the sweep result's "pcie"
 * member through its JSON. `--seeds DIR` writes the fuzz seeds of
 * tests/fuzz/corpus/agent-pcie (run by hand). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rocecheck/rocecheck.h>

#include "../../mesh/agent_proto.h"
#include "pcie.h"
#include "wire.h"

static const char *const trees[] = { "gpu8", "acs-on", "wrong-socket", "vm", "h200-vm" };
#define N_TREES (sizeof(trees) / sizeof(trees[0]))

static uint8_t buf[AG_MAX_PAYLOAD];

static struct rck_pcie *read_tree(const char *name)
{
	const char *fx = getenv("ROCECHECK_FIXTURES");
	struct rck_pcie *p = NULL;
	struct rck_ctx *ctx;
	char root[4096];

	snprintf(root, sizeof(root), "%s/pci/%s", fx ? fx : "tests/fixtures", name);
	assert_int_equal(rck_ctx_new(&ctx), 0);
	rck_ctx_set_log_priority(ctx, 0);
	assert_int_equal(rck_ctx_set_sysfs_root(ctx, root), 0);
	assert_int_equal(rck_pcie_new(ctx, &p), 0);
	rck_ctx_free(ctx);
	return p;
}

static char *json_of(const struct rck_pcie *p)
{
	char *s;
	size_t len;

	assert_int_equal(pcie_json_text(p, &s, &len), 0);
	return s;
}

static void test_round_trip(void **state)
{
	(void)state;
	for (size_t t = 0; t < N_TREES; t++) {
		struct rck_pcie *p = read_tree(trees[t]);
		struct ag_pcie d;
		char *a, *b;
		size_t len;

		assert_int_equal(ag_pcie_encode(7, p, NULL, buf, sizeof(buf), &len), 0);
		assert_int_equal(ag_pcie_decode(buf, len, &d), 0);
		assert_int_equal(d.id, 7);
		assert_false(d.failed);
		assert_non_null(d.pcie);
		a = json_of(p);
		b = json_of(d.pcie);
		assert_string_equal(a, b);
		free(a);
		free(b);
		/* Too small a buffer is -ENOBUFS, never a partial reply. */
		assert_int_equal(ag_pcie_encode(7, p, NULL, buf, len - 1, &len), -ENOBUFS);
		rck_pcie_free(d.pcie);
		rck_pcie_free(p);
	}
}

static void test_refusal(void **state)
{
	struct rck_pcie *p = read_tree("vm");
	struct ag_pcie d;
	size_t len;

	(void)state;
	assert_int_equal(ag_pcie_encode(3, NULL, "cannot read the PCIe paths: No such file or directory", buf,
					 sizeof(buf), &len), 0);
	assert_int_equal(ag_pcie_decode(buf, len, &d), 0);
	assert_true(d.failed);
	assert_null(d.pcie);
	assert_string_equal(d.error, "cannot read the PCIe paths: No such file or directory");
	/* Exactly one of a snapshot and a reason. */
	assert_int_equal(ag_pcie_encode(3, NULL, NULL, buf, sizeof(buf), &len), -EINVAL);
	assert_int_equal(ag_pcie_encode(3, p, "both", buf, sizeof(buf), &len), -EINVAL);
	rck_pcie_free(p);
}

/* A payload of the plain attributes of @id and @status and then @extra. */
static size_t hostile(uint32_t status, const char *doc, int docs, uint8_t *out, size_t cap)
{
	struct wire_buf b = { .p = out, .cap = cap };
	struct ag_msg *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	m->type = AG_PCIE;
	m->status = status;
	assert_int_equal(ag_encode(m, out, cap, &b.len), 0);
	free(m);
	for (int i = 0; i < docs; i++)
		wire_attr_put(&b, AG_A_PCIE_TOPO, doc, strlen(doc));
	assert_false(b.bad);
	return b.len;
}

static void test_hostile(void **state)
{
	struct rck_pcie *p = read_tree("vm");
	char *doc = json_of(p);
	struct ag_pcie d;
	size_t len;

	(void)state;
	/* No snapshot and no refusal; a refusal with one; two; not a document. */
	len = hostile(0, doc, 0, buf, sizeof(buf));
	assert_int_equal(ag_pcie_decode(buf, len, &d), -EBADMSG);
	len = hostile(AG_ERR_BADREQ, doc, 1, buf, sizeof(buf));
	assert_int_equal(ag_pcie_decode(buf, len, &d), -EBADMSG);
	len = hostile(0, doc, 2, buf, sizeof(buf));
	assert_int_equal(ag_pcie_decode(buf, len, &d), -EBADMSG);
	len = hostile(0, "{\"schema\": \"rocecheck.topo/1\"}", 1, buf, sizeof(buf));
	assert_int_equal(ag_pcie_decode(buf, len, &d), -EBADMSG);
	assert_null(d.pcie);
	/* Every prefix of a good reply fails cleanly (but for the attribute's
	 * alignment padding, up to 3 bytes, which may go). */
	len = hostile(0, doc, 1, buf, sizeof(buf));
	for (size_t cut = 0; cut + 3 < len; cut++)
		assert_int_equal(ag_pcie_decode(buf, cut, &d), -EBADMSG);
	assert_int_equal(ag_pcie_decode(buf, len, &d), 0);
	rck_pcie_free(d.pcie);
	free(doc);
	rck_pcie_free(p);
}

/* A result with a snapshot, a refusal and a host not asked, through JSON. */
static void test_result(void **state)
{
	struct rck_pcie *p = read_tree("acs-on");
	const struct rck_pcie *got;
	struct rck_mesh *m, *back, *bad = NULL;
	struct rck_ctx *ctx;
	const char *err;
	unsigned int h;
	char *text, *a, *b;
	size_t len;
	FILE *f;

	(void)state;
	assert_int_equal(rck_ctx_new(&ctx), 0);
	rck_ctx_set_log_priority(ctx, 0);
	assert_int_equal(rck_mesh_new(&m), 0);
	assert_int_equal(rck_mesh_add_host(m, "h0", &h), 0);
	assert_int_equal(rck_mesh_add_host(m, "h1", &h), 0);
	assert_int_equal(rck_mesh_add_host(m, "h2", &h), 0);
	assert_int_equal(rck_mesh_host_set_pcie(m, 0, p, NULL), 0);
	assert_int_equal(rck_mesh_host_set_pcie(m, 1, NULL, "cannot read\nthe tree"), 0);
	assert_int_equal(rck_mesh_host_set_pcie(m, 2, p, "both"), -EINVAL);
	assert_int_equal(rck_mesh_host_pcie(m, 2, &got, &err), -ENOENT);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(rck_mesh_write(m, f, RCK_FORMAT_JSON), 0);
	fclose(f);
	assert_int_equal(rck_mesh_load_buf(ctx, text, len, "result", &back), 0);
	assert_int_equal(rck_mesh_host_pcie(back, 0, &got, &err), 0);
	assert_non_null(got);
	assert_null(err);
	a = json_of(p);
	b = json_of(got);
	assert_string_equal(a, b);
	assert_int_equal(rck_mesh_host_pcie(back, 1, &got, &err), 0);
	assert_null(got);
	assert_string_equal(err, "cannot read the tree");
	assert_int_equal(rck_mesh_host_pcie(back, 2, &got, &err), -ENOENT);
	/* A "pcie" member with neither, or a reason that is not a string, is a
	 * load error; the same document with the reason intact loads. */
	for (int k = 0; k < 2; k++) {
		char *at = strstr(text, k ? "\"error\":  5" : "\"error\":\"cannot read the tree\"");

		assert_non_null(at);
		memcpy(at, k ? "\"error\":  null                 " : "\"error\":  5                    ",
		       strlen("\"error\":\"cannot read the tree\""));
		assert_int_equal(rck_mesh_load_buf(ctx, text, len, "bad", &bad), -EINVAL);
		assert_null(bad);
	}
	free(text);
	free(a);
	free(b);
	rck_mesh_free(back);
	rck_mesh_free(m);
	rck_pcie_free(p);
	rck_ctx_free(ctx);
}

static int seeds(const char *dir)
{
	char path[4096];
	size_t len;
	FILE *f;

	for (size_t t = 0; t < N_TREES; t++) {
		struct rck_pcie *p = read_tree(trees[t]);

		if (ag_pcie_encode(1, p, NULL, buf, sizeof(buf), &len))
			return 1;
		snprintf(path, sizeof(path), "%s/%s", dir, trees[t]);
		f = fopen(path, "w");
		if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
			return 1;
		rck_pcie_free(p);
	}
	if (ag_pcie_encode(2, NULL, "cannot read the PCIe paths: No such device", buf, sizeof(buf), &len))
		return 1;
	snprintf(path, sizeof(path), "%s/refusal", dir);
	f = fopen(path, "w");
	return !f || fwrite(buf, 1, len, f) != len || fclose(f);
}

/* A result of three hosts: two snapshots and a refusal, as JSON on stdout. */
static int emit(void)
{
	struct rck_pcie *p = read_tree("gpu8"), *q = read_tree("wrong-socket");
	struct rck_mesh *m;
	unsigned int h;
	int rc = rck_mesh_new(&m) || rck_mesh_add_host(m, "h0", &h) || rck_mesh_add_host(m, "h1", &h) ||
		 rck_mesh_add_host(m, "h2", &h) || rck_mesh_host_set_pcie(m, 0, p, NULL) ||
		 rck_mesh_host_set_pcie(m, 1, q, NULL) || rck_mesh_host_set_pcie(m, 2, NULL, "cannot read") ||
		 rck_mesh_write(m, stdout, RCK_FORMAT_JSON);

	rck_mesh_free(m);
	rck_pcie_free(p);
	rck_pcie_free(q);
	return rc;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refusal),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_result),
	};

	if (argc == 3 && !strcmp(argv[1], "--seeds"))
		return seeds(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "--emit"))
		return emit();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
