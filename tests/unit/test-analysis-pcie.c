/* The PCIe findings on tests/fixtures/pci trees, each positive and negative:
 * ACS redirect, far NICs, relaxed ordering, MaxReadReq, links on the path,
 * AER rising, IOMMU on bare metal, peer memory, and the odd host out. */
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

#include "../../analysis/sweep_int.h"
#include "../../lib/pcie.h"
#include "fixture.h"

#define MAX_HOSTS 8

static struct rck_pcie *tree(const char *name)
{
	return fixture_pcie(name);
}

static struct rck_pcie_fn *fn(struct rck_pcie *p, const char *addr)
{
	for (unsigned int i = 0; i < p->n_fns; i++)
		if (!strcmp(p->fns[i].address, addr))
			return &p->fns[i];
	fail_msg("%s not in the tree", addr);
	abort(); /* fail_msg() does not return */
}

/* Analyse hosts h0..h(n-1) with @now[h] (and @before[h], may be NULL); @key=@val set first when given. */
static struct rck_report *run(struct rck_pcie **now, struct rck_pcie **before, unsigned int n, const char *key,
			      double val)
{
	struct rck_thresholds *th;
	struct rck_analysis *a;
	struct rck_report *r;
	char name[16];

	assert_int_equal(rck_thresholds_new(&th), 0);
	if (key)
		assert_int_equal(rck_thresholds_set(th, key, val), 0);
	assert_int_equal(rck_analysis_new(th, &a), 0);
	rck_thresholds_free(th);
	for (unsigned int h = 0; h < n; h++) {
		snprintf(name, sizeof(name), "h%u", h);
		assert_int_equal(rck_analysis_add_host(a, name, NULL, NULL, NULL), 0);
		assert_int_equal(rck_analysis_set_host_pcie(a, h, now[h], before ? before[h] : NULL), 0);
	}
	assert_int_equal(rck_analysis_run(a, &r), 0);
	rck_analysis_free(a);
	if (getenv("RCK_TEST_SHOW"))
		for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
			const struct rck_finding *f = rck_report_finding(r, i);

			printf("%s %s %s %s: %s\n", rck_finding_code_name(rck_finding_code(f)),
			       rck_severity_name(rck_finding_severity(f)), rck_finding_host(f),
			       rck_finding_nic(f) ? rck_finding_nic(f) : "-", rck_finding_reason(f));
		}
	return r;
}

/* Findings of @code; the first one's subject and severity in *nic / *sev. */
static unsigned int count(const struct rck_report *r, enum rck_finding_code code, const char **nic,
			  enum rck_severity *sev)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		if (rck_finding_code(f) != code)
			continue;
		if (!n++) {
			if (nic)
				*nic = rck_finding_nic(f);
			if (sev)
				*sev = rck_finding_severity(f);
		}
	}
	return n;
}

static struct rck_report *one(struct rck_pcie *p, const char *key, double val)
{
	return run(&p, NULL, 1, key, val);
}

static void healthy_server(void **state)
{
	struct rck_pcie *p = tree("gpu8");
	struct rck_report *r = one(p, NULL, 0);

	assert_int_equal(rck_report_finding_count(r), 0);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_HEALTHY);
	rck_report_free(r);
	rck_pcie_free(p);
}

static void acs_redirect(void **state)
{
	struct rck_pcie *p = tree("acs-on");
	struct rck_report *r = one(p, NULL, 0);
	enum rck_severity sev;
	const char *nic;

	/* Switch 1's three downstream ports: above GPU2, GPU3 and the NIC. */
	assert_int_equal(count(r, RCK_FINDING_PCIE_ACS_REDIRECT, &nic, &sev), 3);
	assert_string_equal(nic, "0000:62:00.0");
	assert_int_equal(sev, RCK_SEVERITY_DEGRADED);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_DEGRADED);
	rck_report_free(r);
	/* Source validation alone (no redirect) is harmless. */
	for (unsigned int i = 0; i < p->n_fns; i++)
		if (p->fns[i].port_type == 6)
			p->fns[i].acs_ctl = RCK_ACS_SV;
	r = one(p, NULL, 0);
	assert_int_equal(count(r, RCK_FINDING_PCIE_ACS_REDIRECT, NULL, NULL), 0);
	rck_report_free(r);
	/* Root ports redirect in every fixture: never a finding (PHB traffic turns there anyway). */
	assert_true(fn(p, "0000:20:01.0")->acs_ctl & RCK_ACS_RR);
	rck_pcie_free(p);
}

