/* Prometheus families of the PCIe paths in a sweep's textfile: link speed
 * and width now and capable, and AER error totals, per GPU, NIC and bridge. */
#include <stdio.h>

#include "../lib/pcie.h"
#include "sweep_int.h"

static const char *kind(const struct rck_pcie_fn *f)
{
	return f->kind == RCK_PCIE_NIC ? "nic" : f->kind == RCK_PCIE_GPU ? "gpu" : "bridge";
}

static void labels(FILE *f, const struct rck_pcie_fn *fn)
{
	sw_prom_label(f, "function", fn->address);
	fputc(',', f);
	sw_prom_label(f, "kind", kind(fn));
}

void sw_prom_pcie(FILE *f, const struct rck_pcie *p)
{
	static const char *const link[4][2] = {
		{ "rocecheck_pcie_link_speed_gts", "PCIe link speed now, GT/s." },
		{ "rocecheck_pcie_link_width", "PCIe link width now, lanes." },
		{ "rocecheck_pcie_link_max_speed_gts", "PCIe link speed the function is capable of, GT/s." },
		{ "rocecheck_pcie_link_max_width", "PCIe link width the function is capable of, lanes." },
	};
	static const char *const aer[3] = { "correctable", "nonfatal", "fatal" };

	for (int m = 0; m < 4; m++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", link[m][0], link[m][1], link[m][0]);
		for (unsigned int i = 0; i < p->n_fns; i++) {
			const struct rck_pcie_fn *fn = &p->fns[i];
			double v[4] = { fn->speed, fn->width, fn->max_speed, fn->max_width };

			if (!fn->has_link)
				continue;
			fprintf(f, "%s{", link[m][0]);
			labels(f, fn);
			fprintf(f, "} %g\n", v[m]);
		}
	}
	fputs("# HELP rocecheck_pcie_aer_errors_total AER errors the kernel counted on the function since boot.\n"
	      "# TYPE rocecheck_pcie_aer_errors_total counter\n", f);
	for (unsigned int i = 0; i < p->n_fns; i++) {
		const struct rck_pcie_fn *fn = &p->fns[i];

		for (int k = 0; fn->has_aer && k < 3; k++) {
			fputs("rocecheck_pcie_aer_errors_total{", f);
			labels(f, fn);
			fputc(',', f);
			sw_prom_label(f, "severity", aer[k]);
			fprintf(f, "} %llu\n", (unsigned long long)fn->aer[k]);
		}
	}
}
