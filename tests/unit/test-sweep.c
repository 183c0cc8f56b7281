/* Host sweeps on recorded fixtures and hand-made counter snapshots:
 * hysteresis sequences, resets and reboots, hostile state files, NPD line. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "counters.h"
#include "fixture.h"
#include "../../analysis/sweep_int.h"

static struct rck_ctx *quiet_ctx(void)
{
	struct rck_ctx *ctx;

	assert_int_equal(rck_ctx_new(&ctx), 0);
	rck_ctx_set_log_priority(ctx, -1);
	return ctx;
}

/* The bnxt fixture's snapshot as JSON, to be changed and parsed back. */
static json_t *base_snapshot(void)
{
	const char *fix = getenv("ROCECHECK_FIXTURES");
	struct rck_inventory *inv = fixture_inventory("bnxt");
	struct rck_snapshot *s;
	struct rck_ctx *ctx = quiet_ctx();
	char root[4096], *buf = NULL;
	size_t len = 0;
	FILE *mem;
	json_t *j;

	snprintf(root, sizeof(root), "%s/sysfs/bnxt", fix);
	assert_int_equal(rck_ctx_set_sysfs_root(ctx, root), 0);
	assert_int_equal(rck_snapshot_new(ctx, inv, NULL, 0, &s), 0);
	assert_non_null(mem = open_memstream(&buf, &len));
	assert_int_equal(rck_snapshot_write_all(s, mem, RCK_FORMAT_JSON, true), 0);
	fclose(mem);
	assert_non_null(j = json_loadb(buf, len, 0, NULL));
	free(buf);
	rck_snapshot_free(s);
	rck_inventory_free(inv);
	rck_ctx_free(ctx);
	json_object_set_new(j, "time_ns", json_integer(1700000000000000000LL));
	return j;
}

static json_t *port_counters(json_t *snap)
{
	json_t *c = json_object_get(json_array_get(json_object_get(json_array_get(
		json_object_get(snap, "devices"), 0), "ports"), 0), "counters");

	assert_non_null(c);
	return c;
}

/* A snapshot @secs after the base, with neutral counter @name at @val. */
static struct rck_snapshot *snap_at(json_t *base, long secs, const char *name, long long val)
{
	json_t *j = json_deep_copy(base);
	struct rck_snapshot *s;
	char *text;

	json_object_set_new(j, "time_ns", json_integer(1700000000000000000LL + secs * 1000000000LL));
	if (name)
		json_object_set_new(port_counters(j), name, json_integer(val));
	assert_non_null(text = json_dumps(j, 0));
	assert_int_equal(ctr_snapshot_parse(NULL, "test", text, strlen(text), &s), 0);
	free(text);
	json_decref(j);
	return s;
}

struct run {
	const struct rck_inventory *inv;
	const struct rck_snapshot *snap;
	const char *boot_id;
	unsigned int k, n;
};

static struct rck_sweep *sweep(const struct run *r, struct rck_sweep_state *st)
{
	struct rck_sweep_input in = {
		.size = sizeof(in), .host = "h1", .inv = r->inv, .snap = r->snap, .boot_id = r->boot_id,
		.hold_k = r->k, .hold_n = r->n,
	};
	struct rck_sweep *s;

	assert_int_equal(rck_sweep_run(&in, st, &s), 0);
	return s;
}

static unsigned int count_code(const struct rck_sweep *s, enum rck_finding_code code,
			       enum rck_sweep_hold want)
{
	unsigned int n = 0;
	enum rck_sweep_hold h;

	for (unsigned int i = 0; i < rck_sweep_finding_count(s); i++)
		n += rck_finding_code(rck_sweep_finding(s, i, &h)) == code && h == want;
	return n;
}

static void npd(const struct rck_sweep *s, char *line)
{
	assert_int_equal(rck_sweep_npd_line(s, line, RCK_SWEEP_NPD_MAX + 1), 0);
	assert_true(strlen(line) <= RCK_SWEEP_NPD_MAX);
	assert_true(!strncmp(line, "rocecheck: ", 11));
	for (const char *p = line; *p; p++)
		assert_true(*p >= 0x20 && *p < 0x7f);
}

/* Without a state every run stands alone: the port DOWN tree is degraded at
 * once, the healthy tree healthy; the NPD line names the worst finding. */
