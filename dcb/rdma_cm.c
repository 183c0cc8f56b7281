/* rdma_cm per-port defaults through configfs: default_roce_tos and
 * default_roce_mode under ROOT/rdma_cm/DEV/ports/N/. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dcb_internal.h"
#include "sysfs.h"

/* configfs may not be mounted (the rdma_cm folder appears once both
 * configfs is mounted and rdma_cm is loaded). Mount it on the live path only. */
static int cm_root(const char *root, char *dir, size_t len)
{
	struct stat st;

	if ((size_t)snprintf(dir, len, "%s/rdma_cm", root) >= len)
		return -ENAMETOOLONG;
	if (!stat(dir, &st))
		return 0;
	if (!strcmp(root, DCB_CONFIGFS) && !stat(root, &st) &&
	    mount("configfs", root, "configfs", 0, NULL) && errno != EBUSY)
		return -errno;
	return stat(dir, &st) ? -ENOENT : 0;
}

/* The DEV folder exists only once someone made it; *made says we did, so
 * the caller removes it again (the kernel keeps the values without it). */
static int cm_dev_dir(const char *root, const char *dev, char *dir, size_t len, bool *made)
{
	char base[512];
	int rc = cm_root(root, base, sizeof(base));

	*made = false;
	if (rc)
		return rc;
	if (strchr(dev, '/') || !strcmp(dev, ".") || !strcmp(dev, ".."))
		return -EINVAL;
	if ((size_t)snprintf(dir, len, "%s/%s", base, dev) >= len)
		return -ENAMETOOLONG;
	if (!mkdir(dir, 0755))
		*made = true;
	else if (errno != EEXIST)
		return -errno;
	return 0;
}

int dcb_cm_read(const char *root, const char *dev, unsigned int port, unsigned int *tos,
		char *mode, size_t modelen)
{
	char dir[600], path[700], buf[64];
	uint64_t v;
	bool made;
	int rc = cm_dev_dir(root, dev, dir, sizeof(dir), &made);

	if (rc)
		return rc;
	rc = sysfs_read_str(sysfs_at(path, sizeof(path), dir, "ports/%u/default_roce_tos", port), buf,
			    sizeof(buf));
	if (!rc)
		rc = sysfs_parse_u64(buf, &v);
	if (!rc && v > 255)
		rc = -ERANGE;
	if (!rc) {
		*tos = (unsigned int)v;
		rc = sysfs_read_str(sysfs_at(path, sizeof(path), dir, "ports/%u/default_roce_mode", port),
				    mode, modelen);
	}
	if (made)
		rmdir(dir);
	return rc;
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int rc = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		rc = -errno;
	else if ((size_t)n != strlen(val))
		rc = -EIO;
	close(fd);
	return rc;
}

int dcb_cm_write(const char *root, const char *dev, unsigned int port, const unsigned int *tos,
		 const char *mode)
{
	char dir[600], path[700], buf[16];
	bool made;
	int rc = cm_dev_dir(root, dev, dir, sizeof(dir), &made);

	if (rc)
		return rc;
	if (tos) {
		snprintf(buf, sizeof(buf), "%u", *tos);
		rc = write_file(sysfs_at(path, sizeof(path), dir, "ports/%u/default_roce_tos", port), buf);
	}
	if (!rc && mode)
		rc = write_file(sysfs_at(path, sizeof(path), dir, "ports/%u/default_roce_mode", port), mode);
	if (made)
		rmdir(dir);
	return rc;
}
