/* Fuzz target of the sweep state loader (what `rocecheck sweep --state`
 * reads): any input loads or is refused cleanly; what loads saves to JSON
 * that loads back to the same bytes, and a run's hysteresis over it holds. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz-common.h"
#include "../../analysis/sweep_int.h"

static char *dump(const struct rck_sweep_state *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f || sw_state_write(st, f))
		abort();
	fclose(f);
	return buf;
}

/* An inventory without devices: a recorded tree holding only class/. */
static struct rck_inventory *empty_inventory(void)
{
	static struct rck_inventory *inv;
	char dir[] = "/tmp/rck-fuzz-sweep.XXXXXX", cls[64];

	if (inv)
		return inv;
	if (!mkdtemp(dir))
		abort();
	snprintf(cls, sizeof(cls), "%s/class", dir);
	if (mkdir(cls, 0700) || rck_ctx_set_sysfs_root(fuzz_ctx(), dir) ||
	    rck_inventory_new(fuzz_ctx(), &inv) || rck_ctx_set_sysfs_root(fuzz_ctx(), NULL))
		abort();
	rmdir(cls);
	rmdir(dir);
	return inv;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_sweep_state *st = NULL, *again = NULL;
	struct rck_sweep_input in = { .size = sizeof(in), .inv = empty_inventory(), .boot_id = "b" };
	struct rck_sweep *s = NULL;
	char *a, *b, line[RCK_SWEEP_NPD_MAX + 1];

	if (sw_state_parse(fuzz_ctx(), "fuzz", (const char *)data, size, &st))
		return 0;
	a = dump(st);
	if (sw_state_parse(fuzz_ctx(), "again", a, strlen(a), &again))
		abort();
	b = dump(again);
	if (strcmp(a, b))
		abort();
	/* One run on top of the loaded state: never fails but for memory, and
	 * its outputs keep their contracts. */
	if (rck_sweep_run(&in, st, &s))
		abort();
	if (rck_sweep_npd_line(s, line, sizeof(line)) || strlen(line) > RCK_SWEEP_NPD_MAX ||
	    rck_sweep_write(s, fuzz_sink(), RCK_FORMAT_JSON) || rck_sweep_write_prom(s, fuzz_sink()))
		abort();
	if (rck_sweep_state_runs(st) > RCK_SWEEP_HOLD_MAX)
		abort();
	rck_sweep_free(s);
	free(a);
	free(b);
	rck_sweep_state_free(st);
	rck_sweep_state_free(again);
	return 0;
}