static void test_alone(void **state)
{
	struct rck_inventory *ok = fixture_inventory("bnxt"), *down = fixture_inventory("down");
	struct rck_sweep *s;
	char line[RCK_SWEEP_NPD_MAX + 1];

	(void)state;
	s = sweep(&(struct run){ .inv = ok }, NULL);
	assert_int_equal(rck_sweep_verdict(s), RCK_VERDICT_HEALTHY);
	npd(s, line);
	assert_string_equal(line, "rocecheck: healthy");
	rck_sweep_free(s);
	s = sweep(&(struct run){ .inv = down }, NULL);
	assert_int_equal(rck_sweep_verdict(s), RCK_VERDICT_DEGRADED);
	npd(s, line);
	assert_string_equal(line, "rocecheck: port_down bnxt_re0/1 port state DOWN, physical state Disabled");
	rck_sweep_free(s);
	rck_inventory_free(ok);
	rck_inventory_free(down);
}

/* A port down: pending on its first run, counts on its second (2 of 3),
 * stays through one good run (clearing), clears once absent in 2 of 3. */
static void test_hold_port(void **state)
{
	struct rck_inventory *ok = fixture_inventory("bnxt"), *down = fixture_inventory("down");
	const struct rck_inventory *seq[] = {down, down, ok, down, down, ok, ok};
	static const enum rck_verdict want[] = {0, 1, 1, 1, 1, 1, 0};
	static const enum rck_sweep_hold hold[] = {RCK_SWEEP_PENDING, RCK_SWEEP_COUNTS,
						   RCK_SWEEP_CLEARING, RCK_SWEEP_COUNTS,
						   RCK_SWEEP_COUNTS, RCK_SWEEP_CLEARING,
						   RCK_SWEEP_HOLD_COUNT};
	struct rck_sweep_state *st;

	(void)state;
	assert_int_equal(rck_sweep_state_new(&st), 0);
	for (size_t i = 0; i < RCK_ARRAY_SIZE(seq); i++) {
		struct rck_sweep *s = sweep(&(struct run){ .inv = seq[i] }, st);

		assert_int_equal(rck_sweep_verdict(s), want[i]);
		if (hold[i] != RCK_SWEEP_HOLD_COUNT)
			assert_int_equal(count_code(s, RCK_FINDING_PORT_DOWN, hold[i]), 1);
		else
			assert_int_equal(rck_sweep_finding_count(s), 0);
		rck_sweep_free(s);
	}
	assert_int_equal(rck_sweep_state_runs(st), 3);
	rck_sweep_state_free(st);
	rck_inventory_free(ok);
	rck_inventory_free(down);
}

/* Isolated blips never flip the verdict; 1/1 turns the hysteresis off. */
static void test_hold_blips(void **state)
{
	struct rck_inventory *ok = fixture_inventory("bnxt"), *down = fixture_inventory("down");
	const struct rck_inventory *seq[] = {ok, down, ok, ok, down, ok, ok, down, ok};
	struct rck_sweep_state *st;

	(void)state;
	assert_int_equal(rck_sweep_state_new(&st), 0);
	for (size_t i = 0; i < RCK_ARRAY_SIZE(seq); i++) {
		struct rck_sweep *s = sweep(&(struct run){ .inv = seq[i] }, st);

		assert_int_equal(rck_sweep_verdict(s), RCK_VERDICT_HEALTHY);
		rck_sweep_free(s);
	}
	rck_sweep_state_free(st);
	assert_int_equal(rck_sweep_state_new(&st), 0);
	for (size_t i = 0; i < 3; i++) {
		struct rck_sweep *s = sweep(&(struct run){ .inv = seq[i], .k = 1, .n = 1 }, st);

		assert_int_equal(rck_sweep_verdict(s), seq[i] == down ? RCK_VERDICT_DEGRADED : RCK_VERDICT_HEALTHY);
		rck_sweep_free(s);
	}
	rck_sweep_state_free(st);
	/* 3/4 has a band between counting and clearing: a port down every other
	 * run never starts to count, and once counting never clears. */
	assert_int_equal(rck_sweep_state_new(&st), 0);
	for (size_t i = 0; i < 14; i++) {
		/* Every other run down, but runs 6 and 7 both: 3 of 4 at run 6. */
		const struct rck_inventory *inv = i == 6 || i % 2 ? down : ok;
		struct rck_sweep *s = sweep(&(struct run){ .inv = inv, .k = 3, .n = 4 }, st);

		assert_int_equal(rck_sweep_verdict(s), i < 6 ? RCK_VERDICT_HEALTHY : RCK_VERDICT_DEGRADED);
		rck_sweep_free(s);
	}
	rck_sweep_state_free(st);
	rck_inventory_free(ok);
	rck_inventory_free(down);
}

