/* Analysis thresholds: built-in defaults and the `key = value` file that
 * overrides them; rocecheck-thresholds(5) documents every key. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis_int.h"

#define TH_FILE_MAX (1u << 20)

struct th_def {
	const char *name;
	double def, min, max;
	bool whole;
};

/* Order matches enum th_key. */
static const struct th_def defs[TH_COUNT] = {
	[TH_LINK_ABS_FLOOR] = {"link_abs_floor", 0.90, 0, 1, false},
	[TH_LINK_REL_FLOOR] = {"link_rel_floor", 0.93, 0, 1, false},
	[TH_LINK_LATENCY_FACTOR] = {"link_latency_factor", 2.0, 1, 1000, false},
	[TH_LINK_SCREEN_Z] = {"link_screen_z", 1.0, 0, 10, false},
	[TH_LINK_FALSE_ALARM] = {"link_false_alarm", 1e-9, 1e-300, 0.5, false},
	[TH_LINK_MISS] = {"link_miss", 0.01, 1e-300, 0.5, false},
	[TH_LINK_RETESTS_MAX] = {"link_retests_max", 4, 0, RCK_LINK_RETEST_MAX, true},
	[TH_LINK_NOISE_MIN] = {"link_noise_min", 0.005, 1e-6, 1, false},
	[TH_LINK_MIN_GAP] = {"link_min_gap", 3.5, 1, 100, false},
	[TH_ATTRIBUTION_FRACTION] = {"attribution_fraction", 0.5, 0, 0.99, false},
	[TH_ATTRIBUTION_MIN_LINKS] = {"attribution_min_links", 3, 1, 1e6, true},
	[TH_FABRIC_SLOW_FRACTION] = {"fabric_slow_fraction", 0.5, 0.01, 1, false},
	[TH_FABRIC_CENTRE_FLOOR] = {"fabric_centre_floor", 0.85, 0, 1, false},
	[TH_EXPECT_RATE_GBPS] = {"expect_rate_gbps", 0, 0, 1e6, false},
	[TH_EXPECT_MTU] = {"expect_mtu", 0, 0, 65535, true},
	[TH_EXPECT_ACTIVE_MTU] = {"expect_active_mtu", 0, 0, 4096, true},
	[TH_ROCE_PRIORITY] = {"roce_priority", 3, 0, 7, true},
	[TH_ERROR_COUNTER_MIN] = {"error_counter_min", 1, 1, 1e15, true},
	[TH_SYMBOL_ERROR_RATE] = {"symbol_error_rate", 10, 0, 1e12, false},
	[TH_LINK_ERROR_RECOVERY_RATE] = {"link_error_recovery_rate", 5.0 / 60, 0, 1e12, false},
	[TH_PAUSE_STORM_FRACTION] = {"pause_storm_fraction", 0.5, 0.01, 1, false},
	[TH_LOSS_MIN] = {"loss_min", 1, 1, 1e15, true},
	[TH_ECN_MIN] = {"ecn_min", 1, 1, 1e15, true},
	[TH_CNP_MIN] = {"cnp_min", 1, 1, 1e15, true},
	[TH_PFC_OTHER_MIN] = {"pfc_other_min", 1, 1, 1e15, true},
	[TH_DUPLICATE_MIN] = {"duplicate_min", 1, 1, 1e15, true},
	[TH_PCIE_MIN_READ_REQ] = {"pcie_min_read_req", 512, 128, 4096, true},
	[TH_PCIE_AER_MIN] = {"pcie_aer_min", 1, 1, 1e15, true},
	[TH_PCIE_GPU_NIC_MAX] = {"pcie_gpu_nic_max", 2, 0, 4, true},
	[TH_DRAIN_MAX_FRACTION] = {"drain_max_fraction", 0.1, 0, 1, false},
	[TH_NOISE_MAX] = {"noise_max", 0.15, 0.001, 10, false},
	[TH_NIC_RETEST_LINKS] = {"nic_retest_links", 2, 1, 1e6, true},
	[TH_LINK_SWEEP_FALSE_ALARM] = {"link_sweep_false_alarm", 0.005, 1e-300, 1, false},
	[TH_NOISE_BUDGET_S] = {"noise_budget_s", 60, 0, 86400, false},
	[TH_LINK_RETESTS_UNDECIDED] = {"link_retests_undecided", 16, 0, RCK_LINK_RETESTS_MOST, true},
	[TH_MONITOR_LOSS_FRACTION] = {"monitor_loss_fraction", 0.005, 0, 1, false},
	[TH_MONITOR_LOSS_MIN] = {"monitor_loss_min", 2, 1, 1e6, true},
	[TH_MONITOR_RTT_FACTOR] = {"monitor_rtt_factor", 5, 1, 1000, false},
	[TH_MONITOR_TX_DISCARD_RATE] = {"monitor_tx_discard_rate", 100, 0, 1e12, false},
	[TH_MONITOR_SLOW_RESTART_RATE] = {"monitor_slow_restart_rate", 1, 0, 1e12, false},
	/* seconds; above 2.56 s a probe at 100/s is lost to the ring first */
	[TH_MONITOR_PROBE_TIMEOUT] = {"monitor_probe_timeout", 1, 0.05, 10, false},
};

