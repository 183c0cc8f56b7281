/* sysfs access for the inventory and counters. A recorded tree is a copy of
 * /sys with relative symlinks, so the same code reads both. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file.h"
#include "internal.h"
#include "sysfs.h"

int sysfs_path(const struct rck_ctx *ctx, char *buf, size_t len, const char *fmt, ...)
{
	const char *root = ctx->sysfs_root ? ctx->sysfs_root : "/sys";
	va_list ap;
	int n, m;

	n = snprintf(buf, len, "%s/", root);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= len - n)
		return -ENAMETOOLONG;
	return 0;
}

/* First line of the @n bytes read, trailing whitespace removed. */
static int sysfs_trim(char *buf, size_t n)
{
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	for (size_t i = strlen(buf); i > 0 && isspace((unsigned char)buf[i - 1]); i--)
		buf[i - 1] = '\0';
	return buf[0] ? 0 : -ENODATA;
}

int sysfs_read_str(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, err;

	if (len == 0)
		return -EINVAL;
	/* Attributes are regular files: a FIFO or device planted in a
	 * recorded tree is refused instead of blocking the open or the read. */
	fd = rck_file_open(path, true);
	if (fd < 0)
		return fd;
	n = read(fd, buf, len - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	return sysfs_trim(buf, (size_t)n);
}

int sysfs_fd_read_str(int fd, char *buf, size_t len)
{
	ssize_t n;

	if (len == 0)
		return -EINVAL;
	/* a sysfs attribute is generated again by a read at offset 0 */
	n = pread(fd, buf, len - 1, 0);
	if (n < 0)
		return -errno;
	return sysfs_trim(buf, (size_t)n);
}

int sysfs_parse_u64(const char *s, uint64_t *val)
{
	unsigned long long v;
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	/* The kernel writes decimal: "010" is ten, "0x20" is not a number. */
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EINVAL;
	*val = v;
	return 0;
}

int sysfs_read_u64(const char *path, uint64_t *val, char *raw, size_t rawlen)
{
	char buf[128];
	int rc = sysfs_read_str(path, buf, sizeof(buf));

	if (rc)
		return rc;
	rc = sysfs_parse_u64(buf, val);
	if (rc && raw && rawlen)
		snprintf(raw, rawlen, "%s", buf);
	return rc;
}

int sysfs_link_name(const char *path, char *buf, size_t len)
{
	char target[4096];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	const char *base;

	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (!*base)
		return -EINVAL;
	if ((size_t)snprintf(buf, len, "%s", base) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t lx = strlen(x), ly = strlen(y);
	size_t px = strcspn(x, "0123456789"), py = strcspn(y, "0123456789");

	/* Natural order for "name<digits>" so port 10 sorts after port 9. */
	if (px == py && !strncmp(x, y, px) && px < lx && px < ly) {
		unsigned long nx = strtoul(x + px, NULL, 10), ny = strtoul(y + py, NULL, 10);
		if (nx != ny)
			return nx < ny ? -1 : 1;
	}
	return strcmp(x, y);
}

void sysfs_names_free(char **names)
{
	if (!names)
		return;
	for (char **p = names; *p; p++)
		free(*p);
	free(names);
}

int sysfs_list(const char *dir, char ***names)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, cap = 0;
	int err = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n + 2 > cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **nv = realloc(v, ncap * sizeof(*v));
			if (!nv) {
				err = -ENOMEM;
				break;
			}
			v = nv;
			cap = ncap;
		}
		v[n] = strdup(de->d_name);
		if (!v[n]) {
			err = -ENOMEM;
			break;
		}
		v[++n] = NULL;
	}
	closedir(d);
	if (!err && !v) {
		v = calloc(1, sizeof(*v));
		if (!v)
			err = -ENOMEM;
	}
	if (err) {
		if (v)
			v[n] = NULL;
		sysfs_names_free(v);
		return err;
	}
	qsort(v, n, sizeof(*v), cmp_names);
	*names = v;
	return (int)n;
}

const char *sysfs_at(char *buf, size_t len, const char *dir, const char *fmt, ...)
{
	va_list ap;
	int n, m;

	n = snprintf(buf, len, "%s/", dir);
	if (n < 0 || (size_t)n >= len) {
		buf[0] = '\0';
		return buf;
	}
	va_start(ap, fmt);
	m = vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= len - n)
		buf[0] = '\0';
	return buf;
}