static void nic_far(void **state)
{
	struct rck_pcie *p = tree("wrong-socket");
	struct rck_report *r = one(p, NULL, 0);
	enum rck_severity sev;
	const char *nic;

	assert_int_equal(count(r, RCK_FINDING_GPU_NIC_FAR, &nic, &sev), 2);
	assert_string_equal(nic, "0000:23:00.0");
	assert_int_equal(sev, RCK_SEVERITY_WARNING); /* NODE: same socket */
	rck_report_free(r);
	r = one(p, "pcie_gpu_nic_max", 3);
	assert_int_equal(count(r, RCK_FINDING_GPU_NIC_FAR, NULL, NULL), 0);
	rck_report_free(r);
	/* Every NIC of socket 0 gone: SYS, degraded. */
	for (unsigned int i = 0; i < p->n_fns; i++)
		if (p->fns[i].kind == RCK_PCIE_NIC && p->fns[i].numa == 0)
			p->fns[i].kind = RCK_PCIE_BRIDGE;
	r = one(p, NULL, 0);
	assert_int_equal(count(r, RCK_FINDING_GPU_NIC_FAR, NULL, &sev), 4);
	assert_int_equal(sev, RCK_SEVERITY_DEGRADED);
	rck_report_free(r);
	rck_pcie_free(p);
}

static void relaxed_ordering_and_mrrs(void **state)
{
	struct rck_pcie *p = tree("gpu8");
	struct rck_report *r;
	const char *nic;

	fn(p, "0000:25:00.0")->ro = false;
	fn(p, "0000:65:00.1")->mrrs = 256;
	r = one(p, NULL, 0);
	assert_int_equal(count(r, RCK_FINDING_PCIE_RELAXED_ORDERING, &nic, NULL), 1);
	assert_string_equal(nic, "mlx5_0");
	assert_int_equal(count(r, RCK_FINDING_PCIE_MAX_READ_REQ, &nic, NULL), 1);
	assert_string_equal(nic, "mlx5_3");
	rck_report_free(r);
	r = one(p, "pcie_min_read_req", 256);
	assert_int_equal(count(r, RCK_FINDING_PCIE_MAX_READ_REQ, NULL, NULL), 0);
	rck_report_free(r);
	/* A NIC no GPU uses may keep relaxed ordering off. */
	for (unsigned int i = 0; i < p->n_fns; i++)
		if (p->fns[i].kind == RCK_PCIE_GPU && p->fns[i].numa == 0)
			p->fns[i].kind = RCK_PCIE_BRIDGE;
	r = one(p, NULL, 0);
	assert_int_equal(count(r, RCK_FINDING_PCIE_RELAXED_ORDERING, NULL, NULL), 0);
	rck_report_free(r);
	rck_pcie_free(p);
}

static void link_on_path(void **state)
{
	struct rck_pcie *p = tree("gpu8");
	struct rck_report *r;
	const char *nic;

	/* A Gen5 root port above a Gen4 switch trains at Gen4: not degraded. */
	fn(p, "0000:20:01.0")->max_speed = 32;
	r = one(p, NULL, 0);
	assert_int_equal(count(r, RCK_FINDING_PCIE_DEGRADED, NULL, NULL), 0);
	rck_report_free(r);
	fn(p, "0000:21:00.0")->speed = 8;
	fn(p, "0000:a4:00.0")->width = 8;
	r = one(p, NULL, 0);
	assert_int_equal(count(r, RCK_FINDING_PCIE_DEGRADED, &nic, NULL), 2);
	assert_string_equal(nic, "0000:21:00.0");
	rck_report_free(r);
	rck_pcie_free(p);
}

