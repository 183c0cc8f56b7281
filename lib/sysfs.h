/* Reading sysfs, live or from a recorded tree: path joining under the
 * context's root, small-file reads, directory listings, link targets. */
#ifndef RCK_SYSFS_H
#define RCK_SYSFS_H

#include <stddef.h>
#include <stdint.h>

struct rck_ctx;

/* Build "<root>/<rel>" where rel is a printf format relative to /sys (no
 * leading slash, e.g. "class/infiniband/%s"). Returns 0 or -ENAMETOOLONG. */
int sysfs_path(const struct rck_ctx *ctx, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Read a whole small file (first line kept, trailing whitespace removed),
 * at most @len - 1 bytes, with rck_file_open() (no final symlink, regular
 * files only). Returns 0, -errno from open/read, -RCK_ENOTREG, or -ENODATA
 * when empty. */
int sysfs_read_str(const char *path, char *buf, size_t len);

/* As sysfs_read_str() on a file already open (pread at offset 0). */
int sysfs_fd_read_str(int fd, char *buf, size_t len);

/* Read an unsigned decimal number (base 10 always, as the kernel writes). -EINVAL when the text is not
 * one number (the text is then left in @raw if given, for the caller to keep). */
int sysfs_read_u64(const char *path, uint64_t *val, char *raw, size_t rawlen);

/* Parse the number in @s as sysfs_read_u64 does. */
int sysfs_parse_u64(const char *s, uint64_t *val);

/* Basename of a symlink's target (e.g. a driver link). Returns 0 or -errno. */
int sysfs_link_name(const char *path, char *buf, size_t len);

/* Sorted names in a directory, without "." and "..". *names is a NULL-ended
 * array owned by the caller, freed with sysfs_names_free(). Returns the
 * count or -errno. */
int sysfs_list(const char *dir, char ***names);
void sysfs_names_free(char **names);



/* "<dir>/<fmt...>" into @buf; returns @buf, emptied when the path does not
 * fit (a following open then fails with ENOENT rather than reading a cut path). */
const char *sysfs_at(char *buf, size_t len, const char *dir, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