RCK_EXPORT int rck_thresholds_new(struct rck_thresholds **out)
{
	struct rck_thresholds *th = calloc(1, sizeof(*th));

	if (!th)
		return -ENOMEM;
	for (int i = 0; i < TH_COUNT; i++)
		th->v[i] = defs[i].def;
	*out = th;
	return 0;
}

RCK_EXPORT void rck_thresholds_free(struct rck_thresholds *th)
{
	free(th);
}

RCK_EXPORT const char *rck_thresholds_key(unsigned int i)
{
	return i < TH_COUNT ? defs[i].name : NULL;
}

static int find_key(const char *key, size_t len)
{
	for (int i = 0; i < TH_COUNT; i++)
		if (strlen(defs[i].name) == len && !memcmp(defs[i].name, key, len))
			return i;
	return -1;
}

static bool in_range(int k, double v)
{
	return isfinite(v) && v >= defs[k].min && v <= defs[k].max && (!defs[k].whole || v == floor(v));
}

RCK_EXPORT int rck_thresholds_set(struct rck_thresholds *th, const char *key, double value)
{
	int k = key ? find_key(key, strlen(key)) : -1;

	if (k < 0)
		return -ENOENT;
	if (!in_range(k, value))
		return -ERANGE;
	th->v[k] = value;
	return 0;
}

RCK_EXPORT int rck_thresholds_get(const struct rck_thresholds *th, const char *key, double *value)
{
	int k = key ? find_key(key, strlen(key)) : -1;

	if (k < 0)
		return -ENOENT;
	*value = th->v[k];
	return 0;
}

static int fail(char *err, size_t errlen, const char *name, unsigned int line, const char *fmt, ...)
	RCK_PRINTF(5, 6);
static int fail(char *err, size_t errlen, const char *name, unsigned int line, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		snprintf(err, errlen, "%s:%u: %s", name ? name : "thresholds", line, msg);
	}
	return -EINVAL;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* Shorten a piece of input for an error message: printable, at most 40 bytes. */
static void show(char *dst, size_t dlen, const char *s, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 5 < dlen && i < 40; i++)
		dst[o++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (len > 40 && o + 4 < dlen) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = 0;
}

