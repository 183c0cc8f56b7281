/* Benchmark of the sweep result's JSON: peak RSS of writing and of loading
 * a 1024-host full mesh and a 10,000-host topology-like result, as ratios
 * to the document's size (the write and the load each stream). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rocecheck/rocecheck.h>

/* Memory the write may add to the result it writes, whatever its size. */
#define WRITE_MAX_KIB (8 * 1024)
/* What the load may hold beyond the result it builds, over the document. */
#define LOAD_MAX_RATIO 0.25

/* A line of /proc/self/status in KiB ("VmRSS:", "VmHWM:"). */
static long status_kib(const char *key)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = strtol(line + strlen(key), NULL, 10);
	fclose(f);
	return v;
}

/* Peak RSS from here on: the kernel's high-water mark, reset to now. */
static int reset_peak(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	int ok = fd >= 0 && write(fd, "5", 1) == 1;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* @hosts hosts of one NIC; @peers < 0: a full mesh, else each host probes
 * the rest of its leaf of 32 and @peers - 31 hosts across the spines. */
static struct rck_mesh *build(unsigned int hosts, int peers)
{
	struct rck_mesh_info info = {.size = sizeof(info), .pattern = peers < 0 ? "full" : "pairs",
				     .rails = "same", .start_ns = 1764750000000000000ULL, .seconds = 220};
	struct rck_mesh_meas x = {.size = sizeof(x), .status = RCK_MESH_OK, .lat_p50_us = NAN,
				  .lat_p99_us = NAN, .seconds = 0.1};
	struct rck_mesh *m;

	if (rck_mesh_new(&m) || rck_mesh_set_info(m, &info))
		return NULL;
	for (unsigned int h = 0; h < hosts; h++) {
		struct rck_mesh_nic nic = {.size = sizeof(nic), .device = "mlx5_0", .port = 1, .rail = 0,
					   .netdev = "ens1f0np0", .state = "ACTIVE", .fw_ver = "28.39.1002",
					   .rate_gbps = 400, .active_mtu = 4096, .netdev_mtu = 9000, .gid_index = 3,
					   .counters = (1ULL << RCK_CTR_CNP_SENT) | (1ULL << RCK_CTR_ECN_MARKED_PACKETS)};
		char name[32];
		unsigned int idx;

		snprintf(name, sizeof(name), "gpu%05u.pod%02u", h, h / 512);
		if (rck_mesh_add_host(m, name, &idx) || rck_mesh_add_nic(m, idx, &nic, NULL))
			return NULL;
	}
	for (unsigned int a = 0; a < hosts; a++) {
		unsigned int n = peers < 0 ? hosts - 1 : (unsigned int)peers;

		for (unsigned int k = 0; k < n; k++) {
			unsigned int b, cell;

			if (peers < 0)
				b = k < a ? k : k + 1;
			else if (k < 31)
				b = a / 32 * 32 + (a % 32 + 1 + k) % 32;
			else
				b = (a + 32 * (k - 30)) % hosts;
			if (b == a || b >= hosts || !rck_mesh_find_cell(m, RCK_MESH_TEST_BW, a, b, NULL))
				continue;
			x.gbps = 380 + (a * 7 + b) % 41 / 3.0;
			x.start_s = (a + k) * 0.1;
			if (rck_mesh_set_result(m, RCK_MESH_TEST_BW, a, b, 0, &x, &cell))
				return NULL;
			if ((a + b) % 7 == 0 &&
			    rck_mesh_set_counter(m, cell, 0, RCK_MESH_DST, RCK_CTR_ECN_MARKED_PACKETS, a + b))
				return NULL;
		}
	}
	return m;
}

struct shared {
	long pre_kib, built_kib, write_base_kib, write_peak_kib, load_base_kib, load_peak_kib;
	double write_s, load_s;
	unsigned long long doc_bytes, cells;
	int rc;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct counted {
	int fd;
	unsigned long long bytes;
};

static ssize_t counted_write(void *cookie, const char *buf, size_t len)
{
	struct counted *c = cookie;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(c->fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	c->bytes += len;
	return (ssize_t)len;
}

/* The writer: builds the result and writes it into @fd (a pipe). */
static int writer(int fd, unsigned int hosts, int peers, int res_fd)
{
	struct shared s = {.pre_kib = status_kib("VmRSS:")};
	struct rck_mesh *m = build(hosts, peers);
	struct counted c = {.fd = fd};
	FILE *f = fopencookie(&c, "w", (cookie_io_functions_t){.write = counted_write});
	double t;

	if (!m || !f)
		return 1;
	s.cells = rck_mesh_cell_count(m);
	s.built_kib = status_kib("VmRSS:");
	if (reset_peak())
		return 1;
	s.write_base_kib = status_kib("VmRSS:");
	t = now();
	s.rc = rck_mesh_write(m, f, RCK_FORMAT_JSON);
	s.write_s = now() - t;
	s.write_peak_kib = status_kib("VmHWM:");
	fclose(f);
	close(fd);
	s.doc_bytes = c.bytes;
	rck_mesh_free(m);
	return write(res_fd, &s, sizeof(s)) == sizeof(s) ? 0 : 1;
}

/* The loader: reads the document from @fd through /proc/self/fd. */
static int loader(int fd, int res_fd)
{
	struct shared s = {0};
	struct rck_mesh *m = NULL;
	struct rck_ctx *ctx;
	char path[64];
	double t;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (rck_ctx_new(&ctx) || reset_peak())
		return 1;
	s.load_base_kib = status_kib("VmRSS:");
	t = now();
	s.rc = rck_mesh_load(ctx, path, &m);
	s.load_s = now() - t;
	s.load_peak_kib = status_kib("VmHWM:");
	s.cells = m ? rck_mesh_cell_count(m) : 0;
	rck_mesh_free(m);
	rck_ctx_free(ctx);
	return write(res_fd, &s, sizeof(s)) == sizeof(s) ? 0 : 1;
}

static int run(const char *label, unsigned int hosts, int peers)
{
	int pipefd[2], res[2][2];
	struct shared w, l;
	pid_t pw, pl;
	int st, fail = 0;
	double doc_kib, per_host_kib, write_over, load_over;

	if (pipe(pipefd) || pipe(res[0]) || pipe(res[1]))
		return 1;
	pw = fork();
	if (pw == 0) {
		close(pipefd[0]);
		_exit(writer(pipefd[1], hosts, peers, res[0][1]));
	}
	pl = fork();
	if (pl == 0) {
		close(pipefd[1]);
		_exit(loader(pipefd[0], res[1][1]));
	}
	close(pipefd[0]);
	close(pipefd[1]);
	close(res[0][1]);
	close(res[1][1]);
	if (read(res[0][0], &w, sizeof(w)) != sizeof(w) || read(res[1][0], &l, sizeof(l)) != sizeof(l)) {
		printf("%s: the writer or the loader failed\n", label);
		fail = 1;
	}
	waitpid(pw, &st, 0);
	fail |= !WIFEXITED(st) || WEXITSTATUS(st);
	waitpid(pl, &st, 0);
	fail |= !WIFEXITED(st) || WEXITSTATUS(st);
	if (fail || w.rc || l.rc || l.cells != w.cells) {
		printf("%s: FAIL: write rc %d, load rc %d, %llu of %llu probes back\n", label, w.rc, l.rc, l.cells,
		       w.cells);
		return 1;
	}
	doc_kib = (double)w.doc_bytes / 1024;
	per_host_kib = doc_kib / hosts;
	write_over = (double)(w.write_peak_kib - w.write_base_kib);
	/* The loader builds the same result the writer held. */
	load_over = (double)(l.load_peak_kib - l.load_base_kib) - (double)(w.built_kib - w.pre_kib);
	printf("%s: %u hosts, %llu probes, document %.1f MiB (%.1f KiB a host)\n", label, hosts, w.cells,
	       doc_kib / 1024, per_host_kib);
	printf("  write: %.2f s, peak RSS %.1f MiB with the result held (%.1f MiB); the write adds %.0f KiB = "
	       "%.4fx the document, %.2fx one host's cells\n",
	       w.write_s, w.write_peak_kib / 1024.0, w.built_kib / 1024.0, write_over, write_over / doc_kib,
	       write_over / per_host_kib);
	printf("  load:  %.2f s, peak RSS %.1f MiB = %.3fx the document (the result it builds: %.1f MiB); "
	       "beyond the result %.1f MiB = %.4fx the document\n",
	       l.load_s, l.load_peak_kib / 1024.0, l.load_peak_kib / doc_kib, (w.built_kib - w.pre_kib) / 1024.0,
	       load_over / 1024, load_over / doc_kib);
	if (write_over > WRITE_MAX_KIB) {
		printf("  FAIL: the write adds more than %d KiB\n", WRITE_MAX_KIB);
		return 1;
	}
	if (load_over / doc_kib > LOAD_MAX_RATIO) {
		printf("  FAIL: the load holds more than %.2fx the document beyond the result\n", LOAD_MAX_RATIO);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int full = argc > 1 ? (unsigned int)atoi(argv[1]) : 1024;
	unsigned int sparse = argc > 2 ? (unsigned int)atoi(argv[2]) : 10000;
	int rc = 0;

	signal(SIGPIPE, SIG_IGN);
	rc |= run("full mesh", full, -1);
	rc |= run("topology (100 peers a host)", sparse, 100);
	return rc;
}