static void aer_rising(void **state)
{
	struct rck_pcie *before = tree("gpu8"), *now = tree("gpu8");
	struct rck_report *r;
	enum rck_severity sev;
	const char *nic;

	r = run(&now, &before, 1, NULL, 0);
	assert_int_equal(count(r, RCK_FINDING_PCIE_AER, NULL, NULL), 0);
	rck_report_free(r);
	fn(now, "0000:25:00.0")->aer[0] += 5;
	r = run(&now, &before, 1, NULL, 0);
	assert_int_equal(count(r, RCK_FINDING_PCIE_AER, &nic, &sev), 1);
	assert_string_equal(nic, "mlx5_0");
	assert_int_equal(sev, RCK_SEVERITY_WARNING);
	rck_report_free(r);
	r = run(&now, &before, 1, "pcie_aer_min", 6);
	assert_int_equal(count(r, RCK_FINDING_PCIE_AER, NULL, NULL), 0);
	rck_report_free(r);
	fn(now, "0000:22:00.0")->aer[2] += 1;
	r = run(&now, &before, 1, NULL, 0);
	assert_int_equal(count(r, RCK_FINDING_PCIE_AER, NULL, &sev), 2);
	assert_int_equal(sev, RCK_SEVERITY_DEGRADED); /* sorted: the fatal one first */
	rck_report_free(r);
	/* Counts lower than before: reset by a reboot, nothing to judge. */
	r = run(&before, &now, 1, NULL, 0);
	assert_int_equal(count(r, RCK_FINDING_PCIE_AER, NULL, NULL), 0);
	rck_report_free(r);
	rck_pcie_free(before);
	rck_pcie_free(now);
}

static void iommu_and_peermem(void **state)
{
	struct rck_pcie *p = tree("vm");
	struct rck_report *r = one(p, NULL, 0);

	/* Translating in a guest is how passthrough works: no finding. */
	assert_int_equal(p->iommu, RCK_IOMMU_TRANSLATED);
	assert_int_equal(count(r, RCK_FINDING_IOMMU_TRANSLATED, NULL, NULL), 0);
	assert_int_equal(count(r, RCK_FINDING_GPU_PEERMEM, NULL, NULL), 0); /* dma-buf: 5.15 */
	rck_report_free(r);
	p->virt = RCK_NO;
	p->dmabuf = RCK_NO;
	r = one(p, NULL, 0);
	assert_int_equal(count(r, RCK_FINDING_IOMMU_TRANSLATED, NULL, NULL), 1);
	assert_int_equal(count(r, RCK_FINDING_GPU_PEERMEM, NULL, NULL), 1);
	rck_report_free(r);
	rck_pcie_free(p);
}

static void h200_guest(void **state)
{
	struct rck_pcie *p = tree("h200-vm");
	struct rck_report *r = one(p, NULL, 0);

	/* One GPU, no NIC, no IOMMU: nothing to pair, nothing wrong. */
	assert_int_equal(rck_report_finding_count(r), 0);
	rck_report_free(r);
	rck_pcie_free(p);
}