/* One line (without its newline): nothing, or key = value. */
static int parse_line(double *v, bool *seen, const char *s, size_t len, const char *name,
		      unsigned int line, char *err, size_t errlen)
{
	const char *hash = memchr(s, '#', len);
	size_t i = 0, ks, ke, vs, ve;
	char num[64], shown[64], *end;
	double val;
	int k;

	if (hash)
		len = (size_t)(hash - s);
	if (memchr(s, 0, len))
		return fail(err, errlen, name, line, "NUL byte in line");
	while (i < len && is_space(s[i]))
		i++;
	if (i == len)
		return 0;
	ks = i;
	while (i < len && key_char(s[i]))
		i++;
	ke = i;
	while (i < len && is_space(s[i]))
		i++;
	if (ke == ks || i == len || s[i] != '=') {
		show(shown, sizeof(shown), s + ks, len - ks);
		return fail(err, errlen, name, line, "expected `key = value`, got \"%s\"", shown);
	}
	i++;
	while (i < len && is_space(s[i]))
		i++;
	vs = i;
	ve = len;
	while (ve > vs && is_space(s[ve - 1]))
		ve--;
	show(shown, sizeof(shown), s + ks, ke - ks);
	k = find_key(s + ks, ke - ks);
	if (k < 0)
		return fail(err, errlen, name, line, "unknown key \"%s\"", shown);
	if (seen[k])
		return fail(err, errlen, name, line, "key \"%s\" given twice", shown);
	if (ve == vs)
		return fail(err, errlen, name, line, "no value for \"%s\"", shown);
	if (ve - vs >= sizeof(num)) {
		show(shown, sizeof(shown), s + vs, ve - vs);
		return fail(err, errlen, name, line, "value \"%s\" too long", shown);
	}
	memcpy(num, s + vs, ve - vs);
	num[ve - vs] = 0;
	errno = 0;
	val = strtod(num, &end);
	/* Decimal numbers only: strtod would also take hex, "inf" and "nan". */
	if (*end || errno || strpbrk(num, "xXiInN")) {
		show(shown, sizeof(shown), num, strlen(num));
		return fail(err, errlen, name, line, "value \"%s\" of %s is not a number", shown,
			    defs[k].name);
	}
	if (!in_range(k, val))
		return fail(err, errlen, name, line, "%s = %s out of range (%s %g to %g)", defs[k].name,
			    num, defs[k].whole ? "a whole number from" : "from", defs[k].min,
			    defs[k].max);
	seen[k] = true;
	v[k] = val;
	return 0;
}

RCK_EXPORT int rck_thresholds_parse(struct rck_thresholds *th, const char *text, size_t len,
				    const char *name, char *err, size_t errlen)
{
	double v[TH_COUNT];
	bool seen[TH_COUNT] = {false};
	unsigned int line = 1;
	size_t pos = 0;
	int rc;

	if (len > TH_FILE_MAX) {
		fail(err, errlen, name, 0, "larger than %u bytes", TH_FILE_MAX);
		return -E2BIG;
	}
	memcpy(v, th->v, sizeof(v));
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - (text + pos)) : len - pos;

		rc = parse_line(v, seen, text + pos, l, name, line, err, errlen);
		if (rc)
			return rc;
		pos += l + 1;
		line++;
	}
	memcpy(th->v, v, sizeof(v));
	return 0;
}

RCK_EXPORT int rck_thresholds_load(struct rck_thresholds *th, const char *path, char *err, size_t errlen)
{
	struct stat st;
	char *buf;
	ssize_t n;
	size_t got = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		rc = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st))
		rc = -errno;
	else if (!S_ISREG(st.st_mode))
		rc = -EINVAL;
	else if (st.st_size > TH_FILE_MAX)
		rc = -E2BIG;
	else
		rc = 0;
	if (rc) {
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path,
				 rc == -EINVAL ? "not a regular file" :
				 rc == -E2BIG ? "larger than 1 MiB" : strerror(-rc));
		close(fd);
		return rc;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size && (n = read(fd, buf + got, (size_t)st.st_size - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			if (err && errlen)
				snprintf(err, errlen, "%s: %s", path, strerror(-rc));
			free(buf);
			close(fd);
			return rc;
		}
		got += (size_t)n;
	}
	close(fd);
	rc = rck_thresholds_parse(th, buf, got, path, err, errlen);
	free(buf);
	return rc;
}
