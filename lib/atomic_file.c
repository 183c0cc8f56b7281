/* Files written whole or not at all: a unique temporary beside the target,
 * fsync, then rename over it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

int rck_write_atomic(const char *path, int (*fn)(FILE *f, const void *arg), const void *arg)
{
	struct timespec ts;
	char *tmp;
	FILE *f = NULL;
	int fd = -1, rc = 0;

	if (!path || !*path)
		return -EINVAL;
	tmp = malloc(strlen(path) + 64);
	if (!tmp)
		return -ENOMEM;
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
	f = fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		close(fd);
	} else {
		rc = fn(f, arg);
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
