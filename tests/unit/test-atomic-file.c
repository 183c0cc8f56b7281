/* Atomic writes: the target's mode kept, temporaries of killed writers
 * cleaned, a full disk named as such (a tiny tmpfs, where we may mount). */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"

static int small(FILE *f, const void *arg)
{
	(void)arg;
	return fputs("{\"schema\": 1}\n", f) < 0 ? -EIO : 0;
}

static int big(FILE *f, const void *arg)
{
	static char line[4096];

	(void)arg;
	memset(line, 'x', sizeof(line) - 1);
	for (int i = 0; i < 1024; i++)
		if (fputs(line, f) < 0)
			return -EIO;
	return 0;
}

static void test_mode_kept(void **state)
{
	char dir[] = "/tmp/test-atomic-XXXXXX", path[128];
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.json", dir);
	assert_int_equal(rck_write_atomic(path, small, NULL), 0);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(rck_write_atomic(path, small, NULL), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	unlink(path);
	rmdir(dir);
}

static void test_stale_cleaned(void **state)
{
	char dir[] = "/tmp/test-atomic-XXXXXX", path[128], stale[192], live[192], other[192];
	pid_t dead = fork();
	struct stat st;
	int fd;

	(void)state;
	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0); /* a pid that no longer runs */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/report.json", dir);
	snprintf(stale, sizeof(stale), "%s.tmp.%ld.123456", path, (long)dead);
	snprintf(live, sizeof(live), "%s.tmp.%ld.654321", path, (long)getpid());
	snprintf(other, sizeof(other), "%s/other.json.tmp.%ld.1", dir, (long)dead);
	for (int i = 0; i < 3; i++) {
		fd = open(i == 0 ? stale : i == 1 ? live : other, O_WRONLY | O_CREAT, 0600);
		assert_true(fd >= 0);
		close(fd);
	}
	assert_int_equal(rck_write_atomic(path, small, NULL), 0);
	assert_int_equal(stat(stale, &st), -1);  /* a killed writer's: gone */
	assert_int_equal(stat(live, &st), 0);    /* a running writer's: kept */
	assert_int_equal(stat(other, &st), 0);   /* another file's: kept */
	unlink(live);
	unlink(other);
	unlink(path);
	rmdir(dir);
}

static void test_full_disk(void **state)
{
	char dir[] = "/tmp/test-atomic-XXXXXX", path[128];
	DIR *d;
	int rc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	if (mount("none", dir, "tmpfs", 0, "size=256k")) {
		/* Not allowed to mount here (no root): skipped, loudly; CI has root. */
		int err = errno;

		rmdir(dir);
		if (getenv("CI"))
			fail_msg("cannot mount a tmpfs: %s", strerror(err));
		fprintf(stderr, "test_full_disk SKIPPED: cannot mount a tmpfs: %s\n", strerror(err));
		return;
	}
	snprintf(path, sizeof(path), "%s/report.json", dir);
	rc = rck_write_atomic(path, big, NULL);
	assert_int_equal(rc, -ENOSPC);
	d = opendir(dir); /* nothing left behind */
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.')
			fail_msg("left behind: %s", e->d_name);
	closedir(d);
	umount(dir);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mode_kept),
		cmocka_unit_test(test_stale_cleaned),
		cmocka_unit_test(test_full_disk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
