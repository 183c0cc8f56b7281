/* What rocecheck parses itself around the PCIe paths: the kernel command
 * line's IOMMU options, aer_dev_* files, kernel releases, IOMMU group types. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "../../lib/pcie.h"

static void cmdline(void **state)
{
	static const struct {
		const char *line;
		enum rck_iommu_mode mode;
	} cases[] = {
		{ "", RCK_IOMMU_UNKNOWN },
		{ "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet", RCK_IOMMU_UNKNOWN },
		{ "root=/dev/sda1 iommu=pt", RCK_IOMMU_PASSTHROUGH },
		{ "intel_iommu=on iommu=pt", RCK_IOMMU_PASSTHROUGH },
		{ "intel_iommu=on", RCK_IOMMU_TRANSLATED },
		{ "intel_iommu=on,sm_on", RCK_IOMMU_TRANSLATED },
		{ "amd_iommu=off", RCK_IOMMU_OFF },
		{ "iommu=off", RCK_IOMMU_OFF },
		{ "iommu=off iommu=pt", RCK_IOMMU_PASSTHROUGH },
		{ "iommu.passthrough=1", RCK_IOMMU_PASSTHROUGH },
		{ "iommu.passthrough=0", RCK_IOMMU_TRANSLATED },
		{ "iommu=pt iommu.passthrough=0", RCK_IOMMU_TRANSLATED },
		{ "quiet -- iommu=pt", RCK_IOMMU_UNKNOWN },          /* init's, not the kernel's */
		{ "\"iommu=pt\"", RCK_IOMMU_PASSTHROUGH },
		{ "iommu", RCK_IOMMU_UNKNOWN },
		{ "intel_iommu=off iommu=pt", RCK_IOMMU_OFF },
		/* The recorded H200 guest's line: nothing about the IOMMU. */
		{ "mitigations=auto,no_guest_host console=ttyS0 pci=realloc=off -- --firecracker-init",
		  RCK_IOMMU_UNKNOWN },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (pcie_parse_cmdline(cases[i].line) != cases[i].mode)
			fail_msg("'%s': %d, want %d", cases[i].line, pcie_parse_cmdline(cases[i].line),
				 cases[i].mode);
	}
}

static void aer(void **state)
{
	uint64_t v = 0;

	assert_int_equal(pcie_parse_aer("RxErr 3\nBadTLP 1\nTOTAL_ERR_COR 4\n", &v), 0);
	assert_int_equal(v, 4);
	/* Kernels before TOTAL_ lines: the sum. */
	assert_int_equal(pcie_parse_aer("RxErr 3\nBadTLP 1\n", &v), 0);
	assert_int_equal(v, 4);
	assert_int_equal(pcie_parse_aer("", &v), -EINVAL);
	assert_int_equal(pcie_parse_aer("RxErr x\n", &v), -EINVAL);
	assert_int_equal(pcie_parse_aer("RxErr 1 2\n", &v), -EINVAL);
	assert_int_equal(pcie_parse_aer("A 18446744073709551615\nB 5\n", &v), 0);
	assert_int_equal(v, UINT64_MAX);
}

static void release(void **state)
{
	unsigned int a, b;

	assert_int_equal(pcie_parse_release("6.1.0-18-amd64", &a, &b), 0);
	assert_int_equal(a * 1000 + b, 6001);
	assert_int_equal(pcie_parse_release("5.12", &a, &b), 0);
	assert_int_equal(pcie_parse_release("v5.12", &a, &b), -EINVAL);
	assert_int_equal(pcie_parse_release("5", &a, &b), -EINVAL);
	assert_int_equal(pcie_parse_release("99999.1", &a, &b), -EINVAL);
}

static void bdf(void **state)
{
	assert_true(pcie_is_bdf("0000:3b:00.1"));
	assert_true(pcie_is_bdf("10000:e1:00.0"));
	assert_false(pcie_is_bdf("0000:3b:00.8"));
	assert_false(pcie_is_bdf("0000:3B:00.0"));
	assert_false(pcie_is_bdf("pci0000:00"));
	assert_false(pcie_is_bdf("0000:3b:00.0x"));
	assert_false(pcie_is_bdf("mlx5_core.rdma.0"));
}

static void group_type(void **state)
{
	assert_int_equal(pcie_parse_group_type("identity"), RCK_IOMMU_PASSTHROUGH);
	assert_int_equal(pcie_parse_group_type("DMA"), RCK_IOMMU_TRANSLATED);
	assert_int_equal(pcie_parse_group_type("DMA-FQ"), RCK_IOMMU_TRANSLATED);
	assert_int_equal(pcie_parse_group_type("unmanaged"), RCK_IOMMU_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cmdline),
		cmocka_unit_test(aer),
		cmocka_unit_test(release),
		cmocka_unit_test(group_type),
		cmocka_unit_test(bdf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