static void odd_host_out(void **state)
{
	struct rck_pcie *hosts[MAX_HOSTS];
	struct rck_report *r;
	const struct rck_finding *f = NULL;
	unsigned int n = 0;

	for (unsigned int h = 0; h < 5; h++)
		hosts[h] = tree(h == 3 ? "wrong-socket" : "gpu8");
	fn(hosts[1], "0000:e5:00.0")->mrrs = 1024;
	r = run(hosts, NULL, 5, NULL, 0);
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++)
		if (rck_finding_code(rck_report_finding(r, i)) == RCK_FINDING_CONFIG_MISMATCH) {
			const struct rck_finding *g = rck_report_finding(r, i);

			if (strstr(rck_finding_reason(g), "pairing")) {
				f = g;
				n++;
			}
			if (strstr(rck_finding_reason(g), "MaxReadReq")) {
				assert_string_equal(rck_finding_host(g), "h1");
				assert_string_equal(rck_finding_nic(g), "mlx5_6");
			}
		}
	assert_int_equal(n, 1);
	assert_string_equal(rck_finding_host(f), "h3");
	rck_report_free(r);
	for (unsigned int h = 0; h < 5; h++)
		rck_pcie_free(hosts[h]);
	/* Alike hosts: no mismatch. */
	for (unsigned int h = 0; h < 4; h++)
		hosts[h] = tree("gpu8");
	r = run(hosts, NULL, 4, NULL, 0);
	assert_int_equal(count(r, RCK_FINDING_CONFIG_MISMATCH, NULL, NULL), 0);
	rck_report_free(r);
	for (unsigned int h = 0; h < 4; h++)
		rck_pcie_free(hosts[h]);
}

