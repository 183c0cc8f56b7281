/* Files written whole or not at all: a unique temporary beside the target
 * (with the target's mode), fsync, then rename over it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* "NAME.tmp.PID.NS" of a process that is gone? */
static bool stale(const char *entry, const char *base)
{
	size_t n = strlen(base);
	char *end;
	long pid;

	if (strncmp(entry, base, n) || strncmp(entry + n, ".tmp.", 5))
		return false;
	pid = strtol(entry + n + 5, &end, 10);
	if (end == entry + n + 5 || *end != '.' || pid <= 0 || !end[1])
		return false;
	for (const char *p = end + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

/* Temporaries of @path that a killed writer left behind (ours only: the
 * same owner, a regular file, a writer that no longer runs). */
static void clean_stale(const char *path)
{
	char *d = strdup(path), *b = strdup(path);
	const char *dir, *base;
	DIR *dh;
	struct dirent *e;
	int dfd;

	if (!d || !b)
		goto out;
	dir = dirname(d);
	base = basename(b);
	dh = opendir(dir);
	if (!dh)
		goto out;
	dfd = dirfd(dh);
	while ((e = readdir(dh))) {
		struct stat st;

		if (stale(e->d_name, base) && !fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode) && st.st_uid == geteuid())
			unlinkat(dfd, e->d_name, 0);
	}
	closedir(dh);
out:
	free(d);
	free(b);
}

int rck_write_atomic(const char *path, int (*fn)(FILE *f, const void *arg), const void *arg)
{
	struct timespec ts;
	struct stat st;
	bool keep_mode;
	char *tmp;
	FILE *f = NULL;
	int fd = -1, rc = 0;

	if (!path || !*path)
		return -EINVAL;
	tmp = malloc(strlen(path) + 64);
	if (!tmp)
		return -ENOMEM;
	clean_stale(path);
	keep_mode = !stat(path, &st) && S_ISREG(st.st_mode);
	for (int attempt = 0; fd < 0 && attempt < 16; attempt++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sprintf(tmp, "%s.tmp.%ld.%ld", path, (long)getpid(), (long)ts.tv_nsec + attempt);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		rc = -errno;
		free(tmp);
		return rc;
	}
	/* A 0600 file stays 0600 when written again. */
	if (keep_mode && fchmod(fd, st.st_mode & 07777))
		rc = -errno;
	f = rc ? NULL : fdopen(fd, "w");
	if (!f) {
		rc = rc ? rc : -errno;
		close(fd);
	} else {
		errno = 0;
		rc = fn(f, arg);
		/* A writer says -EIO for any stdio error: the reason is in errno. */
		if (rc == -EIO && (errno == ENOSPC || errno == EDQUOT || errno == EFBIG))
			rc = -errno;
		if (!rc && fflush(f))
			rc = -errno;
		if (!rc && fsync(fileno(f)))
			rc = -errno;
		if (fclose(f) && !rc)
			rc = -errno;
	}
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

int rck_atomic_check_target(const char *path, mode_t *mode)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (mode)
		*mode = st.st_mode & 07777;
	return 0;
}

RCK_EXPORT int rck_write_file_atomic(const char *path, int (*fn)(FILE *f, const void *arg), const void *arg)
{
	if (!path || !*path || !fn)
		return -EINVAL;
	return rck_write_atomic(path, fn, arg);
}
