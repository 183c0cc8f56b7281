/* Hardened reads: non-blocking open, regular files only, bounded size.
 * A recorded tree or a snapshot handed over from another host is input. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"

int rck_file_open(const char *path, bool nofollow)
{
	struct stat st;
	int fd, err;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -RCK_ENOTREG;
	}
	return fd;
}

int rck_file_read(const char *path, bool nofollow, size_t cap, char **bufp, size_t *lenp)
{
	size_t len = 0, size = 4096;
	char *buf = NULL;
	int fd, err = 0;

	fd = rck_file_open(path, nofollow);
	if (fd < 0)
		return fd;
	/* st_size is 4096 for every sysfs attribute whatever it holds: read
	 * until EOF, but never more than @cap (+1 to see that it is more). */
	for (;;) {
		ssize_t n;

		if (!buf || len + 1 >= size) {
			char *nb;

			if (buf)
				size *= 2;
			if (size > cap + 2)
				size = cap + 2;
			nb = realloc(buf, size);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
		}
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > cap) {
			err = -EFBIG;
			break;
		}
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

const char *rck_strerror(int err)
{
	if (err < 0)
		err = -err;
	return err == RCK_ENOTREG ? "not a regular file" : strerror(err);
}