static char *json_of(const struct rck_pcie *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(rck_pcie_write(p, f, RCK_FORMAT_JSON), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Saved as JSON and loaded back, a snapshot writes the same document, and
 * the lint of loaded hosts finds what it finds on the trees. */
static void load_round_trip(void **state)
{
	static const char *const trees[] = { "gpu8", "acs-on", "wrong-socket", "vm", "h200-vm" };
	struct rck_pcie *hosts[5], *loaded[5];
	struct rck_report *r1, *r2;

	for (unsigned int t = 0; t < 5; t++) {
		char *a, *b;

		hosts[t] = tree(trees[t]);
		a = json_of(hosts[t]);
		assert_int_equal(pcie_parse(a, strlen(a), &loaded[t]), 0);
		b = json_of(loaded[t]);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	r1 = run(hosts, NULL, 5, NULL, 0);
	r2 = run(loaded, NULL, 5, NULL, 0);
	assert_int_equal(rck_report_finding_count(r1), rck_report_finding_count(r2));
	assert_true(rck_report_finding_count(r1) > 5);
	for (unsigned int i = 0; i < rck_report_finding_count(r1); i++)
		assert_string_equal(rck_finding_reason(rck_report_finding(r1, i)),
				    rck_finding_reason(rck_report_finding(r2, i)));
	rck_report_free(r1);
	rck_report_free(r2);
	for (unsigned int t = 0; t < 5; t++) {
		rck_pcie_free(hosts[t]);
		rck_pcie_free(loaded[t]);
	}
	assert_int_equal(pcie_parse("{}", 2, &loaded[0]), -EINVAL);
	{
		const char *bad = "{\"schema\":\"rocecheck.topo/1\",\"functions\":[{\"address\":\"x\"}]}";

		assert_int_equal(pcie_parse(bad, strlen(bad), &loaded[0]), -EINVAL);
	}
}

/* A NIC linked at what its slot allows, below its own capability, is
 * pcie_slot_limited (a warning, never drained), not pcie_degraded; below
 * what both allow it is pcie_degraded, and the inventory's check gives way
 * to the slot's. */
static void slot_limited(void **state)
{
	struct rck_inventory *inv = fixture_inventory("mlx5");
	struct rck_pcie *p = tree("slot-x8");
	struct rck_sweep_input in = { .size = sizeof(in), .inv = inv };
	struct rck_report *r = one(p, NULL, 0);
	struct rck_sweep *s;
	enum rck_severity sev;
	unsigned int slot = 0, degraded = 0;
	const char *nic;

	(void)state;
	assert_int_equal(count(r, RCK_FINDING_PCIE_SLOT_LIMITED, &nic, &sev), 2);
	assert_string_equal(nic, "mlx5_6");
	assert_int_equal(sev, RCK_SEVERITY_WARNING);
	assert_int_equal(count(r, RCK_FINDING_PCIE_DEGRADED, NULL, NULL), 0);
	assert_int_equal(rck_report_drain_count(r), 0);
	rck_report_free(r);
	/* Trained down under a x16 slot: degraded (the path lint's: not drained). */
	fn(p, "0000:e2:02.0")->max_width = 16;
	r = one(p, NULL, 0);
	assert_int_equal(count(r, RCK_FINDING_PCIE_SLOT_LIMITED, NULL, NULL), 0);
	assert_int_equal(count(r, RCK_FINDING_PCIE_DEGRADED, &nic, &sev), 2);
	assert_string_equal(nic, "mlx5_6");
	assert_int_equal(sev, RCK_SEVERITY_DEGRADED);
	assert_int_equal(rck_report_drain_count(r), 0);
	rck_report_free(r);
	/* The inventory's NIC mlx5_10 (0000:3b:00.0, x8 of x16): pcie_degraded
	 * from its own registers, unless its slot is a x8 one. */
	fn(p, "0000:e2:02.0")->max_width = 8;
	snprintf(fn(p, "0000:e5:00.0")->address, sizeof(p->fns[0].address), "0000:3b:00.0");
	in.pcie = p;
	assert_int_equal(rck_sweep_run(&in, NULL, &s), 0);
	for (unsigned int i = 0; i < rck_sweep_finding_count(s); i++) {
		const struct rck_finding *f = rck_sweep_finding(s, i, NULL);

		slot += rck_finding_code(f) == RCK_FINDING_PCIE_SLOT_LIMITED;
		degraded += rck_finding_code(f) == RCK_FINDING_PCIE_DEGRADED;
	}
	assert_int_equal(slot, 2);
	assert_int_equal(degraded, 0);
	rck_sweep_free(s);
	in.pcie = NULL;
	degraded = 0;
	assert_int_equal(rck_sweep_run(&in, NULL, &s), 0);
	for (unsigned int i = 0; i < rck_sweep_finding_count(s); i++)
		degraded += rck_finding_code(rck_sweep_finding(s, i, NULL)) == RCK_FINDING_PCIE_DEGRADED;
	assert_int_equal(degraded, 1);
	rck_sweep_free(s);
	rck_pcie_free(p);
	rck_inventory_free(inv);
}

/* The sweep judges the paths it is given, keeps AER counts in its state,
 * and still takes an input sized before the pcie member existed. */
static void sweep_input(void **state)
{
	struct rck_inventory *inv = fixture_inventory("mlx5");
	struct rck_pcie *p = tree("acs-on");
	struct rck_sweep_input in = { .size = offsetof(struct rck_sweep_input, pcie), .inv = inv };
	struct rck_sweep_state *st;
	struct rck_sweep *s;
	unsigned int n = 0;

	assert_int_equal(rck_sweep_run(&in, NULL, &s), 0);
	rck_sweep_free(s);
	in.size = sizeof(in);
	in.pcie = p;
	in.hold_k = in.hold_n = 1;
	assert_int_equal(rck_sweep_state_new(&st), 0);
	assert_int_equal(rck_sweep_run(&in, st, &s), 0);
	for (unsigned int i = 0; i < rck_sweep_finding_count(s); i++)
		n += rck_finding_code(rck_sweep_finding(s, i, NULL)) == RCK_FINDING_PCIE_ACS_REDIRECT;
	assert_int_equal(n, 3);
	assert_non_null(st->pcie_aer);
	assert_int_equal(st->pcie_aer->n_fns, p->n_fns); /* every function of the paths has AER files */
	rck_sweep_free(s);
	rck_sweep_state_free(st);
	rck_pcie_free(p);
	rck_inventory_free(inv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy_server),
		cmocka_unit_test(acs_redirect),
		cmocka_unit_test(nic_far),
		cmocka_unit_test(relaxed_ordering_and_mrrs),
		cmocka_unit_test(link_on_path),
		cmocka_unit_test(aer_rising),
		cmocka_unit_test(iommu_and_peermem),
		cmocka_unit_test(h200_guest),
		cmocka_unit_test(odd_host_out),
		cmocka_unit_test(sweep_input),
		cmocka_unit_test(slot_limited),
		cmocka_unit_test(load_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