/* An error counter that rises now and then (link_downed +1 in one run of
 * three) does not flip the verdict; rising in two runs of three it counts. */
static void test_hold_counter(void **state)
{
	struct rck_inventory *inv = fixture_inventory("bnxt");
	json_t *base = base_snapshot();
	/* link_downed at each run: rises at runs 1, 4, 7 (blips), then
	 * 9 (with 7: two of the last three) and 10. */
	static const long long ld[] = {2, 3, 3, 3, 4, 4, 4, 5, 5, 6, 7};
	static const enum rck_verdict want[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
	struct rck_sweep_state *st;

	(void)state;
	assert_int_equal(rck_sweep_state_new(&st), 0);
	for (size_t i = 0; i < RCK_ARRAY_SIZE(ld); i++) {
		struct rck_snapshot *snap = snap_at(base, 300 * (long)i, "link_downed", ld[i]);
		struct rck_sweep *s = sweep(&(struct run){ .inv = inv, .snap = snap }, st);

		assert_int_equal(rck_sweep_verdict(s), want[i]);
		if (i)
			assert_true(rck_sweep_seconds(s) > 299 && rck_sweep_seconds(s) < 301);
		if (i == 4)
			assert_int_equal(count_code(s, RCK_FINDING_ERROR_COUNTER, RCK_SWEEP_PENDING), 1);
		rck_sweep_free(s);
		rck_snapshot_free(snap);
	}
	rck_sweep_state_free(st);
	json_decref(base);
	rck_inventory_free(inv);
}

/* One counter_reset (info) and nothing else: healthy. */
static void assert_reset_only(const struct rck_sweep *s)
{
	assert_int_equal(rck_report_finding_count(rck_sweep_report(s)), 1);
	assert_int_equal(rck_report_code_count(rck_sweep_report(s), RCK_FINDING_COUNTER_RESET), 1);
	assert_int_equal(rck_sweep_verdict(s), RCK_VERDICT_HEALTHY);
}

/* Counters that went backwards: one counter_reset for the port, and no
 * error finding although link_downed is now far above its old value. */
static void test_counter_reset(void **state)
{
	struct rck_inventory *inv = fixture_inventory("bnxt");
	json_t *base = base_snapshot(), *j;
	struct rck_snapshot *s0 = snap_at(base, 0, NULL, 0), *s1;
	struct rck_sweep_state *st;
	struct rck_sweep *s;
	char *text;

	(void)state;
	j = json_deep_copy(base);
	json_object_set_new(j, "time_ns", json_integer(1700000000000000000LL + 300000000000LL));
	json_object_set_new(port_counters(j), "rx_bytes", json_integer(1000));
	json_object_set_new(port_counters(j), "tx_packets", json_integer(10));
	json_object_set_new(port_counters(j), "link_downed", json_integer(200));
	assert_non_null(text = json_dumps(j, 0));
	assert_int_equal(ctr_snapshot_parse(NULL, "t", text, strlen(text), &s1), 0);
	free(text);
	json_decref(j);
	assert_int_equal(rck_sweep_state_new(&st), 0);
	rck_sweep_free(sweep(&(struct run){ .inv = inv, .snap = s0, .k = 1, .n = 1 }, st));
	s = sweep(&(struct run){ .inv = inv, .snap = s1, .k = 1, .n = 1 }, st);
	assert_reset_only(s);
	assert_non_null(strstr(rck_finding_reason(rck_report_finding(rck_sweep_report(s), 0)), "rx_bytes"));
	rck_sweep_free(s);
	rck_sweep_state_free(st);
	rck_snapshot_free(s0);
	rck_snapshot_free(s1);
	json_decref(base);
	rck_inventory_free(inv);
}

/* A changed boot id: counters not compared (link_downed +100 is no
 * finding), one host-level counter_reset, rebooted. */
static void test_reboot(void **state)
{
	struct rck_inventory *inv = fixture_inventory("bnxt");
	json_t *base = base_snapshot();
	struct rck_snapshot *s0 = snap_at(base, 0, NULL, 0), *s1 = snap_at(base, 60, "link_downed", 102);
	struct rck_sweep_state *st;
	struct rck_sweep *s;

	(void)state;
	assert_int_equal(rck_sweep_state_new(&st), 0);
	s = sweep(&(struct run){ .inv = inv, .snap = s0, .boot_id = "aaaa", .k = 1, .n = 1 }, st);
	assert_false(rck_sweep_rebooted(s));
	rck_sweep_free(s);
	assert_string_equal(rck_sweep_state_boot_id(st), "aaaa");
	s = sweep(&(struct run){ .inv = inv, .snap = s1, .boot_id = "bbbb", .k = 1, .n = 1 }, st);
	assert_true(rck_sweep_rebooted(s));
	assert_reset_only(s);
	assert_int_equal(rck_finding_entity(rck_report_finding(rck_sweep_report(s), 0)), RCK_ENTITY_HOST);
	assert_true(rck_sweep_seconds(s) == 0);
	rck_sweep_free(s);
	/* Same boot id again: compared, and the rise is found. */
	rck_snapshot_free(s0);
	s0 = snap_at(base, 120, "link_downed", 103);
	s = sweep(&(struct run){ .inv = inv, .snap = s0, .boot_id = "bbbb", .k = 1, .n = 1 }, st);
	assert_int_equal(rck_report_code_count(rck_sweep_report(s), RCK_FINDING_ERROR_COUNTER), 1);
	rck_sweep_free(s);
	rck_sweep_state_free(st);
	rck_snapshot_free(s0);
	rck_snapshot_free(s1);
	json_decref(base);
	rck_inventory_free(inv);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = malloc(1 << 20);

	assert_non_null(f);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static void spit(const char *path, const char *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* Saved and loaded back the same; hostile files refused with a clean error. */
static void test_state_files(void **state)
{
	struct rck_inventory *down = fixture_inventory("down");
	struct rck_ctx *ctx = quiet_ctx();
	json_t *base = base_snapshot();
	struct rck_snapshot *snap = snap_at(base, 0, NULL, 0);
	struct rck_sweep_state *st, *back = NULL;
	char dir[] = "/tmp/rck-sweep.XXXXXX", path[256], other[256], *buf, *again;
	size_t len, len2;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.json", dir);
	snprintf(other, sizeof(other), "%s/other.json", dir);
	assert_int_equal(rck_sweep_state_load(ctx, path, &back), -ENOENT);
	assert_int_equal(rck_sweep_state_new(&st), 0);
	for (int i = 0; i < 2; i++)
		rck_sweep_free(sweep(&(struct run){ .inv = down, .snap = snap, .boot_id = "b1" }, st));
	assert_int_equal(rck_sweep_state_save(st, path), 0);
	assert_int_equal(rck_sweep_state_load(ctx, path, &back), 0);
	assert_int_equal(rck_sweep_state_runs(back), 2);
	assert_string_equal(rck_sweep_state_boot_id(back), "b1");
	assert_int_equal(rck_sweep_state_time_ns(back), rck_snapshot_time_ns(snap));
	/* Round trip: the loaded state saves to the same bytes. */
	assert_int_equal(rck_sweep_state_save(back, other), 0);
	buf = slurp(path, &len);
	again = slurp(other, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(buf, again, len);
	free(again);
	rck_sweep_state_free(back);
	back = NULL;
	/* Truncated. */
	spit(other, buf, len / 2);
	assert_int_equal(rck_sweep_state_load(ctx, other, &back), -EINVAL);
	/* Another version. */
	{
		json_t *j = json_loadb(buf, len, 0, NULL);
		char *t;

		json_object_set_new(j, "version", json_integer(99));
		t = json_dumps(j, 0);
		spit(other, t, strlen(t));
		free(t);
		assert_int_equal(rck_sweep_state_load(ctx, other, &back), -EINVAL);
		json_object_set_new(j, "version", json_integer(1));
		json_object_set_new(j, "hold", json_pack("{s:i,s:i}", "k", 3, "n", 2));
		t = json_dumps(j, 0);
		spit(other, t, strlen(t));
		free(t);
		assert_int_equal(rck_sweep_state_load(ctx, other, &back), -EINVAL);
		json_decref(j);
	}
	/* A symbolic link: refused to load and to save over. */
	unlink(other);
	assert_int_equal(symlink(path, other), 0);
	assert_int_equal(rck_sweep_state_load(ctx, other, &back), -ELOOP);
	assert_int_equal(rck_sweep_state_save(st, other), -ELOOP);
	unlink(other);
	/* Huge: past 16 MiB, refused before parsing. */
	assert_true((fd = open(other, O_WRONLY | O_CREAT, 0600)) >= 0);
	assert_int_equal(ftruncate(fd, (17 << 20)), 0);
	close(fd);
	assert_int_equal(rck_sweep_state_load(ctx, other, &back), -EINVAL);
	unlink(other);
	/* A FIFO fails at once; a directory is not a state. */
	assert_int_equal(mkfifo(other, 0600), 0);
	assert_int_equal(rck_sweep_state_load(ctx, other, &back), -EINVAL);
	unlink(other);
	assert_int_equal(rck_sweep_state_save(st, dir), -EISDIR);
	assert_null(back);
	free(buf);
	unlink(path);
	rmdir(dir);
	rck_sweep_state_free(st);
	rck_snapshot_free(snap);
	json_decref(base);
	rck_ctx_free(ctx);
	rck_inventory_free(down);
}

/* Every fixture's NPD line fits; a long reason is cut at a word. */
static void test_npd_fixtures(void **state)
{
	static const char *const trees[] = {"mlx5", "bnxt", "irdma", "rxe", "broken", "empty", "down"};
	char line[RCK_SWEEP_NPD_MAX + 1];

	(void)state;
	for (size_t i = 0; i < RCK_ARRAY_SIZE(trees); i++) {
		struct rck_inventory *inv = fixture_inventory(trees[i]);
		struct rck_sweep *s = sweep(&(struct run){ .inv = inv }, NULL);

		npd(s, line);
		if (rck_sweep_verdict(s) == RCK_VERDICT_HEALTHY)
			assert_string_equal(line, "rocecheck: healthy");
		else
			assert_string_not_equal(line, "rocecheck: healthy");
		rck_sweep_free(s);
		rck_inventory_free(inv);
	}
	assert_int_equal(rck_sweep_npd_line(NULL, line, sizeof(line)), -EINVAL);
}

static void test_npd_cut(void **state)
{
	struct rck_sweep s = { 0 };
	char line[RCK_SWEEP_NPD_MAX + 1];

	(void)state;
	assert_non_null(s.counted = sw_report_new());
	an_add(s.counted, RCK_FINDING_PCIE_DEGRADED, RCK_SEVERITY_DEGRADED, RCK_ENTITY_NIC, "h",
	       "mlx5_10", NULL, NULL, "PCIe 0000:3b:00.0 at 16.0 GT/s x8, the NIC can do 16.0 GT/s x16: "
	       "bandwidth capped \x01 and more words");
	an_add(s.counted, RCK_FINDING_ERROR_COUNTER, RCK_SEVERITY_WARNING, RCK_ENTITY_NIC, "h",
	       "mlx5_10/1", NULL, NULL, "warning only");
	an_add(s.counted, RCK_FINDING_PORT_DOWN, RCK_SEVERITY_CRITICAL, RCK_ENTITY_NIC, "h",
	       "mlx5_10/1", NULL, NULL, "port state DOWN, physical state Polling (expected ACTIVE, LinkUp)");
	an_finish(s.counted);
	npd(&s, line);
	assert_string_equal(line, "rocecheck: port_down mlx5_10/1 port state DOWN, physical state Polling (+1)");
	rck_report_free(s.counted);
	assert_non_null(s.counted = sw_report_new());
	an_add(s.counted, RCK_FINDING_PCIE_DEGRADED, RCK_SEVERITY_DEGRADED, RCK_ENTITY_NIC, "h",
	       "mlx5_10", NULL, NULL, "PCIe 0000:3b:00.0 at 16.0 GT/s x8, the NIC can do 16.0 GT/s x16: "
	       "bandwidth capped");
	an_finish(s.counted);
	npd(&s, line);
	assert_string_equal(line, "rocecheck: pcie_degraded mlx5_10 PCIe 0000:3b:00.0 at 16.0 GT/s x8, the NIC can");
	rck_report_free(s.counted);
	/* No parenthesis left open at the cut. */
	assert_non_null(s.counted = sw_report_new());
	an_add(s.counted, RCK_FINDING_PORT_DOWN, RCK_SEVERITY_CRITICAL, RCK_ENTITY_NIC, "h", "rxe0/1",
	       NULL, NULL, "port state DOWN, physical state Disabled (expected ACTIVE, LinkUp)");
	an_finish(s.counted);
	npd(&s, line);
	assert_string_equal(line, "rocecheck: port_down rxe0/1 port state DOWN, physical state Disabled");
	rck_report_free(s.counted);
}

/* Prometheus: the families, and label values escaped. */
static void test_prom(void **state)
{
	struct rck_inventory *inv = fixture_inventory("down");
	json_t *base = base_snapshot();
	struct rck_snapshot *snap = snap_at(base, 0, NULL, 0);
	struct rck_sweep *s = sweep(&(struct run){ .inv = inv, .snap = snap }, NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	(void)state;
	assert_non_null(mem = open_memstream(&buf, &len));
	assert_int_equal(rck_sweep_write_prom(s, mem), 0);
	sw_prom_label(mem, "x", "a\"b\\c\nd\x01\xc3");
	fclose(mem);
	assert_non_null(strstr(buf, "rocecheck_health 0\n"));
	assert_non_null(strstr(buf, "rocecheck_port_up{device=\"bnxt_re0\",port=\"1\"} 0\n"));
	assert_non_null(strstr(buf, "rocecheck_findings{code=\"port_down\",severity=\"critical\"} 1\n"));
	assert_non_null(strstr(buf, "# TYPE rocecheck_port_link_downed_total counter\n"));
	assert_non_null(strstr(buf, "rocecheck_port_link_downed_total{device=\"bnxt_re0\",port=\"1\"} 2\n"));
	assert_non_null(strstr(buf, "x=\"a\\\"b\\\\c\\nd??\""));
	free(buf);
	rck_sweep_free(s);
	rck_snapshot_free(snap);
	json_decref(base);
	rck_inventory_free(inv);
}

/* Bad input is refused, and a failed run leaves the state unchanged. */
static void test_bad_input(void **state)
{
	struct rck_inventory *inv = fixture_inventory("bnxt");
	struct rck_sweep_input in = { .size = sizeof(in), .inv = inv, .hold_k = 3, .hold_n = 2 };
	struct rck_sweep_state *st;
	struct rck_sweep *s = NULL;

	(void)state;
	assert_int_equal(rck_sweep_state_new(&st), 0);
	assert_int_equal(rck_sweep_run(&in, st, &s), -EINVAL);
	in.hold_k = 1;
	in.hold_n = 33;
	assert_int_equal(rck_sweep_run(&in, st, &s), -EINVAL);
	in.hold_n = 0;
	assert_int_equal(rck_sweep_run(&in, st, &s), -EINVAL);
	in.hold_k = 0;
	in.inv = NULL;
	assert_int_equal(rck_sweep_run(&in, st, &s), -EINVAL);
	in.inv = inv;
	in.boot_id = "0123456789012345678901234567890123456789012345678901234567890123456789";
	assert_int_equal(rck_sweep_run(&in, st, &s), -EINVAL);
	assert_null(s);
	assert_int_equal(rck_sweep_state_runs(st), 0);
	rck_sweep_state_free(st);
	rck_inventory_free(inv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alone),
		cmocka_unit_test(test_hold_port),
		cmocka_unit_test(test_hold_blips),
		cmocka_unit_test(test_hold_counter),
		cmocka_unit_test(test_counter_reset),
		cmocka_unit_test(test_reboot),
		cmocka_unit_test(test_state_files),
		cmocka_unit_test(test_npd_fixtures),
		cmocka_unit_test(test_npd_cut),
		cmocka_unit_test(test_prom),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
